/** The client's options, their bounds and defaults, and what each accepts ({@link settingFields}, which the stack config's check uses too). */
import type { z as Z } from "zod";
import type { Clock } from "./clock";
import { ConfigurationError } from "./errors";
import { cacheDirOf } from "./cache-dir";
import { MIN_API_KEY_LENGTH, makeRedactor } from "./redact";

/** How the client talks to one workspace. Only `baseUrl` and `apiKey` are required; each number's default is in {@link NUMERIC_SETTINGS}. */
export interface ClientOptions extends Partial<Record<NumericSetting, number>> {
  /** The workspace's API root, e.g. `https://acme.example.com/api/v1/`. */
  baseUrl: string;
  /** The workspace API key, sent as `X-API-Key`. Never logged, never part of an error. */
  apiKey: string;
  /**
   * Where the rate limit learnt for a workspace is remembered for the next process (`false`: nowhere). Default:
   * `WORKSPACE_ACCESS_CACHE_DIR` (empty or `off`: nowhere), else the user's cache folder. See docs/rate-limits.md.
   */
  cacheDir?: string | false;
  /** Time source; tests inject a virtual one. */
  clock?: Clock;
  /** Random numbers in [0, 1) for back-off jitter; tests inject a fixed one. */
  random?: () => number;
  /** Receives debug lines (requests, retries, waits). The API key is never part of them. */
  logger?: (message: string) => void;
}

/**
 * A setting's name as the client's caller lets its user set it, for messages: `workspace-access:baseUrl` (a stack config
 * key), `--base-url` (a flag); `undefined` for a setting that user cannot set, which a message then leaves unnamed (and
 * does not advise raising). Default: the key itself. An error's `setting` stays the key where it is the client's finding.
 */
export type SettingName = (key: string) => string | undefined;

/**
 * The two settings a base URL was built from (`https://<workspace>.<host>/api/v1/`), named as its user sets them: messages
 * about the address name them, and the base URL's setting as the way to give it whole instead.
 */
export type AddressParts = { workspace: string; host: string };

/** `the address built from <workspace> and <host> as https://<workspace>.<host>/api/v1/`: an address built, named by its two settings. */
export const builtAddress = ({ workspace, host }: AddressParts): string =>
  `the address built from ${workspace} and ${host} as https://<workspace>.<host>/api/v1/`;

/** What to do about a wrong address built from two settings, neither a URL: both to check, or `whole` (its setting) to give it whole. */
export const builtAddressFix = (whole: string): string => `check both, or set ${whole} to the API root, should it not be of that form`;

/** {@link ClientOptions} checked once by whoever read them, defaults applied: the client does not check them again (`cacheDir` undefined: none). */
export type ResolvedSettings = { readonly resolved: true; baseUrl: URL; apiKey: string; cacheDir: string | undefined } & Record<
  NumericSetting,
  number
>;

/**
 * The longest time a setting may give, a day: in milliseconds, well under the 2^31 - 1 a timer takes (past it, Node fires the
 * timer after 1 ms: a wait of a month would be no wait at all).
 */
export const DAY_SECONDS = 86_400;
const DAY_MS = DAY_SECONDS * 1000;

/**
 * Every numeric option of the client, once: its default, its least value, its greatest for a time, and whether it is whole
 * (the provider's own knobs are not here).
 */
