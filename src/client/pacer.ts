import { type Clock, timerOf } from "./clock";

/** The window a limit learnt from 429s is counted in (the service publishes none): the answers accepted in the last second. */
export const RATE_WINDOW_MS = 1000;
/** A window is kept this much longer than the service's: a margin for one that counts a request from after it answered. */
const WINDOW_MARGIN = 1.02;
/** A 429 under a limit learnt from 429s means the limit was misjudged: keep this share of it. */
const DECREASE = 0.9;
/**
 * The longest window a `RateLimit-Reset` may teach the pacer. A longer one (a daily quota, or a reset in epoch units the
 * header does not say) would hold requests back silently for that long: left to the 429 path, whose wait
 * `maxRateLimitWaitSeconds` bounds and names.
 */
export const MAX_HEADER_WINDOW_MS = 10 * 60_000;
/** After this long without a 429, one more request per window, to find a limit misjudged low (long: a failed probe costs a pause). */
const PROBE_AFTER_MS = 60_000;

/**
 * A request {@link Pacer.acquire} did not send: it would be held `heldMs` more, past its `until`, `by` a 429's pause (`429`), a
 * `RateLimit-Remaining` spent (`remaining`: held till its reset), the limit learnt (`learnt`) or `maxRequestsPerSecond` (`cap`).
 * `awaiting`: a hold with no known end, till an answer to a request in flight frees a place (one of the `maxInFlight`, by
 * `connections`; or one under the limit `by` names), waited for `heldMs`, till `until` passed.
 */
export interface Held {
  heldMs: number;
  by: "429" | "remaining" | "learnt" | "cap" | "connections";
  awaiting?: true;
}

/** At most `count` request starts in any `windowMs`. */
export interface WindowLimit {
  count: number;
  windowMs: number;
  /** Where the limit comes from: `RateLimit-Limit` headers are the service's own figures. */
  source: "429" | "headers";
  /**
   * For a limit learnt from 429s: whether the service refused this client again while it held to the limit (a 429 for a
   * request sent under it); absent until then, when it may be the share another client left in the window (the memory
   * trusts it briefly).
   */
  confirmed?: true;
}

/**
 * Pacing shared by every request of one client, so a big apply settles at the service's rate instead of stalling on 429s.
 * It learns "at most `count` requests in any window" (from the first 429 that follows answers of its own accepted in the
 * window, and those of its burst accepted after it; lowered by a later one; from `RateLimit-*` headers; raised by a calm
 * stretch), holds to it by a sliding log of requests, each counted from its answer (the latest the service can have counted
 * it), beside the user's cap. A limit worth keeping goes to `onLimit`, back by {@link seed}.
 */
export class Pacer {
  readonly #clock: Clock;
  readonly #maxInFlight: number;
  #inFlight = 0;
  readonly #waiting: Array<() => void> = [];
  #resumeAt = 0;
  #limit: WindowLimit | undefined;
  /** Requests sent so far: each start's ticket. */
  #sends = 0;
  /** The ticket of the first request sent under {@link #limit}: a 429 for one sent before says nothing about it. */
  #limitFrom = 0;
  /** Start times of the requests in flight, by ticket. */
  readonly #started = new Map<number, number>();
  /** When the requests of the last window were answered (or failed), oldest first. */
  #done: number[] = [];
  /** Times of the answers accepted in the last {@link RATE_WINDOW_MS}. */
  #accepted: number[] = [];
  #calmSince = 0;
  /** The longest `RateLimit-Reset` seen, in ms: an estimate of the service's window. */
  #windowMs = 0;
  /** Requests the service still takes before `#budgetResetAt` (the last `RateLimit-Remaining`, less those sent since); `undefined`: not told. */
  #budget: number | undefined;
  #budgetResetAt = 0;
  readonly #cap: { count: number; windowMs: number } | undefined;
  readonly #onLimit: ((limit: WindowLimit) => void) | undefined;
  /** The requests waiting for an answer to free a place under the cap (see {@link #limitWait}), woken by the next. */
  readonly #awaitingRelease: Array<() => void> = [];
  /** What set the pause until `#resumeAt`: a 429 (or the transport's hold after one), or a `RateLimit-Remaining` spent. */
  #pausedBy: "429" | "remaining" = "429";
  /**
   * A limit just learnt from a 429, with requests sent before it still in flight (`pending`, by ticket): answers come back in
   * any order, so each of them accepted within the window of the 429 (`at`) was counted by the service too, and raises it.
   */
  #learning: { at: number; pending: Set<number> } | undefined;
  /** The limit last handed to `#onLimit` (or seeded). */
  #remembered: WindowLimit | undefined;
  /** 429s seen. */
  rateLimited = 0;

