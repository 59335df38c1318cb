/**
 * The dynamic provider of {@link User} (`pulumi-workspace-access/provider/user`). Which HTTP call backs each operation:
 *
 * | operation | request |
 * |---|---|
 * | check, diff | none: inputs are validated and compared locally |
 * | create | `POST /users` |
 * | create with `adoptExisting` | first `GET /users?filter=<email>` (every page); `POST /users` only when nobody has the email. A user found is |
 * | | adopted: `GET /users/{id}` and `PUT /users/{id}` only when a declared attribute differs |
 * | create with `import` | `GET /users/{id}` and the same adoption (the email must match) |
 * | read | `GET /users/{id}`, or one `GET /users` list shared by the reads of a refresh (a `User.get`'s read: a user not there fails it); |
 * | | a record that cannot be read keeps what the state recorded, with a warning (a `User.get`'s, with no state, fails) |
 * | update | `GET /users/{id}`, then `PUT /users/{id}` with the attributes the program changed and the service's values of the |
 * | | others (a `PUT` replaces every attribute): what the program did not change is never written back, ignored or not |
 * | delete | `GET /users/{id}` (the role now), then `DELETE /users/{id}`; 404 means already gone. An adopted user or a workspace owner (in |
 * | | the state or the service): nothing, with a warning; a record without a role fails. With `deleteOnDestroy`: the `DELETE` alone |
 * | create after such a delete | (a forced `--replace`) `GET /users/{id}` of the user left, taken back: `PUT` only when a declared attribute differs |
 *
 * `role` and `isGuest` are optional and computed: a create of a new user applies the defaults
 * (`workspace_login_only`, not a guest); otherwise an attribute the program leaves out keeps the
 * service's value, is never written and never causes a diff.
 *
 * A user whose email the program gives as a secret (the program's hidden `__secretEmail`, which the state keeps) names it in
 * none of its messages: infos, warnings and errors print it `[secret]`, in any case.
 */
import type * as pulumi from "@pulumi/pulumi";
import {
  BadRequestError,
  ConfigurationError,
  ConflictError,
  guestOf,
  InvalidResponseError,
  KNOWN_USER_ROLES,
  NotFoundError,
  reasonOf,
  sameEmail,
  sameId,
  unlessNotFound,
  type User,
  WorkspaceAccessError,
} from "../../client";
import type { UserAttributes, WorkspaceAccessClient } from "../../client";
import {
  emailTaken,
  emailChangedSinceFound,
  emailTakenOnUpdate,
  goneSinceFound,
  goneSinceRefresh,
  importedEmailDiffers,
  keptDeclaredRoleRefused,
  keptRoleRefused,
  leftInWorkspace,
  noGuestFlagToKeep,
  noRoleToKeep,
  noRoleToDelete,
  noUserCreate,
  noUserToGet,
  noUserToImport,
  ownerUnknown,
  createStillRunning,
  retainedUserThere,
  takenBack,
  unreadableKept,
  unreadableRoleToKeep,
  unreadableToTakeOver,
} from "./messages";
import { redactError } from "../../client/redact";
import { afterJobWait, PartialWriteError } from "../membership/partial-write";
import { declaredUserKey, userKey } from "../takeovers";
import { DEFAULT_USER_ROLE, defined, IMPORT_ID, type Props, type UserInputs, userInputs, optIn, optInChanged } from "../../shared/inputs";
import { type Connection, type ProviderContext, providerOf } from "../provider-runtime";
import { digestOf } from "../../shared/digest";
import { hiderIf, shown } from "../../shared/hide-secrets";
import { IGNORE_CHANGES, SECRET_EMAIL } from "../../shared/input-constants";
import { ignoredOf } from "../hidden-inputs";
import { withHints } from "../../shared/hints";
import { isUnknown, knownString } from "../../shared/unknown";

/** What a {@link User} stores: its inputs, what the service computes, and which optional attributes the program manages. */
export interface UserOutputs extends Omit<UserInputs, "role" | "isGuest"> {
  role: string | null;
  isGuest: boolean | null;
  status: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** The optional attributes the program declares (`role`, `isGuest`): a refresh hands back only those as inputs. */
  managedAttributes: string[];
  /** The stack adopted the user (`adoptExisting` found it, or `import`): destroy leaves it unless `deleteOnDestroy`; absent: not. */
  adopted?: boolean;
  /** Declared values an update did not send ({@link Unapplied}); absent: none. */
  unapplied?: Unapplied;
}

