/**
 * The service's clock as its answers show it, for what compares a time the service wrote with the client's: whether a user
 * record a create found was made by that create (`users.ts`), and how long a dated `Retry-After` (or an epoch
 * `RateLimit-Reset`) asks the client to wait (`transport.ts`, `pacer.ts`). RFC 9110 has an origin server with a clock send
 * `Date`, to the second: how far the service's clock is ahead of the client's (behind: negative) is learnt from it, and a
 * machine whose clock is minutes off from the service's (a CI runner) judges and waits as well as one in step.
 */
import { httpDateReader } from "./retry-policy";

/** Without a usable `Date`, the clocks are taken to agree within this (docs/contract.md). */
export const UNKNOWN_SKEW_MS = 60_000;

/**
 * With a `Date`, what a record may still be older than the earliest the service's clock read when the create began, and be taken
 * as the create's: a `Date` a server rounded rather than cut to the second, and a `Date` and a `createdAt` stamped by two of the
 * service's machines a little apart.
 */
export const DATE_MARGIN_MS = 5_000;

/**
 * Whether a record the service says it made at `createdAt` may have been made by a job it says it created at `jobCreatedAt`:
 * not older than the job by more than {@link DATE_MARGIN_MS} (both times on the service's clock, so no skew to allow for). A
 * time not said is taken as made, as a create's read-back takes a record that does not say when (only the id is certain).
 */
export function madeByJob(createdAt: string | null, jobCreatedAt: string | null): boolean {
  const made = Date.parse(createdAt ?? "");
  const began = Date.parse(jobCreatedAt ?? "");
  return Number.isNaN(made) || Number.isNaN(began) || made >= began - DATE_MARGIN_MS;
}

/** The offset of the service's clock from the client's, from the latest successful answer that carried a usable `Date`. @internal */
export class ServiceClock {
  #aheadMs: number | undefined;
  #read: ((text: string) => Date | undefined) | undefined;

  /**
   * Told each successful answer's `Date` header and the client's clock when the answer arrived, once the answer parsed as the
   * API's (`transport.ts`: a gateway's page answered 200 carries its own clock's). An absent or unreadable one changes nothing.
   * The service's clock read `Date` (cut to the second) when it answered, before the answer arrived: it is at least
   * `Date - arrival` ahead, and at most one second and the request's latency more.
   */
  observe(date: string | string[] | undefined, arrivedAt: number): void {
    const ahead = this.#dateAhead(date, arrivedAt);
    if (ahead !== undefined) this.#aheadMs = ahead;
  }

  /**
   * How far the service's clock is ahead of the client's for the times an answer that arrived at `arrivedAt` names (a dated
   * `Retry-After`, an epoch `RateLimit-Reset`): by the answer's own `Date` when it carries a usable one (the service stamped
   * both: a `Retry-After` date less that `Date` is the very wait it means, whatever the answer's status), else by the offset
   * learnt ({@link aheadMs}), else 0 (the clocks taken to agree). Learns nothing: only successes teach the offset.
   */
  aheadFor(date: string | string[] | undefined, arrivedAt: number): number {
    return this.#dateAhead(date, arrivedAt) ?? this.#aheadMs ?? 0;
  }

  /** `Date` less `arrivedAt`; `undefined` for a `Date` absent or not an HTTP date. */
  #dateAhead(date: string | string[] | undefined, arrivedAt: number): number | undefined {
    const text = [date].flat()[0]?.trim();
    if (!text) return undefined;
    this.#read ??= httpDateReader();
    const said = this.#read(text)?.getTime();
    return said !== undefined && Number.isFinite(said) ? said - arrivedAt : undefined;
  }

  /** How far the service's clock is ahead of the client's at least (negative: behind); `undefined` until an answer said. */
  get aheadMs(): number | undefined {
    return this.#aheadMs;
  }
}

/**
 * Whether a record the service says it made at `createdAt` (its clock) was made after `began` (the client's clock), with the
 * service's clock `aheadMs` ahead at least ({@link ServiceClock}): on the service's clock when `aheadMs` is known, a record
 * older than `began` there less {@link DATE_MARGIN_MS} is not; else on the client's, a minute of skew allowed. A record made by
 * someone else just before the create began (within that margin, the `Date`'s second and the latency of the answer it was
 * learnt from; within the minute without a `Date`) is not told from the create's own: that race stays ambiguous.
 */
export function madeSince(createdAt: number, began: number, aheadMs: number | undefined): boolean {
  return aheadMs === undefined ? createdAt >= began - UNKNOWN_SKEW_MS : createdAt >= began + aheadMs - DATE_MARGIN_MS;
}
