import * as pulumi from "@pulumi/pulumi";
import { emailKey } from "../client/models";
import { DECLARED_ELSEWHERE, SECRET_USERS } from "../shared/input-constants";
import { programError } from "./messages";
import { warnOfUnknownRoles } from "./program-checks";
import { emailsDeclaredElsewhere, ownedEmails } from "./owners";
import { afterRegistration, beforeRegistration, dynamicType, PATH_OPTIONS, pathRoot, registration } from "./resource-options";
import type { UserArgs } from "./user";
import type { WorkspaceUserState } from "../shared/member-state";

/** One user of a {@link WorkspaceUsers}: a `User`'s attributes, with the same rules; a user at most once in the set. */
export type WorkspaceUserArgs = Pick<UserArgs, "email" | "firstName" | "lastName" | "role" | "isGuest">;

/** The inputs of a {@link WorkspaceUsers}. */
export interface WorkspaceUsersArgs {
  /** Every user this resource manages (order does not matter). */
  users: pulumi.Input<pulumi.Input<WorkspaceUserArgs>[]>;
  /** Removing a user from the set, or destroy, deletes adopted users too (never a workspace owner); left out, they stay, with a warning. */
  deleteOnDestroy?: pulumi.Input<boolean>;
}

/**
 * Fails a set whose users are not a list, or one of whose users has no email, a string (a JavaScript program, which no type
 * checks): named by place, the key being what is missing, before a check fails on it unclearly. No value is printed.
 */
export function refuseUsersWithoutEmail(users: unknown, name: string): void {
  if (!Array.isArray(users)) throw programError(`WorkspaceUsers "${name}": users must be a list of users, got ${typeof users}.`);
  users.forEach((user, i) => {
    const email = typeof user === "object" && user !== null ? (user as { email?: unknown }).email : undefined;
    if (typeof email !== "string" || email.trim() === "") {
      const got =
        typeof user !== "object" || user === null ? `a ${user === null ? "null" : typeof user}` : `an email of type ${typeof email}`;
      throw programError(
        `WorkspaceUsers "${name}": users[${i}] needs an email, a string that is not empty (got ${got}): give each user its email.`,
      );
    }
  });
}

/**
 * The users keyed by email in lower case (how the provider compares them); a user listed twice fails the program, naming both
 * emails unless `secret` (the set holds a secret: Pulumi then keeps the whole set, its emails with it, as one).
 */
async function keyed(
  users: Array<Omit<WorkspaceUserArgs, "email"> & { email: string }>,
  name: string,
  owner: object,
  secret: boolean,
  warnings: { resource?: pulumi.Resource },
) {
  refuseUsersWithoutEmail(users, name);
  const byKey = new Map<string, Record<string, unknown>>();
  for (const user of await ownedEmails(users, name, owner, { label: "WorkspaceUsers", secret })) {
    const key = emailKey(user.email);
    const other = byKey.get(key);
    if (other) {
      const twice = secret ? "one user twice (its email is a secret)" : `the user ${key} twice (${other.email} and ${user.email})`;
      throw programError(`WorkspaceUsers "${name}" lists ${twice}: list each user once.`);
    }
    byKey.set(key, Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)));
  }
  const keyedUsers = Object.fromEntries(byKey);
  warnOfUnknownRoles(keyedUsers, secret, warnings.resource);
  return keyedUsers;
}

/**
 * Each user's email, each known as soon as it is, whatever the user's other values and the other users' emails: a user given
 * as one output (or a list given as one) gives its email with the rest.
 */
function emailsOf(users: WorkspaceUsersArgs["users"]): Array<pulumi.Output<unknown[]>> {
  const emailOf = (user: unknown) => (typeof user === "object" && user !== null ? (user as { email?: unknown }).email : undefined);
  if (!Array.isArray(users)) return [pulumi.output(users).apply((list) => (Array.isArray(list) ? list.map(emailOf) : []))];
  return (users as unknown[]).map((user) =>
    (pulumi.Output.isInstance(user) || user instanceof Promise ? pulumi.output(user).apply(emailOf) : pulumi.output(emailOf(user))).apply(
      (email) => [email],
    ),
  );
}

/** The string a path's quoted key holds (`"ann@example.com"`); `undefined` for one that is not valid JSON. */
function quoted(text: string): string | undefined {
  try {
    return JSON.parse(text) as string;
  } catch {
    return undefined;
  }
}

/**
 * Fails a path that would match no user of the set, so that the option would silently do nothing: one naming a user by place
 * (`users[0].firstName`, or with the root quoted, `["users"][0]`), or by an email not in lower case
 * (`users["Ann@Example.com"]`): the set keys its users by email in lower case. The message gives the path to write, where
 * the email is plain.
 */
