/**
 * `npm run bench:export-scale` (not in CI: it takes minutes): the project `workspace-access-export` writes for a generated
 * world of 10,000 users and 20,000 memberships in 20 integrations (its default shape at that size: one `WorkspaceUsers`
 * and an `IntegrationMembers` per integration), then its first `pulumi up` (everything adopted: no write) and a
 * `pulumi preview --expect-no-changes`, each timed under the real CLI (file backend, checkpoints written as users have
 * them), with the requests the emulator received and the machine's load average. Plain TypeScript: `node` runs it.
 *
 * Environment: `BENCH_SCALE_USERS` (default 10000), `BENCH_SCALE_MEMBERSHIPS` (default twice the users),
 * `BENCH_SCALE_INTEGRATIONS` (default 20), `BENCH_SCALE_SHAPE` (`records` or `sets`: passed as `--shape`).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import type { Emulator, EmulatorOptions, EmulatorSeed, RecordedRequest } from "../src/emulator/index";
import type { GeneratedWorldSize } from "../src/emulator/worlds-generated";
import { cliAvailable, openCliStack, skipNote } from "../test/cli/support.ts";
import { packedTarball } from "../test/support/packed.ts";
import { repoRoot } from "../test/support/paths.ts";
import { installTarball } from "../test/support/project.ts";

const requireDist = createRequire(path.join(repoRoot, "package.json"));
const users = Number(process.env.BENCH_SCALE_USERS ?? 10_000);
const size: GeneratedWorldSize = {
  users,
  memberships: Number(process.env.BENCH_SCALE_MEMBERSHIPS ?? users * 2),
  integrations: Number(process.env.BENCH_SCALE_INTEGRATIONS ?? 20),
};
const shape = process.env.BENCH_SCALE_SHAPE;

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const writes = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method !== "GET");

async function timed<T>(label: string, step: () => Promise<T>): Promise<{ value: T; ms: number; load: string }> {
  const started = performance.now();
  const value = await step();
  const ms = performance.now() - started;
  console.error(`[export-scale] ${label}: ${seconds(ms)} (load average ${load()})`);
  return { value, ms, load: load() };
}

function exportTo(dir: string, emu: Emulator): Promise<string> {
  const args = [path.join(repoRoot, "dist", "export", "cli.js"), "--out", dir, "--base-url", emu.url, ...(shape ? ["--shape", shape] : [])];
  const env = { ...process.env, WORKSPACE_ACCESS_API_KEY: emu.apiKey };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, args, { env, encoding: "utf8" }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr)) : resolve(stdout),
    ),
  );
}

async function main(): Promise<void> {
  if (!cliAvailable) throw new Error(`no pulumi CLI${skipNote}: npm run pulumi-cli builds it`);
  process.env.WORKSPACE_ACCESS_CACHE_DIR = "off";
  const { startEmulator } = requireDist("./dist/emulator/index.js") as { startEmulator: (o: EmulatorOptions) => Promise<Emulator> };
  const { generatedSeed } = requireDist("./dist/emulator/worlds-generated.js") as {
    generatedSeed: (s: GeneratedWorldSize) => EmulatorSeed;
  };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-bench-export-scale-"));
  const emu = await startEmulator({ seed: generatedSeed(size) });
  const dir = path.join(tmp, "access");
  console.error(`[export-scale] ${size.users} users, ${size.memberships} memberships, ${size.integrations} integrations; load ${load()}`);
  try {
    const exported = await timed("export", () => exportTo(dir, emu));
    const summary = exported.value.split("\n").find((l) => l.includes("--shape")) ?? "";
    console.error(`[export-scale] ${summary}`);
    await installTarball(dir, await packedTarball());
    const stack = await openCliStack({
      projectDir: dir,
      secrets: "passphrase",
      config: { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": { secret: emu.apiKey } },
    });
    try {
      emu.clearRequests();
      const up = await timed("first pulumi up", () => stack.up());
      const upRequests = emu.requests;
      emu.clearRequests();
      const preview = await timed("pulumi preview --expect-no-changes", () => stack.preview("--expect-no-changes"));
      const result = {
        size,
        shape: summary,
        exportMs: exported.ms,
        up: { ms: up.ms, requests: upRequests.length, writes: writes(upRequests).length, loadAfter: up.load },
        preview: { ms: preview.ms, requests: emu.requests.length, writes: writes(emu.requests).length, loadAfter: preview.load },
        cores: os.availableParallelism(),
      };
      console.log(JSON.stringify(result, null, 2));
      console.log(
        [
          `| ${size.users} users, ${size.memberships} memberships | time | requests | writes | load average after (1, 5, 15 min) |`,
          "|---|---|---|---|---|",
          `| export | ${seconds(exported.ms)} | | | ${exported.load} |`,
          `| first \`pulumi up\` | ${seconds(up.ms)} | ${result.up.requests} | ${result.up.writes} | ${up.load} |`,
          `| \`pulumi preview\` | ${seconds(preview.ms)} | ${result.preview.requests} | ${result.preview.writes} | ${preview.load} |`,
        ].join("\n"),
      );
    } finally {
      await stack.remove();
    }
  } finally {
    await emu.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
