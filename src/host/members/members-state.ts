/** What an {@link IntegrationMembers} stores, and how one operation's findings become it. */
import type { IntegrationUser } from "../../client";
import { type Id, idOf } from "../../client/ids";
import { entitlementSet, inviteRole, optIn } from "../../shared/inputs";
import type { IntegrationMemberState, UnmanagedIntegrationMember } from "../../shared/member-state";
import { type HeldMember, withHeldSet } from "../membership/held-set";
import type { Found } from "../membership/member-list";
import type { PendingInvitation } from "../membership/partial-write";

/** What an {@link IntegrationMembers} stores. */
export interface IntegrationMembersOutputs {
  integrationId: string;
  members: IntegrationMemberState[];
  removeUnmanaged: boolean;
  unmanagedMembers: UnmanagedIntegrationMember[];
  /** Invitations accepted and not seen to finish: managed with no set known, not invited again while the job runs. */
  pendingInvitations?: PendingInvitation[];
  /** The members whose role the program declares (user ids, sorted); a refresh reports the others' as no declared input. */
  declaredRoles?: string[];
  /**
   * The members the program declares owners (user ids, sorted): a removal or a destroy leaves any other member made an owner
   * since (absent, in a state written before it: every member whose role is declared counts as declared an owner).
   */
  declaredOwners?: string[];
  /** The managed members (user ids, sorted) who were members before this resource managed them: destroy leaves them unless `deleteOnDestroy`. */
  adoptedMembers?: string[];
  /** The program's opt-in to removing adopted members on destroy (absent: they are left). */
  deleteOnDestroy?: boolean;
}

/** A member as the service has them (listed or read directly). */
export type ServiceMember = UnmanagedIntegrationMember;

/** One failed write or refused member: who and why. */
export type Failure = { userId: string; error: unknown };

/** Everything one operation found and did, from which the outputs are built. Maps are keyed by {@link idOf}. */
export interface Run {
  integrationId: string;
  /** Everyone the service has, as far as this operation knows. */
  present: Map<string, ServiceMember>;
  /** The managed members and what the service has for them now. */
  managed: Map<string, IntegrationMemberState>;
  failures: Failure[];
  /** Invitations not seen to finish. */
  pending: Map<string, PendingInvitation>;
  /** Members there before, now this resource's: the plan's `takeOver`, and those an invitation found there already (a 409). */
  adopted: string[];
}

const sortByUser = <T extends { userId: string }>(list: T[]) =>
  list.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));

/** A map of members by {@link idOf} of their user id. */
export const byKey = <T extends { userId: string }>(list: readonly T[]) => new Map(list.map((m) => [idOf(m.userId), m]));

/** What the outputs keep of the program's declaration, and `adopted`: who were members before this resource managed them. */
export interface Kept {
  removeUnmanaged: boolean;
  declaredRoles: readonly string[] | undefined;
  declaredOwners?: readonly string[] | undefined;
  adopted?: readonly string[] | undefined;
  deleteOnDestroy?: boolean | undefined;
}

/** The outputs after a run: managed members (those of `adopted` among them recorded so), and everyone else the service has as unmanaged. */
export function outputsOf(run: Run, declared: Kept): IntegrationMembersOutputs {
  const unmanaged: UnmanagedIntegrationMember[] = [];
  for (const [key, member] of run.present) if (!run.managed.has(key)) unmanaged.push({ ...member });
  const pending = [...run.pending.values()];
  const adopted = new Map((declared.adopted ?? []).filter((id) => run.managed.has(idOf(id))).map((id) => [idOf(id), id]));
  return {
    integrationId: run.integrationId,
    members: sortByUser([...run.managed.values()]),
    removeUnmanaged: declared.removeUnmanaged,
    unmanagedMembers: sortByUser(unmanaged),
    pendingInvitations: sortByUser(pending.map((p) => ({ ...p }))),
    ...(declared.declaredRoles ? { declaredRoles: [...declared.declaredRoles].sort() } : {}),
    ...(declared.declaredOwners ? { declaredOwners: [...declared.declaredOwners].sort() } : {}),
    adoptedMembers: [...adopted.values()].sort(),
    ...optIn(declared.deleteOnDestroy),
  };
}

/** A member as the service has them whose set is known (or held: {@link withHeldSet}). */
export type HeldServiceMember = ServiceMember & { entitlements: string[] };

/** A member's state from the service's record: its set as the record says it (`null`: left out), or held ({@link withHeldSet}). */
export function serviceMember(member: HeldMember): HeldServiceMember;
export function serviceMember(member: IntegrationUser): ServiceMember;
export function serviceMember(member: HeldMember | IntegrationUser): ServiceMember {
  return {
    userId: member.id,
    entitlements: member.entitlements === null ? null : entitlementSet(member.entitlements),
    role: inviteRole(member.role) ?? null,
    email: member.email,
  };
}

/**
 * Whom a plan warns about when their record leaves their set out: `warn`, for the members recorded and those `declared`.
 * `everyone`: every member found is to be managed (a read without state: an import's or a `get`'s). `declaredSets`: the sets
 * declared stand in for a member no state records (`ignoreChanges` names the sets: the service's is kept, none is written).
 */
export interface HeldSetNotice {
  integrationId: string;
  warn: (message: string) => void;
  declared?: readonly { userId: string; entitlements: readonly string[] }[] | undefined;
  everyone?: boolean;
  declaredSets?: boolean;
}

/**
 * What the membership view found, as a plan takes it (`null`: absent). A member whose record cannot be used keeps the set the
 * state recorded (an empty one would PATCH the member and show a diff on every up), else the declared one with `declaredSets`,
 * else none known where declared or to be managed, else not known (`null`, as an unmanaged member's set the record leaves out); their role is unknown whatever
 * the state recorded (they may have been made an owner since): never counted as a known non-owner. A member recorded, declared
 * or to be managed whose record leaves the set out holds the recorded set too, or the declared one with `declaredSets`
 * ({@link withHeldSet}), their role as read; `notice` says so. Any other (unmanaged) member's set is not known: `null`, never none.
 */
export function asPlanned(
  found: ReadonlyMap<Id, Found | undefined>,
  recordedList: readonly IntegrationMemberState[] = [],
  notice?: HeldSetNotice,
) {
  const recorded = byKey(recordedList);
  const declared = byKey(notice?.declared ?? []);
  const planned = new Map<Id, ServiceMember | null>();
  for (const [key, member] of found) {
    const known = recorded.get(key);
    if (member === undefined) planned.set(key, null);
    else if (member instanceof Error) {
      // Recorded, declared or to be managed: the recorded set, else the declared one with `declaredSets` (as for a set left out),
      // else none known; anyone else's: not known (`null`), never none.
      const managed = known !== undefined || declared.has(key) || notice?.everyone === true;
      const standIn = notice?.declaredSets ? declared.get(key)?.entitlements : undefined;
      const entitlements = known?.entitlements ?? (standIn ? entitlementSet(standIn) : managed ? [] : null);
      planned.set(key, { userId: known?.userId ?? key, entitlements, role: null, email: null });
    } else if (known || declared.has(key) || notice?.everyone) {
      const standIn = known ? { recorded: known.entitlements } : notice?.declaredSets ? { declared: declared.get(key)?.entitlements } : {};
      planned.set(key, serviceMember(withHeldSet(notice?.integrationId ?? "", member, standIn, notice?.warn)));
    } else planned.set(key, serviceMember(member));
  }
  return planned;
}
