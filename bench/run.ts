/**
 * `npm run bench`: the package through the real `pulumi` CLI against the same resources through a
 * no-op dynamic provider (its methods return at once), in one run: what the package's own work
 * and waiting cost on top of the engine, the language host and the dynamic-provider host. File
 * backend, passphrase secrets, the emulator (no rate limit, jobs done at their second poll), the
 * CLI's default `--parallel` unless `BENCH_PARALLEL`. Prints a table with the machine's load and
 * writes `bench/results.json`. Run with plain `node` (erasable TypeScript) after `npm run build`.
 *
 * Workloads (each package run beside its no-op twin, same names, same inputs):
 * - users: `BENCH_N` new `User`s: `pulumi up`, then `pulumi preview` and `pulumi refresh` of them;
 * - entitlements: `BENCH_N` `IntegrationEntitlement`s into existing users (batched invitations);
 * - members: one `IntegrationMembers` of `BENCH_N` members against one no-op resource plus its requests (the
 *   requests the package sent, sent again raw one after another to a fresh emulator of the same world: {@link replayMs}).
 * - host: 300 `User` creates through the dynamic-provider host, driven over gRPC without the engine, against the no-op
 *   provider plus the same POSTs sent raw, and against a provider that only sends them (bench/host-overhead.ts).
 * Each workload runs `BENCH_RUNS` times (default 3, a fresh emulator and stacks each, the twin that goes first
 * alternating): the table gives the median of each time and ratio, and every run's ratio beside it.
 * `BENCH_N` is a comma-separated list of sizes (default `200`); `BENCH_ONLY` a comma-separated list of
 * workloads (default all). `BENCH_EXPORT=1` adds the export's section (bench/export.ts: 10,000 users,
 * a few minutes). Jobs end at their second poll (the emulator's default, and the target).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Pool } from "undici";
import type { Emulator, RecordedRequest, SeedUser } from "../src/emulator/index";
import type { Deployment } from "../test/cli/deployment.ts";
import { cli, cliAvailable } from "../test/cli/support.ts";
import { packedProject } from "../test/support/packed.ts";
import { repoRoot } from "../test/support/paths.ts";
import type { Project } from "../test/support/project.ts";
import { benchExport, exportTable } from "./export.ts";
import { benchHostOverhead, hostTable } from "./host-overhead.ts";
import { INTEGRATION_ID, PROGRAM, startEmulator, workloadStack, writeWorkload } from "./workload.ts";

const sizes = (process.env.BENCH_N ?? "200")
  .split(",")
  .filter((x) => x.trim() !== "")
  .map(Number);
const only = process.env.BENCH_ONLY?.split(",").map((x) => x.trim());
const parallel = process.env.BENCH_PARALLEL ? Number(process.env.BENCH_PARALLEL) : undefined;
/** Runs of each workload (fresh emulator and stacks each): a ratio is their median, and every run's is printed. */
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? "3") || 1);
// No run learns from another's limits (emulators reuse ports).
process.env["WORKSPACE_ACCESS_CACHE_DIR"] = "off";

const TEAM_ID = "5b1c0d2e-0000-4000-8000-0000000000a1";
const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/**
 * The no-op twin of a package program: the same resources (the package's type token `type`, the same names and inputs)
 * through the no-op provider, whose ids have the package's forms: both checkpoints hold the same names, and what differs
 * is what the package records and does.
 */
const noopProgram = (type: string, count: string, name: string, inputs: string) => `const pulumi = require("@pulumi/pulumi");
const n = Number(new pulumi.Config("bench").require("n"));
const provider = 'exports.handler = () => require("bench-noop-provider").provider;\\n';
class Noop extends pulumi.CustomResource {
  constructor(name, args) {
    super("pulumi-nodejs:dynamic/workspace-access:${type}", name, { ...args, status: undefined, __provider: provider });
  }
}
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
for (let i = 0; i < ${count}; i++) new Noop(${name}, ${inputs});
`;

const ENTITLEMENTS = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
for (let i = 0; i < n; i++) new wa.IntegrationEntitlement("e" + i, { integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] });
`;

const MEMBERS = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
new wa.IntegrationMembers("team", { integrationId: ${JSON.stringify(TEAM_ID)}, members: Array.from({ length: n }, (_, i) => ({ userId: id(i), entitlements: ["VIEWER"] })) });
`;

interface Workload {
  name: string;
  program: string;
  noop: string;
  operations: Array<"up" | "preview" | "refresh">;
  resources: (n: number) => number;
  /** The floor is the no-op's time plus the package's requests sent raw ({@link replayMs}), not the no-op's alone. */
  plusRequests?: boolean;
}

