/**
 * Batched invitations. `POST /integrations/{id}/users` takes a list of `userIds`: the invitations
 * this provider process sends at about the same time for one integration, role and entitlement set
 * go out as one request (at most {@link MAX_BATCH} users) with one job, waited for once.
 *
 * When nothing was sent for that integration, role and set in the last {@link RECENT_MS} (a lone
 * create), an invitation goes out on the next turn of the event loop: only those queued in the
 * same turn (creates released together by a shared member list) join it, so it is not delayed.
 * When invitations are already under way or were just sent (a deployment creating many), a
 * window opens for the others to join: it waits for a batch of the same kind in flight to end
 * ({@link HOLD_MS} at most), whose creates' successors then join, and closes once none has come
 * for {@link WINDOW_MS} ({@link MAX_BATCH_OPEN_MS} at most).
 *
 * Every invitation ends with an {@link InvitationResult} of its own, and nobody is invited twice.
 * "It may still land" is a result (`kind: "pending"`, with the job to wait for), not an error:
 *
 * | a batch of several users | what happens |
 * |---|---|
 * | the POST fails without an answer (a timeout, a reset, a 5xx) | it may have been carried out: never re-sent. One member list read: users found members are done (the invitation landed); the others are `pending` with no job known |
 * | the POST answers 409 (someone is a member already) | one member list read: those members are handed back as existing (the caller applies its adoption rules); the others are sent again as one batch (split in halves if no member is found) |
 * | the POST answers another 400, 404 or 422 (a user the service refuses) | nothing was done: split in halves and sent again, down to the user at fault |
 * | any other error (401, 403, 429 after the client's retries) | not about a user: every user fails with it |
 * | the job ends in `error` | one member list read (a service that applies the others anyway must not see them invited twice): users found members are done; those it missed are confirmed absent (a list proves presence only: a second listing that agrees, or a direct read each when they are fewer than its pages), and only those are split in halves and sent again. Without the list, every user is `pending` with no job known |
 * | waiting for the job fails otherwise (a timeout, polling that fails) | the job may still land: every user is `pending` with the job, so the next `up` waits for it instead of inviting again |
 *
 * A batch of one behaves as the single invitation always did: an ambiguous failure or a 409 reads
 * that member (`GET .../users/{userId}`), a job in `error` fails with {@link JobFailedError}.
 * Errors shared by several users are copied per user, naming the user and the batch.
 */
import {
  ApiError,
  type Clock,
  ConflictError,
  createOnce,
  type IntegrationRole,
  type IntegrationUser,
  isAmbiguous,
  JobFailedError,
  type JobHandle,
  JobTimeoutError,
  NotFoundError,
  unlessNotFound,
  type WorkspaceAccessClient,
} from "../client";
import { idKey } from "./ids";
import { confirmMisses, type Members, memberList } from "./member-lookup";

/** The most users one invitation names (the API's page size, and the cap). */
export const MAX_BATCH = 100;
/**
 * How long a batch stays open for others to join, once invitations are under way: until no
 * invitation of its kind has come for this long (the engine starts the next creates as the last
 * ones return, a few at a time), and {@link MAX_BATCH_OPEN_MS} at most.
 */
export const WINDOW_MS = 10;
/** The longest a batch stays open, however steadily invitations keep coming (besides {@link HOLD_MS}). */
export const MAX_BATCH_OPEN_MS = 40;
/**
 * The longest a batch waits for one of its kind in flight to end. The creates that batch holds
 * return when its job ends, and the engine then starts as many new ones, which join this batch:
 * batches grow to the engine's `--parallel` instead of staying as small as the first ones were.
 */
export const HOLD_MS = 1000;
/** How long after a batch was sent later invitations of its kind are taken as part of the same run. */
export const RECENT_MS = 1000;

/** One invitation: who, where, with which role and entitlements (a sorted set). */
export interface Invitation {
  integrationId: string;
  userId: string;
  role: IntegrationRole;
  entitlements: readonly string[];
}

