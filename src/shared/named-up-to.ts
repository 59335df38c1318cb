/** The most names a message lists before "and N more": enough to act on, short enough to read. */
export const MAX_NAMED = 20;

/**
 * `names` joined by `separator`, the first `max` of them, then "and N more" for the rest (a list joined by `"; "` keeps its
 * semicolon before it). In the order given: callers sort.
 */
export function namedUpTo(names: readonly string[], max = MAX_NAMED, separator = ", "): string {
  const more = names.length > max ? `${separator === ", " ? "" : separator.trimEnd()} and ${names.length - max} more` : "";
  return names.slice(0, max).join(separator) + more;
}
