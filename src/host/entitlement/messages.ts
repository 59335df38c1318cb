/** An {@link IntegrationEntitlement}'s long messages: each names the user and the integration, what was kept, and the fix. */
import type { IntegrationUser } from "../../client";
import { DEFAULT_INTEGRATION_ROLE, entitlementSet, type IntegrationEntitlementInputs } from "../../shared/inputs";
import { goneSinceWritten } from "../membership/messages";
import { membershipId } from "./entitlement-state";

/** A membership: the integration and the user. */
type Membership = Pick<IntegrationEntitlementInputs, "integrationId" | "userId">;

/** The set of a member, for messages: `VIEWER, EDITOR`, or `none`. */
const describeSet = (ids: readonly string[] | null) =>
  ids === null ? "not known (the service's record leaves them out)" : ids.length > 0 ? entitlementSet(ids).join(", ") : "none";

/**
 * A refresh found `userId` not a member of integration `integrationId`, and the integration's own read answered 404: the client
 * trusts a 404 to a read of integrations only once the key is shown integrations (`#unlessHidden`), so it is gone, and the
 * resource is dropped from the state.
 */
export function integrationGone(integrationId: string, userId: string): string {
  return (
    `Integration ${integrationId} no longer exists: user ${userId}'s membership of it and the integration itself answer 404 ` +
    `(GET /integrations/${integrationId}; the 404 is confirmed: this key is shown integrations, so it is not a scope the key ` +
    "lacks). The IntegrationEntitlement is dropped from the state, removing no one; if the program still declares it, " +
    "the next up tries to create it and fails while the integration is gone: remove it from the program."
  );
}

/**
 * A create or update (`op`) of `userId`'s membership got a 404 to `request`, and the integration's own read answered 404 too,
 * which the client trusts once the key is shown integrations (the operation's member read made sure): it does not exist.
 */
export function integrationDoesNotExist(integrationId: string, userId: string, request: string, op: "create" | "update"): string {
  const outcome =
    op === "create"
      ? "Nothing was created. Remove this IntegrationEntitlement from the program, or point its integrationId at an existing " +
        "integration (getIntegration looks one up by name)."
      : goneSinceWritten("IntegrationEntitlement");
  return (
    `Integration ${integrationId} does not exist: ${request} answered 404 to the ${op} of user ${userId}'s membership of ` +
    `it, and so does the integration itself (GET /integrations/${integrationId}; the 404 is confirmed: this key is ` +
    `shown integrations, so it is not a scope the key lacks). ${outcome}`
  );
}

/** `import` names the membership `importId` (`named`), not the `declared` one. */
export function importedOtherMembership(importId: string, named: Membership, declared: Membership): string {
  const { integrationId, userId } = declared;
  return (
    `import: "${importId}" is the membership of user ${named.userId} in integration ${named.integrationId}, ` +
    `but the resource declares user ${userId} in integration ${integrationId}. Nothing was changed. ` +
    `Import "${membershipId(integrationId, userId)}", or declare the membership you import.`
  );
}

/** `import` names a membership that does not exist. */
export function noMembershipToImport({ integrationId, userId }: Membership): string {
  return (
    `import: user ${userId} is not a member of integration ${integrationId} ` +
    `(GET /integrations/${integrationId}/users/${userId} answered 404), so there is nothing to import. ` +
    "Nothing was changed. Remove the import option to invite the user."
  );
}

/**
 * `IntegrationEntitlement.get` names a membership that does not exist: the user is not a member, or (`integrationThere` false) the
 * integration itself answers 404 too. `given`: the id as the program wrote it.
 */
export function noMembershipToGet({ integrationId, userId }: Membership, integrationThere: boolean, given: string): string {
  const why = integrationThere
    ? `user ${userId} is not a member of integration ${integrationId} (GET /integrations/${integrationId}/users/${userId} answered 404)`
    : `there is no integration ${integrationId} (GET /integrations/${integrationId} answered 404, as did its member ${userId}; ` +
      "the 404 is confirmed: this key is shown integrations, so it is not a scope the key lacks)";
  return (
    `IntegrationEntitlement.get: ${why}, so there is nothing to read. Check the id given, ${given} (<integrationId>/<userId>: ` +
    "getIntegrationMembers lists the members)."
  );
}

/** A destroy leaves the adopted membership of `userId` (`email`, when known) as it is. */
export function adoptedMembershipLeft(integrationId: string, userId: string, email: string | null | undefined): string {
  return (
    `The membership of user ${userId}${email ? ` (${email})` : ""} in integration ${integrationId} is left as it is: ` +
    "the stack adopted it (it existed before). To remove it on destroy, set deleteOnDestroy: true on the resource and run pulumi up first."
  );
}

