/**
 * Path segments from user input are always percent-encoded, and `.`/`..`/empty are refused, so no
 * id can make a request reach another endpoint (`../users`, `a/b`, `%2F`, `?`, `#`).
 */
export function segment(value: string, what: string): string {
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new TypeError(`${what} must be a non-empty id, got ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

/** `segments` joined into a relative path, each one encoded. */
export function pathOf(...parts: Array<[value: string, what: string] | string>): string {
  return parts.map((p) => (typeof p === "string" ? p : segment(p[0], p[1]))).join("/");
}
