import { editDistance } from "./edit-distance";
import type { SettingProblem } from "./setting-problems";

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

/** Where a setting is set, and so how a problem is worded. */
export type SettingsSource = "stack" | "env" | "flag";

/** A setting's name where it is set: `workspace-access:maxRetries`, `WORKSPACE_ACCESS_MAX_RETRIES`, `--max-retries`. */
export function settingName(key: string, source: SettingsSource): string {
  if (source === "stack") return key.includes(":") ? key : `${CONFIG_NAMESPACE}:${key}`;
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1_$2");
  return source === "env" ? `WORKSPACE_ACCESS_${words.toUpperCase()}` : `--${words.toLowerCase().replaceAll("_", "-")}`;
}

/**
 * Raw values by unqualified key. `addressFrom: "stack"`: the stack config names the address, so the key may come from there only;
 * `keyFrom: "stack"` (and no address there): the stack's key, so the address may come from there only.
 */
export type RawSettings = Partial<Record<ConfigKey, string>> & {
  readonly addressFrom?: "stack";
  readonly keyFrom?: "stack";
  /** The keys whose value came from the environment: a problem with one names its variable, not the stack key. */
  readonly fromEnv?: readonly ConfigKey[];
};

/** The keys meant for the package that it does not read: unknown ones of its namespace, and those of a namespace a typo away (not the project's). */
export function unknownKeys(configuredKeys: Iterable<string>, project?: string): string[] {
  const prefix = `${CONFIG_NAMESPACE}:`;
  return [...configuredKeys].filter((key) =>
    key.startsWith(prefix) ? !Object.hasOwn(CONFIG_KEYS, key.slice(prefix.length)) : misspeltNamespace(key, project),
  );
}

/** Whether a key close to one of the package's is under a namespace two edits from its own, the project being known and another. */
function misspeltNamespace(key: string, project: string | undefined): boolean {
  const colon = key.indexOf(":");
  const namespace = key.slice(0, colon);
  if (colon <= 0 || project === undefined || project === CONFIG_NAMESPACE || namespace === project) return false;
  return editDistance(namespace.toLowerCase(), CONFIG_NAMESPACE) <= 2 && closestKey(key) !== undefined;
}

/** The known key a misspelt one meant: the same but for case, a prefix either way (`jobTimeout`), or a third of its length in edits away. */
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

/** The keys' problems: each unknown key, or that the project is named like the namespace (its keys are its own: not `config rm`). */
export function keyProblems(configuredKeys: Iterable<string>, project?: string): SettingProblem[] {
  const unknown = unknownKeys(configuredKeys, project);
  if (unknown.length === 0) return [];
  if (project === CONFIG_NAMESPACE) return [{ kind: "project-name", key: unknown[0] ?? "", project, keys: unknown }];
  // Without the project's name, a key close to none of the package's may be the project's own.
  return unknown.map((key) => ({ kind: "unknown", key, meant: closestKey(key), ...(project === undefined && { projectUnknown: true }) }));
}
