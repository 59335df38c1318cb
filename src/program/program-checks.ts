/** Warnings given in the program, where the stack config and the declared values are at hand. */
import * as pulumi from "@pulumi/pulumi";
import { KNOWN_USER_ROLES } from "../client/models";
import { thisRun } from "./program-run";
import { namedUpTo } from "../shared/named-up-to";
import { settingName } from "../shared/settings";

/** Warns once per program run when `workspace-access:apiKey` is in the stack config in plaintext. */
export function warnIfPlaintextApiKey(): void {
  const { warned } = thisRun();
  if (warned.has("plaintext-api-key")) return;
  warned.add("plaintext-api-key");
  const key = settingName("apiKey", "stack");
  if (pulumi.runtime.getConfig(key) === undefined) return;
  // Defined by @pulumi/pulumi's runtime, not declared in its types: asked for, not assumed.
  const isSecret: unknown = Reflect.get(pulumi.runtime, "isConfigSecret");
  if (typeof isSecret === "function" && isSecret(key) === false) {
    // The engine records the default provider's stack config in the state: a plaintext key lands there as it is.
    void pulumi.log.warn(
      `${key} is stored in plaintext in the stack config, and so in the state of the default provider, in plain text, until ` +
        `the next \`pulumi up\` after it is stored encrypted. Run: pulumi config set --secret ${key} <key>, then pulumi up.`,
    );
  }
}

/** Whether `role` is a string the public document does not list as a workspace role. */
function isUnknownRole(role: unknown): role is string {
  return typeof role === "string" && !(KNOWN_USER_ROLES as readonly string[]).includes(role);
}

/** The warning of an unknown role, `named` as the message may name it (`role "x"`, `the role (a secret)`). */
function unknownRoleWarning(named: string): string {
  return `${named} is not one of the known workspace roles (${KNOWN_USER_ROLES.join(", ")}); it is sent as is.`;
}

/** Warns (does not fail) when a user's role is not one the public document lists; a secret role is not named. */
export function warnIfUnknownRole(role: pulumi.Input<string> | undefined, resource: pulumi.Resource): void {
  if (role === undefined) return;
  const output = pulumi.output(role);
  output.apply(async (value) => {
    if (isUnknownRole(value)) {
      void pulumi.log.warn(unknownRoleWarning((await pulumi.isSecret(output)) ? "the role (a secret)" : `role "${value}"`), resource);
    }
    return value;
  });
}

/**
 * Warns, once per unknown role, of the users of a set (by email in lower case) given a role the public document does not list,
 * naming them; `secret` (the set holds a secret, and Pulumi keeps it whole as one): naming neither the role nor the emails.
 */
export function warnOfUnknownRoles(
  users: Readonly<Record<string, { role?: unknown }>>,
  secret: boolean,
  resource: pulumi.Resource | undefined,
): void {
  const byRole = new Map<string, string[]>();
  for (const [email, user] of Object.entries(users)) {
    if (isUnknownRole(user.role)) byRole.set(user.role, [...(byRole.get(user.role) ?? []), email]);
  }
  for (const [role, emails] of byRole) {
    const of = emails.length === 1 ? "1 user" : `${emails.length} users`;
    const named = secret ? `the role (a secret) of ${of}` : `role "${role}" of ${namedUpTo(emails.sort())}`;
    void pulumi.log.warn(unknownRoleWarning(named), resource);
  }
}
