import type { Clock } from "../client";

/** A short window gathering the calls that arrive together, so they can share one list request (the read cache, the lookups). */
export class BatchWindow {
  readonly #ms: number;
  readonly #clock: () => Clock;
  #joined = 0;
  #closing: Promise<number> | undefined;

  /** `clock` is asked when a window opens, so a test's virtual clock set later still counts. */
  constructor(ms: number, clock: () => Clock) {
    this.#ms = ms;
    this.#clock = clock;
  }

  /** Joins the open window (or opens one); resolves when it closes, to how many calls joined it. */
  join(): Promise<number> {
    this.#joined++;
    this.#closing ??= this.#clock()
      .sleep(this.#ms)
      .then(() => {
        const joined = this.#joined;
        this.#joined = 0;
        this.#closing = undefined;
        return joined;
      });
    return this.#closing;
  }
}
