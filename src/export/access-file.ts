/**
 * `access.yaml`, the data file of an exported project: written by the export, read by its `index.ts`
 * ({@link readAccessFile}) and by `--check`. Sorted, no timestamps: the same workspace gives the same text.
 * One zod schema checks a file read (a key it does not know is refused, naming the key meant) and gives the writer its key
 * order; the `yaml` library reads and writes it.
 */
import * as fs from "node:fs";
import { Document, isAlias, isMap, isNode, isScalar, LineCounter, parseDocument, visit } from "yaml";
import { z } from "zod";
import { idOf } from "../client";
import { readBaseUrl, refusal } from "../client/settings";
import { emailKey } from "../client/models";
import { editDistance } from "../shared/edit-distance";
import { integrationEntitlementInputs, userInputs } from "../shared/inputs";
import { AccessFileError } from "./errors";
import { byKey, membershipName } from "./names";

/** The version of the file's shape. */
export const ACCESS_FILE_VERSION = 1;

/** The integration roles a membership may have (the API reads them as `owner` and `collaborator`). */
const MEMBERSHIP_ROLES = ["account_owner", "account_collaborator"] as const;

/** A membership's integration role. */
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

/** The kinds of record an export may leave out. */
export const LEFT_OUT_KINDS = ["integration", "user", "membership"] as const;

// The published types are written out, not inferred from the schemas: a declaration that names zod's
// types would make every program compile zod's own declarations. `satisfies` keeps the two in step.

/** A workspace user of `access.yaml`. */
export interface AccessUser {
  /** The Pulumi resource name of the user's `User`. */
  name: string;
  email: string;
  firstName: string;
  lastName: string;
  /** Absent when the service reported none (its value is then kept), as is `isGuest`. */
  role?: string | undefined;
  isGuest?: boolean | undefined;
  /**
   * The workspace's id of the user, written by the export (absent for a user added by hand). The `sets` shape
   * declares members by it, so that a preview after a change of users shows only the integrations it touches.
   */
  id?: string | undefined;
}

/** A member of an integration in `access.yaml`. */
export interface AccessMember {
  /** One of the file's users' emails. */
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
  label?: string | undefined;
  application?: string | undefined;
  /** Sorted by email. */
  members: AccessMember[];
}

/** What the export was limited to, so `--check` compares the same part of the workspace. */
export interface AccessScope {
  /** The ids of the integrations given with `--integration`; absent: every integration. */
  integrations?: string[] | undefined;
  /** Whether only users with a membership in those integrations were exported (`--members-only`). */
  membersOnly: boolean;
}

/** A record the export could not declare, kept so that `--check` tells one left out now from one left out already. */
export interface AccessLeftOut {
  kind: (typeof LEFT_OUT_KINDS)[number];
  /** For a membership: the integration's id. */
  integration?: string | undefined;
  /** The user's id (for an integration, its id); absent when the record had none. */
  id?: string | undefined;
  email?: string | undefined;
  /**
   * For a record with neither id nor email (its id could not be read), how many the workspace leaves out of its kind (and
   * integration): nothing tells them apart, so they are one record (absent: one).
   */
  count?: number | undefined;
  /**
   * What it held when read whole, so that `--check` notices a change: a user's workspace role and guest
   * flag, a membership's role as the service reports it (`owner`, `collaborator`) and its sorted entitlements.
   */
  role?: string | undefined;
  isGuest?: boolean | undefined;
  entitlements?: string[] | undefined;
  /** Why it was left out, for people. */
  reason: string;
}

/** The contents of `access.yaml`. */
export interface AccessFile {
  version: typeof ACCESS_FILE_VERSION;
  /** The API address it was exported from. */
  workspace?: string | undefined;
  scope: AccessScope;
  /** Sorted by email. */
  users: AccessUser[];
  /** Sorted by name. */
  integrations: AccessIntegration[];
  /**
   * The records the export left out, one per key ({@link leftOutKey}: a file with two is refused; several the export found
   * under one key are one record giving each reason, those with neither id nor email with their `count`), sorted
   * ({@link sortedLeftOut}).
   */
  leftOut: AccessLeftOut[];
}