/**
 * How an invitation ended:
 * - `invited`: its job finished (`jobId`, null for a write answered without a job);
 * - `member`: the user is a member and was found so, either because the invitation landed although
 *   its answer was lost or its job said otherwise (`existed: false`), or because the user already
 *   was one (a 409; `existed: true`);
 * - `pending`: it may still land: the service accepted it and its job (`jobId`) was not seen to
 *   finish, or its answer was lost and nobody was found a member since (`jobId: null`); `error` says
 *   why it was not seen to end. The caller records it and waits next time instead of inviting again.
 *
 * An invitation that did not happen (refused, its job failed) rejects with the error.
 */
export type InvitationResult =
  | { kind: "invited"; jobId: string | null }
  | { kind: "member"; member: IntegrationUser; existed: boolean }
  | { kind: "pending"; jobId: string | null; error: Error };

/**
 * Waits (up to `jobTimeoutSeconds` once more) for jobs an earlier deployment left running (an
 * invitation not seen to finish), so that a slow invitation is not sent twice. Returns the ids of
 * the jobs still running after that wait; a job that failed or is gone has ended (its write did
 * not happen, or the member list tells).
 */
export async function settle(client: WorkspaceAccessClient, jobIds: readonly string[]): Promise<string[]> {
  const running: string[] = [];
  await Promise.all(
    jobIds.map(async (id) => {
      try {
        await client.jobs.wait(id);
      } catch (error) {
        if (JobTimeoutError.isInstance(error)) running.push(id);
        else if (!(JobFailedError.isInstance(error) || NotFoundError.isInstance(error))) throw error;
      }
    }),
  );
  return running.sort();
}

interface Entry {
  invitation: Invitation;
  resolve(result: InvitationResult): void;
  reject(error: unknown): void;
}

/** The invitations of one integration, role and set waiting to be sent. */
interface Queue {
  entries: Entry[];
  scheduled: boolean;
  /** Batches of this kind sent and not settled yet. */
  inFlight: number;
  /** When a batch was last sent or settled. */
  lastSentAt: number;
  /** When the last invitation joined. */
  lastJoinedAt: number;
}

/** Status codes of a refusal that may be about one user of the batch: split to find them. */
const USER_STATUSES: ReadonlySet<number> = new Set([400, 404, 409, 422]);

