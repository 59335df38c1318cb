/**
 * The hidden inputs the classes register beside a resource's own (`__customTimeouts`, `__replaceOnChanges`, `__retainOnDelete`),
 * and the host's own hidden output (`__workspace`): read from the inputs or state the engine hands the host, taken out of what
 * the handlers get, and given back where the host keeps them; and what the `__ignoreChanges` paths name.
 */

/** The hidden input `key` of a resource's inputs or state (`undefined`: none given). */
export function hiddenOf(props: unknown, key: string): unknown {
  return props !== null && typeof props === "object" ? (props as Record<string, unknown>)[key] : undefined;
}

/** `props` without the hidden inputs `keys`: what the handlers get. One copy, only where one of them is there. */
export function withoutHidden<T>(props: T, ...keys: string[]): T {
  if (props === null || typeof props !== "object" || !keys.some((key) => key in props)) return props;
  const rest = { ...(props as Record<string, unknown>) };
  for (const key of keys) delete rest[key];
  return rest as T;
}

/** `props` with the hidden input `key` set to `value`, when one was given (never `undefined`: the host cannot encode it). */
export function withHidden<T>(props: T, key: string, value: unknown): T {
  if (value === undefined || props === null || typeof props !== "object") return props;
  return { ...props, [key]: value };
}

/**
 * A handler's error that records a state (a partial create or update: its `properties`), with the hidden property `key` set to
 * `value` in that state too, when one was given.
 */
export function withHiddenRecorded(error: unknown, key: string, value: unknown): unknown {
  const properties = error !== null && typeof error === "object" ? (error as { properties?: unknown }).properties : undefined;
  if (value !== undefined && properties !== null && typeof properties === "object") (properties as Record<string, unknown>)[key] = value;
  return error;
}

/**
 * The properties of `declarable` that the paths of `__ignoreChanges` (`paths`, as the program gave `ignoreChanges`) name at their
 * root, `"*"` naming all: what an adoption (`import`, `adoptExisting`) leaves as the record has it, as Pulumi's import does.
 */
export function ignoredOf<K extends string>(paths: unknown, declarable: readonly K[]): K[] {
  const roots = pathsOf(paths).map((path) => path.root);
  return declarable.filter((key) => roots.some((root) => root === key || root === "*"));
}

/** Each path of `__ignoreChanges` as its root property and the rest (`""`: the property whole): `members[*].role` is `members`, `[*].role`. */
function pathsOf(paths: unknown): { root: string; rest: string }[] {
  if (!Array.isArray(paths)) return [];
  return paths
    .map((path) => (typeof path === "string" ? /^\s*(?:\["([^"]*)"\]|([^.[\s]+))(.*?)\s*$/.exec(path) : null))
    .filter((m) => m !== null)
    .map((m) => ({ root: m[1] ?? m[2] ?? "", rest: m[3] ?? "" }));
}

/**
 * The properties of `declarable` that a path of `paths` names whole (`"*"`: all): a path naming a part of one (`entitlements[0]`)
 * does not leave the whole as the service has it (the engine keeps that part's old value in an update, as for any property).
 */
export function wholeIgnoredOf<K extends string>(paths: unknown, declarable: readonly K[]): K[] {
  const whole = pathsOf(paths).filter((path) => path.rest === "" || path.root === "*");
  return declarable.filter((key) => whole.some(({ root }) => root === key || root === "*"));
}
