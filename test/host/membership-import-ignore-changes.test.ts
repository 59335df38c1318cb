/**
 * `ignoreChanges` reaches a membership resource's adoption (`import`, `adoptExisting`), as it does a `User`'s: the classes hand
 * the paths to the provider in the hidden input `__ignoreChanges`, and what they name is left as the record has it (Pulumi's
 * import leaves an ignored property so): no `PATCH` of the set, no failure on the role; the state records the service's, and the
 * next diff shows nothing for it.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, alan, grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
// grace is a collaborator of YouTube with EDITOR in the seed.
const graceAs = { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], role: "account_owner" };
const checkOne = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
const checkSet = async (news: Record<string, unknown>) => (await members.check!({}, news)).inputs!;
/** The writes the service received (method and path), reads and job polls left out. */
const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
const memberOf = (emu: Emulator, userId: string) => emu.integrations.members(youtube).find((m) => m.userId === userId);

async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  await configureFor(emu, fast);
  return emu;
}

describe("IntegrationEntitlement", () => {
  it.each([
    ["import", { __importId: `${youtube}/${grace}` }],
    ["adoptExisting", { adoptExisting: true }],
  ])("%s with ignoreChanges on entitlements and role writes nothing, records the service's, and diffs clean", async (_how, how) => {
    const emu = await setup();
    const news = await checkOne({ ...graceAs, ...how, __ignoreChanges: ["entitlements", "role"] });
    const { id, outs } = wire(await entitlement.create(news));
    expect(writes(emu)).toEqual([]);
    expect(outs).toMatchObject({ entitlements: ["EDITOR"], role: "account_collaborator", adopted: true });
    expect(memberOf(emu, grace)).toMatchObject({ role: "collaborator", entitlements: ["EDITOR"] });
    expect(wire(await entitlement.diff!(id, outs!, news)).changes).toBe(false);
  });

  it('"*" names both; one path names its property alone: the set ignored, a role that differs still fails', async () => {
    const emu = await setup();
    const all = wire(await entitlement.create(await checkOne({ ...graceAs, adoptExisting: true, __ignoreChanges: ["*"] })));
    expect(all.outs).toMatchObject({ entitlements: ["EDITOR"], role: "account_collaborator" });
    await configureFor(emu, fast);
    const setOnly = { ...graceAs, userId: ada, adoptExisting: true, __ignoreChanges: ['["entitlements"]'] };
    // ada is the owner with MANAGER: the declared owner role holds, the set is left.
    const { outs } = wire(await entitlement.create(await checkOne(setOnly)));
    expect(outs).toMatchObject({ entitlements: ["MANAGER"], role: "account_owner" });
    expect(writes(emu)).toEqual([]);
    const roleDiffers = { ...graceAs, userId: grace, role: "account_owner", adoptExisting: true, __ignoreChanges: ["entitlements"] };
    await configureFor(emu, fast);
    expect((await rejection(entitlement.create(await checkOne(roleDiffers)))).message).toContain("role");
  });

  it("a path naming one entitlement (entitlements[0]) leaves the rest of the set as declared: a set changed later is a change", async () => {
    await setup();
    const declared = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"], __ignoreChanges: ["entitlements[0]"] };
    const { id, outs } = wire(await entitlement.create(await checkOne(declared)));
    const changed = await checkOne({ ...declared, entitlements: ["VIEWER", "EDITOR"] });
    expect(wire(await entitlement.diff!(id, outs!, changed)).changes).toBe(true);
  });

  it("without ignoreChanges the import writes the declared set, as before", async () => {
    const emu = await setup();
    const { outs } = wire(await entitlement.create(await checkOne({ ...graceAs, role: undefined, __importId: `${youtube}/${grace}` })));
    expect(outs?.entitlements).toEqual(["VIEWER"]);
    expect(writes(emu)).toEqual([`PATCH /integrations/${youtube}/users/${grace}`]);
  });
});

describe("IntegrationMembers", () => {
  it("an import whose ignoreChanges names members takes each declared member there as they are; one not there is invited", async () => {
    const emu = await setup();
    const declared = {
      integrationId: youtube,
      members: [
        { userId: grace, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: alan, entitlements: ["VIEWER"] },
      ],
      __importId: youtube,
      __ignoreChanges: ["members"],
    };
    const news = await checkSet(declared);
    const { outs } = wire(await members.create(news));
    expect(writes(emu)).toEqual([`POST /integrations/${youtube}/users`]);
    expect(outs?.members).toEqual(
      [
        { userId: grace, entitlements: ["EDITOR"], role: "account_collaborator" },
        { userId: alan, entitlements: ["VIEWER"], role: "account_collaborator" },
      ].sort((a, b) => (a.userId < b.userId ? -1 : 1)),
    );
    expect(memberOf(emu, grace)).toMatchObject({ role: "collaborator", entitlements: ["EDITOR"] });
    expect(wire(await members.diff!(youtube, outs!, news)).changes).toBe(false);
    emu.clearRequests();
    // An update for another reason (the destroy opt-in) leaves the ignored members as they are.
    await configureFor(emu, fast);
    await members.update!(youtube, outs!, await checkSet({ ...declared, deleteOnDestroy: true }));
    expect(writes(emu)).toEqual([]);
  });

  it("a path naming one member's part (members[0].role) leaves the others as declared: a member added later is a change", async () => {
    const emu = await setup();
    const declared = {
      integrationId: youtube,
      members: [{ userId: alan, entitlements: ["VIEWER"] }],
      __ignoreChanges: ["members[0].role"],
    };
    const { outs } = wire(await members.create(await checkSet(declared)));
    const added = await checkSet({ ...declared, members: [...declared.members, { userId: ada, entitlements: ["VIEWER"] }] });
    expect(wire(await members.diff!(youtube, outs!, added)).changes).toBe(true);
    expect(memberOf(emu, alan)).toMatchObject({ entitlements: ["VIEWER"] });
  });

  it("without ignoreChanges, a declared role that differs fails the import before any write, as before", async () => {
    const emu = await setup();
    const declared = {
      integrationId: youtube,
      members: [{ userId: grace, entitlements: ["VIEWER"], role: "account_owner" }],
      __importId: youtube,
    };
    await rejection(members.create(await checkSet(declared)));
    expect(writes(emu)).toEqual([]);
  });
});
