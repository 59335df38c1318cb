/**
 * The context of this host process, and the provider objects that hand it to their handlers: one per resource type, each
 * configured with the same stack config, sharing one {@link ProviderContext}. The dynamic-provider interface hands its methods
 * no context, so this module keeps it: the provider's only module-level variable, set by `configure` (or by a test).
 */
import type * as pulumi from "@pulumi/pulumi";
import { redactError } from "../client/redact";
import { customTimeoutsFailures, type TimedOperation } from "../shared/custom-timeouts";
import { type StateCommand, stateHinted } from "../shared/hints";
import { CUSTOM_TIMEOUTS, GET_READ, REPLACE_ON_CHANGES, RETAIN_ON_DELETE, WORKSPACE } from "../shared/input-constants";
import { settle } from "./host-end";
import { deadlineOf, timeoutsOf, withTimeouts, withTimeoutsRecorded } from "./operation-timeouts";
import { ProviderContext } from "./provider-context";
import { hiddenOf, withHidden, withHiddenRecorded, withoutHidden } from "./hidden-inputs";
import { sameWorkspace } from "./recorded-workspace";
import { replacePathsOf, replacesFor, withReplacePaths } from "./replace-on-changes";

export { type Connection, type ContextOptions, ProviderContext } from "./provider-context";

let processContext: ProviderContext | undefined;

/** The provider's `configure` hook: builds the process's context; another call with the same config (each type's) keeps it. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const next = new ProviderContext(req.config);
  if (processContext?.builtLike(next)) return;
  // What the old context learnt is written before it goes (its close is not waited for: requests may be in flight).
  await settle(processContext);
  void processContext?.close();
  processContext = next;
}

/** The process's context: the one `configure` built, else (never in the host) one from the environment alone. */
export function currentContext(): ProviderContext {
  processContext ??= new ProviderContext(undefined);
  return processContext;
}

/** Installs `context` as the process's (tests build one with a virtual clock); `undefined` forgets it, closing its client. */
export function useContext(context: ProviderContext | undefined): void {
  if (processContext !== context) void processContext?.close();
  processContext = context;
}

/** The handlers of one resource type: those of `pulumi.dynamic.ResourceProvider`, each given the process's context first. */
export interface Handlers<Inputs, Outputs> {
  /** The resource type (`User`), as messages name it. */
  type: string;
  check?(context: ProviderContext, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult<Inputs>>;
  /**
   * `replacing`: the properties the resource's `replaceOnChanges` asks to replace it for (`replace-on-changes.ts`). `retained`:
   * the program declares the resource with `retainOnDelete: true` (its hidden input), so a replacement's delete is skipped.
   */
  diff?(
    context: ProviderContext,
    id: string,
    olds: Outputs,
    news: Inputs,
    replacing: readonly string[],
    retained: boolean,
  ): Promise<pulumi.dynamic.DiffResult>;
  /** The input properties a diff finds changed, as paths (`lastName`, `users[ann@example.com].role`), for `replaceOnChanges`. */
  changed?(olds: Outputs, news: Inputs): string[];
  create(context: ProviderContext, inputs: Inputs): Promise<pulumi.dynamic.CreateResult<Outputs>>;
  /**
   * For a create of a resource declared with `retainOnDelete: true` that failed: when `error` says the record is there already,
   * what to add to its message (a replacement's skipped delete left the old resource's record, and how to take it back).
   */
  retainedNote?(error: Error, inputs: Inputs): string | undefined;
  /**
   * A refresh's read, of the state `props` (none: the resource is a class's static `get`'s, whose outputs are the service's
   * alone). `get`: for the read of a `get` itself (its hidden `__get`), the id as the program gave it (`id` is in the one form),
   * else undefined. That read has no state, of the record `id` names, and fails, naming the type and the id as given, when it is
   * not there (a refresh drops the resource instead), and is no refresh for the key's hint.
   */
  read?(
    context: ProviderContext,
    id: string,
    props: Outputs | undefined,
    get: string | undefined,
  ): Promise<pulumi.dynamic.ReadResult<Outputs>>;
  update?(context: ProviderContext, id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult<Outputs>>;
  delete?(context: ProviderContext, id: string, props: Outputs): Promise<void>;
}

/** The errors of JavaScript itself: a bug of the package's, whose stack trace a report of it needs. */
const BUGS = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError];

/**
 * Runs a `check`, `diff`, `read` or `delete`, whose failure the SDK's host prints to stderr with its stack trace before the
 * engine shows its message (`${error}: ${error.stack}`, a create's or update's it does not): a refresh or destroy the service
 * refuses would print ten lines of the package's files for each resource, under the stack, as no other provider does. The
 * package's own errors say all there is to say in their message, so their trace is dropped; a bug's is kept. Without the key
 * ({@link keyless}). Done or failed, it first writes what must outlive the host (`host-end.ts`), as `timed` does for the rest.
 */
async function untraced<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    // Redacted first: a frozen error's stack cannot be emptied, and the TypeError of trying quotes its message, key and all.
    const shown = keyless(error);
    if (shown instanceof Error && !BUGS.some((bug) => shown instanceof bug) && !Object.isFrozen(shown)) shown.stack = "";
    throw shown;
  } finally {
    // The engine may end the host right after this method returns: what must outlive it is written first.
    await settle(processContext);
  }
}