/**
 * Declared values an update left unsent: the program had not changed them, and the service had another value, changed outside the
 * program since the state last read it. `diff` compares the program with these, so they cause no diff of their own; a refresh
 * reads the service's value into the state (and the inputs), and the next `up` then applies the program's.
 */
export type Unapplied = Partial<Record<"email" | "firstName" | "lastName" | "role" | "isGuest", string>>;

/** What `outputs` and `diff` read of a user's declared inputs, or of a state: its inputs' fields, of any value yet. */
type Declared = Partial<Record<keyof UserInputs, unknown>>;

/** A user's declared attributes (a `User`'s inputs, or one user of a `WorkspaceUsers`). */
type Attributes = Omit<UserInputs, "adoptExisting" | "deleteOnDestroy">;

/** The optional attributes the program may leave to the service. */
const OPTIONAL = ["isGuest", "role"] as const;

/**
 * The attributes to send: the declared ones, and for what the program leaves out, the defaults (a new user) or `current`'s
 * value (a `PUT` replaces every attribute, `isGuest` among them). An unreported role fails, naming the record. An unreported
 * `isGuest` is sent as `false` beside a listed role that is not a guest's (a service may leave `false` out), and fails beside a
 * guest role or one the document does not list: `false` would make a guest a member, a change the program does not declare
 * (see docs/contract.md).
 */
function attributesOf(inputs: Attributes, current?: User): UserAttributes {
  const role = inputs.role ?? (current ? current.role : DEFAULT_USER_ROLE);
  if (role === null) {
    // Only the service's record can lack a role (a new user's is the default).
    const record = current!;
    throw new InvalidResponseError(noRoleToKeep(record), {
      method: "GET",
      path: `users/${record.id}`,
      status: 200,
      field: "data.attributes.role",
    });
  }
  // The record's flag as the package reads one left out (`guestOf`), beside the role the PUT sends.
  const isGuest = inputs.isGuest ?? (current ? (guestOf({ isGuest: current.isGuest, role }) ?? null) : false);
  if (isGuest === null) {
    const record = current!;
    throw new InvalidResponseError(noGuestFlagToKeep(record, role), {
      method: "GET",
      path: `users/${record.id}`,
      status: 200,
      field: "data.attributes.isGuest",
    });
  }
  return { email: inputs.email, firstName: inputs.firstName, lastName: inputs.lastName, role, isGuest };
}

/** The optional attributes `declared` manages (those it leaves out are the service's). */
export const managedOf = (declared: Declared) => OPTIONAL.filter((key) => declared[key] !== undefined && declared[key] !== null);

/** The values of the optional attributes `managed` names, for a refresh's inputs: the service's role must not look declared. */
export const managedValues = (user: Pick<UserOutputs, "role" | "isGuest">, managed: readonly string[]) =>
  Object.fromEntries(OPTIONAL.flatMap((key) => (managed.includes(key) && (user[key] ?? null) !== null ? [[key, user[key]]] : [])));

/** Outputs from what the service said; the declared email's spelling is kept when it matches. */
function outputs(user: User, declared: Declared, adopted = false): UserOutputs {
  const email = typeof declared.email === "string" && sameEmail(declared.email, user.email) ? declared.email : user.email;
  return {
    email: email as string,
    firstName: user.firstName as string,
    lastName: user.lastName as string,
    role: user.role,
    isGuest: user.isGuest,
    adoptExisting: declared.adoptExisting === true,
    status: user.status,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
    managedAttributes: managedOf(declared),
    ...optIn(declared.deleteOnDestroy),
    adopted,
    ...secretEmail(declared),
  };
}

/** A refresh's inputs of a user recorded as `outs`: the optional attributes only where the program manages them. */
function refreshInputs(outs: UserOutputs): UserOutputs {
  const { email, firstName, lastName, adoptExisting, deleteOnDestroy, managedAttributes } = outs;
  return defined({ email, firstName, lastName, adoptExisting, deleteOnDestroy, ...managedValues(outs, managedAttributes) }) as UserOutputs;
}

