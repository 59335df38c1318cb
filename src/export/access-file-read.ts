/**
 * Reading `access.yaml`: the text parsed by the `yaml` library, its shape checked by a zod schema,
 * then what no one field shows (a member who is not a user, a name or email twice). Every problem
 * names the file, the line and the field, and what to fix.
 */
import * as fs from "node:fs";
import { isNode, LineCounter, parseDocument, type Document } from "yaml";
import {
  ACCESS_FILE_VERSION,
  type AccessData,
  AccessFileError,
  type AccessFile,
  accessFileSchema,
  type AccessMembership,
  sortedLeftOut,
} from "./access-file";
import { emailKey } from "../client/models";
import { membershipName } from "./names";

/** Reads and checks the text of an `access.yaml`; `source` names it in errors. */
export function parseAccessFile(text: string, source = "access.yaml"): AccessData {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  const [broken] = doc.errors;
  if (broken) {
    // The library's message, less the place it appends (named here first) and the excerpt of the file.
    const message = (broken.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    const line = broken.linePos?.[0].line;
    throw new AccessFileError(`${source}${line === undefined ? "" : `, line ${line}`}: ${message}`);
  }
  /** Fails naming the line of the node at `path` (or of the nearest one above it) and the field. */
  const fail = (path: ReadonlyArray<PropertyKey>, what: string): never => {
    throw new AccessFileError(`${source}${lineOf(doc, lines, path)}: ${what}`);
  };
  const parsed = accessFileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = issue?.path ?? [];
    fail(path, path.length === 0 ? `the file ${issue?.message ?? "is not valid"}` : `${fieldName(path)} ${issue?.message}`);
  }
  const file = parsed.data!;
  const memberships = checkRecords(file, fail);
  return {
    ...withoutAbsent({ ...file, version: ACCESS_FILE_VERSION }),
    scope: withoutAbsent(file.scope),
    users: file.users.map(withoutAbsent),
    integrations: file.integrations.map(withoutAbsent),
    leftOut: sortedLeftOut(file.leftOut.map(withoutAbsent)),
    memberships,
  };
}

type Fail = (path: ReadonlyArray<PropertyKey>, what: string) => never;

/**
 * What the schema cannot say: no user's email (case-insensitively) or name twice, no integration's
 * name or id twice nor a name with `--` (it separates a membership's name), every member one of the
 * users, once. The memberships, in file order.
 */
function checkRecords(file: AccessFile, fail: Fail): AccessMembership[] {
  const byEmail = new Map<string, AccessFile["users"][number]>();
  const userNames = new Set<string>();
  file.users.forEach((u, i) => {
    if (byEmail.has(emailKey(u.email)))
      fail(["users", i], `users[${i}]: the email ${u.email} is listed twice (emails compare case-insensitively)`);
    if (userNames.has(u.name)) fail(["users", i], `users[${i}]: the name ${u.name} is used twice`);
    byEmail.set(emailKey(u.email), u);
    userNames.add(u.name);
  });
  const memberships: AccessMembership[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  file.integrations.forEach((g, i) => {
    const at = `integrations[${i}]`;
    if (names.has(g.name)) fail(["integrations", i], `${at}: the name ${g.name} is used twice`);
    if (g.name.includes("--")) fail(["integrations", i, "name"], `${at}: the name ${g.name} must not contain "--"`);
    if (ids.has(g.id)) fail(["integrations", i], `${at}: the integration ${g.id} is listed twice`);
    names.add(g.name);
    ids.add(g.id);
    const seen = new Set<string>();
    g.members.forEach((m, j) => {
      const path = ["integrations", i, "members", j];
      const u =
        byEmail.get(emailKey(m.user)) ??
        fail(path, `${at}.members[${j}]: ${m.user} is not one of the users: add the user to users, or remove the member`);
      if (seen.has(u.name)) fail(path, `${at}.members[${j}]: ${m.user} is a member twice`);
      seen.add(u.name);
      // The member as the users list spells the email.
      m.user = u.email;
      const { role, entitlements } = m;
      const integration = g.label ?? g.name;
      memberships.push({
        name: membershipName(g.name, u.name),
        integrationId: g.id,
        integration,
        user: u.email,
        userName: u.name,
        role,
        entitlements,
      });
    });
  });
  return memberships;
}

/** `users[0].email`: a field as messages name it. */
function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`)).join("");
}

/** `, line 12`: the line of the node at `path`, or of the nearest one above it that the file has. */
function lineOf(doc: Document, lines: LineCounter, path: ReadonlyArray<PropertyKey>): string {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as Array<string | number>, true);
    if (isNode(node) && node.range) return `, line ${lines.linePos(node.range[0]).line}`;
  }
  return "";
}

/** The object without its absent fields: the file's types leave them out rather than holding `undefined`. */
function withoutAbsent<T extends object>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as T;
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
