/**
 * What the real client sends, as the emulator received it, against the public OpenAPI document:
 * request bodies of the documented writes (validateRequestBody, contract strictness), and the
 * path and query parameters of every request (each must be a documented operation, and each
 * query parameter one the document declares for it).
 *
 * User create and replace (`POST /users`, `PUT /users/{id}`) are not in the document: their bodies
 * are the contract's *assumed* shape, so they are checked against api-contract.md, not the document.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, KNOWN_USER_ROLES, type WorkspaceAccessClient } from "../../src/client";
import { DEFAULT_IDS, type Emulator, type RecordedRequest } from "../../src/emulator";
import { clientFor, emulator } from "../support/fixtures";
import { conformanceSeed, queryParametersOf } from "./harness";
import { describeWithDocument, findOperation, itWithDocument, matchPath, validateRequestBody } from "./openapi";

const { ada, grace, alan, katherine } = DEFAULT_IDS.users;
const { youtube, slack } = DEFAULT_IDS.integrations;

async function setup(): Promise<{ emu: Emulator; client: WorkspaceAccessClient }> {
  const emu = await emulator({ seed: conformanceSeed() });
  const { client } = clientFor(emu);
  return { emu, client };
}

/** The one request of `method` the emulator received (after clearRequests). */
function received(emu: Emulator, method: string): RecordedRequest {
  const found = emu.requests.filter((r) => r.method === method);
  expect(found, `${method} requests received`).toHaveLength(1);
  return found[0]!;
}

type Write = [
  label: string,
  call: (client: WorkspaceAccessClient) => Promise<unknown>,
  method: string,
  operationId: string,
  expectedBody: unknown,
];

const refs = (...ids: string[]) => ids.map((id) => ({ id }));
const writes: Write[] = [
  [
    "invite (default role account_collaborator)",
    (c) => c.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER", "EDITOR"] }),
    "POST",
    "postInviteIntegrationUser",
    {
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: refs("VIEWER", "EDITOR"), userIds: [katherine] },
      },
    },
  ],
  [
    "invite (account_owner, two users, no entitlements)",
    (c) => c.integrations.invite(slack, { userIds: [grace, katherine], role: "account_owner", entitlements: [] }),
    "POST",
    "postInviteIntegrationUser",
    { data: { type: "invite_tenant_users", attributes: { role: "account_owner", entitlements: [], userIds: [grace, katherine] } } },
  ],
  [
    "setEntitlements (two)",
    (c) => c.integrations.setEntitlements(youtube, grace, ["VIEWER", "MANAGER"]),
    "PATCH",
    "patchUpdateUserEntitlement",
    { data: { type: "update_user_entitlement", attributes: { entitlements: refs("VIEWER", "MANAGER") } } },
  ],
  [
    "setEntitlements (none: the whole set emptied)",
    (c) => c.integrations.setEntitlements(youtube, grace, []),
    "PATCH",
    "patchUpdateUserEntitlement",
    { data: { type: "update_user_entitlement", attributes: { entitlements: [] } } },
  ],
  [
    "changeEntitlements (add and remove)",
    (c) => c.integrations.changeEntitlements(youtube, grace, { add: ["VIEWER"], remove: ["EDITOR"] }),
    "PATCH",
    "patchAddRemoveEntitlementUser.",
    { data: { add: { entitlements: refs("VIEWER") }, remove: { entitlements: refs("EDITOR") } } },
  ],
  [
    "changeEntitlements (add only)",
    (c) => c.integrations.changeEntitlements(youtube, grace, { add: ["MANAGER", "VIEWER"] }),
    "PATCH",
    "patchAddRemoveEntitlementUser.",
    { data: { add: { entitlements: refs("MANAGER", "VIEWER") }, remove: { entitlements: [] } } },
  ],
  [
    "changeEntitlements (remove only)",
    (c) => c.integrations.changeEntitlements(slack, ada, { remove: ["BILLING"] }),
    "PATCH",
    "patchAddRemoveEntitlementUser.",
    { data: { add: { entitlements: [] }, remove: { entitlements: refs("BILLING") } } },
  ],
  ["removeUser (no body)", (c) => c.integrations.removeUser(youtube, grace), "DELETE", "deleteIntegrationUser", undefined],
];

describeWithDocument("client request bodies vs the document (as the emulator received them)", () => {
  it.each(writes)("%s", async (_label, call, method, operationId, expectedBody) => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await call(client);
    const request = received(emu, method);
    expect(request.status, JSON.stringify(request)).toBe(200);
    const match = matchPath(request.path, method);
    expect(match?.operation?.operationId).toBe(operationId);
    expect(request.body).toEqual(expectedBody);
    const outcome = validateRequestBody(method, request.path, request.body);
    expect(outcome.operationId).toBe(operationId);
    expect(outcome.errors, JSON.stringify(request.body)).toEqual([]);
    // And the document alone, without the contract overlay.
    expect(validateRequestBody(method, request.path, request.body, { strictness: "document" }).errors).toEqual([]);
  });
});

/**
 * The contract's assumed user bodies (api-contract.md, Users): create
 * `{ data: { type: "user", attributes: { email, firstName, lastName, role, isGuest? } } }`; replace the same,
 * with every writable attribute and `data.id` (if present) equal to the path id. Strict: nothing else.
 */
