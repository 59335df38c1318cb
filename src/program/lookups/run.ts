/** What every lookup does around its own logic: arguments checked first, the session, 401/403 hints, the output form. */
import * as pulumi from "@pulumi/pulumi";
import { WorkspaceAccessError, withMessage } from "../../client/errors";
import { redactError } from "../../client/redact";
import { hiderOf } from "../../shared/hide-secrets";
import { emailKey } from "../../client/models";
import { hinted } from "../../shared/hints";
import { programKeySource, programRedactor } from "../program-settings";
import { type ArgumentSpec, checkArguments } from "./arguments";
import { lookupSession, type LookupSession } from "./session";

/** The arguments of a lookup's output form: each one may be a Pulumi input. */
export type LookupInputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/**
 * Marks the options an output form hands its lookup once the resources it waited for exist (its `dependsOn` and its arguments'
 * resources): the lookup reads afresh. The value names those resources (their sorted URNs).
 */
const AFTER_RESOURCES = Symbol.for("pulumi-workspace-access:lookup-after-depends-on");
const afterResources = (key: string) => ({ [AFTER_RESOURCES]: key }) as pulumi.InvokeOptions;

/**
 * Checks `args` against `spec` (throwing before any request), then runs `lookup` with the session, a 401/403 hinted. After
 * resources it waited for (`opts` from {@link outputOf}), the session is the one of the lookups after that same set: the run's
 * earlier listings predate those writes. A failure that is not the lookup's own (a settings error, a read the client refused
 * or could not parse) is led by the lookup and its arguments ({@link ofLookup}): a program may call many.
 */
export async function runLookup<A, R>(
  spec: ArgumentSpec,
  args: A,
  lookup: (args: A, session: LookupSession) => Promise<R>,
  opts?: pulumi.InvokeOptions,
): Promise<R> {
  let checked: A;
  try {
    checked = checkArguments<A>(spec, args);
  } catch (error) {
    throw programFailure(error);
  }
  try {
    const session = await lookupSession();
    const after = (opts as Record<symbol, unknown> | undefined)?.[AFTER_RESOURCES];
    return await lookup(checked, typeof after === "string" ? session.after(after) : session);
  } catch (error) {
    throw programFailure(ofLookup(error, spec.lookup, checked as Record<string, unknown>));
  }
}

/**
 * `error` led by the call that met it, `getUser({ id: "u-2" }): GET /api/v1/users/u-2 answered 200 with…`, unless its message is
 * already the lookup's own (`getUser: …`, which names what was looked for). A copy: lookups that arrive together share one
 * call, so one error, and each names its own arguments.
 */
function ofLookup(error: unknown, lookup: string, args: Record<string, unknown>): unknown {
  if (!(error instanceof Error) || error.message.startsWith(`${lookup}: `)) return error;
  const given = Object.entries(args).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  const call = `${lookup}(${given.length > 0 ? `{ ${given.join(", ")} }` : ""})`;
  return withMessage(error, `${call}: ${error.message}`);
}

/**
 * A lookup's or `getJob`'s failure as the program gets it: a 401/403 says where the key came from; then, the last step, every text
 * of it (message, stack, fields, cause) loses the key in force, whole or any run of 8 of its characters, as the provider's messages
 * do (`programRedactor`): they quote the service's texts (a record's label or id), which a gateway may make of the key. A package
 * error is marked as Pulumi marks its `RunError`: the language host prints its message alone, not a stack and the object. Its
 * `stack` is its message too: a failure that arrives once the program has finished (a connection refused, then retried) is
 * printed by the SDK as its `stack`, whatever its mark, and the package's frames tell a user nothing.
 */
export function programFailure(error: unknown): unknown {
  const failure = redactError(hinted(error, false, programKeySource()), programRedactor());
  if (WorkspaceAccessError.isInstance(failure)) {
    Object.defineProperty(failure, "__pulumiRunError", { value: true, configurable: true });
    Object.defineProperty(failure, "stack", { value: failure.message, writable: true, configurable: true });
  }
  return failure;
}

/** An output form's parameters, `args` and `opts`: `args` may be left out where the lookup's may (no labels: TypeScript 3.8). */
type OutputParameters<A> = undefined extends A
  ? [LookupInputs<A>?, pulumi.InvokeOutputOptions?]
  : [LookupInputs<A>, pulumi.InvokeOutputOptions?];

/**
 * The output form of `lookup`, as Pulumi's own `invokeOutput` waits: it runs once every argument is known and the resources it
 * depends on exist, those of `opts.dependsOn` and those its arguments' outputs come from (a component's: every resource under
 * it), reading afresh what the run listed before them. In a preview, one of them still to be created (its id unknown) makes the
 * result unknown, and nothing is sent. A secret argument makes the result a secret, and its failure names it `[secret]`.
 */
