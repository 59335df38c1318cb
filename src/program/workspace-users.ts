import * as pulumi from "@pulumi/pulumi";
import { emailKey } from "../client/models";
import { ownedEmails } from "./owners";
import { afterRegistration, beforeRegistration, dynamicType, registration } from "./resource-options";
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

/** The users keyed by email in lower case (how the provider compares them); a user listed twice fails the program, naming both. */
async function keyed(users: Array<Omit<WorkspaceUserArgs, "email"> & { email: string }>, name: string) {
  const byKey = new Map<string, Record<string, unknown>>();
  for (const user of await ownedEmails(users, name)) {
    const key = emailKey(user.email);
    const other = byKey.get(key);
    if (other)
      throw new Error(`WorkspaceUsers "${name}" lists the user ${key} twice (${other.email} and ${user.email}): list each user once.`);
    byKey.set(key, Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)));
  }
  return Object.fromEntries(byKey);
}

/**
 * A set of workspace users, for workspaces too large for a `User` each (docs/export.md): its create adopts every user
 * with a declared email (one listing) and creates the others; a change writes only the users it changes. Removing a
 * user from the set deletes them only if this resource created them, never an owner. `userIds` (email in lower case
 * to id) feeds an `IntegrationMembers`' `userId`; it is unknown in a preview of the set's update, so members whose ids are
 * known already (the exported `access.yaml` records them) are better declared by those. A user may have only one
 * resource in a program. `import` is refused: the set has no id of its own.
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

  /** The type token the engine sees. */
  static readonly type = dynamicType("WorkspaceUsers");

  constructor(name: string, args: WorkspaceUsersArgs, opts?: pulumi.CustomResourceOptions) {
    const inputs = {
      users: pulumi.output(args.users).apply((users) => keyed(users, name)),
      deleteOnDestroy: args.deleteOnDestroy,
    };
    const limit = beforeRegistration();
    try {
      super(WorkspaceUsers.type, name, ...registration("workspace-users", inputs, ["userIds"], opts));
    } catch (error) {
      throw afterRegistration(limit, error);
    }
    afterRegistration(limit);
  }
}
