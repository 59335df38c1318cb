/**
 * `--check`: who gained or lost which access between an `access.yaml` and the workspace now.
 * Users are matched by email (case-insensitively), memberships by integration id and email.
 * Compared: users added or removed, and every attribute the project declares for a user (first
 * and last name, workspace role, guest flag); memberships added or removed, their roles, and
 * entitlements granted or revoked; and the records the export leaves out (`leftOut`): one left out
 * now that was not left out then, and one no longer left out. A record left out on one side is
 * reported as such, not as added or removed: a user whose last name was cleared is left out now,
 * not gone, and the members of an integration whose record broke the contract have not left.
 * Under `--members-only`, a user whose last membership in scope ended is out of scope, not removed.
 */
import { type AccessFile, type AccessIntegration, type AccessLeftOut, type AccessMember, type AccessUser, leftOutKey } from "./access-file";
import { type LeftOut, recordedLeftOut } from "./build";
import { byKey, emailKey as key } from "./names";

/** One difference, for people (`text`) and for programs (the rest). */
export interface AccessChange {
  kind:
    | "user-added"
    | "user-removed"
    | "user-out-of-scope"
    | "user-role-changed"
    | "user-guest-changed"
    | "user-renamed"
    | "membership-added"
    | "membership-removed"
    | "membership-role-changed"
    | "entitlements-granted"
    | "entitlements-revoked"
    | "left-out-now"
    | "left-out-changed"
    | "no-longer-left-out";
  /** The user's email (else the user's id); empty for an integration left out. */
  user: string;
  /** The integration's label (else its name, else its id), for memberships and integrations. */
  integration?: string;
  /** What it was, and what it is now, for changes of a value. */
  from?: string;
  to?: string;
  /** The entitlements granted, revoked, or held by a membership added or removed. */
  entitlements?: string[];
  /** For a record left out (now, or no longer): what was left out, and why. */
  leftOut?: AccessLeftOut;
  /** `+ ann@acme.example: granted EDITOR in "Salesforce acme"` */
  text: string;
}

/** What the check read besides `after`, for the details of its lines. */
export interface CompareNow {
  /**
   * The records left out now, as the build reports them (a membership's role and entitlements as
   * read). Default: `after.leftOut`, without those details.
   */
  leftOut?: readonly LeftOut[];
  /**
   * The emails (as {@link key} compares them) of every user the workspace lists now, in scope or
   * not: under `--members-only`, a user without a membership in scope any more is still a user.
   */
  workspaceEmails?: ReadonlySet<string>;
}

const show = (value: string | boolean | undefined) => (value === undefined ? "(not reported)" : String(value));

/** A left-out record, from either side, with what matches it to the file's users and memberships. */
interface Left {
  record: AccessLeftOut;
  key: string;
  /** For a user or membership with an email: the user's email key; for a membership, prefixed by the integration id. */
  match?: string;
  /** For a record read whole now: a membership's role and entitlements, a user's role and guest flag. */
  role?: string | null;
  entitlements?: string[];
  isGuest?: boolean | null;
}

const membershipMatch = (integrationId: string, email: string) => `${integrationId}\u0000${key(email)}`;

function left(record: AccessLeftOut, details: Pick<Left, "role" | "entitlements" | "isGuest"> = {}): Left {
  let match: string | undefined;
  if (record.kind === "user" && record.email !== undefined) match = key(record.email);
  if (record.kind === "membership" && record.email !== undefined && record.integration !== undefined) {
    match = membershipMatch(record.integration, record.email);
  }
  return { record, key: leftOutKey(record), ...(match === undefined ? {} : { match }), ...details };
}

/** The now side's left-out records: the build's, with their details, else the file's. */
function leftNow(after: AccessFile, now: CompareNow): Left[] {
  if (now.leftOut === undefined) return (after.leftOut ?? []).map((r) => left(r));
  const byKey = new Map<string, Left>();
  for (const l of now.leftOut) {
    const details =
      l.kind === "membership"
        ? l.role === undefined
          ? {}
          : { role: l.role, entitlements: l.entitlements ?? [] }
        : l.kind === "user" && l.role !== undefined
          ? { role: l.role, isGuest: l.isGuest ?? null }
          : {};
    const entry = left(recordedLeftOut(l), details);
    if (!byKey.has(entry.key)) byKey.set(entry.key, entry);
  }
  return [...byKey.values()];
}

/**
 * Every change from `before` (the file) to `after` (the workspace now, as an export would write
 * it), sorted by user, then integration.
 */
