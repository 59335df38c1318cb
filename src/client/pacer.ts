import type { Clock } from "./clock";

/**
 * Client-side pacing shared by every request of one client. When the service answers 429, every
 * request waits out the same pause instead of each one hammering the service on its own.
 */
export class Pacer {
  #resumeAt = 0;
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Resolves when a request may be sent. */
  async acquire(): Promise<void> {
    for (;;) {
      const wait = this.#resumeAt - this.#clock.now();
      if (wait <= 0) return;
      await this.#clock.sleep(wait);
    }
  }

  /** Holds every request back for `ms` from now (never shortens a pause already set). */
  pause(ms: number): void {
    this.#resumeAt = Math.max(this.#resumeAt, this.#clock.now() + ms);
  }
}
