/**
 * The package's settings, one pipeline (docs/architecture.md): raw text read, checked by one zod schema of the keys
 * into {@link SettingProblem}s, each worded for where it is set. Read at run time, never captured into `__provider`.
 */
import type { z as Z } from "zod";
import {
  DAY_SECONDS,
  type AddressParts,
  completeSettings,
  NUMERIC_SETTINGS,
  type NumberSpec,
  problemsOf,
  type ResolvedSettings,
  type SettingName,
  settingFields,
  zod,
} from "../client/settings";
import {
  CONFIG_KEYS,
  CONFIG_NAMESPACE,
  type ConfigKey,
  closestKey,
  keyProblems,
  type RawSettings,
  type SettingsSource,
} from "./config-keys";
import { type SettingProblem, settingsError } from "./setting-problems";

export * from "./config-keys";
export * from "./setting-problems";

const URL_KEYS: readonly ConfigKey[] = ["baseUrl", "workspace", "host"];

/** The provider's own numeric knobs: they never reach the client. */
export const PROVIDER_NUMBERS = {
  /** How long reads may be served from one paged list, in seconds (0: never), at most a day as the other times. */
  readCacheSeconds: { default: 5, min: 0, max: DAY_SECONDS, whole: false },
} as const;

const SPECS: Readonly<Record<string, NumberSpec>> = { ...NUMERIC_SETTINGS, ...PROVIDER_NUMBERS };
/** Every numeric config key in the keys' order (problems are reported in it), with its bounds: the client's and the provider's. */
const NUMBER_SPECS = Object.fromEntries(Object.keys(CONFIG_KEYS).flatMap((key) => (SPECS[key] ? [[key, SPECS[key]] as const] : [])));

/**
 * Reads every key through `get` (qualified names), falling back to the environment. When the stack config names the address,
 * the environment's address and key are ignored; when it holds the key, the environment's address is: a variable left in a
 * shell never sends a key to another workspace, nor a stack's key to the shell's workspace.
 */
export function readRawSettings(get: (qualifiedKey: string) => unknown, env: NodeJS.ProcessEnv): RawSettings {
  const fromConfig: RawSettings = {};
  for (const key of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
    const value = get(`${CONFIG_NAMESPACE}:${key}`);
    // An empty or blank value counts as unset (the schema reads a blank key as missing, so a blank one must not shut the
    // environment out); the engine may hand over numbers or booleans as such.
    if (value !== undefined && value !== null && String(value).trim() !== "") fromConfig[key] = String(value);
  }
  const urlFromConfig = URL_KEYS.some((key) => fromConfig[key] !== undefined);
  const keyFromConfig = fromConfig.apiKey !== undefined;
  const raw: Partial<Record<ConfigKey, string>> = { ...fromConfig };
  const fromEnv: ConfigKey[] = [];
  for (const [key, envName] of Object.entries(CONFIG_KEYS) as Array<[ConfigKey, string | undefined]>) {
    if (raw[key] !== undefined || !envName || ((urlFromConfig || keyFromConfig) && (URL_KEYS.includes(key) || key === "apiKey"))) continue;
    const value = env[envName];
    if (value) {
      raw[key] = value;
      fromEnv.push(key);
    }
  }
  const sources = fromEnv.length > 0 ? { fromEnv } : {};
  if (urlFromConfig) return { ...raw, ...sources, addressFrom: "stack" };
  return keyFromConfig ? { ...raw, ...sources, keyFrom: "stack" } : { ...raw, ...sources };
}

/** Where the key in force came from: the stack config or the environment (the 401/403 hint names that place alone). */
export type KeySource = "stack" | "env";

/** Where the API key in force came from: the stack config, the environment (`WORKSPACE_ACCESS_API_KEY`), or none. */
export function keySourceOf(raw: RawSettings): KeySource | undefined {
  if (raw.apiKey === undefined) return undefined;
  return raw.fromEnv?.includes("apiKey") ? "env" : "stack";
}

/**
 * How the client's messages name each setting of `raw` (its `settingName`): where its value came from, the stack config key
 * (`workspace-access:maxRetries`) or the environment variable (`WORKSPACE_ACCESS_BASE_URL`); undefined for a client option the
 * package reads no key for (`retryMaxDelayMs`), which its user cannot set. `baseUrl` is the setting giving the address whole,
 * from the source the address came from; `addressBuiltFrom`, the workspace's and the host's, when the address in force was
 * built from them (a base URL given beside them is read instead). Names only, never a value.
 */
