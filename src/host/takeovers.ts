/**
 * The keys of the records resources of this deployment (one host process) claim (`ctx.takeovers`): a user one adopted, a
 * membership one manages. A resource replaced by one managing the same record (a rename without an alias, a membership moved
 * to another resource) must not undo it on delete, whether that delete comes in the same deployment or a later one (it failed,
 * or `up --target` left it out). So a key is registered by the create or update that takes the record on (a user adopted; a
 * membership found or invited: its key is the same either way), and by the `diff` of every resource that keeps it (a user its
 * state says it adopted; a membership it manages): the engine diffs each resource of the program before it deletes those the
 * program left. (`pulumi up --replace` and `destroy` ask no diff: what they delete is decided by the deleted resource's state.)
 * A diff claims only what `check` saw the program declare in this deployment (`ctx.declared`): the engine also diffs the
 * resources a refresh reads (`up --refresh`, `refresh: always`), those the program left included, whose claims would
 * otherwise keep their own deletes from removing anything.
 */
import { idOf } from "../client/ids";
import { emailKey } from "../client/models";

/** The key of a user taken over. */
export const userKey = (userId: string) => `user:${idOf(userId)}`;

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over take the same. */
export const memberKey = (integrationId: string, userId: string) => `member:${idOf(integrationId)}/${idOf(userId)}`;

/** The key of a user the program declares (`ctx.declared`, filled by `check`): by email, which `check` knows (the id it does not). */
export const declaredUserKey = (email: string) => `email:${emailKey(email)}`;
