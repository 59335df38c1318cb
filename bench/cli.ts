/**
 * The package under the real `pulumi` CLI (the CLI tier's binary: `npm run pulumi-cli`): one
 * `pulumi up` of `BENCH_CLI_N` (1,000) `IntegrationEntitlement`s of one integration plus an
 * `IntegrationMembers` of as many members of another, against the emulator (no rate limit, jobs
 * done at their first poll), versus one `pulumi up` of the same number of resources through a
 * no-op dynamic provider (its create returns at once): the engine's, the language host's and the
 * dynamic-provider host's own cost, taken in the same run. Both at the CLI's default `--parallel`
 * (four per CPU), or `BENCH_CLI_PARALLEL`. File backend, passphrase secrets, no network.
 *
 * Run alone with `node bench/cli.ts` after `npm run build`, or as part of `npm run bench` (skipped
 * with one line when there is no CLI; `BENCH_CLI=0` skips it).
 */
import * as path from "node:path";
import type { Emulator, SeedUser } from "../src/emulator/index";
import { cli, cliAvailable, type CliStack, openCliStack } from "../test/cli/support.ts";
import { packedProject } from "../test/engine/packed.ts";
import type { Project } from "../test/engine/project.ts";
import { INTEGRATION_ID, NOOP_PROVIDER, startEmulator } from "./workload.ts";

/** The integration the `IntegrationMembers` manages (the entitlements go to {@link INTEGRATION_ID}). */
const TEAM_ID = "5b1c0d2e-0000-4000-8000-0000000000a1";
const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** `bench:n` entitlements and one `IntegrationMembers` of `bench:n` members, the same users in both. CommonJS: no transpiling. */
const PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
const members = [];
for (let i = 0; i < n; i++) {
  new wa.IntegrationEntitlement("e" + i, { integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] });
  members.push({ userId: id(i), entitlements: ["VIEWER"] });
}
new wa.IntegrationMembers("team", { integrationId: ${JSON.stringify(TEAM_ID)}, members });
`;

/** As many resources (n + 1) of the same kind of inputs through a dynamic provider that does nothing. */
const NOOP_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const n = Number(new pulumi.Config("bench").require("n"));
const provider = 'exports.handler = () => require("bench-noop-provider").provider;\\n';
class Noop extends pulumi.CustomResource {
  constructor(name, args) {
    super("pulumi-nodejs:dynamic/bench:Noop", name, { ...args, status: undefined, __provider: provider });
  }
}
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
for (let i = 0; i < n; i++) new Noop("e" + i, { integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] });
new Noop("team", { integrationId: ${JSON.stringify(TEAM_ID)}, members: Array.from({ length: n }, (_, i) => ({ userId: id(i), entitlements: ["VIEWER"] })) });
`;

function emulatorFor(n: number): Promise<Emulator> {
  const users: SeedUser[] = Array.from({ length: n }, (_, i) => ({
    id: userId(i),
    email: `c${i}@bench.example`,
    firstName: "C",
    lastName: `${i}`,
  }));
  return startEmulator({
    job: { finishAfterPolls: 1 },
    seed: {
      users,
      integrations: [
        { id: INTEGRATION_ID, application: "bench", entitlements: [{ id: "VIEWER" }] },
        { id: TEAM_ID, application: "team", entitlements: [{ id: "VIEWER" }] },
      ],
    },
  });
}

/** One measured `pulumi up`. */
export interface CliUp {
  what: string;
  resources: number;
  ms: number;
  requests: number;
  jobPolls: number;
  invitePosts: number;
}

export interface CliBenchResult {
  n: number;
  parallel: string;
  cliVersion: string;
  runs: CliUp[];
  /** package up / no-op up. */
  ratio: number;
}

async function timedUp(stack: CliStack): Promise<number> {
  const parallel = process.env.BENCH_CLI_PARALLEL;
  const started = performance.now();
  await stack.up(...(parallel ? ["--parallel", parallel] : []));
  return performance.now() - started;
}

