/**
 * A member an invitation finds there already (the service answers 409: someone added them after the listing, or the listing
 * missed them) is adopted by the one rule every adoption takes: what `ignoreChanges` names (the set, the role) is left as the
 * service has it. No `PATCH` of the declared set, no role refused (nor removed and invited again); the state records the
 * service's, with the warning the other adoptions give for a record that leaves the set out.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import type { IntegrationMembersOutputs } from "../../src/host/members/integration-members-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const listPath = `/integrations/${youtube}/users`;
const checkOne = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
const checkSet = async (news: Record<string, unknown>) => (await members.check!({}, news)).inputs!;
/** The writes the service received (method, path and status), reads and job polls left out. */
const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`);
const memberOf = (emu: Emulator, userId: string) => emu.integrations.members(youtube).find((m) => m.userId === userId);

/**
 * The default seed (grace: a collaborator of YouTube holding EDITOR), the service answering an invitation of a member 409, and
 * a deployment's context whose warnings are kept in `warned`, its information in `told`.
 */
async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { inviteExisting: "conflict" } });
  const warned: string[] = [];
  const told: string[] = [];
  await configureFor(emu, fast, { warn: (m) => void warned.push(m), info: (m) => void told.push(m) });
  return { emu, warned, told };
}

/** The member list as it was before grace was added: every listing of it (the proof of her absence too) answers so. */
async function listingMisses(emu: Emulator, userId: string) {
  const held = memberOf(emu, userId)!;
  emu.integrations.removeMember(youtube, userId);
  const url = new URL(`integrations/${youtube}/users?page%5Bsize%5D=100`, emu.url);
  const body = await (await fetch(url, { headers: { "X-API-Key": emu.apiKey } })).text();
  emu.integrations.setMember(youtube, userId, { role: held.role, entitlements: [...held.entitlements] });
  emu.fault({ method: "GET", path: listPath, body, times: 3 });
  emu.clearRequests();
}

describe("IntegrationMembers, a declared member the invitation finds there (409)", () => {
  // grace declared with another set and another role than the service has.
  const declared = {
    integrationId: youtube,
    members: [{ userId: grace, entitlements: ["VIEWER"], role: "account_owner" }],
    __ignoreChanges: ["members"],
  };

  it("with ignoreChanges on members: no PATCH, no role refused; the service's set and role recorded, the member adopted", async () => {
    const { emu } = await setup();
    await listingMisses(emu, grace);
    const news = await checkSet(declared);
    const outs = wire(await members.create(news)).outs as IntegrationMembersOutputs;
    expect(writes(emu)).toEqual([`POST ${listPath} 409`]);
    expect(outs.members).toEqual([{ userId: grace, entitlements: ["EDITOR"], role: "account_collaborator" }]);
    expect(outs.adoptedMembers).toEqual([grace]);
    expect(memberOf(emu, grace)).toMatchObject({ role: "collaborator", entitlements: ["EDITOR"] });
    expect(wire(await members.diff!(youtube, outs, news)).changes).toBe(false);
    // An update for another reason leaves her as she is: no removal and invitation again for the declared role.
    emu.clearRequests();
    await configureFor(emu, fast);
    await members.update!(youtube, outs, await checkSet({ ...declared, deleteOnDestroy: true }));
    expect(writes(emu)).toEqual([]);
  });

  it("a record that leaves the set out: the declared set recorded, with the warning the listed adoption gives; nothing written", async () => {
    const { emu, warned } = await setup();
    await listingMisses(emu, grace);
    emu.quirks.memberEntitlements = "left-out";
    // No role declared: the set alone is at stake.
    const setOnly = { ...declared, members: [{ userId: grace, entitlements: ["VIEWER"] }] };
    const outs = wire(await members.create(await checkSet(setOnly))).outs as IntegrationMembersOutputs;
    expect(writes(emu)).toEqual([`POST ${listPath} 409`]);
    expect(outs.members).toEqual([{ userId: grace, entitlements: ["VIEWER"], role: "account_collaborator" }]);
    const said = warned.filter((w) => w.includes(`user ${grace}`) && w.includes("leaves out"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("ignoreChanges keeps the service's");
    expect(memberOf(emu, grace)).toMatchObject({ entitlements: ["EDITOR"] });
  });

  it("without ignoreChanges, the declared set is written and a declared role that differs fails that member, as before", async () => {
    const { emu } = await setup();
    await listingMisses(emu, grace);
    const { __ignoreChanges: _, ...plain } = declared;
    const roleDiffers = await rejection(members.create(await checkSet(plain)));
    expect(roleDiffers.message).toContain("as account_collaborator, but members declares role account_owner");
    expect(writes(emu)).toEqual([`POST ${listPath} 409`]);
    await configureFor(emu, fast);
    await listingMisses(emu, grace);
    const sameRole = { ...plain, members: [{ userId: grace, entitlements: ["VIEWER"] }] };
    const outs = wire(await members.create(await checkSet(sameRole))).outs as IntegrationMembersOutputs;
    expect(writes(emu)).toEqual([`POST ${listPath} 409`, `PATCH ${listPath}/${grace} 200`]);
    expect(outs.members).toEqual([{ userId: grace, entitlements: ["VIEWER"], role: "account_collaborator" }]);
  });
});

describe("IntegrationEntitlement, a membership the invitation finds there (409)", () => {
  const graceAs = { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], role: "account_owner", adoptExisting: true };

  it("with ignoreChanges on entitlements and role: no PATCH, no role refused; the service's recorded, adopted", async () => {
    const { emu, told } = await setup();
    // The create's read of the member saw none (just before someone added her).
    emu.fault({ method: "GET", path: `${listPath}/${grace}`, status: 404 });
    const news = await checkOne({ ...graceAs, __ignoreChanges: ["entitlements", "role"] });
    const { id, outs } = wire(await entitlement.create(news));
    expect(writes(emu)).toEqual([`POST ${listPath} 409`]);
    expect(outs).toMatchObject({ entitlements: ["EDITOR"], role: "account_collaborator", adopted: true });
    expect(memberOf(emu, grace)).toMatchObject({ role: "collaborator", entitlements: ["EDITOR"] });
    expect(told).toEqual([expect.stringContaining(`Adopted the membership of user ${grace} in integration ${youtube}`)]);
    expect(told[0]).toContain("nothing was written");
    expect(wire(await entitlement.diff!(id, outs!, news))).toMatchObject({ changes: false, replaces: [] });
  });
});
