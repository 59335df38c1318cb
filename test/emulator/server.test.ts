import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator, startEmulator } from "../../src/emulator/index";
import { VirtualClock } from "../support/virtual-clock";
import { at, call, errorField, userBody } from "./helpers";

async function withEmulator(run: (emulator: Emulator) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ seed: defaultSeed() });
  try {
    await run(emulator);
  } finally {
    await emulator.close();
  }
}

describe("startEmulator", () => {
  it("listens on 127.0.0.1 with a base URL ending in /api/v1/ and a wa_emu_ key by default", async () => {
    await withEmulator(async (emulator) => {
      expect(emulator.url).toBe(`http://127.0.0.1:${emulator.port}/api/v1/`);
      expect(emulator.port).toBeGreaterThan(0);
      expect(emulator.apiKey).toMatch(/^wa_emu_[0-9a-f]{32}$/);
    });
  });

  it("takes a fixed key", async () => {
    const emulator = await startEmulator({ seed: {}, apiKey: "fixed-key" });
    try {
      expect(emulator.apiKey).toBe("fixed-key");
      expect((await call(emulator, "GET", "users", { key: "fixed-key" })).status).toBe(200);
    } finally {
      await emulator.close();
    }
  });

  it("serves the default seed: YouTube and Slack with their catalogues and members", async () => {
    await withEmulator(async (emulator) => {
      const youtube = await call(emulator, "GET", `integrations/${DEFAULT_IDS.integrations.youtube}/entitlements`);
      expect((at(youtube.json, "data") as Array<{ id: string }>).map((e) => e.id)).toEqual(["VIEWER", "EDITOR", "MANAGER"]);
      const slack = await call(emulator, "GET", `integrations/${DEFAULT_IDS.integrations.slack}`);
      expect(at(slack.json, "data", "attributes", "application")).toBe("Slack");
      expect(at((await call(emulator, "GET", "users")).json, "meta", "page", "total")).toBe(4);
    });
  });

  it('starts empty with world: "empty", as with seed: {} and the command\'s --empty', async () => {
    const emulator = await startEmulator({ world: "empty" });
    try {
      expect(emulator.users.list()).toEqual([]);
      expect(emulator.integrations.list()).toEqual([]);
      expect(at((await call(emulator, "GET", "users")).json, "meta", "page", "total")).toBe(0);
    } finally {
      await emulator.close();
    }
  });

  it("refuses a world it does not know, naming the worlds", async () => {
    const world = "default" as unknown as "empty";
    await expect(startEmulator({ world })).rejects.toThrow(/world must be "empty", "populated" or "adversarial" .*got "default"/);
  });

  it("defaultSeed gives a fresh world each call", () => {
    const a = defaultSeed();
    a.users?.pop();
    expect(defaultSeed().users).toHaveLength(4);
  });
});

describe("routing", () => {
  it.each([
    ["an unknown route", 404, "GET", "widgets"],
    ["a path outside /api/v1", 404, "GET", "/health"],
    ["an unknown method on a known path", 405, "PATCH", "users"],
  ])("answers %s with %i in the error shape", async (_label, status, method, path) => {
    await withEmulator(async (emulator) => {
      const answer = await call(emulator, method, path);
      expect(answer.status).toBe(status);
      expect(errorField(answer, "status")).toBe(status);
    });
  });

  it("names the allowed methods on a 405", async () => {
    await withEmulator(async (emulator) => {
      expect((await call(emulator, "PATCH", "users")).headers.get("allow")).toBe("GET, POST");
    });
  });

  it("tolerates a trailing slash and percent-encoded segments", async () => {
    await withEmulator(async (emulator) => {
      expect((await call(emulator, "GET", "users/")).status).toBe(200);
      const id = DEFAULT_IDS.users.ada.replace("-", "%2D");
      expect(at((await call(emulator, "GET", `users/${id}`)).json, "data", "id")).toBe(DEFAULT_IDS.users.ada);
    });
  });

  it("answers JSON with a request id", async () => {
    await withEmulator(async (emulator) => {
      const answer = await call(emulator, "GET", "users");
      expect(answer.headers.get("content-type")).toBe("application/json");
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});

describe("request bodies: JSON with Content-Type: application/json (the contract)", () => {
  const youtube = DEFAULT_IDS.integrations.youtube;
  const setEntitlements = { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "VIEWER" }] } } };

  it.each([
    ["no Content-Type", null, "value_error.missing"],
    ["text/plain", "text/plain;charset=UTF-8", "value_error.media_type"],
    ["a form", "application/x-www-form-urlencoded", "value_error.media_type"],
  ])("answers a body sent with %s 400 at header.content-type, saying what to send, and writes nothing", async (_l, contentType, type) => {
    await withEmulator(async (emulator) => {
      const create = await call(emulator, "POST", "users", { body: userBody({ email: "typed@example.com" }), contentType });
      expect(create.status).toBe(400);
      expect(errorField(create, "meta")).toEqual({ loc: ["header", "content-type"], msg: expect.any(String), type });
      expect(errorField(create, "detail")).toContain("Content-Type: application/json");
      expect(emulator.users.findByEmail("typed@example.com")).toBeUndefined();
      const patch = await call(emulator, "PATCH", `integrations/${youtube}/users/${DEFAULT_IDS.users.grace}`, {
        body: setEntitlements,
        contentType,
      });
      expect(patch.status).toBe(400);
      expect(emulator.jobs.list()).toEqual([]);
    });
  });

  it.each([
    ["application/json", "application/json"],
    ["with a charset, in another case", "Application/JSON; charset=utf-8"],
    ["the JSON:API type", "application/vnd.api+json"],
  ])("takes a body sent as %s", async (_l, contentType) => {
    await withEmulator(async (emulator) => {
      const create = await call(emulator, "POST", "users", { body: userBody({ email: "typed@example.com" }), contentType });
      expect(create.status).toBe(201);
    });
  });

  it("asks nothing of a request without a body (a read, a DELETE)", async () => {
    await withEmulator(async (emulator) => {
      expect((await call(emulator, "DELETE", `users/${DEFAULT_IDS.users.alan}`, { contentType: null })).status).toBe(204);
    });
  });
});

