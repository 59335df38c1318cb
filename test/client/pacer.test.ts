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

  /** Sends one request through `pacer` and answers it `ms` later with `status` and `headers`. */
  async function send(clock: VirtualClock, pacer: Pacer, ms = 0, status = 200, headers: Record<string, string> = {}) {
    const ticket = await pacer.acquire();
    clock.time += ms;
    pacer.release(ticket);
    pacer.observe(status, headers, ticket);
    return ticket;
  }

  it("after a 429, holds requests to what the service accepted in the last second, per (slightly longer) second", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    for (let i = 0; i < 50; i++) await send(clock, pacer, 10);
    await send(clock, pacer, 0, 429);
    expect(pacer.limit).toEqual({ count: 50, windowMs: 1000 });
    pacer.pause(1000);
    clock.time += 2000;
    // The window is empty again: 50 go at once; the 51st waits until the first of them leaves
    // the window (1000 ms, with a 2 % margin: 1020 ms).
    const start = clock.now();
    const tickets: number[] = [];
    for (let i = 0; i < 50; i++) tickets.push(await pacer.acquire());
    expect(clock.now()).toBe(start);
    for (const ticket of tickets) pacer.release(ticket);
    await pacer.acquire();
    expect(clock.now() - start).toBe(1020);
  });

  it("counts a request from when it was answered, so a slow burst does not let the next window start early", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    await send(clock, pacer, 0, 200, { "ratelimit-limit": "3", "ratelimit-reset": "1" });
    clock.time += 5000;
    const start = clock.now();
    const burst = [await pacer.acquire(), await pacer.acquire(), await pacer.acquire()];
    // New connections: the service sees (and answers) them 300 ms after they were sent.
    clock.time += 300;
    for (const ticket of burst) pacer.release(ticket);
    await pacer.acquire();
    // Not at start + 1020 ms: the service may have counted them as late as their answer.
    expect(clock.now() - start).toBe(300 + 1020);
  });

  it("lowers a learnt limit on a 429 for a request sent under it, not for one sent before", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    const before: number[] = [];
    for (let i = 0; i < 20; i++) before.push(await pacer.acquire());
    for (const ticket of before) pacer.release(ticket);
    for (let i = 0; i < 10; i++) pacer.observe(200, {}, before[i]);
    pacer.observe(429, {}, before[10]);
    expect(pacer.limit?.count).toBe(10);
    // The rest of the burst was sent before the limit was learnt.
    for (let i = 11; i < 20; i++) pacer.observe(429, {}, before[i]);
    expect(pacer.limit?.count).toBe(10);
    clock.time += 2000;
    await send(clock, pacer, 0, 429);
    expect(pacer.limit?.count).toBe(9);
    expect(pacer.rateLimited).toBe(11);
  });

  it("takes the limit and window from RateLimit headers before any 429", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    const first = clock.now();
    await send(clock, pacer, 0, 200, { "ratelimit-limit": "5", "ratelimit-remaining": "4", "ratelimit-reset": "2" });
    expect(pacer.limit).toEqual({ count: 5, windowMs: 2000 });
    for (let i = 0; i < 4; i++) await send(clock, pacer);
    expect(clock.now()).toBe(first);
    // The sixth waits for the first to leave the 2 s window (+2 %).
    await pacer.acquire();
    expect(clock.now() - first).toBe(2040);
    expect(pacer.rateLimited).toBe(0);
  });

  it("holds requests back when RateLimit-Remaining reaches 0, until RateLimit-Reset, when no limit is given", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    pacer.observe(200, { "ratelimit-remaining": "0", "ratelimit-reset": "3" });
    await pacer.acquire();
    expect(clock.slept).toBe(3000);
  });

  it("allows one more request per window after a minute without a 429", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    pacer.observe(200, {});
    pacer.observe(429, {});
    expect(pacer.limit?.count).toBe(1);
    clock.time += 59_000;
    pacer.observe(200, {});
    expect(pacer.limit?.count).toBe(1);
    clock.time += 1_000;
    pacer.observe(200, {});
    expect(pacer.limit?.count).toBe(2);
  });
});

describe("pacing against the emulator's rate limit", () => {
  it("after the first 429s, concurrent requests stop hitting the limit", async () => {
    const emu = await emulator({ rateLimit: { requests: 40, windowMs: 1000 } });
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const { client } = clientFor(emu, { maxConcurrency: 8 });
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
    const { client } = clientFor(emu, { maxConcurrency: 8 });
    await Promise.all(Array.from({ length: 100 }, () => client.users.get(user.id)));
    expect(emu.requests.at(-1)?.status).toBe(200);
    expect(emu.stats.rateLimited).toBeLessThanOrEqual(2);
  });
});
