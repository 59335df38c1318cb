import { describe, expect, it } from "vitest";
import { ServiceClock } from "../../src/client/service-clock";

const at = Date.parse("2026-01-01T00:00:00Z");
const date = (ms: number) => new Date(ms).toUTCString();

describe("ServiceClock.aheadFor: the offset an answer's dated headers are measured by", () => {
  it("is the answer's own Date first, else the offset learnt from a success, else 0 (the clocks taken to agree)", () => {
    const clock = new ServiceClock();
    expect(clock.aheadFor(undefined, at)).toBe(0);
    expect(clock.aheadFor("-1", at)).toBe(0);
    clock.observe(date(at - 600_000), at);
    expect(clock.aheadFor(undefined, at + 5000)).toBe(-600_000);
    expect(clock.aheadFor("not a date", at + 5000)).toBe(-600_000);
    expect(clock.aheadFor(date(at + 600_000), at)).toBe(600_000);
    // Reading an answer's own Date teaches nothing: only successes' (observe) move the offset learnt.
    expect(clock.aheadMs).toBe(-600_000);
  });
});
