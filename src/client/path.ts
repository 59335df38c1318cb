/** Path segments are percent-encoded and `.`/`..`/empty refused: no id can reach another endpoint (`../users`, `a/b`, `?`). */
import { idOf } from "./ids";

/** One encoded path segment; `.`, `..` and empty are refused. */
export function segment(value: string, what: string): string {
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new TypeError(`${what} must be a non-empty id, got ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

/** The segments that are record ids: sent in their one form (`ids.ts`), whatever case the caller holds. */
const isRecordId = (what: string) => what === "user id" || what === "integration id";

/** `segments` joined into a relative path, each one encoded; a user or integration id in its one form. */
export function pathOf(...parts: Array<[value: string, what: string] | string>): string {
  const text = ([value, what]: [string, string]) => (isRecordId(what) && typeof value === "string" ? idOf(value) : value);
  return parts.map((p) => (typeof p === "string" ? p : segment(text(p), p[1]))).join("/");
}
