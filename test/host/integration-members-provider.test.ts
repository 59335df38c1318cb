/**
 * The IntegrationMembers provider's `check` and `diff`: no network (asserted on the emulator), every
 * failure naming its property, and exact diffs (order-insensitive, no diff for an undeclared role).
 * The writes are proven through the host in test/reliability/integration-members.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, EmulatorOptions } from "../../src/emulator";
import type { IntegrationMembersOutputs } from "../../src/host/members/integration-members-provider";
import { provider } from "../../src/host/members/integration-members-provider";
import { UNKNOWN } from "../../src/shared/unknown";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";
const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const O = "00000000-0000-4000-8000-00000000000f";
const base = {
  integrationId: INTEGRATION,
  members: [
    { userId: B, entitlements: ["VIEWER"] },
    { userId: A, entitlements: ["VIEWER", "EDITOR"] },
  ],
};
const check = (news: Record<string, unknown>) => provider.check!({}, news);

describe("check", () => {
  it("sorts members by user id and each set, defaults removeUnmanaged, sends nothing when no set is new", async () => {
    const emu = await emulator();
    await configureFor(emu);
    // The prior inputs hold the same sets, so the catalogue check (entitlement-catalogue.test.ts) has nothing to ask.
    const result = wire(await provider.check!(base, base));
    expect(result).toEqual({
      inputs: {
        integrationId: INTEGRATION,
        members: [
          { userId: A, entitlements: ["EDITOR", "VIEWER"] },
          { userId: B, entitlements: ["VIEWER"] },
        ],
        removeUnmanaged: false,
      },
      failures: [],
    });
    expect(emu.requests).toEqual([]);
  });

  it.each([
    ["integrationId", { integrationId: "app" }],
    ["members", { members: "alice" }],
    [
      "members[1].userId",
      {
        members: [
          { userId: A, entitlements: ["VIEWER"] },
          { userId: "a/b", entitlements: ["VIEWER"] },
        ],
      },
    ],
    ["members[0].entitlements", { members: [{ userId: A, entitlements: [] }] }],
    ["members[0].entitlements[1]", { members: [{ userId: A, entitlements: ["VIEWER", "A/B"] }] }],
    ["members[0].role", { members: [{ userId: A, entitlements: ["VIEWER"], role: "owner" }] }],
    ["members[0].extra", { members: [{ userId: A, entitlements: ["VIEWER"], extra: 1 }] }],
    ["removeUnmanaged", { removeUnmanaged: "yes" }],
    [
      "members[3].userId",
      {
        members: [
          { userId: A, entitlements: ["VIEWER"] },
          { userId: B, entitlements: ["VIEWER"] },
          { userId: O, entitlements: ["VIEWER"] },
          { userId: A, entitlements: ["EDITOR"] },
        ],
      },
    ],
  ])("rejects %s, naming it", async (property, override) => {
    const { failures } = wire(await check({ ...base, ...override }));
    expect(failures?.map((f) => f.property)).toContain(property);
  });

  it.each([
    ["members[0]", { members: [null] }],
    ["members[0].entitlements", { members: [{ userId: A, entitlements: 5 }] }],
    ["members[1]", { members: [{ userId: A, entitlements: ["VIEWER"] }, "bob"] }],
    ["integrationId", { integrationId: undefined }],
  ])("a member of the wrong shape is a failure naming %s, and the inputs come back as given", async (property, override) => {
    const news = { ...base, ...override };
    const result = wire(await check(news));
    expect(result.failures?.map((f) => f.property)).toContain(property);
    expect(result.inputs).toEqual(Object.fromEntries(Object.entries(news).filter(([, v]) => v !== undefined)));
  });

  it("names the duplicate and where the user was listed first", async () => {
    const { failures } = await check({ ...base, members: [...base.members, { userId: B, entitlements: ["EDITOR"] }] });
    expect(failures).toEqual([{ property: "members[2].userId", reason: expect.stringContaining("listed twice (also members[0])") }]);
  });

  it("lets values not known yet through (preview: userId: alice.id)", async () => {
    const result = wire(await check({ ...base, members: [{ userId: UNKNOWN, entitlements: ["VIEWER"] }] }));
    expect(result.failures).toEqual([]);
  });
});

describe("diff", () => {
  const olds: IntegrationMembersOutputs = {
    integrationId: INTEGRATION,
    members: [
      { userId: A, entitlements: ["EDITOR", "VIEWER"], role: "account_collaborator" },
      { userId: B, entitlements: ["VIEWER"], role: "account_collaborator" },
      { userId: O, entitlements: ["VIEWER"], role: "account_owner" },
    ],
    removeUnmanaged: false,
    unmanagedMembers: [{ userId: "00000000-0000-4000-8000-000000000999", entitlements: [], role: "account_collaborator", email: null }],
    pendingInvitations: [],
  };
  const declared = [
    { userId: O, entitlements: ["VIEWER"] },
    { userId: B, entitlements: ["VIEWER"] },
    { userId: A, entitlements: ["VIEWER", "EDITOR", "VIEWER"] },
  ];
  const diff = (news: Record<string, unknown>) =>
    provider.diff!(INTEGRATION, olds, { integrationId: INTEGRATION, removeUnmanaged: false, ...news });

  it.each([
    ["the same members in another order, roles left out", declared, false],
    [
      "a declared role that is the current one",
      [...declared.slice(1), { userId: O, entitlements: ["VIEWER"], role: "account_owner" }],
      false,
    ],
    ["a changed set", [...declared.slice(0, 2), { userId: A, entitlements: ["VIEWER"] }], true],
    ["a changed declared role", [...declared.slice(0, 2), { userId: A, entitlements: ["EDITOR", "VIEWER"], role: "account_owner" }], true],
    ["a new member", [...declared, { userId: "00000000-0000-4000-8000-000000000123", entitlements: ["VIEWER"] }], true],
    ["a member left out", declared.slice(0, 2), true],
    ["a member not known yet", [...declared, { userId: UNKNOWN, entitlements: ["VIEWER"] }], true],
  ])("%s: changes %s", async (_what, members, changes) => {
    const result = wire(await diff({ members }));
    expect(result).toEqual({ changes, replaces: [], deleteBeforeReplace: false });
  });

  it("a role declared anew (or no longer) with the service's value is a change, so the state records it; a state without that record is not", async () => {
    const recorded = { ...olds, declaredRoles: [] };
    const ownerDeclared = [...declared.slice(1), { userId: O, entitlements: ["VIEWER"], role: "account_owner" }];
    // The engine diffs the program's inputs after its check (the same sets: no catalogue read); without it, a refresh's read.
    const run = async (prior: IntegrationMembersOutputs, members: unknown[]) => {
      const news = { integrationId: INTEGRATION, removeUnmanaged: false, members };
      await provider.check!(news, news);
      return provider.diff!(INTEGRATION, prior, news);
    };
    expect((await run(recorded, declared)).changes).toBe(false);
    expect((await run(recorded, ownerDeclared)).changes).toBe(true);
    expect((await run({ ...olds, declaredRoles: [O] }, ownerDeclared)).changes).toBe(false);
    expect((await run({ ...olds, declaredRoles: [O] }, declared)).changes).toBe(true);
    // Written before the record existed: every role counts as declared, and nothing changes for it.
    expect((await run(olds, declared)).changes).toBe(false);
    // The owners declared likewise: a role declared owner where another was, both the service's, is a change the state learns.
    const ownerRecorded = { ...olds, members: olds.members.map((m) => ({ ...m, role: "account_owner" as const })) };
    expect((await run({ ...ownerRecorded, declaredRoles: [O], declaredOwners: [] }, ownerDeclared)).changes).toBe(true);
    expect((await run({ ...ownerRecorded, declaredRoles: [O], declaredOwners: [O] }, ownerDeclared)).changes).toBe(false);
  });

  it("unmanaged members are a change only with removeUnmanaged", async () => {
    expect((await diff({ members: declared, removeUnmanaged: true })).changes).toBe(true);
    expect((await diff({ members: declared })).changes).toBe(false);
  });

  it("another integration replaces the resource", async () => {
    expect((await diff({ members: declared, integrationId: "00000000-0000-4000-8000-0000000000ff" })).replaces).toEqual(["integrationId"]);
  });

  it("a member whose role is unknown may be the owner: removing them is refused unless a known owner stays", async () => {
    const X = "00000000-0000-4000-8000-000000000999";
    const unknownOwner: IntegrationMembersOutputs = {
      ...olds,
      members: olds.members.filter((m) => m.userId !== O),
      unmanagedMembers: [{ userId: X, entitlements: ["VIEWER"], role: null, email: null }],
    };
    const refused = `Refusing to remove user ${X}, whose role is unknown, of integration ${INTEGRATION}`;
    const members = declared.slice(1);
    await expect(provider.diff!(INTEGRATION, unknownOwner, { integrationId: INTEGRATION, members, removeUnmanaged: true })).rejects.toThrow(
      refused,
    );
    // Dropped from members rather than unmanaged: the same.
    const managedUnknown = {
      ...unknownOwner,
      members: [...unknownOwner.members, { userId: X, entitlements: ["VIEWER"], role: null }],
      unmanagedMembers: [],
    };
    await expect(
      provider.diff!(INTEGRATION, managedUnknown, { integrationId: INTEGRATION, members, removeUnmanaged: false }),
    ).rejects.toThrow(refused);
    // A known owner stays: the member of unknown role may go.
    const withOwner = { ...olds, unmanagedMembers: [{ userId: X, entitlements: ["VIEWER"], role: null, email: null }] };
    expect((await diff({ members: declared, removeUnmanaged: true })).changes).toBe(true);
    expect(
      (await provider.diff!(INTEGRATION, withOwner, { integrationId: INTEGRATION, members: declared, removeUnmanaged: true })).changes,
    ).toBe(true);
  });

  it("a change that would remove the last owner fails the plan, naming the owner", async () => {
    await expect(diff({ members: declared.slice(1) })).rejects.toThrow(`Refusing to remove user ${O}, the last member with the owner role`);
    await expect(
      diff({ members: [...declared.slice(1), { userId: O, entitlements: ["VIEWER"], role: "account_collaborator" }] }),
    ).rejects.toThrow("the last member with the owner role");
  });
});

describe("invitations not seen to finish, and roles the service changed (in-process, against the emulator)", () => {
  const P = "00000000-0000-4000-8000-00000000000c";
  const user = (id: string, name: string) => ({ id, email: `${name}@example.com`, firstName: name, lastName: "User" });
  async function world(members: Array<{ userId: string; role?: "owner" | "collaborator"; entitlements: string[] }>) {
    const emu = await emulator({
      seed: {
        users: [user(O, "o"), user(A, "a"), user(B, "b"), user(P, "p")],
        integrations: [{ id: INTEGRATION, application: "App", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }], users: members }],
      },
      job: { finishAfterPolls: 1 },
    });
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    return emu;
  }
  const owner = { userId: O, role: "owner" as const, entitlements: ["VIEWER"] };
  const invitePosts = (emu: Emulator) => emu.requests.filter((r) => r.method === "POST" && r.path === `/integrations/${INTEGRATION}/users`);
  const writeLines = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  const memberIds = (emu: Emulator) =>
    emu.integrations
      .members(INTEGRATION)
      .map((m) => m.userId)
      .sort();
  /** A create whose invitation of `a` hangs: the partial state the host records. */
  async function hungCreate(emu: Emulator, news: Record<string, unknown>) {
    emu.jobs.hangNext(1);
    const error = (await provider.create!(news).then(
      () => undefined,
      (e: unknown) => e,
    )) as { properties: IntegrationMembersOutputs };
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    return { state: wire(error.properties), job };
  }
  // As the host passes them: with the serialized provider, which a partial create's state keeps.
  const news = { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }], removeUnmanaged: false, __provider: "p" };

  it("an invitation whose job finished but whose member a direct read does not find is recorded pending, not as a member", async () => {
    const emu = await world([owner]);
    const clock = clockOf(emu);
    // Once the invitation is posted, A's read answers 404 (a read that lags the service's jobs).
    const fault = () => {
      if (invitePosts(emu).length === 0) return void clock.setTimer(fault, 1);
      emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users/${A}`, status: 404, times: 1 });
    };
    clock.setTimer(fault, 1);
    const error = (await provider.create!(news).catch((e: unknown) => e)) as Error & {
      reasons: string[];
      properties: IntegrationMembersOutputs;
    };
    const job = emu.jobs.list()[0]!;
    expect(job.status).toBe("finished");
    expect(error.reasons).toEqual([expect.stringContaining(`user ${A}: `)]);
    expect(error.reasons[0]).toContain("but the user is not a member (its read answers 404)");
    const state = wire(error.properties);
    expect(state.members).toEqual([{ userId: A, entitlements: [], role: "account_collaborator" }]);
    expect(state.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);

    // The next up finds A there now: this resource's own, no second invitation.
    emu.clearRequests();
    const outs = wire(await provider.update!(INTEGRATION, state, news)).outs!;
    expect(invitePosts(emu)).toEqual([]);
    expect(outs.members).toEqual([{ userId: A, entitlements: ["VIEWER"], role: "account_collaborator" }]);
    expect(outs.pendingInvitations).toEqual([]);
  });

  it("a destroy of a member whose invitation got no answer, not a member now, warns that it may still land", async () => {
    const emu = await world([owner]);
    const warned: string[] = [];
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    const state = {
      integrationId: INTEGRATION,
      removeUnmanaged: false,
      members: [{ userId: A, entitlements: [], role: "account_collaborator" }],
      unmanagedMembers: [],
      pendingInvitations: [{ userId: A, jobId: null }],
    };
    await provider.delete!(INTEGRATION, state as never);
    expect(warned.join("\n")).toContain(`The invitation of user ${A} to integration ${INTEGRATION} got no answer`);
  });

  it("a destroy of a member whose invitation's job finished, not a member now (a read lagging the jobs), warns that it may still land", async () => {
    const emu = await world([owner]);
    const { state, job } = await hungCreate(emu, news);
    emu.jobs.release(job.id);
    // The job finished; the member is not listed (yet): removed here, as a lagging read shows it.
    emu.integrations.removeMember(INTEGRATION, A);
    const warned: string[] = [];
    await configureFor(emu, {}, { warn: (m) => void warned.push(m) });
    await provider.delete!(INTEGRATION, state);
    expect(warned.join("\n")).toContain(`The invitation of user ${A} to integration ${INTEGRATION} finished (job ${job.id})`);
    expect(warned.join("\n")).toContain("may still land after this destroy");
  });

  it("a refresh keeps a member whose invitation is still running: the next update does not invite them again, and a destroy waits", async () => {
    const emu = await world([owner]);
    const { state, job } = await hungCreate(emu, news);
    expect(state.members).toEqual([{ userId: A, entitlements: [], role: "account_collaborator" }]);
    expect(state.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);

    const refreshed = wire(await provider.read!(INTEGRATION, state)).props!;
    expect(refreshed.members).toEqual(state.members);
    expect(refreshed.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);

    emu.clearRequests();
    await expect(provider.update!(INTEGRATION, refreshed, news)).rejects.toThrow(`the invitation's job ${job.id} is still running`);
    expect(invitePosts(emu)).toEqual([]);
    await expect(provider.delete!(INTEGRATION, refreshed)).rejects.toThrow(`user ${A}: the invitation's job ${job.id} is still running`);

    // The invitation lands: the update adopts the member without inviting, and forgets the job.
    emu.jobs.release(job.id);
    emu.clearRequests();
    const outs = wire(await provider.update!(INTEGRATION, refreshed, news)).outs!;
    expect(writeLines(emu)).toEqual([]);
    expect(outs.members).toEqual([{ userId: A, entitlements: ["VIEWER"], role: "account_collaborator" }]);
    expect(outs.pendingInvitations).toEqual([]);
  });

  it("a member dropped while their invitation's job still runs is kept pending, with a warning, and removed by the up after it lands", async () => {
    const emu = await world([owner]);
    const warned: string[] = [];
    const configure = () => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    await configure();
    const both = { ...news, members: [{ userId: O, entitlements: ["VIEWER"] }, ...news.members] };
    const { state, job } = await hungCreate(emu, both);
    expect(state.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);

    // The program drops A while the job runs (a later up: another provider process): A is not a member now, but the job may
    // still make them one.
    const dropped = { ...news, members: [{ userId: O, entitlements: ["VIEWER"] }] };
    await configure();
    emu.clearRequests();
    const kept = wire(await provider.update!(INTEGRATION, state, dropped)).outs!;
    expect(writeLines(emu)).toEqual([]);
    expect(kept.members.map((m) => m.userId)).toEqual([A, O]);
    expect(kept.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);
    expect(warned).toEqual([
      expect.stringContaining(
        `User ${A} (job ${job.id}, still running after another wait) is no longer declared in members of integration ${INTEGRATION}`,
      ),
    ]);
    // Nothing else changes, yet the next up has a job to wait for.
    expect((await provider.diff!(INTEGRATION, kept, dropped)).changes).toBe(true);

    // The job lands: the next up finds A a member and removes them, and forgets the invitation.
    emu.jobs.release(job.id);
    expect(memberIds(emu)).toEqual([A, O]);
    await configure();
    emu.clearRequests();
    const removed = wire(await provider.update!(INTEGRATION, kept, dropped)).outs!;
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${A}`]);
    expect(removed.members.map((m) => m.userId)).toEqual([O]);
    expect(removed.pendingInvitations).toEqual([]);
    expect(memberIds(emu)).toEqual([O]);
    expect((await provider.diff!(INTEGRATION, removed, dropped)).changes).toBe(false);
  });

  it("a member dropped whose invitation got no answer (no job known), not a member now, is forgotten with a warning (no job ends to settle it)", async () => {
    const emu = await world([owner]);
    const warned: string[] = [];
    await configureFor(emu, {}, { warn: (m) => void warned.push(m) });
    const state = {
      integrationId: INTEGRATION,
      removeUnmanaged: false,
      members: [
        { userId: A, entitlements: [], role: "account_collaborator" },
        { userId: O, entitlements: ["VIEWER"], role: "account_owner" },
      ],
      unmanagedMembers: [],
      pendingInvitations: [{ userId: A, jobId: null }],
    } as IntegrationMembersOutputs;
    const dropped = { ...news, members: [{ userId: O, entitlements: ["VIEWER"] }] };
    emu.clearRequests();
    const outs = wire(await provider.update!(INTEGRATION, state, dropped)).outs!;
    expect(writeLines(emu)).toEqual([]);
    expect(outs.members.map((m) => m.userId)).toEqual([O]);
    expect(outs.pendingInvitations).toEqual([]);
    // Kept, it would be pending at every up, for good: the warning says to check the service instead, as a destroy's does.
    expect(warned).toEqual([expect.stringContaining(`The invitation of user ${A} to integration ${INTEGRATION} got no answer`)]);
    expect(warned[0]).toContain("may still land after this update");
  });

  it("a member removed for a role change is invited again even while someone else's invitation is still running", async () => {
    const emu = await world([owner, { userId: A, role: "collaborator", entitlements: ["VIEWER"] }]);
    const first = {
      ...news,
      members: [
        { userId: A, entitlements: ["VIEWER"] },
        { userId: P, entitlements: ["VIEWER"] },
      ],
    };
    const { state, job } = await hungCreate(emu, first);
    expect(state.pendingInvitations).toEqual([{ userId: P, jobId: job.id }]);
    emu.clearRequests();
    const changed = {
      ...first,
      members: [
        { userId: A, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: P, entitlements: ["VIEWER"] },
      ],
    };
    const error = (await provider.update!(INTEGRATION, state, changed).catch((e: unknown) => e)) as Error & { reasons: string[] };
    // Only P waits (its own job); A is removed and invited again as owner.
    expect(error.reasons).toEqual([expect.stringContaining(`user ${P}: the invitation's job ${job.id} is still running`)]);
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${A}`, `POST /integrations/${INTEGRATION}/users`]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)?.role).toBe("owner");
  });

  it("a role change whose removal fails is not invited again: the member keeps the membership they have, the update fails naming them", async () => {
    const emu = await world([owner]);
    const { outs: olds } = await provider.create!({ ...news, members: [{ userId: A, entitlements: ["VIEWER"] }] });
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)?.role).toBe("collaborator");
    // The removal is refused (a 400 is not retried).
    emu.fault({ method: "DELETE", path: `/integrations/${INTEGRATION}/users/${A}`, status: 400, times: 1 });
    emu.clearRequests();
    const changed = { ...news, members: [{ userId: A, entitlements: ["VIEWER"], role: "account_owner" }] };
    const error = (await provider.update!(INTEGRATION, olds!, changed).catch((e: unknown) => e)) as Error & { reasons: string[] };
    expect(error.reasons).toEqual([expect.stringContaining(`user ${A}: `)]);
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${A}`]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)).toMatchObject({
      role: "collaborator",
      entitlements: ["VIEWER"],
    });
  });

  it("an invitation read back as an owner holding the set asked (a service that merged it into an owner's membership) fails that member", async () => {
    const emu = await world([owner]);
    const clock = clockOf(emu);
    const entitlement = (id: string) => ({ id, type: "entitlement", attributes: { group: "primary", key: id, label: id, value: id } });
    const attributes = { email: "a@example.com", entitlements: [entitlement("VIEWER")], firstName: "a", isGuest: false, lastName: "User" };
    const record = {
      data: { id: A, type: "user", attributes: { ...attributes, role: "owner", status: "live" }, meta: { dynamicFields: {} } },
      meta: {},
    };
    // Once the invitation is posted, A's read answers an owner with exactly the set asked.
    let posted = false;
    const fault = () => {
      if (invitePosts(emu).length === 0) return void clock.setTimer(fault, 1);
      posted = true;
      emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users/${A}`, body: JSON.stringify(record), times: 1 });
    };
    clock.setTimer(fault, 1);
    const error = (await provider.create!({ ...news, members: [{ userId: A, entitlements: ["VIEWER"] }] }).catch(
      (e: unknown) => e,
    )) as Error & {
      reasons: string[];
    };
    expect(posted).toBe(true);
    expect(error.reasons).toEqual([expect.stringContaining(`user ${A}: `)]);
    expect(error.reasons?.[0]).toContain("account_owner");
  });

  it("an update writes only what its plan showed: a set changed or a member removed by hand is left, and so after deleteOnDestroy alone", async () => {
    const emu = await world([owner]);
    const a = { userId: A, entitlements: ["VIEWER"] };
    const b = { userId: B, entitlements: ["VIEWER"] };
    const { outs: olds } = await provider.create!({ ...news, members: [a, b] });
    // By hand: A gets EDITOR too, B is removed. No refresh.
    emu.integrations.setMember(INTEGRATION, A, { role: "collaborator", entitlements: ["VIEWER", "EDITOR"] });
    emu.integrations.removeMember(INTEGRATION, B);
    emu.clearRequests();
    const optIn = { ...news, members: [a, b], deleteOnDestroy: true };
    expect((await provider.diff!(INTEGRATION, olds!, optIn)).changes).toBe(true);
    const { outs } = await provider.update!(INTEGRATION, olds!, optIn);
    expect(writeLines(emu)).toEqual([]);
    // The program adds P: P alone is invited.
    const { outs: added } = await provider.update!(INTEGRATION, outs!, {
      ...optIn,
      members: [a, b, { userId: P, entitlements: ["VIEWER"] }],
    });
    expect(writeLines(emu)).toEqual([`POST /integrations/${INTEGRATION}/users`]);
    expect(
      emu.integrations
        .members(INTEGRATION)
        .find((m) => m.userId === A)
        ?.entitlements.sort(),
    ).toEqual(["EDITOR", "VIEWER"]);
    expect(memberIds(emu)).toEqual([A, O, P].sort());
    // A refresh reads both changes; the next plan then shows them.
    const props = (await provider.read!(INTEGRATION, added!)).props!;
    expect((await provider.diff!(INTEGRATION, props, { ...optIn, members: [a, b, { userId: P, entitlements: ["VIEWER"] }] })).changes).toBe(
      true,
    );
  });

  it("a member someone made an owner, whose role the program leaves out, is left by a removal and a destroy, with a warning", async () => {
    const emu = await world([owner]);
    const warned: string[] = [];
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    const a = { userId: A, entitlements: ["VIEWER"] };
    const b = { userId: B, entitlements: ["VIEWER"] };
    const { outs: olds } = await provider.create!({ ...news, members: [a, b] });
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
    emu.integrations.setMember(INTEGRATION, B, { role: "owner", entitlements: ["VIEWER"] });
    const props = (await provider.read!(INTEGRATION, olds!)).props!;
    // The next deployment (what the create took over was that one's).
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    emu.clearRequests();
    // A leaves the program: kept, an owner now.
    const { outs } = await provider.update!(INTEGRATION, props, { ...news, members: [b] });
    expect(writeLines(emu)).toEqual([]);
    expect(outs!.members.map((m) => m.userId)).toEqual([B]);
    const deployment = () => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    await deployment();
    await provider.delete!(INTEGRATION, outs!);
    expect(writeLines(emu)).toEqual([]);
    expect(memberIds(emu)).toEqual([A, B, O].sort());
    expect(warned.filter((w) => w.includes("owners of the integration now, a role the program does not declare"))).toHaveLength(2);
    // Declared an owner, the member is the program's to remove.
    const declared = (await provider.update!(INTEGRATION, outs!, { ...news, members: [{ ...b, role: "account_owner" }] })).outs!;
    await deployment();
    await provider.delete!(INTEGRATION, declared);
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${B}`]);
  });

  it("with deleteOnDestroy, a member someone made an owner, whose role the program leaves out, is removed when dropped (another owner stays)", async () => {
    const emu = await world([owner]);
    const optIn = { ...news, deleteOnDestroy: true };
    const a = { userId: A, entitlements: ["VIEWER"] };
    const b = { userId: B, entitlements: ["VIEWER"] };
    const { outs: olds } = await provider.create!({ ...optIn, members: [a, b] });
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
    const props = (await provider.read!(INTEGRATION, olds!)).props!;
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.clearRequests();
    await provider.update!(INTEGRATION, props, { ...optIn, members: [b] });
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${A}`]);
    expect(memberIds(emu)).toEqual([B, O].sort());
  });

  it("a member declared a collaborator, made an owner by hand, is left by a removal and a destroy as well (the owner role is not declared)", async () => {
    const emu = await world([owner]);
    const warned: string[] = [];
    const deployment = () => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" }, { warn: (m) => void warned.push(m) });
    await deployment();
    const a = { userId: A, entitlements: ["VIEWER"], role: "account_collaborator" };
    const b = { userId: B, entitlements: ["VIEWER"], role: "account_collaborator" };
    const { outs: olds } = await provider.create!({ ...news, members: [a, b] });
    expect(olds).toMatchObject({ declaredOwners: [] });
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
    emu.integrations.setMember(INTEGRATION, B, { role: "owner", entitlements: ["VIEWER"] });
    // No refresh (one would show B's role drift, which the next update sets back as declared): A leaves the program.
    await deployment();
    emu.clearRequests();
    const { outs } = await provider.update!(INTEGRATION, olds!, { ...news, members: [b] });
    expect(writeLines(emu)).toEqual([]);
    await deployment();
    await provider.delete!(INTEGRATION, outs!);
    expect(writeLines(emu)).toEqual([]);
    expect(memberIds(emu)).toEqual([A, B, O].sort());
    expect(warned.filter((w) => w.includes("owners of the integration now"))).toHaveLength(2);
    // A state written before the record of declared owners: each member whose role is declared is the program's to remove.
    const { declaredOwners: _, ...older } = outs!;
    await deployment();
    await provider.delete!(INTEGRATION, older);
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${B}`]);
  });

  it("dropping the only owner, made one by hand (role left out): the plan keeps them, as the update does; under removeUnmanaged both remove them", async () => {
    const emu = await world([]);
    const a = { userId: A, entitlements: ["VIEWER"] };
    const b = { userId: B, entitlements: ["VIEWER"] };
    const { outs: olds } = await provider.create!({ ...news, members: [a, b] });
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
    const props = (await provider.read!(INTEGRATION, olds!)).props!;
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    expect((await provider.diff!(INTEGRATION, props, { ...news, members: [b] })).changes).toBe(true);
    emu.clearRequests();
    const { outs } = await provider.update!(INTEGRATION, props, { ...news, members: [b] });
    expect(writeLines(emu)).toEqual([]);
    expect(outs!.members.map((m) => m.userId)).toEqual([B]);
    // Under removeUnmanaged, whom the program does not list goes, as the plan shows (an owner left: the guard holds).
    const removing = { ...news, members: [b], removeUnmanaged: true };
    emu.integrations.setMember(INTEGRATION, B, { role: "owner", entitlements: ["VIEWER"] });
    const again = (await provider.read!(INTEGRATION, olds!)).props!;
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.clearRequests();
    const { outs: removed } = await provider.update!(INTEGRATION, again, removing);
    expect(writeLines(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${A}`]);
    expect((await provider.diff!(INTEGRATION, removed!, removing)).changes).toBe(false);
  });

  it("a role the service changed since the state was read is left as it is by an update the plan showed for something else", async () => {
    const emu = await world([owner, { userId: A, role: "collaborator", entitlements: ["VIEWER"] }]);
    const a = { userId: A, entitlements: ["VIEWER"], role: "account_collaborator" };
    const { outs: olds } = await provider.create!({ ...news, members: [a] });
    // Someone makes A an owner in the service; no refresh. The program adds B.
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
    const next = { ...news, members: [a, { userId: B, entitlements: ["VIEWER"] }] };
    emu.clearRequests();
    const { outs } = await provider.update!(INTEGRATION, olds!, next);
    // B is invited; A, whom the program did not change, is left an owner: the update writes only what its plan showed.
    expect(writeLines(emu)).toEqual([`POST /integrations/${INTEGRATION}/users`]);
    expect(memberIds(emu)).toEqual([A, B, O].sort());
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)?.role).toBe("owner");
    // No diff of its own until a refresh reads the change; the next plan then shows it.
    expect((await provider.diff!(INTEGRATION, outs!, next)).changes).toBe(false);
    const props = (await provider.read!(INTEGRATION, outs!)).props!;
    expect(props.members.find((m) => m.userId === A)?.role).toBe("account_owner");
    expect((await provider.diff!(INTEGRATION, props, next)).changes).toBe(true);
  });
});

it("diff: removeUnmanaged with the only owner, unmanaged until now, declared in members is not refused", async () => {
  const olds: IntegrationMembersOutputs = {
    integrationId: INTEGRATION,
    members: [{ userId: A, entitlements: ["VIEWER"], role: "account_collaborator" }],
    removeUnmanaged: false,
    unmanagedMembers: [
      { userId: O, entitlements: ["VIEWER"], role: "account_owner", email: null },
      { userId: B, entitlements: ["VIEWER"], role: "account_collaborator", email: null },
    ],
    pendingInvitations: [],
    declaredRoles: [],
  };
  const members = [
    { userId: A, entitlements: ["VIEWER"] },
    { userId: O, entitlements: ["VIEWER"], role: "account_owner" },
  ];
  const result = await provider.diff!(INTEGRATION, olds, { integrationId: INTEGRATION, members, removeUnmanaged: true });
  expect(result.changes).toBe(true);
  // Without declaring the owner, the same plan is refused.
  await expect(
    provider.diff!(INTEGRATION, olds, { integrationId: INTEGRATION, members: members.slice(0, 1), removeUnmanaged: true }),
  ).rejects.toThrow(`Refusing to remove user ${O}, the last member with the owner role`);
});

it("a member found after a failed batch with another role than invited was added by someone else: that member fails as at adoption, the rest are invited", async () => {
  const list = `/integrations/${INTEGRATION}/users`;
  const users = [O, A, B].map((id, i) => ({ id, email: `u${i}@example.com`, firstName: "U", lastName: `${i}` }));
  const emu = await emulator({
    seed: {
      users,
      integrations: [
        {
          id: INTEGRATION,
          application: "App",
          entitlements: [{ id: "VIEWER" }],
          users: [{ userId: O, role: "owner", entitlements: ["VIEWER"] }],
        },
      ],
    },
    job: { finishAfterPolls: 1 },
  });
  await configureFor(emu);
  // What the list read after the failed job answers: A made an owner by someone else meanwhile.
  emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["VIEWER"] });
  const answer = await fetch(new URL(`${list.slice(1)}?page[size]=100`, emu.url), { headers: { "X-API-Key": emu.apiKey } });
  const afterFailure = await answer.text();
  emu.integrations.removeMember(INTEGRATION, A);
  // The create's own list read and the listing confirming that A and B are absent pass; the one
  // after the batch's failed job gets that answer.
  emu.fault({ method: "GET", path: list, delayMs: 0, times: 2 });
  emu.fault({ method: "GET", path: list, body: afterFailure });
  emu.jobs.failInvitesOf([A]);
  emu.clearRequests();
  const members = [A, B].map((userId) => ({ userId, entitlements: ["VIEWER"], role: "account_collaborator" }));
  const error = (await provider.create!({ integrationId: INTEGRATION, members, removeUnmanaged: false, __provider: "p" }).catch(
    (e: unknown) => e,
  )) as Error & { reasons: string[]; properties: IntegrationMembersOutputs };
  expect(error.reasons).toEqual([expect.stringContaining(`User ${A} is already a member of integration ${INTEGRATION} as account_owner`)]);
  expect(error.properties.members.map((m) => m.userId)).toEqual([B]);
  // The batch, then B alone; A is not invited again.
  const posts = emu.requests
    .filter((r) => r.method === "POST")
    .map((r) => (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds);
  expect(posts).toEqual([[A, B], [B]]);
});

/**
 * A list proves presence, never absence: against the emulator's quirks (pages that shift between
 * reads, invitations of members answered 409 / merged / failed, ids answered in upper case) and
 * its page hooks, over real HTTP. Each of these failed before the planner confirmed absences.
 */
describe("a list is not proof of absence", () => {
  const BIG = "5b1c0d2e-0000-4000-8000-0000000b1600";
  const member = (i: number) => `cccccccc-0000-4000-8000-${String(i).padStart(12, "0")}`;
  const O1 = member(0);
  /** Another admin's member, unmanaged, sorting before the page boundary. */
  const X1 = member(5);
  const D = member(100);
  const A1 = member(3);
  const listPath = `/integrations/${BIG}/users`;
  /** 151 members in order, `owners` (indices) with the owner role. */
  async function big(quirks: EmulatorOptions["quirks"] = {}, owners: number[] = [0]) {
    const users = Array.from({ length: 151 }, (_, i) => ({ id: member(i), email: `m${i}@example.com`, firstName: "M", lastName: `${i}` }));
    const emu = await emulator({
      seed: {
        users,
        integrations: [
          {
            id: BIG,
            application: "Big",
            entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }],
            users: users.map((u, i) => ({
              userId: u.id,
              role: owners.includes(i) ? ("owner" as const) : undefined,
              entitlements: ["VIEWER"],
            })),
          },
        ],
      },
      job: { finishAfterPolls: 1 },
      quirks,
    });
    await configureFor(emu);
    return emu;
  }
  const collaborator = (userId: string) => ({ userId, entitlements: ["VIEWER"], role: "account_collaborator" as const });
  const stateOf = (
    managed: Array<{ userId: string; entitlements: string[]; role: "account_owner" | "account_collaborator" }>,
    removeUnmanaged = false,
  ) => ({
    integrationId: BIG,
    members: managed,
    removeUnmanaged,
    unmanagedMembers: [],
    pendingInvitations: [],
    declaredRoles: [],
  });
  /** Every member but the owner and X1 managed, declared without roles. */
  const managedAll = () => Array.from({ length: 151 }, (_, i) => member(i)).filter((id) => id !== O1 && id !== X1);
  const inputs = (ids: string[], entitlements = (_id: string) => ["VIEWER"]) => ({
    integrationId: BIG,
    members: ids.map((userId) => ({ userId, entitlements: entitlements(userId) })),
    removeUnmanaged: false,
    __provider: "p",
  });
  const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  const directReads = (emu: Emulator) =>
    emu.requests.filter((r) => r.method === "GET" && r.path.startsWith(`${listPath}/`)).map((r) => r.path.slice(listPath.length + 1));
  /** The two ways a page shifts: the emulator's quirk, or another admin removing one of their members between page 1 and 2. */
  const shifts: Array<[string, (emu: Emulator) => void]> = [
    ["shiftPages: remove", (emu) => (emu.quirks.shiftPages = "remove")],
    [
      "another admin removes a member between the pages",
      (emu) => {
        const off = emu.onPage((list) => {
          if (list.path !== listPath) return;
          off();
          emu.integrations.removeMember(BIG, X1);
        });
      },
    ],
  ];

  it.each(shifts)("%s: an update dropping D, whom the shift skips, reads D directly and removes them", async (_how, shift) => {
    const emu = await big();
    const olds = stateOf(managedAll().map(collaborator));
    shift(emu);
    emu.clearRequests();
    const outs = wire(await provider.update!(BIG, olds, inputs(managedAll().filter((id) => id !== D)))).outs!;
    expect(writes(emu)).toEqual([`DELETE ${listPath}/${D}`]);
    expect(directReads(emu)).toEqual([D]);
    expect(emu.integrations.members(BIG).some((m) => m.userId === D)).toBe(false);
    expect(outs.members.map((m) => m.userId)).not.toContain(D);
    expect(outs.unmanagedMembers.map((m) => m.userId)).not.toContain(D);
  });

  it.each(["not-found", "job-error"] as const)(
    "nonMemberWrite %s: a destroy whose member leaves between the listing and its DELETE succeeds (a failed job: the member read)",
    async (nonMemberWrite) => {
      const emu = await big({ nonMemberWrite });
      const managed = managedAll();
      let left = false;
      // A1 (page 1) leaves while page 2 is read: listed, then written to as a member no more.
      const off = emu.onPage((list) => {
        if (list.path !== listPath) return;
        off();
        emu.integrations.removeMember(BIG, A1);
        left = true;
      });
      emu.clearRequests();
      await provider.delete!(BIG, stateOf(managed.map(collaborator)));
      expect(left).toBe(true);
      const deletes = emu.requests.filter((r) => r.method === "DELETE");
      expect(deletes).toHaveLength(managed.length);
      expect(deletes.find((r) => r.path === `${listPath}/${A1}`)?.status).toBe(nonMemberWrite === "job-error" ? 200 : 404);
      if (nonMemberWrite === "job-error") expect(directReads(emu)).toContain(A1);
      expect(emu.integrations.members(BIG).filter((m) => managed.includes(m.userId))).toEqual([]);
    },
  );

  it.each(shifts)("%s: a destroy removes every managed member, the one the shift skips included", async (_how, shift) => {
    const emu = await big();
    const managed = managedAll();
    shift(emu);
    emu.clearRequests();
    await provider.delete!(BIG, stateOf(managed.map(collaborator)));
    expect(writes(emu).filter((w) => w.startsWith("DELETE"))).toHaveLength(managed.length);
    const left = emu.integrations.members(BIG).map((m) => m.userId);
    expect(left.filter((id) => managed.includes(id))).toEqual([]);
    expect(left).toContain(O1);
  });

  it.each(["conflict", "merge", "fail"] as const)(
    "inviteExisting %s: an owner the shift skips is read directly, not invited again, and keeps the owner role",
    async (inviteExisting) => {
      const S = member(100);
      const emu = await big({ shiftPages: "remove", inviteExisting }, [0, 100]);
      const olds = stateOf([collaborator(A1), { userId: S, entitlements: ["VIEWER"], role: "account_owner" }]);
      emu.clearRequests();
      const outs = wire(
        await provider.update!(
          BIG,
          olds,
          inputs([A1, S], (id) => (id === A1 ? ["EDITOR"] : ["VIEWER"])),
        ),
      ).outs!;
      expect(writes(emu)).toEqual([`PATCH ${listPath}/${A1}`]);
      expect(emu.integrations.members(BIG).find((m) => m.userId === S)?.role).toBe("owner");
      expect(outs.members.find((m) => m.userId === S)?.role).toBe("account_owner");
      expect(
        (
          await provider.diff!(
            BIG,
            outs,
            inputs([A1, S], (id) => (id === A1 ? ["EDITOR"] : ["VIEWER"])),
          )
        ).changes,
      ).toBe(false);
    },
  );

  it("a quiet workspace costs no read more: nothing absent, nothing confirmed", async () => {
    const emu = await big();
    const olds = stateOf(managedAll().map(collaborator));
    emu.clearRequests();
    await provider.update!(
      BIG,
      olds,
      inputs(managedAll(), (id) => (id === A1 ? ["EDITOR"] : ["VIEWER"])),
    );
    expect(directReads(emu)).toEqual([]);
    expect(emu.requests.filter((r) => r.path === listPath)).toHaveLength(2);
    expect(writes(emu)).toEqual([`PATCH ${listPath}/${A1}`]);
  });

  it.each([
    ["a quiet workspace", {}, 0],
    ["pages that shift", { shiftPages: "remove" as const }, 0],
  ])("%s: a create inviting 200 members confirms their absence with listings that agree, not a read each", async (_what, quirks, reads) => {
    const emu = await big(quirks);
    const newcomers = Array.from({ length: 200 }, (_, i) => `cccccccc-0000-4000-8000-0000000a${String(i).padStart(4, "0")}`);
    for (const [i, id] of newcomers.entries()) emu.users.add({ id, email: `n${i}@example.com`, firstName: "N", lastName: `${i}` });
    emu.clearRequests();
    wire(await provider.create!(inputs([O1, ...newcomers])));
    // The list (2 pages), a confirming listing (2 pages; under a shift, one more that agrees), the
    // read-back listing after the invitations (4 pages), and a direct read for each member a
    // listing skipped that a decision rests on (here none: the one skipped was there before).
    expect(directReads(emu)).toHaveLength(reads);
    expect(emu.requests.filter((r) => r.path === listPath && r.method === "GET").length).toBeLessThanOrEqual(10);
    expect(emu.integrations.members(BIG)).toHaveLength(351);
  });

  it("IntegrationMembers.get (and its refresh) reads every member, pages shifting: a set is answered from listings that agree", async () => {
    const emu = await big({ shiftPages: "remove" });
    const get = { __get: BIG, __provider: "p" } as never;
    const read = wire(await provider.read!(BIG, get));
    expect(read.props!.members).toHaveLength(151);
    expect(read.props!.unmanagedMembers).toEqual([]);
    // A refresh of the get's resource reads with no state as well; a write arms the shift again.
    emu.integrations.setMember(BIG, member(150), { role: "collaborator", entitlements: ["EDITOR"] });
    const again = wire(await provider.read!(BIG, { ...read.props, __provider: "p" } as never));
    expect(again.props!.members).toHaveLength(151);
    expect(emu.requests.every((r) => r.method === "GET")).toBe(true);
  });

  it("records listed twice count once: no member unmanaged twice, nothing read or written beyond the change", async () => {
    const emu = await big({ repeatRecords: true });
    const olds = stateOf(managedAll().map(collaborator));
    emu.clearRequests();
    const outs = wire(
      await provider.update!(
        BIG,
        olds,
        inputs(managedAll(), (id) => (id === A1 ? ["EDITOR"] : ["VIEWER"])),
      ),
    ).outs!;
    expect(writes(emu)).toEqual([`PATCH ${listPath}/${A1}`]);
    expect(directReads(emu)).toEqual([]);
    expect(outs.unmanagedMembers.map((m) => m.userId)).toEqual([O1, X1]);
    expect(outs.members).toHaveLength(149);
  });

  it("ids answered in upper case: declared members are adopted, not invited, not unmanaged, and removeUnmanaged removes only the others", async () => {
    const emu = await big({ upperCaseIds: true });
    const declared = [O1, A1, D];
    const news = { ...inputs(declared), removeUnmanaged: true };
    emu.clearRequests();
    const created = wire(await provider.create!(news)).outs!;
    expect(writes(emu)).toEqual([]);
    expect(created.members.map((m) => m.userId)).toEqual([...declared].sort());
    expect(created.unmanagedMembers.map((m) => m.userId.toLowerCase())).not.toContain(A1);
    expect(created.unmanagedMembers).toHaveLength(148);
    emu.clearRequests();
    const updated = wire(await provider.update!(BIG, created, news)).outs!;
    const removed = writes(emu).map((w) => w.slice(`DELETE ${listPath}/`.length).toLowerCase());
    expect(removed).toHaveLength(148);
    expect(removed.filter((id) => declared.includes(id))).toEqual([]);
    expect(
      emu.integrations
        .members(BIG)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([...declared].sort());
    expect(updated.unmanagedMembers).toEqual([]);
  });

  it("an invitation whose read-back finds another role or set than asked fails that member with what was found", async () => {
    const emu = await big();
    const N = "cccccccc-0000-4000-8000-00000000ffff";
    emu.users.add({ id: N, email: "n@example.com", firstName: "N", lastName: "N" });
    // What a service that merged the invitation into a membership made meanwhile answers: an owner with both sets.
    emu.integrations.setMember(BIG, N, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    const merged = await (await fetch(new URL(`integrations/${BIG}/users/${N}`, emu.url), { headers: { "X-API-Key": emu.apiKey } })).text();
    emu.integrations.removeMember(BIG, N);
    emu.fault({ method: "GET", path: `${listPath}/${N}`, status: 404 });
    emu.fault({ method: "GET", path: `${listPath}/${N}`, body: merged });
    const error = (await provider.create!(inputs([N])).catch((e: unknown) => e)) as Error & { properties: IntegrationMembersOutputs };
    expect(error.message).toContain(`the service now has them as account_owner with [EDITOR, VIEWER]`);
    expect(error.properties.members).toEqual([{ userId: N, entitlements: ["EDITOR", "VIEWER"], role: "account_owner" }]);
  });

  it("a member its invitation finds there already (409) after a read confirmed them absent is recorded adopted: destroy leaves them", async () => {
    const emu = await big();
    const N = "cccccccc-0000-4000-8000-00000000fff3";
    emu.users.add({ id: N, email: "n3@example.com", firstName: "N", lastName: "N" });
    emu.integrations.setMember(BIG, N, { role: "collaborator", entitlements: ["VIEWER"] });
    const record = await (await fetch(new URL(`integrations/${BIG}/users/${N}`, emu.url), { headers: { "X-API-Key": emu.apiKey } })).text();
    emu.integrations.removeMember(BIG, N);
    // Absent when listed and read; someone adds them before the invitation, which answers 409; the read after it finds them.
    emu.fault({ method: "GET", path: `${listPath}/${N}`, status: 404 });
    emu.fault({ method: "POST", path: listPath, status: 409 });
    emu.fault({ method: "GET", path: `${listPath}/${N}`, body: record });
    const created = wire(await provider.create!(inputs([N]))).outs as IntegrationMembersOutputs;
    expect(created.members).toEqual([collaborator(N)]);
    expect(created.adoptedMembers).toEqual([N]);
    emu.integrations.setMember(BIG, N, { role: "collaborator", entitlements: ["VIEWER"] });
    emu.clearRequests();
    await provider.delete!(BIG, created);
    expect(writes(emu)).toEqual([]);
    expect(emu.integrations.members(BIG).some((m) => m.userId === N)).toBe(true);
  });

  it("an invitation whose read-back record cannot be used is recorded as invited, not failed with an empty set", async () => {
    const emu = await big();
    const N = "cccccccc-0000-4000-8000-00000000fff4";
    emu.users.add({ id: N, email: "n4@example.com", firstName: "N", lastName: "N" });
    emu.fault({ method: "GET", path: `${listPath}/${N}`, status: 404 });
    // A number where the contract has a string: the read-back's record fails parsing.
    const malformed = { data: { id: N, type: "integration_user", attributes: { email: 42, role: "account_collaborator" } } };
    emu.fault({ method: "GET", path: `${listPath}/${N}`, body: JSON.stringify(malformed) });
    const created = wire(await provider.create!(inputs([N]))).outs as IntegrationMembersOutputs;
    expect(created.members).toEqual([collaborator(N)]);
    expect(emu.integrations.members(BIG).find((m) => m.userId === N)?.entitlements).toEqual(["VIEWER"]);
  });

  /** The requests sent, as `GET /api/v1/path?query status`. */
  const sent = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.rawPath} ${r.status}`);
  /** The client's proof that a first 404 to a member list is the integration's: the listings of integrations and users answer. */
  const proof = ["GET /api/v1/integrations?page%5Bsize%5D=1 200", "GET /api/v1/users?page%5Bsize%5D=1 200"];

  it("a refresh whose integration is gone (its member list and itself answer 404, confirmed) drops the resource with a warning, removing nobody", async () => {
    const emu = await big();
    const warned: string[] = [];
    await configureFor(emu, {}, { warn: (message) => void warned.push(message) });
    emu.integrations.remove(BIG);
    emu.clearRequests();
    expect(wire(await provider.read!(BIG, stateOf(managedAll().map(collaborator))))).toEqual({ id: "", props: {} });
    expect(warned).toEqual([
      `Integration ${BIG} no longer exists: its member list and the integration itself answer 404 (GET /integrations/${BIG}; ` +
        "the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key lacks). The " +
        "IntegrationMembers is dropped from the state, removing no one; if the program still declares it, the next up tries " +
        "to create it and fails while the integration is gone: remove it from the program.",
    ]);
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 404`]);
  });

  it("a refresh whose member list answers 404 while the integration answers fails, and drops nobody", async () => {
    const emu = await big();
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.read!(BIG, stateOf(managedAll().map(collaborator))));
    expect(error.message).toBe(
      `Integration ${BIG} answers GET /integrations/${BIG}, but its member list answered 404 (the 404 is confirmed: this ` +
        "key is shown integrations and users, so it is not a scope the key lacks): the service withholds this " +
        "integration's members from this key. The refresh changes nothing in the state. Check the key's access to this " +
        "integration's members, then refresh again.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 200`]);
  });

  it("an up after the drop tries the create, and fails saying the integration does not exist, read once after the 404: nothing is written", async () => {
    const emu = await big();
    emu.integrations.remove(BIG);
    emu.clearRequests();
    const error = await rejection(provider.create!(inputs(managedAll())));
    expect(error).toMatchObject({ kind: "configuration", setting: "integrationId" });
    expect(error.message).toBe(
      `Integration ${BIG} does not exist: GET /api/v1${listPath} answered 404 to the create, and so does the ` +
        `integration itself (GET /integrations/${BIG}; the 404 is confirmed: this key is shown integrations and users, so it ` +
        "is not a scope the key lacks). Nothing was created. Remove this IntegrationMembers from the program, or point its " +
        "integrationId at an existing integration (getIntegration looks one up by name).",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 404`]);
    expect(writes(emu)).toEqual([]);
  });

  it("an update whose integration was deleted since the state was written fails saying it does not exist, and what to do: nothing written, the state kept", async () => {
    const emu = await big();
    emu.integrations.remove(BIG);
    emu.clearRequests();
    const error = (await rejection(provider.update!(BIG, stateOf(managedAll().map(collaborator)), inputs(managedAll())))) as Error & {
      properties?: unknown;
    };
    expect(error).toMatchObject({ kind: "configuration", setting: "integrationId" });
    expect(error.message).toBe(
      `Integration ${BIG} does not exist: GET /api/v1${listPath} answered 404 to the update, and so does the ` +
        `integration itself (GET /integrations/${BIG}; the 404 is confirmed: this key is shown integrations and users, so it ` +
        "is not a scope the key lacks). It was deleted since the state was written: nothing was changed, and the state keeps " +
        "the resource. Remove this IntegrationMembers from the program (its destroy then finds the integration gone and " +
        "removes no one), or point its integrationId at an existing integration; pulumi refresh drops it from the state, its " +
        "integration confirmed gone (removing no one).",
    );
    // No state with the error: the engine keeps the resource as it was, its members not read as removed.
    expect(error.properties).toBeUndefined();
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 404`]);
    expect(writes(emu)).toEqual([]);
  });

  it("an update whose member list answers 404 while the integration answers fails saying the members are withheld: nothing is written", async () => {
    const emu = await big();
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.update!(BIG, stateOf(managedAll().map(collaborator)), inputs(managedAll())));
    expect(error.message).toBe(
      `Integration ${BIG} answers GET /integrations/${BIG}, but its member list answered 404 (the 404 is confirmed: this ` +
        "key is shown integrations and users, so it is not a scope the key lacks): the service withholds this " +
        "integration's members from this key. Nothing was changed. Check the key's access to this integration's members, " +
        "then run pulumi up again.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 200`]);
    expect(writes(emu)).toEqual([]);
  });

  it("an update's writes answered 404 after its list, the integration gone meanwhile: each member fails saying it does not exist, one integration read", async () => {
    const emu = await big();
    const [N1, N2] = ["cccccccc-0000-4000-8000-00000000fff5", "cccccccc-0000-4000-8000-00000000fff6"];
    for (const id of [N1, N2]) emu.users.add({ id, email: `${id.slice(-4)}@example.com`, firstName: "N", lastName: "N" });
    // Deleted after the list was read: the invitation, the PATCH and its member's read back, and the integration answer 404.
    emu.fault({ method: "POST", path: listPath, status: 404 });
    emu.fault({ method: "PATCH", path: `${listPath}/${D}`, status: 404 });
    emu.fault({ method: "GET", path: `${listPath}/${D}`, status: 404 });
    emu.fault({ method: "GET", path: `/integrations/${BIG}`, status: 404, times: 2 });
    emu.clearRequests();
    const olds = stateOf(managedAll().map(collaborator));
    const error = (await rejection(
      provider.update!(
        BIG,
        olds,
        inputs([...managedAll(), N1, N2], (id) => (id === D ? ["EDITOR"] : ["VIEWER"])),
      ),
    )) as Error & { reasons: string[] };
    expect(error.reasons).toHaveLength(3);
    for (const [userId, request] of [
      [N1, `POST /api/v1${listPath}`],
      [N2, `POST /api/v1${listPath}`],
      [D, `PATCH /api/v1${listPath}/${D}`],
    ] as const) {
      const reason = error.reasons.find((r) => r.startsWith(`user ${userId}: `));
      expect(reason).toContain(
        `Integration ${BIG} does not exist: ${request} answered 404 to the update, and so does the integration itself`,
      );
      expect(reason).toContain("pulumi refresh drops it from the state");
    }
    // The batch's 404 read the integration (not halved: it is gone); the members' failures reuse that answer.
    expect(sent(emu).filter((r) => r.startsWith(`GET /api/v1/integrations/${BIG} `))).toEqual([`GET /api/v1/integrations/${BIG} 404`]);
    expect(writes(emu)).toEqual([`POST ${listPath}`, `PATCH ${listPath}/${D}`]);
  });

  it("an update's invitation answered 404 whose integration cannot be read says both, nothing read as gone", async () => {
    const emu = await big();
    await configureFor(emu, { "workspace-access:maxRetries": "0" });
    const N1 = "cccccccc-0000-4000-8000-00000000fff5";
    emu.users.add({ id: N1, email: "fff5@example.com", firstName: "N", lastName: "N" });
    emu.fault({ method: "POST", path: listPath, status: 404 });
    emu.fault({ method: "GET", path: `/integrations/${BIG}`, status: 503 });
    emu.clearRequests();
    const olds = stateOf(managedAll().map(collaborator));
    const error = (await rejection(provider.update!(BIG, olds, inputs([...managedAll(), N1])))) as Error & { reasons: string[] };
    expect(error.reasons).toEqual([
      expect.stringMatching(
        new RegExp(
          `^user ${N1}: POST /api/v1${listPath} answered 404, and GET /integrations/${BIG}, which tells whether the integration ` +
            `is gone, did not answer it, so nothing was read as gone: GET /api/v1/integrations/${BIG} answered 503`,
        ),
      ),
    ]);
    expect(sent(emu).filter((r) => r.startsWith(`GET /api/v1/integrations/${BIG} `))).toEqual([`GET /api/v1/integrations/${BIG} 503`]);
  });

  it("an update's batch of invitations answered 404 whose integration cannot be read fails each at once, not halved: none invited, none recorded", async () => {
    const emu = await big();
    await configureFor(emu, { "workspace-access:maxRetries": "0" });
    const newcomers = Array.from({ length: 6 }, (_, i) => `cccccccc-0000-4000-8000-00000000ffe${i}`);
    for (const id of newcomers) emu.users.add({ id, email: `${id.slice(-4)}@example.com`, firstName: "N", lastName: "N" });
    emu.fault({ method: "POST", path: listPath, status: 404, times: 20 });
    emu.fault({ method: "GET", path: `/integrations/${BIG}`, status: 503, times: 20 });
    emu.clearRequests();
    const olds = stateOf(managedAll().map(collaborator));
    const error = (await rejection(provider.update!(BIG, olds, inputs([...managedAll(), ...newcomers])))) as Error & {
      reasons: string[];
      properties?: IntegrationMembersOutputs;
    };
    // One invitation of the six, one read of the integration: not 11 invitations (halved down to each user), each read after.
    expect(writes(emu)).toEqual([`POST ${listPath}`]);
    expect(sent(emu).filter((r) => r.startsWith(`GET /api/v1/integrations/${BIG} `))).toEqual([`GET /api/v1/integrations/${BIG} 503`]);
    expect(error.reasons).toHaveLength(6);
    newcomers.forEach((userId, i) => {
      const reason = error.reasons[i]!;
      expect(reason).toMatch(
        new RegExp(
          `^user ${userId}: Inviting user ${userId} \\(one of 6 invited together\\): POST /api/v1${listPath} answered 404, and ` +
            `GET /integrations/${BIG}, which tells whether the integration is gone, did not answer it, so nothing was read as ` +
            `gone: GET /api/v1/integrations/${BIG} answered 503`,
        ),
      );
      expect(reason).toContain(
        "Nothing was invited, and no invitation was sent again: run pulumi up again once the service answers. Should the 404 " +
          "come back while the integration answers its read, check the key's scopes (an invitation needs the scopes Write " +
          "integrations (write:integrations), Read automated jobs (read:automations) and Write automated jobs " +
          `(write:automations)) and the integrationId (${BIG}).`,
      );
    });
    // Nothing done, nothing pending: the next up invites them again.
    const recorded = error.properties ?? olds;
    for (const id of newcomers) expect(recorded.members.some((m) => m.userId === id)).toBe(false);
    expect(JSON.stringify(recorded.pendingInvitations ?? [])).not.toContain("ffe");
    expect(emu.integrations.members(BIG).some((m) => newcomers.includes(m.userId))).toBe(false);
  });

  it("a create whose member list answers 404 while the integration answers fails saying the members are withheld: nothing is written", async () => {
    const emu = await big();
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.create!(inputs(managedAll())));
    expect(error.message).toBe(
      `Integration ${BIG} answers GET /integrations/${BIG}, but its member list answered 404 (the 404 is confirmed: this ` +
        "key is shown integrations and users, so it is not a scope the key lacks): the service withholds this " +
        "integration's members from this key. Nothing was created. Check the key's access to this integration's members, " +
        "then run pulumi up again.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 200`]);
    expect(writes(emu)).toEqual([]);
  });

  it("a destroy whose member list answers 404 while the integration answers fails, keeping the resource and removing nobody", async () => {
    const emu = await big();
    const state = stateOf(managedAll().map(collaborator));
    const before = emu.integrations.members(BIG).length;
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.delete!(BIG, state));
    expect(error.message).toBe(
      `Integration ${BIG} answers GET /integrations/${BIG}, but its member list answered 404 (the 404 is confirmed: this ` +
        "key is shown integrations and users, so it is not a scope the key lacks): the service withholds this " +
        "integration's members from this key. Its members were not removed and the resource is kept. Check the key's " +
        "access to this integration's members, then destroy again; to stop managing them without removing anyone, " +
        "pulumi state delete this resource.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 200`]);
    expect(emu.integrations.members(BIG)).toHaveLength(before);
  });

  it("an import of an integration whose member list and itself answer 404, confirmed, fails saying there is none, and writes nothing", async () => {
    const emu = await big();
    emu.integrations.remove(BIG);
    emu.clearRequests();
    const error = await rejection(provider.create!({ ...inputs([O1]), __importId: BIG }));
    expect(error).toMatchObject({ kind: "configuration", setting: "import" });
    expect(error.message).toBe(
      `import: there is no integration ${BIG}: its member list and the integration itself answer 404 (GET ` +
        `/integrations/${BIG}; the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key ` +
        "lacks), so there is nothing to import. Nothing was changed. Check the id.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 404`]);
  });

  it("an import whose member list answers 404 while the integration answers fails saying the members are withheld, not that there is none", async () => {
    const emu = await big();
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.create!({ ...inputs([O1]), __importId: BIG }));
    expect(error.message).toBe(
      `Integration ${BIG} answers GET /integrations/${BIG}, but its member list answered 404 (the 404 is confirmed: this ` +
        "key is shown integrations and users, so it is not a scope the key lacks): the service withholds this " +
        "integration's members from this key. Nothing was imported or changed. Check the key's access to this integration's " +
        "members, then run pulumi up again.",
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 200`]);
    expect(writes(emu)).toEqual([]);
  });

  it("a destroy whose integration is gone (both answer 404) is done", async () => {
    const emu = await big();
    emu.integrations.remove(BIG);
    await provider.delete!(BIG, stateOf(managedAll().map(collaborator)));
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
  });

  /** The words of a member list's 404 whose integration's own read then answered 503: both said, nothing read as gone. */
  const integrationUnread = (status: number) =>
    new RegExp(
      `^GET /api/v1${listPath} answered 404, and GET /integrations/${BIG}, which tells whether the integration is gone, did ` +
        `not answer it, so nothing was read as gone: GET /api/v1/integrations/${BIG} answered ${status}`,
    );

  it.each([
    ["a refresh", (state: IntegrationMembersOutputs) => provider.read!(BIG, state)],
    ["a destroy", (state: IntegrationMembersOutputs) => provider.delete!(BIG, state)],
  ])("%s whose member list answers 404 and whose integration cannot be read says both: nothing dropped or removed", async (_op, run) => {
    const emu = await big();
    await configureFor(emu, { "workspace-access:maxRetries": "0" });
    const before = emu.integrations.members(BIG).length;
    emu.fault({ method: "GET", path: listPath, status: 404 });
    emu.fault({ method: "GET", path: `/integrations/${BIG}`, status: 503 });
    emu.clearRequests();
    const error = await rejection(Promise.resolve(run(stateOf(managedAll().map(collaborator)))));
    expect(error).toMatchObject({ status: 503 });
    expect(error.message).toMatch(integrationUnread(503));
    expect(error.message).toContain(
      "Nothing was dropped, removed or written: run the command again once the service answers. Should the 404 come back " +
        "while the integration answers its read, check the key's scopes (a member list needs the scopes Read integrations " +
        `(read:integrations) and Read users (read:users)) and the integrationId (${BIG}).`,
    );
    expect(sent(emu)).toEqual([`GET /api/v1${listPath}?page%5Bsize%5D=100 404`, ...proof, `GET /api/v1/integrations/${BIG} 503`]);
    expect(emu.integrations.members(BIG)).toHaveLength(before);
  });

  it("a create failing for two members with nothing managed records no resource", async () => {
    const emu = await big();
    const [P, Q] = ["cccccccc-0000-4000-8000-00000000fff1", "cccccccc-0000-4000-8000-00000000fff2"];
    for (const id of [P, Q]) emu.users.add({ id, email: `${id.slice(-4)}@example.com`, firstName: "P", lastName: "Q" });
    emu.fault({ method: "POST", path: listPath, status: 403 });
    const error = (await provider.create!(inputs([P, Q])).catch((e: unknown) => e)) as Error & { reasons?: string[] };
    expect(error.reasons).toHaveLength(2);
    expect(error).not.toHaveProperty("properties");
    expect(error).not.toHaveProperty("id");
  });
});

const person = (id: string, name: string) => ({ id, email: `${name}@example.com`, firstName: name, lastName: "Doe" });

/** An emulator whose integration has the members A (holding `aHolds`) and B, `owner` of them its owner; a deployment configured on it. */
async function aAndB(owner: string, aHolds = ["VIEWER"]): Promise<Emulator> {
  const member = (userId: string, entitlements: string[]) => ({
    userId,
    entitlements,
    ...(userId === owner && { role: "owner" as const }),
  });
  const emu = await emulator({
    seed: {
      users: [person(A, "a"), person(B, "b")],
      integrations: [
        {
          id: INTEGRATION,
          application: "App",
          entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }],
          users: [member(A, aHolds), member(B, ["VIEWER"])],
        },
      ],
    },
    job: { finishAfterPolls: 1 },
  });
  await configureFor(emu);
  return emu;
}

/** From now on (ten reads), the member list serves A's record unusable (an email that is no string); that record, returned. */
async function unusableA(emu: Emulator): Promise<{ id: string; attributes: Record<string, unknown> }> {
  const page = await fetch(new URL(`integrations/${INTEGRATION}/users?page[size]=100`, emu.url), { headers: { "X-API-Key": emu.apiKey } });
  const listed = (await page.json()) as { data: Array<{ id: string; attributes: Record<string, unknown> }> };
  for (const record of listed.data) if (record.id === A) record.attributes.email = 42;
  emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: JSON.stringify(listed), times: 10 });
  return listed.data.find((record) => record.id === A)!;
}

describe("a managed member whose record cannot be read is never a known non-owner", () => {
  // A was made the integration's only owner since the state recorded them a collaborator; their listed record is unusable.
  const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
  async function setup() {
    const emu = await aAndB(A);
    await unusableA(emu);
    const collaborator = (userId: string) => ({ userId, entitlements: ["VIEWER"], role: "account_collaborator" as const });
    const state = {
      integrationId: INTEGRATION,
      members: [collaborator(A), collaborator(B)],
      removeUnmanaged: false,
      unmanagedMembers: [],
      pendingInvitations: [],
      declaredRoles: [],
      adoptedMembers: [],
    } as IntegrationMembersOutputs;
    emu.clearRequests();
    return { emu, state };
  }

  it("destroy refuses to remove them (they may be an owner), and removes only the member known a collaborator", async () => {
    const { emu, state } = await setup();
    await expect(provider.delete!(INTEGRATION, state)).rejects.toThrow(/does not say their role.*may be an owner/);
    expect(writes(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${B}`]);
    expect(
      emu.integrations
        .members(INTEGRATION)
        .filter((m) => m.role === "owner")
        .map((m) => m.userId),
    ).toEqual([A]);
  });

  it("an update that leaves them out refuses likewise", async () => {
    const { emu, state } = await setup();
    const news = { integrationId: INTEGRATION, members: [{ userId: B, entitlements: ["VIEWER"] }], removeUnmanaged: false };
    await expect(provider.update!(INTEGRATION, state, news)).rejects.toThrow(/owner/);
    expect(writes(emu)).toEqual([]);
  });
});

