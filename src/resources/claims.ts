/**
 * What this provider process created or took over during this deployment. When a resource is
 * replaced create-before-delete by one that manages the same user or membership (a rename without
 * an alias, say), the old resource's delete must not undo what the new one just did: delete
 * consults these claims first. One host process serves one deployment, so this lives in memory.
 */
const claimed = new Set<string>();

/** Records that this deployment created or took over `key`. */
export function claim(key: string): void {
  claimed.add(key);
}

/** True when this deployment created or took over `key`. */
export function isClaimed(key: string): boolean {
  return claimed.has(key);
}

/** Forgets every claim (tests run many deployments in one process). */
export function resetClaims(): void {
  claimed.clear();
}