/** The hidden flag of a user whose email the program gives as a secret, as `declared` (its inputs, or a state) has it; `{}` otherwise. */
const secretEmail = (declared: Props): { [SECRET_EMAIL]?: true } => (declared[SECRET_EMAIL] === true ? { [SECRET_EMAIL]: true } : {});

/** What a message of a user prints of the text it is given. */
type Hide = (text: string) => string;

/**
 * A user's messages as it may print them: when the program gives its email as a secret (`secret`: its hidden `__secretEmail`,
 * in the inputs or the state), with each of `emails` as `[secret]`, in any case; as they are otherwise.
 */
const hiderFor = (secret: boolean, ...emails: unknown[]): Hide => hiderIf(secret, emails);

/** Runs `work`; its error, which the engine prints, with each email `hide` leaves out (message, stack and cause alike). */
async function hiding<T>(hide: Hide, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw hide === shown ? error : redactError(error, hide);
  }
}

/**
 * The fields `diff` compares, each with how to compare the old value (a state's, or the service's) with the declared one;
 * `role` and `isGuest` only when declared. `isGuest` is read as the package reads a record (`guestOf`, beside the old role): a
 * flag left out beside a listed role that is not a guest's is `false`; beside any other role (or none) it says nothing, so no
 * declared value holds: the update writes it.
 */
const COMPARED: Array<[keyof UserInputs, (old: unknown, declared: unknown, oldRole: unknown) => boolean]> = [
  ["email", (a, b) => typeof a === "string" && typeof b === "string" && sameEmail(a, b)],
  ["firstName", (a, b) => a === b],
  ["lastName", (a, b) => a === b],
  ["role", (a, b) => b === undefined || a === b],
  ["isGuest", (a, b, role) => b === undefined || guestOf({ isGuest: flagOf(a), role: typeof role === "string" ? role : null }) === b],
];

/**
 * The value of attribute `key` the service's `user` holds, as the package reads a record: its guest flag as {@link guestOf}
 * reads it (left out beside a listed role that is not a guest's: `false`; beside any other: `undefined`, not known).
 */
const serviceValue = (user: User, key: keyof UserInputs): unknown => (key === "isGuest" ? guestOf(user) : user[key as keyof User]);

/** A guest flag as a record may hold it: a boolean, else not reported. */
const flagOf = (value: unknown): boolean | null => (typeof value === "boolean" ? value : null);

/**
 * A write's answer, `sent` the guest flag the write sent: one that leaves the flag out beside a guest role or an unlisted one (it says nothing of
 * it, `guestOf`) after the write sent `false` has `false`, which a service may leave out. After `true`, it stays unknown: a
 * service that leaves `false` out reports `true`.
 */
const answered = (user: User, sent: boolean | undefined): User =>
  guestOf(user) === undefined && sent === false ? { ...user, isGuest: false } : user;

/**
 * A refresh's record, `prior` the user as the state records it: one that leaves the flag out beside a guest role or an unlisted one keeps the
 * state's `false` while the role is the state's (nothing says the flag changed: a service may leave `false` out, and the write
 * of it recorded it). Not the state's `true` (a service that leaves `false` out reports `true`: the flag may have changed), nor
 * beside another role (the record changed): the flag is then not known.
 */
export const refreshed = (user: User, prior: { isGuest?: unknown; role?: unknown } | undefined): User =>
  guestOf(user) === undefined && prior?.isGuest === false && prior.role === user.role ? { ...user, isGuest: false } : user;

/**
 * The properties whose declared values `news` differ from `olds`, a state or the service's user (a value not known yet counts as a
 * change). A state is compared as the program last declared it: with the values an update left unsent ({@link Unapplied}).
 */
export function changedUserProperties(olds: Declared & { unapplied?: Unapplied }, news: Props): string[] {
  return COMPARED.filter(([key, same]) => {
    if (isUnknown(news[key])) return true;
    const unsent = olds.unapplied?.[key as keyof Unapplied];
    return unsent !== undefined && news[key] !== undefined ? digestOf(key, news[key]) !== unsent : !same(olds[key], news[key], olds.role);
  }).map(([key]) => key);
}

