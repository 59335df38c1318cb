/**
 * What a create in this provider process took over: a user that already existed (adoption) or
 * a membership that already existed. When a resource is replaced create-before-delete by one that
 * manages the same user or membership (a rename without an alias, say), the new one's create
 * finds it existing and takes it over, and the old resource's delete must then not undo it. A
 * create that made something new takes nothing over: no other resource can be managing it. One
 * host process serves one deployment, so this lives in the process's context (`ctx.takeovers`).
 */
import { idOf } from "../client/ids";

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
