/**
 * The client's settings: its options, their bounds and defaults, and the one definition of what
 * each setting accepts ({@link settingFields}, zod schemas whose messages are the rules). The
 * provider's stack config is checked with the same fields (`src/shared/settings.ts`) and hands the
 * client settings already resolved ({@link ResolvedSettings}), which the client does not check again.
 */
import type { z as Z } from "zod";
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

/**
 * {@link ClientOptions} checked, with every default applied: what the client runs on. `resolved`
 * marks settings checked once by whoever read them (the provider's stack config), so the client
 * does not check them again.
 */
export interface ResolvedSettings {
  readonly resolved: true;
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
 * checked by the field this table gives ({@link settingFields}), so they can never disagree on a bound. The
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

/** The contract's wait after a 429 without `Retry-After`: five minutes. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;

/**
 * The shortest key accepted. Anything shorter is a copy-paste accident (`x`, `true`), and could not
 * be redacted from messages without mangling ordinary words.
 */
export const MIN_API_KEY_LENGTH = 8;

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "[::1]", "::1"]);

/** True for `localhost`, `127.0.0.0/8` and `::1`: the only hosts plain `http://` may name. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * What a failed field says besides its message (the rule): `missing` when nothing usable was
 * given, and the value seen when it may be shown (never the API key's, nor a string that is not a URL).
 */
export interface IssueParams {
  missing?: true;
  seen?: string;
}

/** One setting's issue, worded by whoever reads it: the setting, the rule it breaks, and for a number its bounds. */
export interface SettingIssue extends IssueParams {
  key: string;
  rule: string;
  spec?: NumberSpec;
}

/** The rule a base URL breaks, with the part of it that may be shown; `undefined` when it is usable. */
function baseUrlRule(url: URL): { rule: string; seen?: string } | undefined {
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    const rule =
      "uses plain http://, which would send the API key unencrypted: use https:// (http:// is accepted only for loopback hosts such as the emulator)";
    return { rule, seen: url.origin };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { rule: `must be an https:// URL, not ${url.protocol}//` };
  if (url.username || url.password) return { rule: "must not contain credentials: set the API key separately" };
  if (url.search || url.hash) return { rule: "must not have a query or fragment" };
  return undefined;
}

/**
 * What each setting accepts, once, as zod schemas built from zod's namespace (loaded when settings
 * are first checked, not when a program imports the package): numbers coerced from text and
 * bounded by {@link NUMERIC_SETTINGS}, the API key, and the base URL refined (`https://`, or
 * `http://` on a loopback host; no credentials, query or fragment; always ending in `/` so relative
 * paths resolve below it). An issue's message is the rule, completing "<setting> …". @internal
 */
export function settingFields(z: typeof Z) {
  const issue = (ctx: Z.core.$RefinementCtx, message: string, params: IssueParams = {}) =>
    ctx.addIssue({ code: "custom", message, params });
  const number = (spec: NumberSpec) =>
    // Text from the stack config is coerced; blank text is no number (Number("") would be 0).
    z.preprocess(
      (value) => (typeof value === "string" && value.trim() === "" ? Number.NaN : value),
      (spec.whole ? z.coerce.number().int() : z.coerce.number()).min(spec.min),
    );
  const numbers = Object.fromEntries(Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => [key, number(spec).optional()])) as {
    [K in NumericSetting]: Z.ZodOptional<ReturnType<typeof number>>;
  };
  const apiKey = z.unknown().transform((value, ctx) => {
    if (typeof value !== "string" || value.trim() === "") {
      issue(ctx, "is required and must not be empty", { missing: true });
      return z.NEVER;
    }
    // Keys are opaque tokens: a space or line break is a copy-paste accident (and could not be sent).
    if (/[\s\p{Cc}]/u.test(value)) issue(ctx, "contains spaces or control characters: check how it was copied");
    else if (value.length < MIN_API_KEY_LENGTH) {
      issue(ctx, `is too short to be a workspace API key (fewer than ${MIN_API_KEY_LENGTH} characters): check how it was copied`);
    }
    return value;
  });
  const baseUrl = z.unknown().transform((value, ctx) => {
    if (typeof value !== "string") {
      issue(ctx, "is required and must not be empty", { missing: true });
      return z.NEVER;
    }
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      // The value is not echoed: a secret pasted into the wrong setting must not reach a log.
      issue(ctx, "is not a URL: expected something like https://acme.example.com/api/v1/");
      return z.NEVER;
    }
    const broken = baseUrlRule(url);
    if (broken) issue(ctx, broken.rule, broken.seen === undefined ? {} : { seen: broken.seen });
    if (!url.pathname.endsWith("/")) url.pathname += "/";
    return url;
  });
  return { apiKey, baseUrl, numbers, number };
}