/** Text, and for a number or a boolean where text belongs, how to quote it. */
const text = z.string({
  error: (issue) =>
    `must be text${typeof issue.input === "number" || typeof issue.input === "boolean" ? ` (quote it: "${issue.input}")` : ""}`,
});
const nonEmpty = text.min(1, { error: "must be text" });
/** An id in its one form: a file exported when the service answered ids in upper case reads as the same records. */
const id = nonEmpty.transform((raw): string => idOf(raw));
const bool = z.boolean({ error: "must be true or false" });
/**
 * The API address the file records, checked as the provider checks one (`readBaseUrl`), in its one form (a trailing `/`,
 * the host in lower case): the check compares it with the address it reads.
 */
const address = nonEmpty.transform((raw, ctx): string => {
  // The problem as data, worded after the field's name as the file's other issues are: no client message is taken apart.
  const read = readBaseUrl(raw);
  if ("url" in read) return read.url.href;
  const message = `${refusal(read.problem)} (the address the file was exported from: correct it, or remove the line)`;
  ctx.addIssue({ code: "custom", message });
  return z.NEVER;
});
const mapping = { error: "must be a mapping" };
/** Absent or null: left out (`optional`) or `value` (`orElse`). */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => value ?? undefined, schema.optional());
const orElse = <T extends z.ZodType>(schema: T, value: unknown) => z.preprocess((given) => given ?? value, schema);
const list = <T extends z.ZodType>(item: T) => orElse(z.array(item, { error: "must be a list" }), []);
/**
 * Absent, null or empty: left out. For text no program declares (an integration's label, what a record left out held): the
 * export writes an empty one as absent, and a file an earlier export wrote with one reads as if it had none.
 */
const unlessEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === "" ? undefined : (value ?? undefined)), schema.optional());
/** Entitlement ids: each once, sorted. */
const entitlements = z.array(nonEmpty, { error: "must be a list" }).transform((ids) => [...new Set(ids)].sort());
/** The entitlements a record left out held: as {@link entitlements}, an empty id left out (as {@link unlessEmpty}). */
const heldEntitlements = z.array(text, { error: "must be a list" }).transform((ids) => [...new Set(ids.filter((id) => id !== ""))].sort());
/** How many records one left out stands for: a whole number, 1 written as absent. */
const count = z
  .number({ error: "must be a whole number" })
  .int({ error: "must be a whole number" })
  .min(1, { error: "must be 1 or more" })
  .transform((n) => (n === 1 ? undefined : n));

const userSchema = z.strictObject(
  {
    name: nonEmpty,
    email: nonEmpty,
    firstName: nonEmpty,
    lastName: nonEmpty,
    role: optional(nonEmpty),
    isGuest: optional(bool),
    id: optional(id),
  },
  mapping,
) satisfies z.ZodType<AccessUser, unknown>;
const memberSchema = z.strictObject(
  {
    user: nonEmpty,
    role: orElse(z.enum(MEMBERSHIP_ROLES, { error: `must be ${MEMBERSHIP_ROLES.join(" or ")}` }), "account_collaborator"),
    entitlements: orElse(entitlements, []).refine((ids) => ids.length > 0, {
      error: "must name at least one entitlement (to remove access, remove the member)",
    }),
  },
  mapping,
) satisfies z.ZodType<AccessMember, unknown>;
const integrationSchema = z.strictObject(
  {
    name: nonEmpty,
    id,
    label: unlessEmpty(nonEmpty),
    application: unlessEmpty(nonEmpty),
    members: list(memberSchema),
  },
  mapping,
) satisfies z.ZodType<AccessIntegration, unknown>;
const scopeSchema = z.strictObject(
  {
    integrations: optional(z.array(id, { error: "must be a list" })),
    membersOnly: orElse(bool, false),
  },
  mapping,
) satisfies z.ZodType<AccessScope, unknown>;
const leftOutSchema = z.strictObject(
  {
    kind: z.enum(LEFT_OUT_KINDS, { error: `must be ${LEFT_OUT_KINDS.join(", ")}` }),
    integration: optional(id),
    id: optional(id),
    email: unlessEmpty(nonEmpty),
    count: optional(count),
    role: unlessEmpty(nonEmpty),
    isGuest: optional(bool),
    entitlements: optional(heldEntitlements),
    reason: nonEmpty,
  },
  mapping,
) satisfies z.ZodType<AccessLeftOut, unknown>;

