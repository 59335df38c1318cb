/**
 * The keys of what a create in this deployment (one host process) took over (`ctx.takeovers`): a user or membership that existed.
 * A resource replaced create-before-delete by one managing the same (a rename without an alias) must not undo it on delete.
 */
import { idOf } from "../client/ids";

/** The key of a user taken over. */
export const userKey = (userId: string) => `user:${idOf(userId)}`;

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over take the same. */
export const memberKey = (integrationId: string, userId: string) => `member:${idOf(integrationId)}/${idOf(userId)}`;
