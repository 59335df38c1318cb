import { describe, expect, it } from "vitest";
import { collect, ForbiddenError, InvalidResponseError, NotFoundError } from "../../src/client";
import { type IntegrationPresence, PRESENCE_MAX_AGE_MS } from "../../src/client/integrations";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";
import { clientOf, oddServer } from "../support/odd-server";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, grace } = DEFAULT_IDS.users;

describe("integrations.list", () => {
  it("returns 150 integrations with page size 100 exactly once, following links.next", async () => {
    const emu = await emulator();
    for (let i = 0; i < 150; i++)
      emu.integrations.add({ application: i % 2 ? "Slack" : "YouTube", label: `acme ${i}`, entitlements: [{ id: "VIEWER" }] });
    const { client } = clientFor(emu);
    const integrations = await collect(client.integrations.list());
    expect(integrations).toHaveLength(150);
    expect(new Set(integrations.map((i) => i.id)).size).toBe(150);
    expect(integrations[0]).toMatchObject({ application: "YouTube", label: "acme 0" });
    expect(integrations[0]!.createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.query["page[number]"] ?? "1"}/${r.query["page[size]"]}`)).toEqual([
      "GET /integrations 1/100",
      "GET /integrations 2/100",
    ]);
  });

  it("hands a record that breaks the contract to onInvalid, with its id and field, and serves the others", async () => {
    const emu = await emulator();
    const ok = emu.integrations.add({ application: "Slack", label: "acme ok", entitlements: [{ id: "VIEWER" }] });
    const odd = emu.integrations.add({ application: "YouTube", label: "acme odd", entitlements: [{ id: "VIEWER" }] });
    const { client } = clientFor(emu);
    const page = (await (await fetch(`${emu.url}integrations?page%5Bsize%5D=100`, { headers: { "x-api-key": emu.apiKey } })).json()) as {
      data: Array<{ id: string; attributes: Record<string, unknown> }>;
    };
    page.data.find((r) => r.id === odd.id)!.attributes["label"] = 42;
    emu.fault({ method: "GET", path: "/integrations", body: JSON.stringify(page) });
    const invalid: Array<[string | undefined, string]> = [];
    const integrations = await collect(client.integrations.list({ onInvalid: (id, error) => invalid.push([id, error.message]) }));
    expect(integrations.map((i) => i.id)).toEqual([ok.id]);
    expect(invalid).toEqual([
      [odd.id, expect.stringMatching(/record \(id [^)]+\) that does not match the API contract: field "attributes\.label"/)],
    ]);
  });

  it("names the scope it needs on a 403", async () => {
    const emu = await emulator({ keys: { wa_users_only_key_0000000000000000: ["read:users"] } });
    const { client } = clientFor(emu, { apiKey: "wa_users_only_key_0000000000000000" });
    const error = await rejection(collect(client.integrations.list()));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Read integrations (read:integrations)");
  });

  it.each([
    ["the entitlement catalogue", "Write integrations (write:integrations)", ["read:users", "read:integrations", "read:automations"]],
    [
      "an invitation",
      // The document's, and the contract's Write automated jobs, which "every write that starts a job" needs.
      "Write integrations (write:integrations), Read automated jobs (read:automations) and Write automated jobs (write:automations)",
      ["read:users"],
    ],
  ] as const)("names the scopes the public document asks for %s on a 403", async (what, named, scopes) => {
    const key = "wa_scoped_key_00000000000000000000";
    const emu = await emulator({ keys: { [key]: [...scopes] } });
    const { client } = clientFor(emu, { apiKey: key });
    const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }] });
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const error = await rejection(
      what === "an invitation"
        ? client.integrations.invite(integration.id, { userIds: [user.id], entitlements: [] })
        : client.integrations.listEntitlements(integration.id),
    );
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(named);
  });
});

describe("the entitlement catalogue's refusals name the contract's scope and the document's", () => {
  // The contract's table: Read integrations covers "integration, entitlement and integration user reads"; the document's
  // operation asks for Write integrations. Which the service enforces is not known: a refusal names both.
  const both = "needs the scopes Read integrations (read:integrations) and Write integrations (write:integrations)";

  it.each([
    ["contract", "Read integrations", ALL_SCOPES.filter((s) => s !== "read:integrations")],
    ["document", "Write integrations", ALL_SCOPES.filter((s) => s !== "write:integrations")],
  ] as const)("under the %s table, a key without %s is refused (403), and the error names both", async (scopeTable, _lacking, held) => {
    const key = "wa_catalogue_scoped_key_0000000000";
    const emu = await emulator({ seed: defaultSeed(), scopeTable, keys: { [key]: [...held] } });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.listEntitlements(youtube));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(both);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /integrations/${youtube}/entitlements 403`]);
  });

  it("its success vouches for no read scope: a key served it under the document's table may still be hidden integrations", async () => {
    // A key with Write integrations but not Read integrations, from a service answering 404 for a missing scope: the catalogue
    // is served, and the integration's own read answering 404 afterwards is still proven (its listing), not read as gone.
    const key = "wa_catalogue_write_only_key_000000";
    const held = ALL_SCOPES.filter((s) => s !== "read:integrations");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: held }, missingScopeStatus: 404 });
    const { client } = clientFor(emu, { apiKey: key });
    expect((await client.integrations.listEntitlements(youtube)).length).toBeGreaterThan(0);
    const presence = await client.integrations.presence(youtube);
    expect(presence.kind).toBe("undisclosed");
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/entitlements 200`,
      `GET /integrations/${youtube} 404`,
      "GET /integrations 404",
    ]);
  });

  it("its 404 is left to its caller (the integration's own read tells), not proven by the integrations' listing", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    await collect(client.users.list({ pageSize: 1 }));
    emu.fault({ method: "GET", path: `/integrations/${youtube}/entitlements`, status: 404 });
    emu.clearRequests();
    expect(NotFoundError.isInstance(await rejection(client.integrations.listEntitlements(youtube)))).toBe(true);
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /integrations/${youtube}/entitlements 404`]);
  });
});