/** The file's shape: what each field must be. A file without `leftOut` (or without `scope`) has none. */
const accessFileSchema = z.strictObject(
  {
    version: z.literal(ACCESS_FILE_VERSION, {
      error: (issue) => `must be ${ACCESS_FILE_VERSION}, got ${JSON.stringify(issue.input ?? null)}`,
    }),
    workspace: optional(address),
    scope: orElse(scopeSchema, {}),
    users: list(userSchema),
    integrations: list(integrationSchema),
    leftOut: list(leftOutSchema),
  },
  mapping,
) satisfies z.ZodType<AccessFile, unknown>;

/** The mappings of the file, by what they are. */
export type MappingKind = "file" | "scope" | "user" | "integration" | "member" | "leftOut";

/** Each mapping of the file: its path without list indexes, what it is, and its schema (its keys, in the file's order). */
const MAPPINGS = {
  file: { path: "", what: "the file", schema: accessFileSchema },
  scope: { path: "scope", what: "scope", schema: scopeSchema },
  user: { path: "users", what: "a user", schema: userSchema },
  integration: { path: "integrations", what: "an integration", schema: integrationSchema },
  member: { path: "integrations.members", what: "a member", schema: memberSchema },
  leftOut: { path: "leftOut", what: "a record left out", schema: leftOutSchema },
} as const;

/**
 * Each mapping's keys, in the file's order, and its reading of one (undefined: it does not read), for `--accept`'s edit of
 * the file (`access-file-edit.ts`): typed without zod, which a published declaration must not name. @internal
 */
export const MAPPINGS_READ: Record<MappingKind, { keys: string[]; read: (value: unknown) => Record<string, unknown> | undefined }> =
  Object.fromEntries(
    Object.entries(MAPPINGS).map(([kind, { schema }]) => [
      kind,
      { keys: Object.keys(schema.shape), read: (value: unknown) => schema.safeParse(value).data as Record<string, unknown> | undefined },
    ]),
  ) as Record<MappingKind, { keys: string[]; read: (value: unknown) => Record<string, unknown> | undefined }>;

/** How the file is written: one line per value, no folding, no block scalars (a line break is written as \n). @internal */
export const WRITE_OPTIONS = { lineWidth: 0, blockQuote: false, singleQuote: false, flowCollectionPadding: false } as const;

/** One membership, as a program declares it: an `IntegrationEntitlement`. */
export interface AccessMembership {
  /** The Pulumi resource name: `<integration name>--<user name>`. */
  name: string;
  integrationId: string;
  /** The integration's label, else its name, for messages. */
  integration: string;
  /** The member's email as the file's users spell it, and the resource name of its `User`. */
  user: string;
  userName: string;
  role: MembershipRole;
  entitlements: string[];
}

/** An `access.yaml` as a program uses it: the file, and its memberships one by one. */
export interface AccessData extends AccessFile {
  /** Every membership of every integration, in file order. */
  memberships: AccessMembership[];
}

/**
 * What identifies a left-out record across exports and checks: kind, integration id and id; one without an id (added by
 * hand) by its email, case-insensitively, instead. Not its reason, nor the email of one with an id (it may change).
 */
export function leftOutKey(record: Pick<AccessLeftOut, "kind" | "id" | "integration" | "email">): string {
  const who = record.id ?? (record.email === undefined ? "" : `\u0001${emailKey(record.email)}`);
  return `${record.kind}\u0000${record.integration ?? ""}\u0000${who}`;
}

/** Whether a record left out has neither id nor email: nothing tells two of one kind (and integration) apart. */
export const unidentified = (record: Pick<AccessLeftOut, "id" | "email">): boolean => record.id === undefined && record.email === undefined;

/**
 * The file's left-out records in their order (kind, integration id, id, email, reason), one per key: the reader refuses a
 * file with two, and the file must not drop one without a word. Several under one key are one record giving each reason
 * once, sorted (`a | b`): those with neither id nor email, which nothing tells apart, with their `count`; those of one id
 * (a record the export read in several copies: one that breaks the contract, two that differ) with the email one of them
 * gives, and what was read of its access where every one of them says the same.
 */
