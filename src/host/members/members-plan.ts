/**
 * What a membership operation should do, a pure function of the declaration, the state, the member list (presence, never
 * absence) and the confirmed absences. An absence a decision rests on (an invitation, a removal, a takeover, forgetting a
 * member) is first returned as a `confirm` plan, confirmed, and planned again; no other is read, so a quiet workspace costs nothing.
 */
import { ConfigurationError } from "../../client";
import { idOf, sameId } from "../../client/ids";
import { DEFAULT_INTEGRATION_ROLE, type MemberInputs, sameSet } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";
import { lastOwnerRefusal, roleDrift, roleMismatch, roleUnknownRefusal } from "./messages";
import type { PendingInvitation } from "../membership/partial-write";
import { byKey, type Failure, type IntegrationMembersOutputs, type ServiceMember } from "./members-state";

type Role = NonNullable<IntegrationMemberState["role"]>;

/** The operations that plan. `diff` plans an update from the state alone (no read, no confirmation). */
type PlanOp = "create" | "update" | "diff" | "delete" | "read";

export interface PlanInput {
  op: PlanOp;
  integrationId: string;
  /** The declared members (create, update, diff). */
  declared?: readonly MemberInputs[];
  removeUnmanaged?: boolean;
  /** The state (update, diff, delete, read; absent for create and for a read without state: an import). */
  prior?: Pick<IntegrationMembersOutputs, "members" | "unmanagedMembers" | "pendingInvitations" | "declaredRoles" | "declaredOwners">;
  /** A removal (update, delete) leaves a member who is an owner now and whose role the program leaves out (no `deleteOnDestroy`). */
  keepUndeclaredOwners?: boolean;
  /** The member list, by {@link idOf} (a service may answer another case): everyone in it is a member. */
  listed: ReadonlyMap<string, ServiceMember | null>;
  /** Direct reads, by {@link idOf}: the member, or `null` when the read answered 404. */
  confirmed?: ReadonlyMap<string, ServiceMember | null>;
  /** Whether another resource of this deployment took the member over (no longer this one's to remove). */
  claimed?: (userId: string) => boolean;
  /** Jobs of pending invitations still running after a wait (update, delete). */
  running?: readonly string[];
  /**
   * What `ignoreChanges` names of each declared member (`__ignoreChanges`): taken as the service has it for a member there
   * (no `PATCH` of the set, no role change nor failure), as Pulumi's import leaves an ignored property; absent, as declared.
   */
  ignored?: readonly Ignorable[];
  /**
   * The members other removals of this process take away (an `IntegrationEntitlement`'s destroy, `MembershipView.removals`): the
   * last-owner guard counts them gone, so removals arriving together do not each count on the other's owner staying.
   */
  removing?: ReadonlySet<string>;
}

/** What of a member `ignoreChanges` can leave as the service has it. */
export type Ignorable = "entitlements" | "role";

/** An invitation to send: `afterRemoval` for a role change, sent only once the removal is done. */
export interface PlannedInvite {
  member: MemberInputs;
  role: Role;
  afterRemoval: boolean;
}

/** What to do, in order: removals, then invitations and entitlement sets. */
export interface Actions {
  present: ServiceMember[];
  /** The managed members before any write, as the service has them (or as recorded while their invitation runs). */
  managed: IntegrationMemberState[];
  remove: string[];
  invite: PlannedInvite[];
  setEntitlements: IntegrationMemberState[];
  /** Members there before, now this resource's (see `takeovers.ts`). */
  takeOver: string[];
  /** Invitations that may still land: kept managed with their job, not invited again. */
  pending: PendingInvitation[];
  /** Of those, the ones the operation fails for (update, delete: the job still runs after another wait). */
  stillRunning: PendingInvitation[];
  /**
   * Of those, the members the program no longer declares (update), not members now, whose invitation's job still runs: kept, so
   * that the next up removes them once the invitation has landed, or forgets them once its job has ended without making them.
   */
  droppedPending: PendingInvitation[];
  /** Members the program no longer declares (update), not members now, whose invitation got no answer: forgotten, with a warning. */
  droppedLost: string[];
  /** Members a removal leaves: owners now, whose role the program leaves out (someone made them one). */
  keptOwners: string[];
  /** Members a delete or update leaves: found with another role than the invitation the state records asked (someone else's). */
  notInvited: string[];
  failures: Failure[];
}

export type Plan = { kind: "confirm"; userIds: string[] } | ({ kind: "act" } & Actions);

