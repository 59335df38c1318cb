/** The shapes of an operation: what goes in (context, config) and what comes out (steps, logs). */
import type { EngineError } from "./engine-error.ts";
import type { EngineLogEntry } from "./engine-service.ts";
import type { Json, PropertyMap } from "./properties.ts";
import type { DiffResult, GrpcExchange } from "./provider-host.ts";
import type { Registration } from "./runner-protocol.ts";
import type { StackState } from "./state.ts";

/** The operations of the harness. */
export type OperationKind = "up" | "preview" | "refresh" | "destroy";

/** What a step did (or, in a preview, would do). `delete-replaced` removes the old copy of a replaced resource. */
export type StepOp = "create" | "update" | "replace" | "delete" | "delete-replaced" | "same" | "read";

/** One step of an operation. */
export interface Step {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** The resource's id after the step (empty when unknown, e.g. a create in a preview). */
  id: string;
  /** The provider's `Diff` answer (`source: "engine"` when it said DIFF_UNKNOWN and the engine compared inputs). */
  diff?: DiffResult & { source: "provider" | "engine" };
  /** False in a preview: nothing was applied. */
  applied: boolean;
  durationMs: number;
  error?: string;
}

/** A stack config value: a string, or a value with its secretness. */
export type ConfigValue = string | { value: string | number | boolean | Json; secret?: boolean };

/** A config entry as the engine holds it: a string (JSON for structured values) and whether it is secret. */
export interface ResolvedConfigValue {
  value: string;
  secret: boolean;
}

/** Answers the program's invokes (`call` of the mocks). */
export type InvokeHandler = (token: string, args: PropertyMap) => PropertyMap | Promise<PropertyMap>;

/** Everything an operation observed. */
export interface OperationResult {
  operation: OperationKind;
  steps: Step[];
  /** Stack outputs (wire form: secrets wrapped, unknowns as the placeholder in a preview). */
  outputs: PropertyMap;
  /** Every registration of the program, in arrival order, inputs in wire form (`__provider` included). */
  registrations: Registration[];
  invokes: Array<{ token: string; args: PropertyMap }>;
  /** Every gRPC request/response with the dynamic-provider host. */
  grpc: GrpcExchange[];
  /** The host process: its pid (= process group), stdout (port line first) and stderr. */
  hostLog: { pid?: number; stdout: string; stderr: string; exit?: { code: number | null; signal: string | null } };
  /** `Engine.Log` calls made to the engine service. */
  engineLogs: EngineLogEntry[];
  /** Methods called on the engine service. */
  engineCalls: string[];
  /** The program runner: pid (= process group), stdout, stderr, and what failed in it. */
  program: { pid?: number; stdout: string; stderr: string; error?: string; uncaught: string[] };
  errors: EngineError[];
  timings: { totalMs: number; hostStartMs?: number; programMs?: number };
}

/** Inputs of one operation. */
export interface OperationContext {
  operation: OperationKind;
  projectDir: string;
  projectName: string;
  stackName: string;
  organization: string;
  /** Absolute path of the program (up and preview). */
  programFile?: string;
  config: Record<string, ResolvedConfigValue>;
  prior: StackState;
  /** Environment of the program and the host (PULUMI_* variables of the caller are not passed on). */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  invoke?: InvokeHandler;
  /**
   * At most this many resource steps at once, like `pulumi --parallel` (a registration's
   * Check/Diff/Create/Update; a refresh Read; a destroy's Delete). Unset: the CLI's default
   * `--parallel`, four per CPU.
   */
  parallel?: number;
}