export function sortedLeftOut(records: readonly AccessLeftOut[]): AccessLeftOut[] {
  const order = (r: AccessLeftOut) =>
    `${LEFT_OUT_KINDS.indexOf(r.kind)}\u0000${r.integration ?? ""}\u0000${r.id ?? ""}\u0000${r.email ?? ""}\u0000${r.reason}`;
  const groups = new Map<string, AccessLeftOut[]>();
  for (const record of [...records].sort(byKey(order))) groups.set(leftOutKey(record), [...(groups.get(leftOutKey(record)) ?? []), record]);
  return [...groups.values()].map((group) => (group.length === 1 ? group[0]! : oneOf(group)));
}

/** Records left out under one key as one: see {@link sortedLeftOut}. */
function oneOf(group: readonly AccessLeftOut[]): AccessLeftOut {
  const first = group[0]!;
  const reason = [...new Set(group.map((r) => r.reason))].sort().join(" | ");
  const at = first.integration === undefined ? {} : { integration: first.integration };
  if (unidentified(first)) return { kind: first.kind, ...at, count: group.reduce((n, r) => n + (r.count ?? 1), 0), reason };
  const email = group.find((r) => r.email !== undefined)?.email;
  const agreed = <K extends "role" | "isGuest" | "entitlements">(key: K): Pick<AccessLeftOut, K> | undefined => {
    const value = first[key];
    const same = value !== undefined && group.every((r) => JSON.stringify(r[key]) === JSON.stringify(value));
    return same ? ({ [key]: value } as Pick<AccessLeftOut, K>) : undefined;
  };
  return {
    kind: first.kind,
    ...at,
    id: first.id,
    ...(email === undefined ? {} : { email }),
    ...agreed("role"),
    ...agreed("isGuest"),
    ...agreed("entitlements"),
    reason,
  };
}

const HEADER = [
  " The workspace's users and integration memberships, written by workspace-access-export.",
  " index.ts declares the users and members from it, adopting what the workspace has. A user's id is the",
  " workspace's, written by the export: leave it out for a user you add.",
  " Edit it to change access, then run `pulumi up`. `workspace-access-export --check --out .` reports",
  " where the workspace and this file differ (--accept takes the workspace's side). leftOut lists",
  " what the export could not declare (nothing in index.ts manages it): --check compares it too.",
].join("\n");

/** The lists written on one line (`[ADMIN, VIEWER]`): ids and entitlements, short and many. */
const FLOW_LISTS: ReadonlySet<string> = new Set(["integrations", "entitlements"]);

/** `record`'s fields in the order of `schema`'s (unknown ones dropped): the file's fixed layout. */
const inOrder = (schema: { shape: object }, record: object) =>
  Object.fromEntries(Object.keys(schema.shape).map((key) => [key, (record as Record<string, unknown>)[key]]));

/** The text of `access.yaml`: deterministic for the same data (keys in a fixed order, absent fields left out). */
export function formatAccessFile(file: AccessFile): string {
  const doc = new Document({
    ...inOrder(accessFileSchema, file),
    scope: inOrder(scopeSchema, file.scope),
    users: file.users.map((u) => inOrder(userSchema, u)),
    integrations: file.integrations.map((g) => ({
      ...inOrder(integrationSchema, g),
      members: g.members.map((m) => inOrder(memberSchema, m)),
    })),
    leftOut: sortedLeftOut(file.leftOut).map((r) => inOrder(leftOutSchema, r)),
  });
  doc.commentBefore = HEADER;
  // Lists of scalars under these keys on one line; `scope.integrations` is such a list, the top-level one is not.
  visit(doc, {
    Pair(_, pair) {
      const key = (pair.key as { value?: unknown } | null)?.value;
      const value = pair.value as { items?: Array<{ items?: unknown }>; flow?: boolean } | null;
      if (typeof key === "string" && FLOW_LISTS.has(key) && value?.items?.every((item) => item.items === undefined)) value.flow = true;
    },
  });
  // Double quotes only.
  return doc.toString(WRITE_OPTIONS);
}

/** Reads and checks the text of an `access.yaml`; `source` names it in errors. */
export function parseAccessFile(text: string, source = "access.yaml"): AccessData {
  return readText(text, source, false);
}

