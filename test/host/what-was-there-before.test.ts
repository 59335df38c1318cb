/**
 * A record that existed before the stack (adopted, imported, or someone else's) stays as it is through the paths that are
 * easy to get wrong: a write that only half lands, a refresh in between, a rename whose create half landed, a role change
 * the API can only make by removing the member, an owner promoted since the last refresh, a rename without an alias whose old
 * resource is deleted a deployment later. In process, against the emulator.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator/index";
import { provider as entitlements } from "../../src/host/entitlement/integration-entitlement-provider";
import type { IntegrationEntitlementOutputs } from "../../src/host/entitlement/entitlement-state";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { provider as users } from "../../src/host/user/user-provider";
import { provider as workspaceUsers } from "../../src/host/users/workspace-users-provider";
import type { Props } from "../../src/shared/inputs";
import { emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { users: ids, integrations } = DEFAULT_IDS;
const { youtube } = integrations;
type Emu = Awaited<ReturnType<typeof emulator>>;
const writes = (emu: Emu) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
/** A state as `check` takes its old inputs. */
const props = (state: object) => state as Props;
const memberOf = (emu: Emu, userId: string) => emu.integrations.members(youtube).find((m) => m.userId === userId);

/** An emulator whose jobs end at their first poll, and a deployment (a context that took nothing over) with a short job timeout. */
async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  const warnings: string[] = [];
  const deployment = (jobTimeoutSeconds = "5") =>
    configureFor(emu, { "workspace-access:jobTimeoutSeconds": jobTimeoutSeconds }, { warn: (m: string) => void warnings.push(m) });
  await deployment();
  return { emu, warnings, deployment };
}

/** The state a partial create or update recorded (the error the host reads). */
async function partial(write: Promise<unknown>): Promise<{ id: string; properties: IntegrationEntitlementOutputs }> {
  const error = (await rejection(write)) as unknown as { id?: string; properties?: IntegrationEntitlementOutputs };
  expect(error.id, "a partial write records the resource").toBeTypeOf("string");
  return { id: error.id!, properties: error.properties! };
}

