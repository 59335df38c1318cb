import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { at, call, errorField, manyUsers, replaceBody, userBody } from "./helpers";

describe("GET /users (list)", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: { users: manyUsers(250) } });
  });
  afterAll(() => emulator.close());

  it("walks 250 users in pages of 100 through relative, percent-encoded links, each user exactly once", async () => {
    const seen: string[] = [];
    const selfLinks: unknown[] = [];
    let next: string | null = "users?page%5Bsize%5D=100";
    let previous: unknown;
    while (next !== null) {
      const answer = await call(emulator, "GET", next);
      expect(answer.status).toBe(200);
      expect(at(answer.json, "meta")).toEqual({ page: { maxSize: 100, total: 250 } });
      const data = at(answer.json, "data") as Array<{ id: string; attributes: { email: string } }>;
      seen.push(...data.map((u) => u.attributes.email));
      selfLinks.push(at(answer.json, "links", "self"));
      previous = at(answer.json, "links", "previous");
      next = at(answer.json, "links", "next") as string | null;
    }
    expect(seen).toHaveLength(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen[0]).toBe("user-001@example.com");
    expect(seen[249]).toBe("user-250@example.com");
    expect(selfLinks).toEqual([
      "/api/v1/users?page%5Bnumber%5D=1&page%5Bsize%5D=100",
      "/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=100",
      "/api/v1/users?page%5Bnumber%5D=3&page%5Bsize%5D=100",
    ]);
    expect(previous).toBe("/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=100");
  });

  it("answers 25 users by default, with next and no previous", async () => {
    const answer = await call(emulator, "GET", "users");
    expect((at(answer.json, "data") as unknown[]).length).toBe(25);
    expect(at(answer.json, "links")).toEqual({
      self: "/api/v1/users?page%5Bnumber%5D=1&page%5Bsize%5D=25",
      next: "/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=25",
      previous: null,
    });
  });

  it("answers an empty page past the end, with total still counting items", async () => {
    const answer = await call(emulator, "GET", "users?page[number]=9&page[size]=100");
    expect(at(answer.json, "data")).toEqual([]);
    expect(at(answer.json, "links", "next")).toBeNull();
    expect(at(answer.json, "meta", "page", "total")).toBe(250);
  });

  it.each([
    ["page[size]=0", "page[size]"],
    ["page[size]=101", "page[size]"],
    ["page[size]=ten", "page[size]"],
    ["page[number]=0", "page[number]"],
    ["page[number]=-1", "page[number]"],
  ])("answers 400 for %s, naming the parameter in meta.loc", async (query, name) => {
    const answer = await call(emulator, "GET", `users?${query}`);
    expect(answer.status).toBe(400);
    expect(errorField(answer, "meta")).toMatchObject({ loc: ["query", name] });
    expect(errorField(answer, "status")).toBe(400);
  });

  it("ignores unknown query parameters and keeps filter in the links", async () => {
    const answer = await call(emulator, "GET", "users?filter=LAST01&page[size]=3&colour=blue");
    expect(answer.status).toBe(200);
    const emails = (at(answer.json, "data") as Array<{ attributes: { email: string } }>).map((u) => u.attributes.email);
    expect(emails).toEqual(["user-010@example.com", "user-011@example.com", "user-012@example.com"]);
    expect(at(answer.json, "meta", "page", "total")).toBe(10);
    expect(at(answer.json, "links", "next")).toBe("/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=3&filter=LAST01");
  });

  it.each([
    ["an email fragment, any case", "USER-007@", 1],
    ["a full name across first and last", "first007 last007", 1],
    ["nothing that matches", "nobody", 0],
  ])("filters by %s", async (_label, filter, total) => {
    const answer = await call(emulator, "GET", `users?filter=${encodeURIComponent(filter)}`);
    expect(at(answer.json, "meta", "page", "total")).toBe(total);
  });

  it("fills mfaStatus only with ?mfaStatus=true, and keeps it in the links", async () => {
    const plain = await call(emulator, "GET", "users?page[size]=1");
    expect(at(plain.json, "data", 0, "attributes", "mfaStatus")).toBeNull();
    const withMfa = await call(emulator, "GET", "users?page[size]=1&mfaStatus=true");
    expect(at(withMfa.json, "data", 0, "attributes", "mfaStatus")).toEqual({ mfaEnabled: false });
    expect(at(withMfa.json, "links", "next")).toBe("/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=1&mfaStatus=true");
  });
});

