/**
 * Pulumi's resource options as the package's classes pass them on. Two differ from what the
 * engine would do with a dynamic resource (docs/pulumi-habits.md):
 *
 * - `import`: the engine's import reads the record through the provider before any `__provider`
 *   is known, and fails (pulumi/pulumi#3550). The classes take the option out and hand the id to
 *   their create as a hidden input (`__importId`), which adopts the record with that id.
 * - `deleteBeforeReplace`: a forced `pulumi up --replace` never asks the provider's diff, so only
 *   the resource option can make it delete first. Two of these records cannot coexist (an email is
 *   taken, a membership exists), so the classes default it to true; the program may set it.
 */
import type * as pulumi from "@pulumi/pulumi";
import { IMPORT_ID } from "../shared/inputs";

/** The options to register with, and the hidden input that carries `import` (empty when none). */
export function packageOptions(opts: pulumi.CustomResourceOptions | undefined): {
  opts: pulumi.CustomResourceOptions;
  importInput: Record<string, pulumi.Input<string> | undefined>;
} {
  const { import: importId, ...rest } = opts ?? {};
  return {
    opts: { ...rest, deleteBeforeReplace: rest.deleteBeforeReplace ?? true },
    importInput: { [IMPORT_ID]: importId },
  };
}
