/**
 * Rate limits remembered across runs (issue 17), through the real `pulumi` CLI: every
 * `pulumi up` runs the provider in a new host process. The
 * first apply learns the emulator's limit from its 429s; the second, in a fresh process sharing
 * only the cache folder, paces from its first request and meets none.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { entryFileName, RATE_LIMITS_DIR } from "../../src/client/rate-memory";
import type { OperationResult } from "../cli/deployment.ts";
import { cliAvailable, skipNote } from "../cli/support.ts";
import { type Scenario, scenarios, userProgram } from "./support";

const start = scenarios();
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Low enough that the CLI's creates exceed it however busy the machine: at load 20 and more on 2
 * cores, 40 creates came slower than 20 a second and met no 429 at all.
 */
const LIMIT = { requests: 4, windowMs: 1000 };
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

      const text = fs.readFileSync(path.join(dir, RATE_LIMITS_DIR, entryFileName(s.emu.url)), "utf8");
      expect(text).not.toContain(s.key);
      expect(JSON.parse(text)).toMatchObject({ baseUrl: s.emu.url, windowMs: 1000, source: "429" });

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
});
