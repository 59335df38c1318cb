/** The program room's long messages: each names what collides, why that is refused, and the fix. */
import type { Owner } from "./program-run";

/** Two `User` or two `IntegrationEntitlement` resources declared for one record (`names`, in declaration order). */
export function ownerCollision(kind: "User" | "IntegrationEntitlement", names: readonly string[], what: string, name: string): string {
  const [record, merge] = kind === "User" ? ["user", ""] : ["membership", " (or merge their entitlements into one)"];
  return (
    `${kind} resources "${names[0]}" and "${names[1]}" both manage ${what}: ` +
    "they would overwrite each other, and destroying either would remove the access of both. " +
    `One ${record} may have only one resource in a program: remove one of them${merge}. ` +
    `Nothing was sent to the service for "${name}".`
  );
}

/** `members` (an `IntegrationMembers`) and `rival` both manage members of `integrationId`; `name` is the resource that fails. */
export function integrationCollision(integrationId: string, members: Owner, rival: Owner, name: string): string {
  return (
    `IntegrationMembers "${members.name}" manages every member of integration ${integrationId}, ` +
    `and ${rival.kind} "${rival.name}" manages members of it too: ` +
    "they would undo each other's changes, and the IntegrationMembers would see the other's members as unmanaged. " +
    "Manage an integration with one IntegrationMembers, or with IntegrationEntitlement resources, not both: " +
    "move the memberships into the IntegrationMembers' members (or remove it). " +
    `Nothing was sent to the service for "${name}".`
  );
}
