/**
 * The workspace access API emulator: a real `node:http` server holding the whole contract in
 * memory, with faults, rate limits and jobs that tests can steer.
 *
 * ```ts
 * const emulator = await startEmulator(); // the default world; { seed: {} } starts empty
 * // ... point a client at emulator.url with emulator.apiKey ...
 * await emulator.close();
 * ```
 */
import "../supported-node";

export { type EmulatorClock, systemClock } from "./clock";
export { startEmulator } from "./emulator";
export { INVITE_FAILED_ERROR_TYPE } from "./faults";
export { DEFAULT_FINISH_AFTER_POLLS, INJECTED_ERROR_TYPE } from "./jobs";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging";
export { ENTITLEMENT_NOT_FOUND, INTEGRATION_WORKFLOWS } from "./routes/integrations";
export { USER_ROLES, USER_WORKFLOWS } from "./routes/users";
export { ALL_SCOPES, type Scope } from "./scopes";
export { DEFAULT_IDS, defaultSeed, parseSeed } from "./seed";
export { ALREADY_MEMBER } from "./routes/integrations";
export { ADVERSARIAL_IDS, adversarialSeed } from "./worlds";
export { POPULATED_BIG_MEMBERS, POPULATED_IDS, POPULATED_USER_COUNT, populatedEmail, populatedSeed, populatedUserId } from "./worlds";
export type {
  AnsweredRequest,
  BatchInviteFailure,
  MissingScopeStatus,
  EmulatedEntitlement,
  EmulatedIntegration,
  EmulatedJob,
  EmulatedMember,
  EmulatedUser,
  Emulator,
  EmulatorIntegrations,
  EmulatorJobs,
  EmulatorOptions,
  EmulatorQuirks,
  PageHook,
  PageRead,
  EmulatorSeed,
  EmulatorUsers,
  EntitlementGroup,
  Fault,
  JobErrorDetails,
  JobStatus,
  JobTiming,
  MemberRole,
  RateLimit,
  RecordedRequest,
  SeedEntitlement,
  SeedIntegration,
  SeedMember,
  SeedUser,
  UserStatus,
  WorkspaceRole,
} from "./types";
