/**
 * `npm run bench`: what a deployment of N users (plus one entitlement each) costs through the
 * real dynamic-provider host, against floors taken in the same run. Prints a table and writes
 * `bench/results.json`. Run with plain `node` (erasable TypeScript) after `npm run build`.
 *
 * Environment: `BENCH_N` (comma-separated sizes, default `100,1000`), `BENCH_RATE_N` (size of
 * the rate-limited applies, default `BENCH_N`'s values; empty for none), `BENCH_PARALLEL` (default 16),
 * `BENCH_BATCHING` (`0` skips bench/batching.ts), `BENCH_CLI` (`0` skips bench/cli.ts, which runs
 * only where the real `pulumi` CLI is: one line says so otherwise).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { request } from "undici";
import type { Emulator } from "../src/emulator/index";
import type { OperationResult, Stack } from "../test/engine/index.ts";
import { packedProject } from "../test/engine/packed.ts";
import { repoRoot } from "../test/engine/paths.ts";
import type { Project } from "../test/engine/project.ts";
import { rateMemorySection, rateMemoryTable } from "./rate-memory.ts";
import { benchExport, exportTable } from "./export.ts";
import { type BatchingResult, batchingTable, benchBatching } from "./batching.ts";
import { benchCli, type CliBenchResult, cliTable } from "./cli.ts";
import { benchEmulator, calls, LOOKUPS, seedLookupUsers, userBody, workloadStack, writeWorkload } from "./workload.ts";

const benchDir = path.join(repoRoot, "bench");
const list = (text: string) =>
  text
    .split(",")
    .filter((x) => x.trim() !== "")
    .map(Number);
const sizes = list(process.env.BENCH_N ?? "100,1000");
const rateSizes = list(process.env.BENCH_RATE_N ?? sizes.join(","));
const parallel = Number(process.env.BENCH_PARALLEL ?? 16);
const RATE = 50;
// No section learns from another's limits (emulators reuse ports); bench/rate-memory.ts uses a folder of its own.
process.env["WORKSPACE_ACCESS_CACHE_DIR"] = "off";

const rssDir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-bench-rss-"));
const probeEnv = {
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --require ${path.join(benchDir, "rss-probe.cjs")}`.trim(),
  BENCH_RSS_DIR: rssDir,
};

/** Peak RSS (bytes) and CPU time (ms) of the hosts that ran since the last call. */
function hostUsage(): { rssBytes: number; cpuMs: number } {
  let rssBytes = 0;
  let cpuMs = 0;
  for (const file of fs.readdirSync(rssDir)) {
    if (file.endsWith(".partial")) continue; // being written; its last figures are in the file beside it
    const [rss, cpu] = fs.readFileSync(path.join(rssDir, file), "utf8").split(" ").map(Number);
    rssBytes = Math.max(rssBytes, rss || 0);
    cpuMs += (cpu || 0) / 1000;
    fs.rmSync(path.join(rssDir, file));
  }
  return { rssBytes, cpuMs };
}

interface Counted {
  ms: number;
  requests: number;
  byRoute: Record<string, number>;
  rateLimited: number;
  rssBytes: number;
  hostCpuMs: number;
}

/** Runs an operation and counts what the emulator saw meanwhile. */
async function measure(emu: Emulator, op: () => Promise<OperationResult>): Promise<Counted & { result: OperationResult }> {
  emu.clearRequests();
  hostUsage();
  const limitedBefore = emu.stats.rateLimited;
  const result = await op();
  const byRoute: Record<string, number> = {};
  for (const r of emu.requests) {
    const route = `${r.method} ${r.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "{id}")}`;
    byRoute[route] = (byRoute[route] ?? 0) + 1;
  }
  return {
    result,
    ms: result.timings.totalMs,
    requests: emu.requests.length,
    byRoute,
    rateLimited: emu.stats.rateLimited - limitedBefore,
    ...(({ rssBytes, cpuMs }) => ({ rssBytes, hostCpuMs: cpuMs }))(hostUsage()),
  };
}

