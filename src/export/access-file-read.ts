/**
 * Reading `access.yaml`: the text parsed (`yaml.ts`) and checked field by field, every problem
 * naming the file, the field and what to fix. Loads nothing but Node's own modules.
 */
import * as fs from "node:fs";
import {
  ACCESS_FILE_VERSION,
  type AccessData,
  AccessFileError,
  type AccessIntegration,
  type AccessLeftOut,
  type AccessMember,
  type AccessMembership,
  type AccessScope,
  type AccessUser,
  LEFT_OUT_KINDS,
  MEMBERSHIP_ROLES,
  type MembershipRole,
  sortedLeftOut,
} from "./access-file";
import { emailKey, membershipName } from "./names";
import { parseYaml, YamlError, type YamlValue } from "./yaml";

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

  const { users, byEmail } = readUsers(top["users"], fail);
  const { integrations, memberships } = readIntegrations(top["integrations"], byEmail, fail);
  const leftOut = readLeftOut(top["leftOut"], fail);

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

/** `users`: each checked, no email (case-insensitively) or name twice. */
function readUsers(value: YamlValue | undefined, fail: Fail): { users: AccessUser[]; byEmail: Map<string, AccessUser> } {
  const users: AccessUser[] = [];
  const byEmail = new Map<string, AccessUser>();
  const userNames = new Set<string>();
  list(value, "users", fail).forEach((item, i) => {
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

  return { users, byEmail };
}

/** `integrations` and their members: each member one of the users, once. */
function readIntegrations(
  value: YamlValue | undefined,
  byEmail: Map<string, AccessUser>,
  fail: Fail,
): { integrations: AccessIntegration[]; memberships: AccessMembership[] } {
  const integrations: AccessIntegration[] = [];
  const memberships: AccessMembership[] = [];
  const integrationNames = new Set<string>();
  const integrationIds = new Set<string>();
  list(value, "integrations", fail).forEach((item, i) => {
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

  return { integrations, memberships };
}

/** `leftOut`: data, each record checked. */
function readLeftOut(value: YamlValue | undefined, fail: Fail): AccessLeftOut[] {
  return list(value, "leftOut", fail).map((item, i): AccessLeftOut => {
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
