/**
 * The keys of what a create in this deployment took over (`ctx.takeovers`; one host process serves one deployment): a user
 * or a membership that existed. When a resource is replaced create-before-delete by one that manages the same (a rename
 * without an alias, say), the new one's create takes it over, and the old one's delete must then not undo it.
 */
import { idOf } from "../client/ids";

/** The key of a user taken over. */
export const userKey = (userId: string) => `user:${idOf(userId)}`;

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over take the same. */
export const memberKey = (integrationId: string, userId: string) => `member:${idOf(integrationId)}/${idOf(userId)}`;