describe("a member no state records whose record cannot be used", () => {
  // A, whom no state records, has a listed record the client cannot use (an email that is no string); B owns the integration.
  const listPath = `/integrations/${INTEGRATION}/users`;

  it("is recorded with entitlements null (not known), never [] (none): a refresh and an up say nothing of their set", async () => {
    const emu = await aAndB(B);
    const news = { integrationId: INTEGRATION, members: [{ userId: B, entitlements: ["VIEWER"] }], removeUnmanaged: false };
    const created = wire(await provider.create!(news)).outs as IntegrationMembersOutputs;
    await unusableA(emu);
    emu.clearRequests();

    await configureFor(emu);
    const read = wire(await provider.read!(INTEGRATION, created));
    const unknownSet = (outs: IntegrationMembersOutputs | undefined) => outs?.unmanagedMembers.find((m) => m.userId === A)?.entitlements;
    expect(unknownSet(read.props as IntegrationMembersOutputs)).toBeNull();
    const updated = wire(await provider.update!(INTEGRATION, read.props as IntegrationMembersOutputs, news));
    expect(unknownSet(updated.outs as IntegrationMembersOutputs)).toBeNull();
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("declared under ignoreChanges on members by an import: recorded with the declared set (as one whose record leaves it out), not []", async () => {
    const emu = await aAndB(B, ["EDITOR"]);
    const unusable = await unusableA(emu);
    emu.fault({ method: "GET", path: `${listPath}/${A}`, body: JSON.stringify({ data: unusable }), times: 10 });
    emu.clearRequests();
    const declared = {
      integrationId: INTEGRATION,
      members: [
        { userId: B, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: A, entitlements: ["VIEWER"] },
      ],
      removeUnmanaged: false,
      __importId: INTEGRATION,
      __ignoreChanges: ["members"],
    };
    const outs = wire(await provider.create((await check(declared)).inputs!)).outs as IntegrationMembersOutputs;
    expect(outs.members.find((m) => m.userId === A)?.entitlements).toEqual(["VIEWER"]);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)?.entitlements).toEqual(["EDITOR"]);
  });
});