/** The plan of one operation: either the absences to confirm first, or the actions. */
export function planMembers(given: PlanInput): Plan {
  const present = new Map<string, ServiceMember>();
  for (const [key, member] of [...given.listed, ...(given.confirmed ?? [])]) if (member) present.set(key, member);
  const input = { ...given, declared: withIgnored(given.declared, present, given.ignored) };
  const unconfirmed = absencesThatMatter(input, present).filter((id) => !input.confirmed?.has(idOf(id)));
  if (unconfirmed.length > 0) {
    // Each once, as first named (the program's declaration before the state's record).
    const once = new Map<string, string>();
    for (const userId of unconfirmed) if (!once.has(idOf(userId))) once.set(idOf(userId), userId);
    return { kind: "confirm", userIds: [...once.values()] };
  }
  const none = {
    managed: [],
    remove: [],
    invite: [],
    setEntitlements: [],
    takeOver: [],
    pending: [],
    stillRunning: [],
    droppedPending: [],
    droppedLost: [],
    keptOwners: [],
    notInvited: [],
    failures: [],
  };
  const acts: Actions = { present: [...present.values()], ...none };
  if (input.op === "create") planCreate(input, present, acts);
  else if (input.op === "update" || input.op === "diff") planUpdate(input, present, acts);
  else if (input.op === "delete") planDelete(input, present, acts);
  else planRead(input, present, acts);
  return { kind: "act", ...acts };
}

/**
 * The plan of one declared member as found (`null`: confirmed absent), the one-member case of a create: how an
 * `IntegrationEntitlement` plans, and how an invitation's member found there (a 409) is adopted. What `ignored` names is the
 * service's, as for a member listed; a declared role the member does not hold (not ignored) throws {@link roleMismatch}.
 */
export function planOne(
  integrationId: string,
  declared: MemberInputs,
  found: ServiceMember | null,
  ignored: readonly Ignorable[] = [],
): Actions {
  const confirmed = new Map([[idOf(declared.userId), found]]);
  const plan = planMembers({ op: "create", integrationId, declared: [declared], listed: new Map(), confirmed, ignored });
  if (plan.kind === "confirm") throw new Error(`the membership of ${declared.userId} was planned unconfirmed`);
  return plan;
}

/** The declaration with what `ignored` names taken as the service has it, for each declared member it has (see {@link PlanInput}). */
function withIgnored(
  declared: readonly MemberInputs[] | undefined,
  present: ReadonlyMap<string, ServiceMember>,
  ignored: readonly Ignorable[] = [],
): readonly MemberInputs[] | undefined {
  if (!declared || ignored.length === 0) return declared;
  return declared.map((member) => {
    const live = present.get(idOf(member.userId));
    return live ? asIgnored(member, live, ignored) : member;
  });
}

/** `member` as declared, with what `ignored` names taken from `live` (their set), or left to the service (their role). */
function asIgnored(member: MemberInputs, live: Pick<ServiceMember, "entitlements">, ignored: readonly Ignorable[]): MemberInputs {
  // A role left out is the service's; a set it does not say (`null`: not known) stays as declared.
  const { role, ...rest } = member;
  return {
    ...rest,
    ...(ignored.includes("role") || role === undefined ? {} : { role }),
    ...(ignored.includes("entitlements") && live.entitlements !== null ? { entitlements: [...live.entitlements] } : {}),
  };
}

/** Whether the member is still this resource's: no other resource of this deployment took them over. */
const ours = (input: PlanInput, id: string) => !input.claimed?.(id);

/**
 * A member someone made an owner, a role the program does not declare for them: a removal leaves them (as a `User`'s delete
 * leaves an owner, and an `IntegrationEntitlement`'s a member made one). Not under `removeUnmanaged`, which removes whom the
 * program does not list (the plan shows it). A state without the record of declared owners goes by its record of declared
 * roles (any declared role then counts as owner); one without either, by neither (each counts as declared).
 */
const keptOwner = (input: PlanInput, live: ServiceMember) => live.role === "account_owner" && ownersKept(input, live);

/** Whether a removal of `live` leaves them should they be an owner now: the program does not declare them one (see {@link keptOwner}). */
const ownersKept = (input: PlanInput, live: ServiceMember) => {
  const declared = input.prior?.declaredOwners ?? input.prior?.declaredRoles;
  return (
    input.keepUndeclaredOwners === true &&
    !(input.op !== "delete" && input.removeUnmanaged === true) &&
    declared !== undefined &&
    !declared.some((id) => sameId(id, live.userId))
  );
};

