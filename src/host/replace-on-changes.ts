/**
 * A resource's `replaceOnChanges` in the host: the hidden input the classes register (`__replaceOnChanges`, its paths as given),
 * which no handler sees. The engine applies the option to the properties a provider's diff names as changed, and a dynamic
 * provider's diff can name none (the SDK's `DiffResult` has no `diffs`), so the option alone never replaced anything: `providerOf`
 * takes the paths out of what it hands the handlers and, when a diff finds changes, asks for the replacement of each property a
 * path names that the handler's `changed` lists. Not kept in the outputs: a diff reads it from the program's inputs.
 */
import { REPLACE_ON_CHANGES } from "../shared/input-constants";
import { hiddenOf, withHidden } from "./hidden-inputs";

/** The hidden input's paths (none when the option was not given). */
export function replacePathsOf(props: unknown): string[] {
  const paths = hiddenOf(props, REPLACE_ON_CHANGES);
  return Array.isArray(paths) ? paths.filter((p): p is string => typeof p === "string") : [];
}

/** `props` (the inputs `check` returns) with the hidden input given back, when the program gave one (not `undefined`: unencodable). */
export const withReplacePaths = <T>(props: T, from: unknown): T =>
  withHidden(props, REPLACE_ON_CHANGES, hiddenOf(from, REPLACE_ON_CHANGES));

/** A path in one form: `["users"]["ann@example.com"].role` and `users["ann@example.com"].role` alike as `users[ann@example.com].role`. */
function canonical(path: string): string {
  const unquoted = path.trim().replace(/\[\s*"((?:[^"\\]|\\.)*)"\s*\]/g, "[$1]");
  return unquoted.startsWith("[") ? unquoted.replace(/^\[([^\]]*)\]/, "$1") : unquoted;
}

/** The top-level property of a path. */
const rootOf = (path: string) => /^[^.[]*/.exec(path)?.[0] ?? path;

/**
 * The properties to replace the resource for: the root of each `changed` path (the handler's, in the form of {@link canonical})
 * that a `replaceOnChanges` path contains, as the engine's own containment goes (the path itself, or one below it; `*` any one
 * name or element).
 */
export function replacesFor(paths: readonly string[], changed: readonly string[]): string[] {
  const patterns = paths.map((path) => {
    const escaped = canonical(path)
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      // `[*]` any element (an email key holds dots); `*` any name.
      .replace(/\\\[\\\*\\\]/g, "\\[[^\\]]+\\]")
      .replace(/\\\*/g, "[^.[]+");
    return new RegExp(`^${escaped}(?:$|[.[])`);
  });
  const roots = changed.map(canonical).filter((c) => patterns.some((pattern) => pattern.test(c)));
  return [...new Set(roots.map(rootOf))];
}