describe("under either scope table the emulator enforces (the public document's, the contract's)", () => {
  it.each([
    ["document", ["write:integrations"], ["write:integrations", "read:automations"]],
    ["contract", ["read:integrations"], ["write:integrations", "write:automations", "read:automations"]],
  ] as const)("under the %s table, keys with only its scopes read the catalogue, and invite and wait", async (table, catalogue, invite) => {
    const emu = await emulator({
      scopeTable: table,
      keys: { wa_catalogue_key_000000000000000000: [...catalogue], wa_invite_key_0000000000000000000: [...invite] },
    });
    const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }] });
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const reader = clientFor(emu, { apiKey: "wa_catalogue_key_000000000000000000" }).client;
    expect((await reader.integrations.listEntitlements(integration.id)).map((e) => e.id)).toEqual(["VIEWER"]);
    const { client } = clientFor(emu, { apiKey: "wa_invite_key_0000000000000000000" });
    const job = await client.integrations.invite(integration.id, { userIds: [user.id], entitlements: ["VIEWER"] });
    expect(await job.wait()).toMatchObject({ status: "finished" });
    expect(emu.integrations.members(integration.id)).toEqual([{ userId: user.id, role: "collaborator", entitlements: ["VIEWER"] }]);
    // Every request was admitted: none answered 401 or 403 (the job polls included).
    expect(emu.requests.filter((r) => r.status !== 200)).toEqual([]);
    expect(emu.requests.some((r) => r.path.startsWith("/jobs/"))).toBe(true);
  });
});

