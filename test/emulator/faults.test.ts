import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { VirtualClock } from "../support/virtual-clock";
import { at, call, errorField, TEAM, teamSeed, userBody } from "./helpers";

let emulator: Emulator;
let clock: VirtualClock;
beforeEach(async () => {
  clock = new VirtualClock();
  emulator = await startEmulator({ seed: teamSeed(), clock });
});
afterEach(() => emulator.close());

describe("status faults", () => {
  it.each([500, 502, 503, 402, 409])("answers %i with an error body in the contract's shape", async (status) => {
    emulator.fault({ path: "/users", status });
    const answer = await call(emulator, "GET", "users");
    expect(answer.status).toBe(status);
    expect(answer.json).toEqual({
      errors: [{ code: expect.any(String), title: expect.any(String), detail: expect.any(String), status, meta: null }],
    });
    expect((await call(emulator, "GET", "users")).status).toBe(200);
  });

  it("adds the fault's headers", async () => {
    emulator.fault({ path: "/users", status: 503, headers: { "Retry-After": "1" } });
    expect((await call(emulator, "GET", "users")).headers.get("retry-after")).toBe("1");
  });

  it("leaves out a header the fault gives null: { Date: null } answers without Date (RFC 9110 lets a 5xx), nor does Node add one", async () => {
    emulator.fault({ path: "/users", status: 503, headers: { "Retry-After": "1", Date: null } });
    emulator.fault({ path: "/users", headers: { date: null } });
    const refused = await call(emulator, "GET", "users");
    expect([refused.status, refused.headers.get("retry-after"), refused.headers.get("date")]).toEqual([503, "1", null]);
    const served = await call(emulator, "GET", "users");
    expect([served.status, served.headers.get("date")]).toEqual([200, null]);
    expect((await call(emulator, "GET", "users")).headers.get("date")).toBe(new Date(clock.now()).toUTCString());
  });

  it("applies before authentication", async () => {
    emulator.fault({ path: "/users", status: 500 });
    expect((await call(emulator, "GET", "users", { key: null })).status).toBe(500);
  });

  it("a status fault on a write keeps the write from happening", async () => {
    emulator.fault({ method: "POST", path: "/users", status: 500 });
    await call(emulator, "POST", "users", { body: userBody({ email: "never@example.com" }) });
    expect(emulator.users.findByEmail("never@example.com")).toBeUndefined();
  });
});

describe("raw body faults", () => {
  it.each([
    ["malformed JSON", '{"data": [', undefined, 200],
    ["a schema-breaking body", '{"data": "surprise"}', 200, 200],
    ["an HTML error page", "<html>Bad gateway</html>", 502, 502],
  ])("answers %s as-is", async (_label, body, status, expected) => {
    emulator.fault({ path: "/users", body, status });
    const answer = await call(emulator, "GET", "users");
    expect(answer.status).toBe(expected);
    expect(answer.text).toBe(body);
  });
});