describe("IntegrationEntitlement: a write that half landed keeps what existed before", () => {
  it("an import whose PATCH times out stays adopted through the resume: destroy leaves the membership", async () => {
    const { emu, warnings, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.grace, entitlements: ["VIEWER"] };
    const { inputs } = await entitlements.check!({}, { ...declared, __importId: `${youtube}/${ids.grace}` });
    await deployment("1");
    emu.jobs.hangNext(1);
    const half = await partial(entitlements.create({ ...inputs!, __provider: "p" }));
    expect(half.properties.adopted).toBe(true);
    await deployment();
    const resumed = await entitlements.update!(
      half.id,
      half.properties,
      (await entitlements.check!(props(half.properties), declared)).inputs!,
    );
    expect(resumed.outs!.adopted).toBe(true);
    await deployment();
    emu.clearRequests();
    await entitlements.delete!(half.id, resumed.outs!);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.grace)).toBeDefined();
    expect(warnings.join("\n")).toContain(ids.grace);
  });

  it("an adoption whose resume half lands again stays adopted, adoptExisting dropped meanwhile", async () => {
    const { emu, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.grace, entitlements: ["VIEWER"] };
    await deployment("1");
    emu.jobs.hangNext(1);
    const half = await partial(
      entitlements.create({ ...(await entitlements.check!({}, { ...declared, adoptExisting: true })).inputs!, __provider: "p" }),
    );
    expect(half.properties.adopted).toBe(true);
    // The first write's job ends (a job still running under another set would refuse the update); the resume's own hangs.
    for (const job of emu.jobs.list().filter((j) => j.status === "running")) emu.jobs.release(job.id);
    emu.jobs.hangNext(1);
    const news = (await entitlements.check!(props(half.properties), { ...declared, entitlements: ["MANAGER"] })).inputs!;
    const again = await partial(entitlements.update!(half.id, half.properties, { ...news, __provider: "p" }));
    expect(again.properties).toMatchObject({ adopted: true, entitlements: ["MANAGER"] });
  });

  it("a forced replacement of an imported membership whose PATCH times out stays adopted: destroy leaves the membership", async () => {
    const { emu, warnings, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.grace, entitlements: ["VIEWER"] };
    const { inputs } = await entitlements.check!({}, { ...declared, __importId: `${youtube}/${ids.grace}` });
    const imported = await entitlements.create({ ...inputs!, __provider: "p" });
    // `pulumi up --replace`, the set changed and `import` removed: the delete leaves the membership, the create takes it back.
    await deployment("1");
    await entitlements.delete!(imported.id, imported.outs!);
    emu.jobs.hangNext(1);
    const news = (await entitlements.check!({}, { ...declared, entitlements: ["MANAGER"] })).inputs!;
    const half = await partial(entitlements.create({ ...news, __provider: "p" }));
    expect(half.properties.adopted).toBe(true);
    await deployment();
    emu.clearRequests();
    await entitlements.delete!(half.id, half.properties);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.grace)).toBeDefined();
    expect(warnings.join("\n")).toContain(`The membership of user ${ids.grace}`);
  });

  it("an update whose PATCH times out records the set asked and its job: the next up waits for it, and a revert is a change", async () => {
    const { emu, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.alan, entitlements: ["VIEWER"] };
    const made = await entitlements.create((await entitlements.check!({}, declared)).inputs!);
    await deployment("1");
    emu.jobs.hangNext(1);
    const news = (await entitlements.check!(props(made.outs!), { ...declared, entitlements: ["VIEWER", "EDITOR"] })).inputs!;
    const half = await partial(entitlements.update!(made.id, made.outs!, { ...news, __provider: "p" }));
    const [pending] = half.properties.pendingInvitations ?? [];
    expect(pending?.jobId).toBeTypeOf("string");
    expect(half.properties).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: made.outs!.email, adopted: false });
    // The program goes back to the old set: the state says another may be held, so the next up converges, not skips.
    const reverted = (await entitlements.check!(props(half.properties), declared)).inputs!;
    expect((await entitlements.diff!(half.id, half.properties, reverted)).changes).toBe(true);
  });

  it("a refresh of a half-landed create finds someone else's owner membership: kept as recorded, and the next up refuses, removing nothing", async () => {
    const { emu, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.alan, entitlements: ["VIEWER", "EDITOR"] };
    await deployment("1");
    emu.jobs.hangNext(1);
    const half = await partial(entitlements.create({ ...(await entitlements.check!({}, declared)).inputs!, __provider: "p" }));
    emu.integrations.setMember(youtube, ids.alan, { role: "owner", entitlements: ["MANAGER"] });
    await deployment();
    const refreshed = await entitlements.read!(half.id, half.properties);
    expect(refreshed.props).toEqual(half.properties);
    const news = (await entitlements.check!(props(refreshed.props!), declared)).inputs!;
    const diff = await entitlements.diff!(half.id, refreshed.props!, news);
    expect(diff.replaces ?? []).toEqual([]);
    emu.clearRequests();
    const error = await rejection(entitlements.update!(half.id, refreshed.props!, news));
    expect(error.message).toContain("adoptExisting");
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.alan)).toMatchObject({ role: "owner", entitlements: ["MANAGER"] });
  });

  it("a refresh of a create whose answer was lost keeps it, and the next up takes the invitation that landed as its own", async () => {
    const { emu, deployment } = await setup();
    const declared = { integrationId: youtube, userId: ids.alan, entitlements: ["VIEWER"] };
    await deployment("1");
    emu.jobs.hangNext(1);
    const half = await partial(entitlements.create({ ...(await entitlements.check!({}, declared)).inputs!, __provider: "p" }));
    // The invitation's answer was lost (no job known), and the service shows no membership yet.
    const lost = { ...half.properties, pendingInvitations: [{ userId: ids.alan, jobId: null }] };
    emu.integrations.removeMember(youtube, ids.alan);
    await deployment();
    const refreshed = await entitlements.read!(half.id, lost);
    expect(refreshed).toMatchObject({ id: half.id, props: lost });
    // The invitation lands after all; the next up resumes: the member is this resource's, not someone else's.
    emu.integrations.setMember(youtube, ids.alan, { entitlements: ["VIEWER"] });
    emu.clearRequests();
    const resumed = await entitlements.update!(half.id, lost, (await entitlements.check!(props(lost), declared)).inputs!);
    expect(resumed.outs).toMatchObject({ adopted: false, pendingInvitations: [], entitlements: ["VIEWER"] });
    expect(writes(emu)).toEqual([]);
  });

  it("a rename whose new create half landed: the next up resumes it, and the old resource's delete leaves the membership", async () => {
    const { emu, deployment } = await setup();
    const base = { integrationId: youtube, userId: ids.katherine, entitlements: ["VIEWER"] };
    const old = await entitlements.create((await entitlements.check!({}, base)).inputs!);
    expect(old.outs!.adopted).toBe(false);
    // The rename's deployment: the new resource adopts the membership with another set; its job hangs, the up stops.
    await deployment("1");
    emu.jobs.hangNext(1);
    const renamed = { ...base, entitlements: ["MANAGER"], adoptExisting: true };
    const half = await partial(entitlements.create({ ...(await entitlements.check!({}, renamed)).inputs!, __provider: "p" }));
    // The next deployment diffs the new resource, resumes it, then deletes the old one.
    await deployment();
    const news = (await entitlements.check!(props(half.properties), renamed)).inputs!;
    expect((await entitlements.diff!(half.id, half.properties, news)).changes).toBe(true);
    await entitlements.update!(half.id, half.properties, news);
    emu.clearRequests();
    await entitlements.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.katherine)).toMatchObject({ entitlements: ["MANAGER"] });
  });
});

