/**
 * `--check`: who gained or lost which access between an `access.yaml` and the workspace now.
 * Users are matched by email (case-insensitively), memberships by integration id and email.
 * Access is what is compared: users added or removed, their workspace role and guest flag,
 * memberships granted or removed, entitlements granted or revoked, and membership roles. Names
 * are not access, and are not compared.
 */
import type { AccessFile, AccessIntegration, AccessMember, AccessUser } from "./access-file";
import { byKey, emailKey as key } from "./names";

/** One difference, for people (`text`) and for programs (the rest). */
export interface AccessChange {
  kind:
    | "user-added"
    | "user-removed"
    | "user-role-changed"
    | "user-guest-changed"
    | "membership-added"
    | "membership-removed"
    | "membership-role-changed"
    | "entitlements-granted"
    | "entitlements-revoked";
  /** The user's email. */
  user: string;
  /** The integration's label (else its name), for memberships. */
  integration?: string;
  /** What it was, and what it is now, for changes of a value. */
  from?: string;
  to?: string;
  /** The entitlements granted, revoked, or held by a membership added or removed. */
  entitlements?: string[];
  /** `+ ann@acme.example: granted EDITOR in "Salesforce acme"` */
  text: string;
}

const show = (value: string | boolean | undefined) => (value === undefined ? "(not reported)" : String(value));

/** Every change from `before` (the file) to `after` (the workspace now), sorted by user, then integration. */
export function compareAccess(before: AccessFile, after: AccessFile): AccessChange[] {
  const changes: AccessChange[] = [];
  const oldUsers = new Map(before.users.map((u) => [key(u.email), u]));
  const newUsers = new Map(after.users.map((u) => [key(u.email), u]));
  for (const [email, user] of newUsers) {
    const was = oldUsers.get(email);
    if (!was) {
      changes.push({
        kind: "user-added",
        user: user.email,
        ...(user.role === undefined ? {} : { to: user.role }),
        text: `+ user ${user.email} added${describeUser(user)}`,
      });
      continue;
    }
    if (was.role !== user.role) {
      changes.push({
        kind: "user-role-changed",
        user: user.email,
        from: show(was.role),
        to: show(user.role),
        text: `~ user ${user.email}: role ${show(was.role)} -> ${show(user.role)}`,
      });
    }
    if (was.isGuest !== user.isGuest) {
      changes.push({
        kind: "user-guest-changed",
        user: user.email,
        from: show(was.isGuest),
        to: show(user.isGuest),
        text: `~ user ${user.email}: guest ${show(was.isGuest)} -> ${show(user.isGuest)}`,
      });
    }
  }
  for (const [email, user] of oldUsers) {
    if (!newUsers.has(email)) changes.push({ kind: "user-removed", user: user.email, text: `- user ${user.email} removed` });
  }

  const members = (integrations: AccessIntegration[]) => {
    const map = new Map<string, { integration: AccessIntegration; member: AccessMember }>();
    for (const integration of integrations) {
      for (const member of integration.members) map.set(`${integration.id}\u0000${key(member.user)}`, { integration, member });
    }
    return map;
  };
  const oldMembers = members(before.integrations);
  const newMembers = members(after.integrations);
  const labelOf = (i: AccessIntegration) => i.label ?? i.name;
  for (const [id, { integration, member }] of newMembers) {
    const label = labelOf(integration);
    const was = oldMembers.get(id)?.member;
    if (!was) {
      changes.push({
        kind: "membership-added",
        user: member.user,
        integration: label,
        to: member.role,
        entitlements: member.entitlements,
        text: `+ ${member.user} joined "${label}" as ${member.role} with ${member.entitlements.join(", ")}`,
      });
      continue;
    }
    if (was.role !== member.role) {
      changes.push({
        kind: "membership-role-changed",
        user: member.user,
        integration: label,
        from: was.role,
        to: member.role,
        text: `~ ${member.user} in "${label}": role ${was.role} -> ${member.role}`,
      });
    }
    const granted = member.entitlements.filter((e) => !was.entitlements.includes(e));
    const revoked = was.entitlements.filter((e) => !member.entitlements.includes(e));
    if (granted.length > 0) {
      changes.push({
        kind: "entitlements-granted",
        user: member.user,
        integration: label,
        entitlements: granted,
        text: `+ ${member.user} in "${label}": granted ${granted.join(", ")}`,
      });
    }
    if (revoked.length > 0) {
      changes.push({
        kind: "entitlements-revoked",
        user: member.user,
        integration: label,
        entitlements: revoked,
        text: `- ${member.user} in "${label}": revoked ${revoked.join(", ")}`,
      });
    }
  }
  for (const [id, { integration, member }] of oldMembers) {
    if (newMembers.has(id)) continue;
    const label = labelOf(integration);
    changes.push({
      kind: "membership-removed",
      user: member.user,
      integration: label,
      from: member.role,
      entitlements: member.entitlements,
      text: `- ${member.user} left "${label}" (was ${member.role} with ${member.entitlements.join(", ")})`,
    });
  }
  const order = (c: AccessChange) => `${key(c.user)}\u0000${c.integration === undefined ? "" : `\u0001${c.integration}`}\u0000${c.kind}`;
  return changes.sort(byKey(order));
}

function describeUser(user: AccessUser): string {
  const parts = [user.role, user.isGuest ? "guest" : undefined].filter((p) => p !== undefined);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}