/**
 * `error` without the key (`ProviderContext.redact`): its message, stack, fields and cause, whether an `Error` or another
 * object; a thrown string (or other value not an object) becomes an error of its text without the key. Its `id` and `properties`, the
 * resource and the state a partial write records, are kept as they are: the next `up` needs them as the service said them
 * (a job's id, to wait for it).
 */
function keyless(error: unknown): unknown {
  const { redact } = currentContext();
  // A library's string (or number): the host prints it, or reads its `message` (none), as it is.
  if (typeof error !== "object" || error === null) return new Error(redact(String(error)));
  const recorded = error as Error & { id?: unknown; properties?: unknown };
  const { id, properties } = recorded;
  // Itself, or a copy when a field holding the key cannot be replaced (a frozen error's message): `redactError`.
  const redacted = redactError(recorded, redact);
  if (id !== undefined && redacted.id !== id) redacted.id = id;
  if (properties !== undefined && redacted.properties !== properties) redacted.properties = properties;
  return redacted;
}

/**
 * Runs a refresh's read or a destroy's delete (`command`): where no resource was checked in this process, the configuration
 * in force may be the one the state recorded, and its errors say so (`stateHinted`).
 */
async function onState<T>(ctx: ProviderContext, command: StateCommand, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw ctx.mayRunOnState() ? stateHinted(error, command, ctx.keySource) : error;
  }
}

/**
 * The provider object the host loads: `configure` builds the context, every other method hands it to its handler. The hidden
 * `customTimeouts` input (`operation-timeouts.ts`) stays here: `check` validates it and hands it on, no handler sees it, a
 * create, update, delete or refresh has its job waits end by the resource's timeout for it, and the state keeps it for a
 * destroy and a refresh. So does `retainOnDelete`'s (`__retainOnDelete`), not kept in the state: `check` hands it on, a diff is
 * told it, and a create that finds its record there (a replacement's skipped delete left it) says so. And the workspace a
 * state was written in (`__workspace`, `recorded-workspace.ts`): every create, update and read records it, and a diff, read,
 * update or delete of a state recording another one than the settings name fails before the handler runs.
 */