const WORKLOADS: Workload[] = [
  {
    name: "users",
    program: PROGRAM,
    noop: noopProgram("User", "n", `"u" + i`, `{ email: "user" + i + "@bench.example", firstName: "First" + i, lastName: "Last" + i }`),
    operations: ["up", "preview", "refresh"],
    resources: (n) => n,
  },
  {
    name: "entitlements",
    program: ENTITLEMENTS,
    noop: noopProgram(
      "IntegrationEntitlement",
      "n",
      `"e" + i`,
      `{ integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] }`,
    ),
    operations: ["up"],
    resources: (n) => n,
  },
  {
    name: "members",
    program: MEMBERS,
    noop: noopProgram(
      "IntegrationMembers",
      "1",
      `"team"`,
      `{ integrationId: ${JSON.stringify(TEAM_ID)}, members: Array.from({ length: n }, (_, i) => ({ userId: id(i), entitlements: ["VIEWER"] })) }`,
    ),
    operations: ["up"],
    resources: () => 1,
    plusRequests: true,
  },
];

/** One measured operation of both twins: the median of the runs (`packageMs`, `noopMs`, `ratio` each its own median). */
interface Row {
  workload: string;
  n: number;
  resources: number;
  operation: string;
  packageMs: number;
  noopMs: number;
  /** The package's requests sent raw, one after another (0 unless the workload's floor includes them). */
  requestsMs: number;
  /** `packageMs / (noopMs + requestsMs)`. */
  ratio: number;
  requests: number;
  requestsPerResource: number;
  jobPolls: number;
  /** Each run's ratio, in the order run. */
  ratios: number[];
}

/** The emulator: `n` existing users (the entitlements' and members') and the two integrations. */
function emulatorFor(n: number): Promise<Emulator> {
  const users: SeedUser[] = Array.from({ length: n }, (_, i) => ({
    id: userId(i),
    email: `c${i}@bench.example`,
    firstName: "C",
    lastName: `${i}`,
  }));
  return startEmulator({
    job: { finishAfterPolls: 2 },
    seed: {
      users,
      integrations: [
        { id: INTEGRATION_ID, application: "bench", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] },
        { id: TEAM_ID, application: "team", entitlements: [{ id: "VIEWER" }] },
      ],
    },
  });
}

/**
 * The requests' own time: `requests` (as the emulator received them) sent again one after another with undici to a
 * fresh emulator of the same world, each answered before the next goes. A job id the package polled is replaced by
 * the one its write's replay answered with (`jobs`: the run's jobs in creation order, as the writes made them).
 */
async function replayMs(requests: RecordedRequest[], jobs: string[], n: number): Promise<number> {
  const emu = await emulatorFor(n);
  const pool = new Pool(new URL(emu.url).origin, { connections: 1 });
  const headers = { "x-api-key": emu.apiKey, "content-type": "application/json", accept: "application/json" };
  const replayed = new Map<string, string>();
  try {
    const started = performance.now();
    for (const r of requests) {
      let target = r.rawPath;
      for (const [from, to] of replayed) target = target.replace(from, to);
      const body = r.body === undefined ? null : JSON.stringify(r.body);
      const res = await pool.request({ method: r.method as "GET", path: target, headers, body });
      const answer = (await res.body.json()) as { data?: { type?: string; id?: string } };
      if (res.statusCode !== r.status) throw new Error(`replay: ${r.method} ${r.rawPath} answered ${res.statusCode}, not ${r.status}`);
      if (answer.data?.type === "job" && answer.data.id && replayed.size < jobs.length) replayed.set(jobs[replayed.size]!, answer.data.id);
    }
    return performance.now() - started;
  } finally {
    await pool.close();
    await emu.close();
  }
}

async function timed(stack: Deployment, operation: "up" | "preview" | "refresh"): Promise<number> {
  const started = performance.now();
  await stack[operation]();
  return performance.now() - started;
}

async function twin(name: string, program: string, emu: Emulator, n: number): Promise<{ project: Project; stack: Deployment }> {
  const project = await packedProject({ name });
  writeWorkload(project, program);
  return { project, stack: await workloadStack(project, emu, { stackName: "bench", n, ...(parallel ? { parallel } : {}) }) };
}