export function compareAccess(before: AccessFile, after: AccessFile, now: CompareNow = {}): AccessChange[] {
  const changes: AccessChange[] = [];
  const then = (before.leftOut ?? []).map((r) => left(r));
  const current = leftNow(after, now);
  const thenKeys = new Set(then.map((l) => l.key));
  const nowKeys = new Set(current.map((l) => l.key));
  const matches = (list: Left[], kind: AccessLeftOut["kind"]) =>
    new Set(list.filter((l) => l.record.kind === kind && l.match !== undefined).map((l) => l.match!));
  const usersLeftThen = matches(then, "user");
  const usersLeftNow = matches(current, "user");
  const membershipsLeftThen = matches(then, "membership");
  const integrationsLeft = (list: Left[]) =>
    new Set(list.filter((l) => l.record.kind === "integration" && l.record.id !== undefined).map((l) => l.record.id!));
  const integrationsLeftThen = integrationsLeft(then);
  const integrationsLeftNow = integrationsLeft(current);

  const oldUsers = new Map(before.users.map((u) => [key(u.email), u]));
  const newUsers = new Map(after.users.map((u) => [key(u.email), u]));
  for (const [email, user] of newUsers) {
    const was = oldUsers.get(email);
    if (!was) {
      // Left out then, declarable now: the "no longer left out" line says so; the user is not new.
      if (usersLeftThen.has(email)) continue;
      changes.push({
        kind: "user-added",
        user: user.email,
        ...(user.role === undefined ? {} : { to: user.role }),
        text: `+ user ${user.email} added${describeUser(user)}`,
      });
      continue;
    }
    if (was.firstName !== user.firstName || was.lastName !== user.lastName) {
      const renamed = (["firstName", "lastName"] as const)
        .filter((field) => was[field] !== user[field])
        .map((field) => `${field} ${JSON.stringify(was[field])} -> ${JSON.stringify(user[field])}`);
      changes.push({
        kind: "user-renamed",
        user: user.email,
        from: `${was.firstName} ${was.lastName}`,
        to: `${user.firstName} ${user.lastName}`,
        text: `~ user ${user.email}: renamed, ${renamed.join(", ")}`,
      });
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
    if (newUsers.has(email)) continue;
    // Still there, but left out now: the "left out now" line says why.
    if (usersLeftNow.has(email)) continue;
    if (now.workspaceEmails?.has(email)) {
      changes.push({
        kind: "user-out-of-scope",
        user: user.email,
        text: `- user ${user.email}: no membership in scope now (still a user of the workspace)`,
      });
      continue;
    }
    changes.push({ kind: "user-removed", user: user.email, text: `- user ${user.email} removed` });
  }

  const members = (integrations: AccessIntegration[]) => {
    const map = new Map<string, { integration: AccessIntegration; member: AccessMember }>();
    for (const integration of integrations) {
      for (const member of integration.members) map.set(membershipMatch(integration.id, member.user), { integration, member });
    }
    return map;
  };
  const oldMembers = members(before.integrations);
  const newMembers = members(after.integrations);
  const labels = new Map([...before.integrations, ...after.integrations].map((i) => [i.id, i.label ?? i.name]));
  const labelOf = (i: AccessIntegration) => i.label ?? i.name;
  for (const [id, { integration, member }] of newMembers) {
    const label = labelOf(integration);
    const was = oldMembers.get(id)?.member;
    if (!was) {
      // Left out then (the member, or the whole integration): not new; the "no longer left out" line says so.
      if (membershipsLeftThen.has(id) || integrationsLeftThen.has(integration.id)) continue;
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
  // Members whose every entitlement was revoked: reported as that (they are still members).
  const emptied = new Set<string>();
  const membershipLeftNow = new Map(current.filter((l) => l.record.kind === "membership" && l.match).map((l) => [l.match!, l]));
  for (const [id, { integration, member }] of oldMembers) {
    if (newMembers.has(id)) continue;
    const label = labelOf(integration);
    const nowLeft = membershipLeftNow.get(id);
    if (nowLeft?.entitlements?.length === 0 && nowLeft.role !== undefined) {
      emptied.add(nowLeft.key);
      changes.push({
        kind: "entitlements-revoked",
        user: member.user,
        integration: label,
        entitlements: member.entitlements,
        text: `- ${member.user} in "${label}": revoked ${member.entitlements.join(", ")} (still a member, with no entitlement)`,
      });
      continue;
    }
    // Still there, but left out now (the member, or the whole integration): the "left out now" line says why.
    if (nowLeft || integrationsLeftNow.has(integration.id)) continue;
    changes.push({
      kind: "membership-removed",
      user: member.user,
      integration: label,
      from: member.role,
      entitlements: member.entitlements,
      text: `- ${member.user} left "${label}" (was ${member.role} with ${member.entitlements.join(", ")})`,
    });
  }

  // The records left out now that were not then, and those no longer left out.
  const about = (record: AccessLeftOut): { user: string; integration?: string } => {
    const who = record.email ?? record.id ?? "(no id)";
    if (record.kind === "user") return { user: who };
    const integrationId = record.kind === "membership" ? record.integration : record.id;
    const integration = integrationId === undefined ? "?" : (labels.get(integrationId) ?? integrationId);
    return { user: record.kind === "membership" ? who : "", integration };
  };
  const describe = (record: AccessLeftOut) => {
    const who = `${record.id ?? "(no id)"}${record.email === undefined ? "" : ` <${record.email}>`}`;
    if (record.kind === "user") return `user ${who}`;
    const { integration } = about(record);
    if (record.kind === "membership") return `membership of ${who} in "${integration}"`;
    return `integration ${record.id ?? "(no id)"}${integration === record.id ? "" : ` ("${integration}")`}`;
  };
  const thenByKey = new Map(then.map((l) => [l.key, l.record]));
  for (const l of current) {
    const was = thenByKey.get(l.key);
    if (was !== undefined) {
      // Left out then and now: still compared, by what is known of it.
      const changed = leftOutAccessChanges(was, l);
      if (changed.length > 0) {
        changes.push({
          kind: "left-out-changed",
          ...about(l.record),
          leftOut: l.record,
          ...(l.entitlements === undefined ? {} : { entitlements: l.entitlements }),
          text: `! ${describe(l.record)}: left out (${l.record.reason}), and its access changed: ${changed.join(", ")}`,
        });
      }
      continue;
    }
    if (emptied.has(l.key)) continue;
    const holds =
      l.role !== undefined && l.entitlements !== undefined
        ? `; holds role ${l.role ?? "(none)"} with ${l.entitlements.length > 0 ? l.entitlements.join(", ") : "no entitlement"}`
        : "";
    changes.push({
      kind: "left-out-now",
      ...about(l.record),
      leftOut: l.record,
      ...(l.entitlements === undefined ? {} : { entitlements: l.entitlements }),
      text: `! ${describe(l.record)}: left out now: ${l.record.reason}${holds}`,
    });
  }
  for (const l of then) {
    if (nowKeys.has(l.key)) continue;
    changes.push({
      kind: "no-longer-left-out",
      ...about(l.record),
      leftOut: l.record,
      text: `! ${describe(l.record)}: no longer left out (was: ${l.record.reason})`,
    });
  }

  const order = (c: AccessChange) => `${key(c.user)}\u0000${c.integration === undefined ? "" : `\u0001${c.integration}`}\u0000${c.kind}`;
  return changes.sort(byKey(order));
}

/**
 * How the access of a record left out then and now differs, by what both sides know of it: a
 * user's role and guest flag, a membership's role and entitlements, when read whole now.
 */
function leftOutAccessChanges(was: AccessLeftOut, now: Left): string[] {
  const changes: string[] = [];
  if (now.role === undefined) return changes;
  const role = (value: string | null | undefined) => value ?? "(none)";
  if ((was.role ?? null) !== now.role) changes.push(`role ${role(was.role)} -> ${role(now.role)}`);
  if (now.record.kind === "user" && (was.isGuest ?? null) !== (now.isGuest ?? null)) {
    changes.push(`guest ${show(was.isGuest)} -> ${show(now.isGuest ?? undefined)}`);
  }
  if (now.record.kind === "membership" && now.entitlements !== undefined) {
    const before = was.entitlements ?? [];
    const granted = now.entitlements.filter((e) => !before.includes(e));
    const revoked = before.filter((e) => !now.entitlements!.includes(e));
    if (granted.length > 0) changes.push(`granted ${granted.join(", ")}`);
    if (revoked.length > 0) changes.push(`revoked ${revoked.join(", ")}`);
  }
  return changes;
}

function describeUser(user: AccessUser): string {
  const parts = [user.role, user.isGuest ? "guest" : undefined].filter((p) => p !== undefined);
  return parts.length > 0 ? ` (${parts.join(", ")})` : "";
}
