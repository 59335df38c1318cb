/**
 * What the package's classes register (docs/pulumi-habits.md). `import`: the engine's import fails before any
 * `__provider` is known (pulumi/pulumi#3550), so the id goes to the create as a hidden input. `deleteBeforeReplace`
 * defaults to true: two of these records cannot coexist, and `up --replace` never asks the diff. `__provider` is,
 * instead of the closure serializer's output, one line that loads this package's provider module by name from the
 * program's own `node_modules`, so nothing is captured. `customTimeouts`: the engine hands a dynamic provider no operation
 * timeout, so the option goes to the provider as a hidden input as well, which bounds the operation's job waits. So does
 * `replaceOnChanges`: the engine applies it to the properties a diff names, and a dynamic provider's diff names none. So does
 * `retainOnDelete`: the engine skips a retained resource's delete on a replacement too, which the provider must know. A
 * class's static `get` registers a read instead ({@link readById}), which the constructor's `id` option would make without
 * telling the host, so the option is refused there. A transform runs after the class has filled these hidden inputs: the package's
 * own transform ({@link followTransformedOptions}) fills them again from the options the transforms before it leave.
 */
import * as pulumi from "@pulumi/pulumi";
import { idOf } from "../client/ids";
import { customTimeoutsInput } from "../shared/custom-timeouts";
import { CUSTOM_TIMEOUTS, GET_READ, IGNORE_CHANGES, IMPORT_ID, REPLACE_ON_CHANGES, RETAIN_ON_DELETE } from "../shared/input-constants";
import { MEMBERSHIP_ID_FORM, splitMembershipId } from "../shared/membership-id";
import { programError } from "./messages";
import { thisRun } from "./program-run";
import { warnIfPlaintextApiKey } from "./program-checks";

/** The type token the engine routes to the Node.js dynamic-provider host, as `pulumi.dynamic.Resource` builds it. */
export function dynamicType(type: string): string {
  return `pulumi-nodejs:dynamic/workspace-access:${type}`;
}

/**
 * The properties and options a resource registers with: its `inputs`, the `outputs` only the provider sets (registered
 * empty so the engine gives each), the hidden inputs that carry `import` and `customTimeouts` (a timeout that is not a
 * duration fails here, naming the resource), and the `__provider` of the module exported as
 * `pulumi-workspace-access/provider/<provider>`. `secretOutputs` are added to the options' `additionalSecretOutputs`
 * (the user's are kept): outputs derived from inputs that may be secret under another name, which the engine would
 * otherwise store in plain text. Warns (once a run) of a plaintext API key.
 */
export function registration(
  name: string,
  provider: keyof typeof CLASSES,
  inputs: Record<string, unknown>,
  outputs: readonly string[],
  opts: pulumi.CustomResourceOptions | undefined,
  secretOutputs: readonly string[] = [],
): [pulumi.Inputs, pulumi.CustomResourceOptions] {
  warnIfPlaintextApiKey();
  refuseProvider(provider, name, opts);
  if (opts?.id !== undefined) {
    // The SDK would read the record, with the args for its state, while the program's checks count the resource as managed.
    const kind = CLASSES[provider];
    throw new Error(
      provider === "workspace-users"
        ? `${kind} "${name}": the id option reads an existing record, and WorkspaceUsers has no get: its id names no record ` +
            "(every set's is the same). Remove the option; getUsers reads the workspace's users."
        : `${kind} "${name}": the id option reads an existing record: use ${kind}.get(${JSON.stringify(name)}, id), which ` +
            "manages nothing, instead of this constructor, which declares a resource to manage.",
    );
  }
  const { import: _, ...rest } = opts ?? {};
  const run = thisRun();
  run.firstDeclared ??= `${CLASSES[provider]} "${name}"`;
  const props = {
    ...inputs,
    ...Object.fromEntries(outputs.map((name) => [name, undefined])),
    ...optionInputs(provider, name, opts),
    // Registered once the package's stack transform is (`applyTransformedOptions`), so that it runs for this resource.
    __provider: run.transformedOptions?.then(() => providerLine(provider)) ?? providerLine(provider),
  };
  const secrets =
    secretOutputs.length > 0 ? { additionalSecretOutputs: [...new Set([...(rest.additionalSecretOutputs ?? []), ...secretOutputs])] } : {};
  // The resource's own transforms run before the engine's copy of its options is final: the last of them copies them again.
  const transforms = rest.transforms?.length ? { transforms: [...rest.transforms, followTransformedOptions] } : {};
  return [props, { ...rest, ...secrets, ...transforms, deleteBeforeReplace: rest.deleteBeforeReplace ?? true }];
}

