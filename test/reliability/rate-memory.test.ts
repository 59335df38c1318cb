/**
 * Rate limits remembered across runs (issue 17), through the real `pulumi` CLI: every
 * `pulumi up` runs the provider in a new host process. The
 * first apply learns the emulator's limit from its 429s; the second, in a fresh process sharing
 * only the cache folder, paces from its first request and meets none.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LOCK_SUFFIX } from "../../src/client/file-lock";
import { RATE_LIMITS_FILE } from "../../src/client/rate-memory";
import type { OperationResult } from "../cli/deployment.ts";
import { type Scenario, scenarios, userProgram } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const LIMIT = { requests: 20, windowMs: 1000 };
const N = 40;

/** `N` users for each prefix: an apply adding a prefix creates `N` more. */
function program(prefixes: string[]): string {
  const users: Record<string, { email: string }> = {};
  for (const prefix of prefixes) for (let i = 0; i < N; i++) users[`${prefix}${i}`] = { email: `${prefix}${i}@example.com` };
  return userProgram(users);
}

/** Runs an `up` that creates `N` users and returns it with the 429s the emulator answered during it. */
async function apply(s: Scenario, prefixes: string[]): Promise<{ up: OperationResult; rateLimited: number; creates: number }> {
  s.setProgram(program(prefixes));
  // The same limit, and a window the previous run's requests have left: the next run starts later.
  s.emu.setRateLimit(LIMIT);
  s.emu.clearRequests();
  const before = s.emu.stats.rateLimited;
  const up = await s.up();
  const creates = up.steps.filter((step) => step.op === "create" && step.type.endsWith(":User")).length;
  return { up, rateLimited: s.emu.stats.rateLimited - before, creates };
}

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  describe("a second apply under the same limit, with a fresh provider process", () => {
    it("meets no 429: the first apply's learnt limit is remembered in the cache folder (never the key)", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-host-"));
      dirs.push(dir);
      const s = await start({
        program: program(["a"]),
        emulator: { rateLimit: LIMIT },
        parallel: 16,
        env: { WORKSPACE_ACCESS_CACHE_DIR: dir },
      });
      const first = await apply(s, ["a"]);
      expect(first.creates).toBe(N);
      expect(first.rateLimited).toBeGreaterThan(0);

      const file = path.join(dir, "rate-limits.json");
      const text = fs.readFileSync(file, "utf8");
      expect(text).not.toContain(s.key);
      expect(JSON.parse(text).limits[s.emu.url]).toMatchObject({ windowMs: 1000, source: "429" });

      const second = await apply(s, ["a", "b"]);
      expect(second.creates).toBe(N);
      expect(second.rateLimited).toBe(0);
      expect(s.emu.requests.filter((r) => r.method === "POST" && r.status === 201)).toHaveLength(N);
      expect(s.emu.users.list()).toHaveLength(2 * N);
    });

    it("control: with WORKSPACE_ACCESS_CACHE_DIR=off the second apply meets the 429s again", async () => {
      const s = await start({
        program: program(["a"]),
        emulator: { rateLimit: LIMIT },
        parallel: 16,
        env: { WORKSPACE_ACCESS_CACHE_DIR: "off" },
      });
      expect((await apply(s, ["a"])).rateLimited).toBeGreaterThan(0);
      const second = await apply(s, ["a", "b"]);
      expect(second.creates).toBe(N);
      expect(second.rateLimited).toBeGreaterThan(0);
    });
  });

  /**
   * One process saving a limit for its own workspace, through the built module (the host tier runs
   * on the build): it waits until `startAt` (epoch ms) so that every process writes at once.
   */
  const SAVER = `
const { RateLimitMemory } = require(process.argv[1]);
const [dir, index, startAt] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
setTimeout(async () => {
  const memory = new RateLimitMemory(dir, clock);
  memory.remember("https://ws" + index + ".example.com/api/v1/", { count: 10 + index, windowMs: 1000, source: "429" });
  await memory.flush();
}, Math.max(0, startAt - Date.now()));
`;

  /** Runs `count` saving processes at once in `dir`; resolves with their exit codes. */
  function saveAtOnce(dir: string, count: number): Promise<number[]> {
    const module = path.resolve("dist/client/rate-memory.js");
    expect(fs.existsSync(module), "the host tier runs on the build: npm run build").toBe(true);
    // Late enough for every process to have started and loaded the module.
    const startAt = Date.now() + 1500;
    return Promise.all(
      Array.from(
        { length: count },
        (_, i) =>
          new Promise<number>((resolve, reject) => {
            const child = spawn(process.execPath, ["-e", SAVER, module, dir, String(i), String(startAt)], { stdio: "inherit" });
            child.on("error", reject);
            child.on("exit", (code) => resolve(code ?? -1));
          }),
      ),
    );
  }

  describe("eight processes saving limits for eight workspaces at once", () => {
    it("leave eight entries, and no lock or temporary file (three rounds)", async () => {
      for (let round = 0; round < 3; round++) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-concurrent-"));
        dirs.push(dir);
        expect(await saveAtOnce(dir, 8)).toEqual(Array(8).fill(0));
        const { limits } = JSON.parse(fs.readFileSync(path.join(dir, RATE_LIMITS_FILE), "utf8")) as {
          limits: Record<string, { count: number }>;
        };
        expect(
          Object.entries(limits)
            .map(([key, limit]) => `${key} ${limit.count}`)
            .sort(),
        ).toEqual(Array.from({ length: 8 }, (_, i) => `https://ws${i}.example.com/api/v1/ ${10 + i}`).sort());
        expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
      }
    });

    it("take over a lock its holder left behind (a process that is gone)", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-stale-"));
      dirs.push(dir);
      // A process that ran and ended: its id is free, its lock stale at once.
      const gone = spawn(process.execPath, ["-e", ""]);
      await new Promise((resolve) => gone.on("exit", resolve));
      fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE + LOCK_SUFFIX), `${gone.pid} ${os.hostname()} ${Date.now()} x`);
      const started = Date.now();
      expect(await saveAtOnce(dir, 2)).toEqual([0, 0]);
      // Well within the wait for a live holder (3 s after the 1.5 s start).
      expect(Date.now() - started).toBeLessThan(4000);
      const { limits } = JSON.parse(fs.readFileSync(path.join(dir, RATE_LIMITS_FILE), "utf8")) as { limits: Record<string, unknown> };
      expect(Object.keys(limits)).toHaveLength(2);
      expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
    });
  });
});
