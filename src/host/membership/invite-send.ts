/**
 * How one batch of invitations (queued by `invite-batcher.ts`) is sent and ends for each user: with an
 * {@link InvitationResult} of its own, nobody invited twice ("it may still land" is a result, `pending`). For several users:
 * - the POST fails without an answer (a timeout, a reset, a 5xx), or answers success with a body that cannot be read (it
 *   was carried out, its job unknown): it may have been carried out, so it is never re-sent. One member list read: users
 *   found members are done; the others `pending`, no job known;
 * - the POST answers 409: one member list read; those members are handed back as existing (the caller's adoption rules
 *   apply); the others' absences are confirmed (`member-list.ts`: a member the list skipped, invited again, might have the
 *   invitation merged into what they hold) and only those sent again, as one batch (in halves if no member is found). No
 *   list, or no confirmation: every user not found fails with the 409, none sent again;
 * - another 400, 404 or 422 (a user the service refuses): nothing was done; halves sent again, down to the user at fault (a 404
 *   of an integration its own read finds gone: every user fails with it; one the key is not shown: every user fails naming
 *   the scope it lacks, as no 404 of it can be told apart; one whose own read fails: every user fails naming the 404 and that
 *   read, none sent again, where halves would send 2n - 1 to a failing service). A 404 before any invitation answered this
 *   key success, its integration there, may be the service's answer to a key that cannot write, which every half would get:
 *   two users are invited alone first ({@link probeAlone}); both refused so, the workspace having them, every user fails
 *   naming the key;
 * - any other error (401, 403, 429 after the client's retries): not about a user; every user fails with it;
 * - the job ends in `error`: one member list read (a service that applies the others anyway must not see them invited
 *   twice); those it missed are confirmed absent (`member-list.ts`) and only those sent again in halves (one whose record
 *   cannot be used is `pending` alone), unless the integration's catalogue does not offer the set: then they all fail
 *   with the job's error, none sent again. No list, or no confirmation: `pending`;
 * - waiting for the job fails otherwise (a timeout, polling that fails): every user is `pending` with the job; a timeout at
 *   the end of some users' operations (their resources' `customTimeouts`) those alone, the others waiting on till theirs.
 *
 * A batch of one is the single invitation: an ambiguous failure or a 409 reads that member, a job in `error` fails with
 * {@link JobFailedError}. Errors shared by several users are copied per user, naming the user and the batch.
 */
import { type Id, idOf } from "../../client/ids";
import {
  ApiError,
  ConflictError,
  type IntegrationUser,
  isAmbiguous,
  isUnreadableSuccess,
  JobFailedError,
  type JobDeadline,
  JobTimeoutError,
  type JobHandle,
  NotFoundError,
  reasonOf,
  unlessNotFound,
  withMessage,
  type WorkspaceAccessClient,
} from "../../client";
import { inviteRole } from "../../shared/input-constants";
import { entitlementSet, sameSet } from "../../shared/inputs";
import type { Invitation, InvitationResult } from "./invite-batcher";
import { confirm, type Found, memberList } from "./member-list";
import { integrationUnread, inviteRefusedToKey, notFoundAs } from "./messages";

/** One invitation waiting for its result, with the end of its operation's job waits (none: `jobTimeoutSeconds`). */
export interface Entry {
  invitation: Invitation;
  deadline?: JobDeadline | undefined;
  resolve(result: InvitationResult): void;
  reject(error: unknown): void;
}

/** The earliest end of `entries`' operations' job waits, if any of them has one. */
function earliestEnd(entries: readonly Entry[]): JobDeadline | undefined {
  let first: JobDeadline | undefined;
  for (const { deadline } of entries) if (deadline && (!first || deadline.at < first.at)) first = deadline;
  return first;
}

/** Status codes of a refusal that may be about one user of the batch: split to find them. */
const USER_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 422]);

