/**
 * One owner per user and per membership in a program, checked in the program process before any
 * resource is registered. Two `User` resources with one email (case-insensitively), or two
 * `IntegrationEntitlement` resources for one integration and user, would overwrite each other
 * and destroying either would remove access for both: the program fails instead, naming both.
 *
 * Each resource's key input waits for its check: values known at declaration are all claimed
 * before the first check completes (the check runs after a macrotask, when the program's
 * synchronous part and the promise jobs it queued have run), so neither of two resources that
 * collide is registered, and neither is written. A value known only later (`userId: alice.id`
 * during an `up`) is checked as soon as it is known, in the round of values that become known
 * together; a collision with a resource registered in an earlier round fails the later one.
 */
import * as pulumi from "@pulumi/pulumi";

type Kind = "User" | "IntegrationEntitlement";

/** Resource names by kind and key, in the order they claimed it. */
const owners = new Map<string, string[]>();

/** The keys claimed since the last check ran, and that check. */
let round: Promise<void> | undefined;

const entry = (kind: Kind, key: string) => `${kind}\u0000${key}`;

/** Resolves after the values that become known together have all been claimed. */
function nextRound(): Promise<void> {
  round ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      round = undefined;
      resolve();
    }),
  );
  return round;
}

/** Claims `key` for `name` and waits for the round; throws when another resource claimed it. */
async function claim(kind: Kind, key: string, what: string, name: string): Promise<void> {
  const id = entry(kind, key);
  const names = owners.get(id) ?? [];
  if (!names.includes(name)) names.push(name);
  owners.set(id, names);
  await nextRound();
  const others = names.filter((n) => n !== name);
  if (others.length === 0) return;
  throw new Error(
    `${kind} resources "${names[0]}" and "${names[1]}" both manage ${what}: they would overwrite each other, and destroying either would remove the access of both. One ${kind === "User" ? "user" : "membership"} may have only one resource in a program: remove one of them${kind === "User" ? "" : " (or merge their entitlements into one)"}. Nothing was sent to the service for "${name}".`,
  );
}

/** The email, passed through once it is known and no other `User` of the program has it. */
export function ownedEmail(email: pulumi.Input<string>, name: string): pulumi.Output<string> {
  return pulumi.output(email).apply(async (value) => {
    if (typeof value === "string") await claim("User", value.trim().toLowerCase(), `the user with the email ${value}`, name);
    return value;
  });
}

/**
 * The user id, passed through once it and the integration id are known and no other
 * `IntegrationEntitlement` of the program manages that membership.
 */
export function ownedMembership(integrationId: pulumi.Input<string>, userId: pulumi.Input<string>, name: string): pulumi.Output<string> {
  return pulumi.all([integrationId, userId]).apply(async ([integration, user]) => {
    if (typeof integration === "string" && typeof user === "string") {
      await claim("IntegrationEntitlement", `${integration}/${user}`, `the membership of user ${user} in integration ${integration}`, name);
    }
    return user;
  });
}

/** Who manages members of an integration, by integration id, in the order they claimed it. */
const integrationOwners = new Map<string, Array<{ kind: Kind | "IntegrationMembers"; name: string }>>();

/**
 * The integration id, passed through once it is known and no resource of the program conflicts
 * with an `IntegrationMembers` over it: that resource owns the whole member set, so a second one,
 * or any `IntegrationEntitlement` of the same integration, would undo its changes (and it would
 * remove their members as unmanaged). Known in a preview even when a user id is not.
 */
export function ownedIntegration(
  integrationId: pulumi.Input<string>,
  kind: "IntegrationMembers" | "IntegrationEntitlement",
  name: string,
): pulumi.Output<string> {
  return pulumi.output(integrationId).apply(async (value) => {
    if (typeof value !== "string") return value;
    const claims = integrationOwners.get(value) ?? [];
    if (!claims.some((c) => c.kind === kind && c.name === name)) claims.push({ kind, name });
    integrationOwners.set(value, claims);
    await nextRound();
    const whole = claims.filter((c) => c.kind === "IntegrationMembers");
    const others = claims.filter((c) => !(c.kind === kind && c.name === name));
    if (whole.length === 0 || others.length === 0) return value;
    const other = kind === "IntegrationMembers" ? others[0]! : whole[0]!;
    throw new Error(
      `IntegrationMembers "${kind === "IntegrationMembers" ? name : other.name}" manages every member of integration ${value}, and ${other.kind === "IntegrationMembers" && kind === "IntegrationMembers" ? "IntegrationMembers" : "IntegrationEntitlement"} "${kind === "IntegrationMembers" ? other.name : name}" manages members of it too: they would undo each other's changes, and the IntegrationMembers would see the other's members as unmanaged. ` +
        `Manage an integration with one IntegrationMembers, or with IntegrationEntitlement resources, not both: move the memberships into the IntegrationMembers' members (or remove it). Nothing was sent to the service for "${name}".`,
    );
  });
}

/** Forgets every claim (tests declare many programs in one process). */
export function resetOwners(): void {
  owners.clear();
  integrationOwners.clear();
}
