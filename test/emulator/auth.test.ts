import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES, type Emulator, startEmulator } from "../../src/emulator/index";
import { at, call, errorField, TEAM, teamSeed, replaceBody, userBody } from "./helpers";

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ seed: teamSeed(), keys: { "read-only": ["read:users", "read:integrations", "read:automations"] } });
});
afterAll(() => emulator.close());

const tube = `integrations/${TEAM.tube}`;

/**
 * Every route, and the scopes it needs: the public document's description of each operation
 * ("The API scope required to use this endpoint is ..."), the contract's table for user writes.
 */
const ROUTES: Array<[method: string, path: string, scopes: string[], body?: unknown]> = [
  ["GET", "users", ["read:users"]],
  ["GET", `users/${TEAM.ada}`, ["read:users"]],
  ["POST", "users", ["write:users"], userBody({ email: "scoped@example.com" })],
  ["PUT", `users/${TEAM.cy}`, ["write:users"], replaceBody({ email: "cy@example.com" })],
  ["DELETE", "users/00000000-0000-4000-8000-000000000000", ["write:users"]],
  ["GET", "integrations", ["read:integrations"]],
  ["GET", tube, ["read:integrations"]],
  ["GET", `${tube}/entitlements`, ["write:integrations"]],
  ["GET", `${tube}/users`, ["read:integrations", "read:users"]],
  ["GET", `${tube}/user`, ["read:integrations", "read:users"]],
  ["GET", `${tube}/users/${TEAM.ada}`, ["read:integrations", "read:users"]],
  [
    "POST",
    `${tube}/users`,
    ["write:integrations", "read:automations"],
    { data: { type: "invite_tenant_users", attributes: { role: "account_collaborator", entitlements: [], userIds: [TEAM.cy] } } },
  ],
  [
    "PATCH",
    `${tube}/users/${TEAM.ada}`,
    ["write:integrations", "write:automations"],
    { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "VIEWER" }] } } },
  ],
  [
    "PATCH",
    `${tube}/users/${TEAM.ada}/entitlements`,
    ["write:integrations", "write:automations"],
    { data: { add: { entitlements: [{ id: "VIEWER" }] } } },
  ],
  ["DELETE", `${tube}/users/00000000-0000-4000-8000-000000000000`, ["write:integrations", "write:automations"]],
  ["GET", "jobs/00000000-0000-4000-8000-000000000000", ["read:automations"]],
];

/** Each (route, one of its scopes) pair. */
const ROUTE_SCOPES = ROUTES.flatMap(([method, path, scopes, body]) => scopes.map((scope) => [method, path, scope, scopes, body] as const));

describe("authentication", () => {
  it.each([
    ["no key", null, "missing"],
    ["an unknown key", "wa_emu_not_a_key", "not valid"],
    ["an empty key", "", "missing"],
  ])("answers 401 for %s, in the error shape", async (_label, key, words) => {
    const answer = await call(emulator, "GET", "users", { key });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({
      errors: [{ code: "Unauthorized", title: "Unauthorized", detail: expect.stringContaining(words), status: 401, meta: null }],
    });
  });

  it("records whether a key was sent, never the key", async () => {
    emulator.clearRequests();
    await call(emulator, "GET", "users", { key: null });
    await call(emulator, "GET", "users");
    expect(emulator.requests.map((r) => r.hasApiKey)).toEqual([false, true]);
    expect(JSON.stringify(emulator.requests)).not.toContain(emulator.apiKey);
  });
});

