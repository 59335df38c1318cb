/**
 * The refusals and per-member failures an {@link IntegrationMembers} plan can reach: the last
 * owner guard (a whole operation refused), and the role a member has that the program does not
 * expect (that member alone fails). Messages name the integration, the users and the fix.
 */
import { idOf } from "../../client/ids";
import { ConfigurationError } from "../../client";
import type { MemberInputs } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";
import * as messages from "./messages";

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
  throw new ConfigurationError(messages.lastOwnerRefusal(integrationId, ownerIds, unknown), "members");
}

/** A managed member whose role the service changed since the state was read: not changed back unseen. */
export function roleDrift(declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(messages.roleDrift(declared.userId, current, declared.role), "members");
}

/** A declared role that differs from the one of a membership taken over: adoption never removes anyone. */
export function roleMismatch(integrationId: string, declared: MemberInputs, current: string | null): ConfigurationError {
  return new ConfigurationError(messages.roleMismatch(integrationId, declared.userId, current, declared.role), "members");
}

/** An invitation whose job finished but whose membership is not what was asked (a service that merged it into an existing one, say). */
export function notAsInvited(
  integrationId: string,
  asked: { userId: string; role: string; entitlements: readonly string[] },
  found: Pick<IntegrationMemberState, "role" | "entitlements">,
): Error {
  return new Error(messages.notAsInvited(integrationId, asked.userId, asked, found));
}
