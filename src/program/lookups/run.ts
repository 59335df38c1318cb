/** What every lookup does around its own logic: arguments checked first, the session, 401/403 hints, the output form. */
import * as pulumi from "@pulumi/pulumi";
import { WorkspaceAccessError } from "../../client/errors";
import { emailKey } from "../../client/models";
import { hinted } from "../../shared/hints";
import { type ArgumentSpec, checkArguments } from "./arguments";
import { lookupSession, type LookupSession } from "./session";

/** The arguments of a lookup's output form: each one may be a Pulumi input. */
export type LookupInputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Checks `args` against `spec` (throwing before any request), then runs `lookup` with the session, a 401/403 hinted. */
export async function runLookup<A, R>(spec: ArgumentSpec, args: A, lookup: (args: A, session: LookupSession) => Promise<R>): Promise<R> {
  try {
    const checked = checkArguments<A>(spec, args);
    return await lookup(checked, await lookupSession());
  } catch (error) {
    throw printedAsOneLine(hinted(error));
  }
}

/** Marks a package error as Pulumi marks its `RunError`: the language host prints its message alone, not a stack and the object. */
export function printedAsOneLine(error: unknown): unknown {
  if (WorkspaceAccessError.isInstance(error)) Object.defineProperty(error, "__pulumiRunError", { value: true, configurable: true });
  return error;
}

/** An output form's parameters, `args` and `opts`: `args` may be left out where the lookup's may (no labels: TypeScript 3.8). */
type OutputParameters<A> = undefined extends A
  ? [LookupInputs<A>?, pulumi.InvokeOutputOptions?]
  : [LookupInputs<A>, pulumi.InvokeOutputOptions?];

/** The output form of `lookup`: runs once every argument is known and the resources of `opts.dependsOn` exist. */
export const outputOf =
  <A, R>(lookup: (args: A) => Promise<R>) =>
  (...[args, opts]: OutputParameters<A>): pulumi.Output<R> => {
    const dependsOn = opts?.dependsOn;
    const ready =
      dependsOn === undefined
        ? pulumi.output([])
        : pulumi.output(dependsOn).apply((resources) => {
            const list = Array.isArray(resources) ? resources : [resources];
            return pulumi.all(list.map((r: pulumi.Resource) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn)));
          });
    return pulumi.all([pulumi.output(args as pulumi.Input<object>), ready]).apply(([resolved]) => lookup(resolved as A));
  };

/** Strings in order, missing ones last: the lookups' results sort stably. */
export function nullsLast(a: string | null | undefined, b: string | null | undefined): number {
  if (a === b) return 0;
  if (a == null || b == null) return a == null ? 1 : -1;
  return a < b ? -1 : 1;
}

/** By email, case-insensitively, missing ones last. */
export const byEmail = (a: string | null, b: string | null) => nullsLast(a === null ? null : emailKey(a), b === null ? null : emailKey(b));