describe("reset faults", () => {
  it("destroys the socket without answering, and the write does not happen", async () => {
    emulator.fault({ method: "POST", path: "/users", reset: true });
    await expect(call(emulator, "POST", "users", { body: userBody({ email: "lost@example.com" }) })).rejects.toThrow();
    expect(emulator.users.findByEmail("lost@example.com")).toBeUndefined();
    expect(emulator.requests.at(-1)).toMatchObject({ method: "POST", path: "/users", status: 0 });
  });

  it("with afterHandling, applies the write and then resets: the ambiguous failure", async () => {
    emulator.fault({ method: "POST", path: "/users", reset: true, afterHandling: true });
    await expect(call(emulator, "POST", "users", { body: userBody({ email: "ghost@example.com" }) })).rejects.toThrow();
    expect(emulator.users.findByEmail("ghost@example.com")).toBeDefined();
    expect(emulator.requests.at(-1)?.status).toBe(0);
    // A retry now conflicts, as it would against the real service.
    expect((await call(emulator, "POST", "users", { body: userBody({ email: "ghost@example.com" }) })).status).toBe(409);
  });

  it("with afterHandling on an integration write, the job exists even though its id never arrived", async () => {
    emulator.fault({ method: "DELETE", path: /^\/integrations\/[^/]+\/users\/[^/]+$/, reset: true, afterHandling: true });
    await expect(call(emulator, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.bob}`)).rejects.toThrow();
    expect(emulator.jobs.list()).toHaveLength(1);
  });

  it("a raw body with afterHandling applies the write and answers that body: a write that landed, its answer unreadable", async () => {
    emulator.fault({ method: "POST", path: "/users", status: 201, body: "Created", afterHandling: true });
    const res = await call(emulator, "POST", "users", { body: userBody({ email: "landed@example.com" }) });
    expect(res.status).toBe(201);
    expect(res.text).toBe("Created");
    expect(emulator.users.findByEmail("landed@example.com")).toBeDefined();
    // Without it, the body is answered and nothing is done.
    emulator.fault({ method: "POST", path: "/users", status: 201, body: "Created" });
    await call(emulator, "POST", "users", { body: userBody({ email: "not-landed@example.com" }) });
    expect(emulator.users.findByEmail("not-landed@example.com")).toBeUndefined();
  });

  it("the server keeps serving after a reset", async () => {
    emulator.fault({ path: "/users", reset: true });
    await expect(call(emulator, "GET", "users")).rejects.toThrow();
    expect((await call(emulator, "GET", "users")).status).toBe(200);
  });
});

describe("delay faults", () => {
  /** Resolves once the emulator is holding a request in a delay. */
  async function delayed(): Promise<void> {
    while (clock.pendingTimers === 0) await new Promise((resolve) => setImmediate(resolve));
  }

  it("wait before answering normally", async () => {
    emulator.fault({ path: "/users", delayMs: 120 });
    let answered = false;
    const answer = call(emulator, "GET", "users").finally(() => {
      answered = true;
    });
    await delayed();
    clock.advance(119);
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    clock.advance(1);
    expect((await answer).status).toBe(200);
  });

  it("wait before another effect", async () => {
    emulator.fault({ path: "/users", delayMs: 60, status: 504 });
    let answered = false;
    const answer = call(emulator, "GET", "users").finally(() => {
      answered = true;
    });
    await delayed();
    clock.advance(59);
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBe(false);
    clock.advance(1);
    expect((await answer).status).toBe(504);
  });

  it("can outlast a client's timeout: unanswered until its delay ends, and a client that gave up leaves it serving", async () => {
    emulator.fault({ path: "/users", delayMs: 2_000, times: 1 });
    const client = new AbortController();
    let settled = false;
    const answer = fetch(`${emulator.url}users`, { headers: { "X-API-Key": emulator.apiKey }, signal: client.signal }).finally(() => {
      settled = true;
    });
    await delayed();
    clock.advance(1_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    client.abort();
    await expect(answer).rejects.toThrow(/abort/i);
    // The delay ends with nobody to answer: the emulator goes on serving.
    clock.advance(1);
    expect((await call(emulator, "GET", "users")).status).toBe(200);
  });
});

describe("matching", () => {
  it("applies `times` times, then stops", async () => {
    emulator.fault({ path: "/users", status: 503, times: 2 });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await call(emulator, "GET", "users")).status);
    expect(seen).toEqual([503, 503, 200]);
  });

  it("matches the method when given", async () => {
    emulator.fault({ method: "post", path: "/users", status: 500 });
    expect((await call(emulator, "GET", "users")).status).toBe(200);
    expect((await call(emulator, "POST", "users", { body: userBody({ email: "m@example.com" }) })).status).toBe(500);
  });

  it("matches a RegExp against the decoded path after the prefix", async () => {
    emulator.fault({ path: /^\/integrations\/[^/]+\/users/g, status: 500, times: 2 });
    expect((await call(emulator, "GET", `integrations/${TEAM.tube}`)).status).toBe(200);
    expect((await call(emulator, "GET", `integrations/${TEAM.tube}/users`)).status).toBe(500);
    expect((await call(emulator, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`)).status).toBe(500);
  });

  it("takes faults in queue order", async () => {
    emulator.fault({ path: "/users", status: 502 });
    emulator.fault({ path: /users/, status: 503 });
    const seen = [];
    for (let i = 0; i < 3; i++) seen.push((await call(emulator, "GET", "users")).status);
    expect(seen).toEqual([502, 503, 200]);
  });

  it("clearFaults forgets every queued fault", async () => {
    emulator.fault({ path: "/users", status: 500, times: 5 });
    emulator.clearFaults();
    expect((await call(emulator, "GET", "users")).status).toBe(200);
  });

  it("a headers-only fault decorates the normal answer", async () => {
    emulator.fault({ path: `/users/${TEAM.ada}`, headers: { "X-Extra": "yes" } });
    const answer = await call(emulator, "GET", `users/${TEAM.ada}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-extra")).toBe("yes");
    expect(at(answer.json, "data", "id")).toBe(TEAM.ada);
    expect(errorField(answer, "status")).toBeUndefined();
  });
});

describe("invitation faults by user", () => {
  const invite = (userIds: string[]) =>
    call(emulator, "POST", `integrations/${TEAM.tube}/users`, {
      body: {
        data: { type: "invite_tenant_users", attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds } },
      },
    });
  const newcomer = () => emulator.users.add({ email: `n${Math.random()}@example.com`, firstName: "N", lastName: "N" }).id;

  it("a request fault with userId breaks only the invitations whose userIds name that user", async () => {
    const other = newcomer();
    emulator.fault({ method: "POST", path: `/integrations/${TEAM.tube}/users`, userId: TEAM.cy, status: 404, times: 5 });
    expect((await invite([other])).status).toBe(200);
    expect((await invite([other, TEAM.cy])).status).toBe(404);
    expect(emulator.requests.map((r) => r.status)).toEqual([200, 404]);
  });

  it.each([
    ["whole", []],
    ["partial", ["other"]],
  ] as const)("failInvitesOf, %s: the job ends in error naming the user, and adds %j of the others", async (mode, added) => {
    const other = newcomer();
    emulator.jobs.setTiming({ finishAfterPolls: 0 });
    emulator.jobs.failInvitesOf([TEAM.cy], mode);
    expect((await invite([other, TEAM.cy])).status).toBe(200);
    const [job] = emulator.jobs.list();
    expect(job).toMatchObject({ status: "error", errorDetails: { errorType: "invite_failed" }, response: { userIds: [TEAM.cy] } });
    const members = emulator.integrations.members(TEAM.tube).map((m) => m.userId);
    expect(members.includes(TEAM.cy)).toBe(false);
    expect(members.includes(other)).toBe(added.length > 0);
    // Until cleared: then the same invitation goes through.
    emulator.jobs.clearInviteFailures();
    expect((await invite([TEAM.cy])).status).toBe(200);
    expect(emulator.jobs.list()[1]?.status).toBe("finished");
  });
});
