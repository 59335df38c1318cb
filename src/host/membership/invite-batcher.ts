/**
 * Batched invitations: those of one integration, role and entitlement set sent at about the same time go out as one
 * `POST /integrations/{id}/users` (at most {@link MAX_BATCH} users) and one job. A lone create's goes out on the next turn
 * of the event loop; while invitations are under way, a window lets others join. Under the real CLI each step's checkpoint
 * is written before the next create starts, so the window follows the pace creates arrive at and how many the engine runs
 * at once. The batch's first invitation sends it itself, so a create's own stack reaches the socket (`test/host/frames.test.ts`).
 */
import { idOf } from "../../client/ids";
import type { Clock, IntegrationRole, IntegrationUser, JobDeadline, WorkspaceAccessClient } from "../../client";
import { type Entry, sendBatch } from "./invite-send";

/** The most users one invitation names (the API's page size, and the cap). */
export const MAX_BATCH = 100;
/** Once invitations are under way, a batch closes when none of its kind has come for this long (at the fastest pace). */
export const WINDOW_MS = 10;
/** The longest a batch stays open, however steadily invitations keep coming (besides {@link HOLD_MS}). */
export const MAX_BATCH_OPEN_MS = 40;
/**
 * The longest a batch waits for one of its kind in flight to end: that batch's creates then return and the engine starts as
 * many new ones, which join this one, so batches grow to the engine's `--parallel` instead of staying as small as the first.
 */
export const HOLD_MS = 1000;
/** How long after a batch was sent later invitations of its kind are taken as part of the same run. */
const RECENT_MS = 1000;
/** Gaps between two invitations shorter than this are one burst (the same turns of the event loop), not a pace. */
const BURST_GAP_MS = 2;
/** Gaps longer than this are a pause (a job waited for, a slow step), not the pace of a run. */
export const PAUSE_GAP_MS = 500;
/** How many arrivals at the measured pace a batch stays open for, at most: about an engine's `--parallel`. */
export const PACED_ARRIVALS = 8;
/** The longest a batch stays open at a slow pace. */
export const MAX_PACED_OPEN_MS = 2000;

/** The window of a queue whose invitations arrive `pace` ms apart (0: together): idle for two gaps, open for {@link PACED_ARRIVALS}. */
export function paced(pace: number): { idleMs: number; openMs: number } {
  return {
    idleMs: Math.min(Math.max(WINDOW_MS, 2 * pace), PAUSE_GAP_MS),
    openMs: Math.min(Math.max(MAX_BATCH_OPEN_MS, PACED_ARRIVALS * pace), MAX_PACED_OPEN_MS),
  };
}

/** One invitation: who, where, with which role and entitlements (a sorted set). */
export interface Invitation {
  integrationId: string;
  userId: string;
  role: IntegrationRole;
  entitlements: readonly string[];
}

/**
 * How an invitation ended (one that did not happen, refused or its job failed, rejects instead):
 * - `invited`: its job finished (`jobId`, null for a write answered without a job);
 * - `member`: found a member: the invitation landed though its answer was lost or its job said otherwise (`existed: false`),
 *   or the user already was one (a 409; `existed: true`);
 * - `pending`: it may still land (its job `jobId` not seen to finish, or its answer lost: `null`); `error` says why. The
 *   caller records it and waits next time instead of inviting again.
 */
export type InvitationResult =
  | { kind: "invited"; jobId: string | null }
  | { kind: "member"; member: IntegrationUser; existed: boolean }
  | { kind: "pending"; jobId: string | null; error: Error };

/** How one invitation of {@link InviteBatcher.submitAll} ended: its result, or `failed` (it did not happen: refused, its job failed). */
export type Submitted = InvitationResult | { kind: "failed"; error: unknown };

