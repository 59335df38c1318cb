/**
 * `access.yaml`: the data file of an exported project. The export writes it; the project's
 * `index.ts` reads it with {@link readAccessFile} and declares one resource per entry; `--check`
 * compares it with the workspace. Plain data, sorted, no timestamps: the same workspace always
 * gives the same text. Loads nothing but Node's own modules, so a program that only reads the
 * file pays for nothing else.
 */
import * as fs from "node:fs";
import { emailKey, membershipName } from "./names";
import { flowSequence, parseYaml, scalar, YamlError, type YamlValue } from "./yaml";

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
  "# who gained or lost access in the workspace since. leftOut lists what the export could not",
  "# declare (nothing in index.ts manages it): --check reports a record left out since, too.",
];

/** The file's left-out records in their order, one per key. */
function sortedLeftOut(records: readonly AccessLeftOut[]): AccessLeftOut[] {
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

type Obj = { [key: string]: YamlValue };

/** Reads and checks the text of an `access.yaml`; `source` names it in errors. */
export function parseAccessFile(text: string, source = "access.yaml"): AccessData {
  let root: YamlValue;
  try {
    root = parseYaml(text);
  } catch (error) {
    if (error instanceof YamlError) throw new AccessFileError(`${source}, ${error.message}`);
    throw error;
  }
  const fail = (what: string): never => {
    throw new AccessFileError(`${source}: ${what}`);
  };
  const top = object(root, "the file", fail);
  const version = top["version"];
  if (version !== ACCESS_FILE_VERSION) fail(`version must be ${ACCESS_FILE_VERSION}, got ${JSON.stringify(version ?? null)}`);
  const scopeObj = top["scope"] === undefined || top["scope"] === null ? {} : object(top["scope"], "scope", fail);
  const scopeIds = scopeObj["integrations"];
  const scope: AccessScope = {
    ...(scopeIds === undefined || scopeIds === null ? {} : { integrations: strings(scopeIds, "scope.integrations", fail) }),
    membersOnly: optionalBoolean(scopeObj["membersOnly"], "scope.membersOnly", fail) ?? false,
  };
  const workspace = optionalString(top["workspace"], "workspace", fail);

  const users: AccessUser[] = [];
  const byEmail = new Map<string, AccessUser>();
  const userNames = new Set<string>();
  list(top["users"], "users", fail).forEach((item, i) => {
    const at = `users[${i}]`;
    const u = object(item, at, fail);
    const user: AccessUser = {
      name: requiredString(u["name"], `${at}.name`, fail),
      email: requiredString(u["email"], `${at}.email`, fail),
      firstName: requiredString(u["firstName"], `${at}.firstName`, fail),
      lastName: requiredString(u["lastName"], `${at}.lastName`, fail),
    };
    const role = optionalString(u["role"], `${at}.role`, fail);
    if (role !== undefined) user.role = role;
    const isGuest = optionalBoolean(u["isGuest"], `${at}.isGuest`, fail);
    if (isGuest !== undefined) user.isGuest = isGuest;
    const email = emailKey(user.email);
    if (byEmail.has(email)) fail(`${at}: the email ${user.email} is listed twice (emails compare case-insensitively)`);
    if (userNames.has(user.name)) fail(`${at}: the name ${user.name} is used twice`);
    byEmail.set(email, user);
    userNames.add(user.name);
    users.push(user);
  });

  const integrations: AccessIntegration[] = [];
  const memberships: AccessMembership[] = [];
  const integrationNames = new Set<string>();
  const integrationIds = new Set<string>();
  list(top["integrations"], "integrations", fail).forEach((item, i) => {
    const at = `integrations[${i}]`;
    const g = object(item, at, fail);
    const integration: AccessIntegration = {
      name: requiredString(g["name"], `${at}.name`, fail),
      id: requiredString(g["id"], `${at}.id`, fail),
      members: [],
    };
    const label = optionalString(g["label"], `${at}.label`, fail);
    if (label !== undefined) integration.label = label;
    const application = optionalString(g["application"], `${at}.application`, fail);
    if (application !== undefined) integration.application = application;
    if (integrationNames.has(integration.name)) fail(`${at}: the name ${integration.name} is used twice`);
    if (integration.name.includes("--")) fail(`${at}: the name ${integration.name} must not contain "--"`);
    if (integrationIds.has(integration.id)) fail(`${at}: the integration ${integration.id} is listed twice`);
    integrationNames.add(integration.name);
    integrationIds.add(integration.id);
    const seen = new Set<string>();
    list(g["members"], `${at}.members`, fail).forEach((memberItem, j) => {
      const mat = `${at}.members[${j}]`;
      const m = object(memberItem, mat, fail);
      const email = requiredString(m["user"], `${mat}.user`, fail);
      const user = byEmail.get(emailKey(email));
      if (!user) fail(`${mat}: ${email} is not one of the users: add the user to users, or remove the member`);
      const role = m["role"] ?? "account_collaborator";
      if (!MEMBERSHIP_ROLES.includes(role as MembershipRole)) fail(`${mat}.role must be ${MEMBERSHIP_ROLES.join(" or ")}`);
      const entitlements = [...new Set(strings(m["entitlements"], `${mat}.entitlements`, fail))].sort();
      if (entitlements.length === 0) fail(`${mat}.entitlements must name at least one entitlement (to remove access, remove the member)`);
      if (seen.has(user!.name)) fail(`${mat}: ${email} is a member twice`);
      seen.add(user!.name);
      const member: AccessMember = { user: user!.email, role: role as MembershipRole, entitlements };
      integration.members.push(member);
      memberships.push({
        name: membershipName(integration.name, user!.name),
        integrationId: integration.id,
        integration: integration.label ?? integration.name,
        user: user!.email,
        userName: user!.name,
        role: member.role,
        entitlements,
      });
    });
    integrations.push(integration);
  });

  const leftOut = list(top["leftOut"], "leftOut", fail).map((item, i): AccessLeftOut => {
    const at = `leftOut[${i}]`;
    const r = object(item, at, fail);
    const kind = r["kind"];
    if (!LEFT_OUT_KINDS.includes(kind as AccessLeftOut["kind"])) fail(`${at}.kind must be ${LEFT_OUT_KINDS.join(", ")}`);
    const record: AccessLeftOut = { kind: kind as AccessLeftOut["kind"], reason: requiredString(r["reason"], `${at}.reason`, fail) };
    const integration = optionalString(r["integration"], `${at}.integration`, fail);
    if (integration !== undefined) record.integration = integration;
    const id = optionalString(r["id"], `${at}.id`, fail);
    if (id !== undefined) record.id = id;
    const email = optionalString(r["email"], `${at}.email`, fail);
    if (email !== undefined) record.email = email;
    const role = optionalString(r["role"], `${at}.role`, fail);
    if (role !== undefined) record.role = role;
    const isGuest = optionalBoolean(r["isGuest"], `${at}.isGuest`, fail);
    if (isGuest !== undefined) record.isGuest = isGuest;
    if (r["entitlements"] !== undefined && r["entitlements"] !== null) {
      record.entitlements = [...new Set(strings(r["entitlements"], `${at}.entitlements`, fail))].sort();
    }
    return record;
  });
  return {
    version: ACCESS_FILE_VERSION,
    ...(workspace === undefined ? {} : { workspace }),
    scope,
    users,
    integrations,
    leftOut: sortedLeftOut(leftOut),
    memberships,
  };
}

/**
 * Reads an `access.yaml` written by `workspace-access-export` (or edited in its style) and checks
 * it: every member is one of the users, no email, name or membership twice. What a generated
 * `index.ts` declares its resources from.
 *
 * ```ts
 * const access = readAccessFile(path.join(__dirname, "access.yaml"));
 * for (const user of access.users) new wa.User(user.name, { ...user, adoptExisting: true });
 * ```
 */
export function readAccessFile(file: string): AccessData {
  return parseAccessFile(fs.readFileSync(file, "utf8"), file);
}

// ----- field readers -----

type Fail = (what: string) => never;

function object(value: YamlValue | undefined, at: string, fail: Fail): Obj {
  if (value === null || value === undefined || typeof value !== "object" || Array.isArray(value)) return fail(`${at} must be a mapping`);
  return value;
}

function list(value: YamlValue | undefined, at: string, fail: Fail): YamlValue[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return fail(`${at} must be a list`);
  return value;
}

function requiredString(value: YamlValue | undefined, at: string, fail: Fail): string {
  if (typeof value !== "string" || value === "")
    return fail(`${at} must be text${typeof value === "number" || typeof value === "boolean" ? ` (quote it: "${value}")` : ""}`);
  return value;
}

function optionalString(value: YamlValue | undefined, at: string, fail: Fail): string | undefined {
  return value === undefined || value === null ? undefined : requiredString(value, at, fail);
}

function optionalBoolean(value: YamlValue | undefined, at: string, fail: Fail): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") return fail(`${at} must be true or false`);
  return value;
}

function strings(value: YamlValue | undefined, at: string, fail: Fail): string[] {
  return list(value, at, fail).map((item, i) => requiredString(item, `${at}[${i}]`, fail));
}
