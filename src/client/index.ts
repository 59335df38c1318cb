export { WorkspaceAccessClient } from "./client";
export { type Clock, systemClock } from "./clock";
export * from "./errors";
export { type Id, idOf, sameId } from "./ids";
export type { JobHandle, WaitOptions } from "./jobs";
export {
  collect,
  emailKey,
  type Entitlement,
  type Integration,
  type IntegrationUser,
  type Job,
  KNOWN_USER_ROLES,
  sameEmail,
  type User,
  type UserAttributes,
} from "./models";
export type { IntegrationRole } from "./requests";
export { SCOPES, type Scope } from "./scopes";
export { type ClientOptions, parseBaseUrl } from "./settings";