export function settingNamesOf(raw: RawSettings): { settingName: SettingName; addressBuiltFrom?: AddressParts } {
  const named = (key: ConfigKey) => (raw.fromEnv?.includes(key) ? (CONFIG_KEYS[key] ?? key) : `${CONFIG_NAMESPACE}:${key}`);
  const built = raw.baseUrl === undefined;
  const settingName: SettingName = (key) => {
    if (!Object.hasOwn(CONFIG_KEYS, key)) return undefined;
    // Built from variables, the address is given whole in the variable beside them.
    if (key === "baseUrl" && built && raw.fromEnv?.includes("workspace")) return CONFIG_KEYS.baseUrl;
    return named(key as ConfigKey);
  };
  return built ? { settingName, addressBuiltFrom: { workspace: named("workspace"), host: named("host") } } : { settingName };
}

/** Provider settings: the client's, resolved, plus the provider's own. */
export interface ProviderSettings {
  client: ResolvedSettings;
  readCacheSeconds: number;
}

/** Why a base URL that is an origin alone is refused: the API is under a path (the contract's `/api/v1/`). */
export const NO_API_PATH = "has no path: the API is under /api/v1/ at the workspace's address, e.g. https://acme.example.com/api/v1/";

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const HOST_NAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/i;

/** The one schema of the keys' values: the API key, the address (a base URL, or a workspace and a host), the numbers. */
function settingsSchema(z: typeof Z): SettingsSchema {
  schemaBuilt ??= buildSchema(z);
  return schemaBuilt;
}

/** Built once: zod's schemas are costly to build, and `configure` and every connection check the settings. */
type SettingsSchema = ReturnType<typeof buildSchema>;
let schemaBuilt: SettingsSchema | undefined;

function buildSchema(z: typeof Z) {
  const fields = settingFields(z);
  // A value that does not match is not echoed: one of another shape may be a key pasted into the wrong setting.
  const matching = (pattern: RegExp, rule: string) =>
    z.string().superRefine((value, ctx) => {
      if (!pattern.test(value)) ctx.addIssue({ code: "custom", message: rule });
    });
  const numbers = Object.fromEntries(Object.entries(NUMBER_SPECS).map(([key, spec]) => [key, fields.number(spec).optional()]));
  return z.object({
    apiKey: fields.apiKey,
    baseUrl: fields.baseUrl
      .superRefine((url, ctx) => {
        // The workspace's origin alone: every request would answer 404, which a refresh reads as each resource gone.
        if (url.pathname === "/") ctx.addIssue({ code: "custom", message: NO_API_PATH });
      })
      .optional(),
    workspace: matching(DNS_LABEL, 'must be a single DNS label (letters, digits and "-"), e.g. acme').optional(),
    host: matching(HOST_NAME, "must be a host name, e.g. example.com").optional(),
    ...numbers,
  });
}

const ORDER: readonly string[] = ["apiKey", ...URL_KEYS, ...Object.keys(NUMBER_SPECS)];