async function benchWorkload(workload: Workload, n: number, run: number): Promise<Row[]> {
  const emu = await emulatorFor(n);
  const pkg = await twin(`bench-${workload.name}`, workload.program, emu, n);
  const noop = await twin(`bench-${workload.name}-noop`, workload.noop, emu, n);
  const rows: Row[] = [];
  try {
    for (const operation of workload.operations) {
      emu.clearRequests();
      const jobsBefore = new Set(emu.jobs.list().map((j) => j.id));
      // Alternate which twin goes first from run to run, so that neither always meets the warmer machine
      // (the no-op twin sends no request: the emulator's log is the package's either way).
      const noopFirst = run % 2 === 1;
      const noopBefore = noopFirst ? await timed(noop.stack, operation) : 0;
      const packageMs = await timed(pkg.stack, operation);
      const requests = [...emu.requests];
      const noopMs = noopFirst ? noopBefore : await timed(noop.stack, operation);
      const resources = workload.resources(n);
      const jobs = emu.jobs.list().flatMap((j) => (jobsBefore.has(j.id) ? [] : [j.id]));
      const requestsMs = workload.plusRequests ? await replayMs(requests, jobs, n) : 0;
      rows.push({
        workload: workload.name,
        n,
        resources,
        operation,
        packageMs,
        noopMs,
        requestsMs,
        ratio: packageMs / (noopMs + requestsMs),
        requests: requests.length,
        requestsPerResource: requests.length / resources,
        jobPolls: requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/")).length,
        ratios: [packageMs / (noopMs + requestsMs)],
      });
      console.error(`[bench] ${JSON.stringify(rows.at(-1))}`);
    }
  } finally {
    for (const t of [pkg, noop]) {
      await t.stack.close();
      await t.project.remove();
    }
    await emu.close();
  }
  return rows;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One row per workload, size and operation: the runs' medians, every run's ratio kept. */
function medians(perRun: Row[][]): Row[] {
  return (perRun[0] ?? []).map((first, i) => {
    const same = perRun.map((rows) => rows[i]!);
    const requests = median(same.map((r) => r.requests));
    return {
      ...first,
      packageMs: median(same.map((r) => r.packageMs)),
      noopMs: median(same.map((r) => r.noopMs)),
      requestsMs: median(same.map((r) => r.requestsMs)),
      ratio: median(same.map((r) => r.ratio)),
      requests,
      requestsPerResource: requests / first.resources,
      jobPolls: median(same.map((r) => r.jobPolls)),
      ratios: same.map((r) => r.ratio),
    };
  });
}

const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function table(rows: Row[]): string {
  const head = ["workload", "N", "operation", "package", "no-op", "ratio (median)", "each run", "requests", "per resource", "job polls"];
  const body = rows.map((r) => [
    r.workload,
    String(r.n),
    `pulumi ${r.operation}`,
    sec(r.packageMs),
    r.requestsMs > 0 ? `${sec(r.noopMs)} + ${sec(r.requestsMs)} requests` : sec(r.noopMs),
    `${r.ratio.toFixed(2)}×`,
    r.ratios.map((x) => `${x.toFixed(2)}×`).join(" "),
    String(r.requests),
    r.requestsPerResource.toFixed(2),
    String(r.jobPolls),
  ]);
  const widths = head.map((_, i) => Math.max(...[head, ...body].map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

function machine() {
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? "",
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    pulumi: "binDir" in cli ? path.basename(path.dirname(cli.binDir)) : "",
    loadAverage: os.loadavg().map((x) => Number(x.toFixed(2))),
  };
}

async function main(): Promise<void> {
  if (!cliAvailable) {
    console.error(`bench: ${"missing" in cli ? cli.missing : ""}`);
    process.exitCode = 1;
    return;
  }
  const before = machine();
  const started = performance.now();
  const rows: Row[] = [];
  for (const n of sizes)
    for (const workload of WORKLOADS.filter((w) => !only || only.includes(w.name))) {
      const perRun: Row[][] = [];
      for (let run = 0; run < runs; run++) perRun.push(await benchWorkload(workload, n, run));
      rows.push(...medians(perRun));
    }
  const host = !only || only.includes("host") ? await benchHostOverhead() : null;
  const exported = process.env.BENCH_EXPORT === "1" ? await benchExport() : null;
  const after = machine();
  const results = {
    date: new Date().toISOString(),
    machine: { ...before, loadAverageAfter: after.loadAverage },
    parallel: parallel ?? "CLI default (4 per CPU)",
    runs,
    seconds: Math.round((performance.now() - started) / 1000),
    rows,
    ...(host ? { hostOverhead: host } : {}),
    ...(exported ? { export: exported } : {}),
  };
  fs.writeFileSync(path.join(repoRoot, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  if (rows.length > 0) console.log(table(rows));
  console.log(
    `\n${before.cpus} CPUs (${before.cpuModel}), ${before.memoryGb} GB, Node.js ${before.node}, pulumi ${before.pulumi}, ` +
      `--parallel ${results.parallel}, median of ${runs} run${runs === 1 ? "" : "s"}; load average ${before.loadAverage.join(" ")} before, ${after.loadAverage.join(" ")} after; ` +
      `${results.seconds} s in all`,
  );
  if (host) console.log(`\n${hostTable(host)}`);
  if (exported) console.log(`\n${exportTable(exported)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