export const provider = providerOf<Props, UserOutputs>({
  type: "User",

  async check(ctx, _olds, news) {
    if (knownString(news.email)) ctx.declared.add(declaredUserKey(news.email));
    return ctx.checkInputs(userInputs, news);
  },

  changed: (olds, news) => [...changedUserProperties(olds, news), ...(optInChanged(olds, news) ? ["deleteOnDestroy"] : [])],

  // The user whose email the create's POST found taken, with retainOnDelete: the one a replaced resource held, never deleted.
  retainedNote: (error, inputs) =>
    ConflictError.isInstance(error) && error.method === "POST" && inputs.adoptExisting !== true ? retainedUserThere() : undefined,

  async diff(ctx, id, olds, news, replacing) {
    // An adopted user this resource keeps: the delete of a resource it replaced under another name leaves it (`takeovers.ts`).
    // Not one its `replaceOnChanges` replaces for another email (`replacing`): the replacement declares another user, and the
    // delete is of this one, as the opt-in says.
    const kept = knownString(news.email) && (replacing.length === 0 || sameEmail(olds.email, news.email));
    if (olds.adopted === true && kept && ctx.declared.has(declaredUserKey(news.email as string))) ctx.takeovers.add(userKey(id));
    // PUT updates every field: no replacement. A forced one deletes first (two users cannot share an email); `import` is not compared.
    const changes = changedUserProperties(olds, news).length > 0 || optInChanged(olds, news);
    return { changes, replaces: [], deleteBeforeReplace: true };
  },

  async create(ctx, news) {
    const hide = hiderFor(news[SECRET_EMAIL] === true, news.email);
    const inputs = ctx.parseInputs(userInputs, news);
    return hiding(hide, () =>
      ctx.withWrite(async () => {
        const { client } = ctx.connection();
        const ignored = ignoredAttributes(news[IGNORE_CHANGES]);
        // The user this deployment's delete removed (a replacement deleting first, the program's `import` still given): made anew.
        const importId = news[IMPORT_ID];
        if (typeof importId === "string" && !ctx.removedRecords.has(userKey(importId.trim()))) {
          return adopt(ctx, await imported(ctx, importId, inputs), inputs, hide, ignored, true);
        }
        // The user this deployment's delete left in place (a forced `--replace`): taken back as the deleted resource held it.
        const left = ctx.leftInPlace.get(declaredUserKey(inputs.email));
        const kept = left?.userId ? await unlessNotFound(client.users.get(left.userId)) : undefined;
        if (left && kept && sameEmail(kept.email, inputs.email)) {
          // As any adoption: what `ignoreChanges` names stays as the record has it, and the message says whether anything was written.
          const { user, written, unapplied } = await takeOver(ctx, kept, inputs, true, ignored);
          ctx.info(hide(takenBack(kept.id, inputs.email, written)));
          return { id: user.id, outs: { ...outputs(user, inputs, left.adopted), ...(unapplied ? { unapplied } : {}) } };
        }
        // Adoption needs only documented endpoints: the lookup first, POST only when nobody has the email.
        const found = inputs.adoptExisting ? await client.users.findByEmail(inputs.email) : undefined;
        if (found) return adopt(ctx, found, inputs, hide, ignored);
        const { user, taken } = await createUser(ctx.connection(), inputs, inputs.adoptExisting === true).catch((error: unknown) => {
          // A User's id is the user's, unknown till the job ends: no partial state can hold it, so the message says what to do.
          if (PartialWriteError.isInstance(error) && error.pendingJobId !== null)
            error.message += createStillRunning(inputs.email, error.pendingJobId);
          throw error;
        });
        return taken ? adopt(ctx, user, inputs, hide, ignored) : { id: user.id, outs: outputs(user, inputs) };
      }),
    );
  },

  async read(ctx, id, props, get) {
    const hide = hiderFor(props?.[SECRET_EMAIL] === true, props?.email);
    return hiding(hide, () =>
      withHints(
        async () => {
          const listed = await ctx.connection().cache.user(id);
          if (listed instanceof Error) {
            // There, but unreadable: never proof of absence, nor of a change. What the state recorded stands, as a
            // `WorkspaceUsers` keeps one of its users; a `User.get` has no state to keep.
            if (!props) throw listed;
            ctx.warn(hide(unreadableKept("User", [`${props.email} (${id}): ${reasonOf(listed)}`])));
            return { id, props, inputs: refreshInputs(props) };
          }
          const user = listed && refreshed(listed, props);
          // A `User.get` names a user the program expects, not one a refresh may find gone.
          if (!user && get) throw new ConfigurationError(noUserToGet(id), "id");
          if (!user) return { id: "", props: {} as UserOutputs };
          const outs = outputs(user, props ?? {}, props?.adopted === true);
          // No state (a `User.get`): both are managed, as the service has them.
          outs.managedAttributes = props?.managedAttributes ?? [...OPTIONAL];
          // The id as the state has it: one in another case must not change it (every resource using `user.id` would be replaced).
          return { id: sameId(user.id, id) ? id : user.id, props: outs, inputs: refreshInputs(outs) };
        },
        ctx.keySource,
        !get,
      ),
    );
  },

  async update(ctx, id, olds, news) {
    const inputs = ctx.parseInputs(userInputs, news);
    const adopted = olds.adopted === true;
    // Only the destroy opt-in changed: the state learns it, nothing is sent.
    if (changedUserProperties(olds, news).length === 0 && optInChanged(olds, news)) {
      const { deleteOnDestroy: _, [SECRET_EMAIL]: __, ...rest } = olds;
      return { outs: { ...rest, ...optIn(inputs.deleteOnDestroy), adopted, ...secretEmail(news) } };
    }
    const changed = changedUserProperties(olds, news);
    // Either email may be the secret: the one the state has, the one the program declares now.
    const hide = hiderFor(news[SECRET_EMAIL] === true || olds[SECRET_EMAIL] === true, news.email, olds.email);
    return hiding(hide, () =>
      ctx.withWrite(async () => {
        const { user, unapplied } = await replaceUser(ctx.connection().client, id, inputs, changed).catch(
          saidOfUpdate(inputs.email, changed),
        );
        return { outs: { ...outputs(user, inputs, adopted), ...(unapplied ? { unapplied } : {}) } };
      }),
    );
  },

  async delete(ctx, id, props) {
    // A replacement of this resource took the same user over in this deployment: keep it.
    if (ctx.takeovers.has(userKey(id))) return;
    // What a replacement's create then takes back (`ctx.leftInPlace`).
    const leave = (email: string | undefined) => {
      if (email) ctx.leftInPlace.set(declaredUserKey(email), { adopted: props?.adopted === true, userId: id });
    };
    const secret = props?.[SECRET_EMAIL] === true;
    const kept = keptReason(props);
    if (kept) {
      ctx.warn(hiderFor(secret, props?.email)(leftInWorkspace(id, props?.email, kept)));
      leave(props?.email);
      return;
    }
    await hiding(hiderFor(secret, props?.email), () =>
      ctx.withWrite(async () => {
        const { client } = ctx.connection();
        // Only the opt-in deletes an owner, even one made since the last refresh.
        if (props?.deleteOnDestroy === true) {
          ctx.connection().cache.wrote(id);
          await unlessNotFound(client.users.delete(id));
        } else {
          const owner = await deleteUnlessOwner(ctx.connection(), id, true);
          if (owner) {
            ctx.warn(hiderFor(secret, props?.email, owner.email)(leftInWorkspace(id, owner.email ?? props?.email, OWNER)));
            leave(owner.email ?? props?.email);
            return;
          }
        }
        // What a replacement's create then makes anew, whatever `import` the program still gives (`ctx.removedRecords`).
        ctx.removedRecords.add(userKey(id));
      }),
    );
  },
});

