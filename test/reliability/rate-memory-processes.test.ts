/**
 * Rate memory under writers in separate processes (issue 28 item 8): eight processes, each a
 * provider of its own workspace, save their limits at once, thirty rounds, each started with a lock
 * file a dead process (or a hung one) left in the cache folder. Every round, every workspace's limit of
 * that round is recalled: none lost. (With one shared file and a lock taken over when stale, about
 * one round in five lost seven of eight.) The processes run the built module (the host tier runs on
 * the build); they stay up between rounds and are told when to save, so the rounds are simultaneous.
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { RateLimitMemory } from "../../src/client/rate-memory";

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

/** A process that ran and ended: its id is free. */
async function deadPid(): Promise<number> {
  const gone = spawn(process.execPath, ["-e", ""]);
  await new Promise((resolve) => gone.on("exit", resolve));
  return gone.pid ?? 999_999;
}

describe("eight processes saving eight workspaces' limits at once, thirty rounds", () => {
  it.each([
    [
      "a lock left by a dead process",
      async (lock: string) => fs.writeFileSync(lock, `${await deadPid()} ${os.hostname()} ${Date.now()} x`),
    ],
    [
      "a lock older than the stale age, of a process that still runs",
      async (lock: string) => {
        fs.writeFileSync(lock, `${process.pid} ${os.hostname()} 0 x`);
        const old = (Date.now() - 60_000) / 1000;
        fs.utimesSync(lock, old, old);
      },
    ],
  ])(
    "lose no entry, with %s in the folder at the start",
    async (_, plantLock) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-processes-"));
      cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const { round } = savers(dir, PROCESSES);
      const lost: string[] = [];
      for (let n = 0; n < ROUNDS; n++) {
        // At the start of each round, where the lock of the one shared file was: nothing may wait for it or race to take it over.
        await plantLock(path.join(dir, "rate-limits.json.lock"));
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
