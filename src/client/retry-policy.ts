/**
 * The retry policy as one pure decision (retry after a back-off, wait out a 429, accept, fail); sleeping, pacing and
 * messages are the transport's. Not undici's `RetryAgent`: it sleeps on its own timers (no virtual clock), cannot fail
 * fast on a 429 wait over the cap, hold the client's other requests, or hand an ambiguous POST back to `users.create`.
 */

import { isTransientStatus } from "./errors";
import { DEFAULT_RATE_LIMIT_WAIT_SECONDS, type ResolvedSettings } from "./settings";

/** Methods whose repetition cannot do harm: retried on transient failures. POST never is. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "PATCH", "DELETE"]);

/** The limits of the policy, from the client's settings. */
export type RetryLimits = Pick<
  ResolvedSettings,
  "maxRetries" | "maxRateLimitRetries" | "maxRateLimitWaitSeconds" | "retryBaseDelayMs" | "retryMaxDelayMs"
>;

/**
 * An attempt: its method, the retries of transient failures (5xx, no answer) and the 429s waited out so far; `leftMs`, how
 * long its caller may still wait when the answer arrived (a job's poll: until the wait for the job ends), if it is bounded.
 */
export type Attempt = { method: string; transientRetries: number; rateLimitRetries: number; leftMs?: number };

/** What came of an attempt. */
export type Outcome =
  /**
   * `now`: the service's clock when the answer arrived, which a dated `Retry-After` is measured from (`ServiceClock.aheadFor`);
   * `resetMs`: a 429's wait until its `RateLimit-Reset`, when its `RateLimit-Remaining` is 0 or absent (the window it was
   * refused for), which it waits for without a readable `Retry-After`.
   */
  | { kind: "answer"; status: number; retryAfter?: string | undefined; now: number; resetMs?: number | undefined }
  /** No (complete) answer: a reset connection or a timeout. */
  | { kind: "no-answer" };

/** What to do next. */
export type Decision =
  | { action: "accept" }
  /** A transient failure: send again after `delayMs`. */
  | { action: "retry"; delayMs: number }
  /**
   * A 429: hold every request of the client for `waitMs`, then send again; `from`: the header that gave it, if not `Retry-After`;
   * `backoff`: it asked for no wait, and `waitMs` is the client's back-off.
   */
  | { action: "wait"; waitMs: number; given: boolean; from?: "RateLimit-Reset"; backoff?: true }
  /**
   * Give up: an error answer no retry helps, or a transient failure after `retried` retries (`askedMs`: its 5xx's
   * `Retry-After`, when it said one), or at once when that asks for longer than a retry may wait ({@link askedTooLong}).
   */
  | { action: "fail"; why: "error" | "transient"; retried: number; askedMs?: number }
  /**
   * Give up on a transient failure whose retry would wait `delayMs`, past the caller's end (`Attempt.leftMs`: a job's poll
   * near the end of the wait for the job); `askedMs` as above.
   */
  | { action: "fail"; why: "transient-past-end"; retried: number; delayMs: number; askedMs?: number }
  /**
   * Give up on a 429 (its wait is over the cap, its retries are spent, or it would end after the caller's wait, `Attempt.leftMs`),
   * still holding the client's other requests for `holdMs`.
   */
  | {
      action: "fail";
      why: "rate-limit-too-long" | "rate-limit-retries-spent" | "rate-limit-past-end";
      waitMs: number;
      given: boolean;
      from?: "RateLimit-Reset";
      backoff?: true;
      holdMs: number;
    };

