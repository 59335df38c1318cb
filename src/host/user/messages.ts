/** A {@link User}'s long messages: each names the user, what could not be done, and the fix. */
import type { User } from "../../client";

/** The service's record of `user` has no role, and the program declares none. */
export function noRoleToKeep(user: Pick<User, "id" | "email">): string {
  return (
    `User ${user.id}${user.email ? ` (${user.email})` : ""}: the service's record has no role (field "data.attributes.role"), ` +
    "and the program declares none, so a PUT could not keep it. Declare role on this resource."
  );
}

/** A create was refused because a user has `email` already (`existingId`, when found). */
export function emailTaken(email: string, existingId: string | undefined): string {
  return (
    ` A user with the email ${email} already exists${existingId ? ` (id ${existingId})` : ""}. ` +
    "To manage that user with this resource, set adoptExisting: true."
  );
}
