export { WorkspaceAccessClient } from "./client";
export { type Clock, systemClock } from "./clock";
export * from "./errors";
export { type Id, idOf, sameId } from "./ids";
export type { JobHandle } from "./jobs";
export {
  collect,
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
export { SCOPES } from "./scopes";
export { type ClientOptions, parseBaseUrl } from "./settings";
