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

/** The wall clock, with unref'd timers so a forgotten emulator never keeps a process alive. */
export const systemClock: EmulatorClock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  },
};
