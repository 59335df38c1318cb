/**
 * The IntegrationMembers planner as a table: declared members, the state, the member list (which
 * proves presence, never absence) and the direct reads confirming absences, in; the absences to
 * confirm first, or the actions, out. The provider applies exactly these plans
 * (test/host/integration-members-provider.test.ts shows it against the emulator).
 */
import { describe, expect, it } from "vitest";
import type { MemberInputs } from "../../src/shared/inputs";
import type { IntegrationMemberState } from "../../src/shared/member-state";
import { type Plan, type PlanInput, planMembers } from "../../src/host/members/members-plan";
import { idOf } from "../../src/client/ids";
import type { ServiceMember } from "../../src/host/members/members-state";

const I = "5b1c0d2e-0000-4000-8000-00000000be0c";
const id = (c: string) => `00000000-0000-4000-8000-00000000000${c}`;
const [A, B, D, S, O, X] = ["a", "b", "d", "e", "f", "c"].map(id) as [string, string, string, string, string, string];

const owner = (userId: string, entitlements = ["VIEWER"]): IntegrationMemberState => ({ userId, entitlements, role: "account_owner" });
const collab = (userId: string, entitlements = ["VIEWER"]): IntegrationMemberState => ({
  userId,
  entitlements,
  role: "account_collaborator",
});
const live = (m: IntegrationMemberState | ServiceMember, upper = false): ServiceMember => ({
  ...m,
  userId: upper ? m.userId.toUpperCase() : m.userId,
  email: null,
});
const listOf = (...members: ServiceMember[]) => new Map(members.map((m) => [idOf(m.userId), m]));
const reads = (entries: Array<[string, IntegrationMemberState | null]>) =>
  new Map(entries.map(([userId, m]) => [idOf(userId), m ? live(m) : null]));
const want = (userId: string, entitlements = ["VIEWER"], role?: MemberInputs["role"]): MemberInputs => ({
  userId,
  entitlements,
  ...(role ? { role } : {}),
});
const prior = (members: IntegrationMemberState[], extra: Partial<NonNullable<PlanInput["prior"]>> = {}) => ({
  members,
  unmanagedMembers: [],
  ...extra,
});

/**
 * The plan in a line per kind of action, user ids by their last character. `managed` is who the
 * resource manages before the writes (a member to remove stays managed until the removal is done);
 * `waiting`, the invitations the operation fails for (still running); `pending`, those the state keeps.
 */
function summary(plan: Plan): Record<string, string> {
  const short = (ids: readonly string[]) =>
    ids
      .map((u) => u.slice(-1).toLowerCase())
      .sort()
      .join(",");
  if (plan.kind === "confirm") return { confirm: short(plan.userIds) };
  const out: Record<string, string> = {
    remove: short(plan.remove),
    invite: short(plan.invite.map((i) => i.member.userId)),
    set: short(plan.setEntitlements.map((m) => m.userId)),
    takeOver: short(plan.takeOver),
    managed: short(plan.managed.map((m) => m.userId)),
    failed: short(plan.failures.map((f) => f.userId)),
    waiting: short(plan.stillRunning.map((p) => p.userId)),
    pending: short(plan.pending.map((p) => p.userId)),
    left: short(plan.notInvited),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== ""));
}

const teamState = [owner(O), collab(A), collab(D), collab(S, ["EDITOR"])];
const everyone = listOf(live(owner(O)), live(collab(A)), live(collab(D)), live(collab(S, ["EDITOR"])));
const declaredTeam = [want(O), want(A), want(D), want(S, ["EDITOR"])];

