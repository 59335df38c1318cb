/**
 * The provider's read of a class's static `get` (test/program/get.test.ts): the engine hands the host the properties the
 * class registered, its hidden `__get` among them, and the host reads the record the id names with no state. What the
 * service has becomes the outputs; a record not there fails naming the type and the id (a refresh's read drops the
 * resource instead); only reads are sent, and no message holds the key. A refresh of the resource reads with no state too. A key
 * refused (401/403) is told where it comes from and never the refresh's hint; a 404 the service may give to hide an integration
 * is said to be that, not an absence.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/client";
import { DEFAULT_IDS, defaultSeed, type MissingScopeStatus } from "../../src/emulator";
import { provider as entitlementProvider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { REFRESH_HINT } from "../../src/shared/hints";
import { emulator, issuedKeys, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { users, integrations } = DEFAULT_IDS;
const MISSING = "0b0b0b0b-0000-4000-8000-000000000000";

/** What the engine hands the host for a `get` of `id` (as the program gave it) of the class whose provider module is `module`. */
const got = (module: string, id: string) =>
  ({
    __get: id,
    __provider: `exports.handler = () => require("pulumi-workspace-access/provider/${module}").provider;\n`,
  }) as never;

/** A key the emulator issues holding only `scopes`, for a service answering `status` to a key lacking one. */
const LIMITED_KEY = "wa_limited_key_get_00000000000000";

/** An emulator of the default world answering `status` to a key lacking a scope, the provider configured with a key of `scopes`. */
async function limited(scopes: string[], status: MissingScopeStatus) {
  const emu = await emulator({ seed: defaultSeed(), missingScopeStatus: status, keys: { [LIMITED_KEY]: scopes } });
  issuedKeys.add(LIMITED_KEY);
  const warnings: string[] = [];
  await configureFor(emu, { "workspace-access:apiKey": LIMITED_KEY }, { warn: (message) => warnings.push(message) });
  const sent = () => emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
  return { emu, warnings, sent };
}

/** An emulator of the default world, the provider configured for it, and the warnings it gives. */
async function world() {
  const emu = await emulator({ seed: defaultSeed() });
  const warnings: string[] = [];
  await configureFor(emu, {}, { warn: (message) => warnings.push(message) });
  const methods = () => emu.requests.map((r) => r.method);
  return { emu, warnings, methods };
}

describe("a User's get", () => {
  it("reads the user its id names into the outputs, sending only GETs and keeping no marker", async () => {
    const { methods } = await world();
    const result = await userProvider.read!(users.grace, got("user", users.grace));
    expect(result.id).toBe(users.grace);
    expect(result.props).toMatchObject({
      email: "grace@example.com",
      firstName: "Grace",
      lastName: "Hopper",
      role: "workspace_super_admin",
      status: "live",
      adopted: false,
    });
    // Kept for a refresh of the resource, which reads with no state as well.
    expect(result.props).toHaveProperty("__get", true);
    expect(methods()).toEqual(["GET"]);
  });

  it("fails for an id no user has, naming the type and the id, where a refresh's read would drop the resource", async () => {
    const { methods } = await world();
    const error = await rejection(userProvider.read!(MISSING, got("user", MISSING)));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`User.get: no user has the id ${MISSING} in this workspace`);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });

  it("a refused key names where it came from, without the refresh's hint (a get runs with the stack config now)", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    issuedKeys.add("wa_wrong_key_get_000000000000");
    await configureFor(emu, { "workspace-access:apiKey": "wa_wrong_key_get_000000000000" });
    const error = await rejection(userProvider.read!(users.grace, got("user", users.grace)));
    expect(error.message).toContain("answered 401");
    expect(error.message).toContain("pulumi config set --secret workspace-access:apiKey");
    expect(error.message).not.toContain("pulumi refresh uses the provider configuration");
  });
});