async function withProject<T>(name: string, files: Record<string, string>, run: (project: Project) => Promise<T>): Promise<T> {
  const project = await packedProject({ name, files });
  try {
    return await run(project);
  } finally {
    await project.remove();
  }
}

/** The two `pulumi up`s; null (with one line on stderr) without a CLI. */
export async function benchCli(): Promise<CliBenchResult | null> {
  if (!cliAvailable) {
    console.error(`[cli] skipped: ${"missing" in cli ? cli.missing : ""}`);
    return null;
  }
  const n = Number(process.env.BENCH_CLI_N ?? 1000);
  const runs: CliUp[] = [];

  const emu = await emulatorFor(n);
  try {
    runs.push(
      await withProject("bench-cli", { "index.js": PROGRAM }, async (project) => {
        const stack = await openCliStack({
          projectDir: project.dir,
          config: { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": { secret: emu.apiKey }, "bench:n": String(n) },
        });
        try {
          emu.clearRequests();
          const ms = await timedUp(stack);
          for (const integration of [INTEGRATION_ID, TEAM_ID]) {
            const members = emu.integrations.members(integration).length;
            if (members !== n) throw new Error(`${members} members of ${integration} after the up, not ${n}`);
          }
          const requests = emu.requests;
          return {
            what: `${n} IntegrationEntitlement + IntegrationMembers of ${n}`,
            resources: n + 1,
            ms,
            requests: requests.length,
            jobPolls: requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/")).length,
            invitePosts: requests.filter((r) => r.method === "POST" && r.path.endsWith("/users")).length,
          };
        } finally {
          await stack.remove();
        }
      }),
    );
  } finally {
    await emu.close();
  }
  console.error(`[cli] ${JSON.stringify(runs.at(-1))}`);

  runs.push(
    await withProject(
      "bench-cli-noop",
      {
        "index.js": NOOP_PROGRAM,
        "node_modules/bench-noop-provider/package.json": JSON.stringify({ name: "bench-noop-provider", main: "index.js" }),
        "node_modules/bench-noop-provider/index.js": NOOP_PROVIDER,
      },
      async (project) => {
        const stack = await openCliStack({ projectDir: project.dir, config: { "bench:n": String(n) } });
        try {
          const ms = await timedUp(stack);
          return { what: `${n + 1} no-op dynamic resources`, resources: n + 1, ms, requests: 0, jobPolls: 0, invitePosts: 0 };
        } finally {
          await stack.remove();
        }
      },
    ),
  );
  console.error(`[cli] ${JSON.stringify(runs.at(-1))}`);
  const binDir = "binDir" in cli ? cli.binDir : "";
  return {
    n,
    parallel: process.env.BENCH_CLI_PARALLEL ?? "CLI default (4 per CPU)",
    cliVersion: path.basename(path.dirname(binDir)),
    runs,
    ratio: runs[0]!.ms / runs[1]!.ms,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The figures as a table. */
export function cliTable(result: CliBenchResult): string {
  const rows = [
    ["pulumi up through the real CLI", "resources", "up", "per resource", "requests", "of which job polls", "invite POSTs"],
    ...result.runs.map((r) => [
      r.what,
      String(r.resources),
      s(r.ms),
      `${(r.ms / r.resources).toFixed(1)} ms`,
      String(r.requests),
      String(r.jobPolls),
      String(r.invitePosts),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(rows[0]!),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(line),
    "",
    `package / no-op: ${result.ratio.toFixed(2)}× (pulumi ${result.cliVersion}, --parallel ${result.parallel})`,
  ].join("\n");
}

// `node bench/cli.ts`: this bench alone.
if (process.argv[1]?.endsWith(`${path.sep}cli.ts`)) {
  void (async () => {
    const result = await benchCli();
    if (result) console.log(`\n${cliTable(result)}`);
  })().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
