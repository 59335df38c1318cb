/**
 * One owner per user and per membership in a program, checked before any resource is registered: two `User`s of one
 * email (case-insensitively), or two `IntegrationEntitlement`s of one membership (ids in their one form), would
 * overwrite each other, and destroying either would remove the access of both. The program fails, naming both.
 *
 * Each key input waits for its check, after a macrotask: the values known at declaration are then all declared, so
 * neither of two that collide is registered. A value known later (`userId: alice.id`) is checked in the round of
 * values that become known together; a collision with an earlier round fails the later one. Remembered per run.
 */
import * as pulumi from "@pulumi/pulumi";
import { emailKey } from "../client/models";
import { idOf } from "../client/ids";
import { integrationCollision, ownerCollision } from "./messages";
import { type ProgramRun, thisRun } from "./program-run";

type Kind = "User" | "IntegrationEntitlement";

const entry = (kind: Kind, key: string) => `${kind}\u0000${key}`;

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

/** Declares that `name` manages `key` and waits for the round; throws when another resource declared it too. */
async function declareOwner(kind: Kind, key: string, what: string, name: string): Promise<void> {
  const run = thisRun();
  const id = entry(kind, key);
  const names = run.owners.get(id) ?? [];
  if (!names.includes(name)) names.push(name);
  run.owners.set(id, names);
  await nextRound(run);
  const others = names.filter((n) => n !== name);
  if (others.length === 0) return;
  throw new Error(ownerCollision(kind, names, what, name));
}

/** The email, passed through once it is known and no other `User` of the program has it. */
export function ownedEmail(email: pulumi.Input<string>, name: string): pulumi.Output<string> {
  return pulumi.output(email).apply(async (value) => {
    if (typeof value === "string") await declareOwner("User", emailKey(value), `the user with the email ${value}`, name);
    return value;
  });
}

/** The users, passed through once no other resource of the program (a `User`, another `WorkspaceUsers`) manages one of their emails. */
export async function ownedEmails<T extends { email: string }>(users: T[], name: string): Promise<T[]> {
  await Promise.all(users.map((u) => declareOwner("User", emailKey(u.email), `the user with the email ${u.email}`, name)));
  return users;
}

/** The user id, passed through once both ids are known and no other `IntegrationEntitlement` of the program manages that membership. */
export function ownedMembership(integrationId: pulumi.Input<string>, userId: pulumi.Input<string>, name: string): pulumi.Output<string> {
  return pulumi.all([integrationId, userId]).apply(async ([integration, user]) => {
    if (typeof integration === "string" && typeof user === "string") {
      await declareOwner(
        "IntegrationEntitlement",
        // One membership whatever the case of its ids: `ABC` and `abc` name one user.
        `${idOf(integration)}/${idOf(user)}`,
        `the membership of user ${user} in integration ${integration}`,
        name,
      );
    }
    return user;
  });
}

/**
 * The integration id, passed through once it is known and no other resource of the program manages its members beside
 * an `IntegrationMembers`, which owns the whole set (each would undo the other's changes).
 */
export function ownedIntegration(
  integrationId: pulumi.Input<string>,
  kind: "IntegrationMembers" | "IntegrationEntitlement",
  name: string,
): pulumi.Output<string> {
  return pulumi.output(integrationId).apply(async (value) => {
    if (typeof value !== "string") return value;
    const run = thisRun();
    const declared = run.integrationOwners.get(idOf(value)) ?? [];
    if (!declared.some((d) => d.kind === kind && d.name === name)) declared.push({ kind, name });
    run.integrationOwners.set(idOf(value), declared);
    await nextRound(run);
    const whole = declared.filter((d) => d.kind === "IntegrationMembers");
    const others = declared.filter((d) => !(d.kind === kind && d.name === name));
    if (whole.length === 0 || others.length === 0) return value;
    const self = { kind, name };
    // An IntegrationMembers fails naming the first other resource; an IntegrationEntitlement, the IntegrationMembers.
    if (kind === "IntegrationMembers") throw new Error(integrationCollision(value, self, others[0]!, name));
    throw new Error(integrationCollision(value, whole[0]!, self, name));
  });
}
