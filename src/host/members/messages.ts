/** An {@link IntegrationMembers}' long messages: each names the integration and the users, what was (not) done, and the fix. */
import { ConfigurationError } from "../../client";
import type { MemberInputs } from "../../shared/inputs";
import { goneSinceWritten } from "../membership/messages";
import type { PendingInvitation } from "../membership/partial-write";

/**
 * Refusing to remove the last `owners` and the `unknown` (users whose role is unknown, who may be the owner); `holder`, the
 * property of the resource that declares them: an `IntegrationMembers`' `members`, or an `IntegrationEntitlement`'s `userId`.
 */
export function lastOwnerRefusal(
  integrationId: string,
  owners: readonly string[],
  unknown: readonly string[],
  holder: "members" | "userId" = "members",
): string {
  const users = (ids: readonly string[]) => (ids.length === 1 ? `user ${ids[0]}` : `users ${ids.join(", ")}`);
  const who = [
    ...(owners.length > 0 ? [`${users(owners)}, ${owners.length === 1 ? "the last member" : "every member"} with the owner role`] : []),
    ...(unknown.length > 0 ? [`${users(unknown)}, whose role is unknown,`] : []),
  ];
  const why =
    unknown.length > 0
      ? `no member known to hold the owner role would be left, and ${unknown.length === 1 ? "that user" : "those users"} may be its owner ` +
        "(a role is unknown when the service's record of the member could not be read, or names a role this package does not know). "
      : "the integration would be left without an owner. ";
  return (
    `Refusing to remove ${who.join(" and ")} of integration ${integrationId}: ${why}` +
    'Nothing was changed. Add another member with role: "account_owner" first, ' +
    (holder === "members"
      ? "keep this one in members (with its role), or, to stop managing the members without removing them, "
      : "keep this resource (with its role), or, to stop managing the membership without removing it, ") +
    "remove the resource from the stack's state (pulumi state delete)."
  );
}

/** A managed member whose role the service changed to `current` since the state was read: not changed back unseen. */
export function roleDrift({ userId, role }: MemberInputs, current: string | null): ConfigurationError {
  const message =
    `the service changed the role of user ${userId} to ${current} since the state was last read, ` +
    `and the plan did not show changing it back to ${role} (which removes the member and invites them again). ` +
    "Nothing was done to this member: run pulumi refresh, whose next plan shows the change, then pulumi up; " +
    `or declare role: "${current}" to keep it.`;
  return new ConfigurationError(message, "members");
}

/** A member of `integrationId` a removal leaves should they be an owner now, whose role the service's record does not say. */
export function roleUnknownRefusal(integrationId: string, userId: string): ConfigurationError {
  const message =
    `user ${userId} was not removed from integration ${integrationId}: the service's record of the member does not say their role ` +
    '(field "data.attributes.role": left out, a role this package does not know, or a record it cannot read), so they may be an ' +
    "owner someone made since, whom a removal leaves. Nothing was done to this member. To remove them, declare " +
    'role: "account_owner" for them, or set deleteOnDestroy: true on the resource, and run pulumi up first; or remove them in the service.';
  return new ConfigurationError(message, "members");
}

/** A member of `integrationId` as `current`, whom members declares with another role: adoption never removes anyone. */
export function roleMismatch(integrationId: string, { userId, role }: MemberInputs, current: string | null): ConfigurationError {
  const message =
    `User ${userId} is already a member of integration ${integrationId} as ${current}, but members declares role ${role}. ` +
    "The API cannot change a member's role in place, and a create does not remove anyone: " +
    `declare role: "${current}" (or leave role out) to adopt the membership as it is, ` +
    "then change the role in a later update (which removes and invites the member again).";
  return new ConfigurationError(message, "members");
}

/** A membership as asked or as found: its role and entitlements. */
interface Membership {
  role: string | null;
  entitlements: readonly string[];
}

/** The invitation of `userId` as `asked` finished, but the service has them as `found` (it may have merged it into a membership). */
export function notAsInvited(integrationId: string, userId: string, asked: Membership, found: Membership): Error {
  return new Error(
    `the invitation of user ${userId} to integration ${integrationId} as ${asked.role} with [${asked.entitlements.join(", ")}] finished, ` +
      `but the service now has them as ${found.role ?? "an unknown role"} with [${found.entitlements.join(", ")}] ` +
      "(an invitation of someone who is already a member may be merged into their membership). " +
      "The state records what was found; check the member, then run pulumi up again.",
  );
}

