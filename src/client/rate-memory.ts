/**
 * Rate limits remembered between processes: each `pulumi up` runs a new provider process that would otherwise pay again, in 429s of
 * up to five minutes, for what the run before learnt. A workspace's limit (never the key) is kept a day in a JSON file of its own,
 * replaced whole by a rename (no lock). A hint: a file missing, corrupt, unwritable or not regular is ignored, with a debug line.
 */
import { createHash } from "node:crypto";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { readCacheFile, replaceCacheFile } from "./cache-file";
import type { Clock } from "./clock";
import { RATE_WINDOW_MS, type WindowLimit } from "./pacer";

/** The folder of remembered limits in the cache folder: a file per workspace in it. */
export const RATE_LIMITS_DIR = "rate-limits";
/** How long a remembered limit is trusted: a day, then it is learnt afresh. */
export const REMEMBER_MS = 24 * 60 * 60 * 1000;
/**
 * How long a limit learnt from one round of 429s, not yet confirmed, is trusted: ten minutes. It may be the share another
 * client of the key left in that window; remembered for a day, it would pace every run of the day below the service's limit.
 */
export const UNCONFIRMED_MS = 10 * 60 * 1000;
/** The longest window remembered: five minutes, the longest `Retry-After` of the service; a longer one the headers gave is learnt again. */
export const MAX_REMEMBERED_WINDOW_MS = 5 * 60 * 1000;
/** The slowest pace remembered, in requests per second (the slowest a 429 can teach): a planted file cannot pace a run to a crawl. */
export const MIN_REQUESTS_PER_SECOND = 1;
/** Workspaces kept at most, the most recently saved: emulators on ever new ports must not grow the folder. */
const MAX_ENTRIES = 64;
/** A file larger than this is not ours (or is broken): ignored rather than parsed. */
const MAX_FILE_BYTES = 4 * 1024;
/** The files' format; another version is ignored (and replaced at the next write). */
const VERSION = 2;
/** A temporary file older than this was left by a process that died between its write and its rename. */
const ORPHAN_TEMP_MS = 60_000;

