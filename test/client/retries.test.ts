import { describe, expect, it } from "vitest";
import {
  ConflictError,
  ConnectionError,
  InvalidResponseError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from "../../src/client";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator/index";
import { clientFor, clockOf, emulator, issuedKeys, rejection } from "../support/fixtures";
import { clientOf, oddServer } from "../support/odd-server";
import { SELF_SIGNED } from "../support/self-signed";
import { VirtualClock } from "../support/virtual-clock";

const { youtube } = DEFAULT_IDS.integrations;
const { grace } = DEFAULT_IDS.users;
const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe", role: "workspace_login_only" };

describe("429 rate limits", () => {
  it("waits Retry-After seconds on the injected clock, then succeeds", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", method: "POST", status: 429, headers: { "Retry-After": "2" } });
    const { client, clock } = clientFor(emu);
    await client.users.create(alice);
    expect(clock.sleeps).toEqual([2000]);
    expect(emu.requests.map((r) => r.status)).toEqual([429, 201]);
    expect(emu.users.list()).toHaveLength(1);
  });

  it("waits until an HTTP-date Retry-After", async () => {
    const emu = await emulator();
    const { client, clock } = clientFor(emu);
    emu.fault({ path: "/users", status: 429, headers: { "Retry-After": new Date(clock.now() + 7000).toUTCString() } });
    await client.users.list().next();
    expect(clock.slept).toBe(7000);
  });

  it("waits the contract's five minutes when Retry-After is absent", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429 });
    const { client, clock } = clientFor(emu);
    await client.users.list().next();
    expect(clock.sleeps).toEqual([300_000]);
  });

  it.each<[string, Record<string, string>, number]>([
    ["RateLimit-Reset in seconds, Remaining 0", { "RateLimit-Remaining": "0", "RateLimit-Reset": "5" }, 5000],
    ["X-RateLimit-Reset, Remaining absent", { "X-RateLimit-Reset": "7" }, 7000],
    ["RateLimit-Reset beside Retry-After: Retry-After says", { "RateLimit-Reset": "5", "Retry-After": "2" }, 2000],
    [
      "RateLimit-Reset with requests still Remaining: not this window's 429, five minutes",
      { "RateLimit-Remaining": "3", "RateLimit-Reset": "5" },
      300_000,
    ],
  ])("a 429 without Retry-After whose RateLimit-Reset says when its window resets waits until then (%s)", async (_, headers, waited) => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429, headers });
    const { client, clock } = clientFor(emu);
    await client.users.list().next();
    expect(clock.sleeps).toEqual([waited]);
    expect(emu.requests.map((r) => r.status)).toEqual([429, 200]);
  });

  it("a RateLimit-Reset given as an epoch time is read on the service's clock; one past the cap fails at once, naming it", async () => {
    const emu = await emulator();
    const { client, clock } = clientFor(emu, { maxRateLimitWaitSeconds: 60 });
    const date = new Date(clock.now() - 600_000);
    const epoch = (ms: number) => String(Math.round((date.getTime() + ms) / 1000));
    emu.fault({ path: "/users", status: 429, headers: { Date: date.toUTCString(), "RateLimit-Reset": epoch(4000) } });
    await client.users.list().next();
    expect(clock.sleeps).toEqual([4000]);
    emu.fault({ path: "/users", status: 429, headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": "3600" } });
    const error = await rejection(client.users.list().next());
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error.message).toContain("answered 429 (rate limited) with RateLimit-Reset: 3600 s, longer than maxRateLimitWaitSeconds (60 s)");
    expect(clock.sleeps).toEqual([4000]);
  });

  it("fails fast when the wait is longer than maxRateLimitWaitSeconds, naming the setting and the five-minute rule", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429 });
    const { client, clock } = clientFor(emu, { maxRateLimitWaitSeconds: 10 });
    const error = await rejection(client.users.list().next());
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/five minutes \(300 s\).*maxRateLimitWaitSeconds \(10 s\)/);
    expect(clock.slept).toBe(0);
  });

  it("a 429 asking for no wait backs off no longer than maxRateLimitWaitSeconds allows: the service named no wait to refuse", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429, headers: { "Retry-After": "0" }, times: 4 });
    // The back-off (500 ms, doubling) would pass 1 s at its third step: a wait the service never asked for.
    const { client, clock } = clientFor(emu, { maxRateLimitWaitSeconds: 1 });
    await client.users.list().next();
    expect(emu.requests.map((r) => r.status)).toEqual([429, 429, 429, 429, 200]);
    expect(clock.sleeps).toEqual([375, 750, 1000, 1000]);
  });

  it("a 429 asking for no wait, under maxRateLimitWaitSeconds: 0, fails at once: sent again at once, each request would storm the service", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429, headers: { "Retry-After": "0" }, times: 100 });
    const { client, clock } = clientFor(emu, { maxRateLimitWaitSeconds: 0 });
    const error = await rejection(client.users.list().next());
    expect(emu.requests.map((r) => r.status)).toEqual([429]);
    expect(clock.slept).toBe(0);
    expect(error.message).toContain("answered 429 (rate limited) with Retry-After: 0 s, after which the client backs off");
    expect(error.message).toContain("(0 s)");
    expect(error.message).not.toContain("backs off 0 s");
  });

  it("gives up after maxRateLimitRetries waits", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429, headers: { "Retry-After": "1" }, times: 5 });
    const { client } = clientFor(emu, { maxRateLimitRetries: 2 });
    const error = await rejection(client.users.list().next());
    expect(error.message).toContain("maxRateLimitRetries");
    expect(emu.requests).toHaveLength(3);
  });

  it("holds the client's next request for Retry-After even when the 429'd request gives up", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429, headers: { "Retry-After": "2" } });
    const { client, clock } = clientFor(emu, { maxRateLimitRetries: 0 });
    const error = await rejection(client.users.list().next());
    expect(RateLimitError.isInstance(error)).toBe(true);
    const failedAt = clock.now();
    await client.users.list().next();
    const sentAt = clock.now();
    // The second request reached the service only after the 2 s the service asked for.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(["GET /users 429", "GET /users 200"]);
    expect(sentAt - failedAt).toBe(2000);
    expect(clock.sleeps).toEqual([2000]);
  });

  it("a wait beyond maxRateLimitWaitSeconds fails at once, and does not hold the client's next request for it", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 429 }); // no Retry-After: the contract's 300 s
    const { client, clock } = clientFor(emu, { maxRateLimitWaitSeconds: 10 });
    const error = await rejection(client.users.list().next());
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(clock.slept).toBe(0);
    await client.users.list().next();
    expect(emu.requests.map((r) => r.status)).toEqual([429, 200]);
    // Only the pacer's window learnt from the 429 (about a second), neither the cap nor the 300 s.
    expect(clock.slept).toBeLessThan(2000);
  });
});

