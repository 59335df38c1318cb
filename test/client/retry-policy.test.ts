/**
 * The retry policy as a table: every kind of outcome, for idempotent and non-idempotent methods,
 * with retries left and spent. The transport acts on exactly these decisions.
 */
import { describe, expect, it } from "vitest";
import {
  type Attempt,
  type Decision,
  decide,
  httpDateReader,
  type Outcome,
  parseRetryAfter,
  type RetryLimits,
} from "../../src/client/retry-policy";

const limits: RetryLimits = {
  maxRetries: 3,
  maxRateLimitRetries: 2,
  maxRateLimitWaitSeconds: 600,
  retryBaseDelayMs: 400,
  retryMaxDelayMs: 5_000,
};
const now = Date.parse("2026-01-01T00:00:00Z");
const fresh = (method: string): Attempt => ({ method, transientRetries: 0, rateLimitRetries: 0 });
const spent = (method: string): Attempt => ({ method, transientRetries: 3, rateLimitRetries: 2 });
const answer = (status: number, retryAfter?: string): Outcome => ({ kind: "answer", status, retryAfter, now });
const noAnswer: Outcome = { kind: "no-answer" };
/** A 429 whose `RateLimit-Reset` names its window's end `resetMs` from now (its `RateLimit-Remaining` 0). */
const reset = (resetMs: number, retryAfter?: string): Outcome => ({ kind: "answer", status: 429, retryAfter, now, resetMs });

describe("decide", () => {
  it.each<[string, Attempt, Outcome, Decision]>([
    ["200 to a GET is accepted", fresh("GET"), answer(200), { action: "accept" }],
    ["201 to a POST is accepted", fresh("POST"), answer(201), { action: "accept" }],
    ["204 to a DELETE is accepted", fresh("DELETE"), answer(204), { action: "accept" }],
    ["a 3xx fails (the client follows no redirect)", fresh("GET"), answer(302), { action: "fail", why: "error", retried: 0 }],
    ...[400, 401, 402, 403, 404, 409, 501].map((status): [string, Attempt, Outcome, Decision] => [
      `${status} fails at once, never retried`,
      fresh("GET"),
      answer(status),
      { action: "fail", why: "error", retried: 0 },
    ]),
    ["429 with Retry-After seconds waits that long", fresh("GET"), answer(429, "2"), { action: "wait", waitMs: 2000, given: true }],
    [
      "429 with an HTTP-date waits until then",
      fresh("GET"),
      answer(429, new Date(now + 7000).toUTCString()),
      { action: "wait", waitMs: 7000, given: true },
    ],
    [
      "429 without Retry-After waits the contract's five minutes",
      fresh("GET"),
      answer(429),
      { action: "wait", waitMs: 300_000, given: false },
    ],
    [
      "429 without Retry-After waits until its window's RateLimit-Reset",
      fresh("GET"),
      reset(4000),
      { action: "wait", waitMs: 4000, given: true, from: "RateLimit-Reset" },
    ],
    [
      "429 with Retry-After: 0 backs off as a 5xx does (a service under pressure), not resending at once",
      fresh("GET"),
      answer(429, "0"),
      { action: "wait", waitMs: 300, given: true, backoff: true },
    ],
    [
      "a second 429 with Retry-After: 0 backs off twice as long",
      { method: "GET", transientRetries: 0, rateLimitRetries: 1 },
      answer(429, "0"),
      { action: "wait", waitMs: 600, given: true, backoff: true },
    ],
    [
      "429 whose window's RateLimit-Reset is now backs off too",
      fresh("GET"),
      reset(0),
      { action: "wait", waitMs: 300, given: true, from: "RateLimit-Reset", backoff: true },
    ],
    [
      "429 with Retry-After waits that, whatever its RateLimit-Reset",
      fresh("GET"),
      reset(4000, "2"),
      { action: "wait", waitMs: 2000, given: true },
    ],
    [
      "429 whose RateLimit-Reset is past the cap fails at once, saying which header asked",
      fresh("GET"),
      reset(3_600_000),
      { action: "fail", why: "rate-limit-too-long", waitMs: 3_600_000, given: true, from: "RateLimit-Reset", holdMs: 0 },
    ],
    [
      "429 with an unreadable Retry-After waits five minutes",
      fresh("GET"),
      answer(429, "soon"),
      { action: "wait", waitMs: 300_000, given: false },
    ],
    [
      "429 to a POST waits too: the service did not carry it out",
      fresh("POST"),
      answer(429, "1"),
      { action: "wait", waitMs: 1000, given: true },
    ],
    [
      "429 asking for more than the cap fails at once, holding nothing back",
      fresh("GET"),
      answer(429, "601"),
      { action: "fail", why: "rate-limit-too-long", waitMs: 601_000, given: true, holdMs: 0 },
    ],
    [
      "429 with its retries spent fails, still holding the other requests for the wait",
      spent("GET"),
      answer(429, "3"),
      { action: "fail", why: "rate-limit-retries-spent", waitMs: 3000, given: true, holdMs: 3000 },
    ],
    [
      "429 asking to wait past its caller's end (a job's poll) fails, still holding the other requests for the wait",
      { ...fresh("GET"), leftMs: 2999 },
      answer(429, "3"),
      { action: "fail", why: "rate-limit-past-end", waitMs: 3000, given: true, holdMs: 3000 },
    ],
    [
      "429 whose wait ends by its caller's end is waited out",
      { ...fresh("GET"), leftMs: 3000 },
      answer(429, "3"),
      { action: "wait", waitMs: 3000, given: true },
    ],
    ["500 to a GET is retried after the first back-off step", fresh("GET"), answer(500), { action: "retry", delayMs: 300 }],
    [
      "503 to a PUT on its third retry backs off 2^2 steps",
      { ...fresh("PUT"), transientRetries: 2 },
      answer(503),
      { action: "retry", delayMs: 1200 },
    ],
    [
      "502 to a PATCH with its retries spent fails, saying how many",
      spent("PATCH"),
      answer(502),
      { action: "fail", why: "transient", retried: 3 },
    ],
    [
      "500 to a POST fails at once: it may have been carried out",
      fresh("POST"),
      answer(500),
      { action: "fail", why: "transient", retried: 0 },
    ],
    [
      "500 whose back-off would end past its caller's end (a job's poll) fails, saying the retry's wait",
      { ...fresh("GET"), leftMs: 299 },
      answer(500),
      { action: "fail", why: "transient-past-end", retried: 0, delayMs: 300 },
    ],
    [
      "503 whose Retry-After would end past its caller's end fails, saying what it asked",
      { ...fresh("GET"), leftMs: 1999 },
      answer(503, "2"),
      { action: "fail", why: "transient-past-end", retried: 0, delayMs: 2000, askedMs: 2000 },
    ],
    [
      "500 whose back-off ends by its caller's end is retried",
      { ...fresh("GET"), leftMs: 300 },
      answer(500),
      { action: "retry", delayMs: 300 },
    ],
    [
      "no answer whose back-off would end past its caller's end fails",
      { ...fresh("GET"), leftMs: 0 },
      noAnswer,
      { action: "fail", why: "transient-past-end", retried: 0, delayMs: 300 },
    ],
    ["no answer to a GET is retried", fresh("GET"), noAnswer, { action: "retry", delayMs: 300 }],
    ["no answer to a DELETE with its retries spent fails", spent("DELETE"), noAnswer, { action: "fail", why: "transient", retried: 3 }],
    [
      "no answer to a POST fails at once: it may have been carried out",
      fresh("POST"),
      noAnswer,
      { action: "fail", why: "transient", retried: 0 },
    ],
  ])("%s", (_name, attempt, outcome, decision) => {
    expect(decide(attempt, outcome, limits, () => 0.5)).toEqual(decision);
  });

  it("caps the back-off at retryMaxDelayMs, with half of it jitter", () => {
    const late = { ...fresh("GET"), transientRetries: 10 };
    const patient = { ...limits, maxRetries: 20 };
    expect(decide(late, answer(500), patient, () => 0)).toEqual({ action: "retry", delayMs: 2500 });
    expect(decide(late, answer(500), patient, () => 1)).toEqual({ action: "retry", delayMs: 5000 });
  });
});

