/**
 * The writes of an {@link IntegrationEntitlement}'s create and of an update that resumes one: whether
 * the user is a member already, the (batched) invitation or the `PATCH` of the set, and what the
 * member is after its job. The adoption rules live here: a membership that existed is taken over
 * only with `adoptExisting` and the declared role.
 */
import {
  ConfigurationError,
  idOf,
  type IntegrationUser,
  type JobHandle,
  type WorkspaceAccessClient,
  WorkspaceAccessError,
} from "../../client";
import { entitlementSet, type IntegrationEntitlementInputs, inviteRole } from "../../shared/inputs";
import type { InvitationResult } from "../membership/invite-batcher";
import type { Found } from "../membership/member-list";
import { afterJobWait, PartialWriteError } from "../membership/partial-write";
import type { ProviderContext } from "../provider-runtime";
import { membershipId, parseId, sameSet } from "./entitlement-state";
import { sameId } from "../../client/ids";

/**
 * Waits for the job of a write the service accepted. Any failure but the job's own (a
 * `JobFailedError`: the write did not happen) leaves the write in flight: a
 * {@link PartialWriteError} with the job, for `partialCreate` in the provider.
 */
async function finish(job: JobHandle): Promise<void> {
  try {
    await job.wait();
  } catch (error) {
    throw afterJobWait(error, job.id);
  }
}

/**
 * An invitation that may still land, as the provider records it: a {@link PartialWriteError} with
 * its job (see `partialCreate` in the provider). Any other result as it is. The invitation itself
 * goes straight to the context's batcher (`invite-batcher.ts`), which invites with the others of the
 * same integration, role and set sent at about the same time, and reads the member instead of
 * inviting blindly after a 409 or an ambiguous failure.
 *
 * Inviting a user who is already a member is not documented (409, a merge, or a failed job): the
 * create confirms the user is not one first, and reads the member back after the job.
 */
function landed(result: InvitationResult): Exclude<InvitationResult, { kind: "pending" }> {
  if (result.kind === "pending") throw new PartialWriteError(result.error, result.jobId);
  return result;
}

/** A member found, or none; a member whose record cannot be used fails this resource alone, naming it. */
export function usable(found: Found | undefined): IntegrationUser | undefined {
  if (found instanceof Error) throw found;
  return found;
}

/** The invitation of `inputs`, for the batcher. */
const invitationOf = ({ integrationId, userId, role, entitlements }: IntegrationEntitlementInputs) => ({
  integrationId,
  userId,
  role,
  entitlements: entitlementSet(entitlements),
});

/** The set of a member, for messages: `VIEWER, EDITOR`, or `none`. */
const describeSet = (ids: readonly string[]) => (ids.length > 0 ? ids.join(", ") : "none");

/**
 * A create found the user a member already and may not take the membership over: nothing was
 * written, and the message names what the member holds and the ways forward.
 */
function existingMembershipError(member: IntegrationUser, inputs: IntegrationEntitlementInputs): ConfigurationError {
  const { integrationId, userId } = inputs;
  const current = inviteRole(member.role);
  const roleHint = current !== undefined && current !== inputs.role ? ` and role: "${current}"` : "";
  return new ConfigurationError(
    `User ${userId}${member.email ? ` (${member.email})` : ""} is already a member of integration ${integrationId}, with role ${member.role ?? "unknown"} and entitlements ${describeSet(member.entitlements)}. ` +
      "Creating this resource would take that access over: its entitlements would become the declared set, and destroying the resource would remove the user from the integration. Nothing was changed. " +
      `To manage the existing membership with this resource, set adoptExisting: true${roleHint}; to leave it alone, remove this resource from the program.`,
    "adoptExisting",
  );
}

/** A create over a member whose role is not the declared one: the API cannot change it in place. */
function roleMismatch(member: IntegrationUser, inputs: IntegrationEntitlementInputs): ConfigurationError | undefined {
  const current = inviteRole(member.role);
  if (current === undefined || current === inputs.role) return undefined;
  return new ConfigurationError(
    `User ${inputs.userId} is already a member of integration ${inputs.integrationId} as ${current}, but the resource declares role ${inputs.role}. The API cannot change a member's role in place: declare role: "${current}" to manage the membership as it is, or remove the member first.`,
    "role",
  );
}

/** Makes an existing member hold exactly the declared set: one `PATCH` when it differs, nothing when it matches. */
async function setExisting(
  client: WorkspaceAccessClient,
  member: IntegrationUser,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; jobId: string | null }> {
  if (sameSet(member.entitlements, inputs.entitlements)) return { member, jobId: null };
  const job = await client.integrations.setEntitlements(inputs.integrationId, inputs.userId, inputs.entitlements);
  await finish(job);
  // The member was read before the write; the finished job wrote exactly this set.
  return { member: { ...member, entitlements: entitlementSet(inputs.entitlements) }, jobId: job.id };
}

/**
 * The member after an invitation's job, for what only the service knows (email, status), and to
 * see what the job made: a service may merge an invitation into a membership that existed, so a
 * member whose role or set is not the one asked fails with what was found (nothing is recorded:
 * the next up finds the membership and applies the adoption rules).
 */