/**
 * The hidden inputs that carry the options a dynamic provider is never handed, as `opts` gives them: `import`, `customTimeouts`
 * (a timeout that is not a duration throws, naming the resource), `replaceOnChanges`, `retainOnDelete` (`true`, else nothing: a
 * replacement's delete of a retained resource is skipped, so its create finds the record), and `ignoreChanges` but for a `WorkspaceUsers` (an
 * adoption writes nothing for a property a path names). Each is `undefined` where the option is not given. Computed where the
 * class registers the resource and again, from the options the transforms give, by {@link followTransformedOptions}.
 */
export function optionInputs(
  provider: keyof typeof CLASSES,
  name: string,
  opts: pulumi.CustomResourceOptions | undefined,
): Record<string, unknown> {
  const importId = opts?.import;
  return {
    // Whitespace around an id (pasted, or read from a file with its newline) is no part of it: no record's id has any.
    [IMPORT_ID]: typeof importId === "string" ? importId.trim() : importId,
    // Kept in the options too: the engine records them, and refuses one its own parser cannot read.
    [CUSTOM_TIMEOUTS]: customTimeoutsInput(`${CLASSES[provider]} "${name}"`, opts?.customTimeouts),
    // The engine cannot apply it to a dynamic resource (its diff names no property): the provider's diff does.
    [REPLACE_ON_CHANGES]: opts?.replaceOnChanges?.length ? [...opts.replaceOnChanges] : undefined,
    // The engine skips a retained resource's delete on a replacement: the provider's diff and create must know it.
    [RETAIN_ON_DELETE]: opts?.retainOnDelete === true ? true : undefined,
    // Pulumi's import leaves an ignored property as the record has it: an adoption (`import`, `adoptExisting`) writes nothing
    // for one a path names.
    ...(provider === "workspace-users" ? {} : { [IGNORE_CHANGES]: opts?.ignoreChanges?.length ? [...opts.ignoreChanges] : undefined }),
  };
}

/** Each provider module's class, as errors name it. */
const CLASSES = {
  user: "User",
  "integration-entitlement": "IntegrationEntitlement",
  "integration-members": "IntegrationMembers",
  "workspace-users": "WorkspaceUsers",
};

/** Each class's provider module, by the type token the engine hands a transform. */
const PROVIDER_OF: Readonly<Record<string, keyof typeof CLASSES>> = Object.freeze(
  Object.fromEntries(Object.entries(CLASSES).map(([provider, kind]) => [dynamicType(kind), provider as keyof typeof CLASSES])),
);

/**
 * The transform that copies the options as the transforms before it leave them into the hidden inputs ({@link optionInputs}),
 * for a resource of the package's types (any other's is not looked at). It returns nothing when they hold what the class put
 * there (a program whose transforms set none of these options): the engine keeps its properties and options as they are. Else
 * it returns the properties with the hidden inputs replaced, and keeps the options (the SDK then sends the engine's unchanged),
 * but for an `import` a transform added: that moves to the hidden input and is cleared from the options, as the class does,
 * since the engine's own import of a dynamic resource fails. Refuses a path naming an element of a set by place, as the class
 * does. Registered last of a resource's own transforms by {@link registration}, and as a stack transform by
 * `applyTransformedOptions` (`transformed-options.ts`), which runs after the parents' transforms as well.
 */
