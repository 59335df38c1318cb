/**
 * The context of this host process, and the provider objects that hand it to their handlers: one per resource type, each
 * configured with the same stack config, sharing one {@link ProviderContext}. The dynamic-provider interface hands its methods
 * no context, so this module keeps it: the provider's only module-level variable, set by `configure` (or by a test).
 */
import type * as pulumi from "@pulumi/pulumi";
import { ProviderContext } from "./provider-context";

export { type Connection, type ContextOptions, ProviderContext } from "./provider-context";

let processContext: ProviderContext | undefined;

/** The provider's `configure` hook: builds the process's context; another call with the same config (each type's) keeps it. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  const next = new ProviderContext(req.config);
  if (processContext?.builtLike(next)) return;
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
  check?(context: ProviderContext, olds: Inputs, news: Inputs): Promise<pulumi.dynamic.CheckResult<Inputs>>;
  diff?(context: ProviderContext, id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.DiffResult>;
  create(context: ProviderContext, inputs: Inputs): Promise<pulumi.dynamic.CreateResult<Outputs>>;
  read?(context: ProviderContext, id: string, props?: Outputs): Promise<pulumi.dynamic.ReadResult<Outputs>>;
  update?(context: ProviderContext, id: string, olds: Outputs, news: Inputs): Promise<pulumi.dynamic.UpdateResult<Outputs>>;
  delete?(context: ProviderContext, id: string, props: Outputs): Promise<void>;
}

/** The provider object the host loads: `configure` builds the context, every other method hands it to its handler. */
export function providerOf<Inputs, Outputs>(handlers: Handlers<Inputs, Outputs>): pulumi.dynamic.ResourceProvider<Inputs, Outputs> {
  const { check, diff, read, update } = handlers;
  const remove = handlers.delete;
  return {
    configure,
    create: (inputs) => handlers.create(currentContext(), inputs),
    ...(check && { check: (olds: Inputs, news: Inputs) => check(currentContext(), olds, news) }),
    ...(diff && { diff: (id: string, olds: Outputs, news: Inputs) => diff(currentContext(), id, olds, news) }),
    ...(read && { read: (id: string, props?: Outputs) => read(currentContext(), id, props) }),
    ...(update && { update: (id: string, olds: Outputs, news: Inputs) => update(currentContext(), id, olds, news) }),
    ...(remove && { delete: (id: string, props: Outputs) => remove(currentContext(), id, props) }),
  };
}
