import type { Clock } from "../../src/client";

/**
 * A clock whose sleeps return at once and move time forward, recording every wait, so tests
 * assert exact waits (a 2 s Retry-After is a 2000 ms sleep) without waiting.
 */
export class VirtualClock implements Clock {
  time = Date.parse("2026-01-01T00:00:00Z");
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  async sleep(ms: number): Promise<void> {
    this.sleeps.push(ms);
    this.time += ms;
    // Let other requests in flight make progress, as real time would.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** The total time slept. */
  get slept(): number {
    return this.sleeps.reduce((a, b) => a + b, 0);
  }
}
