/**
 * The bench's "rate limits remembered" section (issue 17): two applies of N users against the
 * same emulator at 50 requests/s, each in a fresh provider host (the harness starts one per
 * operation, as `pulumi up` does), sharing a cache folder of their own. The first creates the
 * users and learns the limit from its 429s; the second updates them all (N requests again) and
 * should meet none. Its requests' span against the floor N/50 s shows it did not get there by
 * going slower than the limit.
 *
 * The rest of the bench runs with the memory off (bench/run.ts): ports are reused between its
 * emulators, and a limit one section learnt must not pace another.
 *
 * Environment: `BENCH_MEMORY_N` (users per apply, default 500; 0 skips the section).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { entryFileName, RATE_LIMITS_DIR } from "../src/client/rate-memory";
import type { Emulator } from "../src/emulator/index";
import type { Project } from "../test/engine/project.ts";
import { benchEmulator, workloadStack } from "./workload.ts";

const RATE = 50;

/** One apply: its 429s, its requests (by method), how long they took from first to last, and their floor at the limit. */
interface Apply {
  ms: number;
  rateLimited: number;
  requests: number;
  byMethod: Record<string, number>;
  spanMs: number;
  /** The apply's requests at {@link RATE} a second. */
  floorMs: number;
}

/** What {@link benchRateMemory} measured. */
export interface RateMemoryResult {
  n: number;
  rate: number;
  first: Apply;
  second: Apply;
  /** The limit the first apply left in the cache folder. */
  remembered: { count: number; windowMs: number; source: string } | null;
}

async function apply(emu: Emulator, op: () => Promise<{ timings: { totalMs: number } }>): Promise<Apply> {
  // The same limit with a window the previous apply's requests have left (the next run comes later).
  emu.setRateLimit({ requests: RATE, windowMs: 1000 });
  emu.clearRequests();
  const before = emu.stats.rateLimited;
  const result = await op();
  const first = emu.requests[0]?.at ?? 0;
  const last = emu.requests.at(-1)?.at ?? first;
  const byMethod: Record<string, number> = {};
  for (const r of emu.requests) byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
  const requests = emu.requests.length;
  return {
    ms: result.timings.totalMs,
    rateLimited: emu.stats.rateLimited - before,
    requests,
    byMethod,
    spanMs: last - first,
    floorMs: (requests / RATE) * 1000,
  };
}

/** Two applies of `n` users at {@link RATE} requests/s in fresh provider processes, sharing only a cache folder. */
export async function benchRateMemory(project: Project, n: number, parallel: number): Promise<RateMemoryResult> {
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-bench-rate-memory-"));
  const emu = await benchEmulator({ rateLimit: { requests: RATE, windowMs: 1000 } });
  const stack = await workloadStack(project, emu, {
    stackName: `rate-memory-${n}`,
    n,
    parallel,
    env: { WORKSPACE_ACCESS_CACHE_DIR: cacheDir },
  });
  try {
    const first = await apply(emu, () => stack.up());
    const file = path.join(cacheDir, RATE_LIMITS_DIR, entryFileName(emu.url));
    const remembered = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : null;
    stack.setConfig("bench:generation", "1");
    const second = await apply(emu, () => stack.up());
    const result = { n, rate: RATE, first, second, remembered };
    console.error(
      `[N=${n} rate memory] first apply ${first.rateLimited} × 429 (${first.requests} requests), remembered ${JSON.stringify(remembered)}; second apply ${second.rateLimited} × 429 (${second.requests} requests over ${(second.spanMs / 1000).toFixed(2)} s)`,
    );
    return result;
  } finally {
    await stack.close();
    await emu.close();
    fs.rmSync(cacheDir, { recursive: true, force: true });
  }
}

/** The section as bench/run.ts runs it: {@link benchRateMemory} at `BENCH_MEMORY_N` users, or `null` when that is 0. */
export async function rateMemorySection(project: Project, parallel: number): Promise<RateMemoryResult | null> {
  const n = Number(process.env["BENCH_MEMORY_N"] ?? 500);
  return n > 0 ? benchRateMemory(project, n, parallel) : null;
}

/** The section's table, in the bench's Markdown style. */
export function rateMemoryTable(r: RateMemoryResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const row = (label: string, a: Apply) => [
    label,
    String(a.rateLimited),
    `${a.requests} (${Object.entries(a.byMethod)
      .map(([method, count]) => `${count} ${method}`)
      .join(", ")})`,
    s(a.spanMs),
    s(a.floorMs),
    `${(a.spanMs / a.floorMs).toFixed(2)}×`,
    s(a.ms),
  ];
  const remembered = r.remembered ? `${r.remembered.count} per ${r.remembered.windowMs} ms` : "nothing";
  const rows = [
    [
      `N = ${r.n} users at ${r.rate} requests/s, a fresh provider process each`,
      "429s",
      "requests",
      "1st to last request",
      `floor: requests / ${r.rate} s`,
      "ratio",
      "apply",
    ],
    row("first apply (creates N; learns the limit)", r.first),
    row(`second apply (updates N; paced from the remembered ${remembered})`, r.second),
    ["target", "0 on the second", "", "", "", "", ""],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => `| ${row.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}
