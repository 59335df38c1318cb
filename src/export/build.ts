/**
 * Turns what was read into `access.yaml`'s data: every user and membership a program can declare
 * so that its first `pulumi up` adopts it without a write, and a list of what it cannot, each with
 * the reason. A record is checked with the same input schemas the resources' `check` uses (a name
 * the provider would refuse is refused here, not at preview), and is either written whole or left
 * out whole: a membership whose user is left out is left out too. A record the service listed
 * twice (offset paging shifting under a change, or a repeat) is written once when the copies
 * agree, and left out when they differ, or when one copy broke the contract: which copy is right
 * would be a guess.
 *
 * What adoption needs, so that it sends nothing:
 * - a user's email, first and last name exactly as the service has them (a `User` compares them);
 *   its role and guest flag as read, or left out when the service reports none (then kept);
 * - a member's role as the invite names it: the API reads `owner`/`collaborator`, a create that
 *   declares anything else fails (the API cannot change a role in place); its entitlements as the
 *   exact set it holds, at least one (a resource must declare some).
 */
import { integrationEntitlementInputs, inviteRole, userInputs } from "../resources/inputs";
import {
  ACCESS_FILE_VERSION,
  type AccessFile,
  type AccessIntegration,
  type AccessLeftOut,
  type AccessMember,
  type AccessUser,
} from "./access-file";
import { byKey, emailKey, integrationBaseName, uniqueNames, userBaseName } from "./names";
import { repeatDifference, type Snapshot, type SnapshotMember, type SnapshotUser } from "./snapshot";

const USER_FIELDS = ["email", "firstName", "lastName", "role", "isGuest"] as const;
const MEMBER_FIELDS = ["email", "role", "entitlements"] as const;

/**
 * Each id once, in the order first seen. Identical repeats are dropped; an id whose copies differ
 * goes to `differing` with the reason, and is not returned.
 */
function oncePerId<T extends { id: string }>(
  records: readonly T[],
  fields: ReadonlyArray<keyof T & string>,
): { unique: T[]; differing: Array<{ record: T; reason: string }> } {
  const first = new Map<string, T>();
  const reasons = new Map<string, string>();
  for (const record of records) {
    const seen = first.get(record.id);
    if (!seen) first.set(record.id, record);
    else if (!reasons.has(record.id)) {
      const reason = repeatDifference(seen, record, fields);
      if (reason !== undefined) reasons.set(record.id, reason);
    }
  }
  return {
    unique: [...first.values()].filter((r) => !reasons.has(r.id)),
    differing: [...reasons].map(([id, reason]) => ({ record: first.get(id)!, reason })),
  };
}

/** A user or membership the export could not represent, and why. */
export interface LeftOut {
  kind: "user" | "membership" | "integration";
  /** The user's id (the integration's, for an integration). */
  id: string | undefined;
  email: string | null;
  /** For a membership: the integration's label (else id); for an integration, its label if known. */
  integration?: string;
  /** For a membership: the integration's id. */
  integrationId?: string;
  /**
   * For a record read whole: a membership's role as the service reports it and its entitlements;
   * a user's workspace role and guest flag (null: not reported).
   */
  role?: string | null;
  entitlements?: string[];
  isGuest?: boolean | null;
  reason: string;
  /** One line for people: `user 7a5e… <ann@acme.example>: no first name`. */
  text: string;
}

/** Integrations first, then users, then memberships. */
const KIND_ORDER: Record<LeftOut["kind"], number> = { integration: 0, user: 1, membership: 2 };

/** The file's data and what was left out. */
export interface Built {
  file: AccessFile;
  leftOut: LeftOut[];
}

/** Why a user cannot be declared, or undefined when it can. */
function userProblem(user: SnapshotUser, schemas: InputSchemas): string | undefined {
  if (user.email === null || user.email.trim() === "") return "no email";
  if (user.firstName === null || user.firstName.trim() === "") return "no first name";
  if (user.lastName === null || user.lastName.trim() === "") return "no last name";
  const parsed = schemas.user.safeParse({
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    ...(user.role ? { role: user.role } : {}),
    ...(user.isGuest === null ? {} : { isGuest: user.isGuest }),
    adoptExisting: true,
  });
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid User");
}

/** The input schemas of the resources' `check`. */
interface InputSchemas {
  user: typeof userInputs;
  membership: typeof integrationEntitlementInputs;
}

