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
import * as os from "node:os";
import * as path from "node:path";
import type { Clock } from "./clock";
import { RATE_WINDOW_MS, type WindowLimit } from "./pacer";

/** Where the remembered limits go: a folder, or `off` (or empty) for nowhere. */
export const CACHE_DIR_ENV = "WORKSPACE_ACCESS_CACHE_DIR";
/** The package's folder in the user's cache folder. */
export const CACHE_FOLDER = "pulumi-workspace-access";
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
export const MAX_WINDOW_MS = 5 * 60 * 1000;
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

/** One remembered limit: the pacer's, and when it was saved (epoch ms, by the client's clock). */
export interface RememberedLimit extends WindowLimit {
  savedAt: number;
}

/**
 * The folder of the remembered limits for the client option `cacheDir`: `false` or `""` is none;
 * a path is that folder; unset, {@link defaultCacheDir}.
 */
export function cacheDirOf(option: string | false | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (option === false || option === "") return undefined;
  return option === undefined ? defaultCacheDir(env) : path.resolve(option);
}

/**
 * The platform's user cache folder with {@link CACHE_FOLDER} in it, unless
 * `WORKSPACE_ACCESS_CACHE_DIR` says otherwise (a folder, used as is; empty, `off`, `false`, `0` or
 * `none`: nowhere): `$XDG_CACHE_HOME` or `~/.cache` on Linux and other Unixes, `~/Library/Caches`
 * on macOS, `%LOCALAPPDATA%` on Windows. `undefined` when there is no home folder to put it in.
 */
export function defaultCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string | undefined = homeDir(),
): string | undefined {
  const override = env[CACHE_DIR_ENV];
  if (override !== undefined) {
    const value = override.trim();
    return value === "" || /^(off|false|0|none)$/i.test(value) ? undefined : path.resolve(value);
  }
  // Relative values of these variables are invalid by their own specifications.
  const absolute = (value: string | undefined) => (value && path.isAbsolute(value) ? value : undefined);
  if (platform === "win32") {
    const base = absolute(env["LOCALAPPDATA"]) ?? (home ? path.join(home, "AppData", "Local") : undefined);
    return base && path.join(base, CACHE_FOLDER);
  }
  if (platform === "darwin") return home ? path.join(home, "Library", "Caches", CACHE_FOLDER) : undefined;
  const base = absolute(env["XDG_CACHE_HOME"]) ?? (home ? path.join(home, ".cache") : undefined);
  return base && path.join(base, CACHE_FOLDER);
}

/** The user's home folder; `undefined` (or empty) when there is none. */
function homeDir(): string | undefined {
  try {
    return os.homedir() || undefined;
  } catch {
    return undefined;
  }
}

/** The entry's key for a base URL: its origin and path (the base URL never holds credentials, a query or a fragment). */
export function memoryKey(baseUrl: URL): string {
  return `${baseUrl.origin}${baseUrl.pathname}`;
}

/**
 * The file of remembered limits in one folder. Reads and writes whole files: a write reads the
 * file afresh, puts its entry in, drops what expired, and replaces the file by renaming a
 * complete temporary one over it, so a reader never sees half a file and several processes
 * writing at once lose nothing worse than one another's latest entry (the last writer wins).
 * Writes are queued one at a time, and a limit changed while one is under way is written once
 * after it, with the latest value only.
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

  async #write(batch: Map<string, WindowLimit>): Promise<void> {
    const now = this.#clock.now();
    const entries = { ...(await this.#read()) };
    for (const [key, limit] of batch) entries[key] = { ...limit, savedAt: now };
    const kept = Object.entries(entries)
      .sort(([, a], [, b]) => b.savedAt - a.savedAt)
      .slice(0, MAX_ENTRIES);
    const text = `${JSON.stringify({ version: VERSION, limits: Object.fromEntries(kept) }, null, 1)}\n`;
    const temp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await fsp.mkdir(path.dirname(this.file), { recursive: true });
      await fsp.writeFile(temp, text, { mode: 0o600 });
      await fsp.rename(temp, this.file);
    } catch (error) {
      this.#log(`${this.file}: not written (${describe(error)}); the next process learns the rate limit afresh`);
      await fsp.rm(temp, { force: true }).catch(() => {});
    }
  }
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
 * least one; a window of a second for one learnt from 429s, of at most {@link MAX_WINDOW_MS} for
 * one the headers gave; and a pace of at least {@link MIN_REQUESTS_PER_SECOND}.
 */
function plausible({ count, windowMs, source }: WindowLimit): boolean {
  if (!Number.isInteger(count) || count < 1) return false;
  if (!Number.isFinite(windowMs) || windowMs <= 0 || windowMs > MAX_WINDOW_MS) return false;
  if (source === "429" && windowMs !== RATE_WINDOW_MS) return false;
  return count * 1000 >= MIN_REQUESTS_PER_SECOND * windowMs;
}

/** An error's code or message, for a debug line (file system errors name only the path). */
function describe(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