/** A copy of `error` (same class and data) whose message names the user, for an error shared by a batch. */
function forUser(error: unknown, userId: string, size: number): unknown {
  if (!(error instanceof Error) || size <= 1) return error;
  return withMessage(error, `Inviting user ${userId} (one of ${size} invited together): ${error.message}`);
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Whether an invitation that failed so may have been carried out: no complete answer, or a success whose answer is unreadable. */
const mayHaveLanded = (error: unknown) => isAmbiguous(error) || isUnreadableSuccess(error);

/**
 * Sends one batch and settles each entry (see the list above); never rejects. One function down to the client: few frames to the
 * socket. `absent`: a half of a batch whose 409 found none of its users a member, each confirmed absent: its own 409 is halved
 * again without reading the members anew (down to one user, whose 409 reads that member).
 */
export async function sendBatch(client: WorkspaceAccessClient, batch: Entry[], absent = false): Promise<void> {
  const { integrationId, role, entitlements } = batch[0]!.invitation;
  const userIds = batch.map((e) => e.invitation.userId);
  let job: JobHandle;
  try {
    job = await client.integrations.invite(integrationId, { userIds, role, entitlements });
  } catch (error) {
    if (batch.length === 1) return afterOneFailed(client, batch[0]!, error);
    if (mayHaveLanded(error)) return afterAmbiguous(client, batch, error);
    if (ConflictError.isInstance(error)) return absent ? split(client, batch, true) : afterConflict(client, batch, error);
    if (ApiError.isInstance(error) && USER_STATUSES.has(error.status)) {
      // A 404 may be the integration's (deleted since its members were read), which each half would get again, down to each
      // user: its own read (shared, `integrations.presence`) tells first.
      if (NotFoundError.isInstance(error)) {
        const presence = await presenceOf(client, integrationId);
        if (presence.kind === "gone") return failAll(batch, error);
        // Unread (a 5xx or 429 past the client's retries, no answer): halves would send 2n - 1 invitations to a service failing
        // so, each 404 asking again. Every user fails at once, nothing invited: the next up sends them again.
        if (presence.kind === "unread") return failAll(batch, integrationUnread(integrationId, error, presence.error));
        // Not shown to the key, no 404 of it can be told apart, a half's nor a user's alone: every user fails naming the scope.
        if (presence.kind === "undisclosed") return failAll(batch, integrationUnread(integrationId, error, presence.error));
        // There, and no invitation having answered this key success, it may be the key's: two users alone tell.
        if (!error.scopesHeld) return probeAlone(client, batch);
      }
      return split(client, batch);
    }
    return failAll(batch, error);
  }
  // Each invitation waits for the job till its own end. The batcher batches only invitations bound alike (one customTimeouts
  // entry and value), but two operations begun apart end apart: the earliest end first, the invitations it ends left pending,
  // the others waiting on. Without an end, as the client waits.
  let waiting = batch;
  for (;;) {
    const end = earliestEnd(waiting);
    try {
      await job.wait(end ? { deadline: end } : {});
      break;
    } catch (error) {
      if (JobFailedError.isInstance(error)) {
        if (batch.length === 1) return batch[0]!.reject(error);
        return afterJobFailed(client, waiting, error);
      }
      const ended = end && JobTimeoutError.isInstance(error) ? waiting.filter((e) => e.deadline && e.deadline.at <= end.at) : waiting;
      pendingAll(ended, error, job.id, batch.length);
      waiting = waiting.filter((entry) => !ended.includes(entry));
      if (waiting.length === 0) return;
    }
  }
  for (const entry of waiting) entry.resolve({ kind: "invited", jobId: job.id });
}

/** What integration `integrationId`'s own read tells of it (`unread`: the read failed, with `error`). */
const presenceOf = (client: WorkspaceAccessClient, integrationId: string) =>
  client.integrations.presence(integrationId).then(
    (presence) => presence,
    (error: unknown) => ({ kind: "unread", error }) as const,
  );

/**
 * A batch (of several) answered 404 before any invitation answered this key success, its integration there: the key may lack a
 * scope (a service answering 404 for it), and each half would get it again, down to each user (2n - 1 invitations). Its first
 * two users are invited alone, one after the other: one invited, the key can write, and the rest is halved or sent again as
 * before; one refused otherwise, or whose user the workspace does not have (a 404 that may be theirs), fails alone. Both
 * answered 404 for users the workspace has, neither user is the cause: the key is ({@link keyRefusal}), and every invitation
 * fails with it, none sent again. At most three invitations and a few reads where halving would send 2n - 1.
 */
async function probeAlone(client: WorkspaceAccessClient, batch: Entry[]): Promise<void> {
  const [first, second, ...rest] = batch as [Entry, Entry, ...Entry[]];
  const one = await alone(client, first);
  if (!one) return split(client, [second, ...rest]);
  if (!(await keyMayBeWhy(client, first.invitation, one.error))) {
    first.reject(one.error);
    return sendBatch(client, [second, ...rest]);
  }
  // A 404 for a user the workspace has: the key's, or that user's alone (a refusal the contract does not name). A second user tells.
  const two = await alone(client, second);
  if (two && (await keyMayBeWhy(client, second.invitation, two.error))) {
    return failAll(batch, await keyRefusal(client, batch, one.error as NotFoundError));
  }
  first.reject(one.error);
  if (two) second.reject(two.error);
  if (rest.length > 0) await sendBatch(client, rest);
}

/** Invites `entry`'s user alone: nothing once that settled it (invited, found a member, pending), else the error it was refused with. */
async function alone(client: WorkspaceAccessClient, entry: Entry): Promise<{ error: unknown } | undefined> {
  let refused: { error: unknown } | undefined;
  const reject = (error: unknown) => {
    refused = { error };
  };
  await sendBatch(client, [{ ...entry, reject }]);
  return refused;
}

/**
 * Whether `refused`, a lone invitation's error, may be the key's: a 404 before any invitation answered this key success, for a
 * user the workspace has (its read answers; a 404 there, or no answer, leaves it the user's).
 */
async function keyMayBeWhy(client: WorkspaceAccessClient, { userId }: Invitation, refused: unknown): Promise<boolean> {
  if (!NotFoundError.isInstance(refused) || refused.scopesHeld) return false;
  return client.users.get(userId).then(
    () => true,
    () => false,
  );
}

/**
 * The error every invitation of `batch` fails with when its first two users' own 404s (`notFound`, the first's) are the key's:
 * its scopes named ({@link inviteRefusedToKey}), or, should the catalogue not offer the set, that instead. An {@link ApiError},
 * no {@link NotFoundError}: nobody reads it as gone, and the resources add the setting holding the key.
 */
async function keyRefusal(client: WorkspaceAccessClient, batch: Entry[], notFound: NotFoundError): Promise<ApiError> {
  const { integrationId, entitlements } = batch[0]!.invitation;
  const unoffered = await notOffered(client, integrationId, entitlements);
  if (unoffered?.length) return withUnoffered(notFoundAs(notFound, notFound.message), integrationId, unoffered, "after its 404");
  const users = batch.slice(0, 2).map((e) => e.invitation.userId);
  return notFoundAs(notFound, inviteRefusedToKey(integrationId, notFound, users, batch.length, unoffered !== undefined));
}

/** A single invitation that failed: no member after an ambiguous failure proves nothing (its job may not have ended): `pending`. */
async function afterOneFailed(client: WorkspaceAccessClient, entry: Entry, error: unknown): Promise<void> {
  const { integrationId, userId } = entry.invitation;
  const ambiguous = mayHaveLanded(error);
  if (!ambiguous && !ConflictError.isInstance(error)) return entry.reject(error);
  let found: IntegrationUser | undefined;
  try {
    found = await unlessNotFound(client.integrations.getUser(integrationId, userId));
  } catch (readError) {
    // Unread after an ambiguous POST: it may still have landed, so pending; after a 409, the read's error.
    if (ambiguous) return entry.resolve({ kind: "pending", jobId: null, error: asError(error) });
    return entry.reject(readError);
  }
  if (found) return entry.resolve({ kind: "member", member: found, existed: !ambiguous });
  if (ambiguous) return entry.resolve({ kind: "pending", jobId: null, error: asError(error) });
  entry.reject(error);
}

/** The members of the integration now, by user id; `undefined` when the list cannot be read. */
const membersNow = (client: WorkspaceAccessClient, integrationId: string) => memberList(client, integrationId).catch(() => undefined);

/**
 * Who made the members found after an invitation: someone else (`theirs`: it was refused, 409), this invitation if anyone
 * (`oursIfAny`: its answer was lost), or either (`maybeOurs`: its job failed, and may have applied in part, or failed
 * because they were members already, as a service may answer).
 */
type Origin = "theirs" | "maybeOurs" | "oursIfAny";

/**
 * Whether a member is shown holding exactly what the invitation asked: what a job that applied it leaves. A record that leaves
 * the set out shows nothing: the member is not taken as this invitation's on a guess (a destroy would remove someone else's).
 */
const asInvited = (member: IntegrationUser, { role, entitlements }: Invitation) =>
  inviteRole(member.role) === role && member.entitlements !== null && sameSet(entitlementSet(member.entitlements), entitlements);

/**
 * Settles the entries whose user is a member now; returns the rest. A member found is recorded as existing before (given
 * back by destroy) when someone else made them, or when the failed job may not have (they hold another role or set than it
 * asked: someone added them meanwhile). An unusable record fails the entry when the member is someone else's, else leaves
 * it pending.
 */
function settleMembers(batch: Entry[], members: ReadonlyMap<Id, Found | undefined>, origin: Origin): Entry[] {
  const rest: Entry[] = [];
  for (const entry of batch) {
    const member = members.get(idOf(entry.invitation.userId));
    if (member instanceof Error) {
      // A member, but its record cannot be used: if this invitation made it, the next up takes it over.
      if (origin === "theirs") entry.reject(member);
      else entry.resolve({ kind: "pending", jobId: null, error: member });
    } else if (member) {
      const existed = origin === "theirs" || (origin === "maybeOurs" && !asInvited(member, entry.invitation));
      entry.resolve({ kind: "member", member, existed });
    } else rest.push(entry);
  }
  return rest;
}

async function afterAmbiguous(client: WorkspaceAccessClient, batch: Entry[], error: unknown): Promise<void> {
  const members = await membersNow(client, batch[0]!.invitation.integrationId);
  const rest = members ? settleMembers(batch, members, "oursIfAny") : batch;
  // Not a member yet proves nothing (the job may still run): pending, so the next `up` looks before inviting.
  pendingAll(rest, error, null, batch.length);
}

/**
 * A batch refused with a 409: some of its users may be members already (someone else's). A member the list skipped must not be
 * invited again on the hope that the service answers 409 once more: it may merge the invitation into their membership (the
 * contract leaves it open), changing access this run did not make and recording it as this run's. So the misses are confirmed
 * (`confirm`, as after a failed job) before the rest is sent again; unconfirmed, nothing is sent again and every invitation fails
 * with the 409 and why (the next `up` reads the members first).
 */
async function afterConflict(client: WorkspaceAccessClient, batch: Entry[], error: unknown): Promise<void> {
  const { integrationId } = batch[0]!.invitation;
  const unconfirmed = (why: unknown) => failAll(batch, withUnconfirmed(error, why));
  const members = await memberList(client, integrationId).catch((why: unknown) => ({ why }));
  if (!(members instanceof Map)) return unconfirmed(members.why);
  const missed = settleMembers(batch, members, "theirs");
  if (missed.length === 0) return;
  const missedIds = missed.map((e) => e.invitation.userId);
  const confirmed = await confirm(client, integrationId, members, missedIds).catch((why: unknown) => ({ why }));
  if (!(confirmed instanceof Map)) return failAll(missed, withUnconfirmed(error, confirmed.why), batch.length);
  const rest = settleMembers(missed, confirmed, "theirs");
  // Nobody of the batch a member, each confirmed: the 409 is about one of them for another reason; halves find who, without
  // reading the members again at each halving.
  if (rest.length === batch.length) return split(client, batch, true);
  if (rest.length > 0) await sendBatch(client, rest);
}

/** A 409's error, saying that who it was about could not be confirmed (`why`), so nothing was sent again. */
function withUnconfirmed(error: unknown, why: unknown): unknown {
  if (!(error instanceof Error)) return error;
  return withMessage(
    error,
    `${error.message} Which invited users are members already could not be confirmed (reading the integration's members failed: ` +
      `${reasonOf(why)}), so none was invited again: an invitation of a member may change what they hold. Run again.`,
  );
}

async function afterJobFailed(client: WorkspaceAccessClient, batch: Entry[], error: unknown): Promise<void> {
  const { integrationId } = batch[0]!.invitation;
  const members = await membersNow(client, integrationId);
  // Without the list, halves could invite again users a partly applied job added: pending instead, read before the next invite.
  if (!members) return pendingAll(batch, error, null);
  // A failed job may have failed because they were members already (a service may answer so): not always this one's.
  const missed = settleMembers(batch, members, "maybeOurs");
  if (missed.length === 0) return;
  // A list proves presence only: a member it skipped (pages shift) would be invited a second time.
  const missedIds = missed.map((e) => e.invitation.userId);
  const confirmed = await confirm(client, integrationId, members, missedIds).catch(() => undefined);
  // Unconfirmed: the rest may have landed, so pending. A member whose record cannot be used is pending alone (settleMembers):
  // the others' absences are confirmed each, so they are sent again.
  if (!confirmed) return pendingAll(missed, error, null, batch.length);
  const rest = settleMembers(missed, confirmed, "maybeOurs");
  if (rest.length === 0) return;
  // A set the integration does not offer (retired since the preview) fails every user alike: halving would send 2n - 1
  // invitations, each failing, each followed by a member list. Asked of the catalogue once; unread, the halves are sent.
  const unoffered = await notOffered(client, integrationId, batch[0]!.invitation.entitlements);
  if (unoffered?.length) return failAll(rest, withUnoffered(error, integrationId, unoffered, "after the job failed"));
  await split(client, rest);
}

/** The ids of `entitlements` the integration's catalogue does not offer; `undefined`: it cannot be read, or is empty (not published). */
async function notOffered(
  client: WorkspaceAccessClient,
  integrationId: string,
  entitlements: readonly string[],
): Promise<string[] | undefined> {
  const catalogue = await client.integrations.listEntitlements(integrationId).catch(() => []);
  if (catalogue.length === 0) return undefined;
  const offered = new Set(catalogue.map((e) => e.id));
  return entitlements.filter((id) => !offered.has(id));
}

/** The batch's error (`when`: read after what), saying why it failed for the whole set. */
function withUnoffered<E>(error: E, integrationId: string, unoffered: readonly string[], when: string): E {
  if (error instanceof Error) {
    error.message +=
      ` The integration ${integrationId} does not offer ${unoffered.map((id) => `"${id}"`).join(", ")} (its catalogue, read ${when}): ` +
      "every invitation with this set fails alike, so none was sent again. Declare entitlements it offers.";
  }
  return error;
}

/** Sends each half again, at once (`absent`: see {@link sendBatch}). */
async function split(client: WorkspaceAccessClient, batch: Entry[], absent = false): Promise<void> {
  if (batch.length === 1) return sendBatch(client, batch);
  const half = Math.ceil(batch.length / 2);
  await Promise.all([sendBatch(client, batch.slice(0, half), absent), sendBatch(client, batch.slice(half), absent)]);
}

function failAll(entries: Entry[], error: unknown, size = entries.length): void {
  for (const entry of entries) entry.reject(forUser(error, entry.invitation.userId, size));
}

/** Every entry may still land: pending with `jobId` (null: none known), the error copied per user. */
function pendingAll(entries: Entry[], error: unknown, jobId: string | null, size = entries.length): void {
  for (const entry of entries) entry.resolve({ kind: "pending", jobId, error: asError(forUser(error, entry.invitation.userId, size)) });
}