const userAttributes = z.strictObject({
  email: z.email(),
  firstName: z.string().min(1),
  lastName: z.string().min(1),
  role: z.enum(KNOWN_USER_ROLES),
  isGuest: z.boolean().optional(),
});
const createBody = z.strictObject({ data: z.strictObject({ type: z.literal("user"), attributes: userAttributes }) });
const replaceBody = (id: string) =>
  z.strictObject({
    data: z.strictObject({ id: z.literal(id).optional(), type: z.literal("user"), attributes: userAttributes.required({ isGuest: true }) }),
  });

describe("client user write bodies vs the contract's assumed shape (not in the document)", () => {
  itWithDocument("the document has no user create, replace or delete to validate against", () => {
    expect(findOperation("POST", "/users")).toBeUndefined();
    expect(findOperation("PUT", `/users/${ada}`)).toBeUndefined();
    expect(findOperation("DELETE", `/users/${ada}`)).toBeUndefined();
    expect(() => validateRequestBody("POST", "/users", {})).toThrow(/not an operation of the public OpenAPI document/);
  });

  it("create sends { data: { type: user, attributes } } (isGuest always, false by default)", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await client.users.create({ email: "new.person@example.com", firstName: "New", lastName: "Person", role: "workspace_login_only" });
    const sent = received(emu, "POST");
    expect(sent.path).toBe("/users");
    const parsed = createBody.safeParse(sent.body);
    expect(parsed.error?.issues ?? [], JSON.stringify(sent.body)).toEqual([]);
    expect(sent.body).toEqual({
      data: {
        type: "user",
        attributes: { email: "new.person@example.com", firstName: "New", lastName: "Person", role: "workspace_login_only", isGuest: false },
      },
    });
  });

  it("create with isGuest sends it", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await client.users.create({
      email: "guest@partner.example",
      firstName: "Gu",
      lastName: "Est",
      role: "workspace_guest_user",
      isGuest: true,
    });
    const sent = received(emu, "POST");
    expect(createBody.safeParse(sent.body).error?.issues ?? []).toEqual([]);
    expect(sent.body).toMatchObject({ data: { attributes: { isGuest: true } } });
  });

  it("replace sends every writable attribute, and data.id equal to the path id", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await client.users.replace(alan, {
      email: "alan@example.com",
      firstName: "Alan",
      lastName: "Turing",
      role: "workspace_super_admin",
      isGuest: false,
    });
    const sent = received(emu, "PUT");
    expect(sent.path).toBe(`/users/${alan}`);
    expect(replaceBody(alan).safeParse(sent.body).error?.issues ?? [], JSON.stringify(sent.body)).toEqual([]);
  });

  // The contract says replace carries "all writable attributes"; `isGuest` is one of them
  // (api-contract.md, Users: Writable): left out by the caller, it is sent as false.
  it("replace without isGuest still sends isGuest", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await client.users.replace(alan, { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only" });
    const sent = received(emu, "PUT");
    expect(replaceBody(alan).safeParse(sent.body).error?.issues ?? [], JSON.stringify(sent.body)).toEqual([]);
  });

  it("delete sends no body", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await client.users.delete(katherine);
    const sent = received(emu, "DELETE");
    expect(sent.path).toBe(`/users/${katherine}`);
    expect(sent.body).toBeUndefined();
  });
});

describeWithDocument("every request the client sends names a documented operation and declared query parameters", () => {
  it("reads, lists with paging/filter/mfaStatus, writes and job polls", async () => {
    const { emu, client } = await setup();
    emu.clearRequests();
    await collect(client.users.list({ pageSize: 4 }));
    await collect(client.users.list({ filter: "example.com", mfaStatus: true, pageSize: 5 }));
    await client.users.get(ada, { mfaStatus: true });
    await client.users.get(grace);
    await client.integrations.get(youtube);
    await client.integrations.listEntitlements(youtube);
    await collect(client.integrations.listUsers(youtube, { pageSize: 1 }));
    await client.integrations.getUser(youtube, ada);
    await (await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] })).wait();
    await (await client.integrations.setEntitlements(youtube, grace, ["VIEWER"])).wait();
    await (await client.integrations.changeEntitlements(youtube, grace, { add: ["EDITOR"] })).wait();
    await (await client.integrations.removeUser(youtube, grace)).wait();

    const seen = new Set<string>();
    for (const request of emu.requests) {
      const where = `${request.method} ${request.rawPath}`;
      expect(request.status, where).toBeGreaterThanOrEqual(200);
      expect(request.status, where).toBeLessThan(300);
      const op = matchPath(request.path, request.method)?.operation;
      expect(op, `${where} is not a documented operation`).toBeDefined();
      seen.add(op!.operationId);
      const declared = queryParametersOf(request.method, request.path);
      for (const [name, value] of Object.entries(request.query)) {
        expect(declared, `${where}: query parameter ${name}`).toContain(name);
        if (name === "page[size]" || name === "page[number]") expect(Number(value), where).toBeGreaterThanOrEqual(1);
        if (name === "page[size]") expect(Number(value), where).toBeLessThanOrEqual(100);
        if (name === "mfaStatus") expect(value, where).toBe("true");
      }
    }
    expect([...seen].sort()).toEqual(
      [
        "getUserList",
        "getUserById",
        "getIntegrationById",
        "getIntegrationEntitlements",
        "getIntegrationUsers",
        "getIntegrationUserById",
        "postInviteIntegrationUser",
        "patchUpdateUserEntitlement",
        "patchAddRemoveEntitlementUser.",
        "deleteIntegrationUser",
        "getJobById",
      ].sort(),
    );
    // The users list followed links.next over several pages (11 users, 4 a page).
    expect(emu.requests.filter((r) => r.method === "GET" && r.path === "/users").length).toBeGreaterThanOrEqual(3 + 2);
  });
});
