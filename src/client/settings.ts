import type { Clock } from "./clock";
import { ConfigurationError } from "./errors";

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
  /** First delay of exponential back-off, in milliseconds. Default 500. */
  retryBaseDelayMs?: number;
  /** Largest delay of exponential back-off, in milliseconds. Default 20000. */
  retryMaxDelayMs?: number;
  /** First interval between job polls, in milliseconds. Default 250. */
  jobPollIntervalMs?: number;
  /** Largest interval between job polls, in milliseconds. Default 5000. */
  jobPollMaxIntervalMs?: number;
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
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  jobPollIntervalMs: number;
  jobPollMaxIntervalMs: number;
}

/** The defaults, named once. The contract's "retry after five minutes" is the 300 s here. */
export const DEFAULTS = {
  maxRetries: 5,
  maxRateLimitWaitSeconds: 300,
  maxRateLimitRetries: 20,
  requestTimeoutSeconds: 60,
  jobTimeoutSeconds: 900,
  maxConcurrency: 16,
  retryBaseDelayMs: 500,
  retryMaxDelayMs: 20_000,
  jobPollIntervalMs: 250,
  jobPollMaxIntervalMs: 5_000,
} as const;

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
    throw new ConfigurationError(
      `${setting} is not a URL: expected something like https://acme.example.com/api/v1/`,
      setting,
    );
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
    throw new ConfigurationError(
      `${setting} must not contain credentials: set the API key separately`,
      setting,
    );
  }
  if (url.search || url.hash) {
    throw new ConfigurationError(`${setting} must not have a query or fragment`, setting);
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

function positive(name: keyof typeof DEFAULTS, value: number | undefined, min = 0): number {
  if (value === undefined) return DEFAULTS[name];
  if (!Number.isFinite(value) || value < min) {
    throw new ConfigurationError(`${name} must be a number of at least ${min}, got ${value}`, name);
  }
  return value;
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
  return {
    baseUrl: parseBaseUrl(options.baseUrl),
    apiKey: options.apiKey,
    maxRetries: positive("maxRetries", options.maxRetries),
    maxRateLimitWaitSeconds: positive("maxRateLimitWaitSeconds", options.maxRateLimitWaitSeconds),
    maxRateLimitRetries: positive("maxRateLimitRetries", options.maxRateLimitRetries),
    requestTimeoutSeconds: positive("requestTimeoutSeconds", options.requestTimeoutSeconds, 0.001),
    jobTimeoutSeconds: positive("jobTimeoutSeconds", options.jobTimeoutSeconds, 0.001),
    maxConcurrency: positive("maxConcurrency", options.maxConcurrency, 1),
    retryBaseDelayMs: positive("retryBaseDelayMs", options.retryBaseDelayMs),
    retryMaxDelayMs: positive("retryMaxDelayMs", options.retryMaxDelayMs),
    jobPollIntervalMs: positive("jobPollIntervalMs", options.jobPollIntervalMs, 1),
    jobPollMaxIntervalMs: positive("jobPollMaxIntervalMs", options.jobPollMaxIntervalMs, 1),
  };
}