/**
 * What rethrows an update's error of a user declaring `email`, `changed` the properties it changes: a 404 (the user the state
 * records is gone: deleted outside the program) says so, and what to run; a 409 of an email change, that another user most
 * likely has the email. Not for an adoption's: its user was just found, and a plain rerun finds who has the email then.
 */
export function saidOfUpdate(email: string, changed: readonly string[]): (error: unknown) => never {
  return (error) => {
    // A 404 of the write's job (one a store never showed) is the job's, not the user's.
    if (NotFoundError.isInstance(error) && !error.path.includes("/jobs/")) error.message += goneSinceRefresh();
    else if (ConflictError.isInstance(error) && changed.includes("email")) error.message += emailTakenOnUpdate(email);
    throw error;
  };
}

/**
 * An update's `PUT`: it replaces every attribute, so the user is read first, and only what the program `changed` is sent as
 * declared; every other attribute keeps the service's value. A declared value so left unsent, because the service's differs
 * (a change made outside the program, or one `ignoreChanges` hides), is returned as `unapplied`. `found`: a takeover of a
 * user a listing found with the declared email, which may be old: the user read must have that email still (one gone, a 404,
 * or whose record cannot be read, does not), else nothing is written.
 */
export async function replaceUser(
  client: WorkspaceAccessClient,
  id: string,
  inputs: Attributes,
  changed: readonly string[],
  found = false,
): Promise<{ user: User; unapplied?: Unapplied }> {
  let current: User;
  try {
    current = await client.users.get(id);
  } catch (error) {
    // A takeover's user gone, or whose record does not say it has the email still: nothing is written.
    if (found && NotFoundError.isInstance(error)) error.message += goneSinceFound(inputs.email);
    if (found && InvalidResponseError.isInstance(error)) error.message += unreadableToTakeOver(inputs.email);
    if (found || !InvalidResponseError.isInstance(error)) throw error;
    // A record that cannot be read: the declared values replace it where the program declares the role and `isGuest` (a PUT
    // sends both, and neither may be guessed).
    const { email, firstName, lastName, role } = inputs;
    // Nothing read: the flag is the declared one, else read as a record that leaves it out beside the declared role (`guestOf`).
    const isGuest = role === undefined ? undefined : (inputs.isGuest ?? guestOf({ isGuest: null, role }));
    if (role === undefined || isGuest === undefined) {
      error.message += unreadableRoleToKeep();
      throw error;
    }
    return { user: answered(await client.users.replace(id, { email, firstName, lastName, role, isGuest }), isGuest) };
  }
  if (found && !sameEmail(current.email, inputs.email)) throw new Error(emailChangedSinceFound(id, inputs.email, current.email));
  const sent: Attributes = { ...inputs };
  const unapplied: Unapplied = {};
  for (const [key, same] of COMPARED) {
    const declared = inputs[key as keyof Attributes];
    const theirs = serviceValue(current, key);
    // The service's value is kept only where the program did not change it and the value is one the program could declare
    // (an empty name, say, is replaced by the declared one: the PUT would be refused).
    if (declared === undefined || changed.includes(key) || !userInputs.shape[key].safeParse(theirs).success || theirs === undefined)
      continue;
    (sent as Record<string, unknown>)[key] = theirs;
    if (!same(theirs, declared, current.role)) unapplied[key as keyof Unapplied] = digestOf(key, declared);
  }
  const user = await put(client, id, sent, current, inputs.role);
  return Object.keys(unapplied).length === 0 ? { user } : { user, unapplied };
}

