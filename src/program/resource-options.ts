/**
 * Pulumi's resource options as the package's classes pass them on (docs/pulumi-habits.md). `import`: the engine's
 * import fails before any `__provider` is known (pulumi/pulumi#3550), so the id goes to the create as a hidden input.
 * `deleteBeforeReplace` defaults to true: two of these records cannot coexist, and `up --replace` never asks the diff.
 */
import type * as pulumi from "@pulumi/pulumi";
import { IMPORT_ID } from "../shared/input-constants";
import { warnIfPlaintextApiKey } from "./program-checks";

/** The options to register with and the hidden input that carries `import`; warns (once a run) of a plaintext API key. */
export function packageOptions(opts: pulumi.CustomResourceOptions | undefined): {
  opts: pulumi.CustomResourceOptions;
  importInput: Record<string, pulumi.Input<string> | undefined>;
} {
  warnIfPlaintextApiKey();
  const { import: importId, ...rest } = opts ?? {};
  return {
    opts: { ...rest, deleteBeforeReplace: rest.deleteBeforeReplace ?? true },
    importInput: { [IMPORT_ID]: importId },
  };
}

/** The properties only the provider sets, registered empty so the engine gives each its output. */
export const outputs = (...names: string[]): Record<string, undefined> => Object.fromEntries(names.map((name) => [name, undefined]));

/**
 * Sets `Error.stackTraceLimit` to 0 for a registration, returning the limit {@link afterRegistration} puts back. Pulumi's
 * SDK takes a stack trace for each property of every resource (for its report of promises left unresolved), formatted
 * through source maps: 3 to 5 ms of the program's CPU per resource, more than the rest of its registration. The one it
 * takes for the resource's source position sets its own limit, so positions are kept. Called in each class's own
 * constructor, not a base class: the SDK finds the user's line a fixed number of frames above `new Resource`.
 */
export function beforeRegistration(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return limit;
}

/** Puts the limit back after a registration; an error the registration threw gets the stack it was created without. */
export function afterRegistration(limit: number, error?: unknown): unknown {
  Error.stackTraceLimit = limit;
  if (error instanceof Error) Error.captureStackTrace(error, afterRegistration);
  return error;
}