describe("transient failures", () => {
  it.each(["GET", "PUT", "DELETE"] as const)("retries %s after a reset socket and 502/503/504, with back-off", async (method) => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.fault({ method, path: `/users/${user.id}`, reset: true });
    emu.fault({ method, path: `/users/${user.id}`, status: 502 });
    emu.fault({ method, path: `/users/${user.id}`, status: 503 });
    emu.fault({ method, path: `/users/${user.id}`, status: 504 });
    const { client, clock } = clientFor(emu);
    if (method === "GET") await client.users.get(user.id);
    if (method === "PUT") await client.users.replace(user.id, { ...alice, lastName: "Roe" });
    if (method === "DELETE") await client.users.delete(user.id);
    expect(emu.requests.map((r) => r.status)).toEqual([0, 502, 503, 504, method === "DELETE" ? 204 : 200]);
    // base 500 ms doubling, jitter fixed at 0.5: 375, 750, 1500, 3000
    expect(clock.sleeps).toEqual([375, 750, 1500, 3000]);
  });

  it("a 503 with Retry-After is asked again no sooner than it says; one beyond retryMaxDelayMs fails at once, saying so", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": "20" } });
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": "0" } });
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": "3600" } });
    const { client, clock } = clientFor(emu, { retryMaxDelayMs: 60_000 });
    const error = await rejection(client.users.list().next());
    expect(emu.requests.map((r) => r.status)).toEqual([503, 503, 503]);
    // 20 s as asked; "0" leaves the back-off (750 ms at the second try); an hour is longer than the 60 s a wait may last.
    expect(clock.sleeps).toEqual([20_000, 750]);
    expect(ServerError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "It asked to be called again in 3600 s (Retry-After), longer than a retry waits, retryMaxDelayMs (60000 ms): run again later, or raise",
    );
    await client.users.list().next();
    expect(emu.requests.map((r) => r.status)).toEqual([503, 503, 503, 200]);
  });

  it("by default a retry waits at most 20 s (retryMaxDelayMs): a 503 asking two minutes fails at once, waiting nothing", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": "120" } });
    const { client, clock } = clientFor(emu);
    const error = await rejection(client.users.list().next());
    expect(clock.sleeps).toEqual([]);
    expect(emu.requests).toHaveLength(1);
    expect(error.message).toContain("longer than a retry waits, retryMaxDelayMs (20000 ms): run again later, or raise that setting");
  });

  it("stops after maxRetries with an error that says so", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", status: 503, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 2 });
    const error = await rejection(client.users.list().next());
    expect(ServerError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Gave up after 2 retries (maxRetries)");
    expect(emu.requests).toHaveLength(3);
  });

  it("raises a TimeoutError when no answer comes within requestTimeoutSeconds", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", delayMs: 1500 });
    const { client } = clientFor(emu, { requestTimeoutSeconds: 0.001, maxRetries: 0 });
    const error = await rejection(client.users.list().next());
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("requestTimeoutSeconds");
  });

  describe("requestTimeoutSeconds bounds the whole exchange, not each gap between chunks", () => {
    // A valid answer's start, then one space (JSON whitespace) at every turn of the event loop, each 200 ms of the test's
    // clock, its end 4 s of that clock after the request came: never idle, and on the clock the client's timeout runs on.
    const trickle = async (clock: VirtualClock) =>
      oddServer((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"data":{"id":"u1","type":"user","attributes":{}}');
        const end = clock.setTimer(() => res.end("}"), 4000);
        const drip = setInterval(() => {
          res.write(" ");
          clock.advance(200);
        }, 1);
        res.on("close", () => {
          clearInterval(drip);
          end();
        });
      });

    it("a GET whose answer trickles in fails with a TimeoutError after the timeout, and is retried as a timeout is", async () => {
      const clock = new VirtualClock({ requestTimers: true });
      const server = await trickle(clock);
      const { client } = clientOf(server, { requestTimeoutSeconds: 1, maxRetries: 1, clock });
      const error = await rejection(client.users.get("u1"));
      // Two attempts of 1 s each (the back-off between them slept), not the 4 s the server takes to finish.
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect(error.message).toContain("GET /api/v1/users/u1 got no complete answer within 1 s (requestTimeoutSeconds).");
      expect(error.message).toContain("Gave up after 1 retries (maxRetries)");
      expect(server.received).toEqual(["GET /api/v1/users/u1", "GET /api/v1/users/u1"]);
      expect(clock.sleeps).toEqual([375]);
    });

    it("a POST whose answer trickles in is not sent again: the error says it may or may not have been carried out", async () => {
      const clock = new VirtualClock({ requestTimers: true });
      const server = await trickle(clock);
      const { client } = clientOf(server, { requestTimeoutSeconds: 1, clock });
      const error = await rejection(client.integrations.invite("i1", { userIds: ["u1"], entitlements: [] }));
      expect(TimeoutError.isInstance(error)).toBe(true);
      expect(error.message).toContain("may or may not have been carried out");
      expect(server.received).toEqual(["POST /api/v1/integrations/i1/users"]);
    });
  });

  it("an untrusted (self-signed) certificate fails at once, not retried, saying so and how to trust it", async () => {
    const server = await oddServer((_req, res) => res.end("{}"), SELF_SIGNED);
    const { client, clock } = clientOf(server);
    const error = await rejection(client.users.get("u1"));
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ retryable: false });
    const origin = new URL(server.url).origin;
    expect(error.message).toContain(
      `GET /api/v1/users/u1 was not sent: the server's certificate at ${origin} is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    );
    expect(error.message).toContain("NODE_EXTRA_CA_CERTS");
    expect(error.message).not.toContain("reachable");
    // One handshake, no request, no back-off.
    expect(server.connections).toBe(1);
    expect(server.received).toEqual([]);
    expect(clock.sleeps).toEqual([]);
  });

  it("raises a ConnectionError naming the host when nothing listens", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu, { maxRetries: 1 });
    await emu.close();
    const error = await rejection(client.users.list().next());
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error.message).toContain(new URL(emu.url).origin);
  });
});

describe("a DELETE whose answer was lost, answered 404 when sent again, is done (most likely by the one whose answer was lost)", () => {
  const lines = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`);

  it.each([
    ["a reset socket", { reset: true }, 0],
    ["a gateway's 502", { status: 502, body: "Bad Gateway" }, 502],
  ])("a user's, after %s once the service had deleted it: resolves, the user read back gone", async (_, fault, first) => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.fault({ method: "DELETE", path: `/users/${user.id}`, afterHandling: true, ...fault });
    const logged: string[] = [];
    const { client, clock } = clientFor(emu, { logger: (m) => logged.push(m) });
    await client.users.delete(user.id);
    expect(emu.users.get(user.id)).toBeUndefined();
    // The DELETE sent again, the address's proof (nothing had answered yet), and the user's read: gone.
    expect(lines(emu)).toEqual([`DELETE /users/:id ${first}`, "DELETE /users/:id 404", "GET /users 200", "GET /users/:id 404"]);
    expect(clock.sleeps).toEqual([375]);
    expect(logged.at(-1)).toContain(`DELETE /api/v1/users/${user.id}: 404 after an attempt without a final answer`);
  });

  it("a member's, whose job the service had done: a handle with no job to wait for", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 0 } });
    const { client } = clientFor(emu);
    emu.fault({ method: "DELETE", path: `/integrations/${youtube}/users/${grace}`, reset: true, afterHandling: true });
    const job = await client.integrations.removeUser(youtube, grace);
    expect(job.id).toBeNull();
    expect(await job.wait()).toBeNull();
    expect(emu.integrations.members(youtube).some((m) => m.userId === grace)).toBe(false);
    expect(lines(emu).filter((l) => l.startsWith("DELETE"))).toEqual([
      "DELETE /integrations/:id/users/:id 0",
      "DELETE /integrations/:id/users/:id 404",
    ]);
  });

  it("a DELETE answered 404 at its first attempt still raises NotFoundError: nothing this client sent deleted it", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.users.remove(user.id);
    const { client } = clientFor(emu);
    const error = await rejection(client.users.delete(user.id));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain("The write was not done.");
  });

  it("a DELETE answered 429 and then 404 still raises NotFoundError: a 429 is a final answer (nothing was done)", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.users.remove(user.id);
    emu.fault({ method: "DELETE", path: `/users/${user.id}`, status: 429, headers: { "Retry-After": "1" } });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.delete(user.id));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(emu.requests.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([429, 404]);
  });

  it("a 404 when sent again whose record its read finds there is still refused, not taken as done", async () => {
    const key = `wa_no_user_writes_${"5".repeat(16)}`;
    issuedKeys.add(key);
    const emu = await emulator({ keys: { [key]: ALL_SCOPES.filter((s) => s !== "write:users") }, missingScopeStatus: 404 });
    const user = emu.users.add(alice);
    emu.fault({ method: "DELETE", path: `/users/${user.id}`, reset: true });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.users.delete(user.id));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(emu.users.get(user.id)).toBeDefined();
  });
});

