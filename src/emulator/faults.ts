/**
 * Queued faults: each request is checked against the queue in order before any handling,
 * and the first match is applied and its `times` decremented.
 */
import type { Fault } from "./types";

interface QueuedFault {
  fault: Fault;
  remaining: number;
}

/** Whether a fault applies to a request. */
function faultMatches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method.toUpperCase()) return false;
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
  take(method: string, path: string): Fault | undefined {
    const index = this.#queue.findIndex((q) => faultMatches(q.fault, method, path));
    const entry = this.#queue[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.#queue.splice(index, 1);
    return entry.fault;
  }
}
