import type { Clock } from "../../src/client";
import type { EmulatorClock } from "../../src/emulator/index";

interface Timer {
  due: number;
  fn: () => void;
}

/**
 * A clock whose time moves only when a test (or a sleeping client) moves it. Sleeps return at
 * once, move time forward and record every wait, so tests assert exact waits (a 2 s Retry-After
 * is a 2000 ms sleep) without waiting. Timers (the emulator's job deadlines and delays) fire when
 * time passes their due time, in order. One instance can serve the client and the emulator, so
 * both see the same time.
 */
export class VirtualClock implements Clock, EmulatorClock {
  time = Date.parse("2026-01-01T00:00:00Z");
  readonly sleeps: number[] = [];
  readonly #timers = new Set<Timer>();
  /**
   * With `requestTimers`, the client's timeout of each exchange (`requestTimeoutSeconds`) runs on this clock too, and the test
   * moves time past it. Off by default: sleeps here move time at once, so another request's 300 s wait would time out one
   * in flight, which takes milliseconds of real time.
   */
  readonly timer?: (ms: number, fire: () => void) => () => void;

  constructor(options: { requestTimers?: boolean } = {}) {
    if (options.requestTimers) this.timer = (ms, fire) => this.setTimer(fire, ms);
  }

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.advance(ms);
    // Let other requests in flight make progress, as real time would.
    await new Promise((resolve) => setImmediate(resolve));
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { due: this.time + Math.max(0, ms), fn };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** Moves time on by `ms`, firing every timer that falls due, at its due time, in order. */
  advance(ms: number): void {
    const end = this.time + Math.max(0, ms);
    for (;;) {
      const next = [...this.#timers].filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.#timers.delete(next);
      this.time = Math.max(this.time, next.due);
      next.fn();
    }
    this.time = end;
  }

  /** Timers not fired or cancelled yet. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** The total time slept. */
  get slept(): number {
    return this.sleeps.reduce((a, b) => a + b, 0);
  }
}