/** The entry's key for a base URL: its origin and path (the base URL never holds credentials, a query or a fragment). */
export function memoryKey(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname}`;
}

/** The file of one workspace's limit in the folder: named by a hash of its key (a URL is no file name). */
export function entryFileName(key: string): string {
  return `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`;
}

/** The remembered limits in one folder, a file per workspace, written one at a time (a limit changed meanwhile: its latest value, once). */
export class RateLimitMemory {
  readonly dir: string;
  readonly #clock: Clock;
  readonly #log: (message: string) => void;
  /** The next entry to write, by key. */
  readonly #next = new Map<string, WindowLimit>();
  #writing: Promise<void> | undefined;

  constructor(cacheDir: string, clock: Clock, log: (message: string) => void = () => {}) {
    this.dir = path.join(cacheDir, RATE_LIMITS_DIR);
    this.#clock = clock;
    this.#log = log;
  }

  /** The limit remembered for `key` if it is valid and less than a day old, else `undefined`. Never throws. */
  async recall(key: string): Promise<WindowLimit | undefined> {
    const entry = await this.#read(path.join(this.dir, entryFileName(key)), key);
    return entry && { count: entry.count, windowMs: entry.windowMs, source: entry.source, ...confirmation(entry) };
  }

  /** Saves `limit` for `key` in the background (see {@link flush}). Never throws. */
  remember(key: string, limit: WindowLimit): void {
    if (!plausible(limit)) return;
    this.#next.set(key, { count: limit.count, windowMs: limit.windowMs, source: limit.source, ...confirmation(limit) });
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
        for (const [key, limit] of batch) if (!(await this.#write(key, limit))) break;
        await this.#prune();
      }
    } finally {
      // In the same turn as the last check of `#next`: a limit given after it starts a new drain.
      this.#writing = undefined;
    }
  }

  /** The valid, unexpired entry of one file (of `key`, when given; `savedAt` by the client's clock); `undefined` for a missing or broken one. */
  async #read(file: string, key?: string): Promise<(WindowLimit & { savedAt: number; key: string }) | undefined> {
    const read = await readCacheFile(file, MAX_FILE_BYTES);
    // No file yet is the usual case, not worth a line.
    if ("missing" in read) return undefined;
    if ("skipped" in read) {
      this.#log(`${file}: not read (${read.skipped}); rate limits are learnt afresh`);
      return undefined;
    }
    const { text } = read;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      this.#log(`${file}: not JSON; ignored, and replaced at the next rate limit learnt`);
      return undefined;
    }
    const { version, baseUrl, count, windowMs, source, confirmed, savedAt } = (parsed ?? {}) as Record<string, unknown>;
    if (version !== VERSION || typeof baseUrl !== "string" || (key !== undefined && baseUrl !== key)) {
      this.#log(`${file}: not a remembered rate limit (version ${VERSION}) of this workspace; ignored`);
      return undefined;
    }
    // A malformed entry, or one not of the last day, is not used (saved in the future: a clock that went back).
    // A 429-learnt limit that does not say it was confirmed (an older file's too) is trusted for ten minutes, not a day.
    const limit = { count, windowMs, source, ...(source === "429" && confirmed === true && { confirmed }) } as WindowLimit;
    const age = this.#clock.now() - (savedAt as number);
    if ((source !== "429" && source !== "headers") || !plausible(limit) || typeof savedAt !== "number") return undefined;
    const trusted = source === "429" && !limit.confirmed ? UNCONFIRMED_MS : REMEMBER_MS;
    return age >= 0 && age < trusted ? { ...limit, savedAt, key: baseUrl } : undefined;
  }

  /** Replaces the workspace's file by a complete one; false when the folder cannot be written at all (logged). */
  async #write(key: string, limit: WindowLimit): Promise<boolean> {
    const file = path.join(this.dir, entryFileName(key));
    const now = this.#clock.now();
    // A newer limit another process saved is kept (a hint: one landing between this look and the rename is replaced by ours, also recent).
    if (((await this.#read(file, key))?.savedAt ?? Number.NEGATIVE_INFINITY) > now) return true;
    const text = `${JSON.stringify({ version: VERSION, baseUrl: key, ...limit, savedAt: now })}\n`;
    const failed = await replaceCacheFile(this.dir, file, text);
    if (failed !== undefined) this.#log(`${file}: not written (${failed}); the next process learns the rate limit afresh`);
    return failed === undefined;
  }

  /** Keeps the folder small: removes files expired or not ours, those beyond the {@link MAX_ENTRIES} most recent, and temporaries a dead process left. */
  async #prune(): Promise<void> {
    const names = await fsp.readdir(this.dir).catch(() => undefined);
    if (!names) return;
    const entries: Array<{ file: string; savedAt: number }> = [];
    const doomed: string[] = [];
    for (const name of names) {
      const file = path.join(this.dir, name);
      if (name.endsWith(".tmp")) {
        const mtime = (await fsp.lstat(file).catch(() => undefined))?.mtimeMs;
        if (mtime !== undefined && Date.now() - mtime > ORPHAN_TEMP_MS) await fsp.rm(file, { force: true }).catch(() => {});
      } else if (name.endsWith(".json")) {
        const entry = await this.#read(file);
        if (entry && entryFileName(entry.key) === name) entries.push({ file, savedAt: entry.savedAt });
        else if ((await fsp.lstat(file).catch(() => undefined))?.isFile()) doomed.push(file);
      }
    }
    entries.sort((a, b) => b.savedAt - a.savedAt);
    doomed.push(...entries.slice(MAX_ENTRIES).map((entry) => entry.file));
    const keepFrom = entries[MAX_ENTRIES - 1]?.savedAt ?? Number.NEGATIVE_INFINITY;
    for (const file of doomed) await this.#remove(file, keepFrom);
  }

  /** Removes a file judged stale: moved aside first, and put back if it is an entry another process saved after `keepFrom`. */
  async #remove(file: string, keepFrom: number): Promise<void> {
    const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fsp.rename(file, aside);
    } catch {
      return;
    }
    const moved = await this.#read(aside);
    // `link` fails when a newer file took the name meanwhile: that one is kept.
    if (moved && moved.savedAt > keepFrom && entryFileName(moved.key) === path.basename(file)) await fsp.link(aside, file).catch(() => {});
    await fsp.rm(aside, { force: true }).catch(() => {});
  }
}

/** Whether the pacer could have learnt a limit: a whole count, a second's window from 429s (at most five minutes from headers), a pace of 1/s or more. */
function plausible({ count, windowMs, source }: WindowLimit): boolean {
  if (!Number.isInteger(count) || count < 1) return false;
  if (!Number.isFinite(windowMs) || windowMs <= 0 || windowMs > MAX_REMEMBERED_WINDOW_MS) return false;
  if (source === "429" && windowMs !== RATE_WINDOW_MS) return false;
  return count * 1000 >= MIN_REQUESTS_PER_SECOND * windowMs;
}

/** `confirmed` of a limit learnt from 429s and confirmed; nothing for any other. */
function confirmation(limit: WindowLimit): { confirmed?: true } {
  return limit.source === "429" && limit.confirmed === true ? { confirmed: true } : {};
}
