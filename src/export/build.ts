/**
 * Turns what was read into `access.yaml`'s data: every user and membership a program can declare so that its
 * first `pulumi up` adopts it without a write, and what it cannot, with the reason. Each record is checked with
 * the schemas the resources' `check` uses, and written whole or left out whole (a membership with its user).
 * A record listed twice is written once when the copies agree, and left out when they differ or one copy broke
 * the contract: which copy is right would be a guess.
 */
import { idOf } from "../client";
import { emailKey } from "../client/models";
import { integrationEntitlementInputs, inviteRole, userInputs } from "../shared/inputs";
import { ACCESS_FILE_VERSION, type AccessFile, type AccessIntegration, type AccessUser, sortedLeftOut } from "./access-file";
import { type LeftOut, LeftOutList } from "./build-left-out";
import { byKey, integrationBaseName, uniqueNames, userBaseName } from "./names";
import { oncePerId, type Snapshot, type SnapshotMember, type SnapshotUser } from "./snapshot";

/** The integration id a resource declares: the inputs' rule. */
const integrationId = integrationEntitlementInputs.shape.integrationId;

const memberKey = (integrationId: string, userId: string) => `${integrationId}\u0000${userId}`;

/**
 * The file's data from a snapshot, and what was left out; `unnamed`, the records left out that broke the contract (or whose
 * user's did) with no email that could be read: which user they are of cannot be told. `membersOnly` keeps only users with
 * a membership in scope.
 */
export function buildAccessFile(
  snapshot: Snapshot,
  options: { workspace: string; scopeIds: string[] | undefined; membersOnly: boolean },
): { file: AccessFile; leftOut: LeftOut[]; unnamed: LeftOut[] } {
  const leftOut = new LeftOutList(snapshot.integrations.map((i) => i.integration));
  const problems = new Map<string, string>();
  // Members whose record, or one copy of it, broke the contract.
  const invalidMembers = new Set<string>();
  // A record that broke the contract is named by its own email when that field could be read, else by its user's.
  const emails = new Map(snapshot.users.map((u) => [u.id, u.email]));
  for (const { what, id, email } of snapshot.invalid)
    if (what === "user" && id !== undefined && email && !emails.get(idOf(id))) emails.set(idOf(id), email);
  const emailOf = (record: { id: string | undefined; email?: string | undefined }) =>
    record.email ?? (record.id === undefined ? undefined : emails.get(idOf(record.id))) ?? null;
  for (const record of snapshot.invalid) {
    if (record.what === "user") {
      leftOut.user(record.id, emailOf(record), record.reason);
      if (record.id !== undefined) problems.set(record.id, "its record does not match the API contract");
    } else if (record.what === "integration") leftOut.integration(record);
    else {
      leftOut.member(record.id, emailOf(record), record.integration, record.reason);
      if (record.id !== undefined && record.integration) invalidMembers.add(memberKey(record.integration.id, record.id));
    }
  }
  const exported = buildUsers(snapshot, options.membersOnly, problems, leftOut);
  const integrations = buildIntegrations(snapshot, exported, problems, invalidMembers, leftOut);
  const sorted = leftOut.sorted();
  // The users whose record broke the contract with no email read: their records, and memberships without an email, are unnamed.
  const unreadable = new Set(snapshot.invalid.filter((r) => r.what === "user" && emailOf(r) === null).map((r) => r.id));
  const unnamed = sorted.filter(
    (l) =>
      l.kind !== "integration" &&
      l.email === undefined &&
      (l.id === undefined || unreadable.has(l.id) || (l.kind === "membership" && invalidMembers.has(memberKey(l.integration ?? "", l.id)))),
  );
  const file: AccessFile = {
    version: ACCESS_FILE_VERSION,
    workspace: options.workspace,
    scope: { ...(options.scopeIds ? { integrations: [...options.scopeIds].sort() } : {}), membersOnly: options.membersOnly },
    users: accessUsers(exported),
    integrations,
    // As the file writes them: those with neither id nor email as one record with their count (`leftOut` lists each).
    leftOut: sortedLeftOut(sorted),
  };
  return { file, leftOut: sorted, unnamed };
}

function userProblem(user: SnapshotUser): string | undefined {
  if (user.email === null || user.email.trim() === "") return "no email";
  if (user.firstName === null || user.firstName.trim() === "") return "no first name";
  if (user.lastName === null || user.lastName.trim() === "") return "no last name";
  const parsed = userInputs.safeParse({
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    ...(user.role ? { role: user.role } : {}),
    ...(user.isGuest === null ? {} : { isGuest: user.isGuest }),
    adoptExisting: true,
  });
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid User");
}