function refusePlacePaths(name: string, users: WorkspaceUsersArgs["users"], opts: pulumi.CustomResourceOptions | undefined): void {
  for (const option of PATH_OPTIONS) {
    for (const path of opts?.[option] ?? []) {
      // The root named plainly (`users[0]`) or quoted (`["users"][0]`), as Pulumi's property paths allow.
      const root = pathRoot(path);
      if (root?.root !== "users") continue;
      const { element } = root;
      const place = /^\[\s*(\d+)\s*\](.*)$/s.exec(element);
      if (place) {
        const user = Array.isArray(users) ? (users as unknown[])[Number(place[1])] : undefined;
        const email =
          user && typeof (user as { email?: unknown }).email === "string" ? emailKey((user as { email: string }).email) : undefined;
        const meant = `users[${JSON.stringify(email ?? "<email in lower case>")}]${place[2]}`;
        throw new Error(
          `WorkspaceUsers "${name}": ${option} path "${path}" names a user by place, but the set keys its users by email in ` +
            `lower case (order does not matter), so it would match nothing: write "${meant}".`,
        );
      }
      const key = /^\[\s*("(?:[^"\\]|\\.)*")\s*\](.*)$/s.exec(element);
      const email = key ? quoted(key[1] as string) : undefined;
      if (email !== undefined && email !== emailKey(email)) {
        throw new Error(
          `WorkspaceUsers "${name}": ${option} path "${path}" names a user by an email not in lower case, but the set keys ` +
            `its users by email in lower case, so it would match nothing: write "users[${JSON.stringify(emailKey(email))}]${key?.[2]}".`,
        );
      }
    }
  }
}

/**
 * A set of workspace users, for workspaces too large for a `User` each (docs/export.md): its create adopts every user
 * with a declared email (one listing) and creates the others; a change writes only the users it changes. Removing a
 * user from the set deletes them only if this resource created them, never an owner. An email edit is a removal and an
 * addition: a user it created is deleted, with their memberships, and a new one created (a preview warns when the two share
 * a name); a `User` changes an email in place. `userIds` (email in lower case to id) feeds an `IntegrationMembers`'
 * `userId`; it is unknown in a preview of the set's update, so members whose ids are known already (the exported
 * `access.yaml` records them) are better declared by those. A user may have only one
 * resource in a program. `import` is refused: the set has no id of its own. Property paths (`ignoreChanges`,
 * `replaceOnChanges`) name a user by email in lower case: `users["ann@example.com"].firstName`; one naming a user by place
 * or by an email in another case, which would match nothing, is refused with the path to write.
 *
 * ```ts
 * const people = new wa.WorkspaceUsers("people", { users: [{ email: "ann@example.com", firstName: "Ann", lastName: "Lee" }] });
 * ```
 */
export class WorkspaceUsers extends pulumi.CustomResource {
  /** Each managed user as the service has it, by email in lower case. */
  declare readonly users: pulumi.Output<Record<string, WorkspaceUserState>>;
  /** Each managed user's id, by email in lower case. */
  declare readonly userIds: pulumi.Output<Record<string, string>>;
  /**
   * User creates the service accepted whose job was not seen to finish (absent: none): the next `up` or refresh waits for each
   * job, and records the user it made as created by this resource. Always a secret (it holds emails, which may be secrets).
   */
  declare readonly pendingCreates: pulumi.Output<Array<{ email: string; jobId: string }> | undefined>;

  /** The type token the engine sees. */
  static readonly type = dynamicType("WorkspaceUsers");

  constructor(name: string, args: WorkspaceUsersArgs, opts?: pulumi.CustomResourceOptions) {
    refusePlacePaths(name, args.users, opts);
    // This resource, for the owner checks.
    const self = {};
    const given = pulumi.output(args.users);
    // The resource the warnings name, once it is registered (the users are keyed later, once known).
    const warnings: { resource?: pulumi.Resource } = {};
    // The emails are declared as soon as they are known, not once every value of the set is: in a preview, a value another
    // resource has not made yet (a name, a role) leaves the set unknown, which would hide a user another resource manages.
    // Each user's apart: one email not known yet (made by another resource) holds back none of the others.
    const declare = async (emails: unknown[]) => {
      const secret = await pulumi.isSecret(given);
      await ownedEmails(
        emails.flatMap((email) => (typeof email === "string" ? [{ email }] : [])),
        name,
        self,
        { label: "WorkspaceUsers", secret },
      );
      return emails;
    };
    const declared = pulumi.all(emailsOf(args.users).map((emails) => emails.apply(declare)));
    const users = pulumi
      .all([declared, given])
      .apply(async ([, users]) => keyed(users, name, self, await pulumi.isSecret(given), warnings));
    const inputs = {
      users,
      deleteOnDestroy: args.deleteOnDestroy,
      // Known once the users are: by then every email the program declares with them is. Always a secret: it digests
      // emails other resources declare, which may be secrets there (a digest of an email is recovered by guessing).
      [DECLARED_ELSEWHERE]: pulumi.secret(users.apply(() => emailsDeclaredElsewhere(self))),
      // Whether the set holds a secret (known in a preview, whatever is unknown): the provider cannot see it, and then names
      // no email of the set in its messages.
      [SECRET_USERS]: pulumi.output(pulumi.isSecret(given)).apply((secret) => (secret ? true : undefined)),
    };
    const limit = beforeRegistration();
    try {
      // `pendingCreates` (the emails of creates left running) is encrypted: the set's emails may be secrets, which the program
      // knows only once they resolve, after these options are set.
      const outputs = ["userIds", "pendingCreates"];
      super(WorkspaceUsers.type, name, ...registration(name, "workspace-users", inputs, outputs, opts, ["pendingCreates"]));
    } catch (error) {
      throw afterRegistration(limit, error);
    }
    afterRegistration(limit);
    warnings.resource = this;
  }
}
