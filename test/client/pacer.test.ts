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

  it("a request bounded by `until` is not held past it: it says how long it would be held, by what, and gives its place back", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 1);
    pacer.pause(5000);
    expect(await pacer.acquire(clock.now() + 4999)).toEqual({ heldMs: 5000, by: "429" });
    expect(clock.slept).toBe(0);
    // Within its bound, it waits as any other; its place was given back, so one of a single place goes.
    expect(await pacer.acquire(clock.now() + 5000)).toBe(0);
    expect(clock.sleeps).toEqual([5000]);
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

  describe("a limit learnt from a burst's first 429, whose answers come back in any order", () => {
    /** A pacer whose limits handed over to be remembered are collected (their counts), with a burst of `n` requests sent at once. */
    async function burst(clock: VirtualClock, n: number) {
      const remembered: number[] = [];
      const pacer = new Pacer(clock, 16, 0, (limit) => void remembered.push(limit.count));
      const tickets: number[] = [];
      for (let i = 0; i < n; i++) tickets.push(await pacer.acquire());
      /** Answers `ticket` as the transport does: its place released, then the answer observed. */
      const answer = (ticket: number | undefined, status = 200, headers: Record<string, string> = {}) => {
        pacer.release(ticket ?? -1);
        pacer.observe(status, headers, ticket);
      };
      return { pacer, remembered, tickets, answer };
    }

    it("rises by each request of the burst in flight at the 429 accepted after it, remembered when learnt and when all are answered", async () => {
      const clock = new VirtualClock();
      const { pacer, remembered, tickets, answer } = await burst(clock, 6);
      // The service took four of the six and refused two, but its answers come in another order: one accepted, the 429s, the rest.
      clock.time += 30;
      answer(tickets[0]);
      answer(tickets[4], 429);
      expect(pacer.limit?.count).toBe(1);
      answer(tickets[5], 429);
      expect(remembered).toEqual([1]);
      for (const ticket of tickets.slice(1, 4)) answer(ticket);
      expect(pacer.limit?.count).toBe(4);
      expect(remembered).toEqual([1, 4]);
    });

    it("a request sent after the 429 does not raise it, even answered in its window", async () => {
      const clock = new VirtualClock();
      const { pacer, remembered, tickets, answer } = await burst(clock, 4);
      clock.time += 100;
      answer(tickets[0]);
      answer(tickets[1]);
      clock.time += 900;
      answer(tickets[2], 429);
      expect(pacer.limit?.count).toBe(2);
      // The two accepted leave the window before the 429's own answer: one more fits under the limit, 200 ms later.
      clock.time += 200;
      const after = await pacer.acquire();
      expect(clock.slept).toBe(0);
      clock.time += 50;
      answer(after);
      expect(pacer.limit?.count).toBe(2);
      clock.time += 50;
      answer(tickets[3]);
      expect(pacer.limit?.count).toBe(3);
      expect(remembered).toEqual([2, 3]);
    });

    it("an answer accepted after the 429's window does not raise it: the learning is over, nothing more remembered", async () => {
      const clock = new VirtualClock();
      const { pacer, remembered, tickets, answer } = await burst(clock, 4);
      answer(tickets[0]);
      answer(tickets[1], 429);
      clock.time += 1000;
      answer(tickets[2]);
      expect(pacer.limit?.count).toBe(2);
      expect(remembered).toEqual([1]);
      clock.time += 1;
      answer(tickets[3]);
      expect(pacer.limit?.count).toBe(2);
      expect(remembered).toEqual([1, 2]);
    });

    it("a 429 for a request sent under it lowers it, and ends the rising", async () => {
      const clock = new VirtualClock();
      const { pacer, remembered, tickets, answer } = await burst(clock, 5);
      clock.time += 100;
      answer(tickets[0]);
      answer(tickets[1]);
      clock.time += 900;
      answer(tickets[2], 429);
      answer(tickets[3]);
      expect(pacer.limit?.count).toBe(3);
      clock.time += 200;
      const under = await pacer.acquire();
      expect(clock.slept).toBe(0);
      answer(under, 429);
      expect(pacer.limit?.count).toBe(2);
      answer(tickets[4]);
      expect(pacer.limit?.count).toBe(2);
      // Learnt (2), then lowered and confirmed (2): the rise to 3 was never remembered.
      expect(remembered).toEqual([2, 2]);
    });

    it("a limit the headers give replaces it, and does not rise", async () => {
      const clock = new VirtualClock();
      const { pacer, remembered, tickets, answer } = await burst(clock, 4);
      answer(tickets[0]);
      answer(tickets[1], 429);
      answer(tickets[2], 200, { "ratelimit-limit": "10", "ratelimit-reset": "1" });
      expect(pacer.limit?.count).toBe(10);
      answer(tickets[3]);
      expect(pacer.limit?.count).toBe(10);
      expect(remembered).toEqual([1, 10]);
    });
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

  it("reads a RateLimit-Reset in epoch seconds or milliseconds as a time, not as a delay of years", async () => {
    for (const unit of [1, 1000]) {
      const clock = new VirtualClock();
      clock.time = 1_800_000_000_000;
      const pacer = new Pacer(clock);
      pacer.observe(200, { "ratelimit-remaining": "0", "ratelimit-reset": String(((clock.time + 2000) / 1000) * unit) });
      await pacer.acquire();
      expect(clock.slept).toBe(2000);
    }
  });

  it("learns no window longer than ten minutes from the headers (a daily quota): the 429 path, bounded by its setting, waits", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock);
    pacer.observe(200, { "ratelimit-limit": "1000", "ratelimit-remaining": "0", "ratelimit-reset": "86400" });
    for (let i = 0; i < 3; i++) pacer.release(await pacer.acquire());
    expect(clock.slept).toBe(0);
    expect(pacer.limit).toBeUndefined();
  });

  it("a 429 before any answer of its own was accepted in the window learns nothing (another client used it up); one after does", () => {
    const clock = new VirtualClock();
    const remembered: unknown[] = [];
    const pacer = new Pacer(clock, Number.POSITIVE_INFINITY, 0, (limit) => remembered.push(limit));
    pacer.observe(429, {});
    pacer.observe(429, {});
    expect(pacer.limit).toBeUndefined();
    expect(pacer.rateLimited).toBe(2);
    // Answers accepted more than a second ago do not count either.
    pacer.observe(200, {});
    clock.time += 1500;
    pacer.observe(429, {});
    expect(pacer.limit).toBeUndefined();
    expect(remembered).toEqual([]);
    for (let i = 0; i < 5; i++) pacer.observe(200, {});
    pacer.observe(429, {});
    expect(pacer.limit).toEqual({ count: 5, windowMs: 1000 });
    // Not confirmed yet: it may be the share another client left of the window.
    expect(remembered).toEqual([{ count: 5, windowMs: 1000, source: "429" }]);
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

describe("a 429 caused by another client of the key", () => {
  it("a fresh client whose first answers are 429s (another client used the second) keeps the service's pace, not one a second", async () => {
    const emu = await emulator({ rateLimit: { requests: 20, windowMs: 1000 } });
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const other = clientFor(emu).client;
    await Promise.all(Array.from({ length: 20 }, () => other.users.get(user.id)));
    const { client, clock } = clientFor(emu, { maxConcurrency: 8 });
    const start = clock.now();
    await Promise.all(Array.from({ length: 100 }, () => client.users.get(user.id)));
    // The first 429s' Retry-After (a second), then 100 requests at 20 a second: about 6 s (at one a second, 100 s).
    expect(client.rateLimitedCount).toBeGreaterThan(0);
    expect(clock.now() - start).toBeLessThan(10_000);
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

describe("what the pacer hands over to be remembered", () => {
  /** A pacer whose limits worth remembering are collected in `remembered`. */
  function remembering(clock: VirtualClock) {
    const remembered: Array<{ count: number; windowMs: number; source: string }> = [];
    return { pacer: new Pacer(clock, Number.POSITIVE_INFINITY, 0, (limit) => remembered.push(limit)), remembered };
  }

  it("a limit learnt or lowered on a 429, or given by headers; nothing for answers that change nothing", async () => {
    const clock = new VirtualClock();
    const { pacer, remembered } = remembering(clock);
    for (let i = 0; i < 20; i++) pacer.observe(200, {});
    expect(remembered).toEqual([]);
    pacer.observe(429, {});
    expect(remembered).toEqual([{ count: 20, windowMs: 1000, source: "429" }]);
    clock.time += 2000;
    const ticket = await pacer.acquire();
    pacer.release(ticket);
    pacer.observe(429, {}, ticket);
    // Refused again while holding to it: confirmed as this client's own limit.
    expect(remembered.at(-1)).toEqual({ count: 18, windowMs: 1000, source: "429", confirmed: true });
    pacer.observe(200, { "ratelimit-limit": "30", "ratelimit-reset": "2" });
    pacer.observe(200, { "ratelimit-limit": "30", "ratelimit-reset": "2" });
    expect(remembered).toHaveLength(3);
    expect(remembered.at(-1)).toEqual({ count: 30, windowMs: 2000, source: "headers" });
    // The same count over a longer window is a new limit too.
    pacer.observe(200, { "ratelimit-limit": "30", "ratelimit-reset": "3" });
    expect(remembered).toHaveLength(4);
    expect(remembered.at(-1)).toEqual({ count: 30, windowMs: 3000, source: "headers" });
  });

  it("after a calm minute, the limit that minute confirmed, not the probe's untried one", () => {
    const clock = new VirtualClock();
    const { pacer, remembered } = remembering(clock);
    for (let i = 0; i < 10; i++) pacer.observe(200, {});
    pacer.observe(429, {});
    expect(pacer.limit?.count).toBe(10);
    clock.time += 60_000;
    pacer.observe(200, {});
    expect(pacer.limit?.count).toBe(11);
    // 10 was remembered already: nothing new to write.
    expect(remembered.map((l) => l.count)).toEqual([10]);
    clock.time += 60_000;
    pacer.observe(200, {});
    expect(pacer.limit?.count).toBe(12);
    expect(remembered.map((l) => l.count)).toEqual([10, 11]);
  });

  it("a seeded limit paces from the first request, and a 429 under it lowers it", async () => {
    const clock = new VirtualClock();
    const { pacer, remembered } = remembering(clock);
    pacer.seed({ count: 3, windowMs: 1000, source: "429" });
    expect(pacer.limit).toEqual({ count: 3, windowMs: 1000 });
    const start = clock.now();
    const tickets = [await pacer.acquire(), await pacer.acquire(), await pacer.acquire()];
    for (const ticket of tickets) pacer.release(ticket);
    await pacer.acquire();
    expect(clock.now() - start).toBe(1020);
    pacer.observe(429, {}, tickets[0]);
    expect(remembered).toEqual([{ count: 2, windowMs: 1000, source: "429", confirmed: true }]);
  });
});

describe("maxRequestsPerSecond", () => {
  /** The most requests the emulator received in any 1,000 ms, by its own log. */
  function busiestSecond(times: number[]): number {
    const sorted = [...times].sort((a, b) => a - b);
    let most = 0;
    for (let i = 0, j = 0; i < sorted.length; i++) {
      while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    return most;
  }

  it.each([1, 5, 12])(
    "the service receives at most %i requests in any second (and never answers 429 at that limit), 8 in flight",
    async (cap) => {
      const emu = await emulator({ rateLimit: { requests: cap, windowMs: 1000 } });
      const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
      const { client } = clientFor(emu, { maxConcurrency: 8, maxRequestsPerSecond: cap });
      await Promise.all(Array.from({ length: 40 }, () => client.users.get(user.id)));
      expect(emu.requests.map((r) => r.status)).toEqual(Array(40).fill(200));
      expect(busiestSecond(emu.requests.map((r) => r.at))).toBeLessThanOrEqual(cap);
    },
  );

  it("reaches the cap: one request at a time, 5 a second go in about 40 / 5 seconds", async () => {
    const emu = await emulator();
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const { client, clock } = clientFor(emu, { maxConcurrency: 1, maxRequestsPerSecond: 5 });
    const start = clock.now();
    for (let i = 0; i < 40; i++) await client.users.get(user.id);
    expect(busiestSecond(emu.requests.map((r) => r.at))).toBe(5);
    // Eight windows of five; each window lasts a second and the 2 % margin.
    expect(clock.now() - start).toBe(7 * 1020);
  });

  it("a request in flight holds its place under the cap until answered, and a second after (it may reach the service late)", async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, Number.POSITIVE_INFINITY, 2);
    const slow = [await pacer.acquire(), await pacer.acquire()];
    clock.time += 5000;
    // Five seconds later both are still in flight: a third waits for an answer, then a second.
    let sent = false;
    const third = pacer.acquire().then(() => {
      sent = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toBe(false);
    expect(clock.slept).toBe(0);
    pacer.release(slow[0]!);
    await third;
    expect(clock.slept).toBe(1020);
  });

  it("a request bounded by `until` waits for an answer to free a place till then, no longer: it says how long, and by what", async () => {
    const clock = new VirtualClock({ requestTimers: true });
    // Every place taken (maxInFlight 1): the next waits for its answer.
    const one = new Pacer(clock, 1);
    const busy = await one.acquire();
    const held = one.acquire(clock.now() + 3000);
    clock.advance(3000);
    expect(await held).toEqual({ heldMs: 3000, by: "connections", awaiting: true });
    // It took no place: the answer frees the one place for the next, which is sent.
    one.release(busy);
    expect(await one.acquire(clock.now() + 1)).toBe(1);
    // The cap's place held by requests in flight (2 a second, both unanswered): the same, by the cap.
    const capped = new Pacer(clock, Number.POSITIVE_INFINITY, 2);
    const slow = [await capped.acquire(), await capped.acquire()];
    const third = capped.acquire(clock.now() + 2000);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(2000);
    expect(await third).toEqual({ heldMs: 2000, by: "cap", awaiting: true });
    // Woken in time, it is sent, its timer cancelled.
    const fourth = capped.acquire(clock.now() + 5000);
    await new Promise((resolve) => setImmediate(resolve));
    capped.release(slow[0]!);
    expect(typeof (await fourth)).toBe("number");
    expect(clock.pendingTimers).toBe(0);
  });

  it("composes with the learnt limit: the lower wins", async () => {
    const emu = await emulator({ rateLimit: { requests: 10, windowMs: 1000 } });
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    // A cap above the service's limit: the limit learnt from the first 429s holds after them.
    const { client } = clientFor(emu, { maxConcurrency: 8, maxRequestsPerSecond: 50 });
    await Promise.all(Array.from({ length: 60 }, () => client.users.get(user.id)));
    const firstLimited = emu.requests.findIndex((r) => r.status === 429);
    expect(firstLimited).toBeGreaterThan(0);
    const after = emu.requests.slice(firstLimited).filter((r) => r.status === 200);
    expect(busiestSecond(after.map((r) => r.at))).toBeLessThanOrEqual(10);
    // A cap below it: the cap holds from the first request, and the service never answers 429.
    emu.setRateLimit({ requests: 10, windowMs: 1000 });
    emu.clearRequests();
    const before = emu.stats.rateLimited;
    const capped = clientFor(emu, { maxConcurrency: 8, maxRequestsPerSecond: 4 }).client;
    await Promise.all(Array.from({ length: 30 }, () => capped.users.get(user.id)));
    expect(emu.stats.rateLimited).toBe(before);
    expect(busiestSecond(emu.requests.map((r) => r.at))).toBeLessThanOrEqual(4);
  });
});

describe("a RateLimit-Reset given as an epoch time is measured on the service's clock (clockSkew)", () => {
  it.each([
    [-600, "its Date", {}],
    [600, "its Date", {}],
    [-600, "no Date (the offset learnt)", { Date: null }],
    [600, "no Date (the offset learnt)", { Date: null }],
  ])("%i s: a budget spent until 5 s on, with %s, holds the next request 5 s of the client's clock", async (clockSkew, _how, date) => {
    const emu = await emulator({ quirks: { clockSkew } });
    const { client, clock } = clientFor(emu);
    await client.users.list().next();
    const resetAt = (clock.now() + (clockSkew + 5) * 1000) / 1000;
    emu.fault({ path: "/users", headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": String(resetAt), ...date } });
    await client.users.list().next();
    await client.users.list().next();
    // Behind, the reset read on the client's clock is long past (no hold: the service is asked at once); ahead, ten
    // minutes more than it says, over the ten minutes a header may teach (ignored: no hold either).
    expect(clock.sleeps).toEqual([5000]);
    expect(emu.requests.map((r) => `${r.path} ${r.status} ${r.at - emu.requests[0]!.at}`)).toEqual([
      "/users 200 0",
      "/users 200 0",
      "/users 200 5000",
    ]);
  });
});
