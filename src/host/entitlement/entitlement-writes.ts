/**
 * An {@link IntegrationEntitlement}'s writes: the one-member case of the members planner, with this resource's adoption rules
 * (a membership that existed is taken over only with `adoptExisting` and the declared role), learnt from the membership view.
 */
import { ConfigurationError, idOf, type IntegrationUser, type NotFoundError, WorkspaceAccessError } from "../../client";
import { DEFAULT_INTEGRATION_ROLE, type IntegrationEntitlementInputs, inviteRole, sameSet } from "../../shared/inputs";
import { type Actions, guardLastOwner, type Ignorable, planOne } from "../members/members-plan";
import { asPlanned, type ServiceMember, serviceMember } from "../members/members-state";
import { type HeldMember, type StandIn, withHeldSet } from "../membership/held-set";
import type { Invitation, InvitationResult } from "../membership/invite-batcher";
import type { Found } from "../membership/member-list";
import type { MembershipView } from "../membership/membership-view";
import { memberThereAfterPatch } from "../membership/messages";
import { afterJobWait, PartialWriteError } from "../membership/partial-write";
import type { ProviderContext } from "../provider-runtime";
import * as messages from "./messages";

/** What the writes left: the member as the service has them, the job of the last write, and whether the membership existed before. */
export interface Written {
  member: HeldMember;
  jobId: string | null;
  existed: boolean;
}

/**
 * How a member found comes to this resource: at its create (only with `adoptExisting`), by `import`, resuming its own
 * invitation, or kept: left in place by this deployment's delete of the resource it replaces (a forced `--replace`).
 */
type Arrival = "create" | "import" | "resume" | "kept";

/** Where a member's set comes from when their record leaves it out ({@link withHeldSet}): the set that stands in, and who warns. */
export interface HeldFrom extends StandIn {
  integrationId: string;
  warn?: ((message: string) => void) | undefined;
}

/**
 * A member found, or none; a member whose record cannot be used fails this resource alone, naming it. One whose record leaves
 * their set out holds the set `held` records (else none known), as an `IntegrationMembers`' member does.
 */
export function usable(found: Found | undefined, held: HeldFrom): HeldMember | undefined {
  if (found instanceof Error) throw found;
  return found && withHeldSet(held.integrationId, found, held, held.warn);
}

/** Who warns about a member whose record leaves the set out: the context. */
export const warnOf = (ctx: ProviderContext) => (message: string) => ctx.warn(message);

/**
 * Where the set of a member no state records comes from ({@link HeldFrom}) when their record leaves it out: the declared set
 * where `ignored` names the set (`ignoreChanges` keeps the service's, so none is written; an empty one would be recorded as
 * held), else none known (a write of the declared set makes it known).
 */
export const heldFrom = (ctx: ProviderContext, inputs: IntegrationEntitlementInputs, ignored: readonly Ignorable[]): HeldFrom => ({
  integrationId: inputs.integrationId,
  warn: warnOf(ctx),
  ...(ignored.includes("entitlements") ? { declared: inputs.entitlements } : {}),
});

/** The members planner's plan for this one member, `member` as the view found them (`undefined`: confirmed absent). */
function planOf(inputs: IntegrationEntitlementInputs, member: HeldMember | undefined, ignored: readonly Ignorable[] = []): Actions {
  const { integrationId, userId, entitlements, role } = inputs;
  return planOne(integrationId, { userId, entitlements, role }, member ? serviceMember(member) : null, ignored);
}

/** The invitation the plan of an absent member asks for, for the batcher. */
export function invitationOf(inputs: IntegrationEntitlementInputs): Invitation {
  const [invite] = planOf(inputs, undefined).invite;
  const { integrationId, userId, entitlements } = inputs;
  return { integrationId, userId, role: invite?.role ?? invitedRole(inputs), entitlements };
}

/** The role an invitation of this resource asks: the declared one, else the default. */
export const invitedRole = (inputs: DeclaredRole) => inputs.role ?? DEFAULT_INTEGRATION_ROLE;