/** The policy: see {@link Decision}. `random` gives the back-off's jitter. */
export function decide(attempt: Attempt, outcome: Outcome, limits: RetryLimits, random: () => number): Decision {
  const transient = outcome.kind === "no-answer" || isTransientStatus(outcome.status);
  if (outcome.kind === "answer" && outcome.status >= 200 && outcome.status < 300) return { action: "accept" };
  if (outcome.kind === "answer" && outcome.status === 429) {
    const retryAfterMs = parseRetryAfter(outcome.retryAfter, outcome.now);
    // Without a Retry-After, the window's reset is the wait the service names; only with neither, the contract's five minutes.
    const named = retryAfterMs ?? outcome.resetMs ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS * 1000;
    const given = retryAfterMs !== undefined || outcome.resetMs !== undefined;
    // A 429 that says to send again at once (`Retry-After: 0`, a date or reset past) is a service under pressure: its retries
    // back off as a 5xx's do, rather than resend at once up to `maxRateLimitRetries` times. The back-off is the client's own
    // wait, never longer than a 429's may last: the service asked for none, so none is refused as too long.
    const backoff = named > 0 ? undefined : backoffDelay(attempt.rateLimitRetries, limits.retryBaseDelayMs, limits.retryMaxDelayMs, random);
    const waitMs = backoff === undefined ? named : Math.min(backoff, limits.maxRateLimitWaitSeconds * 1000);
    const from = {
      ...(retryAfterMs === undefined && outcome.resetMs !== undefined && { from: "RateLimit-Reset" as const }),
      ...(backoff !== undefined && { backoff: true as const }),
    };
    // A wait over the cap holds nothing back: the other requests fail as fast on their own 429s. So does a back-off the cap
    // leaves nothing of (a cap of 0: "rather fail than wait"): resent at once, up to `maxRateLimitRetries` times, each request
    // would storm a service under pressure.
    if (waitMs > limits.maxRateLimitWaitSeconds * 1000 || (backoff !== undefined && waitMs <= 0)) {
      // A back-off is the wait named, not what the cap left of it (its message: "backs off 1 s, longer than ... (0 s)").
      return { action: "fail", why: "rate-limit-too-long", waitMs: backoff ?? waitMs, given, ...from, holdMs: 0 };
    }
    // A wait its caller cannot afford (a job's poll near the end of the wait for the job) is not begun: the caller's end is
    // kept, and the other requests still held, as the service asked.
    if (attempt.leftMs !== undefined && waitMs > attempt.leftMs) {
      return { action: "fail", why: "rate-limit-past-end", waitMs, given, ...from, holdMs: waitMs };
    }
    // Out of 429 retries, the other requests are still held: they would collect 429s of their own during the Retry-After.
    if (attempt.rateLimitRetries >= limits.maxRateLimitRetries) {
      return { action: "fail", why: "rate-limit-retries-spent", waitMs, given, ...from, holdMs: waitMs };
    }
    return { action: "wait", waitMs, given, ...from };
  }
  if (!transient) return { action: "fail", why: "error", retried: 0 };
  const asked = outcome.kind === "answer" ? parseRetryAfter(outcome.retryAfter, outcome.now) : undefined;
  const said = asked === undefined ? {} : { askedMs: asked };
  if (askedTooLong(asked, limits)) return { action: "fail", why: "transient", retried: attempt.transientRetries, ...said };
  if (IDEMPOTENT_METHODS.has(attempt.method) && attempt.transientRetries < limits.maxRetries) {
    const delayMs = transientDelay(attempt.transientRetries, asked, limits, random);
    // A back-off its caller cannot afford is not begun, as a 429's wait is not: the caller's end is kept.
    if (attempt.leftMs !== undefined && delayMs > attempt.leftMs) {
      return { action: "fail", why: "transient-past-end", retried: attempt.transientRetries, delayMs, ...said };
    }
    return { action: "retry", delayMs };
  }
  return { action: "fail", why: "transient", retried: attempt.transientRetries, ...said };
}

/**
 * Whether a 5xx's `Retry-After` (`askedMs`, a 503 in maintenance) asks for longer than one retry may wait (`retryMaxDelayMs`,
 * the back-off's own cap): its request then fails at once, saying so, rather than retry into the same answer (the
 * transport's retries and the POST `users.create` sends again alike). A transient failure's retries so stay as short as
 * before: a job's polls, a refresh's reads, wait no longer on a 5xx than the back-off does.
 */
export function askedTooLong(askedMs: number | undefined, limits: Pick<RetryLimits, "retryMaxDelayMs">): boolean {
  return askedMs !== undefined && askedMs > limits.retryMaxDelayMs;
}

/** The wait before retry `attempt + 1` of a transient failure: the back-off, never shorter than its 5xx's `Retry-After` asked. */
export function transientDelay(attempt: number, askedMs: number | undefined, limits: RetryLimits, random: () => number): number {
  return Math.max(backoffDelay(attempt, limits.retryBaseDelayMs, limits.retryMaxDelayMs, random), askedMs ?? 0);
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP-date in any of its three forms (RFC 9110), a date measured from
 * `nowMs`, the service's clock (the answer's `Date`, or the client's shifted by the offset learnt); `undefined` when absent or
 * unreadable.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  // Delta seconds; a proxy joining two headers gives "10, 20": the first counts.
  const seconds = /^(\d+(?:\.\d+)?)\s*(?:,|$)/.exec(text);
  if (seconds) return Math.ceil(Number(seconds[1]) * 1000);
  // undici's strict reader first; then, as before it, any date of the "Wed, 21 Oct ..." shape `Date.parse` reads (another
  // weekday, lower case, "UTC"): a sender's small slip must not turn a one-minute wait into the five-minute default.
  const strict = httpDateReader()(text)?.getTime();
  const date = strict !== undefined && !Number.isNaN(strict) ? strict : /^[a-z]{3,9},/i.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * undici's reader of the three forms of an HTTP-date (RFC 9110: "Sun, 06 Nov 1994 08:49:37 GMT", the RFC 850 "Sunday,
 * 06-Nov-94 08:49:37 GMT" and asctime's "Sun Nov  6 08:49:37 1994", all GMT). Not `Date.parse`, which reads asctime in the
 * machine's time zone and "-1" as a date long past (no wait at all). Should a release move it, an IMF-fixdate still reads.
 * @internal
 */
export function httpDateReader(load: (id: string) => unknown = require): (text: string) => Date | undefined {
  try {
    const { parseHttpDate } = load("undici/lib/util/date") as { parseHttpDate?: unknown };
    if (typeof parseHttpDate === "function") return parseHttpDate as (text: string) => Date | undefined;
  } catch {}
  return (text) => (/^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i.test(text) ? new Date(Date.parse(text)) : undefined);
}

/** Exponential back-off with "equal jitter": half the step fixed, half random, so many clients' retries spread out. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const step = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}