/** `n` user ids tagged `tag` (…0b1, …0b2): each test's own people. */
function idsOf(tag: string, n: 2): [string, string];
function idsOf(tag: string, n: 3): [string, string, string];
function idsOf(tag: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-0000000000${tag}${i + 1}`);
}

/** A world of one integration offering VIEWER and EDITOR, whose one member is `owner` (its owner), and `users` beside it. */
async function ownedWorld(owner: string, users: readonly string[], options: EmulatorOptions = {}) {
  const person = (id: string, i: number) => ({ id, email: `user${i}@example.com`, firstName: "U", lastName: `${i}` });
  const emu = await emulator({
    seed: {
      users: [owner, ...users].map(person),
      integrations: [
        {
          id: INTEGRATION,
          application: "App",
          entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }],
          users: [{ userId: owner, role: "owner", entitlements: ["VIEWER"] }],
        },
      ],
    },
    job: { finishAfterPolls: 1 },
    ...options,
  });
  return emu;
}

describe("an invitation whose job fails because someone made the member meanwhile (inviteExisting: fail)", () => {
  it("records that member adopted: destroy gives them back, and removes only the member the stack made", async () => {
    const [O, N1, N2] = idsOf("f", 3);
    const emu = await ownedWorld(O, [N1, N2], { quirks: { inviteExisting: "fail" } });
    await configureFor(emu);
    emu.jobs.hangNext(1);
    const members = [N1, N2].map((userId) => ({ userId, entitlements: ["VIEWER"] }));
    const created = provider.create!({ integrationId: INTEGRATION, members, removeUnmanaged: false });
    for (let turn = 0; turn < 10_000 && !emu.jobs.list().some((j) => j.status === "running"); turn++)
      await new Promise((resolve) => setImmediate(resolve));
    // Someone adds N1, with a set of their own, before the invitation's job runs: the job fails for them.
    emu.integrations.setMember(INTEGRATION, N1, { role: "collaborator", entitlements: ["EDITOR", "VIEWER"] });
    emu.jobs.release(emu.jobs.list().find((j) => j.status === "running")!.id);
    const outs = wire(await created).outs as IntegrationMembersOutputs;
    expect(outs.adoptedMembers).toEqual([N1]);
    await configureFor(emu);
    emu.clearRequests();
    await provider.delete!(INTEGRATION, outs);
    expect(emu.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([`/integrations/${INTEGRATION}/users/${N2}`]);
    expect(
      emu.integrations
        .members(INTEGRATION)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([O, N1].sort());
  });
});

describe("a refresh's inputs", () => {
  it("hold a member's role only where the program declares it: a role left out stays the service's", async () => {
    const [O, A, B] = idsOf("b", 3);
    const emu = await ownedWorld(O, [A, B]);
    await configureFor(emu);
    const members = [
      { userId: A, entitlements: ["VIEWER"] },
      { userId: B, entitlements: ["VIEWER"], role: "account_collaborator" },
    ];
    const { outs } = await provider.create!({ integrationId: INTEGRATION, members, removeUnmanaged: false });
    const read = wire(await provider.read!(INTEGRATION, outs!));
    expect((read.inputs as unknown as { members: unknown[] }).members).toEqual([
      { userId: A, entitlements: ["VIEWER"] },
      { userId: B, entitlements: ["VIEWER"], role: "account_collaborator" },
    ]);
    expect(read.props?.members.map((m) => m.role)).toEqual(["account_collaborator", "account_collaborator"]);
  });
});

describe("members that were there before (adopted)", () => {
  it.each([
    ["without deleteOnDestroy, destroy gives them back", false],
    ["with deleteOnDestroy, destroy removes them too", true],
  ])("%s, after a refresh and an update; the members the stack made are removed either way, the owner stays", async (_what, optIn) => {
    const [O, A, B] = idsOf("c", 3);
    const emu = await ownedWorld(O, [A, B]);
    emu.integrations.setMember(INTEGRATION, A, { role: "collaborator", entitlements: ["VIEWER"] });
    await configureFor(emu);
    const members = [A, B].map((userId) => ({ userId, entitlements: ["VIEWER"] }));
    const outs = wire(
      await provider.create!({ integrationId: INTEGRATION, members, removeUnmanaged: false, ...(optIn ? { deleteOnDestroy: true } : {}) }),
    ).outs as IntegrationMembersOutputs;
    expect(outs.adoptedMembers).toEqual([A]);
    // A refresh, then an update of the sets, in later deployments: A stays adopted.
    await configureFor(emu);
    const read = wire(await provider.read!(INTEGRATION, outs)).props as IntegrationMembersOutputs;
    expect(read.adoptedMembers).toEqual([A]);
    await configureFor(emu);
    const changed = members.map((m) => ({ ...m, entitlements: ["EDITOR", "VIEWER"] }));
    const declared = { integrationId: INTEGRATION, members: changed, removeUnmanaged: false, ...(optIn ? { deleteOnDestroy: true } : {}) };
    const updated = wire(await provider.update!(INTEGRATION, read, declared)).outs as IntegrationMembersOutputs;
    expect(updated.adoptedMembers).toEqual([A]);
    await configureFor(emu);
    emu.clearRequests();
    await provider.delete!(INTEGRATION, updated);
    const removed = optIn ? [A, B] : [B];
    expect(
      emu.requests
        .filter((r) => r.method === "DELETE")
        .map((r) => r.path)
        .sort(),
    ).toEqual(removed.map((id) => `/integrations/${INTEGRATION}/users/${id}`).sort());
    expect(
      emu.integrations
        .members(INTEGRATION)
        .map((m) => m.userId)
        .sort(),
    ).toEqual((optIn ? [O] : [O, A]).sort());
  });
});

describe("an invitation job that fails for the whole set (an entitlement retired since the preview)", () => {
  it("fails every new member with the job's error, naming the entitlement, without halving the batch down to each user", async () => {
    const O = "00000000-0000-4000-8000-0000000000e0";
    const news = Array.from({ length: 64 }, (_, i) => `00000000-0000-4000-8000-${String(100 + i).padStart(12, "0")}`);
    const emu = await ownedWorld(O, news);
    await configureFor(emu);
    emu.clearRequests();
    // Not through check (which reads the catalogue): the set was offered when the preview ran.
    const members = news.map((userId) => ({ userId, entitlements: ["RETIRED"] }));
    const error = (await provider.create!({ integrationId: INTEGRATION, members, removeUnmanaged: false }).catch(
      (e: unknown) => e,
    )) as Error & {
      reasons?: string[];
    };
    expect(error.reasons).toHaveLength(64);
    expect(error.message).toContain('does not offer "RETIRED"');
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    expect(emu.integrations.members(INTEGRATION).map((m) => m.userId)).toEqual([O]);
  });
});

describe("a pending invitation whose member someone else made meanwhile, with another role", () => {
  it("is kept as recorded by a refresh, adopted by the next up, and left by destroy", async () => {
    const [O, A] = idsOf("d", 2);
    const emu = await ownedWorld(O, [A]);
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    const news = { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }], removeUnmanaged: false };
    emu.jobs.hangNext(1);
    const partial = (await provider.create!({ ...news, __provider: "p" }).catch((e: unknown) => e)) as {
      properties: IntegrationMembersOutputs;
    };
    const state = wire(partial.properties) as IntegrationMembersOutputs;
    expect(state.pendingInvitations).toHaveLength(1);
    // Someone makes A an owner by hand; the stuck invitation's job then fails.
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    emu.jobs.failInvitesOf([A]);
    emu.jobs.release(job.id);
    await configureFor(emu);
    const refreshed = wire(await provider.read!(INTEGRATION, state)).props as IntegrationMembersOutputs;
    expect(refreshed.members).toEqual(state.members);
    expect(refreshed.pendingInvitations).toEqual(state.pendingInvitations);
    const updated = wire(await provider.update!(INTEGRATION, refreshed, news)).outs as IntegrationMembersOutputs;
    expect(updated.adoptedMembers).toEqual([A]);
    expect(updated.pendingInvitations).toEqual([]);
    await configureFor(emu);
    emu.clearRequests();
    await provider.delete!(INTEGRATION, updated);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)?.role).toBe("owner");
  });

  it("a destroy right after the refresh leaves them too, with a warning naming them", async () => {
    const [O, A] = idsOf("a", 2);
    const emu = await ownedWorld(O, [A]);
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    const news = { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }], removeUnmanaged: false };
    emu.jobs.hangNext(1);
    const partial = (await provider.create!({ ...news, __provider: "p" }).catch((e: unknown) => e)) as {
      properties: IntegrationMembersOutputs;
    };
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    emu.integrations.setMember(INTEGRATION, A, { role: "owner", entitlements: ["EDITOR"] });
    emu.jobs.failInvitesOf([A]);
    emu.jobs.release(job.id);
    const warnings: string[] = [];
    await configureFor(emu, {}, { warn: (message) => void warnings.push(message) });
    const refreshed = wire(await provider.read!(INTEGRATION, wire(partial.properties))).props as IntegrationMembersOutputs;
    emu.clearRequests();
    await provider.delete!(INTEGRATION, refreshed);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)).toMatchObject({ role: "owner", entitlements: ["EDITOR"] });
    expect(warnings.join("\n")).toContain(`Integration ${INTEGRATION}: 1 member(s) left as they are, holding another role`);
    expect(warnings.join("\n")).toContain(A);
  });
});

describe("an invitation whose answer was lost (no job known)", () => {
  it("is recorded in pendingInvitations: a refresh keeps the member, and once it lands it is this resource's, removed by destroy", async () => {
    const [O, A, B] = idsOf("e", 3);
    const emu = await ownedWorld(O, [A, B]);
    await configureFor(emu);
    const members = [
      { userId: A, entitlements: ["VIEWER"] },
      { userId: B, entitlements: ["VIEWER"] },
    ];
    const news = { integrationId: INTEGRATION, members, removeUnmanaged: false };
    // The batch's POST gets no answer, and the service did not carry it out (yet).
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, reset: true });
    const partial = (await provider.create!({ ...news, __provider: "p" }).catch((e: unknown) => e)) as {
      properties: IntegrationMembersOutputs;
    };
    const state = wire(partial.properties) as IntegrationMembersOutputs;
    expect(state.members.map((m) => m.userId)).toEqual([A, B]);
    expect(state.pendingInvitations).toEqual([
      { userId: A, jobId: null },
      { userId: B, jobId: null },
    ]);
    // A refresh before it lands keeps both: dropped, the next up would take them for someone else's once it lands.
    const refreshed = wire(await provider.read!(INTEGRATION, state)).props as IntegrationMembersOutputs;
    expect(refreshed.members).toEqual(state.members);
    expect(refreshed.pendingInvitations).toEqual(state.pendingInvitations);
    expect((await provider.diff!(INTEGRATION, refreshed, news)).changes).toBe(true);
    // It lands, as asked: the next up takes both as its own (not adopted), with nothing written, and destroy removes them.
    for (const userId of [A, B]) emu.integrations.setMember(INTEGRATION, userId, { role: "collaborator", entitlements: ["VIEWER"] });
    await configureFor(emu);
    emu.clearRequests();
    const updated = wire(await provider.update!(INTEGRATION, refreshed, news)).outs as IntegrationMembersOutputs;
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(updated.adoptedMembers).toEqual([]);
    expect(updated.pendingInvitations).toEqual([]);
    expect((await provider.diff!(INTEGRATION, updated, news)).changes).toBe(false);
    await configureFor(emu);
    emu.clearRequests();
    await provider.delete!(INTEGRATION, updated);
    expect(emu.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual(
      [A, B].map((userId) => `/integrations/${INTEGRATION}/users/${userId}`),
    );
  });
});

describe("a pending invitation whose job ended without making the member", () => {
  it.each([
    ["failed", false],
    ["is no longer known to the service", true],
  ])("its job %s: the next up invites the member again, and records nothing pending", async (_what, forgotten) => {
    const [O, A] = idsOf("f", 2);
    const emu = await ownedWorld(O, [A]);
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    const news = { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }], removeUnmanaged: false };
    emu.jobs.hangNext(1);
    const partial = (await provider.create!({ ...news, __provider: "p" }).catch((e: unknown) => e)) as {
      properties: IntegrationMembersOutputs;
    };
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    const state = wire(partial.properties) as IntegrationMembersOutputs;
    expect(state.pendingInvitations).toEqual([{ userId: A, jobId: job.id }]);
    // The job fails for A (nothing written); or the state names a job the service does not know.
    emu.jobs.failInvitesOf([A]);
    emu.jobs.release(job.id);
    expect(emu.jobs.get(job.id)?.status).toBe("error");
    emu.jobs.clearInviteFailures();
    const gone = "00000000-0000-4000-8000-00000000dead";
    const prior = forgotten ? { ...state, pendingInvitations: [{ userId: A, jobId: gone }] } : state;
    expect(emu.integrations.members(INTEGRATION).some((m) => m.userId === A)).toBe(false);
    await configureFor(emu);
    emu.clearRequests();
    const updated = wire(await provider.update!(INTEGRATION, prior, news)).outs as IntegrationMembersOutputs;
    // The recorded job was asked about, then A invited once.
    expect(emu.requests.some((r) => r.method === "GET" && r.path === `/jobs/${forgotten ? gone : job.id}`)).toBe(true);
    const posts = emu.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds)).toEqual([[A]]);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === A)).toMatchObject({ entitlements: ["VIEWER"] });
    expect(updated.pendingInvitations).toEqual([]);
    expect(updated.adoptedMembers).toEqual([]);
  });
});

describe("a pending invitation whose job's record cannot be read", () => {
  it("fails that member alone: the others' changes are made, by an update and by a destroy; the invitation stays recorded", async () => {
    const [O, A, B] = idsOf("9", 3);
    const emu = await ownedWorld(O, [A, B]);
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    // Two sets: two invitations, two jobs; the first hangs.
    const declare = (sets: Record<string, string[]>) => ({
      integrationId: INTEGRATION,
      members: Object.entries(sets).map(([userId, entitlements]) => ({ userId, entitlements })),
      removeUnmanaged: false,
      __provider: "p",
    });
    emu.jobs.hangNext(1);
    const partial = (await rejection(provider.create!(declare({ [A]: ["VIEWER"], [B]: ["EDITOR"] })))) as Error & {
      properties: IntegrationMembersOutputs;
    };
    const state = wire(partial.properties);
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    expect(state.pendingInvitations).toHaveLength(1);
    const { userId: stuck } = state.pendingInvitations![0]!;
    const other = stuck === A ? B : A;
    const sets = { [stuck]: stuck === A ? ["VIEWER"] : ["EDITOR"], [other]: ["EDITOR", "VIEWER"] };
    // The job's record has no status: it cannot be waited for (every read of it answers so).
    const odd = JSON.stringify({ data: { type: "job", id: job.id, attributes: { status: null } } });
    emu.fault({ method: "GET", path: `/jobs/${job.id}`, body: odd, status: 200, times: 100 });
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.clearRequests();
    const failed = (await rejection(provider.update!(INTEGRATION, state, declare(sets)))) as Error & {
      reasons: string[];
      properties: IntegrationMembersOutputs;
    };
    expect(failed.reasons).toEqual([expect.stringContaining(`user ${stuck}: the invitation's job ${job.id} cannot be read`)]);
    expect(failed.message).toContain('"data.attributes.status"');
    expect(failed.message).toContain("not invited again");
    expect(writeLinesOf(emu)).toEqual([`PATCH /integrations/${INTEGRATION}/users/${other}`]);
    const updated = wire(failed.properties);
    expect(updated.pendingInvitations).toEqual([{ userId: stuck, jobId: job.id }]);
    expect(updated.members.find((m) => m.userId === other)).toMatchObject({ entitlements: ["EDITOR", "VIEWER"] });

    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.clearRequests();
    const destroyed = await rejection(provider.delete!(INTEGRATION, updated));
    expect(destroyed.message).toContain(`user ${stuck}: the invitation's job ${job.id} cannot be read`);
    expect(writeLinesOf(emu)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${other}`]);
    expect(emu.integrations.members(INTEGRATION).map((m) => m.userId)).toEqual([O]);
  });
});

describe("IntegrationMembers.get of an integration whose listings never agree", () => {
  it("fails naming the integration and what to do, rather than answer a set a listing may have skipped a member of", async () => {
    const [O, A, B] = idsOf("8", 3);
    const emu = await ownedWorld(O, [A, B]);
    await configureFor(emu);
    const page = (ids: string[]) =>
      JSON.stringify({
        data: ids.map((id) => ({ id, type: "user", attributes: { role: "collaborator", entitlements: [{ id: "VIEWER" }] } })),
        links: { next: null },
        meta: { page: { maxSize: 100, total: ids.length } },
      });
    // Each listing (one page) answers another set: someone adds and removes members while they are read.
    for (const ids of [
      [O, A],
      [O, B],
      [O, A],
    ])
      emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: page(ids) });
    const error = await rejection(provider.read!(INTEGRATION, { __get: INTEGRATION, __provider: "p" } as never));
    expect(error.message).toContain(`Could not read the members of integration ${INTEGRATION} completely: 3 listings`);
    expect(error.message).toContain("IntegrationMembers.get read nothing; run it again.");
  });

  it("an import's read (an empty state) fails saying nothing was imported, not that a refresh changes nothing", async () => {
    const [O, A, B] = idsOf("9", 3);
    const emu = await ownedWorld(O, [A, B]);
    await configureFor(emu);
    for (const ids of [
      [O, A],
      [O, B],
      [O, A],
    ])
      emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: shiftingPage(ids) });
    // The engine's import reads the id with no state of the package's: an empty one.
    const error = await rejection(provider.read!(INTEGRATION, {} as never));
    expect(error.message).toContain(`Could not read the members of integration ${INTEGRATION} completely: 3 listings`);
    expect(error.message).toContain(
      "Nothing was imported: the stack records nothing of this integration. Run the import again once its members stop changing.",
    );
    expect(error.message).not.toContain("refresh");
    expect(writeLinesOf(emu)).toEqual([]);
  });
});

/** One page of a member listing holding `ids`, each a collaborator with one entitlement. */
const shiftingPage = (ids: string[]) =>
  JSON.stringify({
    data: ids.map((id) => ({ id, type: "user", attributes: { role: "collaborator", entitlements: [{ id: "VIEWER" }] } })),
    links: { next: null },
    meta: { page: { maxSize: 100, total: ids.length } },
  });

const writeLinesOf = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
