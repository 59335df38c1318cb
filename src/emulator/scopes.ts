/**
 * The API key scopes of the contract's Scopes table, in one place so a renamed identifier
 * (`write:users` is assumed) changes here only.
 */

/** Every scope identifier the emulator knows. */
export const ALL_SCOPES = [
  "read:users",
  "write:users",
  "read:integrations",
  "write:integrations",
  "read:automations",
  "write:automations",
] as const;

/** One scope identifier. */
export type Scope = (typeof ALL_SCOPES)[number];

/** The scopes a key is missing for a route, in the order the route requires them. */
export function missingScopes(held: ReadonlySet<string>, required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !held.has(scope));
}
