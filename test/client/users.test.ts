import { describe, expect, it } from "vitest";
import { collect, ConflictError, NotFoundError } from "../../src/client";
import { ALL_SCOPES } from "../../src/emulator";
import { readRawSettings, settingNamesOf } from "../../src/shared/settings";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";
import { clientOf, oddServer } from "../support/odd-server";
import { VirtualClock } from "../support/virtual-clock";
import { withStub } from "../conformance/harness";

const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe", role: "workspace_login_only" };

describe("users.list", () => {
  it("fails naming links.next when the service links to something that is not a URL", async () => {
    await withStub(async (stub, client) => {
      const record = { id: "00000000-0000-4000-8000-0000000000f2", type: "user", attributes: { email: "b@example.com" } };
      stub.reply = { status: 200, body: { data: [record], links: { next: "http://[bad/api/v1/users?page%5Bnumber%5D=2" }, meta: {} } };
      const error = await rejection(collect(client.users.list()));
      expect(error).toMatchObject({ field: "links.next" });
      expect(error.message).toContain("answered a links.next that is not a URL");
    });
  });

  it("ends a list whose pages past the end repeat the last one, each linking to one more, naming links.next", async () => {
    await withStub(async (stub, client) => {
      const record = { id: "00000000-0000-4000-8000-0000000000f1", type: "user", attributes: { email: "a@example.com" } };
      // A service clamping page numbers past the end: page N answers the last page again, linking to N + 1, forever.
      for (let n = 1; n < 50; n++) {
        stub.queue.push({ status: 200, body: { data: [record], links: { next: `/api/v1/users?page%5Bnumber%5D=${n + 1}` }, meta: {} } });
      }
      const error = await rejection(collect(client.users.list()));
      expect(error).toMatchObject({ field: "links.next" });
      expect(error.message).toContain("answered a page of records it had served already, with a links.next");
      expect(stub.requests.length).toBe(3);
    });
  });

  it("returns 250 users with page size 100 exactly once, following links.next", async () => {
    const emu = await emulator();
    for (let i = 0; i < 250; i++) emu.users.add({ email: `u${i}@example.com`, firstName: "U", lastName: `${i}` });
    const { client } = clientFor(emu);
    const users = await collect(client.users.list({ pageSize: 100 }));
    expect(users).toHaveLength(250);
    expect(new Set(users.map((u) => u.id)).size).toBe(250);
    const gets = emu.requests.filter((r) => r.method === "GET");
    expect(gets.map((r) => r.query["page[number]"] ?? "1")).toEqual(["1", "2", "3"]);
    expect(gets.every((r) => r.query["page[size]"] === "100")).toBe(true);
  });

  it("reads the pages after the second 4 at a time, once each, once two links named their numbers and the first the total", async () => {
    const emu = await emulator();
    for (let i = 0; i < 950; i++) emu.users.add({ email: `u${i}@example.com`, firstName: "U", lastName: `${i}` });
    const { client, clock } = clientFor(emu);
    // Every page is held 10 ms on the virtual clock: how many are held at once is how many the client asked for at once.
    emu.fault({ method: "GET", path: "/users", delayMs: 10, times: 10 });
    let done = false;
    const listing = collect(client.users.list({ pageSize: 100 })).finally(() => {
      done = true;
    });
    const held = async (n: number) => {
      for (let turns = 0; clock.pendingTimers < n && !done; turns++) {
        if (turns > 2_000) throw new Error(`${clock.pendingTimers} pages held at once, never ${n}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const heldAtOnce: number[] = [];
    for (const n of [1, 1, 4]) {
      await held(n);
      heldAtOnce.push(clock.pendingTimers);
      clock.advance(10);
    }
    while (!done) {
      await held(1);
      clock.advance(10);
    }
    // Pages 1 and 2 one by one (page 2's link shows the numbering), then 3 to 6 together.
    expect(heldAtOnce).toEqual([1, 1, 4]);
    const users = await listing;
    expect(users).toHaveLength(950);
    expect(new Set(users.map((u) => u.id)).size).toBe(950);
    const pages = emu.requests.filter((r) => r.method === "GET").map((r) => Number(r.query["page[number]"] ?? "1"));
    expect([...pages].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("asks for the next page before serving a page's records: it comes while they are parsed and used", async () => {
    const emu = await emulator();
    for (let i = 0; i < 150; i++) emu.users.add({ email: `u${i}@example.com`, firstName: "U", lastName: `${i}` });
    const { client, clock } = clientFor(emu);
    emu.fault({ method: "GET", path: "/users", delayMs: 10, times: 2 });
    const pages = client.users.list({ pageSize: 100 })[Symbol.asyncIterator]();
    const heldOnce = async () => {
      for (let turns = 0; clock.pendingTimers < 1; turns++) {
        if (turns > 2_000) throw new Error("no page asked for");
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const first = pages.next();
    await heldOnce();
    clock.advance(10);
    expect((await first).value?.email).toBe("u0@example.com");
    // Only the first record taken, and page 2 is already asked for (held on the clock).
    await heldOnce();
    const asked = emu.requests.filter((r) => r.method === "GET").map((r) => r.query["page[number]"] ?? "1");
    expect(asked).toEqual(["1", "2"]);
    clock.advance(10);
    const rest = [];
    for (let next = await pages.next(); !next.done; next = await pages.next()) rest.push(next.value);
    expect(rest).toHaveLength(149);
    expect(emu.requests.filter((r) => r.method === "GET")).toHaveLength(2);
  });

  it("reads one page at a time when page 2's link does not number page 3 as page 1's numbered page 2, however large the total", async () => {
    await withStub(async (stub, client) => {
      const record = (i: number) => ({
        type: "user",
        id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        attributes: { email: `u${i}@x.example` },
      });
      const page = (i: number, next: string | null) => ({
        status: 200,
        body: { data: [record(i)], links: { next }, meta: { page: { total: 900 } } },
      });
      // Page 2's link is not page 1's with another number (its size changed): no page is read ahead, whatever the total.
      const links = [
        "/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=100",
        "/api/v1/users?page%5Bnumber%5D=3&page%5Bsize%5D=99",
        "/api/v1/users?page%5Bnumber%5D=4&page%5Bsize%5D=100",
      ];
      stub.queue.push(page(1, links[0]!), page(2, links[1]!), page(3, links[2]!), page(4, null));
      const users = await collect(client.users.list({ pageSize: 100 }));
      expect(users.map((u) => u.email)).toEqual(["u1@x.example", "u2@x.example", "u3@x.example", "u4@x.example"]);
      expect(stub.requests.map((r) => r.path)).toEqual(["/api/v1/users?page%5Bsize%5D=100", ...links]);
    });
  });

  it("reads a list whose page meta is not the contract's (a total and a maxSize as text, a previous link as a number): the meta only sizes the read-ahead", async () => {
    await withStub(async (stub, client) => {
      const record = (i: number) => ({
        type: "user",
        id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        attributes: { email: `u${i}@x.example` },
      });
      const link = "/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=100";
      const meta = { page: { total: "2", maxSize: "100" } };
      stub.queue.push(
        { status: 200, body: { data: [record(1)], links: { next: link, previous: 0 }, meta } },
        { status: 200, body: { data: [record(2)], links: { next: null }, meta } },
      );
      const users = await collect(client.users.list({ pageSize: 100 }));
      expect(users.map((u) => u.email)).toEqual(["u1@x.example", "u2@x.example"]);
      expect(stub.requests.map((r) => r.path)).toEqual(["/api/v1/users?page%5Bsize%5D=100", link]);
    });
  });

  it("ends at a page whose links.next is itself; a next link that comes back to an earlier page fails, naming the link", async () => {
    const record = (i: number) => ({
      type: "user",
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      attributes: { email: `u${i}@x.example` },
    });
    const link = (n: number) => `/api/v1/users?page%5Bnumber%5D=${n}&page%5Bsize%5D=100`;
    const page = (i: number, next: string | null) => ({ status: 200, body: { data: [record(i)], links: { next } } });
    await withStub(async (stub, client) => {
      stub.queue.push(page(1, link(2)), page(2, link(2)));
      const users = await collect(client.users.list({ pageSize: 100 }));
      expect(users.map((u) => u.email)).toEqual(["u1@x.example", "u2@x.example"]);
      expect(stub.requests.map((r) => r.path)).toEqual(["/api/v1/users?page%5Bsize%5D=100", link(2)]);
    });
    await withStub(async (stub, client) => {
      stub.queue.push(page(1, link(2)), page(2, link(3)), page(3, link(2)));
      const error = await rejection(collect(client.users.list({ pageSize: 100 })));
      expect(String(error)).toContain(`returned the same links.next twice (${link(2)})`);
    });
  });

  it("sends the filter and finds a user by email case-insensitively", async () => {
    const emu = await emulator();
    emu.users.add({ ...alice, email: "Alice@Example.com" });
    emu.users.add({ email: "bob@example.com", firstName: "Bob", lastName: "Roe" });
    const { client } = clientFor(emu);
    const found = await client.users.findByEmail("alice@EXAMPLE.com");
    expect(found?.email).toBe("Alice@Example.com");
    expect(emu.requests.at(-1)?.query.filter).toBe("alice@EXAMPLE.com");
    expect(await client.users.findByEmail("nobody@example.com")).toBeUndefined();
  });
});

describe("a miss proven by listings that served a record which could not be read", () => {
  const ODD = "00000000-0000-4000-8000-0000000000e1";
  const page = (attributes: Record<string, unknown>) => ({
    status: 200,
    body: { data: [{ id: ODD, type: "user", attributes }], links: { next: null }, meta: { page: { total: 1 } } },
  });
  const empty = { status: 200, body: { data: [], links: { next: null }, meta: { page: { total: 0 } } } };

  it("findExisting (a user the service says exists): a record whose email cannot be read may be that user, so nobody is not answered", async () => {
    await withStub(async (stub, client) => {
      // The search finds nobody, twice alike; the whole list, twice alike, has one record whose email is a number.
      stub.queue.push(empty, empty, page({ email: 42, firstName: "Dan" }), page({ email: 42, firstName: "Dan" }));
      const error = await rejection(client.users.findExisting("dan@example.com"));
      expect(error.message).toContain("Could not prove that no user has the email dan@example.com: GET /users found 1 record(s)");
      expect(error.message).toContain(ODD);
      expect(error.message).toContain("any of them may be that user");
      expect(stub.requests).toHaveLength(4);
    });
  });

  it("findByEmail: a record that cannot be read but whose email is text, and another, is no reason to doubt the miss", async () => {
    await withStub(async (stub, client) => {
      stub.queue.push(page({ email: "other@example.com", firstName: 42 }), page({ email: "other@example.com", firstName: 42 }));
      expect(await client.users.findByEmail("dan@example.com")).toBeUndefined();
    });
  });

  it("findByEmail: one whose email is this one in another case may be that user: it throws naming the record", async () => {
    await withStub(async (stub, client) => {
      stub.queue.push(page({ email: "Dan@Example.com", firstName: 42 }), page({ email: "Dan@Example.com", firstName: 42 }));
      const error = await rejection(client.users.findByEmail("dan@example.com"));
      expect(error.message).toContain(`GET /users?filter= found 1 record(s) that could not be read (ids ${ODD}`);
    });
  });
});

describe("a user or member record whose fields nothing decides by are of another type", () => {
  it("a user's mfaStatus as text is as absent: the record is read", async () => {
    await withStub(async (stub, client) => {
      const id = "00000000-0000-4000-8000-0000000000e7";
      const attributes = { email: "eve@example.com", role: "workspace_login_only", mfaStatus: "enabled" };
      stub.reply = { status: 200, body: { data: { id, type: "user", attributes }, links: {}, meta: {} } };
      expect(await client.users.get(id)).toMatchObject({ id, email: "eve@example.com", role: "workspace_login_only" });
    });
  });
});

describe("users.get", () => {
  it("reads a user and its attributes", async () => {
    const emu = await emulator();
    const added = emu.users.add(alice);
    const { client } = clientFor(emu);
    const user = await client.users.get(added.id);
    expect(user).toMatchObject({ id: added.id, email: alice.email, firstName: "Alice", lastName: "Doe", isGuest: false });
    expect(user.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("raises NotFoundError for an unknown id", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    const error = await rejection(client.users.get("5b0e4a57-0000-4000-8000-000000000000"));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain("GET /api/v1/users/5b0e4a57-0000-4000-8000-000000000000 answered 404");
  });
});

describe("users.create", () => {
  it("POSTs the contract's body and returns the new user", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    const user = await client.users.create({ ...alice, isGuest: true });
    expect(emu.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/users",
      hasApiKey: true,
      body: { data: { type: "user", attributes: { ...alice, isGuest: true } } },
    });
    expect(emu.users.get(user.id)?.email).toBe(alice.email);
  });

  it("raises ConflictError when the email is taken, whatever its case", async () => {
    const emu = await emulator();
    emu.users.add(alice);
    const { client } = clientFor(emu);
    const error = await rejection(client.users.create({ ...alice, email: "ALICE@example.com" }));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(emu.users.list()).toHaveLength(1);
  });

  it("waits for the job when the service answers a write with one, then finds the user", async () => {
    const emu = await emulator({ userWritesAsJobs: true });
    const { client } = clientFor(emu);
    const user = await client.users.create(alice);
    expect(user.email).toBe(alice.email);
    expect(emu.requests.some((r) => r.path.startsWith("/jobs/"))).toBe(true);
  });
});

describe("users.replace and users.delete", () => {
  it("PUTs every writable attribute with data.id", async () => {
    const emu = await emulator();
    const added = emu.users.add(alice);
    const { client } = clientFor(emu);
    const user = await client.users.replace(added.id, { ...alice, lastName: "Smith", role: "workspace_super_admin", isGuest: false });
    expect(user.lastName).toBe("Smith");
    expect(emu.requests.at(-1)).toMatchObject({
      method: "PUT",
      path: `/users/${added.id}`,
      body: { data: { id: added.id, type: "user", attributes: { lastName: "Smith", role: "workspace_super_admin" } } },
    });
  });

  it("DELETEs, and a second delete raises NotFoundError", async () => {
    const emu = await emulator();
    const added = emu.users.add(alice);
    const { client } = clientFor(emu);
    await client.users.delete(added.id);
    expect(emu.users.get(added.id)).toBeUndefined();
    expect(NotFoundError.isInstance(await rejection(client.users.delete(added.id)))).toBe(true);
  });

  it("waits for the job of a delete answered with one", async () => {
    const emu = await emulator({ userWritesAsJobs: true });
    const added = emu.users.add(alice);
    const { client } = clientFor(emu);
    await client.users.delete(added.id);
    expect(emu.users.get(added.id)).toBeUndefined();
  });
});

describe("a user write answered success with a body that cannot be read has landed: the user is read back", () => {
  const id = "7f1c0c3e-0000-4000-8000-000000000001";
  /**
   * A service that answers writes 2xx `text/plain` and serves `alice`, created when the client's virtual clock starts, to reads;
   * its clock, as its `Date` says, is the one it stamped her with.
   */
  const service = (status: number) =>
    oddServer((req, res) => {
      res.setHeader("date", new Date(new VirtualClock().now()).toUTCString());
      if (req.method !== "GET") {
        res.writeHead(status, { "content-type": "text/plain" });
        res.end("Created");
        return;
      }
      const record = { id, type: "user", attributes: { ...alice, createdAt: new Date(new VirtualClock().now()).toISOString() } };
      res.writeHead(200, { "content-type": "application/json" });
      const list = req.url?.startsWith("/api/v1/users?");
      res.end(JSON.stringify(list ? { data: [record], links: { next: null }, meta: { page: { total: 1 } } } : { data: record }));
    });

  it("create: a 201 text/plain is success; the user is found by email, not left behind for a 409 next time", async () => {
    const server = await service(201);
    const { client } = clientOf(server);
    const user = await client.users.create(alice);
    expect(user).toMatchObject({ id, email: alice.email });
    // One POST, then the search by email and its proof (a second search at another page size would be only for a miss).
    expect(server.received[0]).toBe("POST /api/v1/users");
    expect(server.received.slice(1).every((r) => r.startsWith("GET /api/v1/users?"))).toBe(true);
    expect(server.received.filter((r) => r.startsWith("POST"))).toHaveLength(1);
  });

  it("create: one whose user is not found after it fails naming the answer, and is not sent again", async () => {
    const emu = await emulator();
    emu.fault({ method: "POST", path: "/users", status: 201, body: "<html>gateway says hi</html>" });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.create(alice));
    expect(error.message).toContain("POST users answered 201 with a body that could not be read (POST /api/v1/users answered 201");
    expect(error.message).toContain(`no user with the email ${alice.email} was found (GET /users?filter=, then the whole list)`);
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("replace: a 200 text/plain is success; the user is read back once", async () => {
    const server = await service(200);
    const { client } = clientOf(server);
    expect(await client.users.replace(id, alice)).toMatchObject({ id, email: alice.email });
    expect(server.received).toEqual([`PUT /api/v1/users/${id}`, `GET /api/v1/users/${id}`]);
  });
});

describe("users.create: whether the user an answer names is the create's own, on the service's clock", () => {
  const id = "7f1c0c3e-0000-4000-8000-000000000002";
  const start = new VirtualClock().now();
  /**
   * A service answering `POST /users` 201 with `alice`, made `age` ms before the client's clock began the create, on a clock `skew`
   * ms ahead of the client's, which its `Date` says (`"unreadable"`: a `Date` that is no HTTP date; `"none"`: no `Date`).
   */
  const service = (age: number, skew: number, date: "sent" | "none" | "unreadable" = "sent") =>
    oddServer((_req, res) => {
      if (date === "none") res.sendDate = false;
      else res.setHeader("date", date === "unreadable" ? "yesterday" : new Date(start + skew).toUTCString());
      const record = { id, type: "user", attributes: { ...alice, createdAt: new Date(start + skew - age).toISOString() } };
      res.writeHead(201, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: record }));
    });

  it.each([
    ["in step, a user made 3 s before (within the margin: someone else's, made so late, passes as the create's)", 3_000, 0, "sent", true],
    ["in step, made 30 s before", 30_000, 0, "sent", false],
    ["10 minutes behind, made as the POST landed", 0, -600_000, "sent", true],
    ["10 minutes behind, made 30 s before", 30_000, -600_000, "sent", false],
    ["10 minutes ahead, made as the POST landed", 0, 600_000, "sent", true],
    ["10 minutes ahead, made 2 minutes before", 120_000, 600_000, "sent", false],
    ["without a Date, in step, made 30 s before (a minute allowed, as before)", 30_000, 0, "none", true],
    ["without a Date, in step, made 2 minutes before", 120_000, 0, "none", false],
    ["with a Date that is no HTTP date, made 30 s before (a minute allowed)", 30_000, 0, "unreadable", true],
  ] as const)("a service clock %s", async (_name, age, skew, date, own) => {
    const server = await service(age, skew, date);
    const { client } = clientOf(server);
    const made = client.users.create(alice);
    if (own) expect(await made).toMatchObject({ id });
    else expect(ConflictError.isInstance(await rejection(made))).toBe(true);
    expect(server.received).toEqual(["POST /api/v1/users"]);
  });
});

describe("path segments", () => {
  it.each(["../users", "a/b", "x?y", "x#y", "%2F"])("encodes %j so it cannot reach another endpoint", async (id) => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    await rejection(client.users.get(id));
    // Sent in its one form (lower case), then encoded; its 404, the client's first answer, then has the address proven.
    const sent = emu.requests.map((r) => r.rawPath);
    expect(sent).toEqual([`/api/v1/users/${encodeURIComponent(id.toLowerCase())}`, "/api/v1/users?page%5Bsize%5D=1"]);
  });

  it("sends a user id in its one form, whatever case the caller holds", async () => {
    const emu = await emulator();
    const user = emu.users.add({ email: "case@x.example", firstName: "C", lastName: "Ase" });
    const { client } = clientFor(emu);
    expect((await client.users.get(user.id.toUpperCase())).id).toBe(user.id);
    expect(emu.requests.map((r) => r.rawPath)).toEqual([`/api/v1/users/${user.id}`]);
  });

  it.each(["", ".", ".."])("refuses %j before sending anything", async (id) => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    await expect(client.users.get(id)).rejects.toThrow(TypeError);
    expect(emu.requests).toHaveLength(0);
  });
});

describe("a service that answers user writes with 204 (the emulator's noContent quirk)", () => {
  it("replace reads the user back once; delete needs nothing more", async () => {
    const emu = await emulator({ quirks: { noContent: true } });
    const user = emu.users.add({ email: "alice@example.com", firstName: "A", lastName: "B" });
    const { client } = clientFor(emu);
    const replaced = await client.users.replace(user.id, { ...alice, firstName: "Alicia" });
    expect(replaced).toMatchObject({ id: user.id, firstName: "Alicia" });
    await client.users.delete(user.id);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `PUT /users/${user.id} 204`,
      `GET /users/${user.id} 200`,
      `DELETE /users/${user.id} 204`,
    ]);
  });
});

describe("a 404 before anything answered: the item's, or the address's", () => {
  const missing = "00000000-0000-4000-8000-00000000dead";

  it("is not read as gone when GET users answers 404 too: the base URL is not the API's root, named with its setting", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu, { baseUrl: emu.url.replace("/api/v1/", "/api/v2/") });
    const error = await rejection(client.users.get(missing));
    expect(NotFoundError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
    expect(error.message).toContain(`GET /api/v2/users/${missing} answered 404, and so did GET /api/v2/users`);
    expect(error.message).toContain("so nothing was read as gone. Either");
    expect(error.message).toContain("/api/v2/ is not the workspace's API root: check baseUrl, it should be the API root");
    // The other cause, a service answering 404 (not disclosed) to a key without the scope, and its fix.
    expect(error.message).toContain("Or it is, and the service answers 404 (not disclosed) to a key without Read users");
    expect(error.message).toContain("give the key in apiKey the scope Read users (read:users).");
    expect(emu.requests.map((r) => r.rawPath)).toEqual([`/api/v2/users/${missing}`, "/api/v2/users?page%5Bsize%5D=1"]);
  });

  it("names the address as the caller sets it (a flag, a file), its setting still baseUrl: no caller rewrites the message", async () => {
    const emu = await emulator();
    const settingName = (key: string) => (key === "baseUrl" ? "--base-url" : key);
    const { client } = clientFor(emu, { baseUrl: emu.url.replace("/api/v1/", "/api/v2/"), settingName });
    const error = await rejection(client.users.get(missing));
    expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
    expect(error.message).toMatch(
      /is not the workspace's API root: check --base-url, it should be the API root, such as https:\/\/acme\.example\.com\/api\/v1\/\. Or it is, and the service answers 404 \(not disclosed\) to a key without Read users: give the key in apiKey the scope Read users \(read:users\)\.$/,
    );
    expect(error.message).not.toContain("baseUrl");
    expect(error.message).not.toContain(emu.apiKey);
  });

  // Neither the workspace nor the host is a URL: the message names the one they built, both to check, and the whole URL's setting.
  it.each([
    [
      "the stack config",
      { "workspace-access:workspace": "acme", "workspace-access:host": "example.com", "workspace-access:apiKey": "<key>" },
      {},
      ["workspace-access:workspace", "workspace-access:host", "workspace-access:baseUrl", "workspace-access:apiKey"],
    ],
    [
      "the environment",
      {},
      { WORKSPACE_ACCESS_WORKSPACE: "acme", WORKSPACE_ACCESS_HOST: "example.com", WORKSPACE_ACCESS_API_KEY: "<key>" },
      ["WORKSPACE_ACCESS_WORKSPACE", "WORKSPACE_ACCESS_HOST", "WORKSPACE_ACCESS_BASE_URL", "WORKSPACE_ACCESS_API_KEY"],
    ],
  ])(
    "names an address built from a workspace and a host (%s) as built, both to check, and the setting giving it whole",
    async (_, stack, env, names) => {
      const emu = await emulator();
      const [workspace, host, baseUrl, apiKey] = names;
      const raw = readRawSettings((key) => (stack as Record<string, string>)[key], env);
      const wrong = emu.url.replace("/api/v1/", "/api/v2/");
      const { client } = clientFor(emu, { baseUrl: wrong, ...settingNamesOf(raw) });
      const error = await rejection(client.users.get(missing));
      expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
      expect(error.message).toContain(
        `so nothing was read as gone. Either ${wrong}, the address built from ${workspace} and ${host} as ` +
          "https://<workspace>.<host>/api/v1/, is not the workspace's API root: check both, or set " +
          `${baseUrl} to the API root, should it not be of that form. Or it is, and the service answers 404 (not disclosed) to ` +
          `a key without Read users: give the key in ${apiKey} the scope Read users (read:users).`,
      );
      expect(error.message).not.toContain("such as https://");
      expect(error.message).not.toContain(emu.apiKey);
    },
  );

  it("names an address built from a workspace and a host as built when it is the API root already (the key lacks a scope)", async () => {
    const noApps = `wa_sees_no_apps_${"6".repeat(16)}`;
    issuedKeys.add(noApps);
    const emu = await emulator({ keys: { [noApps]: ALL_SCOPES.filter((s) => s !== "read:integrations") }, missingScopeStatus: 404 });
    const env = { WORKSPACE_ACCESS_WORKSPACE: "acme", WORKSPACE_ACCESS_HOST: "example.com", WORKSPACE_ACCESS_API_KEY: "<key>" };
    const { client } = clientFor(emu, { apiKey: noApps, ...settingNamesOf(readRawSettings(() => undefined, env)) });
    const error = await rejection(collect(client.integrations.list()));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toMatch(
      /Give the key in WORKSPACE_ACCESS_API_KEY the scope Read integrations \(read:integrations\); the address built from WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST as https:\/\/<workspace>\.<host>\/api\/v1\/ is the API root already\.$/,
    );
  });

  it("stays a 404 where the address answers, proven once per client; after a success, no proof is sent", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    expect(NotFoundError.isInstance(await rejection(client.users.get(missing)))).toBe(true);
    expect(NotFoundError.isInstance(await rejection(client.users.get(missing.replace("dead", "beef"))))).toBe(true);
    expect(emu.requests.map((r) => r.rawPath)).toEqual([
      `/api/v1/users/${missing}`,
      "/api/v1/users?page%5Bsize%5D=1",
      `/api/v1/users/${missing.replace("dead", "beef")}`,
    ]);
    const other = clientFor(emu).client;
    await collect(other.users.list());
    emu.clearRequests();
    await rejection(other.users.get(missing));
    expect(emu.requests.map((r) => r.rawPath)).toEqual([`/api/v1/users/${missing}`]);
  });
});

describe("a 404 before anything answered, whose proof is answered 429 or 5xx first", () => {
  const missing = "00000000-0000-4000-8000-00000000dead";

  it.each([
    [429, { "retry-after": "1" }],
    [503, {}],
  ] as const)(
    "waits out a %i to GET users as any request does: the proof is its answer, not the 429's or the 5xx's",
    async (status, headers) => {
      const emu = await emulator();
      emu.fault({ method: "GET", path: "/api/v2/users", status, headers });
      const { client } = clientFor(emu, { baseUrl: emu.url.replace("/api/v1/", "/api/v2/") });
      const error = await rejection(client.users.get(missing));
      expect(NotFoundError.isInstance(error)).toBe(false);
      expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
      const probe = "/api/v2/users?page%5Bsize%5D=1";
      expect(emu.requests.map((r) => r.rawPath)).toEqual([`/api/v2/users/${missing}`, probe, probe]);
    },
  );

  it("fails, reading nothing as gone, when GET users gets no answer the retries accept", async () => {
    const emu = await emulator();
    emu.fault({ method: "GET", path: "/users", status: 503, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 1 });
    const error = await rejection(client.users.get(missing));
    expect(NotFoundError.isInstance(error)).toBe(false);
    expect(error.message).toContain(`GET /api/v1/users/${missing} answered 404`);
    expect(error.message).toContain("nothing was read as gone");
    // Asked again at the next 404: the first proof told nothing.
    emu.clearFaults();
    expect(NotFoundError.isInstance(await rejection(client.users.get(missing)))).toBe(true);
  });
});

describe("many first requests answered 404 at once", () => {
  it("send one proof between them, and each fails naming baseUrl", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu, { baseUrl: emu.url.replace("/api/v1/", "/api/v2/") });
    const ids = [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-00000000000${n}`);
    const errors = await Promise.all(ids.map((id) => rejection(client.users.get(id))));
    for (const error of errors) expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
    expect(emu.requests.filter((r) => r.rawPath === "/api/v2/users?page%5Bsize%5D=1")).toHaveLength(1);
  });
});

describe("many first requests answered 404 at once, whose one proof gets no final answer", () => {
  it("each fails naming its own request, not the first one's, and nothing is read as gone", async () => {
    const emu = await emulator();
    emu.fault({ method: "GET", path: "/users", status: 503, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 1 });
    const ids = [1, 2, 3].map((n) => `00000000-0000-4000-8000-00000000000${n}`);
    const errors = await Promise.all(ids.map((id) => rejection(client.users.get(id))));
    expect(emu.requests.filter((r) => r.rawPath === "/api/v1/users?page%5Bsize%5D=1")).toHaveLength(2);
    errors.forEach((error, i) => {
      expect(NotFoundError.isInstance(error)).toBe(false);
      expect(error).toMatchObject({ kind: "server_error", status: 503 });
      expect(error.message).toMatch(new RegExp(`^GET /api/v1/users/${ids[i]} answered 404, and GET /api/v1/users, which tells `));
      for (const other of ids.filter((_, j) => j !== i)) expect(error.message).not.toContain(other);
      // Said once: the others' messages are not written into it.
      expect(error.message.split("nothing was read as gone").length).toBe(2);
    });
  });
});

describe("a DELETE answered 404 whose user is still there (a service answering 404 for a scope the key lacks)", () => {
  it("names the key as its caller's user sets it, or 'the API key' when they cannot name it: never 'undefined'", async () => {
    const readOnly = `wa_read_only_${"1".repeat(16)}`;
    issuedKeys.add(readOnly);
    const emu = await emulator({ keys: { [readOnly]: ALL_SCOPES.filter((s) => s.startsWith("read:")) }, missingScopeStatus: 404 });
    const id = emu.users.add(alice).id;
    // A caller whose user sets the address alone (a flag): the key is no setting they can name.
    const settingName = (key: string) => (key === "baseUrl" ? "--base-url" : undefined);
    const { client } = clientFor(emu, { apiKey: readOnly, settingName });
    const error = await rejection(client.users.delete(id));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain("so the write was refused, not done");
    expect(error.message).not.toContain("undefined");
    expect(error.message).toContain("This write needs the scope Write users (write:users), and, should the service answer it with a job");
    expect(error.message).toContain(": give the API key those it lacks.");
    expect(emu.users.get(id)).toBeDefined();
  });
});
