/**
 * The package's stack config keys: their namespace, each key with its environment fallback, and
 * how a key of the namespace that the package does not read is matched to the one it probably meant.
 */

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

/**
 * Raw values by unqualified key, as read from config or environment. `addressFrom: "stack"`: the
 * stack config names the workspace's address, so the key may come from the stack config only.
 */
export type RawSettings = Partial<Record<ConfigKey, string>> & { readonly addressFrom?: "stack" };

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
