/**
 * `access.yaml`: the data file of an exported project. The export writes it; the project's
 * `index.ts` reads it with {@link readAccessFile} and declares one resource per entry; `--check`
 * compares it with the workspace. Plain data, sorted, no timestamps: the same workspace always
 * gives the same text. Loads nothing but Node's own modules, so a program that only reads the
 * file pays for nothing else.
 */
import { flowSequence, scalar } from "./yaml";

/** The version of the file's shape. */
export const ACCESS_FILE_VERSION = 1;

/** The integration roles a membership may have (the API reads them as `owner` and `collaborator`). */
export const MEMBERSHIP_ROLES = ["account_owner", "account_collaborator"] as const;

/** A membership's integration role. */
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** A workspace user of `access.yaml`. */
export interface AccessUser {
  /** The Pulumi resource name of the user's `User`. */
  name: string;
  email: string;
  firstName: string;
  lastName: string;
  /** The workspace role; absent when the service reported none (the service's value is then kept). */
  role?: string;
  /** The guest flag; absent when the service reported none. */
  isGuest?: boolean;
}

/** A member of an integration in `access.yaml`. */
export interface AccessMember {
  /** The member's email: one of the file's users. */
  user: string;
  role: MembershipRole;
  /** Entitlement ids, sorted. */
  entitlements: string[];
}

/** An integration of `access.yaml` and its members. */
export interface AccessIntegration {
  /** The integration's part of its memberships' resource names. */
  name: string;
  id: string;
  label?: string;
  application?: string;
  /** Sorted by email. */
  members: AccessMember[];
}

/** What the export was limited to, so `--check` compares the same part of the workspace. */
export interface AccessScope {
  /** The ids of the integrations given with `--integration`; absent: every integration. */
  integrations?: string[];
  /** Whether only users with a membership in those integrations were exported (`--members-only`). */
  membersOnly: boolean;
}

/** The kinds of record an export may leave out. */
export const LEFT_OUT_KINDS = ["integration", "user", "membership"] as const;

/**
 * A record the export could not declare, as `access.yaml` keeps it: so that `--check` tells a
 * record left out now from one left out already (and one no longer left out). Data, not
 * declarations: the program ignores it.
 */
export interface AccessLeftOut {
  kind: (typeof LEFT_OUT_KINDS)[number];
  /** The user's id (for an integration, its id); absent when the record had none. */
  id?: string;
  /** For a membership: the integration's id. */
  integration?: string;
  /** The user's email, when known. */
  email?: string;
  /**
   * The access it held when read whole, so that `--check` notices a change of it: a user's
   * workspace role, a membership's role as the service reports it (`owner`, `collaborator`).
   * Absent when the service reported none, or the record was not read whole.
   */
  role?: string;
  /** A user's guest flag, when reported. */
  isGuest?: boolean;
  /** A membership's entitlements, sorted, when read whole. */
  entitlements?: string[];
  /** Why it was left out, for people. */
  reason: string;
}

/**
 * What identifies a left-out record, across exports and checks: its kind, integration id and
 * record id (not the reason, nor the email).
 */
export function leftOutKey(record: Pick<AccessLeftOut, "kind" | "id" | "integration">): string {
  return `${record.kind}\u0000${record.integration ?? ""}\u0000${record.id ?? ""}`;
}

/** The contents of `access.yaml`. */
export interface AccessFile {
  version: number;
  /** The workspace's API address the file was exported from. */
  workspace?: string;
  scope: AccessScope;
  /** Sorted by email. */
  users: AccessUser[];
  /** Sorted by name. */
  integrations: AccessIntegration[];
  /**
   * The records of the scope that the export left out, one per key ({@link leftOutKey}), sorted by
   * kind (integrations, users, memberships), then integration id, then id. A file written before
   * the export recorded them has none: read as empty.
   */
  leftOut?: AccessLeftOut[];
}

/** One membership, as a program declares it: an `IntegrationEntitlement`. */
export interface AccessMembership {
  /** The Pulumi resource name: `<integration name>--<user name>`. */
  name: string;
  integrationId: string;
  /** The integration's label, else its name, for messages. */
  integration: string;
  /** The member's email, as in the file's users. */
  user: string;
  /** The resource name of the member's `User`. */
  userName: string;
  role: MembershipRole;
  entitlements: string[];
}

