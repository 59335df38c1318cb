/**
 * The API key scopes, and which ones each operation needs, in one table. By default the table follows the
 * public OpenAPI document's description of each operation ("The API scope required to use this
 * endpoint is ..."), where it differs from the contract's summary table: the entitlement
 * catalogue needs Write integrations, and an invitation needs Write integrations and Read
 * automated jobs. `scopeTable: "contract"` plays the contract's table instead ({@link CONTRACT_SCOPES}):
 * which of the two the service enforces, no public document settles. User writes are assumed
 * (`write:users` is an assumed identifier, and the document has no user write at all).
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

/**
 * What each operation needs, keyed `METHOD /pattern` (the emulator's route patterns). Where the
 * document spells a path `/integrations/{id}/user`, the singular alias shares the plural's row.
 */
export const OPERATION_SCOPES = {
  "GET /users": ["read:users"],
  "GET /users/:id": ["read:users"],
  // Assumed: the document has no user writes.
  "POST /users": ["write:users"],
  "PUT /users/:id": ["write:users"],
  "DELETE /users/:id": ["write:users"],
  "GET /integrations": ["read:integrations"],
  "GET /integrations/:id": ["read:integrations"],
  // The document: "The API scope required to use this endpoint is: Write integrations."
  "GET /integrations/:id/entitlements": ["write:integrations"],
  "GET /integrations/:id/users": ["read:integrations", "read:users"],
  "GET /integrations/:id/users/:userId": ["read:integrations", "read:users"],
  // The document: "Write integrations and Read automated jobs."
  "POST /integrations/:id/users": ["write:integrations", "read:automations"],
  "PATCH /integrations/:id/users/:userId": ["write:integrations", "write:automations"],
  "DELETE /integrations/:id/users/:userId": ["write:integrations", "write:automations"],
  "PATCH /integrations/:id/users/:userId/entitlements": ["write:integrations", "write:automations"],
  "GET /jobs/:id": ["read:automations"],
} as const satisfies Record<string, readonly Scope[]>;

/** An operation of {@link OPERATION_SCOPES}. */
export type Operation = keyof typeof OPERATION_SCOPES;

/**
 * The rows where the contract's summary table differs from the document: Read integrations covers "integration,
 * entitlement and integration user reads", and Write automated jobs "every write that starts a job".
 */
export const CONTRACT_SCOPES = {
  "GET /integrations/:id/entitlements": ["read:integrations"],
  "POST /integrations/:id/users": ["write:integrations", "write:automations"],
} as const satisfies Partial<Record<Operation, readonly Scope[]>>;

/** Which table the emulator enforces: the public document's operations (default) or the contract's summary. */
export type ScopeTable = "document" | "contract";

/** The scope a user write also needs when it answers with a job (assumed, like the jobs themselves). */
export const USER_WRITE_JOB_SCOPE: Scope = "write:automations";

/** The scopes of an operation under `table` (default the document's), a fresh array. */
export function scopesOf(operation: Operation, table: ScopeTable = "document"): Scope[] {
  const contract: Partial<Record<Operation, readonly Scope[]>> = CONTRACT_SCOPES;
  return [...((table === "contract" ? contract[operation] : undefined) ?? OPERATION_SCOPES[operation])];
}

/** The scopes a key is missing for a route, in the order the route requires them. */
export function missingScopes(held: ReadonlySet<string>, required: readonly Scope[]): Scope[] {
  return required.filter((scope) => !held.has(scope));
}