/**
 * The member's record does not say their role (left out, a role this package does not know, or a record it cannot read): they
 * may be an owner someone made since, whom a destroy leaves, so the destroy fails, sending nothing (as an `IntegrationMembers`'
 * removal of such a member).
 */
export function roleUnknownMembership(integrationId: string, userId: string, email: string | null | undefined): string {
  return (
    `The membership of user ${userId}${email ? ` (${email})` : ""} in integration ${integrationId} was not removed: the service's ` +
    'record of the member does not say their role (field "data.attributes.role": left out, a role this package does not know, or ' +
    "a record it cannot read), so they may be an owner someone made since, whom a destroy leaves. Nothing was sent. To remove it, " +
    'declare role: "account_owner" or set deleteOnDestroy: true on the resource and run pulumi up first, or remove the member in ' +
    "the service; to stop managing it and leave it, run pulumi state delete on this resource."
  );
}

/** The member is an owner of the integration now, a role the program does not declare: a destroy leaves them. */
export function ownerMembershipLeft(integrationId: string, userId: string, email: string | null | undefined): string {
  return (
    `The membership of user ${userId}${email ? ` (${email})` : ""} in integration ${integrationId} is left as it is: the user is an ` +
    "owner of the integration now, a role the program does not declare (someone made them one). To remove it on destroy, declare " +
    `role: "account_owner" or set deleteOnDestroy: true on the resource, and run pulumi up first.`
  );
}

/** A destroy of a partial create found `member` holding another role than its invitation asked: someone else's, left as it is. */
export function notInvitedMembershipLeft(integrationId: string, userId: string, member: IntegrationUser): string {
  return (
    `The membership of user ${userId}${member.email ? ` (${member.email})` : ""} in integration ${integrationId} is left as it is: ` +
    `it holds role ${member.role ?? "unknown"} and entitlements ${describeSet(member.entitlements)}, not the role this resource's ` +
    "invitation asked (which may not have landed), so someone else made it. To remove it, remove the user in the service."
  );
}

/** A forced replacement's create took back the membership its delete left in place (an adopted one, an owner). */
export function takenBack({ integrationId, userId }: Membership): string {
  return (
    `Took back the membership of user ${userId} in integration ${integrationId} as it is: the replacement's delete left it ` +
    "in place (see the warning above), so the new resource manages the same membership."
  );
}

/** `member` is there already and may not be taken over; `roleHint` adds the role to declare with `adoptExisting`. */
export function existingMembership(member: IntegrationUser, { integrationId, userId }: Membership, roleHint: string): string {
  return (
    `User ${userId}${member.email ? ` (${member.email})` : ""} is already a member of integration ${integrationId}, ` +
    `with role ${member.role ?? "unknown"} and entitlements ${describeSet(member.entitlements)}. ` +
    "Nothing was changed. " +
    `To manage the existing membership with this resource, set adoptExisting: true${roleHint} ` +
    "(its entitlements then become the declared set; destroying the resource leaves the membership, unless deleteOnDestroy: true); " +
    "to leave it alone, remove this resource from the program. If this resource was renamed, give it the option " +
    'aliases: [{ name: "<its old name>" }] instead: the stack keeps managing the membership, and nothing is written.'
  );
}

/** The member's role is `current`, not the declared one. */
export function roleDiffers(inputs: IntegrationEntitlementInputs, current: string): string {
  return (
    `User ${inputs.userId} is already a member of integration ${inputs.integrationId} as ${current}, but the resource declares role ${inputs.role}. ` +
    `The API cannot change a member's role in place: declare role: "${current}" to manage the membership as it is, or remove the member first.`
  );
}

/** An adopted membership's declared role changed, and the resource may not remove it (no `deleteOnDestroy` in its state). */
export function adoptedRoleChange({ integrationId, userId, role }: Membership & { role?: string | null }, declared: string): string {
  return (
    `role: the membership of user ${userId} in integration ${integrationId} was adopted (it existed before the stack), and its role ` +
    `cannot change from ${role} to ${declared} in place: the API changes a role only by removing the member and inviting them again, ` +
    "and this resource never removes a membership it adopted. Nothing was changed. Either set deleteOnDestroy: true on the resource " +
    "and run pulumi up (nothing is sent), then change the role; or change the role in the service, then run pulumi refresh."
  );
}

/**
 * A replacement of a membership by itself (`replacing`: a role change, what `replaceOnChanges` names) declared with
 * `retainOnDelete: true`: the engine skips the removal it starts with, so the invitation would find the member and fail.
 */