/** A copy of `error` (same class and data) whose message names the user, for an error shared by a batch. */
function forUser(error: unknown, userId: string, size: number): unknown {
  if (!(error instanceof Error) || size <= 1) return error;
  // Every own property, the hidden marker of `isInstance` included.
  const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as Error;
  copy.message = `Inviting user ${userId} (one of ${size} invited together): ${error.message}`;
  return copy;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Batches the invitations of one client. */
export class InviteBatcher {
  readonly #client: WorkspaceAccessClient;
  readonly #clock: Clock;
  readonly #queues = new Map<string, Queue>();

  constructor(client: WorkspaceAccessClient, clock: Clock) {
    this.#client = client;
    this.#clock = clock;
  }

  /**
   * Invites one user, with others of the same kind when they come together; resolves when the job
   * has finished, when the user is found a member, or when the invitation may still land
   * (`pending`); rejects when it did not happen.
   */
  submit(invitation: Invitation): Promise<InvitationResult> {
    const key = JSON.stringify([idKey(invitation.integrationId), invitation.role, invitation.entitlements]);
    let queue = this.#queues.get(key);
    if (!queue) {
      queue = { entries: [], scheduled: false, inFlight: 0, lastSentAt: Number.NEGATIVE_INFINITY, lastJoinedAt: 0 };
      this.#queues.set(key, queue);
    }
    const q = queue;
    return new Promise<InvitationResult>((resolve, reject) => {
      q.entries.push({ invitation, resolve, reject });
      q.lastJoinedAt = this.#clock.now();
      if (q.entries.length >= MAX_BATCH) this.#flush(q);
      else if (!q.scheduled) {
        q.scheduled = true;
        const busy = q.inFlight > 0 || this.#clock.now() - q.lastSentAt < RECENT_MS;
        const opened = busy ? this.#window(q) : new Promise<void>((done) => setImmediate(done));
        void opened.then(() => this.#flush(q));
      }
    });
  }

  /**
   * Resolves when the batch of `queue` is to be sent: once no batch of its kind is in flight
   * ({@link HOLD_MS} at most) and nothing has joined or settled for {@link WINDOW_MS}
   * ({@link MAX_BATCH_OPEN_MS} at most after the hold).
   */
  async #window(queue: Queue): Promise<void> {
    const holdBy = this.#clock.now() + HOLD_MS;
    let closeBy: number | undefined;
    // The invitations of this turn of the event loop join before the first wait is measured.
    await new Promise<void>((done) => setImmediate(done));
    while (queue.scheduled) {
      const now = this.#clock.now();
      let until: number;
      if (queue.inFlight > 0 && now < holdBy) until = now + WINDOW_MS;
      else {
        closeBy ??= now + MAX_BATCH_OPEN_MS;
        until = Math.min(Math.max(queue.lastJoinedAt, queue.lastSentAt) + WINDOW_MS, closeBy);
      }
      if (until <= now) return;
      await this.#clock.sleep(until - now);
    }
  }

  /** Sends what is queued, {@link MAX_BATCH} users a request. */
  #flush(queue: Queue): void {
    queue.scheduled = false;
    while (queue.entries.length > 0) {
      const batch = queue.entries.splice(0, MAX_BATCH);
      queue.inFlight++;
      queue.lastSentAt = this.#clock.now();
      void this.#send(batch).finally(() => {
        queue.inFlight--;
        queue.lastSentAt = this.#clock.now();
      });
    }
  }

  /** Sends one batch and settles each of its entries (see the table above). Never rejects. */
  async #send(batch: Entry[]): Promise<void> {
    if (batch.length === 1) return this.#sendOne(batch[0]!);
    const { integrationId, role, entitlements } = batch[0]!.invitation;
    const userIds = batch.map((e) => e.invitation.userId);
    let job: JobHandle;
    try {
      job = await this.#client.integrations.invite(integrationId, { userIds, role, entitlements });
    } catch (error) {
      if (isAmbiguous(error)) return this.#afterAmbiguous(batch, error);
      if (ConflictError.isInstance(error)) return this.#afterConflict(batch);
      if (ApiError.isInstance(error) && USER_STATUSES.has(error.status)) return this.#split(batch);
      return this.#failAll(batch, error);
    }
    try {
      await job.wait();
    } catch (error) {
      if (JobFailedError.isInstance(error)) return this.#afterJobFailed(batch, error);
      return this.#pendingAll(batch, error, job.id);
    }
    for (const entry of batch) entry.resolve({ kind: "invited", jobId: job.id });
  }

  /** A batch of one: the single invitation, never re-sent blindly. */
  async #sendOne(entry: Entry): Promise<void> {
    const { integrationId, userId, role, entitlements } = entry.invitation;
    const client = this.#client;
    const member = () => unlessNotFound(client.integrations.getUser(integrationId, userId));
    let outcome: { sent: JobHandle } | { found: IntegrationUser };
    try {
      // Never re-sent: an accepted invitation's member appears only when its job ends, so finding
      // no member after an ambiguous failure cannot prove the invitation was not carried out.
      outcome = await createOnce({
        send: () => client.integrations.invite(integrationId, { userIds: [userId], role, entitlements }),
        lookUp: member,
        what: `POST integrations/${integrationId}/users (${userId})`,
      });
    } catch (error) {
      try {
        // A member already (added since the create looked): read it, so the caller can say so.
        const found = ConflictError.isInstance(error) ? await member() : undefined;
        if (found) return entry.resolve({ kind: "member", member: found, existed: true });
      } catch (readError) {
        return entry.reject(readError);
      }
      if (isAmbiguous(error)) return entry.resolve({ kind: "pending", jobId: null, error: asError(error) });
      return entry.reject(error);
    }
    if ("found" in outcome) return entry.resolve({ kind: "member", member: outcome.found, existed: false });
    try {
      await outcome.sent.wait();
    } catch (error) {
      if (JobFailedError.isInstance(error)) return entry.reject(error);
      return entry.resolve({ kind: "pending", jobId: outcome.sent.id, error: asError(error) });
    }
    entry.resolve({ kind: "invited", jobId: outcome.sent.id });
  }

  /** The members of the integration now, by user id (see {@link memberList}); `undefined` when the list cannot be read. */
  async #members(integrationId: string): Promise<Members | undefined> {
    return memberList(this.#client, integrationId).catch(() => undefined);
  }

  /**
   * Splits `batch` into the entries whose user is a member now (settled: with `existed`, or, when
   * the member's record cannot be used, failed naming it) and the rest.
   */
  #settleMembers(batch: Entry[], members: Members, existed: boolean): Entry[] {
    const rest: Entry[] = [];
    for (const entry of batch) {
      const member = members.get(idKey(entry.invitation.userId));
      if (member instanceof Error) {
        // A member, but its record cannot be used: if this invitation made it, the next up takes it over.
        if (existed) entry.reject(member);
        else entry.resolve({ kind: "pending", jobId: null, error: member });
      } else if (member) entry.resolve({ kind: "member", member, existed });
      else rest.push(entry);
    }
    return rest;
  }

  async #afterAmbiguous(batch: Entry[], error: unknown): Promise<void> {
    const members = await this.#members(batch[0]!.invitation.integrationId);
    const rest = members ? this.#settleMembers(batch, members, false) : batch;
    // Not a member yet proves nothing (the job may still be running): not re-sent, but pending,
    // so the resource is recorded and the next `up` looks before inviting.
    this.#pendingAll(rest, error, null, batch.length);
  }

  async #afterConflict(batch: Entry[]): Promise<void> {
    const members = await this.#members(batch[0]!.invitation.integrationId);
    if (!members) return this.#split(batch);
    const rest = this.#settleMembers(batch, members, true);
    // A member the list skipped is refused again (409), never invited twice: no read needed here.
    if (rest.length === batch.length) return this.#split(batch);
    if (rest.length > 0) await this.#send(rest);
  }

  async #afterJobFailed(batch: Entry[], error: unknown): Promise<void> {
    const { integrationId } = batch[0]!.invitation;
    const members = await this.#members(integrationId);
    // Without the list, halves could invite again users a partly applied job added: give up instead,
    // each pending with no job known, so the next `up` reads its member before inviting.
    if (!members) return this.#pendingAll(batch, error, null);
    const missed = this.#settleMembers(batch, members, false);
    if (missed.length === 0) return;
    // A list proves presence only: a member it skipped (pages shift) would be invited a second time.
    let confirmed: Map<string, IntegrationUser | undefined>;
    try {
      confirmed = await confirmMisses(
        this.#client,
        integrationId,
        members,
        missed.map((e) => e.invitation.userId),
      );
    } catch {
      return this.#pendingAll(missed, error, null, batch.length);
    }
    const rest: Entry[] = [];
    for (const entry of missed) {
      const found = confirmed.get(idKey(entry.invitation.userId));
      if (found) entry.resolve({ kind: "member", member: found, existed: false });
      else rest.push(entry);
    }
    if (rest.length > 0) await this.#split(rest);
  }

  /** Sends each half again, at once. */
  async #split(batch: Entry[]): Promise<void> {
    if (batch.length === 1) return this.#sendOne(batch[0]!);
    const half = Math.ceil(batch.length / 2);
    await Promise.all([this.#send(batch.slice(0, half)), this.#send(batch.slice(half))]);
  }

  #failAll(entries: Entry[], error: unknown, size = entries.length): void {
    for (const entry of entries) entry.reject(forUser(error, entry.invitation.userId, size));
  }

  /** Every entry may still land: pending with `jobId` (null: none known), the error copied per user. */
  #pendingAll(entries: Entry[], error: unknown, jobId: string | null, size = entries.length): void {
    for (const entry of entries) entry.resolve({ kind: "pending", jobId, error: asError(forUser(error, entry.invitation.userId, size)) });
  }
}
