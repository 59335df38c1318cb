/**
 * Stack-per-workspace settings: the `workspace-access:*` stack config keys, with environment
 * variables as fallback. Read at run time, in whichever process needs them (the provider host
 * through `configure`, the program for `getJob`); never captured into `__provider`.
 */
import { type ClientOptions, ConfigurationError, parseBaseUrl } from "../client";
import { checkNumbers, DEFAULTS, NUMERIC_SETTINGS, type NumericSetting, resolveSettings } from "../client/settings";

/** The stack config namespace. */
export const CONFIG_NAMESPACE = "workspace-access";

/** Every config key the package reads, with its environment fallback (if any). */
export const CONFIG_KEYS = {
  apiKey: "WORKSPACE_ACCESS_API_KEY",
  baseUrl: "WORKSPACE_ACCESS_BASE_URL",
  workspace: "WORKSPACE_ACCESS_WORKSPACE",
  host: "WORKSPACE_ACCESS_HOST",
  maxRateLimitWaitSeconds: undefined,
  maxRetries: undefined,
  requestTimeoutSeconds: undefined,
  jobTimeoutSeconds: undefined,
  maxConcurrency: undefined,
  maxRequestsPerSecond: undefined,
  readCacheSeconds: undefined,
} as const;

/** A config key's name without namespace. */
type ConfigKey = keyof typeof CONFIG_KEYS;

/** `workspace-access:apiKey` */
export const qualified = (key: ConfigKey) => `${CONFIG_NAMESPACE}:${key}`;

/** Raw values by unqualified key, as read from config or environment. */
export type RawSettings = Partial<Record<ConfigKey, string>>;

/** The keys that together say where the workspace is. */
const URL_KEYS: readonly ConfigKey[] = ["baseUrl", "workspace", "host"];

/**
 * Reads every key through `get` (fully-qualified names), falling back to the environment. The
 * workspace's address comes from one source as a whole: when the stack config names any of
 * `baseUrl`, `workspace` or `host`, the environment's are ignored, so a variable left in a shell
 * can never send one stack's key to another workspace.
 */
export function readRawSettings(get: (qualifiedKey: string) => unknown, env: NodeJS.ProcessEnv): RawSettings {
  const fromConfig: RawSettings = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const value = get(qualified(key));
    // An empty value counts as unset; the engine may hand over numbers or booleans as such.
    if (value !== undefined && value !== null && value !== "") fromConfig[key] = String(value);
  }
  const urlFromConfig = URL_KEYS.some((key) => fromConfig[key] !== undefined);
  const raw: RawSettings = { ...fromConfig };
  for (const [key, envName] of Object.entries(CONFIG_KEYS) as Array<[ConfigKey, string | undefined]>) {
    if (raw[key] !== undefined || !envName || (urlFromConfig && URL_KEYS.includes(key))) continue;
    const value = env[envName];
    if (value) raw[key] = value;
  }
  return raw;
}