describe("user records", () => {
  it("carry the contract's attributes, with microsecond timestamps and a UTC offset", async () => {
    const emulator = await startEmulator({
      seed: { users: [{ email: "m@example.com", firstName: "M", lastName: "Fa", mfaEnabled: true }] },
    });
    try {
      const id = emulator.users.list()[0]?.id ?? "";
      const answer = await call(emulator, "GET", `users/${id}?mfaStatus=true`);
      expect(answer.status).toBe(200);
      expect(at(answer.json, "data")).toEqual({
        id,
        type: "user",
        attributes: {
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
          email: "m@example.com",
          firstName: "M",
          lastName: "Fa",
          isGuest: false,
          role: "workspace_login_only",
          status: "live",
          mfaStatus: { mfaEnabled: true, mfaEnrollmentDate: expect.stringMatching(/\+00:00$/) },
        },
      });
      expect(at(answer.json, "links", "self")).toBe(`/api/v1/users/${id}`);
    } finally {
      await emulator.close();
    }
  });
});

describe("user writes", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: { users: [{ email: "Taken@Example.com", firstName: "Tak", lastName: "En" }] } });
  });
  afterAll(() => emulator.close());
  afterEach(() => {
    for (const user of emulator.users.list()) if (user.email !== "Taken@Example.com") emulator.users.remove(user.id);
  });

  describe("POST /users (create)", () => {
    it("answers 201 with a pending user holding a fresh uuid", async () => {
      const answer = await call(emulator, "POST", "users", { body: userBody({ email: "new@example.com", isGuest: true }) });
      expect(answer.status).toBe(201);
      const id = at(answer.json, "data", "id") as string;
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(at(answer.json, "data", "attributes")).toMatchObject({
        email: "new@example.com",
        status: "pending",
        isGuest: true,
        mfaStatus: null,
      });
      expect(emulator.users.get(id)?.email).toBe("new@example.com");
    });

    it("defaults isGuest to false", async () => {
      const answer = await call(emulator, "POST", "users", { body: userBody({ email: "host@example.com" }) });
      expect(at(answer.json, "data", "attributes", "isGuest")).toBe(false);
    });

    it("answers 409 when the email is taken, whatever its case", async () => {
      const answer = await call(emulator, "POST", "users", { body: userBody({ email: "taken@EXAMPLE.com" }) });
      expect(answer.status).toBe(409);
      expect(errorField(answer, "code")).toBe("Conflict");
      expect(errorField(answer, "detail")).toContain("taken@EXAMPLE.com");
      expect(emulator.users.list()).toHaveLength(1);
    });

    it.each([
      ["no data", {}, ["body", "data"]],
      [
        "a wrong type",
        { data: { type: "person", attributes: { email: "a@b.co", firstName: "A", lastName: "B", role: "workspace_owner" } } },
        ["body", "data", "type"],
      ],
      ["no email", userBody({ email: undefined }), ["body", "data", "attributes", "email"]],
      ["an invalid email", userBody({ email: "not-an-email" }), ["body", "data", "attributes", "email"]],
      ["a blank first name", userBody({ email: "a@b.co", firstName: " " }), ["body", "data", "attributes", "firstName"]],
      ["an unknown role", userBody({ email: "a@b.co", role: "king" }), ["body", "data", "attributes", "role"]],
      ["a non-boolean isGuest", userBody({ email: "a@b.co", isGuest: "yes" }), ["body", "data", "attributes", "isGuest"]],
      ["a body that is not an object", [1, 2], ["body"]],
    ])("answers 400 for %s, with loc/msg/type in meta", async (_label, body, loc) => {
      const answer = await call(emulator, "POST", "users", { body });
      expect(answer.status).toBe(400);
      expect(errorField(answer, "meta")).toEqual({ loc, msg: expect.any(String), type: expect.any(String) });
    });

    it("lists every validation problem, one error each", async () => {
      const answer = await call(emulator, "POST", "users", { body: { data: { type: "user", attributes: {} } } });
      const locs = (at(answer.json, "errors") as Array<{ meta: { loc: string[] } }>).map((e) => e.meta.loc.at(-1));
      expect(locs).toEqual(["email", "firstName", "lastName", "role"]);
    });

    it("answers 400 for a body that is not JSON", async () => {
      const answer = await call(emulator, "POST", "users", { raw: "{nope" });
      expect(answer.status).toBe(400);
      expect(errorField(answer, "meta")).toMatchObject({ loc: ["body"], type: "value_error.jsondecode" });
    });
  });

  describe("PUT /users/{id} (replace)", () => {
    it("replaces every writable attribute and keeps status and createdAt", async () => {
      const user = emulator.users.add({ email: "old@example.com", firstName: "Old", lastName: "Name", isGuest: true, status: "live" });
      const answer = await call(emulator, "PUT", `users/${user.id}`, {
        body: replaceBody(
          { email: "NEW@example.com", firstName: "New", lastName: "Name2", role: "workspace_super_admin" },
          { id: user.id },
        ),
      });
      expect(answer.status).toBe(200);
      expect(at(answer.json, "data", "attributes")).toMatchObject({
        email: "NEW@example.com",
        firstName: "New",
        lastName: "Name2",
        role: "workspace_super_admin",
        isGuest: false,
        status: "live",
        createdAt: user.createdAt,
      });
    });

    it.each([
      ["leaves isGuest out", userBody({ email: "guest@example.com" })],
      ["sends isGuest null", userBody({ email: "guest@example.com", isGuest: null })],
    ])(
      "answers 400 naming isGuest when the body %s: a replace takes every writable attribute, and the guest stays one",
      async (_l, body) => {
        const user = emulator.users.add({ email: "guest@example.com", firstName: "G", lastName: "U", isGuest: true });
        const answer = await call(emulator, "PUT", `users/${user.id}`, { body });
        expect(answer.status).toBe(400);
        expect(at(answer.json, "errors")).toEqual([
          {
            code: errorField(answer, "code"),
            title: errorField(answer, "title"),
            detail: expect.stringContaining("isGuest"),
            status: 400,
            meta: { loc: ["body", "data", "attributes", "isGuest"], msg: "field required", type: "value_error.missing" },
          },
        ]);
        expect(emulator.users.get(user.id)?.isGuest).toBe(true);
        emulator.users.remove(user.id);
      },
    );

    it("accepts a change of case of the user's own email", async () => {
      const user = emulator.users.add({ email: "case@example.com", firstName: "C", lastName: "A" });
      const answer = await call(emulator, "PUT", `users/${user.id}`, { body: replaceBody({ email: "CASE@example.com" }) });
      expect(answer.status).toBe(200);
    });

    it("answers 409 when the new email belongs to another user", async () => {
      const user = emulator.users.add({ email: "mine@example.com", firstName: "M", lastName: "E" });
      const answer = await call(emulator, "PUT", `users/${user.id}`, { body: replaceBody({ email: "TAKEN@example.com" }) });
      expect(answer.status).toBe(409);
      expect(emulator.users.get(user.id)?.email).toBe("mine@example.com");
    });

    it("frees the old email once changed, and takes the new one (any case), as the user's email lookups see it", async () => {
      const user = emulator.users.add({ email: "before@example.com", firstName: "B", lastName: "F" });
      expect((await call(emulator, "PUT", `users/${user.id}`, { body: replaceBody({ email: "After@example.com" }) })).status).toBe(200);
      expect(emulator.users.findByEmail("AFTER@example.com")?.id).toBe(user.id);
      expect(emulator.users.findByEmail("before@example.com")).toBeUndefined();
      expect((await call(emulator, "POST", "users", { body: userBody({ email: "after@EXAMPLE.com" }) })).status).toBe(409);
      const again = await call(emulator, "POST", "users", { body: userBody({ email: "before@example.com" }) });
      expect(again.status).toBe(201);
      emulator.users.remove(user.id);
      emulator.users.remove(String(at(again.json, "data", "id")));
      expect((await call(emulator, "POST", "users", { body: userBody({ email: "after@example.com" }) })).status).toBe(201);
    });

    it("answers 409 when data.id contradicts the URL", async () => {
      const user = emulator.users.add({ email: "id@example.com", firstName: "I", lastName: "D" });
      const answer = await call(emulator, "PUT", `users/${user.id}`, {
        body: replaceBody({ email: "id@example.com" }, { id: "someone-else" }),
      });
      expect(answer.status).toBe(409);
    });

    it("answers 404 for an unknown user", async () => {
      const answer = await call(emulator, "PUT", "users/00000000-0000-4000-8000-000000000000", {
        body: replaceBody({ email: "x@example.com" }),
      });
      expect(answer.status).toBe(404);
      expect(errorField(answer, "title")).toBe("Not found");
    });
  });

  describe("DELETE /users/{id}", () => {
    it("answers 204 with no body, then 404 for the gone user", async () => {
      const user = emulator.users.add({ email: "bye@example.com", firstName: "B", lastName: "Ye" });
      const first = await call(emulator, "DELETE", `users/${user.id}`);
      expect(first.status).toBe(204);
      expect(first.text).toBe("");
      expect(emulator.users.get(user.id)).toBeUndefined();
      expect((await call(emulator, "DELETE", `users/${user.id}`)).status).toBe(404);
      expect((await call(emulator, "GET", `users/${user.id}`)).status).toBe(404);
    });
  });
});