export const NUMERIC_SETTINGS = {
  /** Retries of a transient failure (5xx, reset connection, timeout) per request. */
  maxRetries: { default: 5, min: 0, whole: true },
  /** The longest one wait on a 429 may last, in seconds. A longer wait fails at once. */
  maxRateLimitWaitSeconds: { default: 300, min: 0, max: DAY_SECONDS, whole: false },
  /** How many 429 answers one request may wait out before failing. */
  maxRateLimitRetries: { default: 20, min: 0, whole: true },
  /** Time allowed for each request, from sending it to the last byte of its answer, in seconds. */
  requestTimeoutSeconds: { default: 60, min: 0.001, max: DAY_SECONDS, whole: false },
  /** How long to wait for a job to finish, in seconds. */
  jobTimeoutSeconds: { default: 900, min: 0.001, max: DAY_SECONDS, whole: false },
  /** The most requests in flight at once (keep-alive connections of the pool). */
  maxConcurrency: { default: 16, min: 1, whole: true },
  /** The most requests the service may receive in any second, beside the limit learnt from it (the lower holds); 0: no cap of its own. */
  maxRequestsPerSecond: { default: 0, min: 0, whole: true },
  /** First delay of exponential back-off, in milliseconds. */
  retryBaseDelayMs: { default: 500, min: 0, max: DAY_MS, whole: false },
  /** Largest delay of exponential back-off, in milliseconds. */
  retryMaxDelayMs: { default: 20_000, min: 0, max: DAY_MS, whole: false },
  /** First interval between job polls, in milliseconds, growing ×1.5 (a fresh client looks at 25 and 50 ms first, then goes on from ×1.5). */
  jobPollIntervalMs: { default: 250, min: 1, max: DAY_MS, whole: false },
  /** Largest interval between job polls, in milliseconds. */
  jobPollMaxIntervalMs: { default: 5_000, min: 1, max: DAY_MS, whole: false },
} as const;

/** A numeric option's name. */
export type NumericSetting = keyof typeof NUMERIC_SETTINGS;

/** How a number may be bounded: at least `min`, at most `max` (when given), whole or not. */
export type NumberSpec = { readonly min: number; readonly max?: number; readonly whole: boolean };

/** What a value of `key` must be, for messages: `a whole number of at least 0`, `a number of at least 0 and at most 86400 (a day)`. */
export function numberRule(key: NumericSetting | NumberSpec): string {
  const { min, max, whole }: NumberSpec = typeof key === "string" ? NUMERIC_SETTINGS[key] : key;
  const most = max === undefined ? "" : ` and at most ${max}${max === DAY_SECONDS || max === DAY_MS ? " (a day)" : ""}`;
  return `${whole ? "a whole number" : "a number"} of at least ${min}${most}`;
}

