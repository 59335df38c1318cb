/**
 * The end-to-end harness: plays the Pulumi engine against the real dynamic-provider host of
 * `@pulumi/pulumi`. See README.md beside this file.
 */
export { CLI_DEFAULT_PARALLEL, isDynamicType } from "./deployment.ts";
export { EngineError, type EngineErrorDetails, type FailedOperation } from "./engine-error.ts";
export type { EngineLogEntry, LogSeverity } from "./engine-service.ts";
export type { ConfigValue, InvokeHandler, OperationKind, OperationResult, Step, StepOp } from "./operation.ts";
export { harnessDir, repoRoot } from "./paths.ts";
export { createProject, type InstallOptions, installTarball, type Project, type ProjectOptions, repoPulumiDir } from "./project.ts";
export {
  annotateSecrets,
  containsSecrets,
  isSecret,
  type Json,
  jsonContains,
  makeSecret,
  type PropertyMap,
  secretSig,
  specialSigKey,
  unknownValue,
  unwrapSecret,
} from "./properties.ts";
export { type DiffResult, type GrpcExchange, type InitFailure, processGroupAlive } from "./provider-host.ts";
export type { Registration, RegistrationOptions } from "./runner-protocol.ts";
export { openStack, Stack, type StackOptions } from "./stack.ts";
export type { ResourceState, StackState } from "./state.ts";