  /** `maxInFlight` requests are sent at once; the rest wait here, where a pause still reaches them (not in the pool's queue). */
  constructor(
    clock: Clock,
    maxInFlight = Number.POSITIVE_INFINITY,
    maxPerSecond = 0,
    onLimit: ((limit: WindowLimit) => void) | undefined = undefined,
  ) {
    this.#clock = clock;
    this.#maxInFlight = maxInFlight;
    this.#cap = maxPerSecond > 0 ? { count: maxPerSecond, windowMs: RATE_WINDOW_MS } : undefined;
    this.#onLimit = onLimit;
  }

  /** Starts from a limit remembered from an earlier process, unless one is learnt already; then treated as learnt here. */
  seed(limit: WindowLimit): void {
    if (this.#limit) return;
    this.#limit = { ...limit };
    this.#windowMs = limit.source === "headers" ? Math.max(this.#windowMs, limit.windowMs) : this.#windowMs;
    this.#remembered = { ...limit };
    this.#calmSince = this.#clock.now();
  }

  /** The learnt limit: at most `count` request starts in any `windowMs` (undefined: not paced). */
  get limit(): { count: number; windowMs: number } | undefined {
    return this.#limit && { count: this.#limit.count, windowMs: this.#limit.windowMs };
  }

  /**
   * Resolves, to the request's ticket (for {@link observe}), when a request may be sent; {@link release} its slot when answered.
   * `until`: the latest it may be sent (a job's poll: the end of its wait). Held past it, by a pause or the window, it is not
   * sent: it resolves to how long it would be held and by what ({@link Held}), its slot given back. Waiting for an answer to
   * free a place (every slot taken, or the window full of requests in flight), it waits till `until` at most, then says so.
   */
  async acquire(): Promise<number>;
  async acquire(until: number): Promise<number | Held>;
  async acquire(until = Number.POSITIVE_INFINITY): Promise<number | Held> {
    const began = this.#clock.now();
    if (this.#inFlight >= this.#maxInFlight) {
      // Not handed a slot by `#giveBack` by `until`: it took none, so gives none back.
      const handed = await this.#queued(this.#waiting, until);
      if (!handed) return { heldMs: this.#clock.now() - began, by: "connections", awaiting: true };
    } else {
      this.#inFlight++;
    }
    for (;;) {
      const now = this.#clock.now();
      // Without a known limit, a budget the headers gave is spent: hold back until its reset.
      if (this.#budget !== undefined && this.#budget <= 0 && this.#limit === undefined && now < this.#budgetResetAt) {
        this.pause(this.#budgetResetAt - now, "remaining");
        this.#budget = undefined;
      }
      const paused = this.#resumeAt - now;
      const window = this.#windowWait(now);
      const wait = Math.max(paused, window.ms);
      if (wait <= 0) {
        this.#started.set(this.#sends, now);
        if (this.#budget !== undefined) this.#budget--;
        return this.#sends++;
      }
      if (wait === Number.POSITIVE_INFINITY) {
        if (await this.#queued(this.#awaitingRelease, until)) continue;
        this.#giveBack();
        return { heldMs: this.#clock.now() - began, by: window.by, awaiting: true };
      }
      if (now + wait > until) {
        this.#giveBack();
        return { heldMs: wait, by: paused >= wait ? this.#pausedBy : window.by };
      }
      await this.#clock.sleep(wait);
    }
  }

  /**
   * Waits in `queue` till woken (true), or till `until` passes on the clock (false, taken out of the queue first: a wake
   * after it, handing a slot, never comes). Its timer is the clock's, cancelled when woken.
   */
  #queued(queue: Array<() => void>, until: number): Promise<boolean> {
    if (until <= this.#clock.now()) return Promise.resolve(false);
    return new Promise((resolve) => {
      let cancel = () => {};
      const wake = () => {
        cancel();
        resolve(true);
      };
      queue.push(wake);
      if (until === Number.POSITIVE_INFINITY) return;
      cancel = timerOf(this.#clock)(until - this.#clock.now(), () => {
        const at = queue.indexOf(wake);
        if (at < 0) return;
        queue.splice(at, 1);
        resolve(false);
      });
    });
  }

  /** Gives the slot of an answered (or failed) request to the next one waiting; it counts in the window from now. */
  release(ticket: number): void {
    if (this.#started.delete(ticket)) this.#done.push(this.#clock.now());
    for (const wake of this.#awaitingRelease.splice(0)) wake();
    this.#giveBack();
  }

  /** A slot freed: the next request waiting takes it. */
  #giveBack(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#inFlight--;
  }

  /** Holds every request back for `ms` from now (never shortens a pause already set); `by`: what asked (a 429, by default). */
  pause(ms: number, by: "429" | "remaining" = "429"): void {
    const until = this.#clock.now() + ms;
    if (until <= this.#resumeAt) return;
    this.#resumeAt = until;
    this.#pausedBy = by;
  }

  /**
   * Learns from an answer's status and headers; `ticket` tells a 429 for a request sent before the limit was learnt (it does
   * not lower it again); `serviceAheadMs`, how far the service's clock is ahead of the client's (`ServiceClock.aheadFor`), which
   * an epoch `RateLimit-Reset` is measured on.
   */
  observe(status: number, headers: Record<string, string | string[] | undefined>, ticket = this.#sends, serviceAheadMs = 0): void {
    const now = this.#clock.now();
    if (status === 429) {
      this.rateLimited++;
      this.#calmSince = now;
      if (!this.#limit) {
        // None of this client's answers accepted in the window: another client of the key used it up. Its Retry-After is
        // obeyed (the transport pauses), but it says nothing of this client's pace (learnt, it would be one request a second).
        const accepted = this.#recent(now);
        if (accepted > 0) {
          // Remembered now too: a process ending before the rest of its burst is answered keeps what it learnt.
          this.#setLimit({ count: accepted, windowMs: RATE_WINDOW_MS, source: "429" }, now);
          // The transport released this answer's request before: those still in flight are the rest of the burst.
          this.#learning = { at: now, pending: new Set(this.#started.keys()) };
        }
      } else if (ticket >= this.#limitFrom) {
        // A limit the headers gave is the service's own: such a 429 is likelier a request delayed than a wrong limit (one less, not a tenth).
        const headers = this.#limit.source === "headers";
        const lowered = headers ? this.#limit.count - 1 : Math.floor(this.#limit.count * DECREASE);
        const count = Math.max(1, Math.min(this.#limit.count - 1, lowered));
        // Refused while holding to a limit learnt from 429s: the limit is this client's own, not a share left by another.
        this.#setLimit({ ...this.#limit, count, ...(!headers && { confirmed: true }) }, now);
      } else {
        // Sent before the limit: it says nothing of it, but was not accepted either.
        this.#learning?.pending.delete(ticket);
      }
      this.#learnt(now);
      return;
    }
    this.#accepted.push(now);
    if (this.#accepted.length > 1024) this.#recent(now);
    if (this.#learning?.pending.delete(ticket) && now - this.#learning.at <= RATE_WINDOW_MS && this.#limit) {
      this.#limit = { ...this.#limit, count: this.#limit.count + 1 };
    }
    this.#learnt(now);
    this.#headers(headers, now, serviceAheadMs);
    if (this.#limit && now - this.#calmSince >= PROBE_AFTER_MS) {
      // The calm stretch confirmed the limit: remembered, the probe's is not yet.
      this.#remember(this.#limit);
      this.#limit = { ...this.#limit, count: this.#limit.count + 1 };
      this.#calmSince = now;
    }
  }

  /** A new limit, for requests sent from now, remembered; any limit still being learnt from a burst is over. */
  #setLimit(limit: WindowLimit, now: number): void {
    this.#limit = limit;
    this.#limitFrom = this.#sends;
    this.#calmSince = now;
    this.#learning = undefined;
    this.#remember(limit);
  }

  /** Ends the learning from a burst once none of it is in flight or its window passed: the limit it rose to is remembered. */
  #learnt(now: number): void {
    if (!this.#learning || (this.#learning.pending.size > 0 && now - this.#learning.at <= RATE_WINDOW_MS)) return;
    this.#learning = undefined;
    if (this.#limit) this.#remember(this.#limit);
  }

  #remember(limit: WindowLimit): void {
    const last = this.#remembered;
    if (limit.count === last?.count && limit.windowMs === last.windowMs && limit.confirmed === last.confirmed) return;
    this.#remembered = { ...limit };
    this.#onLimit?.({ ...limit });
  }

  /** How long until one more request fits the learnt window and the cap (0: now), and which holds it longer. */
  #windowWait(now: number): { ms: number; by: "learnt" | "cap" } {
    const longest = Math.max(this.#limit?.windowMs ?? RATE_WINDOW_MS, this.#cap?.windowMs ?? 0) * WINDOW_MARGIN;
    while (this.#done.length > 0 && (this.#done[0] ?? 0) <= now - longest) this.#done.shift();
    const learnt = this.#limitWait(this.#limit, now, true);
    const cap = this.#limitWait(this.#cap, now, false);
    return learnt >= cap ? { ms: learnt, by: "learnt" } : { ms: cap, by: "cap" };
  }

  /** {@link #windowWait} for one limit (Infinity: after an answer). One in flight counts from its start (`fromStart`), else until answered. */
  #limitWait(limit: { count: number; windowMs: number } | undefined, now: number, fromStart: boolean): number {
    if (!limit) return 0;
    const windowMs = limit.windowMs * WINDOW_MARGIN;
    const done = this.#done.filter((at) => at > now - windowMs);
    const over = done.length + this.#started.size - limit.count;
    if (over < 0) return 0;
    // The (over + 1)th to leave the window must leave first: among those in flight and the first `over + 1` answered.
    const leaves = [...(fromStart ? this.#started.values() : []), ...done.slice(0, over + 1)].sort((x, y) => x - y)[over];
    return leaves === undefined ? Number.POSITIVE_INFINITY : leaves + windowMs - now;
  }

  #recent(now: number): number {
    while (this.#accepted.length > 0 && (this.#accepted[0] ?? 0) < now - RATE_WINDOW_MS) this.#accepted.shift();
    return this.#accepted.length;
  }

  #headers(headers: Record<string, string | string[] | undefined>, now: number, serviceAheadMs: number): void {
    const said = readRateLimitHeaders(headers, now + serviceAheadMs);
    if (!said || said.resetMs > MAX_HEADER_WINDOW_MS) return;
    this.#windowMs = Math.max(this.#windowMs, said.resetMs);
    const { limit, remaining } = said;
    if (limit !== undefined && limit >= 1 && this.#windowMs > 0) {
      // The service's own figures; a limit lowered by a 429 since stays lowered.
      const lowered = this.#limit?.source === "headers" && this.#limit.count < Math.floor(limit);
      const count = lowered ? (this.#limit?.count ?? limit) : Math.floor(limit);
      if (this.#limit?.count !== count || this.#limit.windowMs !== this.#windowMs) {
        this.#setLimit({ count, windowMs: this.#windowMs, source: "headers" }, now);
      }
      return;
    }
    if (remaining === undefined) return;
    this.#budget = remaining - this.#inFlight;
    this.#budgetResetAt = now + said.resetMs;
  }
}

/**
 * What `RateLimit-Limit`, `-Remaining` and `-Reset` say (IETF draft, or `X-` prefixed); `undefined` without a reset, which gives
 * both their window. `serviceNow`: the service's clock when the answer arrived, which an epoch reset is measured from. A reset
 * over {@link MAX_HEADER_WINDOW_MS} teaches the pacer nothing; a 429's is its wait all the same (`transport.ts`). @internal
 */
export function readRateLimitHeaders(headers: Record<string, string | string[] | undefined>, serviceNow: number) {
  const read = (name: string) => {
    const value = headers[name] ?? headers[`x-${name}`];
    const n = Number(Array.isArray(value) ? value[0] : value);
    return Number.isFinite(n) ? n : undefined;
  };
  const reset = read("ratelimit-reset");
  if (reset === undefined) return undefined;
  // `reset` is delta seconds in the IETF draft; an epoch value is taken as such, in seconds or (past 1e12) milliseconds, a
  // time on the service's clock.
  const resetMs = Math.max(0, reset > 1e12 ? reset - serviceNow : reset > 1e9 ? reset * 1000 - serviceNow : reset * 1000);
  return { resetMs, limit: read("ratelimit-limit"), remaining: read("ratelimit-remaining") };
}