/** The role a resource's inputs, or its state, declare (`null` or absent: none). */
type DeclaredRole = { role?: IntegrationEntitlementInputs["role"] | null };

/**
 * The member's role when it is known and not the declared one (the API cannot change a role in place); none when the program
 * leaves the role out. `asInvited`: compared with the role this resource's write expects (whether the member is its own): an
 * invitation's, or, given a state with a write pending, the role it records (an invitation's, or the role the member held
 * when an update's own `PATCH` was left in flight).
 */
export function otherRole(member: IntegrationUser, inputs: DeclaredRole, asInvited = false): string | undefined {
  const current = inviteRole(member.role);
  const expected = asInvited ? invitedRole(inputs) : inputs.role;
  return current !== undefined && expected != null && current !== expected ? current : undefined;
}

/**
 * Takes a member who is there: the adoption rules (at create only with `adoptExisting`), then one `PATCH` of the set when it
 * differs. What `ignored` names (the program's `ignoreChanges`) is left as the member holds it: no `PATCH`, no role refused.
 */
export async function adopt(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
  member: HeldMember,
  how: Arrival,
  recorded?: DeclaredRole,
  ignored: readonly Ignorable[] = [],
): Promise<Written> {
  const current = otherRole(member, inputs);
  // Resuming: compared with the role the state's pending write expects (`recorded`), else the invitation's of the inputs.
  const notInvited = otherRole(member, recorded ?? inputs, true);
  // Resuming, a member with another role than invited was not made by this resource's invitation: someone else's.
  if (!inputs.adoptExisting && (how === "create" || (notInvited && how === "resume"))) {
    const roleHint = current ? ` and role: "${current}"` : "";
    throw new ConfigurationError(messages.existingMembership(member, inputs, roleHint), "adoptExisting");
  }
  if (current && !ignored.includes("role")) throw new ConfigurationError(messages.roleDiffers(inputs, current), "role");
  const [set] = planOf(inputs, member, ignored).setEntitlements;
  const existed = how !== "resume";
  if (how === "kept") ctx.info(messages.takenBack(inputs));
  if (!set) {
    // Said in the up's output: the engine reports the adoption as "created" either way.
    if (how === "create") {
      ctx.info(
        `Adopted the membership of user ${inputs.userId} in integration ${inputs.integrationId}: ` +
          "it holds the declared role and entitlements already; nothing was written.",
      );
    }
    return { member, jobId: null, existed };
  }
  const job = await ctx.connection().client.integrations.setEntitlements(inputs.integrationId, inputs.userId, set.entitlements);
  // A wait that fails otherwise than by the job's own failure leaves the write in flight (a PartialWriteError with its job).
  await job.wait().catch((error: unknown) => {
    throw afterJobWait(error, job.id);
  });
  // The member was read before the write; the finished job wrote exactly this set.
  return { member: { ...member, entitlements: set.entitlements }, jobId: job.id, existed };
}

/**
 * What an invitation leaves: `pending` throws a {@link PartialWriteError}; a member someone else added follows the adoption
 * rules. A create that shared a member list does not read the member back (a request each).
 */
export async function afterInvitation(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
  result: InvitationResult,
  how: Arrival,
  shared = false,
  ignored: readonly Ignorable[] = [],
): Promise<Written> {
  if (result.kind === "pending") throw new PartialWriteError(result.error, result.jobId);
  if (result.kind === "member") {
    const theirs = result.existed || otherRole(result.member, inputs, true) !== undefined;
    const held = heldFrom(ctx, inputs, ignored);
    const member = withHeldSet(inputs.integrationId, result.member, held, held.warn);
    return adopt(ctx, inputs, member, theirs && how === "create" ? "create" : "resume", undefined, ignored);
  }
  const { jobId } = result;
  if (!shared) return { member: await memberAfterInvite(ctx, inputs, jobId), jobId, existed: false };
  // Not read back: the job finished, so the member holds what was asked.
  const role = invitedRole(inputs);
  const member = { id: idOf(inputs.userId), email: null, firstName: null, lastName: null, isGuest: null, status: null, role };
  return { member: { ...member, entitlements: inputs.entitlements, dynamicFields: {} }, jobId, existed: false };
}

