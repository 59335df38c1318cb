/**
 * Rate limits remembered between processes. Each `pulumi up` runs the provider in a new process,
 * and the service's 429 asks for a wait of up to five minutes: without this, every run would pay
 * again, in 429s, for what the run before it learnt. The limit the pacer learns for a workspace is
 * kept in one small JSON file in the user's cache folder, per base URL, for a day at most, and a
 * new client paces from its first request.
 *
 * What is kept is the limit and where it came from, never the API key nor anything derived from
 * it: the entry is per workspace address only. A remembered limit is a hint, so the file must
 * never fail a deployment: a file that is missing, unreadable, corrupt, unwritable or not a regular
 * file (a FIFO, a device) is ignored (with a debug line through the client's logger).
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "./clock";
import { takeLock } from "./file-lock";
import { RATE_WINDOW_MS, type WindowLimit } from "./pacer";

/** The file in that folder. */
export const RATE_LIMITS_FILE = "rate-limits.json";
/** How long a remembered limit is trusted: a day, then it is learnt afresh. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;
/**
 * The longest window remembered: five minutes, the longest the service asks a client to wait
 * (its 429's `Retry-After`). A limit learnt from 429s has a window of a second; a window from
 * `RateLimit-Reset` headers (the longest reset seen) beyond this is not remembered, and is learnt
 * again from the first answer's headers, as it was the first time.
 */
export const MAX_REMEMBERED_WINDOW_MS = 5 * 60 * 1000;
/**
 * The slowest pace remembered, in requests per second: never slower than the slowest a 429 can
 * teach (one request per second). A slower limit from headers is learnt again from the first
 * answer; so a corrupt or planted file cannot pace a run to a crawl.
 */
export const MIN_REQUESTS_PER_SECOND = 1;
/** Entries kept at most, the most recently saved first: emulators on ever new ports must not grow the file. */
const MAX_ENTRIES = 64;
/** A file larger than this is not ours (or is broken): ignored rather than parsed. */
const MAX_FILE_BYTES = 256 * 1024;
/** The file's format; another version is ignored (and replaced at the next write). */
const VERSION = 1;
/** How many times a write is tried until the file holds its entries. */
const WRITE_ATTEMPTS = 8;

/** One remembered limit: the pacer's, and when it was saved (epoch ms, by the client's clock). */
export interface RememberedLimit extends WindowLimit {
  savedAt: number;
}

