/**
 * The membership resources under a service that answers 404 ("not disclosed") to a key lacking a scope (the emulator's
 * `missingScopeStatus: 404`, `--missing-scope 404`), with a key lacking `read:integrations`: every read of an integration, its
 * members and (under the contract's table) its catalogue answers 404, as for an integration deleted. Such a 404 is no proof
 * of absence until the key is shown integrations: the refresh, the destroy, the create and the check fail naming the key's
 * scope and where it is set, and nothing is dropped from the state, removed, invited or let through.
 * test/host/missing-scope-not-disclosed.test.ts holds the same for `read:users` and the writes.
 */
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, issuedKeys, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
/** Every scope but `read:integrations`: it reads users and jobs, writes memberships, and cannot read an integration or a member. */
const NO_READ_INTEGRATIONS = `wa_sees_no_apps_${"7".repeat(16)}`;
issuedKeys.add(NO_READ_INTEGRATIONS);

/** The default world with the key above; 404 for a missing scope unless `missingScopeStatus` says otherwise. */
const world = (missingScopeStatus: 403 | 404 = 404, scopeTable: "document" | "contract" = "document") =>
  emulator({
    seed: defaultSeed(),
    job: { finishAfterPolls: 1 },
    keys: { [NO_READ_INTEGRATIONS]: ALL_SCOPES.filter((scope) => scope !== "read:integrations") },
    missingScopeStatus,
    scopeTable,
  });

/** The requests since the last `clearRequests`, as `METHOD /path status`, ids as `:id`; a listing of one record with `?1`. */
const lines = (emu: Emulator) =>
  emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")}${r.query["page[size]"] === "1" ? "?1" : ""} ${r.status}`);

/** The provider's context again (a new process), with the key lacking read:integrations. */
const limited = (emu: Emulator) => configureFor(emu, { ...fast, "workspace-access:apiKey": NO_READ_INTEGRATIONS });

/** The fix named: the key's read:integrations, in the setting that holds the key; no integration said to be gone. */
function namesReadIntegrations(error: Error) {
  expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
  expect(error.message).toContain("the service does not disclose integrations to this key");
  expect(error.message).toContain("Give the key in workspace-access:apiKey the scope Read integrations (read:integrations)");
  expect(error.message).toContain("so nothing was read as gone");
}

const isMember = (emu: Emulator, userId: string) => emu.integrations.members(youtube).some((m) => m.userId === userId);

/** alan a member of YouTube, made with the full key; then the provider's context with the key lacking read:integrations. */
async function membership(emu: Emulator) {
  await configureFor(emu, fast);
  const declared = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] };
  const created = wire(await entitlement.create((await entitlement.check!({}, declared)).inputs!));
  await limited(emu);
  emu.clearRequests();
  return { id: created.id, outs: created.outs! };
}

describe("IntegrationEntitlement, a key without read:integrations, a service answering 404 for a missing scope", () => {
  it("a destroy of a membership someone made an owner fails on the owner check it cannot make: no DELETE, the owner stays", async () => {
    const emu = await world();
    const { id, outs } = await membership(emu);
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    emu.clearRequests();
    // Read as "not a member", the destroy would skip the owner check and remove an owner the program did not make one.
    const error = await rejection(entitlement.delete!(id, outs as never));
    namesReadIntegrations(error);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users/:id 404",
      // Its member list shows integrations and users at once; answered 404, each scope's listing says which is hidden.
      "GET /integrations/:id/users?1 404",
      "GET /integrations?1 404",
      "GET /users?1 200",
    ]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner" });
  });

  it("a refresh fails naming read:integrations rather than drop the membership or blame integrationId", async () => {
    const emu = await world();
    const { id, outs } = await membership(emu);
    // Not a member, then the integration itself gone: its 404 is no proof to this key, so nothing is dropped.
    for (const removed of ["none", "member", "integration"]) {
      if (removed === "member") emu.integrations.removeMember(youtube, alan);
      if (removed === "integration") emu.integrations.remove(youtube);
      const error = await rejection(entitlement.read!(id, outs as never));
      namesReadIntegrations(error);
      expect(error.message).toContain(
        `GET /api/v1/integrations/${youtube}/users/${alan} answered 404, and so did GET /api/v1/integrations,`,
      );
    }
  });

  it("a create does not invite a user it cannot tell is a member already: it fails, and nothing is sent", async () => {
    const emu = await world();
    await limited(emu);
    const declared = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] };
    const { inputs } = await entitlement.check!({}, declared);
    emu.clearRequests();
    const error = await rejection(entitlement.create(inputs!));
    namesReadIntegrations(error);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(isMember(emu, alan)).toBe(false);
  });
});

