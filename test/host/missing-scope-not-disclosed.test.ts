/**
 * The resources under a service that answers 404 ("not disclosed") to a key lacking a scope, on a collection as on one
 * record (the emulator's `missingScopeStatus: 404`, `--missing-scope 404`): the contract's 404 means "not found or not
 * disclosed". docs/contract.md assumes `GET /users` is never answered 404 under the API root; under this switch a key
 * without `read:users` gets 404 there too. A 404 must then never be read as "gone": the refresh and the destroy fail,
 * naming the fix, and the state keeps the resource.
 */
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, issuedKeys, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
/** Every scope but `read:users`: it writes memberships, reads integrations and jobs, and cannot read a user or a member. */
const NO_READ_USERS = `wa_no_read_users_${"0".repeat(16)}`;
issuedKeys.add(NO_READ_USERS);

/** The default world, with the key above; 404 for a missing scope. */
const world = () =>
  emulator({
    seed: defaultSeed(),
    job: { finishAfterPolls: 1 },
    keys: { [NO_READ_USERS]: ALL_SCOPES.filter((scope) => scope !== "read:users") },
    missingScopeStatus: 404,
  });

/** The default world, alan a member of YouTube (made with the full key), and the key without read:users; 404 for a missing scope. */
async function setup() {
  const emu = await world();
  await configureFor(emu, fast);
  const created = wire(
    await entitlement.create((await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] })).inputs!),
  );
  return { emu, id: created.id, outs: created.outs! };
}

/** The provider's context again (a new process), with the key lacking read:users. */
const limited = (emu: Emulator) => configureFor(emu, { ...fast, "workspace-access:apiKey": NO_READ_USERS });

/** The message names both fixes: the key's read:users, and the base URL's setting. */
function namesBothFixes(error: Error) {
  expect(error.message).toContain("read:users");
  expect(error.message).toContain("workspace-access:baseUrl");
}

describe("IntegrationEntitlement, a key without read:users, a service answering 404 for a missing scope", () => {
  it("a refresh of a membership removed by hand fails, naming read:users and baseUrl, rather than drop it", async () => {
    const { emu, id, outs } = await setup();
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    emu.clearRequests();
    const error = await rejection(entitlement.read!(id, outs as never));
    // Nothing answered yet: the base URL or the key's scope, both named.
    expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
    expect(error.message).toContain("is not the workspace's API root: check workspace-access:baseUrl");
    namesBothFixes(error);
  });

  it("the same refresh after another request of the process answered (the catalogue's): fails too, not read as gone", async () => {
    const { emu, id, outs } = await setup();
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    // `up --refresh`: a check of a new set reads the catalogue (write:integrations) before the read.
    await entitlement.check!({}, { integrationId: youtube, userId: grace, entitlements: ["EDITOR"] });
    emu.clearRequests();
    const error = await rejection(entitlement.read!(id, outs as never));
    // The address answered: the fix is the key's scope, and the message says the base URL is right.
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain(`GET /api/v1/integrations/${youtube}/users/${alan} answered 404, and so did GET /api/v1/users`);
    expect(error.message).toContain("Give the key in workspace-access:apiKey the scope Read users (read:users)");
    namesBothFixes(error);
    // The member read (alone: no list to share), then GET users once.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/users/${alan} 404`,
      "GET /users 404",
    ]);
  });

  it("a destroy of a membership already gone fails, naming read:users and baseUrl, rather than succeed on a 404", async () => {
    for (const deleteOnDestroy of [false, true]) {
      const { emu, id, outs } = await setup();
      emu.integrations.removeMember(youtube, alan);
      await limited(emu);
      const error = await rejection(entitlement.delete!(id, { ...outs, deleteOnDestroy } as never));
      expect(error).toMatchObject({ kind: "configuration" });
      namesBothFixes(error);
    }
  });

  it("a destroy of a membership still there, after another request answered: fails on the owner check it cannot make, removes nothing", async () => {
    const { emu, id, outs } = await setup();
    await limited(emu);
    await entitlement.check!({}, { integrationId: youtube, userId: grace, entitlements: ["EDITOR"] });
    // Read as "not a member", the destroy would send its DELETE without knowing whether someone made alan an owner.
    const error = await rejection(entitlement.delete!(id, outs as never));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain("the service does not disclose users to this key");
    namesBothFixes(error);
    expect(emu.requests.some((r) => r.method === "DELETE")).toBe(false);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });
});

describe("IntegrationMembers, a key without read:users, a service answering 404 for a missing scope", () => {
  it("a refresh after a member was removed by hand fails, naming read:users and baseUrl, and drops nobody", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const declared = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
    const created = wire(await members.create((await members.check!({}, declared)).inputs!));
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    const error = await rejection(members.read!(created.id, created.outs!));
    namesBothFixes(error);
  });
});
