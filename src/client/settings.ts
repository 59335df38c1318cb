import type { z as Z } from "zod";
import type { Clock } from "./clock";
import { ConfigurationError } from "./errors";
import { cacheDirOf } from "./rate-memory";

/** How the client talks to one workspace. Only `baseUrl` and `apiKey` are required. */
export interface ClientOptions {
  /** The workspace's API root, e.g. `https://acme.example.com/api/v1/`. */
  baseUrl: string;
  /** The workspace API key, sent as `X-API-Key`. Never logged, never part of an error. */
  apiKey: string;
  /** Retries of a transient failure (5xx, reset connection, timeout) per request. Default 5. */
  maxRetries?: number;
  /** The longest one wait on a 429 may last, in seconds. A longer wait fails at once. Default 300. */
  maxRateLimitWaitSeconds?: number;
  /** How many 429 answers one request may wait out before failing. Default 20. */
  maxRateLimitRetries?: number;
  /** Time allowed for each request's headers and body, in seconds. Default 60. */
  requestTimeoutSeconds?: number;
  /** How long to wait for a job to finish, in seconds. Default 900. */
  jobTimeoutSeconds?: number;
  /** The most requests in flight at once (keep-alive connections of the pool). Default 16. */
  maxConcurrency?: number;
  /**
   * The most requests the service may receive in any second, whatever the client has learnt of
   * its limit (the lower of the two holds). Default 0: no cap of its own.
   */
  maxRequestsPerSecond?: number;
  /** First delay of exponential back-off, in milliseconds. Default 500. */
  retryBaseDelayMs?: number;
  /** Largest delay of exponential back-off, in milliseconds. Default 20000. */
  retryMaxDelayMs?: number;
  /** First interval between job polls, in milliseconds. Default 250. */
  jobPollIntervalMs?: number;
  /** Largest interval between job polls, in milliseconds. Default 5000. */
  jobPollMaxIntervalMs?: number;
  /**
   * The folder where the rate limit learnt for a workspace is remembered for the next process
   * (`rate-limits.json`, per base URL, never the key, a day at most); `false` remembers nothing.
   * Default: the `WORKSPACE_ACCESS_CACHE_DIR` environment variable (empty or `off`: nothing), else
   * `pulumi-workspace-access` in the user's cache folder. See docs/rate-limits.md.
   */
  cacheDir?: string | false;
  /** Time source; tests inject a virtual one. */
  clock?: Clock;
  /** Random numbers in [0, 1) for back-off jitter; tests inject a fixed one. */
  random?: () => number;
  /** Receives debug lines (requests, retries, waits). The API key is never part of them. */
  logger?: (message: string) => void;
  /** Sent as `User-Agent`. */
  userAgent?: string;
}

/** {@link ClientOptions} with every default applied and the base URL checked. */
export interface ResolvedSettings {
  baseUrl: URL;
  apiKey: string;
  maxRetries: number;
  maxRateLimitWaitSeconds: number;
  maxRateLimitRetries: number;
  requestTimeoutSeconds: number;
  jobTimeoutSeconds: number;
  maxConcurrency: number;
  /** 0: no cap. */
  maxRequestsPerSecond: number;
  /** Where learnt rate limits are remembered; `undefined`: nowhere. */
  cacheDir: string | undefined;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  jobPollIntervalMs: number;
  jobPollMaxIntervalMs: number;
}

/**
 * Every numeric setting, once: its default, its least value and whether it is whole. The client's
 * options and the stack config (`workspace-access:*`, strings) are both checked against the one
 * schema built from this table ({@link numericSettingsSchema}), so they can never disagree on a bound.
 * The contract's "retry after five minutes" is the 300 s of `maxRateLimitWaitSeconds`.
 */
export const NUMERIC_SETTINGS = {
  maxRetries: { default: 5, min: 0, whole: true },
  maxRateLimitWaitSeconds: { default: 300, min: 0, whole: false },
  maxRateLimitRetries: { default: 20, min: 0, whole: true },
  requestTimeoutSeconds: { default: 60, min: 0.001, whole: false },
  jobTimeoutSeconds: { default: 900, min: 0.001, whole: false },
  maxConcurrency: { default: 16, min: 1, whole: true },
  /** 0: no cap; the limit learnt from the service (429s, `RateLimit-*` headers) still holds. */
  maxRequestsPerSecond: { default: 0, min: 0, whole: true },
  retryBaseDelayMs: { default: 500, min: 0, whole: false },
  retryMaxDelayMs: { default: 20_000, min: 0, whole: false },
  jobPollIntervalMs: { default: 250, min: 1, whole: false },
  jobPollMaxIntervalMs: { default: 5_000, min: 1, whole: false },
  /** The provider's own: how long reads may be served from one paged list, in seconds (0: never). */
  readCacheSeconds: { default: 5, min: 0, whole: false },
} as const;

/** A numeric setting's name. */
export type NumericSetting = keyof typeof NUMERIC_SETTINGS;

/** The defaults, named once. */
export const DEFAULTS = Object.fromEntries(Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => [key, spec.default])) as {
  [K in NumericSetting]: (typeof NUMERIC_SETTINGS)[K]["default"];
};

/** What a value of `key` must be, for messages: `a whole number of at least 0`. */
export function numberRule(key: NumericSetting): string {
  const { min, whole } = NUMERIC_SETTINGS[key];
  return `${whole ? "a whole number" : "a number"} of at least ${min}`;
}

