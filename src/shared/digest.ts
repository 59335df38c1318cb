/**
 * Values a state records for comparing only: digests, never the values. A digest does not hide a secret (an email or a name is
 * recovered by hashing guesses): what holds them is registered as a secret (`User`'s `unapplied`, `__declaredElsewhere`).
 */
import { createHash } from "node:crypto";
import { emailKey } from "../client/models";

/** The digest of `value`, an attribute `key` of a user (`sha256:...`); an email in its one form, as emails compare. */
export function digestOf(key: string, value: unknown): string {
  const compared = key === "email" && typeof value === "string" ? emailKey(value) : value;
  return `sha256:${createHash("sha256")
    .update(JSON.stringify(compared ?? null))
    .digest("hex")
    .slice(0, 32)}`;
}
