/**
 * Batched invitations and IntegrationMembers (issue 17), against the emulator's 50 requests/s
 * limit, through the real dynamic-provider host:
 *
 * - N new memberships in one integration (10 distinct entitlement sets, in blocks of N/10 as a
 *   program looping over teams declares them), `BENCH_PARALLEL` (16) in flight;
 * - the same N through one `IntegrationMembers`;
 * - one user of a 100-user batch whose invitation fails: exactly that resource fails, the other 99
 *   are members, each invited by exactly one job.
 *
 * Targets: requests (not counting job polls) at most 0.1 × N, and apply time at most 0.25× the
 * one-request-per-membership floor N / 50 s. Run alone with `node bench/batching.ts` after
 * `npm run build`, or as part of `npm run bench`. Environment: `BENCH_BATCH_N` (default 1000),
 * `BENCH_PARALLEL` (16). When the package has a `maxRequestsPerSecond` setting, `BENCH_MAX_RPS`
 * passes it (unset: the setting is not sent, so this bench runs without it).
 */
import * as path from "node:path";
import type { Emulator, SeedUser } from "../src/emulator/index";
import type { OperationResult, Stack } from "../test/engine/index.ts";
import { openStack } from "../test/engine/index.ts";
import { packedProject } from "../test/engine/packed.ts";
import type { Project } from "../test/engine/project.ts";
import { INTEGRATION_ID, startEmulator } from "./workload.ts";

const RATE = 50;
const SETS = 10;

const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;

/** An emulator limited to 50 requests/s, with `n` users and the integration (offering the 10 sets). */
function emulatorFor(n: number): Promise<Emulator> {
  const users: SeedUser[] = Array.from({ length: n }, (_, i) => ({
    id: userId(i),
    email: `m${i}@bench.example`,
    firstName: "M",
    lastName: `${i}`,
  }));
  return startEmulator({
    job: { finishAfterPolls: 1 },
    rateLimit: { requests: RATE, windowMs: 1000 },
    seed: {
      users,
      integrations: [
        {
          id: INTEGRATION_ID,
          application: "bench",
          entitlements: [{ id: "VIEWER" }, ...Array.from({ length: SETS }, (_, k) => ({ id: `TEAM${k}` }))],
        },
      ],
    },
  });
}

const ENTITLEMENTS_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
for (let i = 0; i < n; i++) {
  new wa.IntegrationEntitlement("m" + i, {
    integrationId: ${JSON.stringify(INTEGRATION_ID)},
    userId: "00000000-0000-4000-8000-" + String(i).padStart(12, "0"),
    entitlements: ["VIEWER", "TEAM" + Math.floor((i * ${SETS}) / n)],
  });
}
`;

const MEMBERS_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const members = [];
for (let i = 0; i < n; i++) {
  members.push({ userId: "00000000-0000-4000-8000-" + String(i).padStart(12, "0"), entitlements: ["VIEWER", "TEAM" + Math.floor((i * ${SETS}) / n)] });
}
new wa.IntegrationMembers("team", { integrationId: ${JSON.stringify(INTEGRATION_ID)}, members });
`;

/** One measured apply. */
export interface BatchRun {
  what: string;
  n: number;
  ms: number;
  /** First request to last, as the emulator saw them. */
  spanMs: number;
  floorMs: number;
  requests: number;
  jobPolls: number;
  invitePosts: number;
  rateLimited: number;
  /** (requests - job polls) / N: target ≤ 0.1. */
  requestsPerMembership: number;
  /** apply / floor: target ≤ 0.25. */
  ratio: number;
}

export interface FailureRun {
  failedResources: string[];
  membersOnce: number;
  invitedTwice: number;
  invitePosts: number;
}

function config(emu: Emulator, n: number): Record<string, string | { value: string; secret: true }> {
  const extra: Record<string, string> = {};
  if (process.env.BENCH_MAX_RPS) extra["workspace-access:maxRequestsPerSecond"] = process.env.BENCH_MAX_RPS;
  return {
    "workspace-access:baseUrl": emu.url,
    "workspace-access:apiKey": { value: emu.apiKey, secret: true },
    "bench:n": String(n),
    ...extra,
  };
}

async function stackFor(project: Project, emu: Emulator, program: string, n: number, name: string): Promise<Stack> {
  return openStack({
    projectDir: project.dir,
    program,
    stackName: name,
    parallel: Number(process.env.BENCH_PARALLEL ?? 16),
    timeoutMs: 600_000,
    config: config(emu, n),
  });
}

function measured(what: string, n: number, emu: Emulator, result: OperationResult, limitedBefore: number): BatchRun {
  const requests = emu.requests;
  const first = requests[0]?.at ?? 0;
  const last = requests.at(-1)?.at ?? first;
  const jobPolls = requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/")).length;
  const invitePosts = requests.filter((r) => r.method === "POST" && r.path === `/integrations/${INTEGRATION_ID}/users`).length;
  const floorMs = (n / RATE) * 1000;
  return {
    what,
    n,
    ms: result.timings.totalMs,
    spanMs: last - first,
    floorMs,
    requests: requests.length,
    jobPolls,
    invitePosts,
    rateLimited: emu.stats.rateLimited - limitedBefore,
    requestsPerMembership: (requests.length - jobPolls) / n,
    ratio: result.timings.totalMs / floorMs,
  };
}

