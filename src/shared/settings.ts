/**
 * The package's settings, one pipeline for every place they come from: raw text is read (stack
 * config keys `workspace-access:*`, environment variables as fallback), checked into a list of
 * {@link SettingsProblem}s (data: the key, the rule, the value seen), and each problem is rendered
 * in the words of the place the user sets it: a stack config key, an environment variable or a
 * command-line flag ({@link renderProblem}). Read at run time, in whichever process needs them (the
 * provider host through `configure`, the program for lookups and `getJob`); never captured into
 * `__provider`.
 */
import type { ClientOptions } from "../client";
import { apiKeyProblem, checkBaseUrl, NUMERIC_SETTINGS, type NumberSpec, numberProblem } from "../client/settings";
import { CONFIG_KEYS, CONFIG_NAMESPACE, type ConfigKey, closestKey, qualified, type RawSettings, unknownKeys } from "./config-keys";
import { type SettingsProblem, type SettingsSource, settingsError, renderProblem } from "./setting-problems";

export { CONFIG_KEYS, CONFIG_NAMESPACE, type ConfigKey, closestKey, qualified, type RawSettings, unknownKeys } from "./config-keys";
export { renderProblem, type SettingsProblem, type SettingsSource, settingName, settingsError, unknownKeyReason } from "./setting-problems";

/** The keys that together say where the workspace is. */
const URL_KEYS: readonly ConfigKey[] = ["baseUrl", "workspace", "host"];

/** The provider's own numeric knobs: they never reach the client. */
export const PROVIDER_NUMBERS = {
  /** How long reads may be served from one paged list, in seconds (0: never). */
  readCacheSeconds: { default: 5, min: 0, whole: false },
} as const;

/** Every numeric config key, with its bounds: the client's (one table, {@link NUMERIC_SETTINGS}) and the provider's. */
const NUMBER_SPECS: Partial<Record<ConfigKey, NumberSpec>> = Object.fromEntries(
  (Object.keys(CONFIG_KEYS) as ConfigKey[]).flatMap((key) => {
    const spec = (NUMERIC_SETTINGS as Record<string, NumberSpec>)[key] ?? (PROVIDER_NUMBERS as Record<string, NumberSpec>)[key];
    return spec ? [[key, spec]] : [];
  }),
);

/**
 * Reads every key through `get` (fully-qualified names), falling back to the environment. The
 * workspace's address comes from one source as a whole, and the key goes only where that source
 * sends it: when the stack config names any of `baseUrl`, `workspace` or `host`, the environment's
 * address and its key are ignored, so a variable left in a shell can never send a key to another workspace.
 */
export function readRawSettings(get: (qualifiedKey: string) => unknown, env: NodeJS.ProcessEnv): RawSettings {
  const fromConfig: RawSettings = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const value = get(qualified(key));
    // An empty value counts as unset; the engine may hand over numbers or booleans as such.
    if (value !== undefined && value !== null && value !== "") fromConfig[key] = String(value);
  }
  const urlFromConfig = URL_KEYS.some((key) => fromConfig[key] !== undefined);
  const raw: Partial<Record<ConfigKey, string>> = { ...fromConfig };
  for (const [key, envName] of Object.entries(CONFIG_KEYS) as Array<[ConfigKey, string | undefined]>) {
    if (raw[key] !== undefined || !envName || (urlFromConfig && (URL_KEYS.includes(key) || key === "apiKey"))) continue;
    const value = env[envName];
    if (value) raw[key] = value;
  }
  return urlFromConfig ? { ...raw, addressFrom: "stack" } : raw;
}

/** Provider settings: the client's options plus the provider's own. */
export interface ProviderSettings {
  client: ClientOptions;
  /** How long reads may be served from one paged list call, in seconds (0 turns this off). */
  readCacheSeconds: number;
}

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/i;

/** The address's problem, or the base URL it names. */
function checkAddress(raw: RawSettings): { url: string } | { problem: SettingsProblem } {
  if (raw.baseUrl) {
    const checked = checkBaseUrl(raw.baseUrl);
    return "problem" in checked ? checked : { url: checked.url.href };
  }
  const { workspace, host } = raw;
  if (!workspace || !host) {
    const missing = (["workspace", "host"] as const).filter((key) => !raw[key]);
    return { problem: { kind: "no-address", key: workspace ? "host" : "workspace", missing } };
  }
  if (!DNS_LABEL.test(workspace)) {
    const rule = 'must be a single DNS label (letters, digits and "-"), e.g. acme';
    return { problem: { kind: "invalid", key: "workspace", rule, seen: workspace } };
  }
  if (!HOST_NAME.test(host))
    return { problem: { kind: "invalid", key: "host", rule: "must be a host name, e.g. example.com", seen: host } };
  const checked = checkBaseUrl(`https://${workspace}.${host}/api/v1/`, "workspace");
  return "problem" in checked ? checked : { url: checked.url.href };
}

