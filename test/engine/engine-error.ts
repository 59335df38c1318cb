/** What an operation of the harness throws when the engine would have reported an error. */
import type { OperationResult } from "./operation.ts";
import type { InitFailure } from "./provider-host.ts";

/** The engine's step or phase that failed. */
export type FailedOperation = "check" | "diff" | "create" | "update" | "delete" | "read" | "configure" | "register" | "program" | "timeout";

/** Fields of {@link EngineError} besides the message. */
export interface EngineErrorDetails {
  operation: FailedOperation;
  urn?: string;
  resourceType?: string;
  resourceName?: string;
  /** The gRPC status code, when a provider call failed (2 = UNKNOWN for a provider exception). */
  grpcCode?: number;
  /** The gRPC status message: for a provider exception, the exception's message. */
  grpcMessage?: string;
  /** A partial create/update: the resource exists (and is in state) but failed to initialize. */
  initFailure?: InitFailure;
}

/**
 * An error the engine reports for a step: names the operation and the resource, and carries the
 * provider's gRPC message. `result` is attached by the stack operation that failed (steps done, logs).
 */
export class EngineError extends Error {
  readonly operation: FailedOperation;
  readonly urn?: string;
  readonly resourceType?: string;
  readonly resourceName?: string;
  readonly grpcCode?: number;
  readonly grpcMessage?: string;
  readonly initFailure?: InitFailure;
  /** The operation's result up to the failure (set by the stack). */
  result?: OperationResult;

  constructor(message: string, details: EngineErrorDetails) {
    super(message);
    this.name = "EngineError";
    this.operation = details.operation;
    if (details.urn !== undefined) this.urn = details.urn;
    if (details.resourceType !== undefined) this.resourceType = details.resourceType;
    if (details.resourceName !== undefined) this.resourceName = details.resourceName;
    if (details.grpcCode !== undefined) this.grpcCode = details.grpcCode;
    if (details.grpcMessage !== undefined) this.grpcMessage = details.grpcMessage;
    if (details.initFailure !== undefined) this.initFailure = details.initFailure;
  }
}