describe("planMembers: an absence from the list is confirmed before anything rests on it", () => {
  it.each<[string, Partial<PlanInput> & Pick<PlanInput, "op">, Record<string, string>]>([
    // A quiet workspace: everyone is listed, nothing to confirm, nothing to do.
    [
      "update, everyone listed: nothing to confirm or do",
      { op: "update", declared: declaredTeam, prior: prior(teamState), listed: everyone },
      { managed: "a,d,e,f" },
    ],
    // D dropped by the program and skipped by a shifted page.
    [
      "update: a dropped member the list misses is confirmed first",
      {
        op: "update",
        declared: [want(O), want(A), want(S, ["EDITOR"])],
        prior: prior(teamState),
        listed: listOf(live(owner(O)), live(collab(A)), live(collab(S, ["EDITOR"]))),
      },
      { confirm: "d" },
    ],
    [
      "update: a dropped member read present is removed",
      {
        op: "update",
        declared: [want(O), want(A), want(S, ["EDITOR"])],
        prior: prior(teamState),
        listed: listOf(live(owner(O)), live(collab(A)), live(collab(S, ["EDITOR"]))),
        confirmed: reads([[D, collab(D)]]),
      },
      { remove: "d", managed: "a,d,e,f" },
    ],
    // D made an owner since, a removal leaving owners the program did not declare; D's record does not say the role.
    [
      "update: a dropped member whose role is unknown, where a removal leaves undeclared owners, fails and is not removed",
      {
        op: "update",
        declared: [want(O), want(A), want(S, ["EDITOR"])],
        prior: prior(teamState, { declaredOwners: [] }),
        keepUndeclaredOwners: true,
        listed: listOf(live(owner(O)), live(collab(A)), live({ ...collab(D), role: null }), live(collab(S, ["EDITOR"]))),
      },
      { failed: "d", managed: "a,d,e,f" },
    ],
    [
      "update: the same with deleteOnDestroy (no owner left) removes them",
      {
        op: "update",
        declared: [want(O), want(A), want(S, ["EDITOR"])],
        prior: prior(teamState, { declaredOwners: [] }),
        keepUndeclaredOwners: false,
        listed: listOf(live(owner(O)), live(collab(A)), live({ ...collab(D), role: null }), live(collab(S, ["EDITOR"]))),
      },
      { remove: "d", managed: "a,d,e,f" },
    ],
    [
      "delete: a member whose role is unknown, where a removal leaves undeclared owners, fails; the others are removed",
      {
        op: "delete",
        prior: prior([collab(A), collab(D)], { declaredOwners: [] }),
        keepUndeclaredOwners: true,
        listed: listOf(live(owner(O)), live(collab(A)), live({ ...collab(D), role: null })),
      },
      { remove: "a", failed: "d" },
    ],
    [
      "update: a dropped member read absent is forgotten, with no write",
      {
        op: "update",
        declared: [want(O), want(A), want(S, ["EDITOR"])],
        prior: prior(teamState),
        listed: listOf(live(owner(O)), live(collab(A)), live(collab(S, ["EDITOR"]))),
        confirmed: reads([[D, null]]),
      },
      { managed: "a,e,f" },
    ],
    // Owner S, whose role the program leaves out, skipped by a shifted page: never invited again.
    [
      "update: a declared member the list misses is confirmed before an invitation",
      {
        op: "update",
        declared: [want(O), want(A, ["EDITOR"]), want(S)],
        prior: prior([collab(O), collab(A), owner(S)]),
        listed: listOf(live(collab(O)), live(collab(A))),
      },
      { confirm: "e" },
    ],
    [
      "update: a declared member read present keeps their role and is not invited",
      {
        op: "update",
        declared: [want(O), want(A, ["EDITOR"]), want(S)],
        prior: prior([collab(O), collab(A), owner(S)]),
        listed: listOf(live(collab(O)), live(collab(A))),
        confirmed: reads([[S, owner(S)]]),
      },
      { set: "a", managed: "a,e,f" },
    ],
    [
      "update: a declared member read absent is invited",
      {
        op: "update",
        declared: [want(O), want(B)],
        prior: prior([owner(O)]),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
      },
      { invite: "b", managed: "f" },
    ],
    [
      "update: a member taken over by another resource of this deployment is neither confirmed nor removed",
      { op: "update", declared: [want(O)], prior: prior([owner(O), collab(D)]), listed: listOf(live(owner(O))), claimed: (u) => u === D },
      { managed: "f" },
    ],
    [
      "update: removeUnmanaged confirms an unmanaged member the list misses, and removes them when read present",
      {
        op: "update",
        declared: [want(O)],
        removeUnmanaged: true,
        prior: prior([owner(O)], { unmanagedMembers: [live(collab(X))] }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[X, collab(X)]]),
      },
      { remove: "c", managed: "f" },
    ],
    [
      "update: a pending invitation whose member the list misses is confirmed first (it may have landed)",
      {
        op: "update",
        declared: [want(O), want(B)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        running: ["j1"],
      },
      { confirm: "b" },
    ],
    [
      "update: a pending invitation whose member is read present is adopted, not waited for",
      {
        op: "update",
        declared: [want(O), want(B)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, collab(B)]]),
        running: ["j1"],
      },
      { managed: "b,f" },
    ],
    [
      "update: a pending invitation whose job still runs, its member read absent, is waited for, not invited",
      {
        op: "update",
        declared: [want(O), want(B)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
        running: ["j1"],
      },
      { managed: "b,f", waiting: "b", pending: "b" },
    ],
    [
      "update: a pending invitation whose job ended is confirmed like any absence",
      {
        op: "update",
        declared: [want(O), want(B)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        running: [],
      },
      { confirm: "b" },
    ],
    // B dropped by the program while their invitation may still land: forgotten, a landing would give B the access the program removed.
    [
      "update: a member the program drops while their invitation's job still runs, read absent, is kept managed and pending",
      {
        op: "update",
        declared: [want(O)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
        running: ["j1"],
      },
      { managed: "b,f", pending: "b" },
    ],
    [
      "update: a member the program drops whose invitation's answer was lost (no job known), read absent, is forgotten (no job ends to settle it: kept, it would be pending forever); the provider warns",
      {
        op: "update",
        declared: [want(O)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: null }],
        }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
        running: [],
      },
      { managed: "f" },
    ],
    [
      "update: a member the program drops whose invitation's job ended, read absent, is forgotten",
      {
        op: "update",
        declared: [want(O)],
        prior: prior([owner(O), { userId: B, entitlements: [], role: "account_collaborator" }], {
          pendingInvitations: [{ userId: B, jobId: "j1" }],
        }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
        running: [],
      },
      { managed: "f" },
    ],
    [
      "update: a declared role change removes the member, then invites them again",
      {
        op: "update",
        declared: [want(O), want(A, ["VIEWER"], "account_owner")],
        prior: prior([owner(O), collab(A)]),
        listed: listOf(live(owner(O)), live(collab(A))),
      },
      { remove: "a", invite: "a", managed: "a,f" },
    ],
    [
      "update: a member the program did not change is left as recorded, whatever the service changed unseen (a refresh shows it)",
      {
        op: "update",
        declared: [want(O), want(A, ["VIEWER"], "account_collaborator"), want(B)],
        prior: prior([owner(O), collab(A), collab(B)]),
        listed: listOf(live(owner(O)), live(owner(A)), live(collab(B))),
      },
      { managed: "a,b,f" },
    ],
    // Ids answered in another case.
    [
      "update: a service answering ids in upper case lists the declared members: nothing unmanaged, nothing removed",
      {
        op: "update",
        declared: declaredTeam,
        removeUnmanaged: true,
        prior: prior(teamState),
        listed: listOf(...[...everyone.values()].map((m) => live(m, true))),
      },
      { managed: "a,d,e,f" },
    ],
    // Create.
    [
      "create: declared members the list misses are confirmed first",
      { op: "create", declared: [want(O), want(A), want(B)], listed: listOf(live(owner(O))) },
      { confirm: "a,b" },
    ],
    [
      "create: read absent, invited; read present, taken over (with its set applied)",
      {
        op: "create",
        declared: [want(O), want(A, ["EDITOR"]), want(B)],
        listed: listOf(live(owner(O))),
        confirmed: reads([
          [A, collab(A)],
          [B, null],
        ]),
      },
      { invite: "b", set: "a", takeOver: "a,f", managed: "a,f" },
    ],
    // Delete.
    [
      "delete: a managed member the list misses is confirmed first",
      { op: "delete", prior: prior([owner(O), collab(A), collab(D)]), listed: listOf(live(owner(O)), live(collab(A))) },
      { confirm: "d" },
    ],
    [
      "delete: every managed member there is removed, the one the list missed included",
      {
        op: "delete",
        prior: prior([collab(A), collab(D)]),
        listed: listOf(live(owner(O)), live(collab(A))),
        confirmed: reads([[D, collab(D)]]),
      },
      { remove: "a,d" },
    ],
    [
      "update: a dropped member whose recorded invitation asked another role than they hold (someone else made them a member) is left, not removed",
      {
        op: "update",
        declared: [want(O)],
        prior: prior([owner(O), owner(B)], { pendingInvitations: [{ userId: B, jobId: "j1" }] }),
        listed: listOf(live(owner(O)), live(collab(B))),
      },
      { managed: "f", left: "b" },
    ],
    [
      "delete: a managed member whose invitation still runs, read absent, fails the delete",
      {
        op: "delete",
        prior: prior([collab(A), collab(B)], { pendingInvitations: [{ userId: B, jobId: "j1" }] }),
        listed: listOf(live(owner(O)), live(collab(A))),
        confirmed: reads([[B, null]]),
        running: ["j1"],
      },
      { remove: "a", waiting: "b" },
    ],
    // Read.
    [
      "read: a managed member the list misses is confirmed before being forgotten",
      { op: "read", prior: prior([owner(O), collab(D)]), listed: listOf(live(owner(O))) },
      { confirm: "d" },
    ],
    [
      "read: read present, kept",
      { op: "read", prior: prior([owner(O), collab(D)]), listed: listOf(live(owner(O))), confirmed: reads([[D, collab(D)]]) },
      { managed: "d,f" },
    ],
    [
      "read: read absent, forgotten",
      { op: "read", prior: prior([owner(O), collab(D)]), listed: listOf(live(owner(O))), confirmed: reads([[D, null]]) },
      { managed: "f" },
    ],
    [
      "read: a member whose invitation may still land, read absent, stays managed",
      {
        op: "read",
        prior: prior([owner(O), collab(B)], { pendingInvitations: [{ userId: B, jobId: "j1" }] }),
        listed: listOf(live(owner(O))),
        confirmed: reads([[B, null]]),
      },
      { managed: "b,f", pending: "b" },
    ],
    [
      "read without state (an import): every member listed is managed, nothing confirmed",
      { op: "read", listed: everyone },
      { managed: "a,d,e,f" },
    ],
    // Diff plans from the state: it never asks for a read.
    [
      "diff: plans from the state alone, never confirming",
      { op: "diff", declared: [want(O), want(B)], prior: prior([owner(O), collab(A)]), listed: listOf(live(owner(O)), live(collab(A))) },
      { remove: "a", invite: "b", managed: "a,f" },
    ],
  ])("%s", (_what, input, expected) => {
    expect(summary(planMembers({ integrationId: I, listed: new Map(), ...input }))).toEqual(expected);
  });

  it.each<[string, PlanInput, string]>([
    [
      "update: dropping the last owner",
      {
        op: "update",
        integrationId: I,
        declared: [want(A)],
        prior: prior([owner(O), collab(A)]),
        listed: listOf(live(owner(O)), live(collab(A))),
      },
      `Refusing to remove user ${O}, the last member with the owner role`,
    ],
    [
      "update: the last owner the list missed, read present",
      {
        op: "update",
        integrationId: I,
        declared: [want(A)],
        prior: prior([owner(O), collab(A)]),
        listed: listOf(live(collab(A))),
        confirmed: reads([[O, owner(O)]]),
      },
      `Refusing to remove user ${O}, the last member with the owner role`,
    ],
    [
      "delete: the last owner, listed in upper case",
      { op: "delete", integrationId: I, prior: prior([owner(O)]), listed: listOf(live(owner(O), true)) },
      "the last member with the owner role",
    ],
    [
      "create: a declared role that differs from the member's, read directly",
      {
        op: "create",
        integrationId: I,
        declared: [want(S, ["VIEWER"], "account_collaborator")],
        listed: new Map(),
        confirmed: reads([[S, owner(S)]]),
      },
      `User ${S} is already a member of integration ${I} as account_owner`,
    ],
  ])("refuses %s", (_what, input, message) => {
    expect(() => planMembers(input)).toThrow(message);
  });

  it("asks each absence once, in the case the program gave, however the list and the state spell it", () => {
    const plan = planMembers({
      op: "update",
      integrationId: I,
      declared: [want(O), want(D.toUpperCase())],
      prior: prior([owner(O), collab(D)]),
      listed: listOf(live(owner(O))),
    });
    expect(plan).toEqual({ kind: "confirm", userIds: [D.toUpperCase()] });
  });
});