/** Builds the file's data from a snapshot. `membersOnly` keeps only users with a membership in scope. */
export function buildAccessFile(
  snapshot: Snapshot,
  options: { workspace: string; scopeIds: string[] | undefined; membersOnly: boolean },
): Built {
  const schemas: InputSchemas = { user: userInputs, membership: integrationEntitlementInputs };
  const leftOut: LeftOut[] = [];
  const describeUser = (id: string | undefined, email: string | null) => `${id ?? "(no id)"}${email ? ` <${email}>` : ""}`;
  const leaveOutUser = (id: string | undefined, email: string | null, reason: string, user?: SnapshotUser) =>
    leftOut.push({
      kind: "user",
      id,
      email,
      ...(user ? { role: user.role, isGuest: user.isGuest } : {}),
      reason,
      text: `user ${describeUser(id, email)}: ${reason}`,
    });
  const labelOf = (i: { id: string; label: string | null }) => i.label ?? i.id;
  const leaveOutMember = (
    id: string | undefined,
    email: string | null,
    integration: { id: string; label: string | null } | undefined,
    reason: string,
    member?: SnapshotMember,
  ) => {
    const label = integration ? labelOf(integration) : "?";
    leftOut.push({
      kind: "membership",
      id,
      email,
      integration: label,
      ...(integration ? { integrationId: integration.id } : {}),
      ...(member ? { role: member.role, entitlements: member.entitlements } : {}),
      reason,
      text: `membership of ${describeUser(id, email)} in "${label}": ${reason}`,
    });
  };

  const problems = new Map<string, string>();
  // Members (by integration id, then user id) whose record, or one copy of it, broke the contract.
  const invalidMembers = new Set<string>();
  const memberKey = (integrationId: string, userId: string) => `${integrationId}\u0000${userId}`;
  for (const record of snapshot.invalid) {
    if (record.what === "user") {
      leaveOutUser(record.id, null, record.reason);
      if (record.id !== undefined) problems.set(record.id, "its record does not match the API contract");
    } else if (record.what === "integration") {
      const label = record.integration?.label ?? undefined;
      leftOut.push({
        kind: "integration",
        id: record.id,
        email: null,
        ...(label === undefined ? {} : { integration: label }),
        reason: record.reason,
        text: `integration ${record.id ?? "(no id)"}${label === undefined ? "" : ` ("${label}")`}: ${record.reason}`,
      });
    } else if (record.id !== undefined && record.integration) {
      invalidMembers.add(memberKey(record.integration.id, record.id));
    }
  }

  // Users with a membership in scope (any: even one that cannot be written still grants access).
  const members = new Set<string>();
  for (const { members: list } of snapshot.integrations) for (const m of list) members.add(m.id);

  const users = oncePerId(snapshot.users, USER_FIELDS);
  for (const { record: user, reason } of users.differing) {
    if (options.membersOnly && !members.has(user.id)) continue;
    problems.set(user.id, reason);
    // Which copy's role is right would be a guess: none is recorded.
    leaveOutUser(user.id, user.email, reason);
  }
  const exported = new Map<string, SnapshotUser>();
  for (const user of users.unique) {
    if (options.membersOnly && !members.has(user.id)) continue;
    // Another copy of it broke the contract: left out, and listed already.
    if (problems.has(user.id)) continue;
    const problem = userProblem(user, schemas);
    if (problem) {
      problems.set(user.id, problem);
      leaveOutUser(user.id, user.email, problem, user);
    } else {
      exported.set(user.id, user);
    }
  }
  // access.yaml tells users apart by email, case-insensitively (as the service compares emails),
  // and their resource names come from it: of users whose emails differ only in case, none can be
  // declared beside another, and which one to keep would be a guess. Each of them is left out.
  const byEmail = new Map<string, SnapshotUser[]>();
  for (const user of exported.values()) byEmail.set(emailKey(user.email!), [...(byEmail.get(emailKey(user.email!)) ?? []), user]);
  for (const group of byEmail.values()) {
    if (group.length < 2) continue;
    for (const user of group) {
      const others = group.filter((u) => u !== user).map((u) => u.id);
      const problem = `another user has the same email but for case (${others.join(", ")}): access.yaml tells users apart by email, case-insensitively`;
      exported.delete(user.id);
      problems.set(user.id, problem);
      leaveOutUser(user.id, user.email, problem, user);
    }
  }
  const userNames = uniqueNames([...exported.values()].map((u) => ({ key: emailKey(u.email!), base: userBaseName(u.email!) })));
  const accessUsers: AccessUser[] = [...exported.values()]
    .map((u) => {
      const user: AccessUser = {
        name: userNames.get(emailKey(u.email!))!,
        email: u.email!,
        firstName: u.firstName!,
        lastName: u.lastName!,
      };
      if (u.role) user.role = u.role;
      if (u.isGuest !== null) user.isGuest = u.isGuest;
      return user;
    })
    .sort(byKey((u) => `${emailKey(u.email)}\u0000${u.email}`));

  // A member record that broke the contract, listed with its user's email when the user is known.
  const emails = new Map(snapshot.users.map((u) => [u.id, u.email]));
  for (const record of snapshot.invalid) {
    if (record.what !== "member") continue;
    leaveOutMember(record.id, (record.id === undefined ? undefined : emails.get(record.id)) ?? null, record.integration, record.reason);
  }

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
      leaveOutMember(member.id, exported.get(member.id)?.email ?? member.email, integration, reason);
    }
    for (const member of once.unique) {
      // Another copy of it broke the contract: left out, and listed already.
      if (invalidMembers.has(memberKey(integration.id, member.id))) continue;
      const problem = memberProblem(member, integration.id, exported, problems, schemas);
      if (problem) {
        leaveOutMember(member.id, exported.get(member.id)?.email ?? member.email, integration, problem, member);
        continue;
      }
      const user = exported.get(member.id)!;
      const item: AccessMember = { user: user.email!, role: inviteRole(member.role)!, entitlements: [...member.entitlements].sort() };
      entry.members.push(item);
    }
    entry.members.sort(byKey((m) => emailKey(m.user)));
    integrations.push(entry);
  }
  integrations.sort(byKey((i) => i.name));
  leftOut.sort(
    byKey(
      (l) => `${KIND_ORDER[l.kind]}\u0000${l.integration ?? ""}\u0000${l.email?.toLowerCase() ?? ""}\u0000${l.id ?? ""}\u0000${l.reason}`,
    ),
  );

  const file: AccessFile = {
    version: ACCESS_FILE_VERSION,
    workspace: options.workspace,
    scope: { ...(options.scopeIds ? { integrations: [...options.scopeIds].sort() } : {}), membersOnly: options.membersOnly },
    users: accessUsers,
    integrations,
    leftOut: leftOut.map(recordedLeftOut),
  };
  return { file, leftOut };
}

