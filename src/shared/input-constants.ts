/** What declaring resources and the lookups need of the inputs without their zod schemas (`inputs.ts`): such a program loads no zod. */

/** The integration roles an invitation may give. */
export const INTEGRATION_ROLES = ["account_owner", "account_collaborator"] as const;

/** The hidden input carrying the `import` option (the engine's import cannot reach a dynamic provider); never compared by `diff`. */
export const IMPORT_ID = "__importId";

/**
 * The hidden input of a resource (any but a `WorkspaceUsers`) declared with the `ignoreChanges` option: its paths as given. The
 * engine applies the option to an update alone; Pulumi's import leaves an ignored property as the record has it, so an adoption
 * (`import`, `adoptExisting`) writes nothing for a property a path names (a user's attribute, a membership's set or role). Never
 * compared by `diff`.
 */
export const IGNORE_CHANGES = "__ignoreChanges";

/**
 * The hidden input of a resource a class's static `get` reads (`true`): the engine hands the host the properties the class
 * registered, and this tells the host the read is of the record the id names, with no state (`Handlers.read` in
 * `provider-runtime.ts`): a record not there fails, naming the type and the id, where a refresh's read drops the resource. Kept
 * in the outputs: a refresh of the resource reads with no state as well (an `IntegrationMembers`' every member, none unmanaged).
 */
export const GET_READ = "__get";

/**
 * The hidden input of a `WorkspaceUsers`: digests of the emails the program's other resources declare, so that a user it
 * created and the program moved to another resource is handed over, not deleted, whichever of the two the engine runs first.
 * Registered as a secret: the emails may be secrets where they are declared.
 */
export const DECLARED_ELSEWHERE = "__declaredElsewhere";

/**
 * The hidden input of a `WorkspaceUsers` whose users hold a secret (`true`; absent otherwise): the provider cannot tell a secret
 * value from a plain one, so this tells it to name no email of the set in its messages. Never compared by `diff`; the state
 * keeps it among the outputs, for a refresh and a destroy, which get no inputs.
 */
export const SECRET_USERS = "__secretUsers";

/**
 * The hidden input of a `User` whose email the program gives as a secret (`true`; absent otherwise): the provider cannot tell a
 * secret value from a plain one, so this tells it to name the email in none of its messages. Never compared by `diff`; the
 * state keeps it among the outputs, for a destroy, which gets no inputs.
 */
export const SECRET_EMAIL = "__secretEmail";

/**
 * The hidden input of every resource declared with the `customTimeouts` option: its `create`, `update`, `delete` and `read` as
 * given (`custom-timeouts.ts`). The engine hands a dynamic provider no operation timeout, so the host bounds the operation's job
 * waits by this instead of `jobTimeoutSeconds`. Never compared by `diff`; the state keeps it among the outputs, for a destroy and
 * a refresh, which get no inputs.
 */
export const CUSTOM_TIMEOUTS = "__customTimeouts";

/**
 * The hidden input of every resource declared with the `replaceOnChanges` option: its paths as given. The engine applies the
 * option to the properties a provider's diff names, and a dynamic provider's diff names none, so the host's diff asks for the
 * replacement itself of each named property that changed. Never compared by `diff`, nor kept in the outputs.
 */
export const REPLACE_ON_CHANGES = "__replaceOnChanges";

/**
 * The hidden input of every resource declared with `retainOnDelete: true` (`true`; absent otherwise). The engine hands a dynamic
 * provider no resource option, and skips a retained resource's delete on a replacement as on a destroy: the create that follows
 * finds the record still there. So the diff refuses a replacement of a membership by itself (a role change), and a create that
 * finds its record there names the option and the way out. Never compared by `diff`, nor kept in the outputs.
 */
export const RETAIN_ON_DELETE = "__retainOnDelete";

/**
 * The hidden output of every resource: the workspace its state was written in, the base URL in force at its create, import,
 * update or refresh in one form (`recorded-workspace.ts`). An id names a record of that workspace alone, so the host refuses
 * a diff, refresh, update or delete of the state with the settings naming another. Never an input, never compared by `diff`.
 */
export const WORKSPACE = "__workspace";

/** A member's role as the API reads it (`owner`: the invite role without `account_`) as the invite role; `undefined` for one not known (never guessed). */
export function inviteRole(memberRole: string | null): (typeof INTEGRATION_ROLES)[number] | undefined {
  const role = memberRole?.toLowerCase();
  return INTEGRATION_ROLES.find((known) => role === known || `account_${role}` === known);
}