/** The entry's key for a base URL: its origin and path (the base URL never holds credentials, a query or a fragment). */
export function memoryKey(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname}`;
}

/**
 * The file of remembered limits in one folder. Reads and writes whole files: a write takes the
 * lock file next to it, reads the file afresh, puts its entries in, drops what expired, replaces
 * the file by renaming a complete temporary one over it, releases the lock, and reads the file
 * back, merging again until the file holds its entries: a reader never sees half a file, and
 * several processes writing at once keep every one's entry. Writes are queued one at a time, and
 * a limit changed while one is under way is written once after it, with the latest value only.
 */
export class RateLimitMemory {
  readonly file: string;
  readonly #clock: Clock;
  readonly #log: (message: string) => void;
  /** The next entry to write, by key; written by {@link #drain}. */
  readonly #next = new Map<string, WindowLimit>();
  #writing: Promise<void> | undefined;

  constructor(dir: string, clock: Clock, log: (message: string) => void = () => {}) {
    this.file = path.join(dir, RATE_LIMITS_FILE);
    this.#clock = clock;
    this.#log = log;
  }

  /** The limit remembered for `key` if it is valid and less than a day old, else `undefined`. Never throws. */
  async recall(key: string): Promise<WindowLimit | undefined> {
    const entry = (await this.#read())[key];
    if (!entry) return undefined;
    const { count, windowMs, source } = entry;
    return { count, windowMs, source };
  }

  /** Saves `limit` for `key` in the background (see {@link flush}). Never throws. */
  remember(key: string, limit: WindowLimit): void {
    // One the next process would ignore is not written (nor does it replace what is there).
    if (!plausible(limit)) return;
    this.#next.set(key, { count: limit.count, windowMs: limit.windowMs, source: limit.source });
    this.#writing ??= this.#drain();
  }

  /** Resolves when every limit given to {@link remember} so far is written (or given up on). */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#next.size > 0) {
        const batch = new Map(this.#next);
        this.#next.clear();
        await this.#write(batch);
      }
    } finally {
      // In the same turn as the last check of `#next`: a limit given after it starts a new drain.
      this.#writing = undefined;
    }
  }

  /** The valid, unexpired entries of the file, by key; `{}` for a missing or broken file. */
  async #read(): Promise<Record<string, RememberedLimit>> {
    let text: string;
    try {
      // Non-blocking: a FIFO in the file's place would hold a plain open until a writer came.
      const handle = await fsp.open(this.file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
      try {
        // Only a regular file: a folder, a FIFO or a device (a link to /dev/zero never ends) is not ours.
        if (!(await handle.stat()).isFile()) {
          this.#log(`${this.file}: not read (not a regular file); rate limits are learnt afresh`);
          return {};
        }
        // At most one byte more than a file of ours holds, whatever its size says.
        const buffer = Buffer.allocUnsafe(MAX_FILE_BYTES + 1);
        let length = 0;
        while (length < buffer.length) {
          const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
          if (bytesRead === 0) break;
          length += bytesRead;
        }
        if (length > MAX_FILE_BYTES) {
          this.#log(`${this.file}: more than ${MAX_FILE_BYTES} bytes, more than a file of remembered rate limits holds; ignored`);
          return {};
        }
        text = buffer.toString("utf8", 0, length);
      } finally {
        await handle.close();
      }
    } catch (error) {
      // No file yet is the usual case, not worth a line.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        this.#log(`${this.file}: not read (${describe(error)}); rate limits are learnt afresh`);
      return {};
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.#log(`${this.file}: not JSON; ignored, and replaced at the next rate limit learnt`);
      return {};
    }
    const limits = (parsed as { version?: unknown; limits?: unknown } | null)?.limits;
    if ((parsed as { version?: unknown } | null)?.version !== VERSION || typeof limits !== "object" || limits === null) {
      this.#log(`${this.file}: not a file of remembered rate limits (version ${VERSION}); ignored`);
      return {};
    }
    const now = this.#clock.now();
    const valid: Record<string, RememberedLimit> = {};
    for (const [key, value] of Object.entries(limits)) {
      const entry = validEntry(value, now);
      if (entry) valid[key] = entry;
    }
    return valid;
  }

  /**
   * Merges `batch` into the file, as many times as it takes (at most {@link WRITE_ATTEMPTS}) until
   * the file holds it: other processes write the same file at once (each `pulumi up` of each
   * stack), and a rename replaces the whole file. Each attempt holds the lock file while it
   * re-reads, merges and renames, so no two merges interleave; then it reads the file back.
   */
  async #write(batch: Map<string, WindowLimit>): Promise<void> {
    const now = this.#clock.now();
    try {
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
    } catch (error) {
      this.#log(`${this.file}: not written (${describe(error)}); the next process learns the rate limit afresh`);
      return;
    }
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const lock = await takeLock(this.file, this.#log);
      try {
        if (!(await this.#merge(batch, now))) return;
      } finally {
        await lock?.release();
      }
      const written = await this.#read();
      if ([...batch].every(([key, limit]) => holds(written[key], limit, now))) return;
      // Another process replaced the file with a copy read before ours landed: merge again.
      await sleep(5 + Math.floor(Math.random() * 20));
    }
    this.#log(`${this.file}: still without this run's limit after ${WRITE_ATTEMPTS} writes; the next process may learn it afresh`);
  }

  /** One read, merge and rename; false when the file cannot be written at all (logged). */
  async #merge(batch: Map<string, WindowLimit>, now: number): Promise<boolean> {
    const entries = { ...(await this.#read()) };
    for (const [key, limit] of batch) {
      // A newer entry written by another process for the same workspace is kept.
      if (!((entries[key]?.savedAt ?? Number.NEGATIVE_INFINITY) > now)) entries[key] = { ...limit, savedAt: now };
    }
    const kept = Object.entries(entries)
      .sort(([, a], [, b]) => b.savedAt - a.savedAt)
      .slice(0, MAX_ENTRIES);
    const text = `${JSON.stringify({ version: VERSION, limits: Object.fromEntries(kept) }, null, 1)}\n`;
    const temp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fsp.writeFile(temp, text, { mode: 0o600 });
      await fsp.rename(temp, this.file);
      return true;
    } catch (error) {
      this.#log(`${this.file}: not written (${describe(error)}); the next process learns the rate limit afresh`);
      await fsp.rm(temp, { force: true }).catch(() => {});
      return false;
    }
  }
}

/** Whether an entry of the file is `limit` as saved at `now`, or newer than it. */
function holds(entry: RememberedLimit | undefined, limit: WindowLimit, now: number): boolean {
  if (entry === undefined) return false;
  return entry.savedAt > now || (entry.count === limit.count && entry.windowMs === limit.windowMs && entry.source === limit.source);
}

/** An entry of the file as the pacer can use it, or `undefined` if it is malformed or not of the last day. */
function validEntry(value: unknown, now: number): RememberedLimit | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { count, windowMs, source, savedAt } = value as Record<string, unknown>;
  if (typeof count !== "number" || typeof windowMs !== "number" || (source !== "429" && source !== "headers")) return undefined;
  if (!plausible({ count, windowMs, source })) return undefined;
  // Saved in the future means a clock that went back: not trusted either.
  if (typeof savedAt !== "number" || !(now - savedAt >= 0 && now - savedAt < REMEMBER_MS)) return undefined;
  return { count, windowMs, source, savedAt };
}

/**
 * Whether a limit is one the pacer could have learnt and worth pacing from: a whole count of at
 * least one; a window of a second for one learnt from 429s, of at most {@link MAX_REMEMBERED_WINDOW_MS} for
 * one the headers gave; and a pace of at least {@link MIN_REQUESTS_PER_SECOND}.
 */
function plausible({ count, windowMs, source }: WindowLimit): boolean {
  if (!Number.isInteger(count) || count < 1) return false;
  if (!Number.isFinite(windowMs) || windowMs <= 0 || windowMs > MAX_REMEMBERED_WINDOW_MS) return false;
  if (source === "429" && windowMs !== RATE_WINDOW_MS) return false;
  return count * 1000 >= MIN_REQUESTS_PER_SECOND * windowMs;
}

/** An error's code or message, for a debug line (file system errors name only the path). */
function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
