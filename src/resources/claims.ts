/**
 * What a create in this provider process took over: a user that already existed (adoption) or
 * a membership that already existed. When a resource is replaced create-before-delete by one that
 * manages the same user or membership (a rename without an alias, say), the new one's create
 * finds it existing and claims it, and the old resource's delete must then not undo it. A create
 * that made something new claims nothing: no other resource can be managing it. One host process
 * serves one deployment, so this lives in memory.
 */
const claimed = new Set<string>();

/** Records that this deployment took over `key` (ids in it compare case-insensitively, as the service's may). */
export function claim(key: string): void {
  claimed.add(key.toLowerCase());
}

/** True when this deployment took over `key`. */
export function isClaimed(key: string): boolean {
  return claimed.has(key.toLowerCase());
}

/** The key of a membership: an `IntegrationEntitlement` and an `IntegrationMembers` taking one over claim the same. */
export const memberClaim = (integrationId: string, userId: string) => `member:${integrationId}/${userId}`;

/** Forgets every claim (tests run many deployments in one process). */
export function resetClaims(): void {
  claimed.clear();
}