async function memberAfterInvite(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
  jobId: string | null,
): Promise<IntegrationUser> {
  const { integrationId, userId } = inputs;
  const member = usable(await ctx.connection().memberships.of(integrationId).read(userId));
  if (!member) {
    throw new WorkspaceAccessError(
      `The job for ${membershipId(integrationId, userId)} finished, but the user is not a member of the integration: check the integration in the workspace.`,
      { kind: "invalid_response" },
    );
  }
  const role = inviteRole(member.role);
  // A role the service does not say, or says in words this package does not know, is not a finding.
  const roleDiffers = role !== undefined && role !== inputs.role;
  if (roleDiffers || !sameSet(member.entitlements, inputs.entitlements)) {
    throw new WorkspaceAccessError(
      `After the invitation${jobId ? ` (job ${jobId})` : ""} of user ${userId} to integration ${integrationId}, the user is a member with role ${member.role ?? "unknown"} and entitlements ${describeSet(entitlementSet(member.entitlements))}, not role ${inputs.role} with ${describeSet(entitlementSet(inputs.entitlements))} as invited: the service may have merged the invitation into a membership that already existed. Nothing was recorded and nothing more was written: check the membership in the workspace; the next up treats it as an existing membership (adoptExisting decides).`,
      { kind: "invalid_response" },
    );
  }
  return member;
}

/**
 * A create: learns whether the user is a member before writing anything (its integration's `membership-view.ts`),
 * never from how an invitation is answered. A member is taken over only with `adoptExisting`
 * (and the declared role): the declared set is applied, nothing written when it matches. A user
 * who is not a member is invited; when the invitation says otherwise (a 409: the user became a
 * member since the read), the same rules apply. After the invitation's job, a lone create reads
 * the member once for its email and status; creates that shared a member list do not (that would
 * cost a request each), and leave email and status `null` until the next refresh.
 */
export async function createMembership(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; existed: boolean; jobId: string | null }> {
  const { client, memberships } = ctx.connection();
  const adopt = async (member: IntegrationUser) => {
    if (!inputs.adoptExisting) throw existingMembershipError(member, inputs);
    const mismatch = roleMismatch(member, inputs);
    if (mismatch) throw mismatch;
    const set = await setExisting(client, member, inputs);
    // Said in the up's output: the engine reports the adoption as "created" either way.
    if (set.jobId === null)
      ctx.info(
        `Adopted the membership of user ${inputs.userId} in integration ${inputs.integrationId}: ` +
          "it holds the declared role and entitlements already; nothing was written.",
      );
    return { ...set, existed: true };
  };
  const { member: found, shared } = await memberships.of(inputs.integrationId).beforeCreate(inputs.userId);
  const existing = usable(found);
  if (existing) return adopt(existing);
  const invited = landed(await ctx.connection().invites.submit(invitationOf(inputs)));
  if (invited.kind === "member") {
    // Found a member after a failed or unanswered invitation with another role than invited:
    // someone else added them meanwhile, so the adoption rules apply.
    if (invited.existed || roleMismatch(invited.member, inputs)) return adopt(invited.member);
    // An ambiguous invitation that landed: the membership is this create's own.
    return { ...(await setExisting(client, invited.member, inputs)), existed: false };
  }
  const member: IntegrationUser = shared
    ? {
        id: idOf(inputs.userId),
        email: null,
        firstName: null,
        lastName: null,
        isGuest: null,
        status: null,
        role: null,
        entitlements: inputs.entitlements,
        dynamicFields: {},
      }
    : await memberAfterInvite(ctx, inputs, invited.jobId);
  return { member, existed: false, jobId: invited.jobId };
}

/**
 * A create with `import: "<integrationId>/<userId>"`: the membership must be the declared one and
 * exist (a direct read; 404 fails, before any write); then it is adopted as `adoptExisting` would
 * (the declared role must match; the set applied only when it differs).
 */
export async function importMembership(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
  importId: string,
): Promise<{ member: IntegrationUser; jobId: string | null }> {
  const named = parseId(importId);
  if (!sameId(named.integrationId, inputs.integrationId) || !sameId(named.userId, inputs.userId)) {
    throw new ConfigurationError(
      `import: "${importId}" is the membership of user ${named.userId} in integration ${named.integrationId}, ` +
        `but the resource declares user ${inputs.userId} in integration ${inputs.integrationId}. Nothing was changed. ` +
        `Import "${membershipId(inputs.integrationId, inputs.userId)}", or declare the membership you import.`,
      "import",
    );
  }
  const { client, memberships } = ctx.connection();
  const member = usable(await memberships.of(inputs.integrationId).read(inputs.userId));
  if (!member) {
    throw new ConfigurationError(
      `import: user ${inputs.userId} is not a member of integration ${inputs.integrationId} ` +
        `(GET /integrations/${inputs.integrationId}/users/${inputs.userId} answered 404), so there is nothing to import. ` +
        "Nothing was changed. Remove the import option to invite the user.",
      "import",
    );
  }
  const mismatch = roleMismatch(member, inputs);
  if (mismatch) throw mismatch;
  return setExisting(client, member, inputs);
}

/**
 * Makes the membership hold exactly `inputs.entitlements` on an update resuming a partial create,
 * or restoring a membership removed out of band: reads the member, invites a user who is not a
 * member, replaces the set of one who is (when it differs), and waits for the job.
 */
export async function converge(
  ctx: ProviderContext,
  inputs: IntegrationEntitlementInputs,
): Promise<{ member: IntegrationUser; jobId: string | null }> {
  const { client, memberships } = ctx.connection();
  let member = usable(await memberships.of(inputs.integrationId).read(inputs.userId));
  if (!member) {
    const invited = landed(await ctx.connection().invites.submit(invitationOf(inputs)));
    if (invited.kind === "invited") return { member: await memberAfterInvite(ctx, inputs, invited.jobId), jobId: invited.jobId };
    member = invited.member;
  }
  // A member holding another role than this resource invites with was not made by its invitation:
  // someone else's, taken over only by the adoption rules (as at create).
  const mismatch = roleMismatch(member, inputs);
  if (mismatch) throw inputs.adoptExisting ? mismatch : existingMembershipError(member, inputs);
  return setExisting(client, member, inputs);
}
