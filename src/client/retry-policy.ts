/**
 * The retry policy, as small pure functions so it can be read in one place and tested without a
 * server. Why not undici's RetryAgent: it sleeps on real timers (tests could not inject a clock),
 * it cannot fail fast when a 429 asks for a wait longer than the configured cap, and it cannot
 * hand an ambiguous POST back to the operation that knows how to check whether it landed.
 */

/** Methods whose repetition cannot do harm: retried on transient failures. POST never is. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "PATCH", "DELETE"]);

/** 5xx answers (but 501) are treated as transient (contract: "not specified; treat as transient"). */
export function isTransientStatus(status: number): boolean {
  return status >= 500 && status !== 501;
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
