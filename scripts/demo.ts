/**
 * `npm run demo`: examples/basic against the bundled emulator through the real `pulumi` CLI (a
 * file backend in a temporary folder; `npm run pulumi-cli` builds the CLI, or a `pulumi` on PATH
 * is used), with this repository's built package; the program looks its integrations and grace up
 * by name. Up, a preview of a planned change, up, destroy; a summary of each step, then what the
 * emulator holds.
 *
 * Plain `node` runs it (types stripped); `npm run build` first, which `npm run demo` does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { DEFAULT_IDS, defaultSeed, type Emulator, type RecordedRequest, startEmulator } from "pulumi-workspace-access/emulator";
import { type Deployment, type OperationResult, openDeployment } from "../test/cli/deployment.ts";
import { cli } from "../test/cli/support.ts";
import { repoRoot } from "../test/support/paths.ts";
import { createProject, type Project, repoPulumiDir } from "../test/support/project.ts";

const example = (file: string): string => fs.readFileSync(path.join(repoRoot, "examples", "basic", file), "utf8");

/** The planned change: alice's last name, and a second Slack entitlement for bob. */
function changedProgram(source: string): string {
  const changed = source
    .replace(`lastName: "Doe"`, `lastName: "Smith"`)
    .replace(`entitlements: ["MEMBER"]`, `entitlements: ["MEMBER", "ADMIN"]`);
  if (changed === source) throw new Error("examples/basic/index.ts no longer has the lines the demo changes");
  return changed;
}

let secret = "";
/** Prints a line; the API key must never be in one. */
function say(line = ""): void {
  if (secret && line.includes(secret)) throw new Error("refusing to print a line containing the API key");
  process.stdout.write(`${line}\n`);
}

/** Readable names for the ids of paths: integrations by application, users by the part of their email before @. */
function namer(emulator: Emulator): (text: string) => string {
  const names = new Map<string, string>([
    [DEFAULT_IDS.integrations.youtube, "{youtube}"],
    [DEFAULT_IDS.integrations.slack, "{slack}"],
  ]);
  let jobs = 0;
  return (text) =>
    text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      const known = names.get(id);
      if (known) return known;
      const user = emulator.users.get(id);
      if (user) {
        names.set(id, `{${user.email.split("@")[0]}}`);
        return names.get(id) ?? id;
      }
      const job = emulator.jobs.get(id);
      if (job) {
        jobs += 1;
        names.set(id, `{job ${jobs}}`);
        return names.get(id) ?? id;
      }
      return `{${id.slice(0, 8)}}`;
    });
}

const show = (value: unknown): string => JSON.stringify(value);

/** What an update changes: the engine's comparison of old and new inputs (the host sends no property-level diff). */
function changes(result: OperationResult, urn: string): string {
  const step = result.steps.find((s) => s.urn === urn);
  const news = step?.newInputs ?? {};
  const olds = step?.oldInputs ?? {};
  return Object.keys(news)
    .filter((key) => key !== "__provider" && show(news[key]) !== show(olds[key]))
    .map((key) => `${key}: ${show(olds[key])} -> ${show(news[key])}`)
    .join(", ");
}

/** What a create sets, briefly. */
function created(result: OperationResult, urn: string): string {
  const inputs = result.steps.find((s) => s.urn === urn)?.newInputs ?? {};
  const keys = ["email", "role", "entitlements"].filter((key) => inputs[key] !== undefined);
  return keys.map((key) => `${key} ${show(inputs[key])}`).join(", ");
}

/**
 * A listing of one record: the provider's, not a lookup's. Its first read of a membership (before an invitation) answered 404,
 * which it trusts once the integration's member list shows the key is shown integrations and users (docs/contract.md,
 * `#unlessHidden`).
 */
const isProbe = (r: RecordedRequest) => r.method === "GET" && r.query["page[size]"] === "1";

function summarize(
  title: string,
  result: OperationResult,
  requests: RecordedRequest[],
  jobsCreated: number,
  name: (text: string) => string,
  ms: number,
): void {
  const counts = new Map<string, number>();
  for (const step of result.steps) if (step.type !== "pulumi:pulumi:Stack") counts.set(step.op, (counts.get(step.op) ?? 0) + 1);
  const applied = result.operation === "preview" ? ", nothing applied" : "";
  say(`== ${title} (${(ms / 1000).toFixed(1)} s${applied})`);
  say(`   resources: ${[...counts].map(([op, n]) => `${n} ${op}`).join(", ") || "none"}`);
  for (const step of result.steps) {
    if (step.type === "pulumi:pulumi:Stack") continue;
    const kind = step.type.split(":").at(-1);
    const detail =
      step.op === "update"
        ? changes(result, step.urn)
        : step.op === "create" && result.operation !== "preview"
          ? created(result, step.urn)
          : "";
    say(`   ${step.op.padEnd(7)} ${kind} ${step.name}${detail ? `  (${name(detail)})` : ""}`);
  }
  const lines = new Map<string, number>();
  for (const r of requests) {
    const line = name(`${r.method} ${r.path}${isProbe(r) ? "?page[size]=1" : ""} ${r.status}`);
    lines.set(line, (lines.get(line) ?? 0) + 1);
  }
  say(`   requests to the service: ${requests.length}${requests.length ? "" : " (nothing read or written)"}`);
  for (const [line, n] of lines) say(`     ${n > 1 ? `${n}x ` : ""}${line}`);
  // Every write the service answers with a job is awaited until the job is done; the program's
  // getJob (alice's last job) reads one too, in every run of the program.
  const polls = requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/")).length;
  const program = result.operation === "up" || result.operation === "preview" ? ", the program's getJob included" : "";
  say(`   jobs awaited: ${jobsCreated} (GET /jobs/{id}: ${polls}${program})`);
  // The program's lookups (YouTube and Slack by application, grace by email) list the
  // integrations (twice: an application must name one integration, so the list is proven) and the
  // users, per run of the program: in up and preview.
  const lookups = requests.filter((r) => r.method === "GET" && (r.path === "/integrations" || r.path === "/users") && !isProbe(r)).length;
  if (program) say(`   the program's lookups: ${lookups} reads (GET /integrations, GET /users) for YouTube, Slack and grace`);
  const outputs = Object.entries(result.outputs).map(([key, value]) => `${key}=${show(value)}`);
  if (outputs.length > 0 && result.operation !== "destroy") say(`   outputs: ${name(outputs.join(" "))}`);
}