/** Provider settings: the client's options plus the provider's own. */
export interface ProviderSettings {
  client: ClientOptions;
  /** How long reads may be served from one paged list call, in seconds (0 turns this off). */
  readCacheSeconds: number;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/i;

/**
 * Turns raw settings into validated ones, or throws a {@link ConfigurationError} that names the
 * key and the exact command that fixes it. Called per request, so a fixed config takes effect.
 */
export function resolveProviderSettings(raw: RawSettings): ProviderSettings {
  const apiKey = raw.apiKey?.trim();
  if (!apiKey) {
    throw new ConfigurationError(
      `No API key for the workspace. Run: pulumi config set --secret ${qualified("apiKey")} <key> (or set WORKSPACE_ACCESS_API_KEY).`,
      qualified("apiKey"),
    );
  }
  const numbers = numbersOf(raw);
  return {
    client: {
      baseUrl: baseUrlOf(raw),
      apiKey,
      maxRateLimitWaitSeconds: numbers.maxRateLimitWaitSeconds,
      maxRetries: numbers.maxRetries,
      requestTimeoutSeconds: numbers.requestTimeoutSeconds,
      jobTimeoutSeconds: numbers.jobTimeoutSeconds,
      maxConcurrency: numbers.maxConcurrency,
      maxRequestsPerSecond: numbers.maxRequestsPerSecond,
    },
    readCacheSeconds: numbers.readCacheSeconds ?? DEFAULTS.readCacheSeconds,
  };
}

function baseUrlOf(raw: RawSettings): string {
  if (raw.baseUrl) return parseBaseUrl(raw.baseUrl, qualified("baseUrl")).href;
  const { workspace, host } = raw;
  if (!workspace || !host) {
    const missing = [!workspace && qualified("workspace"), !host && qualified("host")].filter(Boolean).join(" and ");
    throw new ConfigurationError(
      `No workspace configured (${missing} missing). Run: pulumi config set ${qualified("workspace")} <workspace> and pulumi config set ${qualified("host")} <host>, or pulumi config set ${qualified("baseUrl")} https://<workspace>.<host>/api/v1/ (or set WORKSPACE_ACCESS_BASE_URL).`,
      workspace ? qualified("host") : qualified("workspace"),
    );
  }
  if (!DNS_LABEL.test(workspace)) {
    throw new ConfigurationError(
      `${qualified("workspace")} "${workspace}" must be a single DNS label (letters, digits and "-"), e.g. acme`,
      qualified("workspace"),
    );
  }
  if (!HOST_NAME.test(host)) {
    throw new ConfigurationError(`${qualified("host")} "${host}" must be a host name, e.g. example.com`, qualified("host"));
  }
  return parseBaseUrl(`https://${workspace}.${host}/api/v1/`, qualified("workspace")).href;
}

/** The numeric keys of the stack config: those of its keys the one table of numeric settings names. */
const NUMERIC_KEYS = (Object.keys(CONFIG_KEYS) as ConfigKey[]).filter((key): key is ConfigKey & NumericSetting => key in NUMERIC_SETTINGS);

/** The numeric settings given, checked against the client's one schema of settings (bounds named once). */
function numbersOf(raw: RawSettings): Partial<Record<NumericSetting, number>> {
  const values: Partial<Record<NumericSetting, number>> = {};
  for (const key of NUMERIC_KEYS) {
    const text = raw[key];
    if (text !== undefined) values[key] = text.trim() === "" ? Number.NaN : Number(text);
  }
  checkNumbers(values, {
    name: (key) => qualified(key as ConfigKey),
    got: (key) => `"${raw[key as ConfigKey]}"`,
    fix: (key) => `Run: pulumi config set ${qualified(key as ConfigKey)} <value>`,
  });
  return values;
}

/** The keys of the package's namespace that it does not read: `workspace-access:apikey` and such. */
export function unknownKeys(configuredKeys: Iterable<string>): string[] {
  const prefix = `${CONFIG_NAMESPACE}:`;
  return [...configuredKeys].filter((key) => key.startsWith(prefix) && !Object.hasOwn(CONFIG_KEYS, key.slice(prefix.length)));
}

/**
 * The known key a misspelt one meant, if one is close: the same but for case, one it is the start
 * of or starts with (`jobTimeout`), or one a few edits away (`maxRetry`, `hots`: a third of its length).
 */
export function closestKey(key: string): ConfigKey | undefined {
  const name = key.slice(key.indexOf(":") + 1).toLowerCase();
  let best: { key: ConfigKey; distance: number } | undefined;
  for (const known of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const lower = known.toLowerCase();
    const prefix = name.length >= 4 && (lower.startsWith(name) || name.startsWith(lower));
    const distance = prefix ? 0.5 : editDistance(name, lower);
    if (!best || distance < best.distance) best = { key: known, distance };
  }
  return best && best.distance <= Math.max(2, Math.ceil(name.length / 3)) ? best.key : undefined;
}

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** How a key is set from the command line (`--secret` for the API key). */
const setCommand = (key: string) => `pulumi config set${key === qualified("apiKey") ? " --secret" : ""} ${key} <value>`;

/** Why an unknown key is refused, with the key meant and the commands that move the value there. */
export function unknownKeyReason(key: string): string {
  const meant = closestKey(key);
  const hint = meant
    ? `did you mean \`${qualified(meant)}\`? Run: pulumi config rm ${key} and ${setCommand(qualified(meant))}`
    : `the settings are ${Object.keys(CONFIG_KEYS).join(", ")}. Run: pulumi config rm ${key}`;
  return `Unknown setting \`${key}\`: ${hint}`;
}

/**
 * {@link resolveProviderSettings}, refusing unknown keys of the namespace too and checking the API
 * key as the client will: throws a {@link ConfigurationError} naming the key and the command that
 * fixes it. Sends nothing.
 */
export function checkedProviderSettings(configuredKeys: Iterable<string>, raw: RawSettings): ProviderSettings {
  const [unknown] = unknownKeys(configuredKeys);
  if (unknown !== undefined) throw new ConfigurationError(unknownKeyReason(unknown), unknown);
  try {
    const resolved = resolveProviderSettings(raw);
    resolveSettings({ ...resolved.client, settingPrefix: `${CONFIG_NAMESPACE}:` });
    return resolved;
  } catch (error) {
    if (ConfigurationError.isInstance(error) && !error.message.includes("Run: ")) {
      error.message += `. Run: ${setCommand(error.setting)}`;
    }
    throw error;
  }
}

/**
 * Every problem of the settings in force, as messages naming the key and the command that fixes it:
 * each unknown key of the namespace, then the first missing or invalid setting (what the first
 * request would fail with). `check` reports these, so `pulumi preview` fails on them.
 */
export function settingsProblems(configuredKeys: Iterable<string>, raw: RawSettings): string[] {
  const problems = unknownKeys(configuredKeys).map(unknownKeyReason);
  try {
    checkedProviderSettings([], raw);
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    problems.push(error.message);
  }
  return problems;
}