export function followTransformedOptions(args: pulumi.ResourceTransformArgs): pulumi.ResourceTransformResult | undefined {
  const provider = PROVIDER_OF[args.type];
  if (provider === undefined || !args.custom || args.props[GET_READ] !== undefined) return undefined;
  const opts = args.opts as pulumi.CustomResourceOptions;
  const kind = CLASSES[provider];
  if (kind === "IntegrationMembers" || kind === "IntegrationEntitlement") refuseSetPlaces(kind, args.name, opts);
  const imported = typeof opts.import === "string" && opts.import !== "";
  const wanted = optionInputs(provider, args.name, opts);
  // No import in the options: the class moved the one it was given to the hidden input, which stays.
  if (!imported) delete wanted[IMPORT_ID];
  const changed = Object.entries(wanted).filter(([key, value]) => JSON.stringify(args.props[key]) !== JSON.stringify(value));
  if (changed.length === 0 && !imported) return undefined;
  const props = { ...args.props, ...Object.fromEntries(changed) };
  // The SDK keeps the engine's options when a transform returns none.
  const kept = imported ? ({ ...opts, import: "" } satisfies pulumi.CustomResourceOptions) : undefined;
  return { props, opts: kept as pulumi.ResourceOptions };
}

/** The one line of `__provider`: it loads the provider module `provider` from the program's own `node_modules`. */
const providerLine = (provider: keyof typeof CLASSES) =>
  `exports.handler = () => require("pulumi-workspace-access/provider/${provider}").provider;\n`;

/** Fails an explicit provider: its `configure` gets that provider's inputs, not the stack config, so every request would lack the key. */
function refuseProvider(provider: keyof typeof CLASSES, name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  if (opts?.provider === undefined) return;
  throw new Error(
    `${CLASSES[provider]} "${name}": the provider option does not apply to this package's resources: they read their ` +
      "settings (workspace-access:baseUrl, workspace-access:apiKey, ...) from the stack's config, which an explicit provider " +
      "does not get. Remove the option; a stack manages one workspace, so another workspace takes a stack of its own.",
  );
}

/** The names of the outputs a class declares: its `pulumi.Output` fields but `id` and `urn`. */
type OutputNames<T> = Exclude<{ [K in keyof T]: T[K] extends pulumi.OutputInstance<unknown> ? K : never }[keyof T], "id" | "urn">;

/** Each output of class `T`, named once: written `satisfies EveryOutput<T>`, the compiler refuses one left out or one not declared. */
export type EveryOutput<T> = Record<OutputNames<T>, true>;

/**
 * What a class's static `get` registers: the read of the record `opts.id` names (the engine's `ReadResource`, a `read` step),
 * with no inputs but the hidden `__get` (the host then reads with no state, and fails for a record not there) and
 * `__provider`, and each of the class's `outputs` empty so the engine gives it. The id is trimmed and in the form the managed
 * resource's state records, which the engine compares it with when a program turns that resource into this `get`: the one form
 * of an id (`idOf`) for the ids the package makes (`<integrationId>/<userId>`, an integration's), the case given for a user's,
 * whose state keeps the service's; `__get` holds the id as given (trimmed), which the provider's messages name. Nothing is
 * declared to the program's checks (`owners.ts`): a get manages nothing. Refuses `provider` (as {@link registration} does),
 * `import` (which adopts a record into a resource the program manages), the options the engine's read does not carry
 * ({@link DROPPED_ON_READ}), and an empty id (a membership's not of the form `<integrationId>/<userId>`), naming the resource
 * and the id.
 */
