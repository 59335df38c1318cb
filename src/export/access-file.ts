/**
 * `access.yaml`: the data file of an exported project. The export writes it; the project's
 * `index.ts` reads it with {@link readAccessFile} and declares one resource per entry; `--check`
 * compares it with the workspace. Plain data, sorted, no timestamps: the same workspace always
 * gives the same text. Written and read with the `yaml` library (its YAML 1.2 core schema:
 * a string that would read as anything else is quoted).
 */
import { Document, visit } from "yaml";

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
  " The workspace's users and integration memberships, written by workspace-access-export.",
  " index.ts declares a User per user and an IntegrationEntitlement per member (adoptExisting: true).",
  " Edit it to change access, then run `pulumi up`. `workspace-access-export --check --out .` reports",
  " where the workspace and this file differ (--accept takes the workspace's side). leftOut lists",
  " what the export could not declare (nothing in index.ts manages it): --check compares it too.",
].join("\n");

/** The lists written on one line (`[ADMIN, VIEWER]`): ids and entitlements, short and many. */
const FLOW_LISTS: ReadonlySet<string> = new Set(["integrations", "entitlements"]);

/** The file's left-out records in their order, one per key. */
export function sortedLeftOut(records: readonly AccessLeftOut[]): AccessLeftOut[] {
  const order = (r: AccessLeftOut) =>
    `${LEFT_OUT_KINDS.indexOf(r.kind)}\u0000${r.integration ?? ""}\u0000${r.id ?? ""}\u0000${r.email ?? ""}\u0000${r.reason}`;
  const sorted = [...records].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
  const keys = new Set<string>();
  return sorted.filter((r) => !keys.has(leftOutKey(r)) && keys.add(leftOutKey(r)));
}

/** The text of `access.yaml`: deterministic for the same data (keys in a fixed order, absent fields left out). */
export function formatAccessFile(file: AccessFile): string {
  const data = {
    version: file.version,
    workspace: file.workspace,
    scope: { integrations: file.scope.integrations, membersOnly: file.scope.membersOnly },
    users: file.users.map((u) => ({
      name: u.name,
      email: u.email,
      firstName: u.firstName,
      lastName: u.lastName,
      role: u.role,
      isGuest: u.isGuest,
    })),
    integrations: file.integrations.map((g) => ({
      name: g.name,
      id: g.id,
      label: g.label,
      application: g.application,
      members: g.members.map((m) => ({ user: m.user, role: m.role, entitlements: m.entitlements })),
    })),
    leftOut: sortedLeftOut(file.leftOut ?? []).map((r) => ({
      kind: r.kind,
      integration: r.integration,
      id: r.id,
      email: r.email,
      role: r.role,
      isGuest: r.isGuest,
      entitlements: r.entitlements,
      reason: r.reason,
    })),
  };
  const doc = new Document(data);
  doc.commentBefore = HEADER;
  // Lists of scalars under these keys on one line; `scope.integrations` is such a list, the top-level one is not.
  visit(doc, {
    Pair(_, pair) {
      const key = (pair.key as { value?: unknown } | null)?.value;
      const value = pair.value as { items?: Array<{ items?: unknown }>; flow?: boolean } | null;
      if (typeof key === "string" && FLOW_LISTS.has(key) && value?.items?.every((item) => item.items === undefined)) value.flow = true;
    },
  });
  // One line per value: no folding, no block scalars (a line break is written as \n), double quotes only.
  return doc.toString({ lineWidth: 0, blockQuote: false, singleQuote: false, flowCollectionPadding: false });
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