/** An `access.yaml` as a program uses it: the file, and its memberships one by one. */
export interface AccessData extends AccessFile {
  /** Every membership of every integration, in file order. */
  memberships: AccessMembership[];
  /** Empty when the file has none. */
  leftOut: AccessLeftOut[];
}

const HEADER = [
  "# The workspace's users and integration memberships, written by workspace-access-export.",
  "# index.ts declares a User per user and an IntegrationEntitlement per member (adoptExisting: true).",
  "# Edit it to change access, then run `pulumi up`. `workspace-access-export --check --out .` reports",
  "# where the workspace and this file differ (--accept takes the workspace's side). leftOut lists",
  "# what the export could not declare (nothing in index.ts manages it): --check compares it too.",
];

/** The file's left-out records in their order, one per key. */
export function sortedLeftOut(records: readonly AccessLeftOut[]): AccessLeftOut[] {
  const order = (r: AccessLeftOut) =>
    `${LEFT_OUT_KINDS.indexOf(r.kind)}\u0000${r.integration ?? ""}\u0000${r.id ?? ""}\u0000${r.email ?? ""}\u0000${r.reason}`;
  const sorted = [...records].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const keys = new Set<string>();
  return sorted.filter((r) => !keys.has(leftOutKey(r)) && keys.add(leftOutKey(r)));
}

/** The text of `access.yaml`: deterministic for the same data. */
export function formatAccessFile(file: AccessFile): string {
  const out = [...HEADER, `version: ${file.version}`];
  if (file.workspace !== undefined) out.push(`workspace: ${scalar(file.workspace)}`);
  out.push("scope:");
  if (file.scope.integrations !== undefined) out.push(`  integrations: ${flowSequence(file.scope.integrations)}`);
  out.push(`  membersOnly: ${file.scope.membersOnly}`);
  out.push(file.users.length === 0 ? "users: []" : "users:");
  for (const user of file.users) {
    out.push(`  - name: ${scalar(user.name)}`, `    email: ${scalar(user.email)}`);
    out.push(`    firstName: ${scalar(user.firstName)}`, `    lastName: ${scalar(user.lastName)}`);
    if (user.role !== undefined) out.push(`    role: ${scalar(user.role)}`);
    if (user.isGuest !== undefined) out.push(`    isGuest: ${user.isGuest}`);
  }
  out.push(file.integrations.length === 0 ? "integrations: []" : "integrations:");
  for (const integration of file.integrations) {
    out.push(`  - name: ${scalar(integration.name)}`, `    id: ${scalar(integration.id)}`);
    if (integration.label !== undefined) out.push(`    label: ${scalar(integration.label)}`);
    if (integration.application !== undefined) out.push(`    application: ${scalar(integration.application)}`);
    out.push(integration.members.length === 0 ? "    members: []" : "    members:");
    for (const member of integration.members) {
      out.push(`      - user: ${scalar(member.user)}`, `        role: ${member.role}`);
      out.push(`        entitlements: ${flowSequence(member.entitlements)}`);
    }
  }
  const leftOut = sortedLeftOut(file.leftOut ?? []);
  out.push(leftOut.length === 0 ? "leftOut: []" : "leftOut:");
  for (const record of leftOut) {
    out.push(`  - kind: ${record.kind}`);
    if (record.integration !== undefined) out.push(`    integration: ${scalar(record.integration)}`);
    if (record.id !== undefined) out.push(`    id: ${scalar(record.id)}`);
    if (record.email !== undefined) out.push(`    email: ${scalar(record.email)}`);
    if (record.role !== undefined) out.push(`    role: ${scalar(record.role)}`);
    if (record.isGuest !== undefined) out.push(`    isGuest: ${record.isGuest}`);
    if (record.entitlements !== undefined) out.push(`    entitlements: ${flowSequence(record.entitlements)}`);
    out.push(`    reason: ${scalar(record.reason)}`);
  }
  return `${out.join("\n")}\n`;
}

/** A problem with `access.yaml`'s contents, naming the file and what to fix. */
export class AccessFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AccessFileError";
  }
}

// Reading the file: access-file-read.ts.
export { parseAccessFile, readAccessFile } from "./access-file-read";
