/** The review's users: one only a side has, and each attribute a project declares. A user left out is the left-out part's. */
import { emailKey } from "../../client/models";
import type { AccessUser } from "../access-file";
import { type AccessDifference, difference, leftOutOf, type Sides, UNTOLD, untoldWhy, userValue } from "./differences";

/** The differences of the users of both sides. */
export function* userDifferences(sides: Sides): Iterable<AccessDifference> {
  const then = new Map(sides.recorded.users.map((u) => [emailKey(u.email), u]));
  const now = new Map(sides.live.users.map((u) => [emailKey(u.email), u]));
  for (const [key, user] of now) {
    const was = then.get(key);
    if (was) yield* attributeDifferences(was, user);
    // Recorded as left out: the left-out part says what access.yaml records of it.
    else if (!leftOutOf(sides.leftThen, "user", user)) {
      const value = userValue(user);
      yield difference(
        { kind: "user", side: "workspace", user: user.email, workspace: value },
        `the workspace has user ${user.email} (${value}); access.yaml does not`,
      );
    }
  }
  for (const [key, user] of then) {
    // Still there, in a form access.yaml cannot declare (a record that broke the contract, by its id): the left-out part says why.
    if (now.has(key) || leftOutOf(sides.leftNow, "user", user)) continue;
    // Under --members-only, with members of the scope unread: they may hold a membership that was not read.
    if (sides.scopeUnread && sides.workspaceHas({ email: user.email })) continue;
    const declares = `access.yaml declares user ${user.email} (${userValue(user)})`;
    const untold = sides.untold("user");
    if (!sides.workspaceHas({ email: user.email }) && untold.length > 0) {
      // A user record that broke the contract, its email unread, may be this user: no absence is claimed.
      yield difference(
        { kind: "user", side: "access.yaml", user: user.email, accessYaml: userValue(user), workspace: UNTOLD, untold: true },
        `${declares}; whether the workspace has them could not be told (${untoldWhy(untold)})`,
      );
      continue;
    }
    yield sides.workspaceHas({ email: user.email })
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

function* attributeDifferences(was: AccessUser, user: AccessUser): Iterable<AccessDifference> {
  const email = user.email;
  // An id recorded that the workspace's user of that email no longer has (deleted and made again): the `sets` shape declares members by it.
  if (was.id !== undefined && user.id !== undefined && was.id !== user.id) {
    yield difference(
      { kind: "user-id", side: "both", user: email, accessYaml: was.id, workspace: user.id },
      `access.yaml records ${email} as the user ${was.id}; the workspace's ${email} is the user ${user.id}`,
    );
  }
  const [then, now] = [`${was.firstName} ${was.lastName}`, `${user.firstName} ${user.lastName}`];
  if (was.firstName !== user.firstName || was.lastName !== user.lastName) {
    yield difference(
      { kind: "user-name", side: "both", user: email, accessYaml: then, workspace: now },
      `access.yaml names ${email} ${JSON.stringify(then)}; the workspace names them ${JSON.stringify(now)}`,
    );
  }
  // A role or guest flag access.yaml leaves out is the service's, never written (a `User` keeps it): not compared.
  if (was.role !== undefined && was.role !== user.role) {
    const role = (value: string | undefined) => (value === undefined ? "no role" : `the role ${value}`);
    yield difference(
      { kind: "user-role", side: "both", user: email, accessYaml: was.role ?? null, workspace: user.role ?? null },
      `access.yaml gives ${email} ${role(was.role)}; the workspace gives ${role(user.role)}`,
    );
  }
  // A flag the workspace leaves out beside a guest role (untold, `guestOf`) is compared as a `User` compares it, as false: the
  // review then says what an `up` would write, and a service that never tells it is no difference review after review.
  if (was.isGuest !== undefined && was.isGuest !== (user.isGuest ?? false)) {
    const guest = (value: boolean | undefined) => (value === undefined ? "no guest flag" : value ? "a guest" : "not a guest");
    const flag = (value: boolean | undefined) => (value === undefined ? null : String(value));
    yield difference(
      { kind: "user-guest", side: "both", user: email, accessYaml: flag(was.isGuest), workspace: flag(user.isGuest) },
      `access.yaml has ${email} as ${guest(was.isGuest)}; the workspace has them as ${guest(user.isGuest)}`,
    );
  }
}