describe("integrations.invite", () => {
  it("a 202 whose body cannot be read fails, saying the invitation was accepted, and is not sent again", async () => {
    const server = await oddServer((_req, res) => {
      res.writeHead(202, { "content-type": "text/plain" });
      res.end("Accepted");
    });
    const { client } = clientOf(server);
    const error = await rejection(client.integrations.invite("i1", { userIds: ["u1"], entitlements: [] }));
    expect(InvalidResponseError.isInstance(error)).toBe(true);
    expect(error.message).toBe(
      'POST /api/v1/integrations/i1/users answered 202 with a body that is not JSON ("Accepted"). ' +
        "The write was accepted (202), but its answer could not be read: read back what it changed.",
    );
    expect(server.received).toEqual(["POST /api/v1/integrations/i1/users"]);
  });
});

describe("integrations.invite", () => {
  it("a 200 whose job does not match the contract fails naming the field, saying the invitation was accepted", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const job = { data: { id: "j1", type: "job", attributes: { status: 7 } } };
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, body: JSON.stringify(job) });
    const { client } = clientFor(emu);
    const error = await rejection(client.integrations.invite(youtube, { userIds: [ada], entitlements: ["VIEWER"] }));
    expect(error).toMatchObject({ kind: "invalid_response", field: "data.attributes.status", status: 200 });
    expect(error.message).toContain(
      `POST /api/v1/integrations/${youtube}/users answered 200 with a job that does not match the API contract`,
    );
    expect(error.message).toContain("The write was accepted (200), but its answer could not be read: read back what it changed.");
    expect(emu.requests.map((r) => r.method)).toEqual(["POST"]);
  });
});

describe("integration writes answered without a job (the emulator's integrationWriteAnswer)", () => {
  it.each(["no-content", "empty-ok", "no-data"] as const)(
    "%s: each write is done, a handle with no job to wait for, nothing polled",
    async (form) => {
      const emu = await emulator({ quirks: { integrationWriteAnswer: form } });
      const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] });
      const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
      const { client } = clientFor(emu);
      const handles = [
        await client.integrations.invite(integration.id, { userIds: [user.id], entitlements: ["VIEWER"] }),
        await client.integrations.setEntitlements(integration.id, user.id, ["EDITOR"]),
        await client.integrations.changeEntitlements(integration.id, user.id, { add: ["VIEWER"] }),
      ];
      expect(emu.integrations.members(integration.id)).toEqual([
        { userId: user.id, role: "collaborator", entitlements: ["EDITOR", "VIEWER"] },
      ]);
      handles.push(await client.integrations.removeUser(integration.id, user.id));
      for (const handle of handles) {
        expect(handle).toMatchObject({ id: null, status: null });
        expect(await handle.wait()).toBeNull();
      }
      expect(emu.integrations.members(integration.id)).toEqual([]);
      expect(emu.requests.map((r) => r.method)).toEqual(["POST", "PATCH", "PATCH", "DELETE"]);
    },
  );
});

describe("integrations.listUsers: a relative links.next is read against the page it came with, as any link (RFC 3986)", () => {
  it.each([
    ["a query alone", "?page%5Bnumber%5D=2&page%5Bsize%5D=1"],
    ["a path relative to the list", "users?page%5Bnumber%5D=2&page%5Bsize%5D=1"],
  ])("%s: the members' next page, not another list (the workspace's users would pass for members)", async (_, next) => {
    const emu = await emulator({ seed: defaultSeed() });
    const path = `/integrations/${youtube}/users`;
    const first = {
      data: [{ id: ada, type: "user" }],
      links: { self: `/api/v1${path}`, next, previous: null },
      meta: { page: { total: 2 } },
    };
    emu.fault({ method: "GET", path, body: JSON.stringify(first) });
    const { client } = clientFor(emu);
    const members = await collect(client.integrations.listUsers(youtube, { pageSize: 1 }));
    expect(emu.requests.map((r) => `${r.path} ${r.query["page[number]"] ?? "-"}`)).toEqual([`${path} -`, `${path} 2`]);
    expect(members.map((m) => m.id).every((id) => [ada, grace].some((member) => member === id))).toBe(true);
  });
});