export function readById(
  name: string,
  provider: Exclude<keyof typeof CLASSES, "workspace-users">,
  outputs: Readonly<Record<string, true>>,
  opts: pulumi.CustomResourceOptions | undefined,
): [pulumi.Inputs, pulumi.CustomResourceOptions] {
  warnIfPlaintextApiKey();
  const kind = CLASSES[provider];
  const given = opts?.id;
  // Only a JavaScript caller that leaves out a constructor's args gets here without an id.
  if (given === undefined) throw new Error(`${kind} "${name}": give its args to declare it, or read an existing one with ${kind}.get.`);
  refuseProvider(provider, name, opts);
  refuseDroppedOnRead(kind, name, opts);
  if (opts?.import !== undefined) {
    throw new Error(
      `${kind} "${name}": ${kind}.get reads the record its id names; the import option adopts one into a resource the program ` +
        `manages (new ${kind}(name, args, { import })). Use one of them.`,
    );
  }
  const problem = (id: string) => {
    if (id === "") return `${kind} "${name}": ${kind}.get was given an empty id.`;
    if (provider === "integration-entitlement" && !splitMembershipId(id)) {
      return `${kind} "${name}": ${kind}.get was given "${id}", which is not a membership's id: expected ${MEMBERSHIP_ID_FORM}.`;
    }
    return undefined;
  };
  const normal = (id: string) => (provider === "user" ? id : idOf(id));
  // A JavaScript program may give another type: named, not a TypeError at `trim`.
  const notText = (id: unknown) => `${kind} "${name}": ${kind}.get was given an id of type ${typeof id}: give the record's id, a string.`;
  if (typeof given !== "string" && !pulumi.Output.isInstance(given) && !(given instanceof Promise)) throw new Error(notText(given));
  const trimmed =
    typeof given === "string"
      ? given.trim()
      : pulumi.output(given).apply((id: unknown) => {
          if (typeof id !== "string") throw programError(notText(id));
          return id.trim();
        });
  const wrongNow = typeof trimmed === "string" ? problem(trimmed) : undefined;
  if (wrongNow !== undefined) throw new Error(wrongNow);
  const id =
    typeof trimmed === "string"
      ? normal(trimmed)
      : trimmed.apply((id) => {
          const wrong = problem(id);
          if (wrong !== undefined) throw programError(wrong);
          return normal(id);
        });
  const props = {
    ...Object.fromEntries(Object.keys(outputs).map((key) => [key, undefined])),
    // The id as given (trimmed), for the provider's messages: the engine's is in the one form, which the program did not write.
    [GET_READ]: trimmed,
    __provider: providerLine(provider),
  };
  return [props, { ...opts, id }];
}

/** The reasons a read resource has no use for an option: Pulumi's ReadResource does not carry it, so the engine never sees it. */
const NOTHING_DELETED = "the stack never deletes a record it reads (a destroy, or removing the get, sends nothing for it)";
const NO_INPUTS = "a get has no inputs to change, diff or replace: the read writes the service's values";

/**
 * The options Pulumi's read of an existing record (`ReadResource`, any provider's `get`) does not take, each with why it has no
 * use there. The engine would drop each silently, and a program counting on one would be wrong: `aliases` above all, which
 * cannot turn a managed resource under another name into the get, so the engine deletes that resource's record.
 */