/**
 * The `PUT` of `inputs`, keeping `current`'s optional attributes the program leaves out. One the service refuses (400) after it
 * sent back the role the service has, one the public document does not list, says so, and how to go on (by `declaredRole`, the
 * program's): the service may serve a role it does not take back.
 */
async function put(
  client: WorkspaceAccessClient,
  id: string,
  inputs: Attributes,
  current: User,
  declaredRole: string | undefined,
): Promise<User> {
  const attributes = attributesOf(inputs, current);
  try {
    return answered(await client.users.replace(id, attributes), attributes.isGuest);
  } catch (error) {
    const kept = attributes.role === current.role ? current.role : undefined;
    if (BadRequestError.isInstance(error) && kept && !(KNOWN_USER_ROLES as readonly string[]).includes(kept)) {
      if (declaredRole === undefined || declaredRole === kept) error.message += keptRoleRefused(kept, declaredRole === kept);
      else error.message += keptDeclaredRoleRefused(kept, declaredRole);
    }
    throw error;
  }
}

/**
 * POSTs a new user. Someone who took the email since the lookup (409) is answered as `taken` when `adoptTaken` (the caller
 * adopts them); otherwise, or when no user is found with the email, the 409 fails naming them.
 */
export async function createUser(
  { client, cache }: Pick<Connection, "client" | "cache">,
  inputs: Attributes,
  adoptTaken: boolean,
): Promise<{ user: User; taken: boolean }> {
  // The job of the accepted POST while it is waited for: an error then leaves a create that may still land.
  const job: { pending: string | null } = { pending: null };
  try {
    const attributes = attributesOf(inputs);
    const user = answered(
      await client.users.create(attributes, {
        onJob: (jobId) => {
          job.pending = jobId;
        },
      }),
      attributes.isGuest,
    );
    cache.wrote(user.id);
    return { user, taken: false };
  } catch (error) {
    if (job.pending !== null) throw afterJobWait(error, job.pending);
    if (WorkspaceAccessError.isInstance(error) && error.status === 405) error.message += noUserCreate(inputs.email, adoptTaken);
    if (!ConflictError.isInstance(error)) throw error;
    // A lookup that fails leaves the 409 the error: someone has the email, only who is not known.
    const existing = await takenBy({ client, cache }, inputs.email).catch((lookup: unknown) => {
      error.message += `${emailTaken(inputs.email, undefined, adoptTaken, error.detail)} Who has it is not known: looking for it failed (${reasonOf(lookup)}).`;
      throw error;
    });
    if (adoptTaken && existing) return { user: existing, taken: true };
    error.message += emailTaken(inputs.email, existing?.id, adoptTaken, error.detail);
    throw error;
  }
}