/** The contract's wait after a 429 without `Retry-After`: five minutes. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;

/** True for `localhost`, `127.0.0.0/8` and `::1`: the only hosts plain `http://` may name. */
const isLoopbackHost = (hostname: string) => ["localhost", "[::1]", "::1"].includes(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * A setting's value refused: `rule` completes "<setting> …"; `seen` is the value when it may be shown ({@link shown}): a number
 * for a number, an http:// URL's origin for the base URL; never the key, nor a value of another shape (a key pasted there).
 */
export type ValueProblem =
  | { readonly kind: "missing"; readonly key: string }
  | { readonly kind: "range"; readonly key: string; readonly spec: NumberSpec; readonly seen?: string }
  | { readonly kind: "invalid"; readonly key: string; readonly rule: string; readonly seen?: string };

/** Said in place of a refused value not shown. */
export const NOT_SHOWN = "the value set is not shown, as it may be a secret";

/** A number as text (sign, digits, point, exponent): the one shape a refused number is shown in. */
const NUMBER_SHAPE = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/** Each setting as zod: numbers coerced and bounded, the key, the base URL refined to end in `/`; an issue's params: `missing`, `seen`. @internal */
export function settingFields(z: typeof Z): SettingFields {
  fieldsBuilt ??= buildFields(z);
  return fieldsBuilt;
}

/** The zod fields of the settings: built once (zod's schemas are costly to build, and every settings check asks). */
type SettingFields = ReturnType<typeof buildFields>;
let fieldsBuilt: SettingFields | undefined;

function buildFields(z: typeof Z) {
  const issue = (ctx: Z.core.$RefinementCtx, message: string, params: { missing?: true; seen?: string } = {}) =>
    ctx.addIssue({ code: "custom", message, params });
  const number = (spec: NumberSpec) =>
    // Text from the stack config is coerced; blank text is no number (Number("") would be 0).
    z.preprocess(
      (value) => (typeof value === "string" && value.trim() === "" ? Number.NaN : value),
      (spec.whole ? z.coerce.number().int() : z.coerce.number()).min(spec.min).max(spec.max ?? Number.POSITIVE_INFINITY),
    );
  const numbers = Object.fromEntries(Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => [key, number(spec).optional()]));
  const required = (value: unknown, ctx: Z.core.$RefinementCtx): value is string => {
    if (typeof value === "string") return true;
    issue(ctx, "is required and must not be empty", { missing: true });
    return false;
  };
  const apiKey = z.unknown().transform((value, ctx) => {
    if (!required(typeof value === "string" && value.trim() === "" ? undefined : value, ctx)) return z.NEVER;
    const key = value as string;
    // Keys are opaque tokens: a space or line break is a copy-paste accident (and could not be sent).
    if (/[\s\p{Cc}]/u.test(key)) issue(ctx, "contains spaces or control characters: check how it was copied");
    // A header carries Latin-1 at most: the key could not be sent.
    else if ([...key].some((c) => c.codePointAt(0)! > 0xff))
      issue(ctx, "contains characters a header cannot carry: check how it was copied");
    else if (key.length < MIN_API_KEY_LENGTH) {
      issue(ctx, `is too short to be a workspace API key (fewer than ${MIN_API_KEY_LENGTH} characters): check how it was copied`);
    }
    return key;
  });
  const baseUrl = z.unknown().transform((value, ctx) => {
    if (!required(value, ctx)) return z.NEVER;
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      // The value is not echoed: a secret pasted into the wrong setting must not reach a log.
      issue(ctx, "is not a URL: expected something like https://acme.example.com/api/v1/");
      return z.NEVER;
    }
    const plain =
      "uses plain http://, which would send the API key unencrypted: use https:// (http:// is accepted only for loopback hosts such as the emulator)";
    if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) issue(ctx, plain, { seen: url.origin });
    // The scheme is not echoed: a key of the form `id:secret` reads as a URL whose scheme is the id.
    else if (url.protocol !== "https:" && url.protocol !== "http:") {
      issue(ctx, "must be an https:// URL: expected something like https://acme.example.com/api/v1/");
    } else if (url.username || url.password) issue(ctx, "must not contain credentials: set the API key separately");
    else if (url.search || url.hash) issue(ctx, "must not have a query or fragment");
    if (!url.pathname.endsWith("/")) url.pathname += "/";
    return url;
  });
  return { apiKey, baseUrl, numbers, number };
}

/** zod, loaded when settings are first checked. @internal */
export const zod = (): typeof Z => (require("zod") as typeof import("zod")).z;

/** The problems of a failed parse of `input`, one per setting; a number's from its bounds in `specs`, not zod's words. @internal */
export function problemsOf(
  error: Z.ZodError,
  input: unknown,
  specs: Readonly<Record<string, NumberSpec>> = NUMERIC_SETTINGS,
): ValueProblem[] {
  const problems = new Map<string, ValueProblem>();
  const values = input as Record<string, unknown> | undefined;
  const show = shown(values?.apiKey);
  for (const issue of error.issues) {
    const key = String(issue.path[0] ?? "");
    if (problems.has(key)) continue;
    const { missing, seen } = (issue as { params?: { missing?: true; seen?: string } }).params ?? {};
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    const number = String(values?.[key]);
    if (spec) problems.set(key, { kind: "range", key, spec, ...(NUMBER_SHAPE.test(number) && show(number) && { seen: number }) });
    else if (missing) problems.set(key, { kind: "missing", key });
    else problems.set(key, { kind: "invalid", key, rule: issue.message, ...(seen !== undefined && show(seen) && { seen }) });
  }
  return [...problems.values()];
}