/**
 * A member a removal would take away whose role is unknown (their record leaves it out, names a role this package does not know,
 * or cannot be read) where a removal leaves an owner the program did not make one: they may be that owner. Not removed, and the
 * removal fails for them, naming the field, as a `User`'s delete of a user whose record leaves `role` out.
 */
const ownerUnknown = (input: PlanInput, live: ServiceMember) => live.role === null && ownersKept(input, live);

/** The invitation of `userId` the state records as possibly still landing, whether its job still runs or not. */
const recordedInvitation = (input: PlanInput, userId: string) =>
  input.prior?.pendingInvitations?.find((p) => idOf(p.userId) === idOf(userId));

/** The recorded invitation of `userId` that may still land: any recorded (read), or one whose job still runs (update, delete). */
function pendingOf(input: PlanInput, userId: string): PendingInvitation | undefined {
  const recorded = recordedInvitation(input, userId);
  if (!recorded) return undefined;
  if (input.op === "read" || input.op === "diff") return recorded;
  return recorded.jobId !== null && input.running?.includes(recorded.jobId) ? recorded : undefined;
}

/**
 * Whether a managed member whose invitation the state records as possibly still landing is found with another role than it
 * invited: that invitation did not make them (someone added them meanwhile). Someone else's, as `IntegrationEntitlement`'s
 * resume takes them: adopted by an update, kept as recorded by a read, left by a delete.
 */
function notInvitedAs(input: PlanInput, recorded: Pick<ServiceMember, "userId" | "role"> | undefined, live: ServiceMember): boolean {
  if (!recorded || !recordedInvitation(input, recorded.userId)) return false;
  return live.role !== null && recorded.role !== null && live.role !== recorded.role;
}

/** The members absent from what is known whose absence a decision of this operation rests on. */
function absencesThatMatter(input: PlanInput, present: ReadonlyMap<string, ServiceMember>): string[] {
  if (input.op === "diff") return [];
  const absent = (id: string) => !present.has(idOf(id));
  const declared = new Set((input.declared ?? []).map((m) => idOf(m.userId)));
  const managed = (input.prior?.members ?? []).map((m) => m.userId);
  const ids: string[] = [];
  // Invited when absent (or waited for, when their invitation may still land).
  if (input.op === "create" || input.op === "update") ids.push(...(input.declared ?? []).map((m) => m.userId));
  // Forgotten when absent; removed (or taken over) when present.
  if (input.op !== "create") ids.push(...managed.filter((id) => declared.has(idOf(id)) || ours(input, id)));
  // Removed when present, with removeUnmanaged.
  if (input.op === "update" && input.removeUnmanaged)
    ids.push(...(input.prior?.unmanagedMembers ?? []).map((m) => m.userId).filter((id) => !declared.has(idOf(id)) && ours(input, id)));
  // A member whose invitation may still land too: found there, they are adopted instead of waited for.
  return ids.filter(absent);
}

const roleChanged = (current: string | null, declared: MemberInputs) =>
  declared.role !== undefined && current !== null && current !== declared.role;
/**
 * The state of managed member `userId`, as `m` has them. A set not known (`null`: an unmanaged member's record left it out) is
 * none known, as `withHeldSet` takes it for a member no state records: the members an operation manages come held from
 * `asPlanned`, so only the diff's view of the state (a member it recorded unmanaged, declared now) reaches this, and plans a `PATCH`.
 */
const stateOf = (userId: string, m: Pick<ServiceMember, "entitlements" | "role">): IntegrationMemberState => ({
  userId,
  entitlements: m.entitlements ?? [],
  role: m.role,
});

/** A create: declared members already there are taken over (a differing declared role fails it all, before any write); the others invited. */
function planCreate(input: PlanInput, present: ReadonlyMap<string, ServiceMember>, acts: Actions): void {
  const declared = input.declared ?? [];
  const mismatched = declared.find((m) => roleChanged(present.get(idOf(m.userId))?.role ?? null, m));
  if (mismatched) throw roleMismatch(input.integrationId, mismatched, present.get(idOf(mismatched.userId))?.role ?? null);
  const seen = (m: MemberInputs) => ({ live: present.get(idOf(m.userId)), wasManaged: new Map(), roleChange: false });
  for (const member of declared) planDeclared(input, member, seen(member), acts);
}

/**
 * An update (and the diff's view of it): removals (members no longer declared; with `removeUnmanaged`, the unmanaged ones the
 * state lists; a declared role change the plan showed), never the last owner; then invitations and sets. A role the service
 * changed unseen, or a member taken over with another role, fails that member alone.
 */