describe("a 404 to a read of integrations, before integrations were shown to the key", () => {
  const missing = "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99";
  const lines = (emu: Awaited<ReturnType<typeof emulator>>) =>
    emu.requests.map(
      (r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")}${r.query["page[size]"] === "1" ? "?1" : ""} ${r.status}`,
    );

  it("is proven once by the integrations' listing (one record), then trusted: an integration read, then a member list", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    expect(NotFoundError.isInstance(await rejection(client.integrations.get(missing)))).toBe(true);
    expect(NotFoundError.isInstance(await rejection(collect(client.integrations.listUsers(missing))))).toBe(true);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id 404",
      "GET /integrations?1 200",
      "GET /integrations/:id/users 404",
      // The member list needs read:users too, not shown yet: its listing once.
      "GET /users?1 200",
    ]);
  });

  it("member reads of two integrations answered 404 at once wait for one member list (one record), which shows both scopes", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    const { slack } = DEFAULT_IDS.integrations;
    const { katherine } = DEFAULT_IDS.users;
    const reads = [youtube, slack].map((id) => rejection(client.integrations.getUser(id, katherine)));
    for (const error of await Promise.all(reads)) expect(NotFoundError.isInstance(error)).toBe(true);
    expect(lines(emu).filter((line) => line.includes("?1"))).toEqual(["GET /integrations/:id/users?1 200"]);
  });
});

describe("integrations.presence: is the integration there, gone, or not disclosed to this key", () => {
  const reads = (emu: Awaited<ReturnType<typeof emulator>>, id: string) =>
    emu.requests.filter((r) => r.path === `/integrations/${id}`).map((r) => r.status);

  it("answers everyone asking together with one GET, and reuses the answer for PRESENCE_MAX_AGE_MS only", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client, clock } = clientFor(emu);
    const together = await Promise.all([client.integrations.presence(youtube), client.integrations.presence(youtube.toUpperCase())]);
    expect(together.map((p) => p.kind)).toEqual(["there", "there"]);
    expect(together[0]).toMatchObject({ integration: { id: youtube, application: "YouTube" } });
    clock.advance(PRESENCE_MAX_AGE_MS);
    expect((await client.integrations.presence(youtube)).kind).toBe("there");
    expect(reads(emu, youtube)).toEqual([200]);
    // Deleted meanwhile: once the answer is older than the window, it is read again.
    emu.integrations.remove(youtube);
    clock.advance(1);
    expect(await client.integrations.presence(youtube)).toEqual({ kind: "gone" });
    expect(await client.integrations.presence(youtube)).toEqual({ kind: "gone" });
    expect(reads(emu, youtube)).toEqual([200, 404]);
  });

  it("keeps no failure: a 5xx is thrown, and the next ask reads again", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu, { maxRetries: 0 });
    emu.fault({ method: "GET", path: `/integrations/${youtube}`, status: 503, times: 1 });
    expect(await rejection(client.integrations.presence(youtube))).toMatchObject({ status: 503 });
    expect((await client.integrations.presence(youtube)).kind).toBe("there");
    expect(reads(emu, youtube)).toEqual([503, 200]);
  });

  it("a key the service does not disclose integrations to (404 for a missing scope) gets undisclosed, with the error naming the scope, not kept", async () => {
    const key = `wa_sees_no_apps_${"7".repeat(16)}`;
    issuedKeys.add(key);
    const emu = await emulator({
      seed: defaultSeed(),
      keys: { [key]: ALL_SCOPES.filter((s) => s !== "read:integrations") },
      missingScopeStatus: 404,
    });
    const { client } = clientFor(emu, { apiKey: key });
    const presence = await client.integrations.presence(youtube);
    expect(presence.kind).toBe("undisclosed");
    const { error } = presence as Extract<IntegrationPresence, { kind: "undisclosed" }>;
    expect(error).toMatchObject({ kind: "configuration" });
    expect(error.message).toContain("Read integrations (read:integrations)");
    expect((await client.integrations.presence(youtube)).kind).toBe("undisclosed");
    expect(reads(emu, youtube)).toEqual([404, 404]);
  });
});
