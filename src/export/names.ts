/**
 * Pulumi resource names for an export, from what people know a record by (an email, a label): safe in a URN,
 * unique, and the same in any order. Records that would share a base name each get a suffix from a hash of their
 * own key (an email, an integration id), never a position.
 */
import { createHash } from "node:crypto";
import { emailKey } from "../client/models";

/** A comparator by a string key, for sorts whose order must not depend on the locale. */
export const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/** Longest name before it is shortened (with a hash suffix, so it stays unique). */
export const MAX_NAME_LENGTH = 80;

function hashOf(key: string, length: number): string {
  return createHash("sha256").update(key).digest("hex").slice(0, length);
}

function shorten(name: string, key: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  return `${name.slice(0, MAX_NAME_LENGTH - 9).replace(/[.-]+$/, "")}-${hashOf(key, 8)}`;
}

/** The base name of a user, from the email: `Ann.Lee+ops@Acme.example` → `ann.lee-ops-at-acme.example`. */
export function userBaseName(email: string): string {
  const name = email
    .trim()
    .toLowerCase()
    .replace(/@/g, "-at-")
    .replace(/[^a-z0-9._-]/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "");
  return shorten(name === "" ? "user" : name, emailKey(email));
}

/** The base name of an integration: its label (else application, else id), lowercased, runs of other characters as one `-`. */
export function integrationBaseName(integration: { id: string; label: string | null; application: string | null }): string {
  const text = integration.label || integration.application || integration.id;
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return shorten(name === "" ? "integration" : name, integration.id);
}

/** Unique names by `key`: records whose base names collide all get `-<8 hex digits of the key's hash>`, else 16, else a counter. */
export function uniqueNames(records: ReadonlyArray<{ key: string; base: string }>): Map<string, string> {
  // A key given twice is one record (a repeat must not make it collide with itself).
  const byBase = new Map<string, Set<string>>();
  for (const { key, base } of records) byBase.set(base, (byBase.get(base) ?? new Set<string>()).add(key));
  const names = new Map<string, string>();
  for (const [base, keys] of byBase) if (keys.size === 1) names.set([...keys][0]!, base);
  const taken = new Set(names.values());
  // In key order, so that which record gets which fallback never depends on the order given.
  const suffixed = [...byBase].flatMap(([base, keys]) => (keys.size > 1 ? [...keys].map((key) => ({ key, base })) : []));
  suffixed.sort(byKey((s) => s.key));
  for (const { key, base } of suffixed) {
    let name = `${base}-${hashOf(key, 8)}`;
    if (taken.has(name)) name = `${base}-${hashOf(key, 16)}`;
    for (let n = 2; taken.has(name); n++) name = `${base}-${hashOf(key, 16)}-${n}`;
    names.set(key, name);
    taken.add(name);
  }
  return names;
}

/** `<integration name>--<user name>`: integration names never contain `--`, so unique pairs make unique names. */
export function membershipName(integrationName: string, userName: string): string {
  return `${integrationName}--${userName}`;
}
