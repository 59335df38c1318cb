/**
 * A member record that leaves `entitlements` out (the contract: "only `id` is certain"; the emulator's
 * `memberEntitlements: "left-out"`) says nothing of what the member holds: both membership resources keep the set
 * their state records, warn naming the member and the integration, and send no `PATCH` on that alone; where `ignoreChanges`
 * names the set and no state records one, the declared set is recorded. An unmanaged member's set is recorded not known
 * (`null`), never none. A record that declares `entitlements: []` still holds none.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, alan, grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const one = { integrationId: youtube, userId: alan, entitlements: ["VIEWER", "EDITOR"] };
const set = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER", "EDITOR"] }] };
// ada (the owner, MANAGER) declared; grace (EDITOR in the seed) is nobody's: unmanaged.
const team = { integrationId: youtube, members: [{ userId: ada, entitlements: ["MANAGER"], role: "account_owner" }] };
const checkOne = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
const checkSet = async (news: Record<string, unknown>) => (await members.check!({}, news)).inputs!;
/** The writes the service received (method and path), reads and job polls left out. */
const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** An emulator, and a deployment's context on it whose warnings are kept in `warned`. */
async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  const warned: string[] = [];
  const deployment = () => configureFor(emu, fast, { warn: (m) => void warned.push(m) });
  await deployment();
  return { emu, warned, deployment };
}

const leftOutWarning = (warned: readonly string[]) =>
  warned.filter((w) => w.includes(`user ${alan}`) && w.includes(`integration ${youtube}`) && w.includes("leaves out"));

describe("IntegrationEntitlement", () => {
  it("a refresh keeps the recorded set, warns naming the member and the integration, and the next up sends nothing", async () => {
    const { emu, warned, deployment } = await setup();
    const { id, outs } = wire(await entitlement.create(await checkOne(one)));
    emu.quirks.memberEntitlements = "left-out";
    emu.clearRequests();

    await deployment();
    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect(read.inputs?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect(leftOutWarning(warned)).toHaveLength(1);
    expect((await entitlement.diff!(id, read.props!, await checkOne(one))).changes).toBe(false);
    expect(writes(emu)).toEqual([]);
  });

  it("a create whose invitation's member reads back without a set records the set asked: the job finished", async () => {
    const { emu } = await setup();
    emu.quirks.memberEntitlements = "left-out";
    const { outs } = wire(await entitlement.create(await checkOne(one)));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], pendingInvitations: [] });
    expect(writes(emu)).toEqual([`POST /integrations/${youtube}/users`]);
  });

  it("an adoption of a member whose set is not known (no state records one) writes the declared set once, then a refresh keeps it", async () => {
    const { emu, warned, deployment } = await setup();
    emu.quirks.memberEntitlements = "left-out";
    const adopting = { ...one, userId: grace, entitlements: ["EDITOR"], adoptExisting: true };
    const { id, outs } = wire(await entitlement.create(await checkOne(adopting)));
    expect(outs?.entitlements).toEqual(["EDITOR"]);
    expect(writes(emu)).toEqual([`PATCH /integrations/${youtube}/users/${grace}`]);
    expect(warned.filter((w) => w.includes(`user ${grace}`) && w.includes("leaves out"))).toHaveLength(1);
    emu.clearRequests();

    await deployment();
    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["EDITOR"]);
    expect(writes(emu)).toEqual([]);
  });

  it("a record that declares entitlements: [] holds none: the refresh reads it, and the diff shows the change", async () => {
    const { emu, warned, deployment } = await setup();
    const { id, outs } = wire(await entitlement.create(await checkOne(one)));
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: [] });

    await deployment();
    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual([]);
    expect(leftOutWarning(warned)).toEqual([]);
    expect((await entitlement.diff!(id, read.props!, await checkOne(one))).changes).toBe(true);
  });
});

