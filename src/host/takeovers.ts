/**
 * The keys of the records resources of this deployment (one host process) took over (`ctx.takeovers`): a user or a membership
 * that existed. A resource replaced by one managing the same record (a rename without an alias, the new one adopting) must not
 * undo it on delete, whether that delete comes in the same deployment or a later one (it failed, or `up --target` left it out).
 * So a key is registered by the create that takes the record over, and by the `diff` of every resource whose state says it
 * adopted the record and that keeps it: the engine diffs each resource of the program before it deletes those the program
 * left. (`pulumi up --replace` and `destroy` ask no diff: what they delete is decided by the deleted resource's own state.)
 */
import { idOf } from "../client/ids";

/** The key of a user taken over. */
export const userKey = (userId: string) => `user:${idOf(userId)}`;

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over take the same. */
export const memberKey = (integrationId: string, userId: string) => `member:${idOf(integrationId)}/${idOf(userId)}`;