/** Every problem of the values read, in a fixed order (key, address, numbers); none when they are usable. */
export function valueProblems(raw: RawSettings): SettingsProblem[] {
  const keyProblem = apiKeyProblem(raw.apiKey?.trim());
  const problems: Array<SettingsProblem | undefined> = [
    keyProblem?.kind === "missing" && raw.addressFrom === "stack" ? { kind: "no-stack-key", key: "apiKey" } : keyProblem,
  ];
  const address = checkAddress(raw);
  if ("problem" in address) problems.push(address.problem);
  for (const [key, spec] of Object.entries(NUMBER_SPECS)) problems.push(numberProblem(key, spec, raw[key as ConfigKey]));
  return problems.filter((problem) => problem !== undefined);
}

/** The settings, from values that {@link valueProblems} found no problem with. */
function settingsOf(raw: RawSettings, baseUrl: string): ProviderSettings {
  const number = (key: ConfigKey): number | undefined => (raw[key] === undefined ? undefined : Number(raw[key]));
  const client: ClientOptions = { baseUrl, apiKey: raw.apiKey?.trim() ?? "" };
  for (const key of Object.keys(NUMERIC_SETTINGS) as Array<keyof typeof NUMERIC_SETTINGS>) {
    const value = key in CONFIG_KEYS ? number(key as ConfigKey) : undefined;
    if (value !== undefined) client[key] = value;
  }
  return { client, readCacheSeconds: number("readCacheSeconds") ?? PROVIDER_NUMBERS.readCacheSeconds.default };
}

/**
 * The settings of `raw`, or a {@link ConfigurationError} for the first problem, worded for
 * `source` (the stack config by default). Sends nothing.
 */
export function resolveProviderSettings(raw: RawSettings, source: SettingsSource = "stack"): ProviderSettings {
  const [problem] = valueProblems(raw);
  if (problem) throw settingsError(problem, source);
  const address = checkAddress(raw);
  return settingsOf(raw, "url" in address ? address.url : "");
}

/**
 * The problems of the keys themselves: each key of the namespace the package does not read, or,
 * when the project itself is named like the namespace (`project`, as the engine names it), one
 * problem saying so: its keys are the project's own, and `pulumi config rm` would delete them.
 * `project` undefined: the name could not be told (a host that does not pass it on).
 */
export function keyProblems(configuredKeys: Iterable<string>, project?: string): SettingsProblem[] {
  const unknown = unknownKeys(configuredKeys);
  if (unknown.length === 0) return [];
  if (project === CONFIG_NAMESPACE) return [{ kind: "project-name", key: unknown[0] ?? "", project, keys: unknown }];
  // Without the project's name, a key close to none of the package's may be the project's own.
  return unknown.map((key) => ({ kind: "unknown", key, meant: closestKey(key), ...(project === undefined && { projectUnknown: true }) }));
}

/** What the settings are checked against: every key of the stack config and the project's name, when known. */
export interface KeyContext {
  configuredKeys: Iterable<string>;
  project?: string;
}

/**
 * Every problem of the settings in force: those of the keys ({@link keyProblems}), then those of
 * the values ({@link valueProblems}). `check` reports them, so `pulumi preview` fails on them.
 */
export function allProblems(keys: KeyContext, raw: RawSettings): SettingsProblem[] {
  return [...keyProblems(keys.configuredKeys, keys.project), ...valueProblems(raw)];
}

/**
 * {@link resolveProviderSettings}, refusing unknown keys of the namespace too: throws a
 * {@link ConfigurationError} naming the key and the command that fixes it. Sends nothing.
 */
export function checkedProviderSettings(configuredKeys: Iterable<string>, raw: RawSettings, project?: string): ProviderSettings {
  const [problem] = keyProblems(configuredKeys, project);
  if (problem) throw settingsError(problem, "stack");
  return resolveProviderSettings(raw);
}

/**
 * Every problem of the settings in force, as messages naming the key and the command that fixes it:
 * each unknown key of the namespace (or the project's name), then the first missing or invalid
 * setting (what the first request would fail with).
 */
export function settingsProblems(configuredKeys: Iterable<string>, raw: RawSettings, project?: string): string[] {
  const [first] = valueProblems(raw);
  return [...keyProblems(configuredKeys, project), ...(first ? [first] : [])].map((problem) => renderProblem(problem, "stack"));
}
