/**
 * The users an export writes: each id once (copies that differ are left out), each checked with
 * the `User` input schema the resource's `check` uses, and none of those whose emails differ only
 * in case. The rest are left out, with the reason.
 */
import { userInputs } from "../shared/inputs";
import type { AccessUser } from "./access-file";
import type { LeftOutList } from "./build-left-out";
import { byKey, emailKey, uniqueNames, userBaseName } from "./names";
import { repeatDifference, type Snapshot, type SnapshotUser } from "./snapshot";

const USER_FIELDS = ["email", "firstName", "lastName", "role", "isGuest"] as const;

/**
 * Each id once, in the order first seen. Identical repeats are dropped; an id whose copies differ
 * goes to `differing` with the reason, and is not returned.
 */
export function oncePerId<T extends { id: string }>(
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

/** Why a user cannot be declared, or undefined when it can. */
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

/** The users that can be declared (by id), and why each other one cannot (`problems`, by id). */
export interface BuiltUsers {
  exported: Map<string, SnapshotUser>;
  problems: Map<string, string>;
  users: AccessUser[];
}

/**
 * The users of the file. `problems` holds the users already known bad (a copy that broke the
 * contract); `membersOnly` keeps only the users with a membership in scope.
 */
export function buildUsers(snapshot: Snapshot, membersOnly: boolean, problems: Map<string, string>, leftOut: LeftOutList): BuiltUsers {
  // Users with a membership in scope (any: even one that cannot be written still grants access).
  const members = new Set<string>();
  for (const { members: list } of snapshot.integrations) for (const m of list) members.add(m.id);
  const users = oncePerId(snapshot.users, USER_FIELDS);
  for (const { record: user, reason } of users.differing) {
    if (membersOnly && !members.has(user.id)) continue;
    problems.set(user.id, reason);
    // Which copy's role is right would be a guess: none is recorded.
    leftOut.user(user.id, user.email, reason);
  }
  const exported = new Map<string, SnapshotUser>();
  for (const user of users.unique) {
    if (membersOnly && !members.has(user.id)) continue;
    // Another copy of it broke the contract: left out, and listed already.
    if (problems.has(user.id)) continue;
    const problem = userProblem(user);
    if (problem) {
      problems.set(user.id, problem);
      leftOut.user(user.id, user.email, problem, user);
    } else {
      exported.set(user.id, user);
    }
  }
  leaveOutCaseTwins(exported, problems, leftOut);
  return { exported, problems, users: accessUsers(exported) };
}

/**
 * access.yaml tells users apart by email, case-insensitively (as the service compares emails),
 * and their resource names come from it: of users whose emails differ only in case, none can be
 * declared beside another, and which one to keep would be a guess. Each of them is left out.
 */
function leaveOutCaseTwins(exported: Map<string, SnapshotUser>, problems: Map<string, string>, leftOut: LeftOutList): void {
  const byEmail = new Map<string, SnapshotUser[]>();
  for (const user of exported.values()) byEmail.set(emailKey(user.email!), [...(byEmail.get(emailKey(user.email!)) ?? []), user]);
  for (const group of byEmail.values()) {
    if (group.length < 2) continue;
    for (const user of group) {
      const others = group.filter((u) => u !== user).map((u) => u.id);
      const problem = `another user has the same email but for case (${others.join(", ")}): access.yaml tells users apart by email, case-insensitively`;
      exported.delete(user.id);
      problems.set(user.id, problem);
      leftOut.user(user.id, user.email, problem, user);
    }
  }
}

/** The file's users, named and sorted by email. */
function accessUsers(exported: Map<string, SnapshotUser>): AccessUser[] {
  const userNames = uniqueNames([...exported.values()].map((u) => ({ key: emailKey(u.email!), base: userBaseName(u.email!) })));
  return [...exported.values()]
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
}