describe("an IntegrationEntitlement's get", () => {
  it("reads the membership <integrationId>/<userId> names: its set, its role and the member's email", async () => {
    const { methods } = await world();
    const id = `${integrations.youtube}/${users.grace}`;
    const result = await entitlementProvider.read!(id, got("integration-entitlement", id));
    expect(result.id).toBe(id);
    expect(result.props).toMatchObject({
      integrationId: integrations.youtube,
      userId: users.grace,
      entitlements: ["EDITOR"],
      role: "account_collaborator",
      email: "grace@example.com",
      adopted: false,
    });
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });

  it("fails for a user who is not a member, and for an integration there is not, with no warning of a drop", async () => {
    const { methods, warnings } = await world();
    const notMember = await rejection(
      entitlementProvider.read!(
        `${integrations.youtube}/${users.alan}`,
        got("integration-entitlement", `${integrations.youtube}/${users.alan}`),
      ),
    );
    expect(notMember.message).toContain(
      `IntegrationEntitlement.get: user ${users.alan} is not a member of integration ${integrations.youtube}`,
    );
    const gone = await rejection(
      entitlementProvider.read!(`${MISSING}/${users.alan}`, got("integration-entitlement", `${MISSING}/${users.alan}`)),
    );
    expect(gone.message).toContain(`IntegrationEntitlement.get: there is no integration ${MISSING}`);
    const malformed = await rejection(entitlementProvider.read!(users.alan, got("integration-entitlement", users.alan)));
    expect(malformed.message).toContain(`"${users.alan}" is not an IntegrationEntitlement id: expected <integrationId>/<userId>`);
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("an IntegrationMembers' get", () => {
  it("reads every member of the integration into members, none unmanaged", async () => {
    const { methods } = await world();
    const result = await membersProvider.read!(integrations.slack, got("integration-members", integrations.slack));
    expect(result.id).toBe(integrations.slack);
    expect(result.props).toMatchObject({
      integrationId: integrations.slack,
      members: [
        { userId: users.ada, entitlements: ["ADMIN", "BILLING"], role: "account_owner" },
        { userId: users.alan, entitlements: ["MEMBER"], role: "account_collaborator" },
      ],
      unmanagedMembers: [],
      adoptedMembers: [],
    });
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });

  it("fails for an integration there is not, naming the type and the id, with no warning of a drop", async () => {
    const { methods, warnings } = await world();
    const error = await rejection(membersProvider.read!(MISSING, got("integration-members", MISSING)));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`IntegrationMembers.get: there is no integration ${MISSING}`);
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("a refresh of a resource a get read", () => {
  it("reads with no state as well: a member added since is in members, not unmanaged; a record gone is dropped, silently", async () => {
    const { emu, warnings, methods } = await world();
    const read = await membersProvider.read!(integrations.slack, got("integration-members", integrations.slack));
    emu.integrations.setMember(integrations.slack, users.grace, { role: "collaborator", entitlements: ["MEMBER"] });
    const refreshed = await membersProvider.read!(integrations.slack, { ...read.props, __provider: "p" } as never);
    expect(refreshed.props?.members.map((m) => m.userId)).toEqual([users.ada, users.grace, users.alan].sort());
    expect(refreshed.props?.unmanagedMembers).toEqual([]);
    expect(refreshed.props).toHaveProperty("__get", true);

    const user = await userProvider.read!(users.alan, got("user", users.alan));
    emu.users.remove(users.alan);
    expect(await userProvider.read!(users.alan, { ...user.props, __provider: "p" } as never)).toEqual({ id: "", props: {} });
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("a get whose key the service refuses", () => {
  const { youtube, slack } = integrations;
  const path = {
    user: `/users/${users.grace}`,
    member: `/integrations/${youtube}/users/${users.grace}`,
    members: `/integrations/${slack}/users`,
  };
  // A key of Read integrations alone is refused a user's read; one of Read users alone, a membership's and a member list's.
  const reads = [
    ["User", ["read:integrations"], path.user, "Read users (read:users)", () => userProvider.read!(users.grace, got("user", users.grace))],
    [
      "IntegrationEntitlement",
      ["read:users"],
      path.member,
      "Read integrations (read:integrations)",
      () => entitlementProvider.read!(`${youtube}/${users.grace}`, got("integration-entitlement", `${youtube}/${users.grace}`)),
    ],
    [
      "IntegrationMembers",
      ["read:users"],
      path.members,
      "Read integrations (read:integrations)",
      () => membersProvider.read!(slack, got("integration-members", slack)),
    ],
  ] as const;
  const cases = reads.flatMap(([type, scopes, sentTo, scope, read]) =>
    ([401, 403] as const).map((status) => ({ type, scopes: [...scopes], sentTo, scope, read, status })),
  );

  it.each(cases)("$type, $status: names the scope and where the key comes from, no refresh hint, no key", async (c) => {
    const { sent, warnings } = await limited(c.scopes, c.status);
    const error = await rejection(c.read());
    expect(error.message).toContain(`GET /api/v1${c.sentTo} answered ${c.status}`);
    expect(error.message).toContain(c.scope);
    expect(error.message).toContain(
      "The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).",
    );
    expect(error.message).not.toContain(REFRESH_HINT.trim());
    expect(error.message).not.toContain("pulumi refresh");
    expect(error.message).not.toContain(LIMITED_KEY);
    expect(sent()).toEqual([`GET ${c.sentTo} ${c.status}`]);
    expect(warnings).toEqual([]);
  });
});

describe("a get of an integration the service hides from the key (404, not disclosed)", () => {
  const { youtube, slack } = integrations;
  const hidden = (message: string) => {
    expect(message).toContain("the service does not disclose integrations to this key");
    expect(message).toContain("nothing was read as gone");
    expect(message).toContain("Give the key in workspace-access:apiKey the scope Read integrations (read:integrations)");
    expect(message).not.toContain("there is no integration");
    expect(message).not.toContain("is not a member");
    expect(message).not.toContain(LIMITED_KEY);
  };

  it("IntegrationEntitlement.get says the integration is not disclosed, not that the membership does not exist", async () => {
    const { sent, warnings } = await limited(["read:users"], 404);
    const error = await rejection(
      entitlementProvider.read!(`${youtube}/${users.grace}`, got("integration-entitlement", `${youtube}/${users.grace}`)),
    );
    hidden(error.message);
    expect(error.message).toContain(`GET /api/v1/integrations/${youtube}/users/${users.grace} answered 404`);
    // The member, the member list, then the integrations listing that shows the 404 is the service's, not the record's.
    expect(sent()).toEqual([
      `GET /integrations/${youtube}/users/${users.grace} 404`,
      `GET /integrations/${youtube}/users 404`,
      "GET /integrations 404",
      "GET /users 200",
    ]);
    expect(warnings).toEqual([]);
  });

  it("IntegrationMembers.get says the integration is not disclosed, not that there is no integration", async () => {
    const { sent, warnings } = await limited(["read:users"], 404);
    const error = await rejection(membersProvider.read!(slack, got("integration-members", slack)));
    hidden(error.message);
    expect(error.message).toContain(`GET /api/v1/integrations/${slack}/users answered 404`);
    expect(sent()).toEqual([`GET /integrations/${slack}/users 404`, "GET /integrations 404", "GET /users 200"]);
    expect(warnings).toEqual([]);
  });
});

describe("a refresh of a get's resource whose record was removed at the service", () => {
  const { youtube, slack } = integrations;
  const refreshOf = (props: object) => ({ ...props, __provider: "p" }) as never;

  it("an IntegrationEntitlement's membership removed, or its integration: an empty id, no warning, only reads", async () => {
    const { emu, warnings, methods } = await world();
    const id = `${youtube}/${users.grace}`;
    const read = await entitlementProvider.read!(id, got("integration-entitlement", id));
    expect(read.props).toHaveProperty("__get", true);
    emu.integrations.removeMember(youtube, users.grace);
    expect(await entitlementProvider.read!(id, refreshOf(read.props!))).toEqual({ id: "", props: {} });

    const other = `${slack}/${users.alan}`;
    const second = await entitlementProvider.read!(other, got("integration-entitlement", other));
    emu.integrations.remove(slack);
    expect(await entitlementProvider.read!(other, refreshOf(second.props!))).toEqual({ id: "", props: {} });
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });

  it("an IntegrationMembers' integration removed: an empty id, no warning, only reads", async () => {
    const { emu, warnings, methods } = await world();
    const read = await membersProvider.read!(slack, got("integration-members", slack));
    expect(read.props).toHaveProperty("__get", true);
    emu.integrations.remove(slack);
    emu.clearRequests();
    expect(await membersProvider.read!(slack, refreshOf(read.props!))).toEqual({ id: "", props: {} });
    // The list's 404, then the integration's own: gone, not hidden.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${slack}/users 404`,
      `GET /integrations/${slack} 404`,
    ]);
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("an IntegrationMembers' get of more members than a page holds", () => {
  it("reads every page: every member in members, none unmanaged", async () => {
    // The client asks pages of 100, the most the service gives: 130 members take two.
    const count = 130;
    const id = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a09";
    const ids = Array.from({ length: count }, (_, i) => `6f1d2c3b-4a5e-4f60-8a71-${String(i).padStart(12, "0")}`);
    const emu = await emulator({
      seed: {
        users: ids.map((userId, i) => ({ id: userId, email: `member${i}@example.com`, firstName: null, lastName: null })),
        integrations: [
          {
            id,
            application: "slack",
            entitlements: [{ id: "MEMBER" }],
            users: ids.map((userId) => ({ userId, entitlements: ["MEMBER"] })),
          },
        ],
      },
    });
    await configureFor(emu);
    const result = await membersProvider.read!(id, got("integration-members", id));
    expect(result.id).toBe(id);
    expect(result.props?.members.map((m) => m.userId)).toEqual([...ids].sort());
    expect(result.props?.members.every((m) => m.role === "account_collaborator")).toBe(true);
    expect(result.props?.unmanagedMembers).toEqual([]);
    const pages = emu.requests.filter((r) => r.path === `/integrations/${id}/users`);
    // And a second listing at another page size, which agrees: the set is answered from listings that agree, as a lookup's.
    expect(pages.map((r) => [r.query["page[number]"] ?? "1", r.query["page[size]"], r.status])).toEqual([
      ["1", "100", 200],
      ["2", "100", 200],
      ["1", "99", 200],
      ["2", "99", 200],
    ]);
    expect(new Set(emu.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
  });
});

describe("a get beside the resource managing the same record, in one deployment", () => {
  it("reads before the write and after it (dependsOn): the write is the managed resource's alone, and the read after it sees it", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    const warnings: string[] = [];
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: (message) => warnings.push(message) });
    const { youtube } = integrations;
    const before = await membersProvider.read!(youtube, got("integration-members", youtube));
    expect(before.props?.members.map((m) => m.userId)).not.toContain(users.alan);

    const program = { integrationId: youtube, userId: users.alan, entitlements: ["VIEWER"] };
    const news = (await entitlementProvider.check!({}, program)).inputs!;
    const created = await entitlementProvider.create(news);
    expect(created.outs?.adopted).toBe(false);

    // Read after the write, as a get with dependsOn on the managed resource is: neither its listing nor its member read is stale.
    const one = await entitlementProvider.read!(`${youtube}/${users.alan}`, got("integration-entitlement", `${youtube}/${users.alan}`));
    expect(one.props).toMatchObject({ userId: users.alan, entitlements: ["VIEWER"], adopted: false });
    const whole = await membersProvider.read!(youtube, got("integration-members", youtube));
    expect(whole.props?.members.map((m) => m.userId)).toContain(users.alan);
    expect(whole.props?.adoptedMembers).toEqual([]);

    // The managed user's create beside a get of it: the get reads the user the create made, and changes nothing.
    const user = await userProvider.create({ email: "kate@example.com", firstName: "Kate", lastName: "Bell" } as never);
    const read = await userProvider.read!(user.id, got("user", user.id));
    expect(read.props).toMatchObject({ email: "kate@example.com", adopted: false });

    // Only the two creates wrote; every read of a get was a GET.
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /integrations/${youtube}/users`,
      "POST /users",
    ]);
    expect(warnings).toEqual([]);
  });
});

describe("a get's id in another case than the one form", () => {
  // The program registers a membership's and an integration's id in the one form (lower case) and hands the id as given in
  // `__get`: the outputs are those of the one form, the messages name the id as the program wrote it.
  const { youtube } = integrations;

  it("reads the same outputs as the id in the one form", async () => {
    await world();
    const id = `${youtube}/${users.grace}`;
    const plain = await entitlementProvider.read!(id, got("integration-entitlement", id));
    const upper = await entitlementProvider.read!(id, got("integration-entitlement", id.toUpperCase()));
    expect(upper).toEqual(plain);
    const members = await membersProvider.read!(youtube, got("integration-members", youtube.toUpperCase()));
    expect(members).toEqual(await membersProvider.read!(youtube, got("integration-members", youtube)));
    expect(members.props).not.toHaveProperty("__get", youtube.toUpperCase());
    expect(members.props).toHaveProperty("__get", true);
  });

  it("a membership or integration not there is named as the program gave it", async () => {
    await world();
    const written = `${youtube}/${users.alan}`.toUpperCase();
    const notMember = await rejection(entitlementProvider.read!(`${youtube}/${users.alan}`, got("integration-entitlement", written)));
    expect(notMember.message).toContain(`Check the id given, ${written} (<integrationId>/<userId>`);
    const gone = await rejection(membersProvider.read!(MISSING, got("integration-members", MISSING.toUpperCase())));
    expect(gone.message).toContain(`Check the id given, ${MISSING.toUpperCase()} (`);
  });
});