export function retainedReplacement(
  { integrationId, userId, role }: Membership & { role?: string | null },
  declared: unknown,
  replacing: readonly string[],
): string {
  const held = role ?? DEFAULT_INTEGRATION_ROLE;
  const change = replacing.includes("role")
    ? `role: the role of user ${userId} in integration ${integrationId} cannot change from ${held} to ${String(declared)} in place: ` +
      "the API changes a role only by removing the member and inviting them again"
    : `replaceOnChanges: the change of ${replacing.join(", ")} replaces the membership of user ${userId} in integration ` +
      `${integrationId}, which removes the member and invites them again`;
  const instead = replacing.includes("role") ? `keep role: "${held}"` : "remove replaceOnChanges (the set then changes in place)";
  return (
    `${change}, and the resource is declared with retainOnDelete: true, under which the engine skips the removal: the invitation ` +
    "would find the user still a member and fail, and leave the resource marked for replacement in the state, each later up " +
    "failing the same way. Nothing was changed. Either remove retainOnDelete from the resource and run pulumi up (nothing is " +
    `sent), then make the change in the next up; or ${instead}.`
  );
}

/**
 * What a create declared with `retainOnDelete: true` adds to its refusal of a member already there: a replacement's skipped
 * delete left the old resource's membership, and the state keeps that resource marked for replacement until it is taken back.
 */
export function retainedMemberThere(): string {
  return (
    " This IntegrationEntitlement is declared with retainOnDelete: true: if it is being replaced (pulumi up --replace, or a " +
    "replacement the plan showed), the engine skipped the replaced resource's delete, so this is the membership it managed, " +
    "left in place, and the state keeps the old resource marked for replacement: every pulumi up fails here until the new " +
    "resource takes the membership back. To do so, set adoptExisting: true on this resource and run pulumi up: it manages the " +
    "membership as it is, recorded as adopted (a destroy then leaves it unless deleteOnDestroy: true)."
  );
}

/** The invitation's job finished, but the user is not a member. */
export function notAMemberAfterJob({ integrationId, userId }: Membership): string {
  return (
    `The job for ${membershipId(integrationId, userId)} finished, ` +
    "but the user is not a member of the integration (its read answers 404): recorded as an invitation that may still land; " +
    "the next up reads the member again, takes them as this resource's own if there, else invites them again."
  );
}

/**
 * An update asks another set or role (`inputs`) than the write the state records as pending (its job `jobId` still running after
 * another wait, asking `asked`): not sent, so that a late landing of that write cannot add what the program no longer declares.
 */
export function pendingWriteChanged(
  inputs: Membership & { entitlements: readonly string[]; role?: string },
  jobId: string,
  asked: readonly string[],
): string {
  const { integrationId, userId } = inputs;
  const set = (ids: readonly string[]) => `[${ids.join(", ")}]`;
  return (
    `The earlier write of user ${userId} in integration ${integrationId} (job ${jobId}, entitlements ${set(asked)}) is still ` +
    `running after another wait. Nothing was sent: changing it to ${set(inputs.entitlements)}${inputs.role ? ` as ${inputs.role}` : ""} ` +
    "now could let that job land afterwards, granting what the program no longer declares, with nothing recorded of it. Run " +
    `pulumi up again once the job has finished (check it with getJob); a job that never ends: declare ${set(asked)} until then ` +
    "(the user is then invited again as asked before), or check the member in the service."
  );
}

/** A refresh found the user no member though the partial create's invitation, its job `jobId`, finished: kept, not dropped. */
export function invitationNotSeenYet({ integrationId, userId }: Membership, jobId: string): string {
  return (
    `The invitation of user ${userId} to integration ${integrationId} finished (job ${jobId}), but the user is not a member ` +
    "yet (its read answers 404; the service's reads may lag its jobs): the state keeps it as a partial create, not dropped, " +
    "so that a late landing is taken as this resource's own. The next refresh looks again; the next up reads the member, " +
    "takes them as this resource's own if there, else invites them again."
  );
}

/** After the invitation (its job `jobId`), `member` is not as `inputs` invited them. */
export function notAsInvited(member: IntegrationUser, inputs: IntegrationEntitlementInputs, jobId: string | null): string {
  const { integrationId, userId } = inputs;
  return (
    `After the invitation${jobId ? ` (job ${jobId})` : ""} of user ${userId} to integration ${integrationId}, the user is a member ` +
    `with role ${member.role ?? "unknown"} and entitlements ${describeSet(member.entitlements)}, ` +
    `not role ${inputs.role ?? DEFAULT_INTEGRATION_ROLE} with ${describeSet(inputs.entitlements)} as invited: ` +
    "the service may have merged the invitation into a membership " +
    "that already existed. Nothing was recorded and nothing more was written: check the membership in the workspace; " +
    "the next up treats it as an existing membership (adoptExisting decides)."
  );
}