/** The same N `POST /users` as raw undici requests, `concurrency` at a time, to a fresh emulator. */
async function rawCreates(n: number, concurrency: number): Promise<number> {
  const emu = await benchEmulator();
  try {
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        const payload = JSON.stringify({ data: { type: "user", attributes: userBody(i) } });
        const res = await request(`${emu.url}users`, {
          method: "POST",
          headers: { "x-api-key": emu.apiKey, "content-type": "application/json", accept: "application/json" },
          body: payload,
        });
        await res.body.text();
        if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`raw POST /users answered ${res.statusCode}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return performance.now() - started;
  } finally {
    await emu.close();
  }
}

const ms = (x: number) => `${(x / 1000).toFixed(2)} s`;
const ratio = (x: number) => `${x.toFixed(2)}×`;

interface SizeResult {
  n: number;
  apply: { ms: number; hostFloorMs: number; requestsFloorMs: number; ratio: number; requests: number; rssBytes: number };
  perOp: {
    userCreate: number;
    userRead: number;
    userUpdate: number;
    userDelete: number;
    entitlementCreate: number;
    entitlementCreateMemberReads: number;
    entitlementUpdate: number;
    entitlementDelete: number;
    entitlementJobPollsPerWrite: number;
  };
  /**
   * `hostCpuMsPerResource`: the host's CPU time in the preview less the fixed part (a preview of
   * one user and one entitlement), over the resources beyond those two; `hostCpuMsFixed`: that
   * fixed part.
   */
  preview: {
    ms: number;
    requests: number;
    resources: number;
    hostCpuMsPerResource: number;
    hostCpuMsFixed: number;
    /** `null` where not measured (below N = 1,000). */
    noopHostCpuMsPerResource: number | null;
    checkDiffCalls: number;
  };
  refresh: { ms: number; requests: number; resources: number; userListRequests: number; memberListRequests: number; target: number };
  providerBytes: number;
  hostPeakRssBytes: number;
  byRoute: Record<string, Record<string, number>>;
  lookups: LookupResult;
}

/** {@link LOOKUPS} `getUser` calls by email in one program, in a workspace of `users` users. */
interface LookupResult {
  users: number;
  lookups: number;
  requests: number;
  /** One paged listing serves them all: ceil(users / 100) pages, plus one. */
  target: number;
  ms: number;
}

/**
 * The requests of {@link LOOKUPS} `getUser` calls in one program (a preview: lookups run in one
 * too), with `users` users in the workspace, and no resource.
 */
async function benchLookups(project: Project, users: number): Promise<LookupResult> {
  const emu = await benchEmulator();
  seedLookupUsers(emu, users);
  const stack = await workloadStack(project, emu, { stackName: `lookups-${users}`, program: "lookups.js", n: users, parallel });
  try {
    const run = await measure(emu, () => stack.preview());
    const found = Number(run.result.outputs["found"]);
    if (found !== Math.min(LOOKUPS, users)) throw new Error(`the lookup program found ${found} users, not ${Math.min(LOOKUPS, users)}`);
    return { users, lookups: LOOKUPS, requests: run.requests, target: Math.ceil(users / 100) + 1, ms: run.ms };
  } finally {
    await stack.close();
    await emu.close();
  }
}

/**
 * The least host CPU of `reps` previews of a workload stack, once it is up: `n` users (plus one
 * entitlement each with `entitlements`), through `program`.
 */
async function leastPreviewCpuMs(
  project: Project,
  options: { stackName: string; n: number; reps: number; program?: string; entitlements?: boolean },
): Promise<number> {
  const emu = await benchEmulator();
  const { stackName, n, program } = options;
  const stack = await workloadStack(project, emu, { stackName, n, parallel, env: probeEnv, ...(program ? { program } : {}) });
  try {
    if (options.entitlements) stack.setConfig("bench:entitlements", "true");
    await stack.up();
    let least = Number.POSITIVE_INFINITY;
    for (let rep = 0; rep < options.reps; rep++) least = Math.min(least, (await measure(emu, () => stack.preview())).hostCpuMs);
    return least;
  } finally {
    await stack.close();
    await emu.close();
  }
}

/**
 * The host's fixed CPU time in a preview: its start, loading both providers, `Configure`, and the
 * Check and Diff of one user and one entitlement. A stack of one of each, not an empty one: the
 * host starts only when a program registers its first resource, so an empty preview has no host
 * to measure, and its start (most of the 0.9 s of CPU this measures on the machine of
 * docs/performance.md) would be counted per resource.
 */
const previewBaselineCpuMs = (project: Project) => leastPreviewCpuMs(project, { stackName: "baseline", n: 1, reps: 5, entitlements: true });

/** The two resources of the preview baseline (one user, one entitlement). */
const BASELINE_RESOURCES = 2;

/**
 * The host's own CPU per resource in a preview: the same marginal figure as the package's, for the
 * no-op provider (a preview of `n` of its resources less one of 1, over the `n - 1` beyond).
 */
async function noopPreviewCpuMsPerResource(project: Project, n: number, reps: number): Promise<number> {
  const cpu = (size: number) => leastPreviewCpuMs(project, { stackName: `noop-preview-${size}`, n: size, reps, program: "noop.js" });
  return Math.max(0, (await cpu(n)) - (await cpu(1))) / (n - 1);
}

async function benchSize(project: Project, n: number, baselineCpuMs: number): Promise<SizeResult> {
  const log = (s: string) => console.error(`[N=${n}] ${s}`);
  const lookups = await benchLookups(project, n);
  log(`${LOOKUPS} getUser: ${lookups.requests} requests (${ms(lookups.ms)})`);
  // Apply and its floors, best of `reps` (they are seconds long; a 2-core box is noisy):
  // floor 1, the host alone (no-op provider, same N creates, same parallelism); floor 2, the
  // requests alone; then the real apply, on a fresh emulator and stack each time.
  const reps = n <= 100 ? 5 : 1;
  let hostFloorMs = Number.POSITIVE_INFINITY;
  let rawMs = Number.POSITIVE_INFINITY;
  let up: (Counted & { result: OperationResult }) | undefined;
  let emu: Emulator | undefined;
  let stack: Stack | undefined;
  for (let rep = 0; rep < reps; rep++) {
    const noopEmu = await benchEmulator();
    const noop = await workloadStack(project, noopEmu, { stackName: `noop-${n}-${rep}`, program: "noop.js", n, parallel, env: probeEnv });
    hostFloorMs = Math.min(hostFloorMs, (await measure(noopEmu, () => noop.up())).ms);
    await noop.close();
    await noopEmu.close();
    rawMs = Math.min(rawMs, await rawCreates(n, parallel));
    await stack?.close();
    await emu?.close();
    emu = await benchEmulator();
    stack = await workloadStack(project, emu, { stackName: `bench-${n}-${rep}`, n, parallel, env: probeEnv });
    const run: Counted & { result: OperationResult } = await measure(emu, () => stack!.up());
    if (!up || run.ms < up.ms) up = run;
  }
  log(`host floor ${ms(hostFloorMs)}, requests floor ${ms(rawMs)}, apply ${ms(up!.ms)} (${up!.requests} requests)`);
  if (!emu || !stack || !up) throw new Error("no apply ran");
  try {
    const providerBytes = Math.max(
      ...up.result.registrations.map((r) => Buffer.byteLength(String((r.inputs as Record<string, unknown>)["__provider"] ?? ""))),
    );
    stack.setConfig("bench:entitlements", "true");
    const entUp = await measure(emu, () => stack.up());
    log(`entitlements ${ms(entUp.ms)} (${entUp.requests} requests)`);
    // The host's CPU time in a preview is mostly its start at N = 100: least of `reps` runs.
    let preview = await measure(emu, () => stack.preview());
    for (let rep = 1; rep < reps; rep++) {
      const again = await measure(emu, () => stack.preview());
      if (again.hostCpuMs < preview.hostCpuMs) preview = again;
    }
    const checkDiffCalls = calls(preview.result, "Check").length + calls(preview.result, "Diff").length;
    log(`preview ${ms(preview.ms)} (${preview.requests} requests)`);
    // At the largest N only (1,000 or more), where the per-resource figure settles: it costs
    // two ups and two previews of the no-op stacks, and at every size the bench would no
    // longer fit in five minutes.
    const noopPreviewCpuMs = n === Math.max(...sizes) && n >= 1000 ? await noopPreviewCpuMsPerResource(project, n, reps) : null;
    // Creates that shared one invitation leave the member's email and status null (reading each
    // member back would cost a request per create): the first refresh fills them in, and only them.
    const before = new Map(stack.state().resources.map((r) => [r.urn, r.outputs as Record<string, unknown>]));
    const first = await stack.refresh();
    const filled = first.steps.filter((s) => s.op !== "same");
    for (const step of filled) {
      const after = stack.state().resources.find((r) => r.urn === step.urn)?.outputs as Record<string, unknown> | undefined;
      const old = before.get(step.urn) ?? {};
      const changed = Object.keys({ ...old, ...after }).filter((k) => JSON.stringify(old[k]) !== JSON.stringify(after?.[k]));
      if (changed.some((k) => !(["email", "status"].includes(k) && old[k] === null)))
        throw new Error(`the first refresh changed ${step.name} beyond filling in email and status: ${changed.join(", ")}`);
    }
    log(`first refresh: ${filled.length} entitlements' email and status filled in, nothing else`);
    const refresh = await measure(emu, () => stack.refresh());
    log(`refresh ${ms(refresh.ms)} (${refresh.requests} requests)`);
    if (refresh.result.steps.some((s) => s.op !== "same")) throw new Error("refresh of an unchanged stack reported changes");
    stack.setConfig("bench:generation", "1");
    const update = await measure(emu, () => stack.up());
    log(`update ${ms(update.ms)} (${update.requests} requests)`);
    const destroy = await measure(emu, () => stack.destroy());
    log(`destroy ${ms(destroy.ms)} (${destroy.requests} requests)`);

    const route = (c: Counted, key: string) => c.byRoute[key] ?? 0;
    const entWrites =
      route(entUp, "POST /integrations/{id}/users") +
      route(update, "PATCH /integrations/{id}/users/{id}") +
      route(destroy, "DELETE /integrations/{id}/users/{id}");
    const polls = route(entUp, "GET /jobs/{id}") + route(update, "GET /jobs/{id}") + route(destroy, "GET /jobs/{id}");
    const userRequests = (c: Counted) =>
      Object.entries(c.byRoute)
        .filter(([k]) => / \/users(\/\{id\})?$/.test(k))
        .reduce((s, [, v]) => s + v, 0);
    const resources = 2 * n;
    return {
      n,
      apply: {
        ms: up.ms,
        hostFloorMs,
        requestsFloorMs: rawMs,
        ratio: up.ms / (hostFloorMs + rawMs),
        requests: up.requests,
        rssBytes: up.rssBytes,
      },
      perOp: {
        userCreate: up.requests / n,
        userRead: userRequests(refresh) / n,
        userUpdate: userRequests(update) / n,
        userDelete: userRequests(destroy) / n,
        entitlementCreate: entUp.requests / n,
        entitlementCreateMemberReads: route(entUp, "GET /integrations/{id}/users/{id}") / n,
        entitlementUpdate: (update.requests - userRequests(update)) / n,
        entitlementDelete: (destroy.requests - userRequests(destroy)) / n,
        entitlementJobPollsPerWrite: entWrites === 0 ? 0 : polls / entWrites,
      },
      preview: {
        ms: preview.ms,
        requests: preview.requests,
        resources,
        hostCpuMsPerResource: Math.max(0, preview.hostCpuMs - baselineCpuMs) / (resources - BASELINE_RESOURCES),
        hostCpuMsFixed: baselineCpuMs,
        noopHostCpuMsPerResource: noopPreviewCpuMs,
        checkDiffCalls,
      },
      refresh: {
        ms: refresh.ms,
        requests: refresh.requests,
        resources,
        userListRequests: route(refresh, "GET /users"),
        memberListRequests: route(refresh, "GET /integrations/{id}/users"),
        target: 2 * (Math.ceil(n / 100) + 5),
      },
      providerBytes,
      hostPeakRssBytes: Math.max(up.rssBytes, entUp.rssBytes, preview.rssBytes, refresh.rssBytes, update.rssBytes, destroy.rssBytes),
      byRoute: {
        apply: up.byRoute,
        entitlements: entUp.byRoute,
        preview: preview.byRoute,
        refresh: refresh.byRoute,
        update: update.byRoute,
        destroy: destroy.byRoute,
      },
      lookups,
    };
  } finally {
    await stack.close();
    await emu.close();
  }
}

