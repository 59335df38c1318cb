/**
 * Where the time of one `pulumi up` of `TRACE_N` (200) `IntegrationEntitlement`s goes, through the
 * real `pulumi` CLI (`--otel-traces`, the engine's own spans: each provider call, the plugin's
 * start, the checkpoint writes) and the emulator's request log (arrival times): per create, the
 * wait before its invitation went out (the batch window and the membership read), the HTTP of the
 * invitation and its job's polls, and what is left to the engine (its spans outside any Create,
 * the checkpoints). The no-op twin of the same resources runs in the same process for the floor.
 * Run with `node bench/trace.ts` after `npm run build`; prints a summary, writes `bench/trace.json`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator, SeedUser } from "../src/emulator/index";
import { cliAvailable } from "../test/cli/support.ts";
import { packedProject } from "../test/support/packed.ts";
import { repoRoot } from "../test/support/paths.ts";
import { INTEGRATION_ID, startEmulator, workloadStack, writeWorkload } from "./workload.ts";

const n = Number(process.env.TRACE_N ?? 200);
process.env["WORKSPACE_ACCESS_CACHE_DIR"] = "off";

const PROGRAM = `const pulumi = require("@pulumi/pulumi");
const wa = require("pulumi-workspace-access");
const n = Number(new pulumi.Config("bench").require("n"));
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
for (let i = 0; i < n; i++) new wa.IntegrationEntitlement("e" + i, { integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] });
`;
const NOOP = `const pulumi = require("@pulumi/pulumi");
const n = Number(new pulumi.Config("bench").require("n"));
const provider = 'exports.handler = () => require("bench-noop-provider").provider;\\n';
class Noop extends pulumi.CustomResource {
  constructor(name, args) { super("pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement", name, { ...args, status: undefined, __provider: provider }); }
}
const id = (i) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
for (let i = 0; i < n; i++) new Noop("e" + i, { integrationId: ${JSON.stringify(INTEGRATION_ID)}, userId: id(i), entitlements: ["VIEWER"] });
`;

interface Span {
  name: string;
  start: number;
  end: number;
}

/** The spans of an OTLP JSON-lines file, in ms since the epoch. */
function readSpans(file: string): Span[] {
  const spans: Span[] = [];
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const doc = JSON.parse(line) as {
      resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string; startTimeUnixNano: string; endTimeUnixNano: string }> }> }>;
    };
    for (const rs of doc.resourceSpans)
      for (const ss of rs.scopeSpans)
        for (const sp of ss.spans)
          spans.push({ name: sp.name, start: Number(sp.startTimeUnixNano) / 1e6, end: Number(sp.endTimeUnixNano) / 1e6 });
  }
  return spans;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/** How long at least one of the intervals was open. */
function covered(spans: Span[]): number {
  let total = 0;
  let end = -Infinity;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.start > end) {
      total += s.end - s.start;
      end = s.end;
    } else if (s.end > end) {
      total += s.end - end;
      end = s.end;
    }
  }
  return total;
}

async function tracedUp(name: string, program: string, emu: Emulator) {
  const project = await packedProject({ name });
  writeWorkload(project, program);
  const stack = await workloadStack(project, emu, { stackName: "trace", n });
  const file = path.join(os.tmpdir(), `pwa-trace-${name}-${process.pid}.json`);
  try {
    emu.clearRequests();
    const began = performance.now();
    await stack.up("--otel-traces", `file://${file}`);
    const ms = performance.now() - began;
    return { ms, spans: readSpans(file), requests: [...emu.requests] };
  } finally {
    fs.rmSync(file, { force: true });
    await stack.close();
    await project.remove();
  }
}

function summary(run: Awaited<ReturnType<typeof tracedUp>>) {
  const creates = run.spans.filter((s) => s.name === "pulumirpc.ResourceProvider/Create");
  const checkpoints = run.spans.filter((s) => s.name.startsWith("gocloud.dev/blob."));
  const plugin = run.spans.filter((s) => s.name === "newPlugin");
  const posts = run.requests.filter((r) => r.method === "POST" && r.path.endsWith("/users"));
  const polls = run.requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/"));
  // Each create waits from its start to the first invitation sent after it (the batch window and
  // the membership read), then for that invitation's job (its HTTP and polls), then returns.
  const waits = creates.map((c) => (posts.find((p) => p.at >= c.start)?.at ?? c.end) - c.start);
  if (process.env.TRACE_RAW) {
    // Every create's start and end and every request's arrival, relative to the first create: to read batches by hand.
    const t0 = Math.min(...creates.map((c) => c.start));
    const rel = (t: number) => Math.round(t - t0);
    const raw = {
      creates: creates.map((c) => [rel(c.start), rel(c.end)]),
      requests: run.requests.map((r) => [rel(r.at), r.method, r.path]),
    };
    fs.writeFileSync(`${process.env.TRACE_RAW}-${creates.length}-${posts.length}.json`, JSON.stringify(raw));
  }
  return {
    upMs: Math.round(run.ms),
    creates: creates.length,
    createMedianMs: Math.round(median(creates.map((c) => c.end - c.start))),
    createSumMs: Math.round(sum(creates.map((c) => c.end - c.start))),
    createsInFlightMs: Math.round(covered(creates)),
    waitBeforeInviteMedianMs: Math.round(median(waits)),
    pluginStartMs: Math.round(sum(plugin.map((p) => p.end - p.start))),
    checkpointWrites: checkpoints.length,
    checkpointMs: Math.round(covered(checkpoints)),
    requests: run.requests.length,
    invitePosts: posts.length,
    batchSizes: posts.map((p) => (p.body as { data: { attributes: { userIds: unknown[] } } }).data.attributes.userIds.length).join(" "),
    jobPolls: polls.length,
    requestsPerResource: Number((run.requests.length / Math.max(1, creates.length)).toFixed(2)),
  };
}

async function main(): Promise<void> {
  if (!cliAvailable) throw new Error("no pulumi CLI (npm run pulumi-cli)");
  const users: SeedUser[] = Array.from({ length: n }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    email: `t${i}@bench.example`,
    firstName: "T",
    lastName: `${i}`,
  }));
  const emu = await startEmulator({
    job: { finishAfterPolls: 2 },
    seed: { users, integrations: [{ id: INTEGRATION_ID, application: "bench", entitlements: [{ id: "VIEWER" }] }] },
  });
  try {
    const load = os.loadavg().map((x) => x.toFixed(2));
    const pkg = summary(await tracedUp("trace-entitlements", PROGRAM, emu));
    const noop = summary(await tracedUp("trace-noop", NOOP, emu));
    const result = {
      n,
      jobsDoneAtPoll: 2,
      loadAverage: { before: load, after: os.loadavg().map((x) => x.toFixed(2)) },
      package: pkg,
      noop,
    };
    fs.writeFileSync(path.join(repoRoot, "bench", "trace.json"), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
    console.log(`package / no-op: ${(pkg.upMs / noop.upMs).toFixed(2)}×`);
  } finally {
    await emu.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