/**
 * Who has `email`, after a `POST /users` answered 409: the search's user, else the one user of the workspace's listing whose
 * email is the same in any case. A service whose `filter` matches only in the case written (the document does not say) finds
 * nobody when the program declares the email in another case; the 409 says someone has it, so only there is the whole
 * listing read.
 */
async function takenBy({ client, cache }: Pick<Connection, "client" | "cache">, email: string): Promise<User | undefined> {
  const found = await client.users.findByEmail(email);
  if (found) return found;
  const same = [...(await cache.all()).values()].filter((u): u is User => !(u instanceof Error) && sameEmail(u.email, email));
  return same.length === 1 ? same[0] : undefined;
}

/** Every attribute a user's inputs may declare: an adoption sends each declared one as declared. */
const DECLARABLE = COMPARED.map(([key]) => key);

/** The attributes an adoption does not write: the optional ones `ignoreChanges` paths name (`"*"`: all); never the email, the key. */
export function ignoredAttributes(paths: unknown): string[] {
  return ignoredOf(
    paths,
    DECLARABLE.filter((key) => key !== "email"),
  );
}

/**
 * `inputs` with the service's value of each `ignored` attribute the program declares (one the program could not declare, an
 * empty name, is left as declared), and the declared values so kept from the write, as digests ({@link Unapplied}).
 */
function keepIgnored(existing: User, inputs: Attributes, ignored: readonly string[]): { sent: Attributes; unapplied?: Unapplied } {
  const sent: Attributes = { ...inputs };
  const unapplied: Unapplied = {};
  for (const [key, same] of COMPARED) {
    const declared = inputs[key as keyof Attributes];
    const theirs = serviceValue(existing, key);
    if (!ignored.includes(key) || declared === undefined || theirs === undefined || !userInputs.shape[key].safeParse(theirs).success)
      continue;
    (sent as Record<string, unknown>)[key] = theirs;
    if (!same(theirs, declared, existing.role)) unapplied[key as keyof Unapplied] = digestOf(key, declared);
  }
  return Object.keys(unapplied).length === 0 ? { sent } : { sent, unapplied };
}

/**
 * Takes over an existing user (`User` or one of `WorkspaceUsers`): nothing is written when every declared attribute holds
 * already. Else one `PUT` sets the declared attributes and keeps the service's value of each optional one left out (an owner
 * stays an owner, a guest a guest): its value now, read with `GET /users/{id}` first, since `existing` may come from a
 * listing taken minutes ago (a proof's, or the shared read cache's); `read`: `existing` is such a read already. An attribute
 * `ignored` names keeps the service's value too, as Pulumi's import leaves an ignored property; `unapplied` the declared values
 * so left unsent.
 */