describe("parseRetryAfter", () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ["0", 0],
    ["1.5", 1500],
    [" 12 ", 12_000],
    [new Date(now + 61_000).toUTCString(), 61_000],
    [new Date(now - 5_000).toUTCString(), 0],
    ["later", undefined],
    // Not dates long past (which would mean no wait at all): a negative delay is no answer, so the default wait holds.
    ["-1", undefined],
    ["-120", undefined],
    // Two headers a proxy joined: the first.
    ["10, 20", 10_000],
    // A sender's slips that undici's strict reader refuses and Date.parse reads: another weekday, "UTC", lower case.
    [new Date(now + 60_000).toUTCString().replace(/^\w{3}/, (day) => (day === "Mon" ? "Tue" : "Mon")), 60_000],
    [new Date(now + 60_000).toUTCString().replace("GMT", "UTC"), 60_000],
    [new Date(now + 60_000).toUTCString().toLowerCase(), 60_000],
  ])("%s gives %s ms", (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });

  describe("an HTTP-date in each of the three forms RFC 9110 has recipients accept, read as GMT in any time zone", () => {
    const at = Date.parse("1994-11-06T08:49:30Z");
    const forms = [
      ["IMF-fixdate", "Sun, 06 Nov 1994 08:49:37 GMT"],
      ["RFC 850", "Sunday, 06-Nov-94 08:49:37 GMT"],
      ["asctime", "Sun Nov  6 08:49:37 1994"],
    ] as const;
    it.each(["UTC", "America/New_York", "Asia/Kolkata"])("in TZ=%s", (tz) => {
      const before = process.env["TZ"];
      process.env["TZ"] = tz;
      try {
        // The zone took effect: asctime is not GMT to Date.parse there (but in UTC).
        if (tz !== "UTC") expect(Date.parse(forms[2][1])).not.toBe(at + 7000);
        for (const [, header] of forms) expect(parseRetryAfter(header, at)).toBe(7000);
        expect(parseRetryAfter("Wed Nov 16 08:49:37 1994", at)).toBe(10 * 24 * 3_600_000 + 7000);
      } finally {
        if (before === undefined) delete process.env["TZ"];
        else process.env["TZ"] = before;
      }
    });

    it("is undici's reader; should a release move it, an IMF-fixdate still reads (and no other form guessed at)", () => {
      expect(httpDateReader()).toBe(require("undici/lib/util/date").parseHttpDate);
      const moved = httpDateReader((id) => {
        throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      });
      expect(moved(forms[0][1])?.getTime()).toBe(at + 7000);
      expect(moved(forms[2][1])).toBeUndefined();
      expect(moved("-1")).toBeUndefined();
    });
  });
});
