/**
 * The package's settings, one pipeline for every place they come from: raw text is read (stack
 * config keys `workspace-access:*`, environment variables as fallback), checked into a list of
 * {@link SettingsProblem}s (data: the key, the rule, the value seen), and each problem is rendered
 * in the words of the place the user sets it: a stack config key, an environment variable or a
 * command-line flag ({@link renderProblem}). Read at run time, in whichever process needs them (the
 * provider host through `configure`, the program for lookups and `getJob`); never captured into
 * `__provider`.
 */
import { type ClientOptions, ConfigurationError } from "../client";
import {
  apiKeyProblem,
  checkBaseUrl,
  NUMERIC_SETTINGS,
  type NumberSpec,
  numberProblem,
  numberRule,
  type SettingProblem,
} from "../client/settings";

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
export type ConfigKey = keyof typeof CONFIG_KEYS;

/** `workspace-access:apiKey` */
export const qualified = (key: ConfigKey) => `${CONFIG_NAMESPACE}:${key}`;

/** Raw values by unqualified key, as read from config or environment. */
export type RawSettings = Partial<Record<ConfigKey, string>>;

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

/**
 * One problem of the settings, as data. The client's problems (`missing`, `invalid`, keyed by the
 * setting's unqualified name), plus those only a namespace of keys has: a key the package does not
 * read (`unknown`, with the key it probably meant), the workspace's address not given at all
 * (`no-address`), and a project named like the namespace (`project-name`), whose own keys cannot
 * be told from the package's.
 */
export type SettingsProblem =
  | SettingProblem
  | { readonly kind: "unknown"; readonly key: string; readonly meant?: ConfigKey }
  | { readonly kind: "no-address"; readonly key: "workspace" | "host"; readonly missing: ReadonlyArray<"workspace" | "host"> }
  | { readonly kind: "project-name"; readonly key: string; readonly project: string; readonly keys: readonly string[] };

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
  const problems: Array<SettingsProblem | undefined> = [apiKeyProblem(raw.apiKey?.trim())];
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

/** Where a setting is set, and so how a problem is worded. */
export type SettingsSource = "stack" | "env" | "flag";

/** A setting's name where it is set: `workspace-access:maxRetries`, `WORKSPACE_ACCESS_MAX_RETRIES`, `--max-retries`. */
export function settingName(key: string, source: SettingsSource): string {
  if (source === "stack") return key.includes(":") ? key : `${CONFIG_NAMESPACE}:${key}`;
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2");
  return source === "env" ? `WORKSPACE_ACCESS_${words.toUpperCase()}` : `--${words.toLowerCase().replaceAll("_", "-")}`;
}

/** The command (or assignment) that sets `key` to `placeholder` where it is set. */
function setting(key: string, placeholder: string, source: SettingsSource): string {
  const name = settingName(key, source);
  if (source === "stack") return `pulumi config set${key === "apiKey" ? " --secret" : ""} ${name} ${placeholder}`;
  return source === "env" ? `${name}=${placeholder}` : `${name} ${placeholder}`;
}

/** How a fix is introduced where the setting is set. */
const VERB: Record<SettingsSource, string> = { stack: "Run:", env: "Set", flag: "Pass" };

/** The environment fallback of a stack config key, for the stack's messages. */
const orEnv = (key: ConfigKey, source: SettingsSource) => (source === "stack" && CONFIG_KEYS[key] ? ` (or set ${CONFIG_KEYS[key]})` : "");

/**
 * A problem in the words of the place the setting is set: its name there, what is wrong, the value
 * seen (never the API key's), and how to fix it there. Stack config problems keep the exact
 * commands (`Run: pulumi config set workspace-access:maxRetries <value>`).
 */
export function renderProblem(problem: SettingsProblem, source: SettingsSource): string {
  const verb = VERB[source];
  switch (problem.kind) {
    case "missing":
      if (problem.key === "apiKey")
        return `No API key for the workspace. ${verb} ${setting("apiKey", "<key>", source)}${orEnv("apiKey", source)}.`;
      return `${settingName(problem.key, source)} is required. ${verb} ${setting(problem.key, "<value>", source)}.`;
    case "range": {
      const rule = `must be ${numberRule(problem.spec)}, got ${JSON.stringify(problem.seen)}`;
      return `${settingName(problem.key, source)} ${rule}. ${verb} ${setting(problem.key, "<value>", source)}`;
    }
    case "invalid": {
      const seen = problem.seen === undefined ? "" : ` ${JSON.stringify(problem.seen)}`;
      return `${settingName(problem.key, source)}${seen} ${problem.rule}. ${verb} ${setting(problem.key, "<value>", source)}`;
    }
    case "no-address": {
      const missing = problem.missing.map((key) => settingName(key, source)).join(" and ");
      const parts = `${setting("workspace", "<workspace>", source)} and ${setting("host", "<host>", source)}`;
      const url = setting("baseUrl", "https://<workspace>.<host>/api/v1/", source);
      return `No workspace configured (${missing} missing). ${verb} ${parts}, or ${url}${orEnv("baseUrl", source)}.`;
    }
    case "unknown": {
      const hint = problem.meant
        ? `did you mean \`${qualified(problem.meant)}\`? Run: pulumi config rm ${problem.key} and ${setting(problem.meant, "<value>", "stack")}`
        : `the settings are ${Object.keys(CONFIG_KEYS).join(", ")}. Run: pulumi config rm ${problem.key}`;
      return `Unknown setting \`${problem.key}\`: ${hint}`;
    }
    case "project-name":
      return (
        `The project is named "${problem.project}", which is also the namespace of this package's settings, so its own config ` +
        `(${problem.keys.map((key) => `\`${key}\``).join(", ")}) cannot be told from settings of the package, which reads none of that name. ` +
        `Rename the project (\`name:\` in Pulumi.yaml, e.g. ${problem.project}-infra) and set its own keys under the new name ` +
        `(pulumi config set <new-name>:${problem.keys[0]?.slice(CONFIG_NAMESPACE.length + 1) ?? "<key>"} <value>); ` +
        `the package's settings stay under ${CONFIG_NAMESPACE}:.`
      );
  }
}

/** The key name a problem is about, where it is set (for {@link ConfigurationError}'s `setting`). */
function problemSetting(problem: SettingsProblem, source: SettingsSource): string {
  return problem.kind === "unknown" || problem.kind === "project-name" ? problem.key : settingName(problem.key, source);
}

/** A {@link ConfigurationError} for the first problem, worded for `source`. */
export function settingsError(problem: SettingsProblem, source: SettingsSource): ConfigurationError {
  return new ConfigurationError(renderProblem(problem, source), problemSetting(problem, source));
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

/** Why an unknown key is refused, with the key meant and the commands that move the value there. */
export function unknownKeyReason(key: string): string {
  return renderProblem({ kind: "unknown", key, meant: closestKey(key) }, "stack");
}

/**
 * The problems of the keys themselves: each key of the namespace the package does not read, or,
 * when the project itself is named like the namespace (`project`, as the engine names it), one
 * problem saying so: its keys are the project's own, and `pulumi config rm` would delete them.
 */
export function keyProblems(configuredKeys: Iterable<string>, project?: string): SettingsProblem[] {
  const unknown = unknownKeys(configuredKeys);
  if (unknown.length === 0) return [];
  if (project === CONFIG_NAMESPACE) return [{ kind: "project-name", key: unknown[0] ?? "", project, keys: unknown }];
  return unknown.map((key) => ({ kind: "unknown", key, meant: closestKey(key) }));
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
