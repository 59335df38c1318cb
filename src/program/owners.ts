/**
 * One owner per user, membership and integration member set in a program, checked before any resource is registered
 * (two would overwrite each other). Each key input waits for its check until the values that become known together
 * (a round, after a macrotask) are all declared, so neither of two that collide is registered; a later round fails.
 */
import * as pulumi from "@pulumi/pulumi";
import { emailKey } from "../client/models";
import { idOf } from "../client/ids";
import { digestOf } from "../shared/digest";
import { integrationCollision, ownerCollision, programError } from "./messages";
import { type Owner, type ProgramRun, thisRun } from "./program-run";

type Kind = "User" | "IntegrationEntitlement";

/** Resolves after the values that become known together have all been declared. */
function nextRound(run: ProgramRun): Promise<void> {
  run.round ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      run.round = undefined;
      resolve();
    }),
  );
  return run.round;
}

/** Declares that `owner` manages `key`; resolves, once the round is declared, to every resource that does, in declaration order. */
async function declare(key: string, owner: Owner): Promise<Owner[]> {
  const run = thisRun();
  const owners = run.owners.get(key) ?? [];
  if (!owners.some((o) => o.instance === owner.instance)) owners.push(owner);
  run.owners.set(key, owners);
  await nextRound(run);
  return owners;
}

/** How a resource declares its keys: its class where it is not the kind, and whether the keys are secrets. */
type Declaring = Pick<Owner, "label" | "secret">;

/**
 * Declares that resource `instance` (`name`) manages `key` and waits for the round; throws when another resource declared it
 * too, naming the record as `what`, or as `secretWhat` when any of them declared the key as a secret.
 */
async function declareOwner(
  kind: Kind,
  key: string,
  [what, secretWhat]: [string, string],
  name: string,
  instance: object,
  declaring: Declaring = {},
): Promise<void> {
  const owners = await declare(`${kind}\u0000${key}`, { kind, name, instance, ...declaring });
  if (owners.length > 1) throw programError(ownerCollision(kind, owners, owners.some((o) => o.secret) ? secretWhat : what, name));
}

/** The email, passed through once it is known and no other resource of the program has it (`instance`: this resource, one per construction). */
export function ownedEmail(email: pulumi.Input<string>, name: string, instance: object): pulumi.Output<string> {
  const output = pulumi.output(email);
  return output.apply(async (value) => {
    if (typeof value === "string") await ownedEmails([{ email: value }], name, instance, { secret: await pulumi.isSecret(output) });
    return value;
  });
}

/**
 * The users, passed through once no other resource of the program (a `User`, another `WorkspaceUsers`) manages one of their
 * emails. `declaring.label`: the class (`WorkspaceUsers` unless told); `declaring.secret`: the emails are secrets, and a
 * collision names only the resources.
 */
export async function ownedEmails<T extends { email: string }>(
  users: T[],
  name: string,
  instance: object,
  declaring: Declaring = { label: "WorkspaceUsers" },
): Promise<T[]> {
  const what = (u: T): [string, string] => [`the user with the email ${u.email}`, "one user (its email is a secret)"];
  await Promise.all(users.map((u) => declareOwner("User", emailKey(u.email), what(u), name, instance, declaring)));
  return users;
}

/**
 * Digests of the emails resources of the program other than `instance` declare, as far as the round `instance`'s own users were
 * declared in (a `WorkspaceUsers` hands over, instead of deleting, a user it created that one of them now declares).
 */
export function emailsDeclaredElsewhere(instance: object): string[] {
  const prefix = "User\u0000";
  return [...thisRun().owners]
    .filter(([key, owners]) => key.startsWith(prefix) && owners.some((o) => o.instance !== instance))
    .map(([key]) => digestOf("email", key.slice(prefix.length)))
    .sort();
}

/** The user id, passed through once both ids are known and no other `IntegrationEntitlement` of the program manages that membership. */
export function ownedMembership(
  integrationId: pulumi.Input<string>,
  userId: pulumi.Input<string>,
  name: string,
  instance: object,
): pulumi.Output<string> {
  const ids = pulumi.all([integrationId, userId]);
  return ids.apply(async ([integration, user]) => {
    if (typeof integration === "string" && typeof user === "string") {
      // One membership whatever the case of its ids: `ABC` and `abc` name one user.
      const key = `${idOf(integration)}/${idOf(user)}`;
      const what = `the membership of user ${user} in integration ${integration}`;
      // An id may be a secret: one a lookup given a secret returned, say.
      const secretWhat = "one membership (its user or integration id is a secret)";
      await declareOwner("IntegrationEntitlement", key, [what, secretWhat], name, instance, { secret: await pulumi.isSecret(ids) });
    }
    return user;
  });
}

/** The integration id, passed through once known and no resource manages its members beside an `IntegrationMembers` (the whole set). */
export function ownedIntegration(
  integrationId: pulumi.Input<string>,
  kind: "IntegrationMembers" | "IntegrationEntitlement",
  name: string,
  instance: object,
): pulumi.Output<string> {
  const output = pulumi.output(integrationId);
  return output.apply(async (value) => {
    if (typeof value !== "string") return value;
    const self = { kind, name, instance, secret: await pulumi.isSecret(output) };
    const owners = await declare(`integration\u0000${idOf(value)}`, self);
    const whole = owners.find((o) => o.kind === "IntegrationMembers");
    const other = owners.find((o) => o.instance !== instance);
    if (!whole || !other) return value;
    // An IntegrationMembers fails naming the first other resource; an IntegrationEntitlement, the IntegrationMembers.
    const [members, rival] = kind === "IntegrationMembers" ? [self, other] : [whole, self];
    const named = owners.some((o) => o.secret) ? "an integration (its id is a secret)" : `integration ${value}`;
    throw programError(integrationCollision(named, members, rival, name));
  });
}