function planUpdate(input: PlanInput, present: ReadonlyMap<string, ServiceMember>, acts: Actions): void {
  const declared = input.declared ?? [];
  const declaredKeys = new Set(declared.map((m) => idOf(m.userId)));
  const prior = input.prior?.members ?? [];
  const wasManaged = byKey(prior);
  const live = (id: string) => present.get(idOf(id));
  for (const m of prior) {
    const now = live(m.userId);
    if (now && !declaredKeys.has(idOf(m.userId))) acts.managed.push(stateOf(m.userId, now));
  }
  const dropped: string[] = [];
  for (const m of prior) {
    const now = live(m.userId);
    if (declaredKeys.has(idOf(m.userId)) || !ours(input, m.userId)) continue;
    if (!now) {
      // Not a member now (confirmed), but their invitation's job still runs (or cannot be read): forgotten, it would give them the
      // access the program removed, with nothing recorded. Kept as recorded and pending (as a refresh keeps them): the next up
      // removes them once there, or forgets them once the job ended without making them. An invitation whose answer was lost has
      // no job to end: kept, it would be pending forever (an update at every up), so it is forgotten with a warning, as a destroy does.
      const pending = pendingOf(input, m.userId);
      if (pending) {
        acts.managed.push(stateOf(m.userId, m));
        acts.pending.push(pending);
        acts.droppedPending.push(pending);
      } else if (recordedInvitation(input, m.userId)?.jobId === null) acts.droppedLost.push(m.userId);
      continue;
    }
    // Holding another role than this resource's invitation asked: someone else made them a member. Left, as a delete leaves them.
    if (notInvitedAs(input, m, now)) acts.notInvited.push(m.userId);
    else if (ownerUnknown(input, now)) acts.failures.push({ userId: m.userId, error: roleUnknownRefusal(input.integrationId, m.userId) });
    else (keptOwner(input, now) ? acts.keptOwners : dropped).push(m.userId);
  }
  // Owners kept, and members someone else made, are left as they are, and no longer managed (unmanaged from now on, as any
  // member the program does not list).
  const left = [...acts.keptOwners, ...acts.notInvited];
  acts.managed = acts.managed.filter((m) => !left.some((id) => sameId(id, m.userId)));
  // Only the unmanaged members the state lists, which the plan showed.
  const unmanaged = input.removeUnmanaged
    ? (input.prior?.unmanagedMembers ?? [])
        .map((m) => m.userId)
        .filter((id) => live(id) && !declaredKeys.has(idOf(id)) && !wasManaged.has(idOf(id)) && ours(input, id))
    : [];
  const liveRoleDiffers = (m: MemberInputs) => roleChanged(live(m.userId)?.role ?? null, m);
  const stateRoleDiffers = (m: MemberInputs) => roleChanged(wasManaged.get(idOf(m.userId))?.role ?? null, m);
  const roleChanges = declared.filter((m) => wasManaged.has(idOf(m.userId)) && liveRoleDiffers(m) && stateRoleDiffers(m));
  acts.remove.push(...dropped, ...unmanaged, ...roleChanges.map((m) => m.userId));
  guardLastOwner(input.integrationId, present, acts.remove, "members", input.removing);
  for (const member of declared)
    planDeclared(input, member, { live: live(member.userId), wasManaged, roleChange: roleChanges.includes(member) }, acts);
}

/** One declared member of an update, or of a create (nobody managed before). */
function planDeclared(
  input: PlanInput,
  member: MemberInputs,
  seen: { live: ServiceMember | undefined; wasManaged: ReadonlyMap<string, IntegrationMemberState>; roleChange: boolean },
  acts: Actions,
): void {
  const { live, roleChange } = seen;
  const managedBefore = seen.wasManaged.get(idOf(member.userId));
  // A member the program did not change is left as it is, whatever changed in the service since the state was read (an
  // entitlement added, the member removed, another role): an update writes only what its preview showed. A refresh reads
  // the change; the next up then applies the declaration.
  if (managedBefore && !roleChange && unchanged(member, managedBefore) && !pendingOf(input, member.userId)) {
    // A role the program leaves out is the service's (no diff either way); a declared one stays as recorded, as the set does.
    const role = member.role === undefined && live ? (live.role ?? managedBefore.role) : managedBefore.role;
    acts.managed.push(stateOf(member.userId, { ...managedBefore, role }));
    return;
  }
  if (roleChange) {
    // Kept as the service has them until the removal is done; invited again after it.
    if (live) acts.managed.push(stateOf(member.userId, live));
    acts.invite.push({ member, role: member.role ?? DEFAULT_INTEGRATION_ROLE, afterRemoval: true });
    return;
  }
  if (live && roleChanged(live.role, member)) {
    // Changed by the service since the state was read (shown by no plan), or someone else's with another role.
    acts.failures.push({
      userId: member.userId,
      error: managedBefore ? roleDrift(member, live.role) : roleMismatch(input.integrationId, member, live.role),
    });
    if (managedBefore) acts.managed.push(stateOf(member.userId, live));
    return;
  }
  if (!live) {
    const pending = pendingOf(input, member.userId);
    if (pending && managedBefore) {
      acts.managed.push(managedBefore);
      acts.pending.push(pending);
      acts.stillRunning.push(pending);
    } else acts.invite.push({ member, role: member.role ?? DEFAULT_INTEGRATION_ROLE, afterRemoval: false });
    return;
  }
  if (!managedBefore || notInvitedAs(input, managedBefore, live)) acts.takeOver.push(member.userId);
  acts.managed.push(stateOf(member.userId, live));
  if (!sameSet(live.entitlements, member.entitlements))
    acts.setEntitlements.push(stateOf(member.userId, { ...live, entitlements: member.entitlements }));
}

