/**
 * The memberships an export writes: each integration once, each member once (copies that differ
 * are left out), each checked with the `IntegrationEntitlement` input schema the resource's
 * `check` uses; a member whose user is left out is left out too.
 */
import { integrationEntitlementInputs, inviteRole } from "../shared/inputs";
import type { AccessIntegration, AccessMember } from "./access-file";
import type { LeftOutList } from "./build-left-out";
import { oncePerId } from "./build-users";
import { byKey, emailKey, integrationBaseName, uniqueNames } from "./names";
import type { Snapshot, SnapshotMember, SnapshotUser } from "./snapshot";

const MEMBER_FIELDS = ["email", "role", "entitlements"] as const;

/** Members (by integration id, then user id). */
export const memberKey = (integrationId: string, userId: string) => `${integrationId}\u0000${userId}`;

/** Why a membership cannot be declared, or undefined when it can. */
function memberProblem(
  member: SnapshotMember,
  integrationId: string,
  exported: Map<string, SnapshotUser>,
  userProblems: Map<string, string>,
): string | undefined {
  const userProblem = userProblems.get(member.id);
  if (userProblem) return `its user is left out (${userProblem})`;
  if (!exported.has(member.id)) return "not a user of the workspace's user list";
  const role = inviteRole(member.role);
  if (role === undefined) return member.role === null ? "no role" : `role "${member.role}" is neither owner nor collaborator`;
  if (member.entitlements.length === 0) return "no entitlements (an IntegrationEntitlement declares at least one)";
  const parsed = integrationEntitlementInputs.safeParse({
    integrationId,
    userId: member.id,
    entitlements: member.entitlements,
    role,
    adoptExisting: true,
  });
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid IntegrationEntitlement");
}

/**
 * The integrations of the file with their members. `invalidMembers`: the members (by
 * {@link memberKey}) with a copy that broke the contract, left out already.
 */
export function buildIntegrations(
  snapshot: Snapshot,
  users: { exported: Map<string, SnapshotUser>; problems: Map<string, string> },
  invalidMembers: ReadonlySet<string>,
  leftOut: LeftOutList,
): AccessIntegration[] {
  const { exported, problems } = users;
  // Each integration once (the read keeps one already; a repeat here is ignored, never written twice).
  const listed = new Set<string>();
  const lists = snapshot.integrations.filter(({ integration: { id } }) => !listed.has(id) && listed.add(id));
  const integrationNames = uniqueNames(lists.map(({ integration: i }) => ({ key: i.id, base: integrationBaseName(i) })));
  const integrations: AccessIntegration[] = [];
  for (const { integration, members: list } of lists) {
    const entry: AccessIntegration = { name: integrationNames.get(integration.id)!, id: integration.id, members: [] };
    if (integration.label !== null) entry.label = integration.label;
    if (integration.application !== null) entry.application = integration.application;
    const once = oncePerId(list, MEMBER_FIELDS);
    for (const { record: member, reason } of once.differing) {
      // Which copy's role and entitlements are right would be a guess: none is recorded.
      leftOut.member(member.id, exported.get(member.id)?.email ?? member.email, integration, reason);
    }
    for (const member of once.unique) {
      // Another copy of it broke the contract: left out, and listed already.
      if (invalidMembers.has(memberKey(integration.id, member.id))) continue;
      const problem = memberProblem(member, integration.id, exported, problems);
      if (problem) {
        leftOut.member(member.id, exported.get(member.id)?.email ?? member.email, integration, problem, member);
        continue;
      }
      const user = exported.get(member.id)!;
      const item: AccessMember = { user: user.email!, role: inviteRole(member.role)!, entitlements: [...member.entitlements].sort() };
      entry.members.push(item);
    }
    entry.members.sort(byKey((m) => emailKey(m.user)));
    integrations.push(entry);
  }
  return integrations.sort(byKey((i) => i.name));
}