/** The invitation of `userId` finished (its job `jobId`), but a direct read of the member answers 404. */
export function notAMemberAfterJob(integrationId: string, userId: string, jobId: string | null): string {
  return (
    `the invitation of user ${userId} to integration ${integrationId} finished (job ${jobId}), but the user is not a member ` +
    "(its read answers 404): recorded as an invitation that may still land, not as a member. The next up reads the member " +
    "again, takes them as this resource's own if there, else invites them again."
  );
}

/**
 * How to give up on an invitation that may still land, once it is known not to: by hand, as leaving the member out of `members`
 * keeps it (`droppedMayLand`).
 */
const FORGET_BY_HAND =
  "remove the user from this resource's members and pendingInvitations in the stack's state (pulumi stack export, then pulumi stack import)";

/** An up found the invitation's job `jobId` still running after another wait. */
export function stillRunning(jobId: string | null): string {
  return (
    `the invitation's job ${jobId} is still running after another wait: the user is not invited again (that could invite them twice). ` +
    "The next up waits for it again. If the job is stuck, check the member in the service; once sure it will not land, " +
    `${FORGET_BY_HAND}: the next up invites them again (leaving them out of members keeps the invitation, which may still land).`
  );
}

/**
 * Members the program no longer declares, not members now, whose invitation's job still runs after another wait (`pending`; its
 * job in `unread` when its record cannot be read): kept, pending, and removed by the up that finds them members.
 */
export function droppedMayLand(integrationId: string, pending: readonly PendingInvitation[], unread: ReadonlySet<string>): string {
  const why = (p: PendingInvitation) =>
    `job ${p.jobId}, ${p.jobId !== null && unread.has(p.jobId) ? "whose record cannot be read" : "still running after another wait"}`;
  const one = pending.length === 1;
  return (
    `${one ? "User" : "Users"} ${pending.map((p) => `${p.userId} (${why(p)})`).join(", ")} ${one ? "is" : "are"} no longer ` +
    `declared in members of integration ${integrationId} and not a member now, but ${one ? "the invitation" : "their invitations"} ` +
    "may still land, granting the access the program removed. This resource keeps them, pending: each up reads them again, " +
    "removes them once they are members, and forgets them once the job has ended without making them. " +
    `Once sure an invitation will not land (the member absent in the service, its job ended: getJob), ${FORGET_BY_HAND}.`
  );
}

/**
 * The invitation's job `jobId` an earlier up left running cannot be read (`error`, its record has no status): whether it made the
 * member is not known, so the user is `what` (not invited again by an update; kept by a destroy).
 */
export function jobUnread(jobId: string, error: Error, what: string): string {
  return (
    `the invitation's job ${jobId} cannot be read (${error.message.replace(/\.$/, "")}): whether it made the member is not known, ` +
    `so the user is ${what}. The state keeps the invitation, and the next up or destroy reads the job again. Check the job ` +
    `with getJob or in the service; once sure it will not land, ${FORGET_BY_HAND}.`
  );
}

/** An invitation finished, but reading back what it made failed with `error`. */
export function cannotReadBack(error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return `the invitation finished, but reading back what it made failed (${why}): the state records what was asked; the next refresh reads the member again.`;
}

/** What proves a member list's 404 the integration's: the client trusts it only once the key is shown both (`#unlessHidden`). */
const CONFIRMED = "(the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key lacks)";

/** Integration `id`'s member list and the integration itself answered 404 to a refresh: it is gone, and the resource dropped. */
export function integrationGone(id: string): string {
  return (
    `Integration ${id} no longer exists: its member list and the integration itself answer 404 (GET /integrations/${id}; ` +
    "the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key lacks). The " +
    "IntegrationMembers is dropped from the state, removing no one; if the program still declares it, the next up tries " +
    "to create it and fails while the integration is gone: remove it from the program."
  );
}

/** A create or update (`op`) got a 404 to `request` (its member list, a write), and so does the integration's own read: it does not exist. */
export function integrationDoesNotExist(id: string, request: string, op: "create" | "update"): string {
  const outcome =
    op === "create"
      ? "Nothing was created. Remove this IntegrationMembers from the program, or point its integrationId at an existing " +
        "integration (getIntegration looks one up by name)."
      : goneSinceWritten("IntegrationMembers");
  return (
    `Integration ${id} does not exist: ${request} answered 404 to the ${op}, and so does the integration itself ` +
    `(GET /integrations/${id}; the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key ` +
    `lacks). ${outcome}`
  );
}

