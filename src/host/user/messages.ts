/** A {@link User}'s long messages: each names the user, what could not be done, and the fix. */
import { KNOWN_USER_ROLES, type User } from "../../client";
import { GUEST_ROLES } from "../../client/models";
import { namedUpTo } from "../../shared/named-up-to";

/** The service's record of `user` has no role, and the program declares none. */
export function noRoleToKeep(user: Pick<User, "id" | "email">): string {
  return (
    `User ${user.id}${user.email ? ` (${user.email})` : ""}: the service's record has no role (field "data.attributes.role"), ` +
    "and the program declares none, so a PUT could not keep it. Declare role on this resource."
  );
}

/**
 * A `PUT` refused after it kept the user's `role`, one the public document does not list, because the program declares none
 * (`declared`: the program declares that very role).
 */
export function keptRoleRefused(role: string, declared = false): string {
  const why = declared ? "which the program declares as the service has it" : "which the program does not declare";
  return (
    ` The PUT kept the user's role "${role}", ${why}, and the public document does not list it: the service does not take it ` +
    `back. Declare a listed role on this resource (${KNOWN_USER_ROLES.join(", ")}), or change the user's role in the service, ` +
    "then refresh."
  );
}

/** What a takeover that wrote nothing, its user no longer found as the listing had them, leaves to the next run. */
const LOOKED_UP_ANEW = "Run again: the email is then looked up anew.";

/**
 * A takeover read user `id`, which a listing found with the email `declared`, and it has another email now (changed since the
 * listing; `theirs`, none: the record has none): not taken over. The service's email is not named: the program may give the
 * declared one as a secret.
 */
export function emailChangedSinceFound(id: string, declared: string, theirs: string | null): string {
  const now = theirs ? "has another email now (changed since the user list was read)" : "has no email in its record now";
  return `User ${id}, found with the email ${declared}, ${now}: it was not taken over, and nothing was written. ${LOOKED_UP_ANEW}`;
}

/** A takeover read the user a listing found with the email `declared`, and the service answered 404: gone since, or hidden. */
export function goneSinceFound(declared: string): string {
  return (
    ` The user found with the email ${declared} is not there now (deleted since the user list was read, or not disclosed to ` +
    `this key): it was not taken over, and nothing was written. ${LOOKED_UP_ANEW}`
  );
}

/** A takeover could not read the record of the user a listing found with the email `declared`. */
export function unreadableToTakeOver(declared: string): string {
  return ` The user, found with the email ${declared}, was not taken over and nothing was written: whether it has that email still cannot be read.`;
}

/** An update could not read the user's record, and needs its role (the program leaves the role out). */
export function unreadableRoleToKeep(): string {
  return (
    " The user was not updated: its role, or beside a role that is not a listed member's its guest flag, which a PUT sends and the program leaves to the " +
    "service, cannot be read. Fix the record in the service, or declare role and isGuest, then run again."
  );
}

/**
 * The service's record has no `isGuest`, which a `PUT` must send, beside a `role` that is a guest's or one the public document
 * does not list (it may be a guest's), and the program declares none.
 */
export function noGuestFlagToKeep(user: Pick<User, "id" | "email" | "role">, role: string): string {
  const which = GUEST_ROLES.has(role)
    ? `the guest role ${role}`
    : `the role ${role}, which the public document does not list (it may be a guest's)`;
  // The role the PUT sends is the program's where it declares one: the record may hold another.
  const held = user.role === role ? `has ${which}` : `has the role ${user.role ?? "(none)"}, and the update sends ${which}`;
  return (
    `User ${user.id}${user.email ? ` (${user.email})` : ""}: the service's record does not say whether the user is a guest ` +
    `(field "data.attributes.isGuest") and ${held}, and the program declares no isGuest, so a PUT could not ` +
    "keep it (it sends every attribute, and false would make a guest a member). Declare isGuest on this resource."
  );
}

/** The PUT kept a role set in the service since the last refresh, which the program declares otherwise and did not change. */
export function keptDeclaredRoleRefused(role: string, declared: string): string {
  return (
    ` The PUT kept the user's role "${role}", set in the service since the last refresh (the program declares "${declared}" and ` +
    "did not change it, so the update left it), and the service does not take that role back. Run pulumi refresh, then pulumi " +
    "up to apply the declared role."
  );
}

/**
 * A create was refused because a user has `email` already (`existingId`, when found); the fix unless the resource adopts.
 * `said`: the service's own words (the answer's detail), which, when they name the email, say it already: then only who.
 */
export function emailTaken(email: string, existingId: string | undefined, adopts: boolean, said?: string): string {
  const fix = adopts
    ? ""
    : " To manage that user with this resource, set adoptExisting: true. If this resource was renamed, give it the option " +
      'aliases: [{ name: "<its old name>" }] instead: the stack keeps managing the user, and nothing is written.';
  if (said?.toLowerCase().includes(email.toLowerCase())) return `${existingId ? ` That user's id is ${existingId}.` : ""}${fix}`;
  return ` A user with the email ${email} already exists${existingId ? ` (id ${existingId})` : ""}.${fix}`;
}

/**
 * A create's `POST /users` refused as a method the service does not serve (405): that endpoint is assumed (no public document
 * shows it), and adoption does not need it. `adopts`: the resource adopts a user it finds already (a `WorkspaceUsers`, which
 * has no `adoptExisting`, or a `User` with it), so the next up does.
 */
export function noUserCreate(email: string, adopts: boolean): string {
  const then = adopts ? "; the next pulumi up adopts them." : ", then manage that user with adoptExisting: true.";
  return (
    ` This service does not create users through its API (POST /users is not in its public document): create ${email} in ` +
    `the service (an invitation)${then}`
  );
}