describe("scopes", () => {
  it.each(ROUTE_SCOPES)("%s %s without %s answers 403 naming the scope", async (method, path, scope, _all, body) => {
    const key = `lacks-${scope}-${method}-${path}`;
    emulator.addKey(
      key,
      ALL_SCOPES.filter((s) => s !== scope),
    );
    const answer = await call(emulator, method, path, { key, body });
    expect(answer.status).toBe(403);
    expect(errorField(answer, "code")).toBe("Forbidden");
    expect(errorField(answer, "detail")).toContain(scope);
    expect(errorField(answer, "meta")).toEqual({ missingScopes: [scope] });
  });

  it.each(ROUTES)("%s %s succeeds (or fails for another reason) with only %j", async (method, path, scopes, body) => {
    const key = `only-${method}-${path}`;
    emulator.addKey(key, scopes);
    const answer = await call(emulator, method, path, { key, body });
    expect([401, 403]).not.toContain(answer.status);
  });

  it("names every missing scope when several are", async () => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}`, { key: "read-only", body: {} });
    expect(errorField(answer, "meta")).toEqual({ missingScopes: ["write:integrations", "write:automations"] });
  });

  it("answers 401 instead once setMissingScopeStatus(401), and 403 again after", async () => {
    emulator.setMissingScopeStatus(401);
    try {
      const answer = await call(emulator, "POST", "users", { key: "read-only", body: userBody({ email: "x@example.com" }) });
      expect(answer.status).toBe(401);
      expect(errorField(answer, "detail")).toContain("write:users");
      expect(errorField(answer, "status")).toBe(401);
    } finally {
      emulator.setMissingScopeStatus(403);
    }
    expect((await call(emulator, "POST", "users", { key: "read-only", body: {} })).status).toBe(403);
  });

  it("answers 404 naming no scope once setMissingScopeStatus(404) (not disclosed), on a collection as on one record", async () => {
    emulator.setMissingScopeStatus(404);
    try {
      emulator.addKey("no-users", ["read:integrations"]);
      for (const path of ["users?page[size]=1", `${tube}/users`, `${tube}/users/${TEAM.ada}`]) {
        const answer = await call(emulator, "GET", path, { key: "no-users" });
        expect(answer.status).toBe(404);
        expect(errorField(answer, "code")).toBe("Not found");
        expect(errorField(answer, "meta")).toBeNull();
        expect(answer.text).not.toContain("read:users");
      }
      expect((await call(emulator, "GET", tube, { key: "no-users" })).status).toBe(200);
    } finally {
      emulator.setMissingScopeStatus(403);
    }
  });

  it("honours missingScopeStatus given at start", async () => {
    const other = await startEmulator({ seed: {}, missingScopeStatus: 401, keys: { k: [] } });
    try {
      expect((await call(other, "GET", "users", { key: "k" })).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it("checks scopes before the body, so an unauthorised write learns nothing about its body", async () => {
    const answer = await call(emulator, "POST", "users", { key: "read-only", raw: "{broken" });
    expect(answer.status).toBe(403);
  });

  it("does not serve the entitlement catalogue to a read-only key (the document asks for Write integrations)", async () => {
    const answer = await call(emulator, "GET", `${tube}/entitlements`, { key: "read-only" });
    expect(answer.status).toBe(403);
    expect(errorField(answer, "meta")).toEqual({ missingScopes: ["write:integrations"] });
  });

  it("accepts an invitation from a key with exactly the document's scopes, without write:automations", async () => {
    emulator.addKey("invites", ["write:integrations", "read:automations"]);
    const body = {
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds: [TEAM.cy] },
      },
    };
    const answer = await call(emulator, "POST", `${tube}/users`, { key: "invites", body });
    expect(answer.status).toBe(200);
    const job = await call(emulator, "GET", `jobs/${at(answer.json, "data", "id") as string}`, { key: "invites" });
    expect(job.status).toBe(200);
  });

  it("asks a user write answered with a job for Write automated jobs too (assumed)", async () => {
    const other = await startEmulator({ seed: teamSeed(), userWritesAsJobs: true, keys: { users: ["write:users"] } });
    try {
      const answer = await call(other, "DELETE", `users/${TEAM.cy}`, { key: "users" });
      expect(answer.status).toBe(403);
      expect(errorField(answer, "meta")).toEqual({ missingScopes: ["write:automations"] });
    } finally {
      await other.close();
    }
  });

  describe('scopeTable: "contract" (the contract\'s summary table, where the document differs)', () => {
    let contract: Emulator;
    beforeAll(async () => {
      contract = await startEmulator({ seed: teamSeed(), scopeTable: "contract" });
    });
    afterAll(() => contract.close());

    const invite = {
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds: [TEAM.cy] },
      },
    };
    it.each([
      ["the entitlement catalogue", "GET", `${tube}/entitlements`, ["read:integrations"], ["write:integrations"], undefined],
      [
        "an invitation",
        "POST",
        `${tube}/users`,
        ["write:integrations", "write:automations"],
        ["write:integrations", "read:automations"],
        invite,
      ],
    ] as const)("asks for %s what the contract's table names, not the document's", async (_what, method, path, needs, documents, body) => {
      contract.addKey(`contract-${method}`, [...needs]);
      contract.addKey(`document-${method}`, [...documents]);
      const refused = await call(contract, method, path, { key: `document-${method}`, body });
      expect(refused.status).toBe(403);
      expect(errorField(refused, "meta")).toEqual({
        missingScopes: needs.filter((scope) => !(documents as readonly string[]).includes(scope)),
      });
      expect((await call(contract, method, path, { key: `contract-${method}`, body })).status).toBe(200);
    });

    it.each(
      ROUTES.filter(
        ([method, path]) => !(method === "GET" && path.endsWith("/entitlements")) && !(method === "POST" && path === `${tube}/users`),
      ),
    )("asks %s %s for the same scopes as the document, %j", async (method, path, scopes, body) => {
      contract.addKey(`same-${method}-${path}`, scopes);
      expect([401, 403]).not.toContain((await call(contract, method, path, { key: `same-${method}-${path}`, body })).status);
      const fewer = scopes.slice(1);
      contract.addKey(`fewer-${method}-${path}`, fewer);
      expect((await call(contract, method, path, { key: `fewer-${method}-${path}`, body })).status).toBe(403);
    });
  });

  it("gives the default key every scope", async () => {
    const answer = await call(emulator, "GET", `${tube}/users`);
    expect(answer.status).toBe(200);
    expect(at(answer.json, "meta", "page", "total")).toBe(2);
  });
});
