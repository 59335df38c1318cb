/**
 * The refusals and per-member failures an {@link IntegrationMembers} plan can reach: the last
 * owner guard (a whole operation refused), and the role a member has that the program does not
 * expect (that member alone fails). Messages name the integration, the users and the fix.
 */
import { idOf } from "../../client/ids";
import { ConfigurationError } from "../../client";
import type { MemberInputs } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";

const OWNER = "account_owner";

/**
 * Refuses removing `removed` (user keys, see {@link idOf}) out of `members` (everyone the
 * integration has) when no member known to hold the owner role would be left and they include an
 * owner or a member whose role is unknown (`null`: a record that could not be read, or a role this
 * package does not know), who may be the owner. A role change from owner counts: the member is
 * removed before being invited again.
 */
export function guardLastOwner(
  integrationId: string,
  members: Iterable<Pick<IntegrationMemberState, "userId" | "role">>,
  removed: ReadonlySet<string>,
): void {
  const all = [...new Map([...members].map((m) => [idOf(m.userId), m])).values()];
  const gone = (m: { userId: string }) => removed.has(idOf(m.userId));
  const owners = all.filter((m) => m.role === OWNER);
  if (owners.some((m) => !gone(m))) return;
  const unknown = all.filter((m) => m.role === null && gone(m)).map((m) => m.userId);
  const ownerIds = owners.map((m) => m.userId);
  if (ownerIds.length === 0 && unknown.length === 0) return;
  const users = (ids: readonly string[]) => (ids.length === 1 ? `user ${ids[0]}` : `users ${ids.join(", ")}`);
  const who = [
    ...(ownerIds.length > 0
      ? [`${users(ownerIds)}, ${ownerIds.length === 1 ? "the last member" : "every member"} with the owner role`]
      : []),
    ...(unknown.length > 0 ? [`${users(unknown)}, whose role is unknown,`] : []),
  ];
  const why =
    unknown.length > 0
      ? `no member known to hold the owner role would be left, and ${unknown.length === 1 ? "that user" : "those users"} may be its owner (a role is unknown when the service's record of the member could not be read, or names a role this package does not know). `
      : "the integration would be left without an owner. ";
  throw new ConfigurationError(
    `Refusing to remove ${who.join(" and ")} of integration ${integrationId}: ${why}` +
      'Nothing was changed. Add another member with role: "account_owner" first, keep this one in members (with its role), or, to stop managing the members without removing them, remove the resource from the stack\'s state (pulumi state delete).',
    "members",
  );
}

/** A managed member whose role the service changed since the state was read: not changed back unseen. */
export function roleDrift(declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(
    `the service changed the role of user ${declared.userId} to ${current} since the state was last read, and the plan did not show changing it back to ${declared.role} (which removes the member and invites them again). Nothing was done to this member: run pulumi refresh, whose next plan shows the change, then pulumi up; or declare role: "${current}" to keep it.`,
    "members",
  );
}

/** A declared role that differs from the one of a membership taken over: adoption never removes anyone. */
export function roleMismatch(integrationId: string, declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(
    `User ${declared.userId} is already a member of integration ${integrationId} as ${current}, but members declares role ${declared.role}. The API cannot change a member's role in place, and a create does not remove anyone: declare role: "${current}" (or leave role out) to adopt the membership as it is, then change the role in a later update (which removes and invites the member again).`,
    "members",
  );
}

/** An invitation whose job finished but whose membership is not what was asked (a service that merged it into an existing one, say). */
export function notAsInvited(
  integrationId: string,
  asked: { userId: string; role: string; entitlements: readonly string[] },
  found: Pick<IntegrationMemberState, "role" | "entitlements">,
): Error {
  return new Error(
    `the invitation of user ${asked.userId} to integration ${integrationId} as ${asked.role} with [${asked.entitlements.join(", ")}] finished, but the service now has them as ${found.role ?? "an unknown role"} with [${found.entitlements.join(", ")}] (an invitation of someone who is already a member may be merged into their membership). The state records what was found; check the member, then run pulumi up again.`,
  );
}