/**
 * An apply at the emulator's rate limit. The issue's floor N/50 s is what N requests take at 50
 * a second, so it is set against the requests' own span (first sent to last sent, as the emulator
 * saw them), which is what pacing decides. What comes before the first request (the program, the
 * host's start, loading the providers) is printed beside it: it depends on the machine and is in
 * the unthrottled apply's floors, not in N/50 s.
 */
interface RateResult {
  n: number;
  headers: boolean;
  ms: number;
  beforeFirstMs: number;
  spanMs: number;
  floorMs: number;
  ratio: number;
  rateLimited: number;
  requests: number;
}

async function benchRateLimited(project: Project, n: number, headers: boolean): Promise<RateResult> {
  const emu = await benchEmulator({ rateLimit: { requests: RATE, windowMs: 1000, headers } });
  const stack: Stack = await workloadStack(project, emu, { stackName: `rate-${n}-${headers}`, n, parallel });
  try {
    const started = Date.now();
    const up = await measure(emu, () => stack.up());
    const floorMs = (n / RATE) * 1000;
    const first = emu.requests[0]?.at ?? 0;
    const at429 = emu.requests.filter((r) => r.status === 429).map((r) => r.at - first);
    const last = emu.requests.at(-1)?.at ?? first;
    const spanMs = last - first;
    console.error(
      `[N=${n} rate ${RATE}/s headers=${headers}] ${ms(up.ms)}: first request after ${ms(first - started)}, requests over ${ms(spanMs)}; ${up.rateLimited} × 429 at ms ${at429.join(" ")}`,
    );
    return {
      n,
      headers,
      ms: up.ms,
      beforeFirstMs: first - started,
      spanMs,
      floorMs,
      ratio: spanMs / floorMs,
      rateLimited: up.rateLimited,
      requests: up.requests,
    };
  } finally {
    await stack.close();
    await emu.close();
  }
}

