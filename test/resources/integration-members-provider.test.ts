/**
 * The IntegrationMembers provider's `check` and `diff`: no network (asserted on the emulator), every
 * failure naming its property, and exact diffs (order-insensitive, no diff for an undeclared role).
 * The writes are proven through the host in test/reliability/integration-members.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { IntegrationMembersOutputs } from "../../src/resources/integration-members-provider";
import { provider } from "../../src/resources/integration-members-provider";
import { UNKNOWN } from "../../src/resources/unknown";
import { emulator } from "../support/fixtures";
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
    unfinishedJobIds: [],
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
    const run = (prior: IntegrationMembersOutputs, members: unknown[]) =>
      provider.diff!(INTEGRATION, prior, { integrationId: INTEGRATION, removeUnmanaged: false, members });
    expect((await run(recorded, declared)).changes).toBe(false);
    expect((await run(recorded, ownerDeclared)).changes).toBe(true);
    expect((await run({ ...olds, declaredRoles: [O] }, ownerDeclared)).changes).toBe(false);
    expect((await run({ ...olds, declaredRoles: [O] }, declared)).changes).toBe(true);
    // Written before the record existed: every role counts as declared, and nothing changes for it.
    expect((await run(olds, declared)).changes).toBe(false);
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