describe("the request log", () => {
  it("records every request in order, with decoded path, raw path, query, parsed body and status", async () => {
    await withEmulator(async (emulator) => {
      const listed = await call(emulator, "GET", "users?page%5Bsize%5D=2&filter=a%20b");
      await call(emulator, "POST", "users", { body: userBody({ email: "log@example.com" }) });
      await call(emulator, "POST", "users", { raw: "not json" });
      await call(emulator, "GET", "users/caf%C3%A9", { key: null });
      const [first, second, third, fourth] = emulator.requests;
      expect(first).toEqual({
        method: "GET",
        path: "/users",
        rawPath: "/api/v1/users?page%5Bsize%5D=2&filter=a%20b",
        query: { "page[size]": "2", filter: "a b" },
        body: undefined,
        status: 200,
        hasApiKey: true,
        at: expect.any(Number),
        requestId: listed.headers.get("x-request-id"),
      });
      expect(second).toMatchObject({ method: "POST", status: 201, body: userBody({ email: "log@example.com" }) });
      expect(third).toMatchObject({ body: "not json", status: 400 });
      expect(fourth).toMatchObject({ path: "/users/café", status: 401, hasApiKey: false });
      expect(emulator.stats.requests).toBe(4);
    });
  });

  it("clearRequests empties the log but keeps the counters", async () => {
    await withEmulator(async (emulator) => {
      await call(emulator, "GET", "users");
      emulator.clearRequests();
      expect(emulator.requests).toEqual([]);
      expect(emulator.stats.requests).toBe(1);
    });
  });

  it("hands out a snapshot: later requests do not grow an array already taken", async () => {
    await withEmulator(async (emulator) => {
      const before = emulator.requests;
      await call(emulator, "GET", "users");
      expect(before).toHaveLength(0);
      expect(emulator.requests).toHaveLength(1);
    });
  });
});

describe("close()", () => {
  function handles(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1;
    return counts;
  }

  async function settle(baseline: Record<string, number>): Promise<Record<string, number>> {
    // Client sockets close when they see the server's FIN; give that a few ticks.
    for (let i = 0; i < 50; i++) {
      const now = handles();
      if (["TCPServerWrap", "TCPSocketWrap", "Timeout"].every((k) => (now[k] ?? 0) <= (baseline[k] ?? 0))) return now;
      await sleep(10);
    }
    return handles();
  }

  it("leaves no server, socket or timer behind, keep-alive sockets and pending job timers included", async () => {
    // Handles of servers closed by earlier tests leave the list on the next turn of the loop.
    await sleep(10);
    const baseline = handles();
    // The system clock's timers are unref'd, which process.getActiveResourcesInfo() does not list:
    // a virtual clock counts the job's timer instead.
    const clock = new VirtualClock();
    const emulator = await startEmulator({ seed: defaultSeed(), job: { finishAfterMs: 60_000 }, clock });
    await call(emulator, "GET", "users");
    await call(emulator, "PATCH", `integrations/${DEFAULT_IDS.integrations.slack}/users/${DEFAULT_IDS.users.alan}`, {
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "ADMIN" }] } } },
    });
    expect(handles()["TCPServerWrap"] ?? 0).toBeGreaterThan(baseline["TCPServerWrap"] ?? 0);
    expect(clock.pendingTimers).toBe(1);
    await emulator.close();
    expect(clock.pendingTimers).toBe(0);
    const after = await settle(baseline);
    expect(after["TCPServerWrap"] ?? 0).toBe(baseline["TCPServerWrap"] ?? 0);
    expect(after["TCPSocketWrap"] ?? 0).toBeLessThanOrEqual(baseline["TCPSocketWrap"] ?? 0);
  });

  it("clears job timers: a time-based job pending at close never fires", async () => {
    const clock = new VirtualClock();
    const emulator = await startEmulator({ seed: defaultSeed(), job: { finishAfterMs: 40 }, clock });
    const answer = await call(emulator, "DELETE", `integrations/${DEFAULT_IDS.integrations.slack}/users/${DEFAULT_IDS.users.alan}`);
    const id = at(answer.json, "data", "id") as string;
    expect(clock.pendingTimers).toBe(1);
    await emulator.close();
    expect(clock.pendingTimers).toBe(0);
    clock.advance(80);
    expect(emulator.jobs.get(id)?.status).toBe("created");
    expect(emulator.integrations.members(DEFAULT_IDS.integrations.slack).map((m) => m.userId)).toContain(DEFAULT_IDS.users.alan);
  });

  it("resolves quickly even with a request stuck in a delay, and twice", async () => {
    // On a virtual clock the delay never ends by itself: only close() can release the request.
    const clock = new VirtualClock();
    const emulator = await startEmulator({ seed: {}, clock });
    emulator.fault({ path: "/users", delayMs: 30_000 });
    const stuck = call(emulator, "GET", "users").catch((error: unknown) => error);
    while (clock.pendingTimers === 0) await new Promise((resolve) => setImmediate(resolve));
    await emulator.close();
    await emulator.close();
    expect(clock.pendingTimers).toBe(0);
    expect(await stuck).toBeInstanceOf(Error);
    await expect(fetch(emulator.url)).rejects.toThrow();
  });
});
