/**
 * The lock file that keeps the processes writing one file of remembered limits (`rate-memory.ts`)
 * one at a time: created exclusively, holding its process's id and host, and taken over when stale.
 */
import type * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";

/** The lock file next to the file, held while a process reads, merges and replaces the file. */
export const LOCK_SUFFIX = ".lock";
/**
 * A lock older than this is stale (its holder died, or hangs): taken over. A holder keeps it for
 * the few milliseconds a read and a rename take. A lock of a process of this host that no longer
 * runs is stale at once.
 */
export const STALE_LOCK_MS = 10_000;
/** How long a write waits for the lock before it writes without it (and checks what it wrote). */
const LOCK_WAIT_MS = 3_000;

/**
 * Takes the lock file (created exclusively, holding this process's id), waiting for another
 * holder at most {@link LOCK_WAIT_MS} and taking over a stale lock. `undefined` when it cannot be
 * had (a folder that refuses new files, a lock that is not a file, a holder that keeps it): the
 * write then goes on without it, and its read-back still checks what it wrote.
 */
export async function takeLock(file: string, log: (message: string) => void): Promise<{ release(): Promise<void> } | undefined> {
  const lockFile = `${file}${LOCK_SUFFIX}`;
  const token = `${process.pid} ${os.hostname()} ${Date.now()} ${Math.random().toString(36).slice(2)}`;
  // Real time, not the client's clock: other processes wait on this lock, and a virtual clock
  // that never advances must not hold a write forever.
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await fsp.writeFile(lockFile, token, { flag: "wx", mode: 0o600 });
      return {
        release: async () => {
          // Only our own lock: one taken over as stale and re-created is someone else's.
          const holder = await fsp.readFile(lockFile, "utf8").catch(() => undefined);
          if (holder === token) await fsp.rm(lockFile, { force: true }).catch(() => {});
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return undefined;
    }
    const stale = await staleLock(lockFile);
    if (stale === "not-a-lock") return undefined;
    if (typeof stale === "object") {
      if (await takeOver(lockFile, stale.text, token)) log(`${lockFile}: stale (its holder is gone); taken over`);
      continue;
    }
    if (Date.now() >= deadline) {
      log(`${lockFile}: still held after ${LOCK_WAIT_MS} ms; writing without it`);
      return undefined;
    }
    await sleep(2 + Math.floor(Math.random() * 10));
  }
}

/**
 * Removes the lock judged stale, and only that one: processes that judged it stale at once race to
 * move it aside (a rename is atomic: one wins), and a lock that turns out to be someone's fresh one
 * (made after the stale one was taken) is put back. Removing it instead would let two writers in.
 */
async function takeOver(lockFile: string, staleText: string, token: string): Promise<boolean> {
  const aside = `${lockFile}.${process.pid}.${token.split(" ").at(-1)}`;
  try {
    await fsp.rename(lockFile, aside);
  } catch {
    return false;
  }
  const moved = await fsp.readFile(aside, "utf8").catch(() => undefined);
  if (moved !== staleText) await fsp.link(aside, lockFile).catch(() => {});
  await fsp.rm(aside, { force: true }).catch(() => {});
  return moved === staleText;
}

/** What a lock file in the way is: held, stale (old, or its process of this host is gone: its text, to take over only that one), or not a lock of ours at all. */
async function staleLock(lockFile: string): Promise<"held" | { text: string } | "not-a-lock"> {
  let stat: fs.Stats;
  let text: string;
  try {
    stat = await fsp.lstat(lockFile);
    if (!stat.isFile()) return "not-a-lock";
    text = await fsp.readFile(lockFile, "utf8");
  } catch {
    // Released between our attempt and this look: try again.
    return "held";
  }
  if (Date.now() - stat.mtimeMs > STALE_LOCK_MS) return { text };
  const [pid, host] = text.split(" ");
  if (host === os.hostname() && pid !== undefined && /^\d+$/.test(pid) && !alive(Number(pid))) return { text };
  return "held";
}

/** Whether a process of this host runs (a signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