describe("IntegrationMembers, a key without read:integrations, a service answering 404 for a missing scope", () => {
  async function created(emu: Emulator) {
    await configureFor(emu, fast);
    const declared = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
    const made = wire(await members.create((await members.check!({}, declared)).inputs!));
    await limited(emu);
    emu.clearRequests();
    return made;
  }

  it("a destroy fails rather than take the integration for deleted: no DELETE, the member keeps nothing less", async () => {
    const emu = await world();
    const made = await created(emu);
    const error = await rejection(members.delete!(made.id, made.outs!));
    namesReadIntegrations(error);
    expect(emu.requests.some((r) => r.method === "DELETE")).toBe(false);
    expect(isMember(emu, alan)).toBe(true);
  });

  it("a refresh fails naming read:integrations, and drops nobody, nor the resource when the integration is gone", async () => {
    const emu = await world();
    const made = await created(emu);
    namesReadIntegrations(await rejection(members.read!(made.id, made.outs!)));
    emu.integrations.remove(youtube);
    namesReadIntegrations(await rejection(members.read!(made.id, made.outs!)));
  });
});

describe("the entitlement catalogue, a key without read:integrations, the contract's scope table (it needs read:integrations)", () => {
  it("the check fails, naming the key's scope, rather than let the entitlements through unchecked", async () => {
    const emu = await world(404, "contract");
    const warnings: string[] = [];
    await configureFor(emu, { ...fast, "workspace-access:apiKey": NO_READ_INTEGRATIONS }, { warn: (m) => warnings.push(m) });
    const result = await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VEIWER"] });
    expect(result.failures).toHaveLength(1);
    expect(result.failures![0]!.reason).toContain("the service does not disclose integrations to this key");
    expect(result.failures![0]!.reason).toContain("the scope Read integrations (read:integrations)");
    expect(warnings).toEqual([]);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/entitlements 404",
      // The first answer of this client, a 404: the address's one proof.
      "GET /users?1 200",
      // The integration itself tells an integration gone from one hidden, and its 404 is proven in turn.
      "GET /integrations/:id 404",
      "GET /integrations?1 404",
    ]);
  });

  it("an integration that does not exist, with a key shown integrations: a warning, as before, naming it not found", async () => {
    const emu = await world(404, "contract");
    const warnings: string[] = [];
    await configureFor(emu, fast, { warn: (m) => warnings.push(m) });
    const gone = "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99";
    const result = await entitlement.check!({}, { integrationId: gone, userId: alan, entitlements: ["VIEWER"] });
    expect(result.failures ?? []).toEqual([]);
    expect(warnings.join("\n")).toContain("the integration was not found");
    // What to check is the integration's id, not an entitlement's: the up fails on the integration itself.
    expect(warnings.join("\n")).toContain("check integrationId");
    expect(warnings.join("\n")).not.toContain("a wrong entitlement id");
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/entitlements 404",
      "GET /users?1 200",
      "GET /integrations/:id 404",
      "GET /integrations?1 200",
    ]);
  });
});

describe("the contract's 403 for a missing scope: what telling a 404 of integrations apart costs", () => {
  it("a lone create's member read answered 404 is proven by its member list, one record: one request, as GET users was", async () => {
    const emu = await world(403);
    await configureFor(emu, fast);
    const { inputs } = await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] });
    emu.clearRequests();
    await entitlement.create(inputs!);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users/:id 404",
      "GET /integrations/:id/users?1 200",
      "POST /integrations/:id/users 200",
      "GET /jobs/:id 200",
      "GET /integrations/:id/users/:id 200",
    ]);
  });

  it("a key without read:integrations is told so by 403 and its 404s are never doubted: no probe", async () => {
    const emu = await world(403);
    const { id, outs } = await membership(emu);
    const error = await rejection(entitlement.read!(id, outs as never));
    expect(error).toMatchObject({ kind: "forbidden", status: 403 });
    expect(lines(emu)).toEqual(["GET /integrations/:id/users/:id 403"]);
  });
});