/**
 * {@link parseAccessFile}; with `declarable`, a value the resources' `check` would refuse (an integration's id that is not a
 * UUID, an email or name a `User` refuses, an entitlement id no resource takes) is refused too, naming its line.
 */
function readText(text: string, source: string, declarable: boolean): AccessData {
  const lines = new LineCounter();
  // prettyErrors off: the library's message is only the problem, with no place or excerpt of the file appended; the
  // place is named here, from the offset the error records.
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const [broken] = doc.errors;
  if (broken?.code === "MULTIPLE_DOCS") throw new AccessFileError(`${source}${secondDocument(text, broken.pos[0], lines)}`);
  if (broken) throw new AccessFileError(`${source}${placeOf(lines, broken.pos[0])}: ${broken.message}`);
  refuseUnresolvedAliases(doc, lines, source);
  const fail = (path: ReadonlyArray<PropertyKey>, what: string): never => {
    throw new AccessFileError(`${source}${lineOf(doc, lines, path)}: ${what}`);
  };
  const parsed = accessFileSchema.safeParse(dataOf(doc, source) ?? {});
  if (!parsed.success) {
    // A misspelt key first: the field it was meant for may be missing because of it.
    const unknown = parsed.error.issues.find((i) => i.code === "unrecognized_keys");
    if (unknown) {
      const key = unknown.keys[0] ?? "";
      throw new AccessFileError(`${source}${keyLine(doc, lines, unknown.path, key)}: ${unknownKey(unknown.path, key)}`);
    }
    const [issue] = parsed.error.issues;
    const path = issue?.path ?? [];
    fail(path, path.length === 0 ? `the file ${issue?.message ?? "is not valid"}` : `${fieldName(path)} ${issue?.message}`);
  }
  const file = parsed.data!;
  const memberships = checkRecords(file, fail);
  if (declarable) refuseUndeclarable(file, fail);
  refuseLeftOutTwice(file.leftOut, fail, (path) => lineOf(doc, lines, path));
  return { ...file, version: ACCESS_FILE_VERSION, leftOut: sortedLeftOut(file.leftOut), memberships };
}

/**
 * What the schema cannot say: no user's email (case-insensitively), name or id twice, no integration's name or id
 * twice nor a name with `--` (it separates a membership's name), every member one of the users, once.
 */
function checkRecords(file: AccessFile, fail: (path: ReadonlyArray<PropertyKey>, what: string) => never): AccessMembership[] {
  const byEmail = new Map<string, AccessFile["users"][number]>();
  const userNames = new Set<string>();
  const userIds = new Map<string, string>();
  file.users.forEach((u, i) => {
    if (byEmail.has(emailKey(u.email)))
      fail(["users", i], `users[${i}]: the email ${u.email} is listed twice (emails compare case-insensitively)`);
    if (userNames.has(u.name)) fail(["users", i], `users[${i}]: the name ${u.name} is used twice`);
    // A block copied to add a user, its id line kept: that user's memberships would go to the other.
    const twin = u.id === undefined ? undefined : userIds.get(u.id);
    if (twin !== undefined) {
      fail(
        ["users", i, "id"],
        `users[${i}]: the id ${u.id} is ${twin}'s too: remove the id line of the user you added (the export writes ids)`,
      );
    }
    byEmail.set(emailKey(u.email), u);
    userNames.add(u.name);
    if (u.id !== undefined) userIds.set(u.id, u.email);
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
      m.user = u.email;
      const { role, entitlements } = m;
      memberships.push({
        name: membershipName(g.name, u.name),
        integrationId: g.id,
        integration: g.label ?? g.name,
        user: u.email,
        userName: u.name,
        role,
        entitlements,
      });
    });
  });
  return memberships;
}

/** The inputs' rules a program's resources check, each named by the file's field instead of the input's. */
const declaredIntegrationId = integrationEntitlementInputs.shape.integrationId;
const declaredEntitlements = integrationEntitlementInputs.shape.entitlements;

/**
 * What the program's resources would refuse at preview, named there by a resource and a program's fix: refused here by the
 * file's line and field. The export writes none of it (it leaves such records out, `build.ts`); a hand edit may.
 */
