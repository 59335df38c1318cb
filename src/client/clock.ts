/** Time as the client sees it: injected, so tests of retries, rate limits, job waits and request timeouts run on a virtual clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /**
   * Calls `fire` after `ms` milliseconds unless the function it returns is called first: what bounds each exchange
   * (`requestTimeoutSeconds`), and a job poll's wait for a free connection (the end of its wait). A clock without it has
   * them bounded by `setTimeout`, as the system clock does.
   */
  timer?(ms: number, fire: () => void): () => void;
}

/** `setTimeout`'s timer: the system clock's, and that of a clock without one. */
const realTimer = (ms: number, fire: () => void): (() => void) => {
  const timeout = setTimeout(fire, ms);
  return () => clearTimeout(timeout);
};

/** The wall clock, with `setTimeout` for sleeping and timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
  timer: realTimer,
};

/** `clock`'s timer ({@link Clock.timer}), or `setTimeout`'s for a clock without one. @internal */
export function timerOf(clock: Clock): (ms: number, fire: () => void) => () => void {
  return clock.timer ? (ms, fire) => clock.timer!(ms, fire) : realTimer;
}