describe("IntegrationEntitlement: a role the API can change only by removing the member", () => {
  const declared = { integrationId: youtube, userId: ids.grace, entitlements: ["EDITOR"], adoptExisting: true };

  it("of an adopted membership is refused at diff, naming the field and both ways out, before anything is sent", async () => {
    const { emu } = await setup();
    const { id, outs } = await entitlements.create((await entitlements.check!({}, declared)).inputs!);
    expect(outs!.adopted).toBe(true);
    emu.clearRequests();
    const news = (await entitlements.check!(props(outs!), { ...declared, role: "account_owner" })).inputs!;
    const error = await rejection(entitlements.diff!(id, outs!, news));
    expect(error.message).toMatch(/^role: .*adopted.*deleteOnDestroy: true.*pulumi refresh/s);
    expect(writes(emu)).toEqual([]);
  });

  it("is a replacement once the state holds deleteOnDestroy, and of a membership the stack made", async () => {
    const { emu } = await setup();
    const { id, outs } = await entitlements.create((await entitlements.check!({}, declared)).inputs!);
    const optedIn = { ...outs!, deleteOnDestroy: true };
    const news = (await entitlements.check!(props(optedIn), { ...declared, role: "account_owner", deleteOnDestroy: true })).inputs!;
    expect(await entitlements.diff!(id, optedIn, news)).toMatchObject({ replaces: ["role"], deleteBeforeReplace: true });
    const made = await entitlements.create(
      (await entitlements.check!({}, { integrationId: youtube, userId: ids.alan, entitlements: ["VIEWER"] })).inputs!,
    );
    const promoted = (
      await entitlements.check!(props(made.outs!), {
        integrationId: youtube,
        userId: ids.alan,
        entitlements: ["VIEWER"],
        role: "account_owner",
      })
    ).inputs!;
    expect(await entitlements.diff!(made.id, made.outs!, promoted)).toMatchObject({ replaces: ["role"] });
    expect(writes(emu).filter((w) => w.startsWith("DELETE"))).toEqual([]);
  });
});

describe("User: the delete reads the role now", () => {
  it("a user the stack created whom someone made an owner since is left, warning; with deleteOnDestroy it is deleted", async () => {
    const { emu, warnings, deployment } = await setup();
    const declared = { email: "new@example.com", firstName: "New", lastName: "Person" };
    const { id, outs } = await users.create((await users.check!({}, declared)).inputs!);
    expect(outs!.role).not.toBe("workspace_owner");
    emu.users.update(id, { role: "workspace_owner" });
    await deployment();
    emu.clearRequests();
    await users.delete!(id, outs!);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(id)).toBeDefined();
    expect(warnings.join("\n")).toContain(`User ${id} (new@example.com) is left in the workspace as it is: it is a workspace owner`);
    await users.delete!(id, { ...outs!, deleteOnDestroy: true });
    expect(writes(emu)).toEqual([`DELETE /users/${id}`]);
  });

  it("a user already gone is done, without a DELETE", async () => {
    const { emu } = await setup();
    const { id, outs } = await users.create(
      (await users.check!({}, { email: "gone@example.com", firstName: "G", lastName: "One" })).inputs!,
    );
    emu.users.remove(id);
    emu.clearRequests();
    await users.delete!(id, outs!);
    expect(writes(emu)).toEqual([]);
  });
});