/** Why a membership cannot be declared, or undefined when it can. */
function memberProblem(
  member: SnapshotMember,
  integrationId: string,
  exported: Map<string, SnapshotUser>,
  userProblems: Map<string, string>,
  schemas: InputSchemas,
): string | undefined {
  const userProblem = userProblems.get(member.id);
  if (userProblem) return `its user is left out (${userProblem})`;
  if (!exported.has(member.id)) return "not a user of the workspace's user list";
  const role = inviteRole(member.role);
  if (role === undefined) return member.role === null ? "no role" : `role "${member.role}" is neither owner nor collaborator`;
  if (member.entitlements.length === 0) return "no entitlements (an IntegrationEntitlement declares at least one)";
  const parsed = schemas.membership.safeParse({
    integrationId,
    userId: member.id,
    entitlements: member.entitlements,
    role,
    adoptExisting: true,
  });
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid IntegrationEntitlement");
}

/** A left-out record as `access.yaml` keeps it (the file sorts them, one per key). */
export function recordedLeftOut(record: LeftOut): AccessLeftOut {
  return {
    kind: record.kind,
    ...(record.kind === "membership" && record.integrationId !== undefined ? { integration: record.integrationId } : {}),
    ...(record.id === undefined ? {} : { id: record.id }),
    ...(record.email === null ? {} : { email: record.email }),
    ...(record.role === undefined || record.role === null ? {} : { role: record.role }),
    ...(record.isGuest === undefined || record.isGuest === null ? {} : { isGuest: record.isGuest }),
    ...(record.entitlements === undefined ? {} : { entitlements: [...record.entitlements].sort() }),
    reason: record.reason,
  };
}