let schema: Z.ZodObject | undefined;

/**
 * The one schema of the numeric settings (zod, built on first use): each optional, finite, at
 * least its minimum, whole where it must be (see {@link checkNumbers}).
 *
 * @internal
 */
export function numericSettingsSchema(): Z.ZodObject {
  if (!schema) {
    const { z } = require("zod") as typeof import("zod");
    const fields = Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => {
      let field = z.number().min(spec.min);
      if (spec.whole) field = field.int();
      return [key, field.optional()] as const;
    });
    schema = z.object(Object.fromEntries(fields));
  }
  return schema;
}

/** How {@link checkNumbers} words its error: the setting's name as the user sets it, and how to fix it. */
export interface NumberWords {
  name(key: NumericSetting): string;
  /** What was given, as the user wrote it. */
  got(key: NumericSetting): string;
  fix?(key: NumericSetting): string;
}

/**
 * Checks the numeric settings in `values` against the schema; throws a {@link ConfigurationError}
 * naming the first bad one, with what it must be, what it got and (with `fix`) how to fix it.
 */
export function checkNumbers(values: Partial<Record<NumericSetting, unknown>>, words: NumberWords): void {
  const result = numericSettingsSchema().safeParse(values);
  if (result.success) return;
  const key = result.error.issues[0]?.path[0] as NumericSetting;
  const fix = words.fix ? `. ${words.fix(key)}` : "";
  throw new ConfigurationError(`${words.name(key)} must be ${numberRule(key)}, got ${words.got(key)}${fix}`, words.name(key));
}

/** The contract's wait after a 429 without `Retry-After`: five minutes. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;

const LOOPBACK_HOSTS = new Set(["localhost", "[::1]", "::1"]);

/** True for `localhost`, `127.0.0.0/8` and `::1`: the only hosts plain `http://` may name. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Parses and checks a base URL: `https://`, or `http://` on a loopback host (the emulator); no
 * credentials, query or fragment; always ending in `/` so relative paths resolve below it.
 */
export function parseBaseUrl(raw: string, setting = "baseUrl"): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The value is not echoed: a secret pasted into the wrong setting must not reach a log.
    throw new ConfigurationError(`${setting} is not a URL: expected something like https://acme.example.com/api/v1/`, setting);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError(
      `${setting} "${url.origin}" uses plain http://, which would send the API key unencrypted: use https:// (http:// is accepted only for loopback hosts such as the emulator)`,
      setting,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigurationError(`${setting} must be an https:// URL, not ${url.protocol}//`, setting);
  }
  if (url.username || url.password) {
    throw new ConfigurationError(`${setting} must not contain credentials: set the API key separately`, setting);
  }
  if (url.search || url.hash) {
    throw new ConfigurationError(`${setting} must not have a query or fragment`, setting);
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

/**
 * The shortest key accepted. Anything shorter is a copy-paste accident (`x`, `true`), and could not
 * be redacted from messages without mangling ordinary words.
 */
export const MIN_API_KEY_LENGTH = 8;

/**
 * Applies defaults and validates every setting, naming the one at fault (`settingPrefix`, e.g.
 * `workspace-access:`, names the key as the user sets it).
 */
export function resolveSettings(options: ClientOptions & { settingPrefix?: string }): ResolvedSettings {
  const keySetting = `${options.settingPrefix ?? ""}apiKey`;
  if (typeof options.apiKey !== "string" || options.apiKey.trim() === "") {
    throw new ConfigurationError(`${keySetting} is required and must not be empty`, keySetting);
  }
  // Keys are opaque tokens: a space or line break is a copy-paste accident (and could not be sent).
  if (/[\s\p{Cc}]/u.test(options.apiKey)) {
    throw new ConfigurationError(`${keySetting} contains spaces or control characters: check how it was copied`, keySetting);
  }
  if (options.apiKey.length < MIN_API_KEY_LENGTH) {
    throw new ConfigurationError(
      `${keySetting} is too short to be a workspace API key (fewer than ${MIN_API_KEY_LENGTH} characters): check how it was copied`,
      keySetting,
    );
  }
  const numbers = Object.fromEntries(Object.keys(NUMERIC_SETTINGS).map((key) => [key, options[key as keyof ClientOptions]]));
  checkNumbers(numbers, { name: (key) => `${options.settingPrefix ?? ""}${key}`, got: (key) => String(numbers[key]) });
  const value = (key: Exclude<NumericSetting, "readCacheSeconds">): number => options[key] ?? DEFAULTS[key];
  return {
    baseUrl: parseBaseUrl(options.baseUrl),
    apiKey: options.apiKey,
    maxRetries: value("maxRetries"),
    maxRateLimitWaitSeconds: value("maxRateLimitWaitSeconds"),
    maxRateLimitRetries: value("maxRateLimitRetries"),
    requestTimeoutSeconds: value("requestTimeoutSeconds"),
    jobTimeoutSeconds: value("jobTimeoutSeconds"),
    maxConcurrency: value("maxConcurrency"),
    maxRequestsPerSecond: value("maxRequestsPerSecond"),
    cacheDir: cacheDirOf(options.cacheDir),
    retryBaseDelayMs: value("retryBaseDelayMs"),
    retryMaxDelayMs: value("retryMaxDelayMs"),
    jobPollIntervalMs: value("jobPollIntervalMs"),
    jobPollMaxIntervalMs: value("jobPollMaxIntervalMs"),
  };
}