describe("IntegrationMembers", () => {
  it("a refresh keeps the recorded set, warns naming the member and the integration, and the next up sends nothing", async () => {
    const { emu, warned, deployment } = await setup();
    const { outs } = wire(await members.create(await checkSet(set)));
    emu.quirks.memberEntitlements = "left-out";
    emu.clearRequests();

    await deployment();
    const read = wire(await members.read!(youtube, outs));
    expect(read.props?.members.find((m) => m.userId === alan)?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect(leftOutWarning(warned)).toHaveLength(1);
    const news = await checkSet(set);
    expect((await members.diff!(youtube, read.props!, news)).changes).toBe(false);
    await members.update!(youtube, read.props!, news);
    expect(writes(emu)).toEqual([]);
  });

  it("a create whose invitation's member reads back without a set records the set asked: the job finished", async () => {
    const { emu } = await setup();
    emu.quirks.memberEntitlements = "left-out";
    const { outs } = wire(await members.create(await checkSet(set)));
    expect(outs?.members).toEqual([{ userId: alan, entitlements: ["EDITOR", "VIEWER"], role: "account_collaborator" }]);
    expect(writes(emu)).toEqual([`POST /integrations/${youtube}/users`]);
  });

  it("a record that declares entitlements: [] holds none: the refresh reads it, and the diff shows the change", async () => {
    const { emu, warned, deployment } = await setup();
    const { outs } = wire(await members.create(await checkSet(set)));
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: [] });

    await deployment();
    const read = wire(await members.read!(youtube, outs));
    expect(read.props?.members.find((m) => m.userId === alan)?.entitlements).toEqual([]);
    expect(leftOutWarning(warned)).toEqual([]);
    expect((await members.diff!(youtube, read.props!, await checkSet(set))).changes).toBe(true);
  });
});