describe("a PUT or PATCH sent again after an attempt without a final answer, answered 404 with its record gone", () => {
  // What is known: the record is gone. Whether the attempt without an answer landed before it went is not.
  const unknown =
    /This attempt was not done; an earlier one got no final answer \(none, or a 5xx\), and whether it landed before .+ went is not known\./;

  it("a user's PUT: NotFoundError, not saying the write was not done", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.users.remove(user.id);
    emu.fault({ method: "PUT", path: `/users/${user.id}`, reset: true });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.replace(user.id, { ...alice, firstName: "Alicia" }));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(unknown);
    expect(error.message).not.toContain("The write was not done");
    expect(emu.requests.filter((r) => r.method === "PUT").map((r) => r.status)).toEqual([0, 404]);
  });

  it("a member's PATCH after a 502, once a write of its kind answered this key: says the same", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    await client.integrations.setEntitlements(youtube, grace, ["VIEWER"]);
    emu.integrations.removeMember(youtube, grace);
    emu.fault({ method: "PATCH", path: `/integrations/${youtube}/users/${grace}`, status: 502, body: "Bad Gateway" });
    const error = await rejection(client.integrations.setEntitlements(youtube, grace, ["EDITOR"]));
    expect(error.message).toMatch(unknown);
    expect(error.message).not.toContain("The write was not done");
  });

  it("answered 404 at its first attempt, it still says the write was not done", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.users.remove(user.id);
    const { client } = clientFor(emu);
    const error = await rejection(client.users.replace(user.id, alice));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain("The write was not done.");
    expect(error.message).not.toMatch(unknown);
  });
});

