import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, type RateLimit, startEmulator } from "../../src/emulator/index";
import { VirtualClock } from "../support/virtual-clock";
import { call, errorField } from "./helpers";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function statuses(e: Emulator, count: number, key?: string | null): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await call(e, "GET", "users", { key })).status);
  return seen;
}

describe("rate limit", () => {
  it("admits N requests per window per key, then answers 429 in the error shape", async () => {
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 3, windowMs: 60_000 }, keys: { other: ["read:users"] } });
    expect(await statuses(emulator, 4)).toEqual([200, 200, 200, 429]);
    const refused = await call(emulator, "GET", "users");
    expect(refused.json).toEqual({
      errors: [{ code: "Too many requests", title: "Too many requests", detail: expect.any(String), status: 429, meta: null }],
    });
    // Another key has its own window.
    expect(await statuses(emulator, 1, "other")).toEqual([200]);
    expect(emulator.stats).toEqual({ rateLimited: 2, requests: 6 });
  });

  it.each<[RateLimit["retryAfter"], RegExp | null]>([
    [undefined, /^60$/],
    ["seconds", /^60$/],
    ["date", /^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/],
    ["none", null],
  ])("with retryAfter %s, Retry-After is %s", async (retryAfter, pattern) => {
    const clock = new VirtualClock();
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 1, windowMs: 59_500, retryAfter }, clock });
    await call(emulator, "GET", "users");
    const refused = await call(emulator, "GET", "users");
    expect(refused.status).toBe(429);
    const header = refused.headers.get("retry-after");
    if (pattern === null) {
      expect(header).toBeNull();
    } else {
      expect(header).toMatch(pattern);
    }
    if (retryAfter === "date" && header !== null) {
      const wait = Date.parse(header) - clock.now();
      // 59.5 s from the virtual now, rounded up to the next whole second of the date.
      expect(wait).toBe(60_000);
    }
  });

  it("rounds Retry-After seconds up", async () => {
    // On the wall clock, a pause of 200 ms between the two requests (a busy machine) would leave under a second to wait.
    const clock = new VirtualClock();
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 1, windowMs: 1_200 }, clock });
    await call(emulator, "GET", "users");
    expect((await call(emulator, "GET", "users")).headers.get("retry-after")).toBe("2");
    // 1.001 s left is 2 s too.
    clock.advance(199);
    expect((await call(emulator, "GET", "users")).headers.get("retry-after")).toBe("2");
  });

  it("admits again once the window has slid past", async () => {
    const clock = new VirtualClock();
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 2, windowMs: 100 }, clock });
    expect(await statuses(emulator, 3)).toEqual([200, 200, 429]);
    clock.advance(99);
    expect(await statuses(emulator, 1)).toEqual([429]);
    clock.advance(1);
    expect(await statuses(emulator, 2)).toEqual([200, 200]);
  });

  it("records rate-limited requests with their status", async () => {
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 1, windowMs: 60_000 } });
    await statuses(emulator, 2);
    expect(emulator.requests.map((r) => [r.path, r.status])).toEqual([
      ["/users", 200],
      ["/users", 429],
    ]);
  });

  it("counts only requests with a valid key: a 401 spends nothing", async () => {
    emulator = await startEmulator({ seed: {}, rateLimit: { requests: 1, windowMs: 60_000 } });
    expect(await statuses(emulator, 2, "wa_emu_wrong")).toEqual([401, 401]);
    expect(await statuses(emulator, 1)).toEqual([200]);
  });

  it("can be set, changed and lifted while running", async () => {
    emulator = await startEmulator({ seed: {} });
    expect(await statuses(emulator, 3)).toEqual([200, 200, 200]);
    emulator.setRateLimit({ requests: 1, windowMs: 60_000 });
    expect(await statuses(emulator, 2)).toEqual([200, 429]);
    emulator.setRateLimit(null);
    expect(await statuses(emulator, 2)).toEqual([200, 200]);
    expect(emulator.stats.rateLimited).toBe(1);
  });

  it("lets a 429 be told apart from a faulted 429", async () => {
    emulator = await startEmulator({ seed: {} });
    emulator.fault({ path: "/users", status: 429, headers: { "Retry-After": "7" } });
    const answer = await call(emulator, "GET", "users");
    expect(answer.status).toBe(429);
    expect(answer.headers.get("retry-after")).toBe("7");
    expect(errorField(answer, "status")).toBe(429);
    expect(emulator.stats.rateLimited).toBe(0);
  });
});