async function step(
  title: string,
  emulator: Emulator,
  name: (text: string) => string,
  operation: () => Promise<OperationResult>,
): Promise<OperationResult> {
  const before = emulator.requests.length;
  const jobsBefore = emulator.jobs.list().length;
  const began = performance.now();
  const result = await operation();
  summarize(title, result, emulator.requests.slice(before), emulator.jobs.list().length - jobsBefore, name, performance.now() - began);
  if (result.operation === "up") say(`   the service now: ${managed(emulator, name)}`);
  say();
  return result;
}

/** The users examples/basic manages, as the emulator holds them, with their memberships. */
function managed(emulator: Emulator, name: (text: string) => string): string {
  const seeded: string[] = Object.values(DEFAULT_IDS.users);
  return emulator.users
    .list()
    .filter((user) => !seeded.includes(user.id))
    .map((user) => {
      const access = emulator.integrations.list().flatMap((i) =>
        emulator.integrations
          .members(i.id)
          .filter((m) => m.userId === user.id)
          .map((m) => `${i.application} ${show(m.entitlements)}`),
      );
      return `${name(user.id)} ${user.firstName} ${user.lastName}${access.length ? ` (${access.join(", ")})` : ""}`;
    })
    .join("; ");
}

function serviceState(emulator: Emulator, name: (text: string) => string): void {
  say("== The emulator now");
  for (const user of emulator.users.list()) say(`   user ${user.email} (${user.firstName} ${user.lastName}, ${user.role})`);
  for (const integration of emulator.integrations.list()) {
    const members = emulator.integrations.members(integration.id).map((m) => `${name(m.userId)} ${show(m.entitlements)}`);
    say(`   ${integration.application}: ${members.join(", ") || "no members"}`);
  }
  const jobs = emulator.jobs.list();
  say(`   jobs: ${jobs.length} (${jobs.filter((j) => j.status === "finished").length} finished)`);
}

async function main(): Promise<void> {
  const started = performance.now();
  let emulator: Emulator | undefined;
  let project: Project | undefined;
  let stack: Deployment | undefined;
  try {
    if ("missing" in cli) throw new Error(cli.missing);
    // WA_DEMO_API_KEY lets a test give the emulator a key it knows, to grep the output for it.
    const apiKey = process.env.WA_DEMO_API_KEY;
    emulator = await startEmulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, ...(apiKey ? { apiKey } : {}) });
    secret = emulator.apiKey;
    const name = namer(emulator);
    say(`Emulator at ${emulator.url} (the default world: 4 users, YouTube and Slack integrations)`);
    project = await createProject({
      name: "workspace-access-basic",
      link: { "@pulumi/pulumi": repoPulumiDir, "pulumi-workspace-access": repoRoot },
      files: { "index.ts": example("index.ts"), "Pulumi.yaml": example("Pulumi.yaml") },
    });
    stack = await openDeployment({
      projectDir: project.dir,
      // A passphrase, as a user's file backend has (the test tiers set up a faster key service).
      secrets: "passphrase",
      config: {
        "workspace-access:baseUrl": emulator.url,
        "workspace-access:apiKey": { value: emulator.apiKey, secret: true },
      },
      env: {
        WORKSPACE_ACCESS_API_KEY: undefined,
        WORKSPACE_ACCESS_BASE_URL: undefined,
        WORKSPACE_ACCESS_WORKSPACE: undefined,
        WORKSPACE_ACCESS_HOST: undefined,
      },
    });
    say(`Project examples/basic in ${project.dir}, stack dev; apiKey set as a secret`);
    say();

    const current = stack;
    await step("1. up", emulator, name, () => current.up());
    current.setProgram("index.ts", changedProgram(example("index.ts")));
    say('   (program changed: alice lastName "Doe" -> "Smith", bob-slack entitlements ["MEMBER"] -> ["MEMBER","ADMIN"])');
    say();
    await step("2. preview of the change", emulator, name, () => current.preview());
    await step("3. up", emulator, name, () => current.up());
    await step("4. destroy", emulator, name, () => current.destroy());
    serviceState(emulator, name);
    say();
    say(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  } finally {
    await stack?.close();
    await project?.remove();
    await emulator?.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`demo failed: ${secret ? message.split(secret).join("<redacted>") : message}\n`);
    process.exit(1);
  },
);