describe("POST user create is never blindly re-sent", () => {
  it("a reset after the server created the user: found by email, no duplicate", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", reset: true, afterHandling: true });
    const { client } = clientFor(emu);
    const user = await client.users.create(alice);
    expect(user.email).toBe(alice.email);
    expect(emu.users.list()).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a reset before the server handled it: looked up (a miss searched again to prove it), then sent again once", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", reset: true });
    const { client } = clientFor(emu);
    await client.users.create(alice);
    expect(emu.users.list()).toHaveLength(1);
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users", "GET /users", "GET /users", "POST /users"]);
  });

  it("a 503 on POST whose lookup fails too: the POST's error, saying it may have landed, names the lookup's failure", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", status: 503 });
    emu.fault({ method: "GET", path: "/users", status: 503, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 0 });
    const error = await rejection(client.users.create(alice));
    expect(ServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ method: "POST", status: 503 });
    expect(error.message).toContain("The request may or may not have been carried out.");
    expect(error.message).toContain(
      `Whether it created ${alice.email} is not known: looking the email up failed (GET /api/v1/users answered 503`,
    );
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users", "GET /users"]);
  });

  it("a 503 on POST with Retry-After: sent again no sooner than it asks; one beyond retryMaxDelayMs, not sent again", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", status: 503, headers: { "Retry-After": "20" } });
    emu.fault({ method: "POST", path: "/users", status: 503, headers: { "Retry-After": "3600" } });
    const { client, clock } = clientFor(emu, { retryMaxDelayMs: 60_000 });
    const error = await rejection(client.users.create(alice));
    // 20 s as asked before the second POST; the hour the second asks is longer than a wait may last: looked up, then it fails.
    expect(clock.sleeps).toEqual([20_000]);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "POST /users 503",
      "GET /users 200",
      "GET /users 200",
      "POST /users 503",
      "GET /users 200",
      "GET /users 200",
    ]);
    expect(ServerError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "It asked to be called again in 3600 s (Retry-After), longer than a retry waits, retryMaxDelayMs (60000 ms): run again later.",
    );
    expect(emu.users.list()).toHaveLength(0);
  });

  it("a 503 on POST: the email is looked up, and its absence proven by a second search, before any new POST", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", status: 503 });
    const { client } = clientFor(emu);
    await client.users.create(alice);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "POST /users 503",
      "GET /users 200",
      "GET /users 200",
      "POST /users 201",
    ]);
  });
});

