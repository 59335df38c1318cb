import { describe, expect, it } from "vitest";
import { Pacer } from "../../src/client/pacer";
import { clientFor, emulator } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

describe("Pacer", () => {
  it("is unpaced until the service says otherwise", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    for (let i = 0; i < 100; i++) await pacer.acquire();
    expect(clock.slept).toBe(0);
  });

  it("after a 429, spaces requests at 97% of what the service accepted in the last second", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    for (let i = 0; i < 50; i++) {
      await pacer.acquire();
      pacer.observe(200, {});
      clock.time += 10;
    }
    pacer.observe(429, {});
    expect(pacer.spacingMs).toBeCloseTo(1000 / 48.5, 5);
    const start = clock.now();
    for (let i = 0; i < 48; i++) await pacer.acquire();
    expect(clock.now() - start).toBeCloseTo(47 * (1000 / 48.5), 0);
  });

  it("holds requests back when RateLimit-Remaining reaches 0, until RateLimit-Reset", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    pacer.observe(200, { "ratelimit-remaining": "0", "ratelimit-reset": "3" });
    await pacer.acquire();
    expect(clock.slept).toBe(3000);
  });

  it("probes a little faster after ten calm seconds", () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    pacer.observe(200, {});
    pacer.observe(429, {});
    const spacing = pacer.spacingMs;
    clock.time += 10_000;
    pacer.observe(200, {});
    expect(pacer.spacingMs).toBeCloseTo(spacing * 0.95, 5);
  });
});

describe("pacing against the emulator's rate limit", () => {
  it("after the first 429s, concurrent requests stop hitting the limit", async () => {
    const emu = await emulator({ rateLimit: { requests: 40, windowMs: 1000 } });
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const { client } = clientFor(emu, { clock: undefined, maxConcurrency: 8 });
    const gets = Array.from({ length: 100 }, () => client.users.get(user.id));
    await Promise.all(gets);
    // The first burst finds the limit (at most the requests in flight then); after that, none.
    expect(emu.stats.rateLimited).toBeGreaterThan(0);
    expect(emu.stats.rateLimited).toBeLessThanOrEqual(8);
    expect(client.rateLimitedCount).toBe(emu.stats.rateLimited);
  });
});

describe("pacing from RateLimit headers", () => {
  it("holds back before the limit when the service sends RateLimit-Remaining, so almost no 429s", async () => {
    const emu = await emulator({ rateLimit: { requests: 40, windowMs: 1000, headers: true } });
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const { client } = clientFor(emu, { clock: undefined, maxConcurrency: 8 });
    await Promise.all(Array.from({ length: 100 }, () => client.users.get(user.id)));
    expect(emu.requests.at(-1)?.status).toBe(200);
    expect(emu.stats.rateLimited).toBeLessThanOrEqual(2);
  });
});