/** Whether the program declares `member` as the state last recorded it (its set; its role, where declared): the diff's rule too. */
export const unchanged = (member: MemberInputs, recorded: IntegrationMemberState) =>
  sameSet(recorded.entitlements, member.entitlements) &&
  (member.role === undefined || recorded.role === null || recorded.role === member.role);

/** A delete: every managed member there and not taken over is removed (never the last owner); a pending invitation fails it. */
function planDelete(input: PlanInput, present: ReadonlyMap<string, ServiceMember>, acts: Actions): void {
  for (const m of input.prior?.members ?? []) {
    const live = present.get(idOf(m.userId));
    if (live) {
      if (!ours(input, m.userId)) continue;
      if (notInvitedAs(input, m, live)) acts.notInvited.push(m.userId);
      else if (ownerUnknown(input, live))
        acts.failures.push({ userId: m.userId, error: roleUnknownRefusal(input.integrationId, m.userId) });
      else (keptOwner(input, live) ? acts.keptOwners : acts.remove).push(m.userId);
      continue;
    }
    const pending = pendingOf(input, m.userId);
    if (pending) acts.stillRunning.push(pending);
  }
  guardLastOwner(input.integrationId, present, acts.remove, "members", input.removing);
}

/** A read: the managed members as the service has them, those confirmed absent forgotten unless their invitation may still land. */
function planRead(input: PlanInput, present: ReadonlyMap<string, ServiceMember>, acts: Actions): void {
  // Without state (an import), every member is managed.
  const managed = input.prior ? input.prior.members : [...present.values()];
  for (const m of managed) {
    const live = present.get(idOf(m.userId));
    if (live && notInvitedAs(input, m, live)) {
      // Kept as recorded, with its invitation: the next up's resume takes them as someone else's (adopted), not as made.
      acts.managed.push(stateOf(m.userId, m));
      acts.pending.push(recordedInvitation(input, m.userId)!);
    } else if (live) acts.managed.push(stateOf(m.userId, live));
    else {
      const pending = pendingOf(input, m.userId);
      if (pending) {
        acts.managed.push(stateOf(m.userId, m));
        acts.pending.push(pending);
      }
    }
  }
}

/**
 * Refuses removing `removed` when no member known to hold the owner role would be left and they include an owner or one whose
 * role is unknown (who may be it). A role change from owner counts: the member is removed before being invited again. Both
 * membership resources' removals keep it (`holder`: the property declaring the member, as {@link lastOwnerRefusal} names it).
 */
export function guardLastOwner(
  integrationId: string,
  present: ReadonlyMap<string, ServiceMember>,
  removed: readonly string[],
  holder: "members" | "userId" = "members",
  removing: ReadonlySet<string> = new Set(),
): void {
  const removedKeys = new Set(removed.map(idOf));
  const gone = (m: ServiceMember) => removedKeys.has(idOf(m.userId));
  // Those other removals of this process take away are not there to stay, as far as this removal goes.
  const staying = [...present.values()].filter((m) => gone(m) || !removing.has(idOf(m.userId)));
  const owners = staying.filter((m) => m.role === "account_owner");
  if (owners.some((m) => !gone(m))) return;
  const ownerIds = owners.map((m) => m.userId);
  const unknown = staying.filter((m) => m.role === null && gone(m)).map((m) => m.userId);
  if (owners.length === 0 && unknown.length === 0) return;
  throw new ConfigurationError(lastOwnerRefusal(integrationId, ownerIds, unknown, holder), holder);
}
