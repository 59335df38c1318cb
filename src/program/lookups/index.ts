/** The lookups: find users, integrations, entitlements and members by what people know them by. */
export { type LookupCandidate, LookupError } from "./lookup-error";
export {
  type GetIntegrationArgs,
  type GetIntegrationEntitlementsArgs,
  type GetIntegrationEntitlementsResult,
  type GetIntegrationMembersArgs,
  type GetIntegrationMembersResult,
  type GetIntegrationsArgs,
  type GetIntegrationsResult,
  getIntegration,
  getIntegrationEntitlements,
  getIntegrationEntitlementsOutput,
  getIntegrationMembers,
  getIntegrationMembersOutput,
  getIntegrationOutput,
  getIntegrations,
  getIntegrationsOutput,
  type LookedUpEntitlement,
  type LookedUpIntegration,
  type LookedUpMember,
} from "./integrations";
export type { LookupInputs } from "./run";
export {
  type GetUserArgs,
  type GetUsersArgs,
  type GetUsersResult,
  getUser,
  getUserOutput,
  getUsers,
  getUsersOutput,
  type LookedUpUser,
} from "./users";