async function apply(project: Project, what: string, program: string, n: number): Promise<BatchRun> {
  const emu = await emulatorFor(n);
  const stack = await stackFor(project, emu, program, n, `batch-${program.replace(/\W/g, "")}-${n}`);
  try {
    emu.clearRequests();
    const limited = emu.stats.rateLimited;
    const result = await stack.up();
    const members = emu.integrations.members(INTEGRATION_ID).length;
    if (members !== n) throw new Error(`${what}: ${members} members after the apply, not ${n}`);
    return measured(what, n, emu, result, limited);
  } finally {
    await stack.close();
    await emu.close();
  }
}

/** One bad user among 100 creates of one set: who fails, and how many jobs applied each user. */
async function failureCase(project: Project): Promise<FailureRun> {
  const n = 100;
  const emu = await emulatorFor(n);
  emu.setRateLimit(null);
  // One set for all 100: a single batch.
  project.write("batch-one-set.js", ENTITLEMENTS_PROGRAM.replace(/entitlements: \[[^\]]*\]/, 'entitlements: ["VIEWER"]'));
  const stack = await openStack({
    projectDir: project.dir,
    program: "batch-one-set.js",
    stackName: "batch-failure",
    parallel: n,
    timeoutMs: 300_000,
    config: config(emu, n),
  });
  try {
    emu.jobs.failInvitesOf([userId(42)]);
    let failed: string[] = [];
    try {
      await stack.up();
    } catch (error) {
      const result = (error as { result?: OperationResult }).result;
      failed = (result?.steps ?? []).filter((st) => st.error !== undefined).map((st) => st.name);
    }
    const applied = new Map<string, number>();
    for (const job of emu.jobs.list()) {
      if (job.workflowType !== "provide_access" || job.status !== "finished") continue;
      for (const id of job.payload["userIds"] as string[]) applied.set(id, (applied.get(id) ?? 0) + 1);
    }
    const members = emu.integrations.members(INTEGRATION_ID).map((m) => m.userId);
    return {
      failedResources: failed,
      membersOnce: members.filter((id) => applied.get(id) === 1).length,
      invitedTwice: [...applied.values()].filter((c) => c > 1).length,
      invitePosts: emu.requests.filter((r) => r.method === "POST").length,
    };
  } finally {
    await stack.close();
    await emu.close();
  }
}

export interface BatchingResult {
  runs: BatchRun[];
  failure: FailureRun;
}

/** Writes the programs into `project` and runs the three measurements. */
export async function benchBatching(project: Project): Promise<BatchingResult> {
  const n = Number(process.env.BENCH_BATCH_N ?? 1000);
  project.write("batch-entitlements.js", ENTITLEMENTS_PROGRAM);
  project.write("batch-members.js", MEMBERS_PROGRAM);
  const runs: BatchRun[] = [];
  runs.push(await apply(project, `${n} IntegrationEntitlement (10 sets)`, "batch-entitlements.js", n));
  console.error(`[batching] ${JSON.stringify(runs.at(-1))}`);
  runs.push(await apply(project, `IntegrationMembers of ${n} (10 sets)`, "batch-members.js", n));
  console.error(`[batching] ${JSON.stringify(runs.at(-1))}`);
  const failure = await failureCase(project);
  console.error(`[batching] failure case ${JSON.stringify(failure)}`);
  return { runs, failure };
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** The figures as a table, targets beside them. */
export function batchingTable(result: BatchingResult): string {
  const rows = [
    [
      "batched invitations at 50 requests/s",
      "apply",
      "1st to last request",
      "floor N/50 s",
      "apply / floor",
      "requests",
      "of which job polls",
      "invite POSTs",
      "(requests − polls) / N",
      "429s",
    ],
    ...result.runs.map((r) => [
      r.what,
      s(r.ms),
      s(r.spanMs),
      s(r.floorMs),
      `${r.ratio.toFixed(2)}×`,
      String(r.requests),
      String(r.jobPolls),
      String(r.invitePosts),
      r.requestsPerMembership.toFixed(3),
      String(r.rateLimited),
    ]),
    ["target", "", "", "", "≤ 0.25×", "", "", "", "≤ 0.1", ""],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const f = result.failure;
  return [
    line(rows[0]!),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.slice(1).map(line),
    "",
    `1 bad user in a 100-user batch: failed resources ${JSON.stringify(f.failedResources)} (target ["m42"]); members invited exactly once ${f.membersOnce}/99; users invited twice ${f.invitedTwice}; invitation POSTs ${f.invitePosts}`,
  ].join("\n");
}

// `node bench/batching.ts`: this bench alone.
if (process.argv[1]?.endsWith(`${path.sep}batching.ts`)) {
  void (async () => {
    const project = await packedProject({ name: "bench-batching" });
    try {
      console.log(`\n${batchingTable(await benchBatching(project))}`);
    } finally {
      await project.remove();
    }
  })().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