describe("invalid responses", () => {
  it("names the endpoint and the failing field", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    emu.fault({
      path: `/users/${user.id}`,
      body: JSON.stringify({ data: { id: user.id, type: "user", attributes: { email: 42, firstName: "A", lastName: "B", role: "x" } } }),
    });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.get(user.id));
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: "data.attributes.email", status: 200 });
    expect(error.message).toContain(`GET /api/v1/users/${user.id} answered 200`);
    expect(error.message).toContain('field "data.attributes.email"');
  });

  it("says when the body is not JSON", async () => {
    const emu = await emulator();
    emu.fault({ path: "/users", body: "<html>oops</html>" });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.list().next());
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect(error.message).toContain("not JSON");
  });

  it("refuses a links.next that points at another host (the key stays home)", async () => {
    const emu = await emulator();
    emu.fault({
      path: "/users",
      body: JSON.stringify({
        data: [],
        links: { self: "/api/v1/users", next: "https://evil.example/api/v1/users?page%5Bnumber%5D=2", previous: null },
        meta: { page: { maxSize: 100, total: 1 } },
      }),
    });
    emu.fault({
      path: "/users",
      body: JSON.stringify({
        data: [{ id: "u1", type: "user", attributes: { email: "a@b.c", firstName: "A", lastName: "B", role: "r" } }],
        links: { self: "/api/v1/users", next: "https://evil.example/api/v1/users?page%5Bnumber%5D=2", previous: null },
        meta: { page: { maxSize: 100, total: 2 } },
      }),
    });
    const { client } = clientFor(emu);
    const items = client.users.list();
    await items.next(); // first page: an empty page ends the list
    const again = client.users.list();
    await again.next(); // second fault: one user
    const error = await rejection(again.next());
    expect(error.message).toContain("Refusing to follow a link to https://evil.example");
  });
});