function table(results: SizeResult[], rate: RateResult[]): string {
  const rows: string[][] = [["", ...results.map((r) => `N = ${r.n}`), "target"]];
  const row = (label: string, f: (r: SizeResult) => string, target: string) => rows.push([label, ...results.map(f), target]);
  row("apply (create N users, 16 in flight)", (r) => ms(r.apply.ms), "");
  row("  floor: host alone (no-op provider)", (r) => ms(r.apply.hostFloorMs), "");
  row("  floor: requests alone (raw undici)", (r) => ms(r.apply.requestsFloorMs), "");
  row("  apply / floor", (r) => ratio(r.apply.ratio), "≤ 1.25×");
  row("requests per user Create", (r) => r.perOp.userCreate.toFixed(2), "1");
  row("requests per user Read (refresh)", (r) => r.perOp.userRead.toFixed(3), "≤ 1");
  row("requests per user Update", (r) => r.perOp.userUpdate.toFixed(2), "1");
  row("requests per user Delete", (r) => r.perOp.userDelete.toFixed(2), "1");
  row("requests per entitlement Create", (r) => r.perOp.entitlementCreate.toFixed(2), "1 + polls");
  row("  of which the member's read (email, status)", (r) => r.perOp.entitlementCreateMemberReads.toFixed(2), "");
  row("requests per entitlement Update", (r) => r.perOp.entitlementUpdate.toFixed(2), "1 + polls");
  row("requests per entitlement Delete", (r) => r.perOp.entitlementDelete.toFixed(2), "1 + polls");
  row("  job polls per entitlement write", (r) => r.perOp.entitlementJobPollsPerWrite.toFixed(2), "(emulator: done at 1st poll)");
  row("preview of 2N unchanged: time", (r) => ms(r.preview.ms), "");
  row("preview: requests", (r) => String(r.preview.requests), "0");
  row("preview: host CPU per resource (Check+Diff)", (r) => `${r.preview.hostCpuMsPerResource.toFixed(2)} ms`, "< 2 ms");
  row(
    "  the same for the no-op provider (host alone)",
    (r) => (r.preview.noopHostCpuMsPerResource === null ? "—" : `${r.preview.noopHostCpuMsPerResource.toFixed(2)} ms`),
    "",
  );
  row("  fixed: host start, providers, 1 + 1 resources", (r) => `${r.preview.hostCpuMsFixed.toFixed(0)} ms`, "");
  row("refresh of 2N: time", (r) => ms(r.refresh.ms), "");
  row("refresh: requests", (r) => String(r.refresh.requests), "");
  row("  of which user / member list pages", (r) => `${r.refresh.userListRequests} / ${r.refresh.memberListRequests}`, "");
  row("  target: (ceil(N/100)+5) per list", (r) => String(r.refresh.target), "");
  row(`requests of ${LOOKUPS} getUser by email in one program (N users)`, (r) => String(r.lookups.requests), "≤ ceil(N/100)+1");
  row("  target", (r) => String(r.lookups.target), "");
  row("__provider size", (r) => `${r.providerBytes} B`, "< 2048 B");
  row("host peak RSS", (r) => `${(r.hostPeakRssBytes / 2 ** 20).toFixed(0)} MiB`, "");
  const rateRows: string[][] = [
    [
      `apply N users at ${RATE} requests/s`,
      "apply",
      "before 1st request",
      "1st to last request",
      "floor N/50 s",
      "requests / floor",
      "429s",
      "requests",
    ],
  ];
  for (const r of rate) {
    rateRows.push([
      `N = ${r.n}, ${r.headers ? "RateLimit headers" : "429s only (default)"}`,
      ms(r.ms),
      ms(r.beforeFirstMs),
      ms(r.spanMs),
      ms(r.floorMs),
      ratio(r.ratio),
      String(r.rateLimited),
      String(r.requests),
    ]);
  }
  rateRows.push(["target", "", "", "", "", "≤ 1.15×", "a handful", ""]);
  return `${render(rows)}\n\n${render(rateRows)}`;
}

