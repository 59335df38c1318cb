/**
 * The review's users: one only a side has, and each attribute a project declares, an email among them where `access.yaml`
 * records the user's id. A user left out is the left-out part's.
 */
import { sameId } from "../../client";
import { emailKey } from "../../client/models";
import type { AccessUser } from "../access-file";
import { type AccessDifference, difference, leftOutOf, NOT_TOLD, type Sides, UNTOLD, untoldWhy, userValue } from "./differences";

/** The differences of the users of both sides. */
export function* userDifferences(sides: Sides): Iterable<AccessDifference> {
  for (const user of sides.live.users) {
    const was = sides.matched.get(user);
    if (was) yield* attributeDifferences(was, user);
    // Recorded as left out: the left-out part says what access.yaml records of it.
    else if (!leftOutOf(sides, "access.yaml", "user", user)) {
      const value = userValue(user);
      yield difference(
        { kind: "user", side: "workspace", user: user.email, workspace: value },
        `the workspace has user ${user.email} (${value}); access.yaml does not`,
      );
    }
  }
  const matched = new Set(sides.matched.values());
  for (const user of sides.recorded.users) {
    // Still there, in a form access.yaml cannot declare (a record that broke the contract, by its id): the left-out part says why.
    if (matched.has(user) || leftOutOf(sides, "workspace", "user", user)) continue;
    // Under --members-only, with members of the scope unread: they may hold a membership that was not read.
    if (sides.scopeUnread && sides.stillListed(user)) continue;
    const declares = `access.yaml declares user ${user.email} (${userValue(user)})`;
    const untold = sides.untold("user");
    if (!sides.stillListed(user) && untold.length > 0) {
      // A user record that broke the contract, its email unread, may be this user: no absence is claimed.
      yield difference(
        { kind: "user", side: "access.yaml", user: user.email, accessYaml: userValue(user), workspace: UNTOLD, untold: true },
        `${declares}; whether the workspace has them could not be told (${untoldWhy(untold)})`,
      );
      continue;
    }
    yield sides.stillListed(user)
      ? difference(
          { kind: "user", side: "access.yaml", user: user.email, accessYaml: userValue(user), workspace: "no membership in scope" },
          `${declares}; the workspace has them with no membership in scope (--members-only)`,
        )
      : difference(
          { kind: "user", side: "access.yaml", user: user.email, accessYaml: userValue(user) },
          `${declares}; the workspace has no such user`,
        );
  }
}

/** What differs of one user both sides have (`was`, `access.yaml`'s; `user`, the workspace's), named by the workspace's email. */
function* attributeDifferences(was: AccessUser, user: AccessUser): Iterable<AccessDifference> {
  const email = user.email;
  // An id recorded that the workspace's user of that email no longer has (deleted and made again): the `sets` shape declares members by it.
  if (was.id !== undefined && user.id !== undefined && !sameId(was.id, user.id)) {
    yield difference(
      { kind: "user-id", side: "both", user: email, accessYaml: was.id, workspace: user.id },
      `access.yaml records ${email} as the user ${was.id}; the workspace's ${email} is the user ${user.id}`,
    );
  }
  // The user of the id recorded, given another email (matched by the id): one person, whose email the program declares. An
  // email that differs in case alone is none, as a `User` compares emails.
  if (emailKey(was.email) !== emailKey(email) && user.id !== undefined) {
    yield difference(
      { kind: "user-email", side: "both", user: email, userId: user.id, accessYaml: was.email, workspace: email },
      `access.yaml records the user ${user.id} as ${was.email}; the workspace's user ${user.id} is ${email}`,
    );
  }
  const [then, now] = [`${was.firstName} ${was.lastName}`, `${user.firstName} ${user.lastName}`];
  if (was.firstName !== user.firstName || was.lastName !== user.lastName) {
    yield difference(
      { kind: "user-name", side: "both", user: email, accessYaml: then, workspace: now },
      `access.yaml names ${email} ${JSON.stringify(then)}; the workspace names them ${JSON.stringify(now)}`,
    );
  }
  const role = (value: string | undefined) => (value === undefined ? "no role" : `the role ${value}`);
  // A role or guest flag access.yaml leaves out is the service's, never written (a `User` keeps it): not compared.
  if (was.role !== undefined && was.role !== user.role) {
    yield difference(
      { kind: "user-role", side: "both", user: email, accessYaml: was.role ?? null, workspace: user.role ?? null },
      `access.yaml gives ${email} ${role(was.role)}; the workspace gives ${role(user.role)}`,
    );
  }
  // The flag as a `User` compares it (`COMPARED`, by `guestOf`): one the workspace's record leaves out beside a guest role, an
  // unlisted one, or no role, tells nothing (the export leaves it out of access.yaml), so no declared flag holds there and an `up` writes it.
  if (was.isGuest !== undefined && was.isGuest !== user.isGuest) {
    const guest = (value: boolean) => (value ? "a guest" : "not a guest");
    const theirs =
      user.isGuest === undefined
        ? `the workspace does not tell whether they are (isGuest left out beside ${role(user.role)}): pulumi up writes ` +
          "access.yaml's flag unless the stack's state records that write already"
        : `the workspace has them as ${guest(user.isGuest)}`;
    yield difference(
      {
        kind: "user-guest",
        side: "both",
        user: email,
        accessYaml: String(was.isGuest),
        workspace: user.isGuest === undefined ? NOT_TOLD : String(user.isGuest),
      },
      `access.yaml has ${email} as ${guest(was.isGuest)}; ${theirs}`,
    );
  }
}
