import type { Clock } from "./clock";

/** How far back accepted answers count when estimating the service's rate. */
const RATE_WINDOW_MS = 1000;
/**
 * Pace at this share of the rate the service was seen to accept: close to it (a 50/s limit is paced
 * at 48.5/s), since another 429 only tightens the spacing again.
 */
const HEADROOM = 0.97;
/** After this long without a 429, try a little faster again (the limit may have been misjudged). */
const PROBE_AFTER_MS = 10_000;
const PROBE_SPEEDUP = 0.95;
/**
 * Pace at this share of what RateLimit headers say the window allows: they are the service's own
 * figures, so less margin is needed than for a rate guessed from 429s.
 */
const HEADER_HEADROOM = 0.97;

/**
 * Client-side pacing shared by every request of one client, so a big apply settles at the
 * service's rate instead of stalling on 429s. No quota is hard-coded (the service publishes
 * none): the pacer learns one.
 * - A 429 pauses every request until its `Retry-After`, and sets a minimum spacing between
 *   request starts from how many answers the service accepted in the second before it.
 * - `RateLimit-Remaining`/`RateLimit-Reset` (or `X-RateLimit-*`) headers, when a service sends
 *   them, hold requests back before the limit is reached: until the reset the first time, and
 *   from then on (when `RateLimit-Limit` is sent too) at a spacing of the window (the longest
 *   reset seen) over the limit, so the requests held back do not all rush out at the reset.
 * - After a calm stretch the spacing shrinks a little, to find a limit that was misjudged.
 */
export class Pacer {
  readonly #clock: Clock;
  readonly #maxInFlight: number;
  #inFlight = 0;
  readonly #waiting: Array<() => void> = [];
  #resumeAt = 0;
  #spacingMs = 0;
  #nextStart = 0;
  #accepted: number[] = [];
  #calmSince = 0;
  /** The longest `RateLimit-Reset` seen, in ms: an estimate of the service's window. */
  #windowMs = 0;
  /** Whether the headers already said the limit was reached once (and set a spacing). */
  #headerPaced = false;
  /**
   * Requests the service still takes before `#budgetResetAt`, by the last `RateLimit-Remaining`
   * (less what was in flight then, and what was sent since); `undefined` when not told.
   */
  #budget: number | undefined;
  #budgetResetAt = 0;
  #limit: number | undefined;
  /** 429s seen, for diagnostics and benchmarks. */
  rateLimited = 0;

  /**
   * @param maxInFlight requests sent at once; the rest wait here, where a pause still reaches
   *   them (in the connection pool's queue it would not).
   */
  constructor(clock: Clock, maxInFlight = Number.POSITIVE_INFINITY) {
    this.#clock = clock;
    this.#maxInFlight = maxInFlight;
  }

  /** The current spacing between request starts, in milliseconds (0: not paced). */
  get spacingMs(): number {
    return this.#spacingMs;
  }

  /** Resolves when a request may be sent, and takes its slot; call {@link release} when it is answered. */
  async acquire(): Promise<void> {
    if (this.#inFlight >= this.#maxInFlight) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#inFlight++;
    }
    for (;;) {
      const now = this.#clock.now();
      // Requests can arrive in a burst between two answers: the budget the headers gave stops
      // them before the service has to.
      if (this.#budget !== undefined && this.#budget <= 0 && now < this.#budgetResetAt && this.#limit !== undefined) {
        this.#limitReached(this.#budgetResetAt - now, this.#limit);
      }
      const wait = Math.max(this.#resumeAt, this.#nextStart) - now;
      if (wait <= 0) {
        this.#nextStart = Math.max(now, this.#nextStart) + this.#spacingMs;
        if (this.#budget !== undefined) this.#budget--;
        return;
      }
      await this.#clock.sleep(wait);
    }
  }

  /** Gives the slot of an answered (or failed) request to the next one waiting. */
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inFlight--;
  }

  /** Holds every request back for `ms` from now (never shortens a pause already set). */
  pause(ms: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.#clock.now() + ms);
  }

  /** Learns from an answer: its status and headers. */
  observe(status: number, headers: Record<string, string | string[] | undefined>): void {
    const now = this.#clock.now();
    if (status === 429) {
      this.rateLimited++;
      const accepted = this.#recent(now);
      const spacing = RATE_WINDOW_MS / Math.max(1, accepted * HEADROOM);
      this.#spacingMs = Math.max(this.#spacingMs, spacing);
      this.#calmSince = now;
      return;
    }
    this.#accepted.push(now);
    // Only the last window's answers matter: keep the list short on long runs.
    if (this.#accepted.length > 1024) this.#recent(now);
    this.#headers(headers, now);
    if (this.#spacingMs > 0 && now - this.#calmSince >= PROBE_AFTER_MS) {
      this.#spacingMs *= PROBE_SPEEDUP;
      this.#calmSince = now;
    }
  }

  #recent(now: number): number {
    while (this.#accepted.length > 0 && (this.#accepted[0] ?? 0) < now - RATE_WINDOW_MS) this.#accepted.shift();
    return this.#accepted.length;
  }

  #headers(headers: Record<string, string | string[] | undefined>, now: number): void {
    const read = (name: string) => {
      const value = headers[name] ?? headers[`x-${name}`];
      const n = Number(Array.isArray(value) ? value[0] : value);
      return Number.isFinite(n) ? n : undefined;
    };
    const remaining = read("ratelimit-remaining");
    const reset = read("ratelimit-reset");
    const limit = read("ratelimit-limit");
    if (reset === undefined) return;
    // `reset` is delta seconds in the IETF draft; an epoch-seconds value is taken as such.
    const resetMs = Math.max(0, reset > 1e9 ? reset * 1000 - now : reset * 1000);
    this.#windowMs = Math.max(this.#windowMs, resetMs);
    if (remaining === undefined) return;
    this.#budget = remaining - this.#inFlight;
    this.#budgetResetAt = now + resetMs;
    if (limit !== undefined && limit > 0) this.#limit = limit;
    // Requests already in flight will use up what remains: hold the rest back in time.
    if (remaining > this.#inFlight) return;
    if (this.#limit === undefined) {
      this.pause(resetMs);
      return;
    }
    this.#limitReached(resetMs, this.#limit);
  }

  /**
   * The headers say the limit is (about to be) reached. The first time, what was sent in a burst
   * must leave the window first: pause until the reset. From then on a spacing of the window over
   * the limit keeps the rate under it, without pausing again: a reset rounded up to whole seconds
   * would only stall requests the window already has room for (a 429 still pauses).
   */
  #limitReached(resetMs: number, limit: number): void {
    if (!this.#headerPaced) this.pause(resetMs);
    this.#headerPaced = true;
    this.#budget = undefined;
    this.#spacingMs = Math.max(this.#spacingMs, this.#windowMs / (limit * HEADER_HEADROOM));
  }
}
