/**
 * The workload of the benchmark and of `test/perf`: programs of N users (plus one entitlement
 * each), a no-op dynamic provider with the same shape (the engine's and the host's own cost), and
 * the emulator from the built package, run through the real `pulumi` CLI. Plain TypeScript with
 * erasable syntax: `node` runs it directly.
 */
import { createRequire } from "node:module";
import * as path from "node:path";
import type { Emulator, EmulatorOptions } from "../src/emulator/index";
import { type Deployment, openDeployment } from "../test/cli/deployment.ts";
import { repoRoot } from "../test/support/paths.ts";
import type { Project } from "../test/support/project.ts";

const requireDist = createRequire(path.join(repoRoot, "package.json"));

/** `startEmulator` of the built package (`dist/`: `npm run build` first). */
export function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const emulator = requireDist("./dist/emulator/index.js") as { startEmulator: (o: EmulatorOptions) => Promise<Emulator> };
  return emulator.startEmulator(options);
}

/** The integration every entitlement goes to. */
export const INTEGRATION_ID = "5b1c0d2e-0000-4000-8000-00000000be0c";

/**
 * An emulator with one integration to entitle users in. Jobs are done at their first poll
 * (override with `job`): the poll schedule's own cost is measured by test/perf, and 1,000
 * entitlements at two polls each would not fit the bench's five minutes.
 */
export function benchEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({
    job: { finishAfterPolls: 1 },
    seed: {
      integrations: [{ id: INTEGRATION_ID, application: "bench", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] }],
    },
    ...options,
  });
}

/** The body of user `i`, the same in the program and in the raw-request floor. */
export function userBody(
  i: number,
  generation = 0,
): { email: string; firstName: string; lastName: string; role: string; isGuest: boolean } {
  return {
    email: `user${i}@bench.example`,
    firstName: `First${i}`,
    lastName: generation === 0 ? `Last${i}` : `Last${i}-g${generation}`,
    role: "workspace_login_only",
    isGuest: false,
  };
}

/**
 * The program: `bench:n` users (`bench:generation` changes their last names and the
 * entitlements), plus one entitlement each when `bench:entitlements` is true. CommonJS, no
 * transpiling: the program's own cost stays out of the figures.
 */
export const PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const cfg = new pulumi.Config("bench");
const n = Number(cfg.require("n"));
const generation = Number(cfg.get("generation") ?? "0");
const entitlements = cfg.getBoolean("entitlements") === true;
for (let i = 0; i < n; i++) {
  const user = new wa.User("u" + i, {
    email: "user" + i + "@bench.example",
    firstName: "First" + i,
    lastName: generation === 0 ? "Last" + i : "Last" + i + "-g" + generation,
  });
  if (entitlements) {
    new wa.IntegrationEntitlement("e" + i, {
      integrationId: ${JSON.stringify(INTEGRATION_ID)},
      userId: user.id,
      entitlements: generation === 0 ? ["VIEWER"] : ["VIEWER", "EDITOR"],
    });
  }
}
`;

/**
 * The no-op provider: every method returns at once. Its ids have the package's forms (a user's UUID,
 * `<integrationId>/<userId>` for a membership, the integration's id for a member set), so that with the
 * package's type token (see `noopProgram` in bench/run.ts) both twins' checkpoints hold the same names.
 */
export const NOOP_PROVIDER = `const { randomUUID } = require("node:crypto");
const idOf = (i) => (i.integrationId ? (i.userId ? i.integrationId + "/" + i.userId : i.integrationId) : randomUUID());
exports.provider = {
  async check(_olds, news) { return { inputs: news }; },
  async diff() { return { changes: false }; },
  async create(inputs) { return { id: idOf(inputs), outs: { ...inputs, status: "live" } }; },
  async read(id, props) { return { id, props }; },
  async update(_id, _olds, news) { return { outs: news }; },
  async delete() {},
};
`;

/** How many `getUser` calls {@link LOOKUP_PROGRAM} makes. */
export const LOOKUPS = 100;

/**
 * A program of {@link LOOKUPS} `getUser` calls by email (upper-cased: emails compare
 * case-insensitively), spread over the `bench:n` users {@link seedLookupUsers} added, and no
 * resource. Its stack output `found` is how many distinct users it found.
 */
export const LOOKUP_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const lookups = [];
for (let i = 0; i < ${LOOKUPS}; i++) {
  lookups.push(wa.getUser({ email: ("user" + Math.floor((i * n) / ${LOOKUPS}) + "@bench.example").toUpperCase() }));
}
exports.found = Promise.all(lookups).then((users) => new Set(users.map((u) => u.id)).size);
`;

/** Adds the `n` users of {@link LOOKUP_PROGRAM} straight into the emulator (no requests). */
export function seedLookupUsers(emu: Emulator, n: number): void {
  for (let i = 0; i < n; i++) {
    const { email, firstName, lastName } = userBody(i);
    emu.users.add({ email, firstName, lastName });
  }
}

/**
 * Writes a program (the project's `index.js`, what the CLI runs: {@link PROGRAM} by default) and
 * the no-op provider package into a project.
 */
export function writeWorkload(project: Project, program: string = PROGRAM): void {
  project.write("index.js", program);
  project.write("node_modules/bench-noop-provider/package.json", JSON.stringify({ name: "bench-noop-provider", main: "index.js" }));
  project.write("node_modules/bench-noop-provider/index.js", NOOP_PROVIDER);
}

/** A stack of the workload against an emulator, through the CLI, `--parallel` `parallel` (the CLI's default when unset). */
export function workloadStack(
  project: Project,
  emu: Emulator,
  options: { stackName: string; n: number; parallel?: number; env?: Record<string, string | undefined>; backendDir?: string },
): Promise<Deployment> {
  return openDeployment({
    projectDir: project.dir,
    // As users run it: passphrase secrets (each CLI command derives their key).
    secrets: "passphrase",
    stackName: options.stackName,
    ...(options.parallel ? { parallel: options.parallel } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.backendDir ? { backendDir: options.backendDir } : {}),
    config: {
      "workspace-access:baseUrl": emu.url,
      "workspace-access:apiKey": { value: emu.apiKey, secret: true },
      "bench:n": String(options.n),
    },
  });
}