/** zod, loaded when settings are first checked. @internal */
export const zod = (): typeof Z => (require("zod") as typeof import("zod")).z;

/**
 * The issues of a failed parse of `input`, one per setting (by its top-level key): the rule and the
 * value seen if it may be shown. A number's rule comes from its bounds in `specs`: zod's own
 * message for it ("Too small: expected number to be >=0") is not the setting's. @internal
 */
export function settingIssues(
  error: Z.ZodError,
  input: unknown,
  specs: Readonly<Record<string, NumberSpec>> = NUMERIC_SETTINGS,
): SettingIssue[] {
  const seen = new Set<string>();
  const issues: SettingIssue[] = [];
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "");
    if (seen.has(key)) continue;
    seen.add(key);
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (spec) {
      const value = (input as Record<string, unknown> | undefined)?.[key];
      issues.push({ key, rule: `must be ${numberRule(spec)}`, spec, seen: String(value) });
    } else issues.push({ key, rule: issue.message, ...((issue as { params?: IssueParams }).params ?? {}) });
  }
  return issues;
}

/** A setting's issue in the words of the client's options: `maxRetries must be a whole number of at least 0, got -1`. */
function optionError(name: string, issue: SettingIssue): ConfigurationError {
  if (issue.spec) return new ConfigurationError(`${name} ${issue.rule}, got ${issue.seen}`, name);
  return new ConfigurationError(`${name}${issue.seen === undefined ? "" : ` ${JSON.stringify(issue.seen)}`} ${issue.rule}`, name);
}

/** Parses and checks a base URL, throwing a {@link ConfigurationError} that names `setting` (e.g. `--base-url`). */
export function parseBaseUrl(raw: string, setting = "baseUrl"): URL {
  const parsed = settingFields(zod()).baseUrl.safeParse(raw);
  if (!parsed.success) throw optionError(setting, { ...(settingIssues(parsed.error, raw)[0] ?? { rule: "is not valid" }), key: setting });
  return parsed.data;
}

/** Every default applied to checked values. */
export function completeSettings(
  checked: { baseUrl: URL; apiKey: string; cacheDir?: string | false } & Partial<Record<NumericSetting, number>>,
): ResolvedSettings {
  const numbers = Object.fromEntries(
    (Object.keys(NUMERIC_SETTINGS) as NumericSetting[]).map((key) => [key, checked[key] ?? DEFAULTS[key]]),
  ) as Record<NumericSetting, number>;
  return { resolved: true, ...numbers, baseUrl: checked.baseUrl, apiKey: checked.apiKey, cacheDir: cacheDirOf(checked.cacheDir) };
}

/**
 * The settings the client runs on: resolved ones as they are; options checked by {@link settingFields}
 * (a {@link ConfigurationError} names the first at fault, after `settingPrefix`), with defaults applied.
 */
export function resolveSettings(options: (ClientOptions | ResolvedSettings) & { settingPrefix?: string }): ResolvedSettings {
  if ("resolved" in options && options.resolved === true) return options;
  const z = zod();
  const fields = settingFields(z);
  const parsed = z.object({ apiKey: fields.apiKey, baseUrl: fields.baseUrl, ...fields.numbers }).safeParse(options);
  if (!parsed.success) {
    const [issue = { key: "", rule: "is not valid" }] = settingIssues(parsed.error, options);
    throw optionError(`${options.settingPrefix ?? ""}${issue.key}`, issue);
  }
  return completeSettings({ ...parsed.data, cacheDir: (options as ClientOptions).cacheDir });
}