function render(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

function machine(): { cpus: number; cpu: string; node: string; platform: string } {
  const cpuinfo = fs.existsSync("/proc/cpuinfo") ? fs.readFileSync("/proc/cpuinfo", "utf8") : "";
  const cpu = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  return { cpus: os.availableParallelism(), cpu, node: process.version, platform: `${os.platform()} ${os.release()}` };
}

async function main(): Promise<void> {
  const started = performance.now();
  const project = await packedProject({ name: "bench" });
  writeWorkload(project);
  try {
    const results: SizeResult[] = [];
    const baselineCpuMs = await previewBaselineCpuMs(project);
    for (const n of sizes) results.push(await benchSize(project, n, baselineCpuMs));
    const rate: RateResult[] = [];
    for (const n of rateSizes) {
      rate.push(await benchRateLimited(project, n, false));
      rate.push(await benchRateLimited(project, n, true));
    }
    const rateMemory = await rateMemorySection(project, parallel);
    const exported = await benchExport();
    const batching: BatchingResult | null = process.env.BENCH_BATCHING === "0" ? null : await benchBatching(project);
    const underCli: CliBenchResult | null = process.env.BENCH_CLI === "0" ? null : await benchCli();
    const out = {
      date: new Date().toISOString(),
      machine: machine(),
      parallel,
      sizes: results,
      rateLimited: rate,
      rateMemory,
      export: exported,
      batching,
      cli: underCli,
      totalMs: performance.now() - started,
    };
    fs.writeFileSync(path.join(benchDir, "results.json"), `${JSON.stringify(out, null, 2)}\n`);
    const m = out.machine;
    console.log(`\npulumi-workspace-access benchmark — ${m.cpus} CPUs, ${m.cpu}, node ${m.node}, ${m.platform}\n`);
    console.log(table(results, rate));
    if (rateMemory) console.log(`\n${rateMemoryTable(rateMemory)}`);
    if (exported) console.log(`\n${exportTable(exported)}`);
    if (batching) console.log(`\n${batchingTable(batching)}`);
    if (underCli) console.log(`\n${cliTable(underCli)}`);
    console.log(`\ntotal ${ms(out.totalMs)}; bench/results.json written`);
  } finally {
    await project.remove();
    fs.rmSync(rssDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
