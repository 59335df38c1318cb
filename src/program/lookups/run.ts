/** What every lookup does around its own logic: arguments checked first, the session, 401/403 hints, the output form. */
import * as pulumi from "@pulumi/pulumi";
import { WorkspaceAccessError } from "../../client/errors";
import { emailKey } from "../../client/models";
import { hinted } from "../../shared/hints";
import { type ArgumentSpec, checkArguments } from "./arguments";
import { lookupSession, type LookupSession } from "./session";

/** The arguments of a lookup's output form: each one may be a Pulumi input. */
export type LookupInputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Marks the options an output form hands its lookup once the resources of its `dependsOn` exist: the lookup reads afresh. */
const AFTER_DEPENDS_ON = Symbol.for("pulumi-workspace-access:lookup-after-depends-on");
const afterDependsOn = { [AFTER_DEPENDS_ON]: true } as pulumi.InvokeOptions;

/**
 * Checks `args` against `spec` (throwing before any request), then runs `lookup` with the session, a 401/403 hinted. After
 * `dependsOn` (`opts` from {@link outputOf}), the session remembers nothing yet: the run's earlier listings predate those writes.
 */
export async function runLookup<A, R>(
  spec: ArgumentSpec,
  args: A,
  lookup: (args: A, session: LookupSession) => Promise<R>,
  opts?: pulumi.InvokeOptions,
): Promise<R> {
  try {
    const checked = checkArguments<A>(spec, args);
    const session = await lookupSession();
    const fresh = (opts as Record<symbol, unknown> | undefined)?.[AFTER_DEPENDS_ON] === true;
    return await lookup(checked, fresh ? session.fresh() : session);
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

/**
 * The output form of `lookup`: runs once every argument is known and the resources of `opts.dependsOn` exist (a component's:
 * every resource under it, as Pulumi's own invokes wait), reading afresh what the run listed before them.
 */
export const outputOf =
  <A, R>(lookup: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>) =>
  (...[args, opts]: OutputParameters<A>): pulumi.Output<R> => {
    const dependsOn = opts?.dependsOn;
    const ready =
      dependsOn === undefined
        ? pulumi.output([])
        : pulumi.output(dependsOn).apply(async (resources) => {
            const list = await withChildren(Array.isArray(resources) ? resources : [resources]);
            return pulumi.all(list.map((r: pulumi.Resource) => (pulumi.CustomResource.isInstance(r) ? r.id : r.urn)));
          });
    const opened = dependsOn === undefined ? undefined : afterDependsOn;
    return pulumi.all([pulumi.output(args as pulumi.Input<object>), ready]).apply(([resolved]) => lookup(resolved as A, opened));
  };

/** The resources and, under each component, every custom resource it holds (the SDK's own walk; without it, the resources). */
async function withChildren(resources: pulumi.Resource[]): Promise<pulumi.Resource[]> {
  if (!resources.some((r) => pulumi.ComponentResource.isInstance(r))) return resources;
  let walk: ((of: Set<pulumi.Resource>, exclude: Set<pulumi.Resource>) => Promise<pulumi.Resource[]>) | undefined;
  try {
    walk = require("@pulumi/pulumi/runtime/dependsOn").getAllTransitivelyReferencedResources;
  } catch {
    walk = undefined;
  }
  return typeof walk === "function" ? [...resources, ...(await walk(new Set(resources), new Set()))] : resources;
}

/** Strings in order, missing ones last: the lookups' results sort stably. */
export function nullsLast(a: string | null | undefined, b: string | null | undefined): number {
  if (a === b) return 0;
  if (a == null || b == null) return a == null ? 1 : -1;
  return a < b ? -1 : 1;
}

/** By email, case-insensitively, missing ones last. */
export const byEmail = (a: string | null, b: string | null) => nullsLast(a === null ? null : emailKey(a), b === null ? null : emailKey(b));
