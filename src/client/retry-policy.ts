/**
 * The retry policy as one pure decision: given an attempt and what came of it, send again after a
 * back-off, wait out a rate limit, accept, or fail. Everything else (sleeping, pacing, errors and
 * their messages) is the transport's, so the whole policy reads, and is tested, as one table.
 *
 * Why not undici's `RetryAgent` / `interceptors.retry`: they sleep on their own timers (a test
 * could not run them on a virtual clock), they cannot fail fast when a 429 asks for a wait longer
 * than the configured cap, they cannot hold back the client's *other* requests during a 429's
 * wait (the pacer does), and they cannot hand an ambiguous POST back to the operation that knows
 * how to check whether it landed (see `create-once.ts`).
 */

import { isTransientStatus } from "./errors";
import { DEFAULT_RATE_LIMIT_WAIT_SECONDS } from "./settings";

/** Methods whose repetition cannot do harm: retried on transient failures. POST never is. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "PATCH", "DELETE"]);

/** The limits of the policy, from the client's settings. */
export interface RetryLimits {
  maxRetries: number;
  maxRateLimitRetries: number;
  maxRateLimitWaitMs: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
}

/** An attempt: its method and the retries already spent. */
export interface Attempt {
  method: string;
  /** Retries of transient failures so far (5xx, no answer). */
  transientRetries: number;
  /** 429s waited out so far. */
  rateLimitRetries: number;
}

/** What came of an attempt. */
export type Outcome =
  | { kind: "answer"; status: number; retryAfter?: string | undefined; now: number }
  /** No (complete) answer: a reset connection or a timeout. */
  | { kind: "no-answer" };

/** What to do next. */
export type Decision =
  | { action: "accept" }
  /** A transient failure: send again after `delayMs`. */
  | { action: "retry"; delayMs: number }
  /** A 429: hold every request of the client for `waitMs`, then send again. */
  | { action: "wait"; waitMs: number; given: boolean }
  /** Give up: an error answer no retry helps, or a transient failure after `retried` retries. */
  | { action: "fail"; why: "error" | "transient"; retried: number }
  /** Give up on a 429 (its wait is over the cap, or its retries are spent), still holding the client's other requests for `holdMs`. */
  | { action: "fail"; why: "rate-limit-too-long" | "rate-limit-retries-spent"; waitMs: number; given: boolean; holdMs: number };

/** The policy: see {@link Decision}. `random` gives the back-off's jitter. */
export function decide(attempt: Attempt, outcome: Outcome, limits: RetryLimits, random: () => number): Decision {
  const idempotent = IDEMPOTENT_METHODS.has(attempt.method);
  const transient = outcome.kind === "no-answer" || isTransientStatus(outcome.status);
  if (outcome.kind === "answer" && outcome.status >= 200 && outcome.status < 300) return { action: "accept" };
  if (outcome.kind === "answer" && outcome.status === 429) {
    const given = parseRetryAfter(outcome.retryAfter, outcome.now);
    // Without Retry-After, the contract's rule: wait five minutes.
    const waitMs = given ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS * 1000;
    const known = given !== undefined;
    // A wait over the cap holds nothing back: the other requests fail as fast on their own 429s
    // as this one does, instead of stalling for the cap first.
    if (waitMs > limits.maxRateLimitWaitMs) return { action: "fail", why: "rate-limit-too-long", waitMs, given: known, holdMs: 0 };
    // Out of 429 retries, the other requests are still held for the wait: they would otherwise go
    // out during the Retry-After and collect 429s of their own.
    if (attempt.rateLimitRetries >= limits.maxRateLimitRetries) {
      return { action: "fail", why: "rate-limit-retries-spent", waitMs, given: known, holdMs: waitMs };
    }
    return { action: "wait", waitMs, given: known };
  }
  if (!transient) return { action: "fail", why: "error", retried: 0 };
  if (idempotent && attempt.transientRetries < limits.maxRetries) {
    return { action: "retry", delayMs: backoffDelay(attempt.transientRetries, limits.retryBaseDelayMs, limits.retryMaxDelayMs, random) };
  }
  return { action: "fail", why: "transient", retried: attempt.transientRetries };
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110). `undefined` when the
 * header is absent or unreadable, so the caller applies the contract's five-minute rule.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Exponential back-off with "equal jitter": half the step is fixed, half random, so retries of
 * many clients spread out but none retries at once.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const step = Math.min(maxMs, baseMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}