describe("IntegrationMembers: an unmanaged member whose record leaves the set out", () => {
  const strangers = (outs: { unmanagedMembers: unknown[] } | undefined) => outs?.unmanagedMembers;

  it("is recorded with entitlements null (not known), without a warning; the next preview and up write nothing", async () => {
    const { emu, warned, deployment } = await setup();
    const { outs } = wire(await members.create(await checkSet(team)));
    emu.quirks.memberEntitlements = "left-out";
    emu.clearRequests();

    await deployment();
    const read = wire(await members.read!(youtube, outs));
    const unknown = [{ userId: grace, entitlements: null, role: "account_collaborator", email: "grace@example.com" }];
    expect(strangers(read.props)).toEqual(unknown);
    expect(read.props?.members).toEqual(outs?.members);
    expect(warned.filter((w) => w.includes(`user ${grace}`))).toEqual([]);
    const news = await checkSet(team);
    expect((await members.diff!(youtube, read.props!, news)).changes).toBe(false);
    const updated = wire(await members.update!(youtube, read.props!, news));
    expect(strangers(updated.outs)).toEqual(unknown);
    expect(writes(emu)).toEqual([]);
    // The service still holds what it did: nothing took the unknown set for none.
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("with removeUnmanaged, is removed for being unmanaged (one DELETE), never given a set", async () => {
    const { emu, deployment } = await setup();
    const { outs } = wire(await members.create(await checkSet(team)));
    emu.quirks.memberEntitlements = "left-out";
    await deployment();
    const read = wire(await members.read!(youtube, outs));
    expect(strangers(read.props)).toMatchObject([{ userId: grace, entitlements: null }]);
    const news = await checkSet({ ...team, removeUnmanaged: true });
    expect((await members.diff!(youtube, read.props!, news)).changes).toBe(true);
    emu.clearRequests();
    const updated = wire(await members.update!(youtube, read.props!, news));
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${grace}`]);
    expect(strangers(updated.outs)).toEqual([]);
  });

  it("declared now: the diff's plan takes the unknown set as none known (under ignoreChanges too); the update writes the declared set once", async () => {
    const { emu, deployment } = await setup();
    const created = wire(await members.create(await checkSet(team)));
    emu.quirks.memberEntitlements = "left-out";
    await deployment();
    const { props: outs } = wire(await members.read!(youtube, created.outs));
    const both = { ...team, members: [...team.members, { userId: grace, entitlements: ["VIEWER"] }], removeUnmanaged: true };
    expect((await members.diff!(youtube, outs!, await checkSet(both))).changes).toBe(true);
    expect((await members.diff!(youtube, outs!, await checkSet({ ...both, __ignoreChanges: ["members"] }))).changes).toBe(true);
    emu.clearRequests();
    const updated = wire(await members.update!(youtube, outs!, await checkSet(both)));
    expect(writes(emu)).toEqual([`PATCH /integrations/${youtube}/users/${grace}`]);
    expect(updated.outs?.members.find((m) => m.userId === grace)).toEqual({
      userId: grace,
      entitlements: ["VIEWER"],
      role: "account_collaborator",
    });
    expect(strangers(updated.outs)).toEqual([]);
  });
});

describe("an import whose ignoreChanges names the set, of a member whose record leaves it out", () => {
  // grace: a collaborator of YouTube with EDITOR in the seed, which the service's records now leave out.
  const declaredSet = (warned: readonly string[]) =>
    warned.filter((w) => w.includes(`user ${grace}`) && w.includes("recorded as declared ([VIEWER])"));

  it("IntegrationEntitlement: records the declared set (not none), warns, writes nothing; the next preview and refresh change nothing", async () => {
    const { emu, warned, deployment } = await setup();
    emu.quirks.memberEntitlements = "left-out";
    const declared = { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], __importId: `${youtube}/${grace}` };
    const news = await checkOne({ ...declared, __ignoreChanges: ["entitlements"] });
    const { id, outs } = wire(await entitlement.create(news));
    expect(outs).toMatchObject({ entitlements: ["VIEWER"], adopted: true, lastJobId: null });
    expect(declaredSet(warned)).toHaveLength(1);
    expect(writes(emu)).toEqual([]);
    expect((await entitlement.diff!(id, outs!, news)).changes).toBe(false);

    await deployment();
    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["VIEWER"]);
    expect((await entitlement.diff!(id, read.props!, news)).changes).toBe(false);
    expect(writes(emu)).toEqual([]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("IntegrationMembers: records the declared set (not none), warns, writes nothing; the next preview and up change nothing", async () => {
    const { emu, warned, deployment } = await setup();
    emu.quirks.memberEntitlements = "left-out";
    const declared = {
      integrationId: youtube,
      members: [
        { userId: ada, entitlements: ["MANAGER"], role: "account_owner" },
        { userId: grace, entitlements: ["VIEWER"] },
      ],
      __importId: youtube,
      __ignoreChanges: ["members"],
    };
    const news = await checkSet(declared);
    const { outs } = wire(await members.create(news));
    expect(outs?.members.find((m) => m.userId === grace)).toEqual({
      userId: grace,
      entitlements: ["VIEWER"],
      role: "account_collaborator",
    });
    expect(declaredSet(warned)).toHaveLength(1);
    expect(writes(emu)).toEqual([]);
    expect((await members.diff!(youtube, outs!, news)).changes).toBe(false);

    await deployment();
    const read = wire(await members.read!(youtube, outs));
    expect(read.props?.members).toEqual(outs?.members);
    expect((await members.diff!(youtube, read.props!, news)).changes).toBe(false);
    await members.update!(youtube, read.props!, news);
    expect(writes(emu)).toEqual([]);
  });

  it("IntegrationMembers: an unmanaged member declared now under ignoreChanges on members is recorded with the declared set, nothing written", async () => {
    const { emu, warned, deployment } = await setup();
    const created = wire(await members.create(await checkSet(team)));
    emu.quirks.memberEntitlements = "left-out";
    await deployment();
    const { props: outs } = wire(await members.read!(youtube, created.outs));
    const both = { ...team, members: [...team.members, { userId: grace, entitlements: ["VIEWER"] }], __ignoreChanges: ["members"] };
    const news = await checkSet(both);
    expect((await members.diff!(youtube, outs!, news)).changes).toBe(false);
    emu.clearRequests();
    const updated = wire(await members.update!(youtube, outs!, news));
    expect(updated.outs?.members.find((m) => m.userId === grace)).toEqual({
      userId: grace,
      entitlements: ["VIEWER"],
      role: "account_collaborator",
    });
    expect(warned.filter((w) => w.includes(`user ${grace}`) && w.includes("recorded as declared"))).toHaveLength(1);
    expect(writes(emu)).toEqual([]);
  });
});