function refuseUndeclarable(file: AccessFile, fail: (path: ReadonlyArray<PropertyKey>, what: string) => never): void {
  // `email must be ...` as `users[0].email must be ...`: the inputs' messages begin with the input's name, the file's key.
  const named = (path: ReadonlyArray<PropertyKey>, message: string) => {
    const key = String(path.at(-1));
    return message.startsWith(`${key} `) ? `${fieldName(path)}${message.slice(key.length)}` : `${fieldName(path)}: ${message}`;
  };
  file.users.forEach((u, i) => {
    const { role, isGuest } = u;
    const given = { email: u.email, firstName: u.firstName, lastName: u.lastName, ...(role === undefined ? {} : { role }) };
    const parsed = userInputs.safeParse({ ...given, ...(isGuest === undefined ? {} : { isGuest }) });
    const [issue] = parsed.error?.issues ?? [];
    if (issue) fail(["users", i, ...issue.path], named(["users", i, ...issue.path], issue.message));
  });
  file.integrations.forEach((g, i) => {
    if (!declaredIntegrationId.safeParse(g.id).success) {
      fail(
        ["integrations", i, "id"],
        `integrations[${i}].id must be the integration's UUID, such as d538422e-b135-4ee0-8393-54eecbcb4a07, not its label or ` +
          "application: `workspace-access-export --check --out .` names each integration the workspace has by label and id",
      );
    }
    g.members.forEach((m, j) => {
      // Named by its value: the file's ids are read as a sorted set, so a position would not be the file's.
      const [issue] = declaredEntitlements.safeParse(m.entitlements).error?.issues ?? [];
      const path = ["integrations", i, "members", j, "entitlements"];
      const bad = typeof issue?.path[0] === "number" ? ` has ${JSON.stringify(m.entitlements[issue.path[0]])}:` : "";
      if (issue) fail(path, `${fieldName(path)}${bad} ${issue.message}`);
    });
  });
}

/**
 * Two records left out under one key ({@link leftOutKey}) cannot be told apart: keeping one would drop what was written of
 * the other without a word. The second is refused, naming the first's line too; those with neither id nor email are one
 * record with a `count`, which no other record has (its id or email tells it apart).
 */
function refuseLeftOutTwice(
  records: readonly AccessLeftOut[],
  fail: (path: ReadonlyArray<PropertyKey>, what: string) => never,
  lineAt: (path: ReadonlyArray<PropertyKey>) => string,
): void {
  const seen = new Map<string, number>();
  records.forEach((record, i) => {
    if (record.count !== undefined && !unidentified(record)) {
      fail(
        ["leftOut", i, "count"],
        `leftOut[${i}]: a count is for records with neither id nor email (nothing else tells them apart): remove the count`,
      );
    }
    const first = seen.get(leftOutKey(record));
    if (first === undefined) {
      seen.set(leftOutKey(record), i);
      return;
    }
    const who = record.id ?? record.email ?? "(no id, no email)";
    const named =
      record.kind === "membership" ? `membership of ${who} in integration ${record.integration ?? "(no id)"}` : `${record.kind} ${who}`;
    const twice = `leftOut[${i}]: ${named} is left out twice, here and at leftOut[${first}] (${lineAt(["leftOut", first]).slice(2)})`;
    const total = (records[first]!.count ?? 1) + (record.count ?? 1);
    const counted = "records with neither id nor email cannot be told apart, so one stands for all of them";
    fail(
      ["leftOut", i],
      unidentified(record)
        ? `${twice}: ${counted}: remove this one and give that one \`count: ${total}\``
        : `${twice}: remove one (records left out are told apart by kind, integration and id, else email)`,
    );
  });
}

/**
 * `users[0] has an unknown key "rol" (did you mean "role"?)`: the key the misspelt one meant is the same but for case, or
 * a third of its length in edits away; else the keys there are listed.
 */
