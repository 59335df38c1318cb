import type { Clock } from "./clock";
import { ConfigurationError } from "./errors";
import { cacheDirOf } from "./cache-dir";

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
   * (`rate-limits/`, a file per base URL, never the key, a day at most); `false` remembers nothing.
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
 * Every numeric option of the client, once: its default, its least value and whether it is whole.
 * The client's options and the provider's stack config (`workspace-access:*`, strings) are both
 * checked by {@link numberProblem} against this table, so they can never disagree on a bound. The
 * contract's "retry after five minutes" is the 300 s of `maxRateLimitWaitSeconds`. Knobs of the
 * provider alone (its read cache) are not here: they are the provider's settings, not the client's.
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
} as const;

/** A numeric option's name. */
export type NumericSetting = keyof typeof NUMERIC_SETTINGS;

/** How a number may be bounded: at least `min`, whole or not. */
export interface NumberSpec {
  readonly min: number;
  readonly whole: boolean;
}

/** The defaults, named once. */
export const DEFAULTS = Object.fromEntries(Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => [key, spec.default])) as {
  [K in NumericSetting]: (typeof NUMERIC_SETTINGS)[K]["default"];
};

/** What a value of `key` must be, for messages: `a whole number of at least 0`. */
export function numberRule(key: NumericSetting | NumberSpec): string {
  const { min, whole } = typeof key === "string" ? NUMERIC_SETTINGS[key] : key;
  return `${whole ? "a whole number" : "a number"} of at least ${min}`;
}

/**
 * One problem with one setting, as data: which setting (by its option name, `maxRetries`), what is
 * wrong, and the value seen. Whoever reads the setting from a place of its own (stack config,
 * environment, command-line flag) renders it in that place's words; the client renders it by option
 * name ({@link optionMessage}). The API key's value is never part of a problem.
 */
export type SettingProblem =
  /** Not set at all. */
  | { readonly kind: "missing"; readonly key: string }
  /** A number out of its bounds, or not a number: `seen` is the value as given. */
  | { readonly kind: "range"; readonly key: string; readonly spec: NumberSpec; readonly seen: string }
  /** Set, but not acceptable: `rule` completes "<name> <seen> …"; `seen` is the value as given, if it may be shown (never the API key). */
  | { readonly kind: "invalid"; readonly key: string; readonly rule: string; readonly seen?: string };

/** The problem of a numeric value, if any: `value` is what was given (a number, or text from config). */
export function numberProblem(key: string, spec: NumberSpec, value: unknown): SettingProblem | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  if (Number.isFinite(number) && number >= spec.min && (!spec.whole || Number.isInteger(number))) return undefined;
  return { kind: "range", key, spec, seen: String(value) };
}

/** The problem of an API key, if any. Its value is never part of the problem. */
export function apiKeyProblem(apiKey: unknown): SettingProblem | undefined {
  if (typeof apiKey !== "string" || apiKey.trim() === "") return { kind: "missing", key: "apiKey" };
  // Keys are opaque tokens: a space or line break is a copy-paste accident (and could not be sent).
  if (/[\s\p{Cc}]/u.test(apiKey)) {
    return { kind: "invalid", key: "apiKey", rule: "contains spaces or control characters: check how it was copied" };
  }
  if (apiKey.length < MIN_API_KEY_LENGTH) {
    return {
      kind: "invalid",
      key: "apiKey",
      rule: `is too short to be a workspace API key (fewer than ${MIN_API_KEY_LENGTH} characters): check how it was copied`,
    };
  }
  return undefined;
}

/** A problem in the words of the client's options: `maxRetries must be a whole number of at least 0, got -1`. */
export function optionMessage(problem: SettingProblem, name: string = problem.key): string {
  if (problem.kind === "missing") return `${name} is required and must not be empty`;
  if (problem.kind === "range") return `${name} must be ${numberRule(problem.spec)}, got ${problem.seen}`;
  return `${name}${problem.seen === undefined ? "" : ` "${problem.seen}"`} ${problem.rule}`;
}

/** The contract's wait after a 429 without `Retry-After`: five minutes. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "[::1]", "::1"]);

/** True for `localhost`, `127.0.0.0/8` and `::1`: the only hosts plain `http://` may name. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Parses and checks a base URL: `https://`, or `http://` on a loopback host (the emulator); no
 * credentials, query or fragment; always ending in `/` so relative paths resolve below it. A
 * problem comes back as data (`key` names the setting), never thrown.
 */
export function checkBaseUrl(raw: string, key = "baseUrl"): { url: URL } | { problem: SettingProblem } {
  const invalid = (rule: string, seen?: string): { problem: SettingProblem } => ({ problem: { kind: "invalid", key, rule, seen } });
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    // The value is not echoed: a secret pasted into the wrong setting must not reach a log.
    return invalid("is not a URL: expected something like https://acme.example.com/api/v1/");
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return invalid(
      "uses plain http://, which would send the API key unencrypted: use https:// (http:// is accepted only for loopback hosts such as the emulator)",
      url.origin,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return invalid(`must be an https:// URL, not ${url.protocol}//`);
  if (url.username || url.password) return invalid("must not contain credentials: set the API key separately");
  if (url.search || url.hash) return invalid("must not have a query or fragment");
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return { url };
}

/** {@link checkBaseUrl}, throwing a {@link ConfigurationError} that names `setting` (e.g. `--base-url`). */
export function parseBaseUrl(raw: string, setting = "baseUrl"): URL {
  const checked = checkBaseUrl(raw, setting);
  if ("problem" in checked) throw new ConfigurationError(optionMessage(checked.problem), setting);
  return checked.url;
}

/**
 * The shortest key accepted. Anything shorter is a copy-paste accident (`x`, `true`), and could not
 * be redacted from messages without mangling ordinary words.
 */
export const MIN_API_KEY_LENGTH = 8;

/** Every problem of the client's options, in the order of the options: none when they are usable. */
export function optionProblems(options: ClientOptions): SettingProblem[] {
  const problems: Array<SettingProblem | undefined> = [apiKeyProblem(options.apiKey)];
  const baseUrl = typeof options.baseUrl === "string" ? checkBaseUrl(options.baseUrl) : undefined;
  problems.push(baseUrl === undefined ? { kind: "missing", key: "baseUrl" } : "problem" in baseUrl ? baseUrl.problem : undefined);
  for (const [key, spec] of Object.entries(NUMERIC_SETTINGS)) problems.push(numberProblem(key, spec, options[key as NumericSetting]));
  return problems.filter((problem) => problem !== undefined);
}

/**
 * Applies defaults and validates every setting, naming the one at fault (`settingPrefix`, e.g.
 * `workspace-access:`, names the key as the user sets it).
 */
export function resolveSettings(options: ClientOptions & { settingPrefix?: string }): ResolvedSettings {
  const [problem] = optionProblems(options);
  if (problem) {
    const name = `${options.settingPrefix ?? ""}${problem.key}`;
    throw new ConfigurationError(optionMessage(problem, name), name);
  }
  const value = (key: NumericSetting): number => options[key] ?? DEFAULTS[key];
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
