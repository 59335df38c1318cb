/**
 * The messages between the engine (the test process) and the program runner (a child process), over
 * Node's IPC channel. The runner plays the language host: it runs the program under
 * `pulumi.runtime.setMocks` and forwards every registration to the engine, which answers with the id
 * and outputs the real dynamic-provider host produced.
 */
import type { PropertyMap } from "./properties.ts";

/** How the engine starts the runner (passed as one JSON argument). */
export interface RunnerArgs {
  /** The Pulumi project directory (also the runner's cwd). */
  projectDir: string;
  /** Absolute path of the program: a `.js`/`.cjs` file, or a `.ts` file transpiled to CommonJS. */
  programFile: string;
  project: string;
  stack: string;
  organization: string;
  preview: boolean;
  /** A file inside the harness's own package, from which `typescript` is resolved. */
  toolsRequireBase: string;
}

/** The resource options the engine acts on, as the SDK sent them. */
export interface RegistrationOptions {
  /** Only when the program set it: it then overrides the provider's `Diff` answer either way. */
  deleteBeforeReplace?: boolean;
  retainOnDelete: boolean;
  protect: boolean;
  ignoreChanges: string[];
  replaceOnChanges: string[];
}

/** One `RegisterResource` (or `ReadResource`) call of the program, in wire form. */
export interface Registration {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  parent: string;
  /** Inputs as serialized by the SDK: secrets wrapped, unknowns as the placeholder, `__provider` a string. */
  inputs: PropertyMap;
  dependencies: string[];
  propertyDependencies: Record<string, string[]>;
  /** A `provider` reference, when the program passed an explicit provider. */
  provider: string;
  /** Set for `ReadResource` (a `get` of an existing resource). */
  readId?: string;
  /** Set when the program asked to import an existing resource. */
  importId?: string;
  options: RegistrationOptions;
}

/** Messages from the runner to the engine. */
export type RunnerMessage =
  | { kind: "register"; seq: number; registration: Registration }
  | { kind: "invoke"; seq: number; token: string; args: PropertyMap }
  | { kind: "done"; outputs: PropertyMap; error?: string; uncaught: string[] };

/** What the engine hands back for a registration. */
export interface RegistrationResult {
  /** Empty during a preview of a create: the SDK then treats the id as unknown. */
  id: string;
  state: PropertyMap;
}

/** Messages from the engine to the runner. */
export type EngineMessage =
  | { kind: "registered"; seq: number; result?: RegistrationResult; error?: string }
  | { kind: "invoked"; seq: number; result?: PropertyMap; error?: string };

/** The type of the root resource every program runs in. */
export const rootStackType = "pulumi:pulumi:Stack";

/**
 * A URN as the engine builds it: the parent's qualified type, minus the root stack, joined with `$`.
 * (The SDK's mock monitor keeps only the parent's last type segment and includes the stack's type.)
 */
export function engineUrn(stack: string, project: string, parent: string, type: string, name: string): string {
  let qualified = type;
  if (parent) {
    const parentQualified = parent.split("::")[2] ?? "";
    if (parentQualified !== rootStackType) qualified = `${parentQualified}$${type}`;
  }
  return `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
}