describe("a rename without an alias, the new resource adopting: the old one's delete in a later deployment leaves the record", () => {
  // What the engine does: the rename's up creates the new resource (it adopts the record) and fails to delete the old one, or
  // `up --target` leaves the old one out. A later up diffs every resource of the program, then deletes the old one.
  const hal = { email: "hal@example.com", firstName: "Hal", lastName: "Moved" };
  const katherine = { integrationId: youtube, userId: ids.katherine, entitlements: ["VIEWER"] };
  const oldUser = async () => users.create((await users.check!({}, hal)).inputs!);
  const oldMembership = async () => entitlements.create((await entitlements.check!({}, katherine)).inputs!);

  it("User to User: no DELETE; a deployment that no longer declares the new one deletes", async () => {
    const { emu, deployment } = await setup();
    const old = await oldUser();
    await deployment();
    const declared = (await users.check!({}, { ...hal, adoptExisting: true })).inputs!;
    const renamed = await users.create(declared);
    expect(renamed.outs!.adopted).toBe(true);
    await deployment();
    await users.check!(props(renamed.outs!), { ...hal, adoptExisting: true });
    expect((await users.diff!(renamed.id, renamed.outs!, declared)).changes).toBe(false);
    emu.clearRequests();
    await users.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(old.id)).toBeDefined();
    // Only a resource the program declares keeps it: not diffed (dropped from the program), the old resource's delete deletes.
    await deployment();
    await users.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([`DELETE /users/${old.id}`]);
  });

  it("User to WorkspaceUsers: no DELETE", async () => {
    const { emu, deployment } = await setup();
    const old = await oldUser();
    await deployment();
    const declared = { users: { "hal@example.com": hal } };
    const set = await workspaceUsers.create(declared);
    await deployment();
    await workspaceUsers.check!(props(set.outs!), declared);
    expect((await workspaceUsers.diff!(set.id, set.outs!, declared)).changes).toBe(false);
    emu.clearRequests();
    await users.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(old.id)).toBeDefined();
  });

  it("IntegrationEntitlement to IntegrationEntitlement: no removal", async () => {
    const { emu, deployment } = await setup();
    const old = await oldMembership();
    await deployment();
    const declared = (await entitlements.check!({}, { ...katherine, adoptExisting: true })).inputs!;
    const renamed = await entitlements.create(declared);
    expect(renamed.outs!.adopted).toBe(true);
    await deployment();
    await entitlements.check!(props(renamed.outs!), { ...katherine, adoptExisting: true });
    expect((await entitlements.diff!(renamed.id, renamed.outs!, declared)).changes).toBe(false);
    emu.clearRequests();
    await entitlements.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.katherine)).toMatchObject({ entitlements: ["VIEWER"] });
  });

  it("IntegrationEntitlement to IntegrationMembers: no removal while the set declares the member; removed once it drops them", async () => {
    const { emu, deployment } = await setup();
    const old = await oldMembership();
    await deployment();
    const declared = (await members.check!({}, { integrationId: youtube, members: [{ userId: ids.katherine, entitlements: ["VIEWER"] }] }))
      .inputs!;
    const set = await members.create(declared);
    expect(set.outs!.adoptedMembers).toEqual([ids.katherine]);
    await deployment();
    await members.check!(props(set.outs!), declared);
    expect((await members.diff!(set.id, set.outs!, declared)).changes).toBe(false);
    emu.clearRequests();
    await entitlements.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.katherine)).toBeDefined();
    // The set no longer declares them: it keeps no claim, and the old resource's delete removes the membership it made.
    await deployment();
    const dropped = (await members.check!(props(set.outs!), { integrationId: youtube, members: [] })).inputs!;
    await members.diff!(set.id, set.outs!, dropped);
    await entitlements.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${ids.katherine}`]);
  });

  it("the new resource invites a member someone removed by hand: the old one's delete, that up or a later one, leaves them", async () => {
    const { emu, deployment } = await setup();
    const declared = (await members.check!({}, { integrationId: youtube, members: [{ userId: ids.katherine, entitlements: ["VIEWER"] }] }))
      .inputs!;
    const old = await members.create(declared);
    emu.integrations.removeMember(youtube, ids.katherine);
    await deployment();
    // The rename's up: the new resource finds nobody and invites them; then the old one is deleted.
    const renamed = await members.create(declared);
    expect(renamed.outs!.adoptedMembers).toEqual([]);
    emu.clearRequests();
    await members.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([]);
    // The same for a single membership, whose old resource's delete comes a deployment later.
    const single = { integrationId: youtube, userId: ids.alan, entitlements: ["VIEWER"] };
    const first = await entitlements.create((await entitlements.check!({}, single)).inputs!);
    emu.integrations.removeMember(youtube, ids.alan);
    await deployment();
    const moved = (await entitlements.check!({}, single)).inputs!;
    const second = await entitlements.create(moved);
    await deployment();
    await entitlements.check!(props(second.outs!), single);
    await entitlements.diff!(second.id, second.outs!, moved);
    emu.clearRequests();
    await entitlements.delete!(first.id, first.outs!);
    expect(writes(emu)).toEqual([]);
    expect(memberOf(emu, ids.katherine)).toBeDefined();
    expect(memberOf(emu, ids.alan)).toBeDefined();
  });

  it("a refresh diffs the old resource too (up --refresh, refresh: always): that diff claims nothing, so its delete removes", async () => {
    // The engine diffs what a refresh reads, resources the program left included; only what check saw declared is claimed.
    const { emu, deployment } = await setup();
    const old = await oldMembership();
    await deployment();
    const refreshed = await entitlements.read!(old.id, old.outs!);
    await entitlements.diff!(old.id, old.outs!, props(refreshed.inputs!));
    emu.clearRequests();
    await entitlements.delete!(old.id, old.outs!);
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${ids.katherine}`]);
  });
});