/** The invitations of one integration, role and set waiting to be sent. */
class Queue {
  entries: Entry[] = [];
  /** A create leads this queue's next batch: it waits for the window to close, then sends. */
  scheduled = false;
  /** Ends the leader's wait early (the batch is full: {@link MAX_BATCH}, or as many as the engine runs). */
  wake: (() => void) | undefined;
  /** Batches of this kind sent and not settled yet. */
  inFlight = 0;
  /** Invitations of this kind submitted and not settled. */
  outstanding = 0;
  /** The most of them seen when one settled: how many creates of this kind the engine runs at once. */
  peak = 0;
  /** When a batch was last sent or settled. */
  lastSentAt = Number.NEGATIVE_INFINITY;
  /** When the last invitation joined. */
  lastJoinedAt = Number.NEGATIVE_INFINITY;
  /** When an invitation of this kind last settled (its create returns to the engine then). */
  lastSettledAt = Number.NEGATIVE_INFINITY;
  /** How far apart invitations of this kind arrive one by one (ms, a running mean); 0 while they come together. */
  pace = 0;
  /** The longest recent gap between two of them (ms, decaying): how uneven the engine's pace is. */
  slowGap = 0;
}

/**
 * Whether the batch of `queue` cannot grow: {@link MAX_BATCH} users, or, with none of its kind in flight, as many as the
 * engine was seen to run at once (its `--parallel`: no further create can start before one of these returns).
 */
function full(queue: Queue): boolean {
  const n = queue.entries.length;
  return n >= MAX_BATCH || (queue.inFlight === 0 && queue.peak > 1 && n >= queue.peak);
}

/**
 * Batches the invitations of one client. Each invitation keeps the end of its operation's job waits (`deadline`: a resource's
 * `customTimeouts`), and only invitations bound alike share a batch, whose job each waits for till its own end.
 */
export class InviteBatcher {
  readonly #client: WorkspaceAccessClient;
  readonly #clock: Clock;
  readonly #deadline: () => JobDeadline | undefined;
  readonly #queues = new Map<string, Queue>();

  constructor(client: WorkspaceAccessClient, clock: Clock, deadline: () => JobDeadline | undefined = () => undefined) {
    this.#client = client;
    this.#clock = clock;
    this.#deadline = deadline;
  }

