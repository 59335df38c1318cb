/**
 * pulumi-workspace-access: Pulumi resources for a workspace access management service.
 *
 * ```ts
 * import * as wa from "pulumi-workspace-access";
 * const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
 * new wa.IntegrationEntitlement("alice-youtube", { integrationId, userId: alice.id, entitlements: ["VIEWER"] });
 * ```
 */
import "./supported-node";

export { User, type UserArgs, type UserRole } from "./program/user";
export {
  IntegrationEntitlement,
  type IntegrationEntitlementArgs,
  type IntegrationEntitlementRole,
} from "./program/integration-entitlement";
export { type IntegrationMemberArgs, IntegrationMembers, type IntegrationMembersArgs } from "./program/integration-members";
export type { IntegrationMemberState, UnmanagedIntegrationMember, WorkspaceUserState } from "./shared/member-state";
export { type WorkspaceUserArgs, WorkspaceUsers, type WorkspaceUsersArgs } from "./program/workspace-users";
export { getJob, getJobOutput, type GetJobArgs, type Job } from "./program/get-job";
export { applyTransformedOptions } from "./program/transformed-options";
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
} from "./program/lookups/integrations";
export {
  type GetUserArgs,
  type GetUsersArgs,
  type GetUsersResult,
  getUser,
  getUserOutput,
  getUsers,
  getUsersOutput,
  type LookedUpUser,
} from "./program/lookups/users";
export { type LookupCandidate, LookupError } from "./program/lookups/lookup-error";
export type { LookupInputs } from "./program/lookups/run";
export { CONFIG_KEYS, CONFIG_NAMESPACE } from "./shared/settings";
export {
  ApiError,
  BadRequestError,
  type ClientOptions,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  type Entitlement,
  type ErrorKind,
  ForbiddenError,
  type Integration,
  type IntegrationUser,
  InvalidResponseError,
  JobFailedError,
  type JobHandle,
  JobTimeoutError,
  NotFoundError,
  RateLimitError,
  SCOPES,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnknownFailureError,
  type User as WorkspaceUser,
  type UserAttributes,
  WorkspaceAccessClient,
  WorkspaceAccessError,
} from "./program/client-exports";
