/**
 * The dynamic provider of `WorkspaceUsers` (`pulumi-workspace-access/provider/workspace-users`): a set of workspace users keyed
 * by email in lower case, each with a `User`'s attribute rules (`../user/user-provider.ts`). Its id names no record (`import` is refused).
 *
 * | operation | request |
 * |---|---|
 * | check, diff | none |
 * | create | one `GET /users` listing; a `GET /users/{id}` and a `PUT` per user found whose declared attribute differs; misses proven |
 * | | absent (`absence.ts`) before their `POST` |
 * | update | first the job of each create left running (`pendingCreates`: `GET /jobs/{id}`, its user then the set's); a |
 * | | `GET /users/{id}` and a `PUT` per changed user (what the program did not change keeps the service's value); added users as |
 * | | at create; a removed user, see delete |
 * | read | one `GET /users` listing (shared with the refresh's other reads); a user it misses is read directly before it is forgotten; |
 * | | one whose record cannot be used keeps what the state recorded, with a warning; the user of a pending create whose job |
 * | | finished, searched for by email when the listing misses them (one `GET /users?filter=`), else the create stays recorded |
 * | delete | the jobs of creates left running, as at update (one still running fails the destroy); `GET /users/{id}` (the role now), |
 * | | then `DELETE /users/{id}`, per user it created; adopted users (unless `deleteOnDestroy`) and owners (in the state or |
 * | | now) are left, with a warning; a record without a role fails that user |
 *
 * One failed user never stops the others: the state records what the service then has, and the error names each failure.
 * A set holding a secret (the program's hidden `__secretUsers`, which the state keeps) names no email in its messages.
 */
import {
  ConfigurationError,
  ConflictError,
  type InvalidResponseError,
  type Job,
  reasonOf,
  type User,
  type WorkspaceAccessClient,
} from "../../client";
import { mapBounded, prove } from "../../client/absence";
import { idOf } from "../../client/ids";
import { emailKey, sameEmail } from "../../client/models";
import { madeByJob } from "../../client/service-clock";
import { SEARCH_PROOF_LISTINGS, sharedEmail } from "../../client/users";
import { namedUpTo } from "../../shared/named-up-to";
import { hiderIf } from "../../shared/hide-secrets";
import { digestOf } from "../../shared/digest";
import { DECLARED_ELSEWHERE, SECRET_USERS } from "../../shared/input-constants";
import { IMPORT_ID, optIn, optInChanged, type Props } from "../../shared/inputs";
import { isUnknown, knownString } from "../../shared/unknown";
import type { PendingUserCreate, WorkspaceUserState } from "../../shared/member-state";
import { PartialWriteError, settleJob } from "../membership/partial-write";
import { type WorkspaceUserInputs, workspaceUsersInputs } from "../../shared/workspace-users-inputs";
import { type ProviderContext, providerOf } from "../provider-runtime";
import { type ListedUser, listUsers, readUser } from "../read-cache";
import { unreadableKept } from "../user/messages";
import { declaredUserKey, userKey } from "../takeovers";
import {
  changedUserProperties,
  createUser,
  deleteUnlessOwner,
  managedOf,
  managedValues,
  OWNER_ROLE,
  refreshed,
  replaceUser,
  saidOfUpdate,
  takeOver,
} from "../user/user-provider";
import { KEPT_UNTIL_REFRESH, withHints } from "../../shared/hints";

/** What a `WorkspaceUsers` stores: its users and their ids, both keyed by email in lower case. */
export interface WorkspaceUsersOutputs {
  users: Record<string, WorkspaceUserState>;
  userIds: Record<string, string>;
  deleteOnDestroy?: true;
  /** Creates accepted whose job was not seen to finish, by email (absent: none): the next up or refresh waits for each job. */
  pendingCreates?: PendingUserCreate[];
  /** The set holds a secret (the program's hidden input, kept for a refresh and a destroy): its messages name no email. */
  [SECRET_USERS]?: true;
}

/** The resource's id: a set of users has no natural one. */
const RESOURCE_ID = "workspace-users";
/** Writes in flight at once (the client paces them all the same). */
const IN_FLIGHT = 8;

type Failure = { key: string; error: unknown };
/** The creates that may still land, by key. */
type Pending = Map<string, PendingUserCreate>;

const stateOf = (user: User, declared: Pick<WorkspaceUserState, "email">, managed: string[], created?: boolean): WorkspaceUserState => ({
  id: user.id,
  email: sameEmail(declared.email, user.email) ? declared.email : (user.email ?? declared.email),
  firstName: user.firstName as string,
  lastName: user.lastName as string,
  role: user.role,
  isGuest: user.isGuest,
  managedAttributes: managed,
  ...(created ? { created: true } : {}),
});