function unknownKey(path: ReadonlyArray<PropertyKey>, key: string): string {
  const at = path.filter((p) => typeof p !== "number").join(".");
  const mapping = Object.values(MAPPINGS).find((m) => m.path === at) ?? MAPPINGS.file;
  const known = Object.keys(mapping.schema.shape);
  const distance = (k: string) => editDistance(key.toLowerCase(), k.toLowerCase());
  const [meant] = known.filter((k) => distance(k) <= Math.max(2, Math.ceil(key.length / 3))).sort((a, b) => distance(a) - distance(b));
  const where = path.length === 0 ? "the file" : fieldName(path);
  // YAML 1.2 has no merge key: `<<` is a key of its own, which no edit distance should take for one of the file's.
  if (key === "<<")
    return `${where} has a merge key "<<", which access.yaml does not read (it is YAML 1.2): write each key out; an alias (*name) may stand for a whole value`;
  const fix = meant === undefined ? `: the keys of ${mapping.what} are ${known.join(", ")}` : ` (did you mean "${meant}"?)`;
  return `${where} has an unknown key ${JSON.stringify(key)}${fix}`;
}

/** `, line 7`: the line of `key` in the mapping at `path`, else of the mapping. */
function keyLine(doc: Document, lines: LineCounter, path: ReadonlyArray<PropertyKey>, key: string): string {
  const mapping = path.length === 0 ? doc.contents : doc.getIn(path as Array<string | number>, true);
  const pair = isMap(mapping) ? mapping.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
  const node = isScalar(pair?.key) ? pair.key : undefined;
  return node?.range ? `, line ${lines.linePos(node.range[0]).line}` : lineOf(doc, lines, path);
}

/** `users[0].email`: a field as messages name it. */
function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`)).join("");
}

/** `, line 12, column 5`: the place of an offset into the file (none for an offset the library does not know). */
function placeOf(lines: LineCounter, offset: number | undefined): string {
  if (offset === undefined || offset < 0) return "";
  const { line, col } = lines.linePos(offset);
  return `, line ${line}, column ${col}`;
}

/**
 * `, line 8: ...`: the file holds a second YAML document from `offset` on. The library's message for it tells a program to
 * call its API (`YAML.parseAllDocuments()`): said here in the terms of the file, where the second one begins (a `---`
 * line, or the line after a `...` that ends the first).
 */
function secondDocument(text: string, offset: number, lines: LineCounter): string {
  const at = `, line ${lines.linePos(offset).line}`;
  return text.startsWith("---", offset)
    ? `${at}: \`---\` begins a second YAML document; access.yaml must hold one: remove the line, or the document it begins`
    : `${at}: a second YAML document begins here, after the \`...\` that ends the first; access.yaml must hold one: ` +
        "remove the `...` line, or the document after it";
}

/**
 * An alias (`*y`) must name an anchor (`&y`) set before it. The library reads one that does not as a document without
 * errors, and throws a bare `ReferenceError`, naming neither the file nor the place, only when the data is taken out:
 * each alias is checked here first, in the order the library resolves them (the anchors met so far).
 */
function refuseUnresolvedAliases(doc: Document, lines: LineCounter, source: string): void {
  const anchors = new Set<string>();
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) {
        if (anchors.has(node.source)) return;
        const what = `the alias *${node.source} names no anchor &${node.source} before it`;
        throw new AccessFileError(`${source}${placeOf(lines, node.range?.[0])}: ${what}`);
      }
      if (node.anchor) anchors.add(node.anchor);
    },
  });
}

/**
 * The file's data. Aliases are resolved here; the library refuses ones that expand too far (each a copy of a copy: a
 * file made to exhaust the reader's memory) with a bare `ReferenceError`: named as a problem of the file.
 */
function dataOf(doc: Document, source: string): unknown {
  try {
    return doc.toJS();
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    throw new AccessFileError(`${source}: its aliases could not be read: ${error.message}`);
  }
}

/** `, line 12`: the line of the node at `path`, or of the nearest one above it that the file has. */
function lineOf(doc: Document, lines: LineCounter, path: ReadonlyArray<PropertyKey>): string {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth) as Array<string | number>, true);
    if (isNode(node) && node.range) return `, line ${lines.linePos(node.range[0]).line}`;
  }
  return "";
}

/**
 * Reads and checks an `access.yaml` (every member one of the users, no email, name or membership twice):
 * what a generated `index.ts` declares its resources from.
 *
 * ```ts
 * const access = readAccessFile(path.join(__dirname, "access.yaml"));
 * for (const user of access.users) new wa.User(user.name, { ...user, adoptExisting: true });
 * ```
 */
export function readAccessFile(file: string): AccessData {
  return readText(fs.readFileSync(file, "utf8"), file, true);
}