describe("a create never takes over, or repeats, what it cannot prove is its own", () => {
  it("an ambiguous failure followed by a user that existed before: ConflictError, not a silent take-over", async () => {
    const emu = await emulator();
    emu.users.add(alice);
    emu.fault({ method: "POST", path: "/users", status: 503 });
    const { client, clock } = clientFor(emu);
    clock.advance(3_600_000); // the request began an hour after the user was created
    const error = await rejection(client.users.create(alice));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(error.message).toContain("already existed before it");
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a success without a body whose user, read back by email, existed before the request: ConflictError, not this stack's", async () => {
    const emu = await emulator();
    const before = emu.users.add(alice);
    // A service that merges a POST for a taken email instead of answering 409 (the contract's answer).
    emu.fault({ method: "POST", path: "/users", status: 204, body: "" });
    const { client, clock } = clientFor(emu);
    clock.advance(3_600_000);
    const error = await rejection(client.users.create(alice));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      `POST users answered without a body, and a user with the email ${alice.email} already existed before it`,
    );
    expect(error.message).toContain(before.id);
  });

  it("two users whose emails differ only in case: the lookup by email names both instead of picking one", async () => {
    const emu = await emulator();
    const record = (id: string, email: string) => ({ id, type: "user", attributes: { email, firstName: "Alice", lastName: "Doe" } });
    const first = { id: "00000000-0000-4000-8000-0000000000e1" };
    const second = { id: "00000000-0000-4000-8000-0000000000e2" };
    // A service that lets two emails differ only in case (the emulator does not).
    const page = { data: [record(first.id, alice.email), record(second.id, "Alice@Example.com")], links: {}, meta: { page: { total: 2 } } };
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify(page) });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.findByEmail("ALICE@example.com"));
    expect(error.message).toContain("2 users have the email ALICE@example.com, differing only in case");
    expect(error.message).toContain(first.id);
    expect(error.message).toContain(second.id);
  });

  it("a search for the email that finds a record it cannot read proves no absence: the lookup fails naming it", async () => {
    const emu = await emulator();
    const odd = { id: "00000000-0000-4000-8000-0000000000e3", type: "user", attributes: { email: alice.email, isGuest: "false" } };
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify({ data: [odd], links: {}, meta: { page: { total: 1 } } }), times: 3 });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.findByEmail(alice.email));
    expect(error.message).toContain(`Could not prove that no user has the email ${alice.email}: GET /users?filter= found 1 record(s)`);
    expect(error.message).toContain(odd.id);
  });

  it("a POST that timed out and landed late: the 409 of the POST sent again finds the user it made, created since it began", async () => {
    const emu = await emulator();
    // The service takes the first POST in only when the client has given up on it (its timeout is real time, the emulator's
    // delay virtual): it creates the user during the client's back-off, after the search found nobody.
    emu.fault({ method: "POST", path: "/users", delayMs: 1 });
    // One real second: the first POST waits it out whole; every other request has that long to be answered, on a loaded machine too.
    const { client } = clientFor(emu, { requestTimeoutSeconds: 1 });
    const user = await client.users.create(alice);
    expect(emu.users.list().map((u) => u.id)).toEqual([user.id]);
    // The first POST's answer went to a socket the client had closed (its status is not recorded).
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /users",
      "GET /users",
      "GET /users",
      "POST /users",
      "GET /users",
    ]);
    expect(emu.requests[3]?.status).toBe(409);
  });

  it("a 409 of the POST sent again whose lookup fails: the 409 stands, saying the POST before it may have made the user", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", status: 503 });
    // During the back-off the email is taken (the first POST landing late, as far as the client can tell), and searches fail.
    const logger = (message: string) => {
      if (!message.includes("nothing was created")) return;
      emu.users.add(alice);
      emu.fault({ method: "GET", path: "/users", status: 503, times: 10 });
    };
    const { client } = clientFor(emu, { maxRetries: 1, logger });
    const error = await rejection(client.users.create(alice));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      `A POST sent before it failed without an answer and may have created ${alice.email}: looking the email up failed (GET /api/v1/users answered 503`,
    );
  });

  it("so does the failed job of the POST sent again, when the first one's job made the user (a service answering with jobs)", async () => {
    const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterMs: 5 } });
    emu.fault({ method: "POST", path: "/users", delayMs: 1 });
    const { client } = clientFor(emu, { requestTimeoutSeconds: 1 });
    const user = await client.users.create(alice);
    expect(emu.users.list().map((u) => u.id)).toEqual([user.id]);
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(2);
    // The first POST's job made the user; that of the POST sent again found the email taken.
    expect(emu.jobs.list().map((j) => j.status)).toEqual(["finished", "error"]);
  });

  it("once the service answered with a job, failures while waiting never send the POST again", async () => {
    const emu = await emulator({ userWritesAsJobs: true });
    emu.fault({ method: "GET", path: /^\/jobs\//, status: 503, times: 2 });
    const { client } = clientFor(emu, { maxRetries: 1 });
    await rejection(client.users.create(alice));
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });
});