  /** Invites one user, with others of the same kind that come together; rejects when the invitation did not happen. */
  async submit(invitation: Invitation): Promise<InvitationResult> {
    const deadline = this.#deadline();
    const q = this.#queueOf(invitation, deadline);
    const result = new Promise<InvitationResult>((resolve, reject) => q.entries.push({ invitation, deadline, resolve, reject }));
    q.outstanding++;
    const settled = () => {
      q.lastSettledAt = this.#clock.now();
      // The creates in flight now (this batch's, and those waiting for it) are what the engine runs at once.
      q.peak = Math.max(q.peak, q.outstanding);
      q.outstanding--;
    };
    // Noted before the caller resumes (this handler comes first): its next invitation is measured from here.
    void result.then(settled, settled);
    const now = this.#clock.now();
    // The gap since the last arrival or settling (the engine starts a create as one returns): the pace, unless a burst or a pause.
    const gap = now - Math.max(q.lastJoinedAt, q.lastSettledAt);
    if (gap >= BURST_GAP_MS && gap <= PAUSE_GAP_MS) {
      q.pace = q.pace === 0 ? gap : (q.pace + gap) / 2;
      q.slowGap = Math.max(gap, 0.9 * q.slowGap);
    }
    q.lastJoinedAt = now;
    if (q.scheduled) {
      if (full(q)) q.wake?.();
      return result;
    }
    q.scheduled = true;
    // Once batches of several went out, a create after a pause (a checkpoint stalled on a busy machine) is one of many, not lone.
    const busy = q.inFlight > 0 || now - q.lastSentAt < RECENT_MS || q.peak > 1;
    if (busy) await this.#window(q);
    // A lone create: only those queued in the same turn of the event loop join it.
    else await new Promise<void>((done) => setImmediate(done));
    q.scheduled = false;
    const [mine, ...others] = this.#take(q);
    // Sent from here, not from a callback: the create's own stack reaches the socket. Its batch first.
    const sending = mine && sendBatch(this.#client, mine).finally(() => this.#sent(q));
    for (const batch of others) void sendBatch(this.#client, batch).finally(() => this.#sent(q));
    await sending;
    return result;
  }

  /**
   * Invites users known together (a member set's plan): those of one kind go out at once, {@link MAX_BATCH} a batch, with no
   * window to wait for others. Settles with each invitation's result, in order (`failed` where it did not happen).
   */
  async submitAll(invitations: readonly Invitation[]): Promise<Submitted[]> {
    const results: Submitted[] = [];
    const queues = new Set<Queue>();
    const deadline = this.#deadline();
    invitations.forEach((invitation, i) => {
      const queue = this.#queueOf(invitation, deadline);
      const resolve = (result: InvitationResult) => (results[i] = result);
      queue.entries.push({ invitation, deadline, resolve, reject: (error: unknown) => (results[i] = { kind: "failed", error }) });
      queues.add(queue);
    });
    const sent = [...queues].flatMap((q) => this.#take(q).map((batch) => sendBatch(this.#client, batch).finally(() => this.#sent(q))));
    await Promise.all(sent);
    return results;
  }

  /** The queue of invitations of this kind bound alike (the same `customTimeouts` entry and value, or none). */
  #queueOf(invitation: Invitation, deadline: JobDeadline | undefined): Queue {
    const key = JSON.stringify([idOf(invitation.integrationId), invitation.role, invitation.entitlements, deadline?.within ?? null]);
    const queue = this.#queues.get(key) ?? new Queue();
    this.#queues.set(key, queue);
    return queue;
  }

  /**
   * Resolves when the batch of `queue` is to be sent: at once when {@link full}; else once none of its kind is in flight
   * ({@link HOLD_MS} at most) and nothing has joined or settled for a while, longer at a slower pace ({@link paced}).
   */
  async #window(queue: Queue): Promise<void> {
    const holdBy = this.#clock.now() + HOLD_MS;
    let closeBy: number | undefined;
    // The invitations of this turn of the event loop join before the first wait is measured.
    await new Promise<void>((done) => setImmediate(done));
    for (;;) {
      if (full(queue)) return;
      const now = this.#clock.now();
      let until: number;
      const { idleMs, openMs } = paced(queue.pace);
      if (queue.inFlight > 0 && now < holdBy) until = now + WINDOW_MS;
      else {
        // Fewer wait than the engine runs: the others are on their way (a checkpoint or two each, uneven on a busy
        // machine: gaps of 10 to 300 ms in one batch), so only a gap twice the longest recent one closes the batch (and
        // no cap but the longest), which the last batch of a deployment pays once.
        const expecting = queue.entries.length < queue.peak;
        closeBy ??= now + (queue.peak > 1 ? MAX_PACED_OPEN_MS : openMs);
        const idle = expecting ? Math.min(Math.max(2 * idleMs, 2 * queue.slowGap), PAUSE_GAP_MS) : idleMs;
        until = Math.min(Math.max(queue.lastJoinedAt, queue.lastSentAt) + idle, closeBy);
      }
      if (until <= now) return;
      await new Promise<void>((done) => {
        queue.wake = done;
        void this.#clock.sleep(until - now).then(done);
      });
      queue.wake = undefined;
    }
  }

  /** Takes what is queued, {@link MAX_BATCH} users a batch. */
  #take(queue: Queue): Entry[][] {
    const batches: Entry[][] = [];
    while (queue.entries.length > 0) {
      batches.push(queue.entries.splice(0, MAX_BATCH));
      queue.inFlight++;
    }
    queue.lastSentAt = this.#clock.now();
    return batches;
  }

  #sent(queue: Queue): void {
    queue.inFlight--;
    queue.lastSentAt = this.#clock.now();
  }
}