const DROPPED_ON_READ: Record<string, (value: unknown) => string | undefined> = {
  protect: (on) => (on === true ? NOTHING_DELETED : undefined),
  retainOnDelete: (on) => (on === true ? NOTHING_DELETED : undefined),
  deletedWith: (resource) => (resource !== undefined ? NOTHING_DELETED : undefined),
  aliases: (aliases) =>
    Array.isArray(aliases) && aliases.length > 0
      ? "the engine finds a read's earlier state by its name alone, so an alias cannot turn a resource the stack manages " +
        "under another name into this get: the engine would delete the record that resource manages. A get renamed needs none " +
        "(the old read is dropped, nothing sent); to stop managing a record, see docs/pulumi-habits.md (get)"
      : undefined,
  ignoreChanges: (paths) => (Array.isArray(paths) && paths.length > 0 ? NO_INPUTS : undefined),
  replaceOnChanges: (paths) => (Array.isArray(paths) && paths.length > 0 ? NO_INPUTS : undefined),
  deleteBeforeReplace: (on) => (on === true ? NO_INPUTS : undefined),
  customTimeouts: (timeouts) =>
    timeouts && Object.values(timeouts).some((value) => value !== undefined)
      ? "a get's read waits for no job, and each of its requests is bounded by workspace-access:requestTimeoutSeconds"
      : undefined,
  replaceWith: (resources) => (Array.isArray(resources) && resources.length > 0 ? NO_INPUTS : undefined),
  replacementTrigger: (trigger) => (trigger !== undefined ? NO_INPUTS : undefined),
  hideDiffs: (paths) => (Array.isArray(paths) && paths.length > 0 ? NO_INPUTS : undefined),
  hooks: (hooks) =>
    hooks && Object.values(hooks).some((bound) => Array.isArray(bound) && bound.length > 0)
      ? "the engine runs no hook for a read: a get is never created, updated or deleted"
      : undefined,
};

/** Fails an option {@link DROPPED_ON_READ} names, set to do something (`protect: false`, `aliases: []` pass), naming the resource. */
function refuseDroppedOnRead(kind: string, name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  for (const [option, why] of Object.entries(DROPPED_ON_READ)) {
    const reason = why(opts?.[option as keyof pulumi.CustomResourceOptions]);
    if (reason === undefined) continue;
    throw new Error(
      `${kind} "${name}": ${kind}.get does not take the ${option} option: Pulumi's read of an existing record does not carry ` +
        `it, for any provider, and ${reason}. Remove the option.`,
    );
  }
}

/** The resource options that take property paths. */
export const PATH_OPTIONS = ["ignoreChanges", "replaceOnChanges"] as const;

/** The set properties whose elements a path could name by place, with what an element is and what to write instead. */
const SETS = {
  IntegrationMembers: {
    property: "members",
    element: "a member",
    sorted: "its members sorted by user id",
    instead: `"members" whole, or leave that member out of the set (a member the set does not list is not managed)`,
  },
  IntegrationEntitlement: {
    property: "entitlements",
    element: "an entitlement",
    sorted: "the entitlements sorted",
    instead: `"entitlements" whole`,
  },
};

/**
 * A property path's root, named plainly (`members[0]`) or quoted (`["members"][0]`), as Pulumi's property paths allow, and
 * what follows it from its first `[` (`element`); `undefined` for a path whose root is not followed by one.
 */
export function pathRoot(path: string): { root: string; element: string } | undefined {
  const found = /^(?:\["([^"]*)"\]|([A-Za-z_$][\w$]*))\s*(\[.*)$/s.exec(path.trim());
  return found ? { root: (found[1] ?? found[2]) as string, element: found[3] as string } : undefined;
}

/**
 * Fails a path naming an element of a set by place (`members[0].entitlements`, `members[*]`, `entitlements[1]`): the engine
 * takes the old value at that place from the state, which keeps the set sorted, not in the program's order, so the path
 * would give one member another's entitlements, or drop one. (`WorkspaceUsers` keys its users by email instead.)
 */
export function refuseSetPlaces(kind: keyof typeof SETS, name: string, opts: pulumi.CustomResourceOptions | undefined): void {
  const set = SETS[kind];
  for (const option of PATH_OPTIONS) {
    for (const path of opts?.[option] ?? []) {
      if (pathRoot(path)?.root !== set.property) continue;
      throw new Error(
        `${kind} "${name}": ${option} path "${path}" names ${set.element} by place, but the state keeps ${set.sorted}, ` +
          `not in the program's order, so the path would take another's value: write ${set.instead}.`,
      );
    }
  }
}

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
