/** The program room's long messages: each names what collides, why that is refused, and the fix. */
import type { Owner } from "./program-run";

/**
 * An error of the program's checks that the language host prints as its message alone, as it prints Pulumi's `RunError`
 * (the mark it looks for), not as an object with its stack and the rejected promise of the property it failed.
 */
export function programError(message: string): Error {
  const error = new Error(message);
  Object.defineProperty(error, "__pulumiRunError", { value: true, configurable: true });
  return error;
}

/** Two resources, by class and name: `User resources "a" and "b"`, `User "a" and WorkspaceUsers "b"`. */
function twoResources(kind: string, first: Owner, second: Owner): string {
  const [a, b] = [first.label ?? kind, second.label ?? kind];
  if (a !== b) return `${a} "${first.name}" and ${b} "${second.name}"`;
  if (first.name === second.name) return `Two ${a} resources named "${first.name}" (under other parents)`;
  return `${a} resources "${first.name}" and "${second.name}"`;
}

/** Two `User`-like or two `IntegrationEntitlement` resources declared for one record (`owners`, in declaration order). */
export function ownerCollision(kind: "User" | "IntegrationEntitlement", owners: readonly Owner[], what: string, name: string): string {
  const [record, merge] = kind === "User" ? ["user", ""] : ["membership", " (or merge their entitlements into one)"];
  const [first, second] = owners as [Owner, Owner];
  return (
    `${twoResources(kind, first, second)} both manage ${what}: ` +
    "they would overwrite each other, and destroying either would remove the access of both. " +
    `One ${record} may have only one resource in a program: remove one of them${merge}. ` +
    `Nothing was sent to the service for "${name}".`
  );
}

/**
 * `members` (an `IntegrationMembers`) and `rival` both manage members of the integration `named` (`integration <id>`, or one whose
 * id is a secret); `name` is the resource that fails.
 */
export function integrationCollision(named: string, members: Owner, rival: Owner, name: string): string {
  return (
    `IntegrationMembers "${members.name}" manages every member of ${named}, ` +
    `and ${rival.kind} "${rival.name}" manages members of it too: ` +
    "they would undo each other's changes, and the IntegrationMembers would see the other's members as unmanaged. " +
    "Manage an integration with one IntegrationMembers, or with IntegrationEntitlement resources, not both: " +
    "move the memberships into the IntegrationMembers' members (or remove it). " +
    `Nothing was sent to the service for "${name}".`
  );
}
