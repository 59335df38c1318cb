/**
 * Time as the emulator sees it: job deadlines, rate-limit windows, delays and timestamps. Injected
 * (`EmulatorOptions.clock`) so tests move time on instead of waiting for it. The emulator keeps a
 * seam of its own rather than the client's `Clock`: it must never import `src/client`.
 */

/** A source of time and timers. */
export interface EmulatorClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms` milliseconds; returns a function that cancels it. Must not keep a process alive. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The longest delay Node's timers take as it is. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The wall clock, with unref'd timers so a forgotten emulator never keeps a process alive. */
export const systemClock: EmulatorClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    // Node fires a timer longer than 2^31 - 1 ms after 1 ms: a long one (a job settling after 30 days) is armed in parts.
    let timer: NodeJS.Timeout;
    const arm = (left: number) => {
      timer = setTimeout(() => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : fn()), Math.min(Math.max(0, left), MAX_TIMER_MS));
      timer.unref();
    };
    arm(ms);
    return () => clearTimeout(timer);
  },
};

/**
 * `clock` as a service whose clock is `skewSeconds()` ahead of it (negative: behind) reads it (the `clockSkew` quirk, read at
 * each call so that a test may change it): the times it stamps and sends. Its timers are `clock`'s: a delay is as long.
 */
export function skewedClock(clock: EmulatorClock, skewSeconds: () => number | undefined): EmulatorClock {
  return { now: () => clock.now() + (skewSeconds() ?? 0) * 1000, setTimer: (fn, ms) => clock.setTimer(fn, ms) };
}
