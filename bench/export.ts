/**
 * The export's benchmark (issue 16), a section of `npm run bench`: `workspace-access-export` (the
 * built command, in a process of its own) writes a generated emulator world of 10,000 users and
 * 20,000 memberships in 20 integrations; measured are the requests the emulator received against
 * the budget (every list twice, 100 then 99 a page: the integrations, the users, each integration's members),
 * the time, and the command's peak RSS; then the same under a rate limit of 50 requests a second
 * (the client's own 429 handling). Plain TypeScript with erasable syntax: `node` runs it.
 *
 * Environment: `BENCH_EXPORT_USERS` (default 10000), `BENCH_EXPORT_MEMBERSHIPS` (default twice the
 * users), `BENCH_EXPORT_INTEGRATIONS` (default 20); `BENCH_EXPORT=0` skips the section.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator, EmulatorOptions, EmulatorSeed } from "../src/emulator/index";
import type { GeneratedWorldSize } from "../src/emulator/worlds-generated";
import { repoRoot } from "../test/support/paths.ts";

const requireDist = createRequire(path.join(repoRoot, "package.json"));
const CLI = path.join(repoRoot, "dist", "export", "cli.js");
const RATE = 50;

/** One export run. */
export interface ExportRun {
  ms: number;
  requests: number;
  /** Requests answered 429 (waited out and sent again). */
  rateLimited: number;
  peakRssBytes: number;
  /** The most V8 heap in use at once (sampled every 10 ms). */
  peakHeapBytes: number;
  accessYamlBytes: number;
  exitCode: number;
}

/** The section's figures. */
export interface ExportBench {
  size: GeneratedWorldSize;
  /** The most requests the issue allows: integration list + user pages + each integration's member pages. */
  budget: number;
  seedMs: number;
  plain: ExportRun;
  rateLimited: ExportRun | null;
}

function sizeFromEnv(): GeneratedWorldSize {
  const users = Number(process.env.BENCH_EXPORT_USERS ?? 10_000);
  return {
    users,
    memberships: Number(process.env.BENCH_EXPORT_MEMBERSHIPS ?? users * 2),
    integrations: Number(process.env.BENCH_EXPORT_INTEGRATIONS ?? 20),
  };
}

/** Runs the command against `emu` into a fresh directory; peak RSS from a probe preloaded into it. */
async function runOnce(emu: Emulator, tmp: string, label: string, nodeOptions = ""): Promise<ExportRun> {
  const out = path.join(tmp, label);
  const rssFile = path.join(tmp, `${label}.rss`);
  const probe = path.join(tmp, "probe.cjs");
  // Peak RSS from the kernel; peak V8 heap in use sampled every 10 ms (RSS also holds the heap's
  // headroom and compiled code, which V8 sizes as it likes).
  fs.writeFileSync(
    probe,
    [
      "let heap = 0;",
      "const sample = () => { heap = Math.max(heap, process.memoryUsage().heapUsed); };",
      "setInterval(sample, 10).unref();",
      `process.on("exit", () => { sample(); require("node:fs").writeFileSync(${JSON.stringify(rssFile)}, process.resourceUsage().maxRSS * 1024 + " " + heap); });`,
      "",
    ].join("\n"),
  );
  emu.clearRequests();
  const limitedBefore = emu.stats.rateLimited;
  const started = performance.now();
  const exitCode = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "--out", out, "--base-url", emu.url], {
      env: { ...process.env, WORKSPACE_ACCESS_API_KEY: emu.apiKey, NODE_OPTIONS: `--require ${probe} ${nodeOptions}`.trim() },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const last = stderr.trimEnd().split("\n").at(-1) ?? "";
      console.error(`[export ${label}] ${last}`);
      resolve(code ?? -1);
    });
  });
  const ms = performance.now() - started;
  if (exitCode !== 0) throw new Error(`workspace-access-export exited ${exitCode}`);
  const run: ExportRun = {
    ms,
    requests: emu.requests.length,
    rateLimited: emu.stats.rateLimited - limitedBefore,
    peakRssBytes: Number(fs.readFileSync(rssFile, "utf8").split(" ")[0]),
    peakHeapBytes: Number(fs.readFileSync(rssFile, "utf8").split(" ")[1]),
    accessYamlBytes: fs.statSync(path.join(out, "access.yaml")).size,
    exitCode,
  };
  fs.rmSync(out, { recursive: true, force: true });
  return run;
}

/** The export section of `npm run bench`, or null when `BENCH_EXPORT=0`. */
export async function benchExport(): Promise<ExportBench | null> {
  if (process.env.BENCH_EXPORT === "0") return null;
  const size = sizeFromEnv();
  const { startEmulator } = requireDist("./dist/emulator/index.js") as { startEmulator: (o: EmulatorOptions) => Promise<Emulator> };
  const { generatedSeed } = requireDist("./dist/emulator/worlds-generated.js") as {
    generatedSeed: (s: GeneratedWorldSize) => EmulatorSeed;
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-bench-export-"));
  const seedStarted = performance.now();
  const emu = await startEmulator({ seed: generatedSeed(size) });
  const seedMs = performance.now() - seedStarted;
  try {
    // Every list is read twice, 100 then 99 a page: the second listing proves the first.
    const twice = (records: number) => Math.max(1, Math.ceil(records / 100)) + Math.max(1, Math.ceil(records / 99));
    const integrations = emu.integrations.list();
    const memberPages = integrations.reduce((n, i) => n + twice(emu.integrations.members(i.id).length), 0);
    const budget = twice(integrations.length) + twice(size.users) + memberPages;
    const plain = await runOnce(emu, tmp, "plain");
    let rateLimited: ExportRun | null = null;
    emu.setRateLimit({ requests: RATE, windowMs: 1000 });
    rateLimited = await runOnce(emu, tmp, "rate-limited");
    return { size, budget, seedMs, plain, rateLimited };
  } finally {
    await emu.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The section as a Markdown table. */
export function exportTable(bench: ExportBench): string {
  const { size, plain, rateLimited } = bench;
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const rows = [
    [
      `export of ${size.users} users, ${size.memberships} memberships, ${size.integrations} integrations`,
      "plain",
      `${RATE} requests/s limit`,
    ],
    [
      "requests (target: at most the budget)",
      String(plain.requests),
      rateLimited ? `${rateLimited.requests - rateLimited.rateLimited} + ${rateLimited.rateLimited} × 429` : "—",
    ],
    ["  budget: every list twice (100, then 99 a page)", String(bench.budget), String(bench.budget)],
    ["time (command start to exit)", s(plain.ms), rateLimited ? s(rateLimited.ms) : "—"],
    ["  floor at the rate limit: budget / rate", "", s((bench.budget / RATE) * 1000)],
    ["peak RSS of the command", mib(plain.peakRssBytes), rateLimited ? mib(rateLimited.peakRssBytes) : "—"],
    ["  peak V8 heap in use", mib(plain.peakHeapBytes), rateLimited ? mib(rateLimited.peakHeapBytes) : "—"],
    ["access.yaml", `${(plain.accessYamlBytes / 2 ** 20).toFixed(2)} MiB`, ""],
    ["(emulator start with the world, not counted)", s(bench.seedMs), ""],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}