/** The values of `raw` checked: every problem in {@link ORDER}, and the settings when there is none. */
function checkValues(raw: RawSettings): { problems: SettingProblem[]; settings?: ProviderSettings } {
  const z = zod();
  // A base URL names the address alone: a workspace and a host beside it are not read.
  const { addressFrom, keyFrom, fromEnv, ...values } = raw;
  const input = { ...values, apiKey: raw.apiKey?.trim(), ...(raw.baseUrl && { workspace: undefined, host: undefined }) };
  const parsed = settingsSchema(z).safeParse(input);
  const problems: SettingProblem[] = parsed.success ? [] : problemsOf(parsed.error, input, NUMBER_SPECS);
  // The key missing where the stack names the address: the environment's is not sent there.
  const keyMissing = problems.findIndex((problem) => problem.kind === "missing" && problem.key === "apiKey");
  if (keyMissing >= 0 && addressFrom === "stack") problems[keyMissing] = { kind: "no-stack-key", key: "apiKey" };
  let baseUrl = parsed.data?.baseUrl;
  if (!raw.baseUrl && !problems.some((problem) => problem.key === "workspace" || problem.key === "host")) {
    if (keyFrom === "stack") problems.push({ kind: "no-stack-address", key: "baseUrl" });
    else if (!raw.workspace || !raw.host) {
      const missing = (["workspace", "host"] as const).filter((key) => !raw[key]);
      const envIgnored = addressFrom === "stack" ? { envIgnored: true as const } : {};
      problems.push({ kind: "no-address", key: raw.workspace ? "host" : "workspace", missing, ...envIgnored });
    } else {
      const composed = settingFields(z).baseUrl.safeParse(`https://${raw.workspace}.${raw.host}/api/v1/`);
      if (composed.success) baseUrl = composed.data;
      else problems.push(...problemsOf(composed.error, undefined).map((problem) => ({ ...problem, key: "workspace" })));
    }
  }
  problems.sort((a, b) => ORDER.indexOf(a.key) - ORDER.indexOf(b.key));
  // A value the environment gave is named by its variable (else the fix would point at a stack key not set).
  for (const [i, problem] of problems.entries()) {
    if ((problem.kind === "invalid" || problem.kind === "range") && fromEnv?.includes(problem.key as ConfigKey)) {
      problems[i] = { ...problem, from: "env" };
    }
  }
  if (problems.length > 0 || !parsed.success || !baseUrl) return { problems };
  const { apiKey, baseUrl: _, workspace: __, host: ___, readCacheSeconds, ...numbers } = parsed.data as Record<string, unknown>;
  const client = completeSettings({ ...(numbers as Record<string, number>), apiKey: apiKey as string, baseUrl });
  return {
    problems,
    settings: { client, readCacheSeconds: (readCacheSeconds as number | undefined) ?? PROVIDER_NUMBERS.readCacheSeconds.default },
  };
}

/** The settings of `raw`, or a {@link ConfigurationError} for the first problem (with `keys`, of the keys first), worded for `source`. */
export function resolveProviderSettings(raw: RawSettings, source: SettingsSource = "stack", keys?: KeyContext): ProviderSettings {
  const { problems, settings } = checkValues(raw);
  const [problem] = keys ? [...keyProblems(keys.configuredKeys, keys.project), ...underProject(keys, problems)] : problems;
  if (problem || !settings) throw settingsError(problem ?? { kind: "missing", key: "baseUrl" }, source);
  return settings;
}

/** What the settings are checked against: every key of the stack config and the project's name, when known. */
export interface KeyContext {
  configuredKeys: Iterable<string>;
  project?: string;
}

/** Every problem of the settings in force: those of the keys, then those of the values. `check` reports them, so `pulumi preview` fails on them. */
export function allProblems(keys: KeyContext, raw: RawSettings): SettingProblem[] {
  return [...keyProblems(keys.configuredKeys, keys.project), ...underProject(keys, checkValues(raw).problems)];
}

/** The package's keys that would give what a problem says is missing: the key, or the workspace's address. */
function keysMissing(problem: SettingProblem): readonly ConfigKey[] {
  if (problem.kind === "no-stack-key" || (problem.kind === "missing" && problem.key === "apiKey")) return ["apiKey"];
  const address =
    problem.kind === "no-address" || problem.kind === "no-stack-address" || (problem.kind === "missing" && problem.key === "baseUrl");
  return address ? ["baseUrl", "workspace", "host"] : [];
}

/**
 * `problems`, each setting missing that the stack config holds under the project's own namespace instead (`pulumi config set
 * apiKey`, without `workspace-access:`, sets `<project>:apiKey`) told as such: that key named, and the commands that move it.
 * A project's own key is never a problem by itself: only when the package's setting is missing.
 */
function underProject(keys: KeyContext, problems: SettingProblem[]): SettingProblem[] {
  const { project } = keys;
  if (project === undefined || project === CONFIG_NAMESPACE) return problems;
  const projectKeys = [...keys.configuredKeys].filter((key) => key.startsWith(`${project}:`));
  return problems.map((problem) => {
    const missing = keysMissing(problem);
    for (const projectKey of projectKeys) {
      const meant = closestKey(projectKey);
      if (meant && missing.includes(meant)) return { kind: "under-project", key: meant, projectKey };
    }
    return problem;
  });
}