export function providerOf<Inputs, Outputs>(handlers: Handlers<Inputs, Outputs>): pulumi.dynamic.ResourceProvider<Inputs, Outputs> {
  const { check, diff, read, update, changed, type } = handlers;
  /** What a handler gets of the program's inputs or a state: none of the hidden properties the host handles itself. */
  const bare = <T>(props: T): T => withoutHidden(props, CUSTOM_TIMEOUTS, REPLACE_ON_CHANGES, RETAIN_ON_DELETE, WORKSPACE);
  /** Refuses, before any request, an operation on `state` when it records another workspace than the settings name. */
  const sameWorkspaceAs = (ctx: ProviderContext, id: string, state: unknown) =>
    sameWorkspace(state, ctx.workspace(), `The ${type} ${id}`, () => ctx.addressNames());
  /**
   * `props`, outputs to record, with the workspace the settings name: where the operation, let through by the guard, wrote or
   * read. Never a failure after a write: the settings were read for its requests (none usable: nothing recorded).
   */
  const recorded = <T>(props: T): T => withHidden(props, WORKSPACE, currentContext().workspace());
  /** Whether the program declares the resource with `retainOnDelete: true`: its hidden input, which no handler sees. */
  const retainedOf = (props: unknown) => hiddenOf(props, RETAIN_ON_DELETE) === true;
  const remove = handlers.delete;
  /** Runs `operation` of a resource bounded by its hidden input `timeouts`; a partial state it records keeps `timeouts`. */
  const timed = async <T>(timeouts: unknown, name: TimedOperation, operation: (ctx: ProviderContext) => Promise<T>): Promise<T> => {
    const ctx = currentContext();
    try {
      return await ctx.bounded(deadlineOf(timeouts, name, ctx.clock.now()), () => operation(ctx));
    } catch (error) {
      // A partial state is written where the guard let the operation run: in the workspace the settings name.
      throw keyless(withHiddenRecorded(withTimeoutsRecorded(error, timeouts), WORKSPACE, ctx.workspace()));
    } finally {
      // As in `untraced`: the engine may end the host right after a create or an update returns.
      await settle(ctx);
    }
  };
  return {
    configure,
    check: (olds: Inputs, news: Inputs) =>
      untraced(async () => {
        currentContext().noteCheck();
        const timeouts = timeoutsOf(news);
        const result = check ? await check(currentContext(), bare(olds), bare(news)) : { inputs: bare(news) };
        const failures = [...(result.failures ?? []), ...customTimeoutsFailures(timeouts)];
        const inputs = withReplacePaths(withTimeouts(result.inputs, timeouts), news);
        return { inputs: withHidden(inputs, RETAIN_ON_DELETE, retainedOf(news) || undefined), failures };
      }),
    ...(diff && {
      diff: (id: string, olds: Outputs, news: Inputs) =>
        untraced(async () => {
          // The engine applies `replaceOnChanges` to the properties a diff names, which a dynamic provider's cannot: asked here,
          // and told the handler first (what it keeps of a record depends on whether the resource is replaced).
          const ctx = currentContext();
          sameWorkspaceAs(ctx, id, olds);
          const paths = replacePathsOf(news);
          const replacing = paths.length > 0 && changed ? replacesFor(paths, changed(bare(olds), bare(news))) : [];
          const result = await diff(ctx, id, bare(olds), bare(news), replacing, retainedOf(news));
          if (replacing.length === 0) return result;
          return { ...result, changes: true, replaces: [...new Set([...(result.replaces ?? []), ...replacing])] };
        }),
    }),
    async create(inputs: Inputs) {
      const timeouts = timeoutsOf(inputs);
      const result = await timed(timeouts, "create", (ctx) =>
        handlers.create(ctx, bare(inputs)).catch((error: unknown) => {
          // The engine skipped the delete of the resource this one replaces: the record the create finds may be that one.
          const note = retainedOf(inputs) && error instanceof Error ? handlers.retainedNote?.(error, bare(inputs)) : undefined;
          if (note !== undefined && !Object.isFrozen(error)) (error as Error).message += note;
          throw error;
        }),
      );
      return { ...result, outs: recorded(withTimeouts(result.outs, timeouts)) };
    },
    ...(read && {
      read: (id: string, props?: Outputs) =>
        untraced(async () => {
          // Bounded by the `read` the state recorded (a refresh gets no inputs); what it recorded is kept for the destroy.
          const timeouts = timeoutsOf(props);
          const ctx = currentContext();
          // A class's static `get` registers its marker and no state, and the engine hands every read step what was registered:
          // the handler reads the record the id names. A refresh of such a resource holds the outputs that read wrote, the
          // marker kept among them: it reads with no state too, and a record gone is dropped, as any refresh drops one.
          // The get's own read has the marker the class registered, the id as the program gave it; a refresh, the `true` the
          // read kept among its outputs.
          const mark = hiddenOf(props, GET_READ);
          const get = typeof mark === "string" ? mark : undefined;
          const marked = get !== undefined || mark === true;
          const state = marked ? undefined : bare(props);
          const reading = () => {
            sameWorkspaceAs(ctx, id, props);
            return ctx.bounded(deadlineOf(timeouts, "read", ctx.clock.now()), () => read(ctx, id, state, get));
          };
          // A class's static `get` is read in a preview or an up, with the stack config now.
          const result = await (get === undefined ? onState(ctx, "refresh", reading) : reading());
          if (!result.id) return result;
          const outs = withHidden(withTimeouts(result.props, timeouts), GET_READ, marked || undefined);
          // A get's own read (no state) records where it read, and a refresh of a state written before it was recorded.
          return { ...result, props: recorded(outs) };
        }),
    }),
    ...(update && {
      async update(id: string, olds: Outputs, news: Inputs) {
        const timeouts = timeoutsOf(news);
        const result = await timed(timeouts, "update", (ctx) => {
          sameWorkspaceAs(ctx, id, olds);
          return update(ctx, id, bare(olds), bare(news));
        });
        // A state written before the workspace was recorded records it now.
        return { ...result, outs: recorded(withTimeouts(result.outs, timeouts)) };
      },
    }),
    ...(remove && {
      delete: (id: string, props: Outputs) =>
        untraced(() =>
          timed(timeoutsOf(props), "delete", (ctx) =>
            onState(ctx, "destroy", () => {
              sameWorkspaceAs(ctx, id, props);
              return remove(ctx, id, bare(props));
            }),
          ),
        ),
    }),
  };
}