/** The users that can be declared, by id; why each other one cannot goes to `problems` (which holds those known bad already). */
function buildUsers(
  snapshot: Snapshot,
  membersOnly: boolean,
  problems: Map<string, string>,
  leftOut: LeftOutList,
): Map<string, SnapshotUser> {
  // Users with a membership in scope (any: even one that cannot be written, or whose record broke the contract, still grants access).
  const members = new Set(snapshot.integrations.flatMap(({ members }) => members.map((m) => m.id)));
  for (const { what, id } of snapshot.invalid) if (what === "member" && id !== undefined) members.add(idOf(id));
  const inScope = (user: SnapshotUser) => !membersOnly || members.has(user.id);
  const users = oncePerId(snapshot.users, ["email", "firstName", "lastName", "role", "isGuest"]);
  for (const { record: user, reason } of users.differing.filter(({ record }) => inScope(record))) {
    problems.set(user.id, reason);
    leftOut.user(user.id, user.email, reason);
  }
  const exported = new Map<string, SnapshotUser>();
  for (const user of users.unique.filter((u) => inScope(u) && !problems.has(u.id))) {
    const problem = userProblem(user);
    if (problem === undefined) exported.set(user.id, user);
    else {
      problems.set(user.id, problem);
      leftOut.user(user.id, user.email, problem, user);
    }
  }
  // Of users whose emails differ only in case (access.yaml tells users apart as the service does), keeping one would be a guess.
  // Among every user read, one left out for another reason too: a `User` (or `WorkspaceUsers`) searching for the email would
  // find both, and its first `up` would fail on the one the export wrote.
  const byEmail = new Map<string, string[]>();
  for (const { id, email } of [...users.unique, ...users.differing.map(({ record }) => record)]) {
    if (email === null || email.trim() === "") continue;
    const ids = byEmail.get(emailKey(email)) ?? [];
    if (!ids.includes(id)) byEmail.set(emailKey(email), [...ids, id]);
  }
  for (const ids of [...byEmail.values()].filter((g) => g.length > 1)) {
    for (const user of ids.flatMap((id) => exported.get(id) ?? [])) {
      const others = ids.filter((id) => id !== user.id);
      const problem = `another user has the same email but for case (${others.join(", ")}): access.yaml tells users apart by email, case-insensitively`;
      exported.delete(user.id);
      problems.set(user.id, problem);
      leftOut.user(user.id, user.email, problem, user);
    }
  }
  return exported;
}

function accessUsers(exported: Map<string, SnapshotUser>): AccessUser[] {
  const users = [...exported.values()];
  const names = uniqueNames(users.map((u) => ({ key: emailKey(u.email!), base: userBaseName(u.email!) })));
  return users
    .map((u) => ({
      name: names.get(emailKey(u.email!))!,
      email: u.email!,
      firstName: u.firstName!,
      lastName: u.lastName!,
      ...(u.role ? { role: u.role } : {}),
      ...(u.isGuest === null ? {} : { isGuest: u.isGuest }),
      id: u.id,
    }))
    .sort(byKey((u) => `${emailKey(u.email)}\u0000${u.email}`));
}

function memberProblem(member: SnapshotMember, integrationId: string, exported: Map<string, SnapshotUser>, problems: Map<string, string>) {
  const userProblem = problems.get(member.id);
  if (userProblem) return `its user is left out (${userProblem})`;
  if (!exported.has(member.id)) return "not a user of the workspace's user list";
  const role = inviteRole(member.role);
  if (role === undefined) return member.role ? `role "${member.role}" is neither owner nor collaborator` : "no role";
  const entitlements = member.entitlements;
  if (entitlements === null) return "its entitlements are not known (the service's record leaves them out)";
  if (entitlements.length === 0) return "no entitlements (an IntegrationEntitlement declares at least one)";
  const parsed = integrationEntitlementInputs.safeParse({ integrationId, userId: member.id, entitlements, role, adoptExisting: true });
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid IntegrationEntitlement");
}

/** The integrations of the file with their members, each integration and member once. */
function buildIntegrations(
  snapshot: Snapshot,
  exported: Map<string, SnapshotUser>,
  problems: Map<string, string>,
  invalidMembers: ReadonlySet<string>,
  leftOut: LeftOutList,
): AccessIntegration[] {
  const listed = new Set<string>();
  const lists = snapshot.integrations.filter(({ integration, members }) => {
    if (listed.has(integration.id)) return false;
    listed.add(integration.id);
    // An id no resource can declare (not a UUID): the integration is left out whole, and so are its members.
    const undeclarable = integrationId.safeParse(integration.id).error?.issues[0]?.message;
    if (undeclarable === undefined) return true;
    leftOut.integration({ what: "integration", id: integration.id, integration, reason: undeclarable });
    for (const m of members)
      leftOut.member(m.id, exported.get(m.id)?.email ?? m.email, integration, `its integration is left out (${undeclarable})`, m);
    return false;
  });
  const names = uniqueNames(lists.map(({ integration: i }) => ({ key: i.id, base: integrationBaseName(i) })));
  const integrations = lists.map(({ integration, members: list }): AccessIntegration => {
    const emailOf = (member: SnapshotMember) => exported.get(member.id)?.email ?? member.email;
    const once = oncePerId(list, ["email", "role", "entitlements"]);
    for (const { record, reason } of once.differing) leftOut.member(record.id, emailOf(record), integration, reason);
    const members = [];
    // A member with an invalid copy is listed already.
    for (const member of once.unique.filter((m) => !invalidMembers.has(memberKey(integration.id, m.id)))) {
      const problem = memberProblem(member, integration.id, exported, problems);
      if (problem) leftOut.member(member.id, emailOf(member), integration, problem, member);
      else
        members.push({
          user: exported.get(member.id)!.email!,
          role: inviteRole(member.role)!,
          entitlements: [...(member.entitlements ?? [])].sort(),
        });
    }
    return {
      name: names.get(integration.id)!,
      id: integration.id,
      // Empty is absent, as the reader takes it: the program declares neither.
      ...(integration.label ? { label: integration.label } : {}),
      ...(integration.application ? { application: integration.application } : {}),
      members: members.sort(byKey((m) => emailKey(m.user))),
    };
  });
  return integrations.sort(byKey((i) => i.name));
}
