/**
 * The provider's read of a class's static `get` (test/program/get.test.ts): the engine hands the host the properties the
 * class registered, its hidden `__get` among them, and the host reads the record the id names with no state. What the
 * service has becomes the outputs; a record not there fails naming the type and the id (a refresh's read drops the
 * resource instead); only reads are sent, and no message holds the key. A refresh of the resource reads with no state too.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/client";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider as entitlementProvider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { emulator, issuedKeys, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { users, integrations } = DEFAULT_IDS;
const MISSING = "0b0b0b0b-0000-4000-8000-000000000000";

/** What the engine hands the host for a `get` of the class whose provider module is `module`. */
const got = (module: string) =>
  ({
    __get: true,
    __provider: `exports.handler = () => require("pulumi-workspace-access/provider/${module}").provider;\n`,
  }) as never;

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
    const result = await userProvider.read!(users.grace, got("user"));
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
    const error = await rejection(userProvider.read!(MISSING, got("user")));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`User.get: no user has the id ${MISSING} in this workspace`);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });

  it("a refused key names where it came from, without the refresh's hint (a get runs with the stack config now)", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    issuedKeys.add("wa_wrong_key_get_000000000000");
    await configureFor(emu, { "workspace-access:apiKey": "wa_wrong_key_get_000000000000" });
    const error = await rejection(userProvider.read!(users.grace, got("user")));
    expect(error.message).toContain("answered 401");
    expect(error.message).toContain("pulumi config set --secret workspace-access:apiKey");
    expect(error.message).not.toContain("pulumi refresh uses the provider configuration");
  });
});

describe("an IntegrationEntitlement's get", () => {
  it("reads the membership <integrationId>/<userId> names: its set, its role and the member's email", async () => {
    const { methods } = await world();
    const id = `${integrations.youtube}/${users.grace}`;
    const result = await entitlementProvider.read!(id, got("integration-entitlement"));
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
    const notMember = await rejection(entitlementProvider.read!(`${integrations.youtube}/${users.alan}`, got("integration-entitlement")));
    expect(notMember.message).toContain(
      `IntegrationEntitlement.get: user ${users.alan} is not a member of integration ${integrations.youtube}`,
    );
    const gone = await rejection(entitlementProvider.read!(`${MISSING}/${users.alan}`, got("integration-entitlement")));
    expect(gone.message).toContain(`IntegrationEntitlement.get: there is no integration ${MISSING}`);
    const malformed = await rejection(entitlementProvider.read!(users.alan, got("integration-entitlement")));
    expect(malformed.message).toContain(`"${users.alan}" is not an IntegrationEntitlement id: expected <integrationId>/<userId>`);
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("an IntegrationMembers' get", () => {
  it("reads every member of the integration into members, none unmanaged", async () => {
    const { methods } = await world();
    const result = await membersProvider.read!(integrations.slack, got("integration-members"));
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
    const error = await rejection(membersProvider.read!(MISSING, got("integration-members")));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`IntegrationMembers.get: there is no integration ${MISSING}`);
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});

describe("a refresh of a resource a get read", () => {
  it("reads with no state as well: a member added since is in members, not unmanaged; a record gone is dropped, silently", async () => {
    const { emu, warnings, methods } = await world();
    const read = await membersProvider.read!(integrations.slack, got("integration-members"));
    emu.integrations.setMember(integrations.slack, users.grace, { role: "collaborator", entitlements: ["MEMBER"] });
    const refreshed = await membersProvider.read!(integrations.slack, { ...read.props, __provider: "p" } as never);
    expect(refreshed.props?.members.map((m) => m.userId)).toEqual([users.ada, users.grace, users.alan].sort());
    expect(refreshed.props?.unmanagedMembers).toEqual([]);
    expect(refreshed.props).toHaveProperty("__get", true);

    const user = await userProvider.read!(users.alan, got("user"));
    emu.users.remove(users.alan);
    expect(await userProvider.read!(users.alan, { ...user.props, __provider: "p" } as never)).toEqual({ id: "", props: {} });
    expect(warnings).toEqual([]);
    expect(new Set(methods())).toEqual(new Set(["GET"]));
  });
});
