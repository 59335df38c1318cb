/** Path segments are percent-encoded and `.`/`..`/empty refused: no id can reach another endpoint (`../users`, `a/b`, `?`). */
import { idOf } from "./ids";

/** `parts` joined into a relative path, each `[value, what]` encoded; a user or integration id in its one form (`ids.ts`), whatever its case. */
export function pathOf(...parts: Array<[value: string, what: string] | string>): string {
  const segment = ([value, what]: [string, string]) => {
    if (typeof value !== "string" || value === "" || value === "." || value === "..") {
      throw new TypeError(`${what} must be a non-empty id, got ${JSON.stringify(value)}`);
    }
    return encodeURIComponent(what === "user id" || what === "integration id" ? idOf(value) : value);
  };
  return parts.map((part) => (typeof part === "string" ? part : segment(part))).join("/");
}
