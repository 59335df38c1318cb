/**
 * Rate memory under writers in separate processes: eight processes, each a provider of its own
 * workspace, save their limits at once, thirty rounds, each started with what makes every save's prune
 * remove files while the others write (the entries beyond the 64 kept, or what a dead process left).
 * Every round, every workspace's limit of that round is recalled: none lost. The processes run the
 * built module (the host tier runs on the build); they stay up between rounds and are told when to
 * save, so the rounds are simultaneous.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { entryFileName, RATE_LIMITS_DIR, RateLimitMemory } from "../../src/client/rate-memory";

const PROCESSES = 8;
const ROUNDS = 30;
const key = (i: number) => `https://ws${i}.example.com/api/v1/`;
/** The limit process `i` saves in `round`: another each round, so a lost write shows. */
const countOf = (i: number, round: number) => 10 + i + PROCESSES * round;

/** Saves, for each round number read from stdin, a fresh memory's limit of its workspace, then answers the round. */
const SAVER = `
const { RateLimitMemory } = require(process.argv[1]);
const [dir, index] = [process.argv[2], Number(process.argv[3])];
const clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
require("node:readline").createInterface({ input: process.stdin }).on("line", async (line) => {
  const round = Number(line);
  const memory = new RateLimitMemory(dir, clock);
  memory.remember("https://ws" + index + ".example.com/api/v1/", { count: 10 + index + ${PROCESSES} * round, windowMs: 1000, source: "429" });
  await memory.flush();
  process.stdout.write(round + "\\n");
});
`;

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const undo of cleanup.splice(0)) undo();
});

/** `count` saving processes on `dir`; `round(n)` has every one save its round-`n` limit at once. */
function savers(dir: string, count: number) {
  const module = path.resolve("dist/client/rate-memory.js");
  expect(fs.existsSync(module), "the host tier runs on the build: npm run build").toBe(true);
  const children: ChildProcess[] = [];
  const answers: Array<Map<number, () => void>> = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ["-e", SAVER, module, dir, String(i)], { stdio: ["pipe", "pipe", "inherit"] });
    const waiting = new Map<number, () => void>();
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => waiting.get(Number(line))?.());
    children.push(child);
    answers.push(waiting);
  }
  cleanup.push(() => {
    for (const child of children) child.kill();
  });
  return {
    round: (n: number) =>
      Promise.all(
        children.map(
          (child, i) =>
            new Promise<void>((resolve) => {
              answers[i]?.set(n, resolve);
              child.stdin?.write(`${n}\n`);
            }),
        ),
      ),
  };
}

/** Entries of 64 other workspaces saved now: the savers' entries of the last round become the oldest, beyond the kept 64, so each saver's prune may remove them while another saves its next. */
function plantNewerEntries(dir: string): void {
  fs.mkdirSync(path.join(dir, RATE_LIMITS_DIR), { recursive: true });
  const savedAt = Date.now();
  for (let k = 0; k < 64; k++) {
    const baseUrl = `https://other${k}.example.com/api/v1/`;
    const text = `${JSON.stringify({ version: 2, baseUrl, count: 5, windowMs: 1000, source: "429", savedAt })}\n`;
    fs.writeFileSync(path.join(dir, RATE_LIMITS_DIR, entryFileName(baseUrl)), text);
  }
}

/** What a dead process leaves: a temporary file of each saver's entry (a minute old), and a file that is no entry. */
function plantLeftovers(dir: string): void {
  fs.mkdirSync(path.join(dir, RATE_LIMITS_DIR), { recursive: true });
  const old = (Date.now() - 120_000) / 1000;
  for (let i = 0; i < PROCESSES; i++) {
    const temp = path.join(dir, RATE_LIMITS_DIR, `${entryFileName(key(i))}.4242.dead.tmp`);
    fs.writeFileSync(temp, "{");
    fs.utimesSync(temp, old, old);
  }
  fs.writeFileSync(path.join(dir, RATE_LIMITS_DIR, "notes.json"), "not an entry");
}

describe("eight processes saving eight workspaces' limits at once, thirty rounds", () => {
  it.each([
    ["64 other workspaces' entries newer than theirs (each prune removes the oldest)", plantNewerEntries],
    ["temporary files a dead process left and a file that is no entry (each prune removes them)", plantLeftovers],
  ])(
    "lose no entry, with %s",
    async (_, plant) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-processes-"));
      cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const { round } = savers(dir, PROCESSES);
      const lost: string[] = [];
      for (let n = 0; n < ROUNDS; n++) {
        plant(dir);
        await round(n);
        const reader = new RateLimitMemory(dir, { now: () => Date.now(), sleep: async () => {} });
        for (let i = 0; i < PROCESSES; i++) {
          const recalled = await reader.recall(key(i));
          if (recalled?.count !== countOf(i, n)) lost.push(`round ${n}: ${key(i)} recalled ${JSON.stringify(recalled)}`);
        }
      }
      expect(lost).toEqual([]);
    },
    120_000,
  );
});