/** What a create, import, update, refresh or destroy did when the member list was withheld, and what to do. */
const WITHHELD_OUTCOMES = {
  create: "Nothing was created. Check the key's access to this integration's members, then run pulumi up again.",
  update: "Nothing was changed. Check the key's access to this integration's members, then run pulumi up again.",
  import: "Nothing was imported or changed. Check the key's access to this integration's members, then run pulumi up again.",
  refresh: "The refresh changes nothing in the state. Check the key's access to this integration's members, then refresh again.",
  get: "IntegrationMembers.get read nothing. Check the key's access to this integration's members, then run pulumi up again.",
  destroy:
    "Its members were not removed and the resource is kept. Check the key's access to this integration's members, then " +
    "destroy again; to stop managing them without removing anyone, pulumi state delete this resource.",
} as const;

/**
 * A create, import, update, refresh or destroy whose member list answered 404 while the integration itself answers: neither a scope the
 * key lacks (the 404 is confirmed) nor the integration gone, so the service withholds this integration's members alone.
 */
export function membersNotDisclosed(id: string, op: keyof typeof WITHHELD_OUTCOMES): string {
  const outcome = WITHHELD_OUTCOMES[op];
  return (
    `Integration ${id} answers GET /integrations/${id}, but its member list answered 404 ${CONFIRMED}: the service ` +
    `withholds this integration's members from this key. ${outcome}`
  );
}

/** What a read of a whole member set did when its listings never agreed, and what to do. */
const INCOMPLETE_OUTCOMES = {
  get: "IntegrationMembers.get read nothing; run it again.",
  refresh: "The refresh changes nothing in the state; run it again.",
  import: "Nothing was imported: the stack records nothing of this integration. Run the import again once its members stop " + "changing.",
} as const;

/**
 * A read of integration `id`'s whole member set (`op`: a get, its refresh, or the engine's import of the id, which reads with
 * no state) whose `listings` listings never agreed.
 */
export function membersNotComplete(id: string, listings: number, op: keyof typeof INCOMPLETE_OUTCOMES): string {
  return (
    `Could not read the members of integration ${id} completely: ${listings} listings at different page sizes disagreed ` +
    "(members came or went while they were read), and a member one listing skipped would be missing from the set. " +
    INCOMPLETE_OUTCOMES[op]
  );
}

/** `import` names integration `importId`, not the declared `integrationId`. */
export function notTheDeclaredIntegration(importId: string, integrationId: string): string {
  return (
    `import: "${importId}" is not the integration this resource declares (${integrationId}). Nothing was changed. ` +
    `Import "${integrationId}", or declare integrationId: "${importId}".`
  );
}

/** `import` names integration `importId`, whose member list and own read answered 404: there is no such integration. */
export function noIntegrationToImport(importId: string): string {
  return (
    `import: there is no integration ${importId}: its member list and the integration itself answer 404 (GET ` +
    `/integrations/${importId}; the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key ` +
    "lacks), so there is nothing to import. Nothing was changed. Check the id."
  );
}

/**
 * `IntegrationMembers.get` names integration `id` (`given`, as the program wrote it), whose member list and own read answered
 * 404: there is no such integration.
 */
export function noIntegrationToGet(id: string, given: string): string {
  return (
    `IntegrationMembers.get: there is no integration ${id}: its member list and the integration itself answer 404 (GET ` +
    `/integrations/${id}; the 404 is confirmed: this key is shown integrations and users, so it is not a scope the key lacks), ` +
    `so there is nothing to read. Check the id given, ${given} (getIntegrations lists them).`
  );
}

/** A removal leaves the `left` members of integration `id`: owners now, a role the program does not declare for them. */
export function ownersLeft(id: string, left: readonly string[]): string {
  return (
    `Integration ${id}: ${left.length} member(s) left as they are, owners of the integration now, a role the program does ` +
    `not declare (someone made them owners): ${left.join(", ")}. To remove them, declare role: "account_owner" for them, or set ` +
    "deleteOnDestroy: true on the resource, and run pulumi up first."
  );
}

/** A destroy or an update leaves the `left` members of integration `id` whose recorded invitation did not make them (another role than it asked). */
export function notInvitedLeft(id: string, left: readonly string[]): string {
  return (
    `Integration ${id}: ${left.length} member(s) left as they are, holding another role than this resource's invitation asked ` +
    `(which may not have landed), so someone else made them members: ${left.join(", ")}. To remove them, remove them in the service.`
  );
}

/** A destroy leaves the `left` adopted members of integration `id` as they are. */
export function adoptedMembersLeft(id: string, left: readonly string[]): string {
  return (
    `Integration ${id}: ${left.length} adopted member(s) left as they are (they were members before this resource managed them): ` +
    `${left.join(", ")}. To remove them on destroy, set deleteOnDestroy: true on the resource and run pulumi up first.`
  );
}