/** The member after an invitation's job: one not as asked (a service may merge it into a membership that existed) fails. */
async function memberAfterInvite(ctx: ProviderContext, inputs: IntegrationEntitlementInputs, jobId: string | null): Promise<HeldMember> {
  const { integrationId, userId } = inputs;
  let member: HeldMember | undefined;
  try {
    // The job finished: a set the record leaves out is the one asked, as far as anyone knows.
    member = usable(await ctx.connection().memberships.of(integrationId).read(userId), { integrationId, recorded: inputs.entitlements });
  } catch (error) {
    // The job finished, so the invitation landed: unread, it is recorded as a write that may have landed (a partial create),
    // which the next up resumes as this resource's own instead of finding someone else's membership.
    throw new PartialWriteError(error, jobId);
  }
  // Not there though the job finished (a read that lags the service's jobs, or a job that applied nothing): neither a member to
  // record nor nothing, where the next up would take a late landing for someone else's membership. A write that may still land.
  if (!member)
    throw new PartialWriteError(new WorkspaceAccessError(messages.notAMemberAfterJob(inputs), { kind: "invalid_response" }), jobId);
  // A role the service does not say, or says in words this package does not know, is not a finding.
  if (otherRole(member, inputs, true) || !sameSet(member.entitlements, inputs.entitlements)) {
    throw new WorkspaceAccessError(messages.notAsInvited(member, inputs, jobId), { kind: "invalid_response" });
  }
  return member;
}

/**
 * An update that resumes a partial create, or restores a membership removed out of band: invites, or takes over as its own.
 * `absent`: the member was just read and is not there (after a `PATCH` whose job failed), so not read again. `recorded`: the
 * state resumed, whose role is the one its pending write expects the member to hold.
 */
export async function converge(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
  patched?: NotFoundError,
  absent = false,
  recorded?: DeclaredRole,
  ignored: readonly Ignorable[] = [],
): Promise<Written> {
  // A write the state records pending: the set it asked is not known to be held, so none is kept for a record that leaves it out
  // (but the declared set, where `ignoreChanges` names it).
  const held = heldFrom(ctx, inputs, ignored);
  const member = absent ? undefined : usable(await ctx.connection().memberships.of(inputs.integrationId).read(inputs.userId), held);
  // After a PATCH of this set answered 404 (`patched`): a member there was not removed, and the same PATCH would get it again.
  if (member && patched) throw memberThereAfterPatch(inputs.integrationId, inputs.userId, patched, ctx.keySource);
  if (member) return adopt(ctx, inputs, member, "resume", recorded, ignored);
  return afterInvitation(ctx, inputs, await ctx.connection().invites.submit(invitationOf(inputs)), "resume", false, ignored);
}

/**
 * Refuses removing `userId` (`member`, as found; `undefined`: not a member, nothing to remove) when they may be the integration's
 * last owner: the rule an {@link IntegrationMembers}' removals keep (`guardLastOwner`), over every member the view lists (the
 * one list a destroy's reads share), asked only when the member is an owner or their role is unknown. The members this process
 * removes already count as gone, and this one is recorded among them in the same turn (the caller forgets it if its removal
 * fails): deletes arriving together cannot each count on the other owner staying.
 */
export async function refuseLastOwner(
  view: MembershipView,
  userId: string,
  member: Found | undefined,
  keyNamed: (error: unknown) => Promise<never>,
): Promise<void> {
  if (member === undefined || (!(member instanceof Error) && inviteRole(member.role) === "account_collaborator")) return;
  const listed = await view.members().catch(keyNamed);
  const present = new Map<string, ServiceMember>();
  for (const [key, found] of asPlanned(new Map([...listed, [idOf(userId), member]]))) if (found) present.set(key, found);
  // Those this process removes are gone already, as far as this removal goes.
  guardLastOwner(view.integrationId, present, [userId], "userId", view.removals);
  view.removing(userId);
}