export async function takeOver(
  ctx: ProviderContext,
  existing: User,
  inputs: Attributes,
  read = false,
  ignored: readonly string[] = [],
): Promise<{ user: User; written: boolean; unapplied?: Unapplied }> {
  const kept = keepIgnored(existing, inputs, ignored);
  const held = changedUserProperties(existing, kept.sent).length === 0;
  const { client } = ctx.connection();
  let user = existing;
  let unapplied = kept.unapplied;
  if (!held && read) user = await put(client, existing.id, kept.sent, existing, inputs.role);
  else if (!held)
    ({ user, unapplied } = await replaceUser(
      client,
      existing.id,
      inputs,
      DECLARABLE.filter((key) => !ignored.includes(key)),
      true,
    ));
  ctx.takeovers.add(userKey(user.id));
  return { user, written: !held, ...(unapplied ? { unapplied } : {}) };
}

/**
 * Takes over `existing` for a `User` declaring `inputs` (`hide`: how its messages print its email; `ignored`, `read`: as
 * {@link takeOver}'s).
 */
async function adopt(
  ctx: ProviderContext,
  existing: User,
  inputs: UserInputs,
  hide: Hide,
  ignored: readonly string[],
  read = false,
): Promise<pulumi.dynamic.CreateResult<UserOutputs>> {
  const { user, written, unapplied } = await takeOver(ctx, existing, inputs, read, ignored);
  // Said in the up's output: the engine reports the adoption as "created" either way.
  if (!written) {
    const held = unapplied ? "every declared attribute ignoreChanges does not name" : "every declared attribute";
    ctx.info(hide(`Adopted user ${inputs.email} (${existing.id}): it holds ${held} already; nothing was written.`));
  }
  return { id: user.id, outs: { ...outputs(user, inputs, true), ...(unapplied ? { unapplied } : {}) } };
}

/** The user `import` names, read directly: one that does not exist or has another email fails, naming both, before any write. */
async function imported(ctx: ProviderContext, id: string, inputs: UserInputs): Promise<User> {
  const user = await unlessNotFound(ctx.connection().client.users.get(id));
  if (!user) throw new ConfigurationError(noUserToImport(id), "import");
  if (!sameEmail(inputs.email, user.email)) throw new ConfigurationError(importedEmailDiffers(id, user.email, inputs.email), "import");
  return user;
}

/** The role of a workspace owner, whom a `User`'s delete leaves unless `deleteOnDestroy`, and a `WorkspaceUsers` removal always. */
export const OWNER_ROLE = "workspace_owner";
const OWNER = "it is a workspace owner";

/**
 * Deletes user `id` unless the service has them as a workspace owner now (the state's role may be old: someone may have
 * made them one since): the owner's record when left, else `undefined` (deleted, or gone already). A record whose role cannot be
 * read, or that leaves it out, fails, deleting nothing (`optIn`: the message offers `deleteOnDestroy`, which a `User`'s delete
 * takes past this read). `User`'s delete and a `WorkspaceUsers` removal both go through here.
 */
export async function deleteUnlessOwner(
  { client, cache }: Pick<Connection, "client" | "cache">,
  id: string,
  optIn: boolean,
): Promise<User | undefined> {
  let now: User | undefined;
  try {
    now = await unlessNotFound(client.users.get(id));
  } catch (error) {
    if (InvalidResponseError.isInstance(error)) error.message += ownerUnknown(optIn);
    throw error;
  }
  // A record that leaves the role out (only the id is certain) says nothing of ownership: as unknown as one that cannot be read.
  if (now && (now.role === null || now.role === undefined)) {
    throw new InvalidResponseError(noRoleToDelete(now) + ownerUnknown(optIn), {
      method: "GET",
      path: `users/${now.id}`,
      status: 200,
      field: "data.attributes.role",
    });
  }
  if (now?.role === OWNER_ROLE) return now;
  if (now) {
    cache.wrote(id);
    await unlessNotFound(client.users.delete(id));
  }
  return undefined;
}

/** Why a delete leaves the user (what the stack adopted existed before it, an owner holds the workspace); undefined: it may delete it. */
function keptReason(props: UserOutputs | undefined): string | undefined {
  if (!props || props.deleteOnDestroy === true) return undefined;
  if (props.adopted === true) return "the stack adopted it (it existed before)";
  if (props.role === OWNER_ROLE) return OWNER;
  return undefined;
}