/** The service's record of `user`, read before a delete, has no role: whether it is a workspace owner is not known. */
export function noRoleToDelete(user: Pick<User, "id" | "email">): string {
  return `User ${user.id}${user.email ? ` (${user.email})` : ""}: the service's record has no role (field "data.attributes.role").`;
}

/**
 * A delete read the user's record and could not tell whether it is a workspace owner now: nothing was deleted. `optIn`: the
 * resource's `deleteOnDestroy` would delete it whatever its role (a `User`'s; a `WorkspaceUsers` never deletes an owner).
 */
export function ownerUnknown(optIn: boolean): string {
  const or = optIn ? ", or set deleteOnDestroy: true on the resource and run pulumi up (it then deletes the user whatever its role)" : "";
  return ` The user was not deleted: whether it is a workspace owner now cannot be read. Fix the record in the service${or}, then run again.`;
}

/** A `User`'s `POST /users` was accepted, and its job `jobId` not seen to finish: the user may still be created. */
export function createStillRunning(email: string, jobId: string): string {
  return (
    ` The service accepted the create of ${email} (job ${jobId}), so the user may exist or still be created, but the state records ` +
    "nothing of it: a User's id is the user's, not known until the job ends. Check the job with getJob. Once it has finished, " +
    `${email} exists and a plain pulumi up fails on it (409): set adoptExisting: true and deleteOnDestroy: true on this ` +
    "resource, then run pulumi up, so that it manages the user this stack asked for and destroy deletes it (without " +
    "deleteOnDestroy it is recorded as adopted, and destroy leaves it). If the job failed, run pulumi up again as it is."
  );
}

/**
 * What a create declared with `retainOnDelete: true` adds to its 409: a replacement's skipped delete left the old resource's
 * user, and the state keeps that resource marked for replacement until the user is taken back. Names no email (it may be secret).
 */
export function retainedUserThere(): string {
  return (
    " This User is declared with retainOnDelete: true: if it is being replaced (pulumi up --replace, or a replacement the plan " +
    "showed), the engine skipped the replaced resource's delete, so that user is the one it managed, left in the workspace, and " +
    "the state keeps the old resource marked for replacement: every pulumi up fails here until the new resource takes the user " +
    "back. To do so, set adoptExisting: true on this resource and run pulumi up: it manages the user as it is, recorded as " +
    "adopted (a destroy then leaves it unless deleteOnDestroy: true)."
  );
}

/** A destroy leaves user `id` in the workspace, for the reason `kept`. */
export function leftInWorkspace(id: string, email: string | undefined, kept: string): string {
  return (
    `User ${id}${email ? ` (${email})` : ""} is left in the workspace as it is: ${kept}. ` +
    "To delete it on destroy, set deleteOnDestroy: true on the resource and run pulumi up first."
  );
}

/** A forced replacement's create took back user `id`, whom its delete left in place (an adopted user, an owner). */
export function takenBack(id: string, email: string, written: boolean): string {
  const how = written
    ? "and wrote the attributes the program declares where the record differed (those ignoreChanges names left as they are)"
    : "as it is (it holds every declared attribute ignoreChanges does not name: nothing was written)";
  return (
    `Took back user ${email} (${id}) ${how}: the replacement's delete left it in the workspace (see the warning above), ` +
    "so the new resource manages the same user."
  );
}

/** `import` names user `id`, whom the workspace does not have. */
export function noUserToImport(id: string): string {
  return (
    `import: no user has the id ${id} in this workspace (GET /users/${id} answered 404). Nothing was changed. ` +
    "Check the id (the export command and getUsers list them), or remove the import option to create the user."
  );
}

/** `User.get` names user `id`, whom the workspace does not have. */
export function noUserToGet(id: string): string {
  return (
    `User.get: no user has the id ${id} in this workspace (GET /users/${id} answered 404), so there is nothing to read. ` +
    "Check the id (the export command and getUsers list them)."
  );
}

/** `import` names user `id`, whose email (`found`) is not the `declared` one. */
export function importedEmailDiffers(id: string, found: string | null, declared: string): string {
  return (
    `import: user ${id} has the email ${found ?? "(none)"}, but the resource declares ${declared}. Nothing was changed. ` +
    `Import the user whose email is ${declared}, or declare the email ${found ?? "(none)"}.`
  );
}

/** An update found the user gone (404): deleted outside the program since the state last read it. */
export function goneSinceRefresh(): string {
  return (
    " The user no longer exists in the workspace (deleted outside this program since the state last read it, or hidden from " +
    "this API key): there is nothing to update. Run pulumi refresh (the state then forgets the user), then pulumi up to create " +
    "the user again."
  );
}

/** An update that changes the email to `email` was refused as a conflict (409): another user most likely has that email. */
export function emailTakenOnUpdate(email: string): string {
  return (
    ` The service refused the change as a conflict: most likely another user has the email ${email} (an update changes a ` +
    "user's email in place, only to one no other user has). Nothing was written. Free that email in the service, or declare " +
    "another; if another resource of this program gives that email up in this change, run pulumi up again once it has."
  );
}

/**
 * A refresh of `resource` (`User`, `WorkspaceUsers`) could not read the records `unread` (each "email (id): why"): the state
 * keeps what it recorded for them.
 */
export function unreadableKept(resource: string, unread: string[]): string {
  const named = namedUpTo(unread.sort(), undefined, "; ");
  return (
    `${resource} could not read the record of ${unread.length} user(s), and keeps what the state recorded for them: ${named}. ` +
    "The refresh goes on for the others; the next one reads these again (fix the record in the service if this stays)."
  );
}