describe("a dated Retry-After is measured on the service's clock, not the client's (clockSkew)", () => {
  /** An HTTP date `seconds` after the service's clock reads now: `clockSkew` seconds off the client's. */
  const serviceDate = (emu: Emulator, seconds: number) =>
    new Date(clockOf(emu).now() + ((emu.quirks.clockSkew ?? 0) + seconds) * 1000).toUTCString();
  const statuses = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`);

  it.each([-600, 600])(
    "%i s: a 429 of the rate limit asking 30 s by a date, beside its Date, is waited 30 s of the client's clock, then served",
    async (clockSkew) => {
      const rateLimit = { requests: 1, windowMs: 30_000, retryAfter: "date" } as const;
      const emu = await emulator({ quirks: { clockSkew }, rateLimit });
      const { client, clock } = clientFor(emu);
      await client.users.list().next();
      await client.users.list().next();
      // Behind, the date read on the client's clock is long past (no wait: the service is asked again at once, 429 after
      // 429); ahead, it is ten minutes more than it says (over maxRateLimitWaitSeconds: the run fails).
      expect(clock.sleeps).toEqual([30_000]);
      expect(statuses(emu)).toEqual(["GET /users 200", "GET /users 429", "GET /users 200"]);
    },
  );

  it.each([-600, 600])(
    "%i s: a 429 without Date asking 30 s by a date is measured by the offset an earlier answer's Date taught",
    async (clockSkew) => {
      const emu = await emulator({ quirks: { clockSkew } });
      const { client, clock } = clientFor(emu);
      await client.users.list().next();
      emu.fault({ path: "/users", status: 429, headers: { "Retry-After": serviceDate(emu, 30), Date: null } });
      await client.users.list().next();
      expect(clock.sleeps).toEqual([30_000]);
      expect(statuses(emu)).toEqual(["GET /users 200", "GET /users 429", "GET /users 200"]);
    },
  );

  it.each([
    [-600, "its Date", {}],
    [600, "its Date", {}],
    [-600, "no Date (the offset learnt)", { Date: null }],
    [600, "no Date (the offset learnt)", { Date: null }],
  ])("%i s: a 503 asking 10 s by a date, with %s, is asked again after 10 s of the client's clock", async (clockSkew, _how, date) => {
    const emu = await emulator({ quirks: { clockSkew } });
    const { client, clock } = clientFor(emu);
    await client.users.list().next();
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": serviceDate(emu, 10), ...date } });
    await client.users.list().next();
    // Behind, the back-off alone (375 ms); ahead, ten minutes more than a retry waits (retryMaxDelayMs): failed at once.
    expect(clock.sleeps).toEqual([10_000]);
    expect(statuses(emu)).toEqual(["GET /users 200", "GET /users 503", "GET /users 200"]);
  });

  it.each([-600, 600])(
    "%i s: a POST /users answered 503 asking 10 s by a date is sent again after 10 s of the client's clock",
    async (clockSkew) => {
      const emu = await emulator({ quirks: { clockSkew } });
      const { client, clock } = clientFor(emu);
      emu.fault({ method: "POST", path: "/users", status: 503, headers: { "Retry-After": serviceDate(emu, 10) } });
      await client.users.create(alice);
      expect(clock.sleeps).toEqual([10_000]);
      expect(statuses(emu)).toEqual(["POST /users 503", "GET /users 200", "GET /users 200", "POST /users 201"]);
      expect(emu.users.list()).toHaveLength(1);
    },
  );
});

describe("the service's clock is learnt from the API's answers only", () => {
  it("a 200 that is not the API's (a gateway's page, its own Date) teaches no offset: a later dated Retry-After without Date is waited in full", async () => {
    const emu = await emulator();
    const { client, clock } = clientFor(emu);
    await client.users.list().next();
    // A gateway's page, answered 200 with its own clock's Date, ten minutes ahead of the service's.
    const gateway = new Date(clockOf(emu).now() + 600_000).toUTCString();
    emu.fault({ path: "/users", status: 200, body: "<html>Signing you in...</html>", headers: { Date: gateway } });
    await rejection(client.users.list().next());
    const date = new Date(clockOf(emu).now() + 10_000).toUTCString();
    emu.fault({ path: "/users", status: 503, headers: { "Retry-After": date, Date: null } });
    await client.users.list().next();
    expect(clock.sleeps).toEqual([10_000]);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /users 200",
      "GET /users 200",
      "GET /users 503",
      "GET /users 200",
    ]);
  });
});
