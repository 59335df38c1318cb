/**
 * Queued faults: each request is checked against the queue in order before any handling,
 * and the first match is applied and its `times` decremented. Also the invitation failures
 * a test asks for by user ({@link InviteFailures}): every invitation job naming one of them fails.
 */
import type { BatchInviteFailure, Fault } from "./types";

interface QueuedFault {
  fault: Fault;
  remaining: number;
}

/** The `data.attributes.userIds` of an invitation body, or none. */
export function invitedUserIds(body: unknown): string[] {
  const ids = (body as { data?: { attributes?: { userIds?: unknown } } } | undefined)?.data?.attributes?.userIds;
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** Whether a fault applies to a request. */
function faultMatches(fault: Fault, method: string, path: string, body: unknown): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method.toUpperCase()) return false;
  // The body's ids arrive in lower case (the server lowers them); a fault may name its user in any case.
  if (fault.userId !== undefined && !invitedUserIds(body).includes(fault.userId.toLowerCase())) return false;
  if (typeof fault.path === "string") return fault.path === path;
  // A global or sticky RegExp keeps state between test() calls; reset it so matching is pure.
  fault.path.lastIndex = 0;
  return fault.path.test(path);
}

/** The queue of faults. */
export class FaultQueue {
  #queue: QueuedFault[] = [];

  /** Queues a fault; `times` below 1 queues nothing. */
  add(fault: Fault): void {
    const remaining = fault.times ?? 1;
    if (remaining < 1) return;
    this.#queue.push({ fault: { ...fault }, remaining });
  }

  /** Forgets every queued fault. */
  clear(): void {
    this.#queue = [];
  }

  /** Takes one use of the first fault matching the request, if any. */
  take(method: string, path: string, body?: unknown): Fault | undefined {
    const index = this.#queue.findIndex((q) => faultMatches(q.fault, method, path, body));
    const entry = this.#queue[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#queue.splice(index, 1);
    return entry.fault;
  }
}

/**
 * Users whose invitation jobs fail, until cleared: every `POST /integrations/{id}/users` job whose
 * `userIds` names one of them ends in `error` (`errorType` {@link INVITE_FAILED_ERROR_TYPE}, the
 * failing ids in `response.userIds`). The public document does not say what a job inviting many
 * users does when one of them cannot be invited; `mode` plays both plausible answers: `"whole"`
 * (the default: nothing is applied, as for every other failed job) or `"partial"` (the others
 * become members all the same, and the job still ends in `error`).
 */
export class InviteFailures {
  readonly #users = new Set<string>();
  mode: BatchInviteFailure = "whole";

  /** From now on, invitations naming any of `userIds` fail (adds to the earlier ones). */
  add(userIds: readonly string[], mode?: BatchInviteFailure): void {
    for (const id of userIds) this.#users.add(id);
    if (mode !== undefined) this.mode = mode;
  }

  clear(): void {
    this.#users.clear();
  }

  /** The ids of `userIds` whose invitation fails. */
  failing(userIds: readonly string[]): string[] {
    return userIds.filter((id) => this.#users.has(id));
  }
}

/** The errorType of an invitation job failed through {@link InviteFailures}. */
export const INVITE_FAILED_ERROR_TYPE = "invite_failed";
