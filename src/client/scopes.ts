/** The API key scopes of the contract (api-contract.md, "Scopes"). `write:users` is *assumed*: no public document names it. */
export const SCOPES = {
  readUsers: { id: "read:users", name: "Read users" },
  writeUsers: { id: "write:users", name: "Write users" },
  readIntegrations: { id: "read:integrations", name: "Read integrations" },
  writeIntegrations: { id: "write:integrations", name: "Write integrations" },
  readJobs: { id: "read:automations", name: "Read automated jobs" },
  writeJobs: { id: "write:automations", name: "Write automated jobs" },
} as const;

/** The scopes of operations whose description names others than the contract's summary table (named in 401/403 messages). */
export const OPERATION_SCOPES = {
  listEntitlements: [SCOPES.writeIntegrations],
  invite: [SCOPES.writeIntegrations, SCOPES.readJobs],
  memberWrite: [SCOPES.writeIntegrations, SCOPES.writeJobs],
} as const;

/** One scope of an API key: its identifier and the name the service's UI shows. */
export type Scope = (typeof SCOPES)[keyof typeof SCOPES];

/** "Read users (read:users) and Read integrations (read:integrations)" */
export function describeScopes(scopes: readonly Scope[]): string {
  const names = scopes.map((s) => `${s.name} (${s.id})`);
  if (names.length <= 1) return names[0] ?? "no particular scope";
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
