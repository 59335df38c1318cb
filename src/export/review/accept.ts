/**
 * `--accept`, a pure function: what the review compares comes from the workspace, the rest stays as the file has
 * it, so that a diff of the file shows only the records that differ: a record without difference is kept as
 * written (its email's case too, its id recorded where it had none), and so are the resource names (Pulumi would take
 * a renamed entry for a new one). A user is the file's user of the id it records, else of the same email as the review's
 * `mayMatchByEmail` allows: one whose email changed keeps their record, and only the email changes, theirs and their
 * memberships'.
 */
import { emailKey } from "../../client/models";
import { sameSet } from "../../shared/inputs";
import type { AccessFile, AccessIntegration, AccessLeftOut, AccessMember, AccessUser } from "../access-file";
import { byKey } from "../names";
import { declaredIn, declaredSide } from "./left-out";
import { listedIdsOf, matchUsers, memberEmailsNow } from "./match";

/** A name not in `taken`: `name`, else `name-2`, `name-3`, ... */
function free(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}-${n}`;
  taken.add(candidate);
  return candidate;
}

/**
 * Whether the file's user `a` holds what the workspace's `b` does, as the review compares them: an id, a role and a guest
 * flag only where the file records one (one left out is the service's, never written).
 */
const sameUser = (a: AccessUser, b: AccessUser) =>
  a.firstName === b.firstName &&
  a.lastName === b.lastName &&
  (a.role === undefined || a.role === b.role) &&
  (a.isGuest === undefined || a.isGuest === b.isGuest) &&
  (a.id === undefined || a.id === b.id);

const sameMember = (a: AccessMember, b: AccessMember) => a.role === b.role && sameSet(a.entitlements, b.entitlements);

/** The users of the accepted file: the workspace's, under the names (and emails, where the same) the file has for them. */
function acceptedUsers(live: AccessFile, then: ReadonlyMap<AccessUser, AccessUser>): AccessUser[] {
  const taken = new Set(live.users.flatMap((u) => then.get(u)?.name ?? []));
  return live.users
    .map((user) => {
      const was = then.get(user);
      if (!was) return { ...user, name: free(user.name, taken) };
      // The file's spelling of the email, unless the workspace's user has another.
      const email = emailKey(was.email) === emailKey(user.email) ? was.email : user.email;
      // A user added by hand has no id recorded: the workspace's is taken in (the `sets` shape declares members by it).
      if (sameUser(was, user) && email === was.email) return was.id === undefined && user.id !== undefined ? { ...was, id: user.id } : was;
      // A role or guest flag the file leaves out stays out: taking one in would make the project manage it. One the workspace
      // does not tell (a guest flag left out beside a guest role: absent in `live`, as the export writes it) goes: a `User` would write it.
      const kept = (key: "role" | "isGuest") => (was[key] === undefined ? { [key]: undefined } : {});
      return { ...user, name: was.name, email, ...kept("role"), ...kept("isGuest") };
    })
    .sort(byKey((u) => `${emailKey(u.email)}\u0000${u.email}`));
}

/** The integrations of the accepted file: the workspace's members, as the file writes those that do not differ. */
function acceptedIntegrations(
  recorded: AccessFile,
  live: AccessFile,
  users: AccessUser[],
  matched: ReadonlyMap<AccessUser, AccessUser>,
): AccessIntegration[] {
  const emailNow = memberEmailsNow(recorded.users, live.users, matched);
  const then = new Map(recorded.integrations.map((i) => [i.id, i]));
  const emails = new Map(users.map((u) => [emailKey(u.email), u.email]));
  const taken = new Set(live.integrations.flatMap((i) => then.get(i.id)?.name ?? []));
  return live.integrations
    .map((integration) => {
      const was = then.get(integration.id);
      // A member by its user's email in the workspace (the file's user given a new email is the same member); one whose user
      // the workspace no longer has, their email another user's now, is no member there.
      const members = new Map(
        (was?.members ?? []).flatMap((m) => {
          const key = emailNow(m.user);
          return key === undefined ? [] : [[key, m] as const];
        }),
      );
      const accepted = integration.members.map((member) => {
        const old = members.get(emailKey(member.user));
        const kept = old && sameMember(old, member) ? old : member;
        return { ...kept, user: emails.get(emailKey(member.user)) ?? kept.user };
      });
      return {
        ...integration,
        name: was ? was.name : free(integration.name, taken),
        members: accepted.sort(byKey((m) => emailKey(m.user))),
      };
    })
    .sort(byKey((i) => i.name));
}

/**
 * The records the workspace leaves out now (`leftOut`) that `recorded` declares (the user, a member, the integration):
 * the workspace still has them. Taking its side would drop their entries, and the next `pulumi up` would then remove
 * what it can (an `IntegrationMembers` removes a member it no longer lists): `--accept` refuses instead.
 */
export function declaredLeftOut<T extends AccessLeftOut>(recorded: AccessFile, leftOut: readonly T[], listedIds: ReadonlySet<string>): T[] {
  const side = declaredSide(recorded, listedIds);
  return leftOut.filter((record) => declaredIn(side, record, "workspace") !== undefined);
}

/**
 * `recorded` with the workspace's users, members and left-out records (`live`) taken in, under the names `recorded` has;
 * `listed`: the ids (`idOf`) of every user the workspace lists, beyond `live` (`listedIdsOf`).
 */
export function acceptAccess(recorded: AccessFile, live: AccessFile, listed?: ReadonlySet<string>): AccessFile {
  // The file's user each of the workspace's is: once, for the users and their memberships alike.
  const matched = matchUsers(recorded.users, live.users, listedIdsOf(live, listed));
  const users = acceptedUsers(live, matched);
  return {
    version: recorded.version,
    workspace: recorded.workspace ?? live.workspace,
    scope: recorded.scope,
    users,
    integrations: acceptedIntegrations(recorded, live, users, matched),
    leftOut: live.leftOut,
  };
}
