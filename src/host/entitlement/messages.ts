/** An {@link IntegrationEntitlement}'s long messages: each names the user and the integration, what was kept, and the fix. */

/** A refresh found `userId` a member of nothing, and integration `integrationId` itself answers 404 to this key. */
export function integrationNotVisible(integrationId: string, userId: string): string {
  return (
    `User ${userId} is not a member of integration ${integrationId} as far as this key can tell, ` +
    "but the integration itself answers 404 to this key: it was deleted, or this key is not shown it. " +
    "The resource is kept, not forgotten (forgetting it would have the next up invite the user again). " +
    "If the integration was deleted, remove the resource from the program and run pulumi state delete on it; " +
    "otherwise use a key that may read the integration."
  );
}
