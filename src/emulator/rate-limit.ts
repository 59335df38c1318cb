/**
 * A sliding-window rate limit per API key: a request is admitted when fewer than
 * `requests` admitted requests of the same key fall in the last `windowMs`. Refused requests
 * do not count, so a client that backs off as told gets through.
 */
import type { EmulatorClock } from "./clock";
import type { RateLimit } from "./types";

/** The answer of {@link RateLimiter.admit}. */
type Admission = { ok: true; remaining: number; resetMs: number } | { ok: false; retryAfterMs: number };

/** Per-key sliding windows. */
export class RateLimiter {
  #limit: RateLimit | null;
  readonly #windows = new Map<string, number[]>();

  readonly #clock: EmulatorClock;

  constructor(limit: RateLimit | null | undefined, clock: EmulatorClock) {
    this.#clock = clock;
    this.#limit = limit ?? null;
  }

  /** The limit in force, if any. */
  get current(): RateLimit | null {
    return this.#limit;
  }

  /** Replaces the limit and forgets every window. */
  set(limit: RateLimit | null): void {
    this.#limit = limit;
    this.#windows.clear();
  }

  /** Admits (and counts) a request of `key` at `now`, or says how long until one would be admitted. */
  admit(key: string, now = this.#clock.now()): Admission {
    if (this.#limit === null) return { ok: true, remaining: Number.POSITIVE_INFINITY, resetMs: 0 };
    const { requests, windowMs } = this.#limit;
    const recent = (this.#windows.get(key) ?? []).filter((at) => now - at < windowMs);
    if (recent.length >= requests) {
      this.#windows.set(key, recent);
      // The oldest admitted request leaves the window first; then one more fits.
      const oldest = recent[recent.length - requests] ?? now;
      return { ok: false, retryAfterMs: Math.max(1, oldest + windowMs - now) };
    }
    recent.push(now);
    this.#windows.set(key, recent);
    const oldest = recent[0] ?? now;
    return { ok: true, remaining: requests - recent.length, resetMs: oldest + windowMs - now };
  }
}

/** The `Retry-After` header for a refusal, per the configured style; undefined for "none". */
export function retryAfterHeader(style: RateLimit["retryAfter"], retryAfterMs: number, now: number): string | undefined {
  switch (style ?? "seconds") {
    case "none":
      return undefined;
    case "date":
      // An HTTP date has whole seconds: round up so a client waiting until it is never early.
      return new Date(Math.ceil((now + retryAfterMs) / 1000) * 1000).toUTCString();
    default:
      return String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  }
}