function outputsOf(
  users: Map<string, WorkspaceUserState>,
  deleteOnDestroy: unknown,
  pending: Pending = new Map(),
  secret = false,
): WorkspaceUsersOutputs {
  const byKey = <T>(entries: Iterable<[string, T]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const sorted = byKey(users);
  const pendingCreates = byKey(pending).map(([, p]) => ({ email: p.email, jobId: p.jobId }));
  return {
    users: Object.fromEntries(sorted),
    userIds: Object.fromEntries(sorted.map(([k, u]) => [k, u.id])),
    ...optIn(deleteOnDestroy),
    ...(pendingCreates.length > 0 ? { pendingCreates } : {}),
    ...(secret ? { [SECRET_USERS]: true as const } : {}),
  };
}

/** Every email a set's state and inputs name: those its messages leave out when it holds a secret. */
function emailsOf(olds: WorkspaceUsersOutputs | undefined, declared?: Record<string, { email?: unknown } | undefined>): string[] {
  return [
    ...Object.values(olds?.users ?? {}).map((u) => u.email),
    ...(olds?.pendingCreates ?? []).map((p) => p.email),
    ...Object.values(declared ?? {}).flatMap((u) => (knownString(u?.email) ? [u.email] : [])),
  ];
}

/**
 * The creates an earlier deployment left running (`prior`), their jobs given their time once more: `own`, the keys whose job
 * finished (the user found with that email is the set's, unless `notOwn` says why not); `running`, those still running, and
 * those whose job's record cannot be read (`unread`, each with why: whether it made the user is not known), kept, and neither
 * written nor forgotten; the others (the job failed, or the service no longer knows it) are dropped: a user found is adopted.
 * One odd job record fails its user alone.
 */
async function settlePending(ctx: ProviderContext, prior: readonly PendingUserCreate[] | undefined) {
  const own = new Map<string, PendingUserCreate>();
  const jobs = new Map<string, Job>();
  const running: Pending = new Map();
  const unread = new Map<string, InvalidResponseError>();
  await mapBounded(prior ?? [], IN_FLIGHT, async (p) => {
    const outcome = await settleJob(ctx.connection().client, p.jobId, (job) => jobs.set(emailKey(p.email), job));
    if (typeof outcome === "object") unread.set(emailKey(p.email), outcome.unread);
    if (outcome === "finished") own.set(emailKey(p.email), p);
    else if (outcome === "running" || typeof outcome === "object") running.set(emailKey(p.email), p);
  });
  /** Why the create of `key`, kept, was neither written nor forgotten (`what`), with `limit` (`ProviderContext.waitLimit`). */
  const whyKept = (key: string, p: PendingUserCreate, what: string, limit: string) => {
    const error = unread.get(key);
    return error ? jobUnread(p, error, what) : stillRunning(p, what, limit);
  };
  /**
   * Why `user`, found with the email of the finished create `key`, is not the set's own: made before that create's job (someone
   * else had the email: a service merging a POST of a taken email into that user finishes the job all the same), named by ids
   * alone (a set holding secrets names no email). `undefined`: it is the create's, as far as the service's times tell.
   */
  const notOwn = (key: string, user: User): string | undefined => {
    const job = jobs.get(key);
    if (!job || madeByJob(user.createdAt, job.createdAt)) return undefined;
    return (
      `WorkspaceUsers: a create the set left running finished (job ${job.id}), but the user with its email, ${user.id}, was made ` +
      `before it (created ${user.createdAt}; the job ${job.createdAt}): someone else's user, so it is not recorded as made by the set`
    );
  };
  return { own, running, unread, whyKept, notOwn };
}

/**
 * A create an earlier deployment left running is running still: that user is neither written nor forgotten. `limit`: what
 * bounded the wait (`ProviderContext.waitLimit`).
 */
const stillRunning = (p: PendingUserCreate, what: string, limit: string) =>
  new Error(
    `the create of ${p.email} is still running (job ${p.jobId}; check it with getJob): ${what}; run pulumi up again once it ` +
      `has finished, or raise ${limit}.`,
  );

/** A create an earlier deployment left running whose job's record cannot be read: whether it made the user is not known. */
const jobUnread = (p: PendingUserCreate, error: InvalidResponseError, what?: string) =>
  new Error(
    `the create of ${p.email} may have made the user, but its job ${p.jobId} cannot be read (${reasonOf(error)})` +
      `${what ? `, so that user is ${what}` : ""}; the state keeps the create, and the next pulumi up or refresh reads the job ` +
      "again. Check the job with getJob or in the service.",
    { cause: error },
  );

/** What {@link settlePending} found of the creates an earlier deployment left running. */
type Settled = Awaited<ReturnType<typeof settlePending>>;

/**
 * The users the set's own creates made (jobs that finished since an earlier deployment) that the program no longer declares
 * (`declared` says which it does), found by email, as states the set created: to be released as such. One not found was never
 * made, or is gone; one made before its create's job is someone else's, left as it is (a warning says so). A search
 * that fails fails that user alone, and keeps its create recorded (in `pending`).
 */
async function ownUndeclared(
  ctx: ProviderContext,
  { own, notOwn }: Pick<Settled, "own" | "notOwn">,
  declared: (key: string) => boolean,
  failures: Failure[],
  pending: Pending,
): Promise<Array<[string, WorkspaceUserState]>> {
  const found = await mapBounded(
    [...own].filter(([key]) => !declared(key)),
    IN_FLIGHT,
    async ([key, p]) => {
      let user: User | undefined;
      try {
        // The job finished, so the user was made: the search, else the listing (a search may miss an email the service folds).
        user = await ctx.connection().client.users.findExisting(p.email);
      } catch (error) {
        pending.set(key, p);
        if (error instanceof Error) error.message += createKept();
        failures.push({ key, error });
        return [];
      }
      const why = user && notOwn(key, user);
      // Someone else's: the program no longer declares it, so it is left as it is, and its create forgotten.
      if (why) ctx.warn(`${why}; the program no longer declares it: left in the workspace as it is.`);
      return user && !why ? [[key, stateOf(user, p, [], true)] as [string, WorkspaceUserState]] : [];
    },
  );
  return found.flat();
}

/**
 * The error of an operation some users failed, each named (`hide`: a set holding secrets names no email); with the state to
 * record (the engine keeps it: the others were done).
 */
function failed(
  failures: Failure[],
  hide: (text: string) => string,
  outs?: WorkspaceUsersOutputs,
  provider?: unknown,
  others = "the others were made",
): Error {
  const reasons = failures.map((f) => hide(`${f.key}: ${f.error instanceof Error ? f.error.message : String(f.error)}`));
  const error = new Error(`${failures.length} workspace user change(s) failed (${others}): ${reasons.join("; ")}`, {
    cause: failures[0]?.error,
  });
  return Object.assign(error, { reasons }, outs ? { id: RESOURCE_ID, properties: { ...outs, __provider: provider } } : {});
}

/** Each changed, added or removed user as a path (`users[ann@example.com].role`, `users[bob@example.com]`); no request. */
export function changedPaths(olds: WorkspaceUsersOutputs, news: Props): string[] {
  if (isUnknown(news.users) || typeof news.users !== "object" || news.users === null) return ["users"];
  const declared = news.users as Record<string, Props>;
  const state = olds.users ?? {};
  const paths = Object.entries(declared).flatMap(([key, user]) =>
    state[key] && !isUnknown(user) ? changedUserProperties(state[key], user).map((p) => `users[${key}].${p}`) : [`users[${key}]`],
  );
  for (const key of Object.keys(state)) if (!(key in declared)) paths.push(`users[${key}]`);
  return optInChanged(olds, news) ? [...paths, "deleteOnDestroy"] : paths;
}

/**
 * The emails by which a program may declare the user the set records under `key`: the key (the email the program declared), and
 * the service's email, which a refresh records in its place when it changed there since.
 */
const emailsOfUser = (key: string, user: Pick<WorkspaceUserState, "email">): string[] => [key, user.email];

/** Whether a resource's check in this deployment (`ctx.declared`) saw the program declare the user the set records under `key`. */
const declaredInDeployment = (ctx: ProviderContext, key: string, user: Pick<WorkspaceUserState, "email">): boolean =>
  emailsOfUser(key, user).some((email) => ctx.declared.has(declaredUserKey(email)));

/** Adopts an existing user; `created`: the set's own create made them (its job finished after an earlier deployment). */
const adopt = async (ctx: ProviderContext, existing: User, inputs: WorkspaceUserInputs, created = false) =>
  stateOf((await takeOver(ctx, existing, inputs)).user, inputs, managedOf(inputs), created);

/** A listing's users by email in any case: two whose emails differ only in case are both kept, and neither is guessed at. */
function byEmail(listing: Map<string, ListedUser>): Map<string, User[]> {
  const users = new Map<string, User[]>();
  for (const u of listing.values())
    if (!(u instanceof Error) && u.email) users.set(emailKey(u.email), [...(users.get(emailKey(u.email)) ?? []), u]);
  return users;
}

/**
 * Whether `user` is one this deployment's delete left in place (`ctx.leftInPlace`) as created by the stack: a forced
 * `--replace` of a set deletes first, its delete leaving the users the replacement declares, whose create then takes them back
 * as the deleted set held them. Recorded as adopted instead, they would be left in the workspace by every later destroy.
 */
function heldAsCreated(ctx: ProviderContext, user: { id: string; email?: string | null }): boolean {
  const left = user.email ? ctx.leftInPlace.get(declaredUserKey(user.email)) : undefined;
  return left !== undefined && !left.adopted && left.userId !== undefined && idOf(left.userId) === idOf(user.id);
}

/** Creates a user proven absent; one who appeared since (409) is adopted, as `User` with `adoptExisting` does. */
async function create(ctx: ProviderContext, inputs: WorkspaceUserInputs): Promise<WorkspaceUserState> {
  const { user, taken } = await createUser(ctx.connection(), inputs, true);
  return taken ? adopt(ctx, user, inputs) : stateOf(user, inputs, managedOf(inputs), true);
}

/** Adopts each wanted user the one listing finds and creates the others once proven absent (listings at other page sizes agree). */
async function adoptOrCreate(
  ctx: ProviderContext,
  wanted: Map<string, WorkspaceUserInputs>,
  into: Map<string, WorkspaceUserState>,
  failures: Failure[],
  pending: Pending,
  { own, notOwn }: Pick<Settled, "own" | "notOwn"> = { own: new Map(), notOwn: () => undefined },
) {
  if (wanted.size === 0) return;
  const { client, cache } = ctx.connection();
  // A record that cannot be used names no email: its user is neither adopted nor written (a POST of that email meets a 409).
  const unusable = (listing: Map<string, ListedUser>) => [...listing].flatMap(([id, u]) => (u instanceof Error ? [id] : []));
  const first = await cache.all();
  const found = byEmail(first);
  let last = first;
  let proven = true;
  let proofError: unknown;
  if ([...wanted.keys()].some((key) => !found.has(key))) {
    // The users this deployment's own resources created or deleted meanwhile (a `User` beside the set) are no sign of a shift.
    const proof = await prove((size) => listUsers(client, size), first, { listings: SEARCH_PROOF_LISTINGS, ignored: cache.written });
    for (const [key, users] of byEmail(proof.listing)) if (!found.has(key)) found.set(key, users);
    proven = proof.proven;
    proofError = proof.error;
    last = proof.listing;
  }
  const unread = unusable(last);
  await mapBounded([...wanted], IN_FLIGHT, async ([key, inputs]) => {
    try {
      const [existing, ...others] = found.get(key) ?? [];
      if (others.length > 0) throw sharedEmail(inputs.email, [existing!, ...others]);
      if (!existing && !proven) throw unproven(inputs.email, proofError);
      const why = existing && own.has(key) ? notOwn(key, existing) : undefined;
      if (why) ctx.warn(`${why}; adopted as any user the set finds (a destroy leaves it, unless deleteOnDestroy).`);
      const made = (own.has(key) && !why) || (existing !== undefined && heldAsCreated(ctx, existing));
      into.set(key, existing ? await adopt(ctx, existing, inputs, made) : await create(ctx, inputs));
    } catch (error) {
      if (unread.length > 0 && ConflictError.isInstance(error)) error.message += unreadTaken(unread);
      // Accepted, its job not seen to finish: recorded, so the next up or refresh waits for the job instead of adopting the user.
      if (PartialWriteError.isInstance(error) && error.pendingJobId !== null) {
        pending.set(key, { email: inputs.email, jobId: error.pendingJobId });
        error.message += createRecorded(error.pendingJobId);
      } else if (own.has(key)) {
        // The set's own create, whose job finished: what this up failed to write leaves it recorded, to be settled next time.
        pending.set(key, own.get(key)!);
        if (error instanceof Error) error.message += createKept();
      }
      failures.push({ key, error });
    }
  });
}

/**
 * Deletes users this resource created (adopted ones only with `deleteOnDestroy`), never an owner; warns once for those left.
 * `deleting`: the resource's own delete, whose users left in place a forced `--replace`'s create takes back (`heldAsCreated`).
 */
async function release(
  ctx: ProviderContext,
  users: Array<[string, WorkspaceUserState]>,
  deleteOnDestroy: unknown,
  failures: Failure[],
  secret: boolean,
  declaredElsewhere: readonly string[] = [],
  deleting = false,
) {
  const left: string[] = [];
  let deleted = 0;
  const handedOver: string[] = [];
  // Handed over by the email the program declared alone, the service's being another now (each "email (id, theirs)").
  const byOldEmail: string[] = [];
  const elsewhere = new Set(declaredElsewhere);
  const declaredThere = (email: string) => elsewhere.has(digestOf("email", email)) || ctx.declared.has(declaredUserKey(email));
  await mapBounded(users, IN_FLIGHT, async ([key, user]) => {
    // Another resource of this deployment took the user over: no longer this one's to delete.
    if (ctx.takeovers.has(userKey(user.id))) return;
    // What a create later in the deployment (a forced `--replace`'s) takes back as this set held it (`ctx.leftInPlace`).
    const leave = () => {
      if (deleting) ctx.leftInPlace.set(declaredUserKey(user.email), { adopted: user.created !== true, userId: user.id });
    };
    // Another resource of the program declares the user (moved there), by either email the set knows them by: handed over,
    // whichever the engine runs first (its email known with the set's own), or once its check ran (one known later).
    if (emailsOfUser(key, user).some(declaredThere)) {
      handedOver.push(user.email);
      if (!declaredThere(user.email)) byOldEmail.push(`${key} (${user.id}, ${user.email} in the service)`);
      leave();
      return;
    }
    if (user.role === OWNER_ROLE || (!user.created && deleteOnDestroy !== true)) {
      left.push(user.email);
      leave();
      return;
    }
    try {
      // A record that cannot say whether the user is an owner now fails that user, naming it (`deleteUnlessOwner`).
      if (await deleteUnlessOwner(ctx.connection(), user.id, false)) left.push(user.email);
      else deleted++;
    } catch (error) {
      failures.push({ key, error });
    }
  });
  // A set holding secrets names no email: a count alone.
  const names = (emails: string[]) => (secret ? "their emails are not shown (the set holds secrets)" : namedUpTo(emails.sort()));
  if (handedOver.length > 0) {
    ctx.info(`WorkspaceUsers handed ${handedOver.length} user(s) to another resource of the program: ${names(handedOver)}.`);
  }
  if (byOldEmail.length > 0) ctx.warn(handedByOldEmail(secret ? [] : byOldEmail, byOldEmail.length));
  if (left.length > 0) {
    ctx.warn(
      `WorkspaceUsers left ${left.length} user(s) in the workspace, the stack no longer manages them: ${names(left)}. ` +
        "It deletes only users it created, never a workspace owner; set deleteOnDestroy: true to delete adopted users too.",
    );
  }
  return deleted;
}

/** Puts the changed users, adds the added ones, releases the removed ones; one failing user does not stop the others. */
async function update(ctx: ProviderContext, olds: WorkspaceUsersOutputs, news: Props): Promise<WorkspaceUsersOutputs> {
  const inputs = ctx.parseInputs(workspaceUsersInputs, news);
  const secret = inputs[SECRET_USERS] === true || olds[SECRET_USERS] === true;
  const users = new Map(Object.entries(olds.users ?? {}));
  const failures: Failure[] = [];
  // Creates an earlier deployment left running: still running, they stay recorded; finished, the user found is the set's.
  const settled = await settlePending(ctx, olds.pendingCreates);
  const { running: pending, whyKept } = settled;
  for (const [key, p] of pending)
    failures.push({ key, error: whyKept(key, p, key in inputs.users ? "not written" : "not removed", ctx.waitLimit()) });
  // A user whose new email a create still running was asked for too stays under the old key, neither moved nor removed, till
  // that create settles.
  const held = new Set<string>();
  for (const [from, to] of rekeyed(olds.users ?? {}, inputs.users)) {
    if (pending.has(to)) held.add(from);
    else {
      users.set(to, users.get(from)!);
      users.delete(from);
    }
  }
  const added = new Map<string, WorkspaceUserInputs>();
  const changed: Array<[string, WorkspaceUserInputs, WorkspaceUserState]> = [];
  for (const [key, declared] of Object.entries(inputs.users)) {
    const prior = users.get(key);
    if (pending.has(key)) continue;
    if (!prior) added.set(key, declared);
    else if (changedUserProperties(prior, declared).length > 0) changed.push([key, declared, prior]);
    else users.set(key, { ...prior, managedAttributes: managedOf(declared) });
  }
  const removed = [...users.keys()].filter((key) => !(key in inputs.users) && !held.has(key));
  await mapBounded(changed, IN_FLIGHT, async ([key, declared, prior]) => {
    try {
      const changes = changedUserProperties(prior, declared);
      const { user, unapplied } = await replaceUser(ctx.connection().client, prior.id, declared, changes).catch(
        saidOfUpdate(declared.email, changes),
      );
      users.set(key, { ...stateOf(user, declared, managedOf(declared), prior.created), ...(unapplied ? { unapplied } : {}) });
    } catch (error) {
      failures.push({ key, error });
    }
  });
  await adoptOrCreate(ctx, added, users, failures, pending, settled);
  // What was done: an added user that failed is neither adopted nor created (the error names it).
  const done = [...added.keys()].flatMap((key) => users.get(key) ?? []);
  const created = done.filter((user) => user.created).length;
  // Taken back, not created: no POST was sent for them.
  const back = done.filter((user) => user.created && heldAsCreated(ctx, user)).length;
  const unmade = added.size - done.length;
  if (added.size > 0) {
    const failedToo = unmade > 0 ? `; ${unmade} failed (named in the error)` : "";
    const tookBack = back > 0 ? `; took back ${back} the set it replaces had created (its delete left them), as its own` : "";
    ctx.info(
      `WorkspaceUsers adopted ${done.length - created} existing user(s) of those added, and created ${created - back}${tookBack}${failedToo}.`,
    );
  }
  // A user the set's own create made since, whom the program no longer declares, is released as one it created.
  const ownGone = await ownUndeclared(ctx, settled, (key) => key in inputs.users, failures, pending);
  const gone = [...removed.map((key): [string, WorkspaceUserState] => [key, users.get(key)!]), ...ownGone];
  await release(ctx, gone, inputs.deleteOnDestroy, failures, secret, inputs[DECLARED_ELSEWHERE]);
  for (const [key, user] of ownGone) if (failures.some((f) => f.key === key)) users.set(key, user);
  for (const key of removed) if (!failures.some((f) => f.key === key)) users.delete(key);
  const outs = outputsOf(users, inputs.deleteOnDestroy, pending, inputs[SECRET_USERS] === true);
  if (failures.length > 0) throw failed(failures, hiderIf(secret, emailsOf(olds, inputs.users)), outs, news.__provider);
  return outs;
}

/**
 * The one user a search finds with `email` (in any case), for a refresh settling a finished create: presence only, since a miss
 * forgets nothing (the create stays recorded). No proof of absence is asked for, so a record the search cannot read (another
 * user's, whose name or email holds the text) or pages that shift fail nothing: such a record is skipped, and two users of the
 * email, which the next up names, are no one.
 */
async function searched(client: WorkspaceAccessClient, email: string): Promise<User | undefined> {
  const hits: User[] = [];
  for await (const user of client.users.list({ filter: email.trim(), onInvalid: () => {} }))
    if (sameEmail(user.email, email)) hits.push(user);
  return hits.length === 1 ? hits[0] : undefined;
}

/**
 * A refresh: every user from the one listing (a miss read directly, forgotten only on 404); the inputs as the program declares them.
 * A user whose record cannot be used is there still: it keeps what the state recorded, and the warning names the record and why.
 * A pending create is forgotten only once its user is recorded as created, or its job failed or is unknown to the service.
 */
async function read(ctx: ProviderContext, props: WorkspaceUsersOutputs | undefined) {
  if (!props?.users) throw new ConfigurationError(NO_IMPORT, "import");
  const { cache, client } = ctx.connection();
  const { own, running, unread: jobsUnread, notOwn } = await settlePending(ctx, props.pendingCreates);
  const listing = await cache.all();
  const users = new Map<string, WorkspaceUserState>();
  const unread: string[] = [];
  // The set's own creates that finished since: the user with that email is the set's. A listing proves presence only (a
  // page shift skips a record): one it misses is searched for directly, and a create whose user is not found stays recorded.
  const listed = byEmail(listing);
  const unsettled = new Map(running);
  await mapBounded(
    [...own].filter(([key]) => !props.users[key]),
    IN_FLIGHT,
    async ([key, p]) => {
      const [one, ...others] = listed.get(key) ?? [];
      const user = one && others.length === 0 ? one : await searched(client, p.email);
      const why = user && notOwn(key, user);
      // Someone else's: its create is forgotten, and an up that declares it adopts it.
      if (why) ctx.warn(`${why}; the create is forgotten (a pulumi up that declares the user adopts it).`);
      else if (user) users.set(key, stateOf(user, p, [], true));
      else unsettled.set(key, p);
    },
  );
  await mapBounded(Object.entries(props.users), IN_FLIGHT, async ([key, prior]) => {
    const user = listing.get(idOf(prior.id)) ?? (await readUser(client, prior.id));
    if (user instanceof Error) {
      users.set(key, prior);
      // There, but unreadable: never proof of absence, nor of a change; what the state recorded stands.
      unread.push(`${prior.email} (${prior.id}): ${reasonOf(user)}`);
    } else if (user) users.set(key, stateOf(refreshed(user, prior), prior, prior.managedAttributes, prior.created));
  });
  if (unread.length > 0) ctx.warn(hiderIf(props[SECRET_USERS] === true, emailsOf(props))(unreadableKept("WorkspaceUsers", unread)));
  for (const [key, error] of jobsUnread) {
    const p = running.get(key)!;
    ctx.warn(hiderIf(props[SECRET_USERS] === true, emailsOf(props))(`WorkspaceUsers: ${jobUnread(p, error).message}`));
  }
  const outs = outputsOf(users, props.deleteOnDestroy, unsettled, props[SECRET_USERS] === true);
  const declared = Object.entries(outs.users).map(([key, u]) => {
    return [key, { email: u.email, firstName: u.firstName, lastName: u.lastName, ...managedValues(u, u.managedAttributes) }];
  });
  const inputs = { users: Object.fromEntries(declared), ...optIn(outs.deleteOnDestroy) };
  return { id: RESOURCE_ID, props: outs, inputs: inputs as unknown as WorkspaceUsersOutputs };
}

/**
 * A miss of a create that no listing at another page size confirmed: not created. `error`, why that listing failed (a 400, a
 * 5xx past its retries): named, since running again does not help until it succeeds; none, the listings disagreed.
 */
function unproven(email: string, error: unknown): Error {
  if (error === undefined)
    return new Error(`could not prove that no user has the email ${email} (users came or went): not created; run again`);
  return new Error(
    `could not prove that no user has the email ${email}: listing the users again, at another page size, failed ` +
      `(${reasonOf(error)}): not created; run again once that listing succeeds`,
    { cause: error },
  );
}

/** A 409 for an email no readable record has, while the listing held records it could not use (`unread`, their ids): one may have it. */
function unreadTaken(unread: string[]): string {
  const named = namedUpTo([...unread].sort());
  return (
    ` The user list held ${unread.length} record(s) that could not be read (ids ${named}); ` +
    "if this email's user is among them, it is neither adopted nor changed until its record can be read."
  );
}

/**
 * The users the program now declares by the email the service has for them (changed there; a refresh recorded it), the state
 * keying them by the old one: the same users, re-keyed (old key, new key), not a removal and an addition. One user only
 * each way: an email two recorded users have, or a user still declared by their old key, is left as it is.
 */
function rekeyed(state: Record<string, WorkspaceUserState>, declared: Record<string, unknown>): Array<[string, string]> {
  const undeclared = Object.entries(state).filter(([key]) => !(key in declared));
  return Object.keys(declared).flatMap((key): Array<[string, string]> => {
    if (state[key]) return [];
    const same = undeclared.filter(([, user]) => emailKey(user.email) === emailKey(key));
    return same.length === 1 ? [[same[0]![0], key]] : [];
  });
}

/**
 * The users the update deletes (those the set created, and with `deleteOnDestroy` those it adopted, as `release` does) that
 * `news` drops while it adds one of the same first and last name: most likely an email changed, which the set, keyed by
 * email, makes a delete and a create (never paired: two people may share a name). Seen at preview, in the diff, the one
 * handler that sees which users the set created. Owners and users handed to another resource are not deleted, and are left
 * out; a `deleteOnDestroy` not known yet (a preview) is taken as set.
 */
function emailChanges(ctx: ProviderContext, olds: WorkspaceUsersOutputs, news: Props): Array<[WorkspaceUserState, Props]> {
  if (isUnknown(news.users) || typeof news.users !== "object" || news.users === null) return [];
  const declared = news.users as Record<string, Props>;
  const state = olds.users ?? {};
  const added = Object.entries(declared).filter(([key, user]) => !state[key] && user && !isUnknown(user));
  const nameOf = (u: { firstName?: unknown; lastName?: unknown }) =>
    knownString(u.firstName) && knownString(u.lastName) ? JSON.stringify([u.firstName, u.lastName]) : undefined;
  const deletesAdopted = news.deleteOnDestroy === true || isUnknown(news.deleteOnDestroy);
  const kept = new Set(rekeyed(state, declared).map(([from]) => from));
  return Object.entries(state).flatMap(([key, user]): Array<[WorkspaceUserState, Props]> => {
    const deleted = user.created === true || deletesAdopted;
    if (key in declared || kept.has(key) || !deleted || user.role === OWNER_ROLE || declaredInDeployment(ctx, key, user)) return [];
    const twin = added.find(([, u]) => nameOf(u) !== undefined && nameOf(u) === nameOf(user));
    return twin ? [[user, twin[1]]] : [];
  });
}

/**
 * An update drops `gone`, a user it deletes (the set created them, or adopted them under `deleteOnDestroy`), and adds `added`,
 * of the same name: said before the delete it makes. A set
 * holding secrets (`secret`) names none of them (one message for all, with their count): either email may be a secret.
 */
function emailChanged(pairs: Array<[WorkspaceUserState, Props]>, secret: boolean): string[] {
  const advice =
    "If this is one person's email changing, keep the old email here and move them to a User resource with adoptExisting: " +
    "true first (it takes them over from the set), then change the email there: a User changes an email in place, keeping " +
    "the user and their access.";
  if (pairs.length === 0) return [];
  // An adopted user is deleted only under the set's deleteOnDestroy: said so, since the user existed before the set.
  const whose = (user: WorkspaceUserState) =>
    user.created ? "created by this set" : "adopted by this set, and deleted because the set sets deleteOnDestroy: true";
  if (secret) {
    const which = pairs.every(([gone]) => gone.created)
      ? "this set created"
      : "this set deletes (created by it, or adopted under deleteOnDestroy)";
    return [
      `WorkspaceUsers: ${pairs.length} user(s) ${which} leave it while as many of the same names join it (neither ` +
        "emails nor names are shown: the set holds secrets). The set keys its users by email, so this update deletes each " +
        `user who leaves, with every integration membership they hold, and creates a new user for each who joins. ${advice}`,
    ];
  }
  return pairs.map(
    ([gone, added]) =>
      `WorkspaceUsers: ${gone.email} leaves the set and ${String(added.email)} joins it, both named ${gone.firstName} ${gone.lastName}. ` +
      `The set keys its users by email, so this update deletes the user ${gone.email} (${gone.id}, ${whose(gone)}), with ` +
      `every integration membership they hold, and creates a new user ${String(added.email)}. ${advice}`,
  );
}

/**
 * The set handed `count` users to another resource of the program that declares them by the email this set declared, which
 * the service no longer has (`named`, each "email (id, the service's)"; none when the set holds secrets).
 */
function handedByOldEmail(named: string[], count: number): string {
  const which = named.length > 0 ? `: ${namedUpTo(named.sort(), undefined, "; ")}` : " (their emails are not shown: the set holds secrets)";
  return (
    `WorkspaceUsers handed ${count} user(s) to another resource of the program that declares them by the email this set ` +
    `declared, which the service no longer has (a refresh recorded the change)${which}. That resource looks a user up by the ` +
    "email it declares, so it makes another user of the old email: declare the service's email there to take this user over. " +
    "The user handed over stays in the workspace."
  );
}

/** A user create was accepted and its job `jobId` not seen to finish: what the state records, and what the next up does. */
function createRecorded(jobId: string): string {
  return (
    ` The create was accepted: the state records it (pendingCreates, job ${jobId}), and the next pulumi up or refresh waits ` +
    "for the job, then records the user as created by this resource."
  );
}

/** A finished create of the set's own whose user this up could not record: it stays recorded for the next up. */
function createKept(): string {
  return (
    " The user's create (this set's) finished: the state keeps it recorded (pendingCreates), and the next pulumi up or " +
    "refresh records the user as created by this resource."
  );
}

const NO_IMPORT =
  "WorkspaceUsers has no id of its own to import: leave out the import option, and its create adopts every existing user of a declared email.";

export const provider = providerOf<Props, WorkspaceUsersOutputs>({
  type: "WorkspaceUsers",

  async check(ctx, _olds, news) {
    if (news.users && typeof news.users === "object" && !isUnknown(news.users)) {
      for (const user of Object.values(news.users as Record<string, { email?: unknown } | undefined>))
        if (knownString(user?.email)) ctx.declared.add(declaredUserKey(user.email));
    }
    const { [IMPORT_ID]: importId, ...rest } = news;
    const checked = ctx.checkInputs(workspaceUsersInputs, rest);
    if (importId !== undefined && importId !== null) checked.failures.push({ property: "import", reason: NO_IMPORT });
    return checked;
  },

  changed: changedPaths,

  async diff(ctx, _id, olds, news) {
    // The adopted users this resource keeps (those the program declares): the delete of a resource it replaced under another
    // name leaves them (`takeovers.ts`).
    for (const [key, user] of Object.entries(olds.users ?? {})) {
      if (!user.created && declaredInDeployment(ctx, key, user)) ctx.takeovers.add(userKey(user.id));
    }
    // The flag unknown (a preview): taken as set, so nothing is printed that may be a secret.
    const secret = news[SECRET_USERS] === true || isUnknown(news[SECRET_USERS]) || olds[SECRET_USERS] === true;
    for (const message of emailChanged(emailChanges(ctx, olds, news), secret)) ctx.warn(message);
    // A create left running is settled by the next update, whatever the program changed.
    const unfinished = (olds.pendingCreates?.length ?? 0) > 0;
    // A set that became secret: an update that writes nothing records the flag, so that a refresh or destroy before any
    // other change names no email (the flag dropped is no change: the state hides more than it needs until then).
    const becameSecret = news[SECRET_USERS] === true && olds[SECRET_USERS] !== true;
    return { changes: unfinished || becameSecret || changedPaths(olds, news).length > 0, replaces: [], deleteBeforeReplace: false };
  },

  async create(ctx, news) {
    // A create is an update from no users: every user is added (adopted, or created once proven absent).
    return ctx.withWrite(async () => ({ id: RESOURCE_ID, outs: await update(ctx, { users: {}, userIds: {} }, news) }));
  },

  async read(ctx, _id, props) {
    return withHints(() => read(ctx, props), ctx.keySource);
  },

  async update(ctx, _id, olds, news) {
    return ctx.withWrite(async () => ({ outs: await update(ctx, olds, news) }));
  },

  async delete(ctx, _id, props) {
    await ctx.withWrite(async () => {
      const failures: Failure[] = [];
      // A create still running fails the destroy (the resource stays); one that finished made a user of the set's.
      const secret = props[SECRET_USERS] === true;
      const settled = await settlePending(ctx, props.pendingCreates);
      for (const [key, p] of settled.running) failures.push({ key, error: settled.whyKept(key, p, "not deleted", ctx.waitLimit()) });
      const gone = [...Object.entries(props.users ?? {}), ...(await ownUndeclared(ctx, settled, () => false, failures, new Map()))];
      const deleted = await release(ctx, gone, props.deleteOnDestroy, failures, secret, [], true);
      if (failures.length > 0) {
        // Each user's failure is theirs alone (the others are deleted), but a delete that fails records nothing: the users it
        // deleted stay in the state until a refresh reads them gone, and an `up` before it would take them for there.
        const after = deleted > 0 ? `${deleted} other user(s) were deleted, which ${KEPT_UNTIL_REFRESH}` : "nothing was deleted";
        throw failed(failures, hiderIf(secret, emailsOf(props)), undefined, undefined, after);
      }
    });
  },
});
