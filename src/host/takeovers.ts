/**
 * What a create in this deployment took over: a user or a membership that already existed. When a
 * resource is replaced create-before-delete by one that manages the same (a rename without an
 * alias, say), the new one's create takes it over, and the old one's delete must then not undo it.
 */
import { idOf } from "../client/ids";

/** What this deployment took over (`ctx.takeovers`): one host process serves one deployment. */
export class Takeovers {
  readonly #taken = new Set<string>();

  /** Records that this deployment took over `key` (made by {@link userKey} or {@link memberKey}: ids in their one form). */
  take(key: string): void {
    this.#taken.add(key);
  }

  /** True when this deployment took over `key`. */
  has(key: string): boolean {
    return this.#taken.has(key);
  }
}

/** The key of a user taken over. */
export const userKey = (userId: string) => `user:${idOf(userId)}`;

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over take the same. */
export const memberKey = (integrationId: string, userId: string) => `member:${idOf(integrationId)}/${idOf(userId)}`;