/** Whether a refused value may be shown beside `apiKey`: not when it holds 8 characters of it in a row (redaction's rule). */
function shown(apiKey: unknown): (value: string) => boolean {
  if (typeof apiKey !== "string") return () => true;
  // A key too short to be sent is not redacted (`makeRedactor`): every value is shown beside it.
  const redact = makeRedactor(apiKey.trim());
  return (value) => redact(value) === value;
}

/** What is wrong with a refused value, completing "<its setting's name> …": `"http://a.example" uses plain http://, …`. */
export function refusal(problem: ValueProblem): string {
  if (problem.kind === "missing") return "is required and must not be empty";
  if (problem.kind === "range") {
    return `must be ${numberRule(problem.spec)}${problem.seen === undefined ? ` (${NOT_SHOWN})` : `, got ${problem.seen}`}`;
  }
  return `${problem.seen === undefined ? "" : `${JSON.stringify(problem.seen)} `}${problem.rule}`;
}

/** `input` parsed by `schema`, or its first problem. */
function parse<S extends Z.ZodType>(schema: S, input: unknown): { data: Z.output<S> } | { problem: ValueProblem } {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { data: parsed.data };
  return { problem: problemsOf(parsed.error, input)[0] ?? { kind: "invalid", key: "", rule: "is not valid" } };
}

/** `input` parsed, or a {@link ConfigurationError} for its first problem: `maxRetries must be a whole number of at least 0, got -1`. */
function check<S extends Z.ZodType>(schema: S, input: unknown, name: (key: string) => string): Z.output<S> {
  const parsed = parse(schema, input);
  if ("data" in parsed) return parsed.data;
  const at = name(parsed.problem.key);
  throw new ConfigurationError(`${at} ${refusal(parsed.problem)}`, at);
}

/**
 * A base URL checked, as data: the URL in its one form (a trailing `/`, the host in lower case), or what is wrong with it
 * (worded by {@link refusal}), for a caller that names the setting its own way (a field of a file). @internal
 */
export function readBaseUrl(raw: string): { url: URL } | { problem: ValueProblem } {
  const parsed = parse(settingFields(zod()).baseUrl, raw);
  return "data" in parsed ? { url: parsed.data } : parsed;
}

/** Parses and checks a base URL, throwing a {@link ConfigurationError} that names `setting` (e.g. `--base-url`). */
export function parseBaseUrl(raw: string, setting = "baseUrl"): URL {
  return check(settingFields(zod()).baseUrl, raw, () => setting);
}

/** Every default applied to checked values. */
export function completeSettings(
  checked: { baseUrl: URL; apiKey: string; cacheDir?: string | false } & Partial<Record<NumericSetting, number>>,
): ResolvedSettings {
  const { baseUrl, apiKey, cacheDir } = checked;
  const entries = Object.entries(NUMERIC_SETTINGS).map(([key, spec]) => [key, checked[key as NumericSetting] ?? spec.default]);
  const numbers = Object.fromEntries(entries) as Record<NumericSetting, number>;
  return { resolved: true, ...numbers, baseUrl, apiKey, cacheDir: cacheDirOf(cacheDir) };
}

/** The settings the client runs on: resolved ones as they are, options checked (a {@link ConfigurationError} names the first at fault). */
export function resolveSettings(options: (ClientOptions | ResolvedSettings) & { settingName?: SettingName }): ResolvedSettings {
  if ("resolved" in options && options.resolved === true) return options;
  const z = zod();
  const fields = settingFields(z);
  const schema = z.object({ apiKey: fields.apiKey, baseUrl: fields.baseUrl, ...fields.numbers });
  // Options given here are the caller's to set: each named, by the key when the caller has no other name for it.
  const name = options.settingName ?? ((key) => key);
  const checked = check(schema, options, (key) => name(key) ?? key);
  return completeSettings({ ...checked, cacheDir: (options as ClientOptions).cacheDir });
}
