/** The API key scopes of the contract (api-contract.md, "Scopes"). `write:users` is *assumed*: no public document names it. */
export const SCOPES = {
  readUsers: { id: "read:users", name: "Read users" },
  writeUsers: { id: "write:users", name: "Write users" },
  readIntegrations: { id: "read:integrations", name: "Read integrations" },
  writeIntegrations: { id: "write:integrations", name: "Write integrations" },
  readJobs: { id: "read:automations", name: "Read automated jobs" },
  writeJobs: { id: "write:automations", name: "Write automated jobs" },
} as const;

/**
 * The scopes of operations whose description in the public document names others than the contract's summary table, as
 * 401/403 messages name them: both tables' where they differ. The entitlement catalogue: Read integrations (the contract's
 * "integration, entitlement and integration user reads") and Write integrations (the document's operation); which one the
 * service enforces is not known (`RequestSpec.scopesInDoubt`).
 */
export const OPERATION_SCOPES = {
  listEntitlements: [SCOPES.readIntegrations, SCOPES.writeIntegrations],
  invite: [SCOPES.writeIntegrations, SCOPES.readJobs],
  memberWrite: [SCOPES.writeIntegrations, SCOPES.writeJobs],
} as const;

/** One scope of an API key: its identifier and the name the service's UI shows. */
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

/**
 * What the job a write answers with needs, by the contract's table: Write automated jobs ("every write that starts a job") and
 * Read automated jobs (`GET /jobs/{id}`, to wait for it).
 */
export const JOB_SCOPES: readonly Scope[] = [SCOPES.writeJobs, SCOPES.readJobs];

/**
 * Whether a write answers with a job: `always` (an integration write, as the contract says), `assumed` (a user write: the
 * contract assumes it may).
 */
export type JobAnswer = "always" | "assumed";

/** "Read users (read:users) and Read integrations (read:integrations)" */
export function describeScopes(scopes: readonly Scope[]): string {
  const names = scopes.map((s) => `${s.name} (${s.id})`);
  if (names.length <= 1) return names[0] ?? "no particular scope";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "the scope Read users (read:users)", "the scopes ... and ...". */
const theScopes = (scopes: readonly Scope[]) => `the scope${scopes.length > 1 ? "s" : ""} ${describeScopes(scopes)}`;

/**
 * Every scope an operation needs, as its refusals name them: the request's own (`scopes`), and, for a write answering with a job
 * (`job`), the job's ({@link JOB_SCOPES}), said to be needed only should the service answer with one where that is assumed.
 */
export function describeNeeds(scopes: readonly Scope[], job?: JobAnswer): string {
  const more = job ? JOB_SCOPES.filter((scope) => !scopes.includes(scope)) : [];
  if (job !== "assumed" || more.length === 0) return theScopes([...scopes, ...more]);
  return `${theScopes(scopes)}, and, should the service answer it with a job (assumed), ${describeScopes(more)} too`;
}
