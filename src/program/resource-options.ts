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