export const outputOf =
  <A, R>(lookup: (args: A, opts?: pulumi.InvokeOptions) => Promise<R>) =>
  (...[args, opts]: OutputParameters<A>): pulumi.Output<R> => {
    const waited = pulumi
      .output(resourcesWaitedFor(args, opts?.dependsOn))
      .apply((resources) => pulumi.all(resources.map(existing)).apply((urns) => [...new Set(urns)].sort().join(" ")));
    return pulumi.all([pulumi.output(args as pulumi.Input<object>), waited]).apply(async ([resolved, key]) => {
      try {
        return await lookup(resolved as A, key === "" ? undefined : afterResources(key));
      } catch (error) {
        // The result of a secret argument is a secret (the apply keeps it so); its failure is printed, so it names none.
        const secrets = await secretArguments(args, resolved);
        throw secrets.length > 0 ? redactError(error, hiderOf(secrets)) : error;
      }
    });
  };

/**
 * The string values among the resolved arguments that were given as secrets: each one given as a secret, or every one when the
 * arguments are one input (an output or a promise of the whole object) that is a secret.
 */
async function secretArguments(args: unknown, resolved: unknown): Promise<string[]> {
  if (resolved === null || typeof resolved !== "object") return [];
  const apart = args !== null && typeof args === "object" && !pulumi.Output.isInstance(args) && !(args instanceof Promise);
  const whole = !apart && (await pulumi.isSecret(pulumi.output(args as pulumi.Input<object>)));
  const secret = async (key: string) => whole || (apart && (await pulumi.isSecret(pulumi.output((args as Record<string, unknown>)[key]))));
  const values: string[] = [];
  for (const [key, value] of Object.entries(resolved)) if (typeof value === "string" && (await secret(key))) values.push(value);
  return values;
}

/** A resource's URN once it exists: a custom resource's once its id is known (unknown in a preview while it is to be created). */
function existing(resource: pulumi.Resource): pulumi.Output<string> {
  // A `DependencyResource` (a custom resource known by URN only) has no id to wait for.
  const id = pulumi.CustomResource.isInstance(resource) ? (resource as pulumi.CustomResource).id : undefined;
  return id === undefined ? resource.urn : pulumi.all([resource.urn, id]).apply(([urn]) => urn);
}

/** The SDK's own walks, as `invokeOutput` uses them: internal, so looked up at run time (without them, the lookup waits on less). */
interface SdkWalks {
  gatherExplicitDependencies?: (dependsOn: unknown) => Promise<pulumi.Resource[]>;
  getAllTransitivelyReferencedResources?: (of: Set<pulumi.Resource>, exclude: Set<pulumi.Resource>) => Promise<Iterable<pulumi.Resource>>;
  serializePropertiesReturnDeps?: (label: string, props: object) => Promise<[unknown, Map<string, Set<pulumi.Resource>>]>;
}

function sdk(module: "dependsOn" | "rpc"): SdkWalks {
  try {
    return require(`@pulumi/pulumi/runtime/${module}`) as SdkWalks;
  } catch {
    return {};
  }
}

/** The resources `dependsOn` names and those the arguments' outputs come from, with every custom resource under each component. */
async function resourcesWaitedFor(args: object | undefined, dependsOn: unknown): Promise<pulumi.Resource[]> {
  const { gatherExplicitDependencies } = sdk("dependsOn");
  const { serializePropertiesReturnDeps } = sdk("rpc");
  const explicit =
    dependsOn === undefined
      ? []
      : gatherExplicitDependencies
        ? await gatherExplicitDependencies(dependsOn)
        : [dependsOn].flat().filter((r): r is pulumi.Resource => pulumi.Resource.isInstance(r));
  const fromArgs: pulumi.Resource[] = [];
  if (serializePropertiesReturnDeps && args !== undefined) {
    // Under a key of their own: arguments given as one output (or a promise) are walked as a value, their resources found too
    // (the SDK walks the keys of the object it is handed, and an output's own keys are not the arguments).
    const [, deps] = await serializePropertiesReturnDeps("lookup arguments", { args });
    for (const resources of deps.values()) fromArgs.push(...resources);
  }
  return withChildren([...new Set([...explicit, ...fromArgs])]);
}

/** The resources and, under each component, every custom resource it holds (the SDK's own walk; without it, the resources). */
async function withChildren(resources: pulumi.Resource[]): Promise<pulumi.Resource[]> {
  if (!resources.some((r) => pulumi.ComponentResource.isInstance(r))) return resources;
  const walk = sdk("dependsOn").getAllTransitivelyReferencedResources;
  return typeof walk === "function" ? [...new Set([...resources, ...(await walk(new Set(resources), new Set()))])] : resources;
}

/** Strings in order, missing ones last: the lookups' results sort stably. */
export function nullsLast(a: string | null | undefined, b: string | null | undefined): number {
  if (a === b) return 0;
  if (a == null || b == null) return a == null ? 1 : -1;
  return a < b ? -1 : 1;
}

/** By email, case-insensitively, missing ones last. */
export const byEmail = (a: string | null, b: string | null) => nullsLast(a === null ? null : emailKey(a), b === null ? null : emailKey(b));
