/**
 * Resource inputs: the zod schemas `check` validates with (naming the property of every failure), whose outputs are
 * the inputs' types after `check`: defaults applied, ids in their one form, sets sorted, members sorted by user id.
 */
import type * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import { idOf } from "../client/ids";
import { IGNORE_CHANGES, IMPORT_ID, INTEGRATION_ROLES, SECRET_EMAIL } from "./input-constants";
import { MEMBERSHIP_ID_FORM, splitMembershipId } from "./membership-id";
import { containsUnknown, isUnknown, knownString } from "./unknown";

export { IMPORT_ID, inviteRole } from "./input-constants";

/** Default workspace role of a {@link User}. */
export const DEFAULT_USER_ROLE = "workspace_login_only";
/** Default integration role of an {@link IntegrationEntitlement}. */
export const DEFAULT_INTEGRATION_ROLE = "account_collaborator";

const name = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .refine((v) => v.trim().length > 0, `${what} must not be empty or only spaces`)
    .refine((v) => v.length <= 100, `${what} must be at most 100 characters`);

/** An email as the service takes it: ASCII, one `@`, a dotted domain, no spaces. */
const email = z
  .string({ error: "email must be a string" })
  .max(254, "email must be at most 254 characters")
  .refine((v) => v === v.trim(), "email must not start or end with spaces")
  .pipe(z.email({ error: "email must be a valid address such as alice@example.com" }));

/**
 * An id left out. In an `up` the engine leaves out a value another resource has not made (`userId: user.id`), which happens
 * when `pulumi up --target` names this resource and not that one (a preview answers the engine's own message instead).
 */
const notSet = (what: string) =>
  `${what} is not set: when it comes from another resource (${what}: <resource>.id), this update has not created that resource, ` +
  "as when pulumi up --target leaves it out; target that resource too, or run pulumi up without --target";

/** An id in its one form, typed as a plain string: the state the engine hands back holds plain strings. */
const oneForm = (raw: string): string => idOf(raw);
/** A path-safe id: letters, digits, `_` and `-` only, so it can never reach another endpoint; parsed into its one form. */
const pathId = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? notSet(what) : `${what} must be a string`) })
    .regex(/^[A-Za-z0-9_-]+$/, `${what} must contain only letters, digits, "_" and "-"`)
    .transform(oneForm);

const integrationId = z
  .guid({
    error: (issue) =>
      issue.input === undefined ? notSet("integrationId") : "integrationId must be a UUID such as d538422e-b135-4ee0-8393-54eecbcb4a07",
  })
  .transform(oneForm);

/** An entitlement id: no `/`, `?`, `#`, `%`, spaces at the ends or `..`. */
const entitlementId = z
  .string({ error: 'each entitlement must be a string id such as "VIEWER"' })
  .regex(/^[A-Za-z0-9_][A-Za-z0-9_.:@+-]*$/, 'each entitlement id must be letters, digits and "_.:@+-" (no "/", "?", "#", "%" or spaces)')
  .refine((v) => !v.includes(".."), 'an entitlement id must not contain ".."')
  .refine((v) => v.length <= 200, "an entitlement id must be at most 200 characters");

/** A set of entitlement ids, at least one; `forRemoval` says how to remove access instead. */
const entitlements = (forRemoval: string) =>
  z
    .array(entitlementId, { error: 'entitlements must be a list of entitlement ids such as ["VIEWER"]' })
    .min(1, `entitlements must name at least one entitlement (${forRemoval})`)
    .transform((ids) => entitlementSet(ids));

const integrationRole = z.enum(INTEGRATION_ROLES, { error: `role must be one of ${INTEGRATION_ROLES.join(", ")}` });

const importId = z
  .string({ error: "import must be the id of the record to adopt, a string" })
  .min(1, "import must not be empty")
  .optional();

/**
 * An `IntegrationEntitlement`'s `import`: a membership's id, whitespace around it aside (the class trims it), checked at
 * preview: any other form would fail only at the create, naming no `import`.
 */
const membershipImportId = z
  .string({ error: "import must be the id of the membership to adopt, a string" })
  .refine(
    (id) => splitMembershipId(id.trim()) !== undefined,
    `import must be the membership's id, ${MEMBERSHIP_ID_FORM}: the integration's UUID, "/", then the user's id (getIntegrationMembers lists them)`,
  )
  .optional();

const deleteOnDestroy = z.boolean({ error: "deleteOnDestroy must be true or false" }).optional();

const adoptExisting = z.boolean({ error: "adoptExisting must be true or false" }).default(false);

/**
 * Inputs of a {@link User}. `role` and `isGuest` stay absent when left out: the service's value is kept. `__secretEmail`: the
 * program gives the email as a secret (`input-constants.ts`).
 */
export const userInputs = z.strictObject({
  email,
  firstName: name("firstName"),
  lastName: name("lastName"),
  role: z.string({ error: "role must be a string" }).min(1, "role must not be empty").optional(),
  isGuest: z.boolean({ error: "isGuest must be true or false" }).optional(),
  adoptExisting,
  deleteOnDestroy,
  [IMPORT_ID]: importId,
  [SECRET_EMAIL]: z.boolean().optional(),
  [IGNORE_CHANGES]: z.array(z.string()).optional(),
});

/** Inputs of an {@link IntegrationEntitlement}. */
export const integrationEntitlementInputs = z.strictObject({
  integrationId,
  userId: pathId("userId"),
  entitlements: entitlements("to remove access, delete the resource"),
  // Left out: the service's role is kept (a new membership is invited with the default), as for IntegrationMembers' members.
  role: integrationRole.optional(),
  adoptExisting,
  deleteOnDestroy,
  [IMPORT_ID]: membershipImportId,
  [IGNORE_CHANGES]: z.array(z.string()).optional(),
});

/** One member of an {@link IntegrationMembers}: `role` absent when not declared (the service's is kept). */
const memberInput = z.strictObject({
  userId: pathId("userId"),
  entitlements: entitlements("to remove a member, leave it out of members"),
  role: integrationRole.optional(),
});

/** Inputs of an {@link IntegrationMembers}: a user at most once, in any case (a failure names the later one, `members[3].userId`). */
export const integrationMembersInputs = z.strictObject({
  integrationId,
  members: z
    .array(memberInput, { error: 'members must be a list of members such as [{ userId: alice.id, entitlements: ["VIEWER"] }]' })
    .superRefine(
      (members, ctx) => {
        // `A` and `a` are one user (`idOf`). Another member that failed, or holds a value not known yet, hides no user
        // listed twice (`when`): its own id may be as given, or any value, then; a user not known yet is checked when known.
        const first = new Map<string, number>();
        members.forEach((member: unknown, i) => {
          const userId = typeof member === "object" && member !== null ? (member as Props).userId : undefined;
          if (!knownString(userId) || !/^[A-Za-z0-9_-]+$/.test(userId)) return;
          const earlier = first.get(idOf(userId));
          if (earlier === undefined) first.set(idOf(userId), i);
          else
            ctx.addIssue({
              code: "custom",
              path: [i, "userId"],
              message: `user ${idOf(userId)} is listed twice (also members[${earlier}]): list each member once`,
            });
        });
      },
      { when: (payload) => Array.isArray(payload.value) },
    )
    .transform((members) => members.sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0))),
  removeUnmanaged: z.boolean({ error: "removeUnmanaged must be true or false" }).default(false),
  deleteOnDestroy,
  [IMPORT_ID]: importId,
  [IGNORE_CHANGES]: z.array(z.string()).optional(),
});

/** One member of an IntegrationMembers after `check`. */
export type MemberInputs = z.output<typeof memberInput>;

/** IntegrationMembers inputs after `check` (the `import` id and `ignoreChanges` paths aside). */
export type IntegrationMembersInputs = Omit<z.output<typeof integrationMembersInputs>, typeof IMPORT_ID | typeof IGNORE_CHANGES>;

/** User inputs after `check` (the `import` id aside). */
export type UserInputs = Omit<z.output<typeof userInputs>, typeof IMPORT_ID>;

/** Integration entitlement inputs after `check` (the `import` id and `ignoreChanges` paths aside). */
export type IntegrationEntitlementInputs = Omit<z.output<typeof integrationEntitlementInputs>, typeof IMPORT_ID | typeof IGNORE_CHANGES>;

/** A resource's properties as the engine hands them to a provider method (inputs, olds, state): not parsed yet. */
export type Props = Record<string, unknown>;

/** A failure in the shape `check` returns. */
export type CheckFailure = pulumi.dynamic.CheckFailure;

/**
 * What `check` returns for `news` against `schema`: every failure with its property (`entitlements[1]`), except those about a
 * value the preview does not know yet (`userId: alice.id` before alice exists: checked when it arrives), wherever it sits; the
 * other members' and users' values are checked around it. A property given as `null` is not set, as one left out, at any depth
 * (a member's `role`). The inputs: the schema's output once every value is known and valid, else as given without those.
 */
export function checkInputs(schema: z.ZodObject, news: Props): { inputs: Props; failures: CheckFailure[]; parsed: boolean } {
  const { __provider: _, ...given } = news;
  const inputs = withoutUnset(given) as Props;
  const result = schema.safeParse(inputs);
  const unknown = !result.success && containsUnknown(inputs);
  const failures = (result.error?.issues ?? [])
    .filter((issue) => !unknown || !aboutUnknown(issue, inputs))
    .map((issue) => ({ property: propertyOf(issue), reason: reasonOf(issue, schema, inputs) }));
  const parsed = result.success && !containsUnknown(inputs);
  return { inputs: parsed ? (result.data as Props) : inputs, failures, parsed };
}

/**
 * `value` without the properties given as `undefined` or `null`, at any depth (the inputs', a member's, a set's user's): not
 * set, as left out. The inputs `check` hands back when they do not parse are these, and the host cannot encode an `undefined`:
 * one in a list becomes `null`, as JSON writes it (a list keeps its places, so a failure names the element given).
 */
function withoutUnset(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : withoutUnset(v)));
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined || v === null ? [] : [[k, withoutUnset(v)]])));
}

/** Said after a refused integrationId in `check`: a label or application written where the id goes is looked up instead. */
const INTEGRATION_LOOKUP =
  ' (to name an integration by its application or label: integrationId: wa.getIntegrationOutput({ application: "YouTube" }).id)';

/** Said after a refused userId that is an email (never echoed: it may be a secret): the user's id is looked up by it instead. */
const USER_LOOKUP = ' (an email: userId: wa.getUserOutput({ email: "<the email>" }).id, or a User\'s id: userId: <user>.id)';

/**
 * A failure's reason in `check`: an unknown key's names the keys meant; a text integrationId that is no UUID (a label or an
 * application pasted) and a userId that is an email say how to look the id up. The export words its own reasons from the
 * schema's, for access.yaml.
 */
function reasonOf(issue: z.core.$ZodIssue, schema: z.ZodObject, inputs: Props): string {
  if (issue.code === "unrecognized_keys") return unknownKeysReason(issue.keys, schema);
  if (issue.code !== "invalid_format") return issue.message;
  if (issue.path.length === 1 && issue.path[0] === "integrationId") return `${issue.message}${INTEGRATION_LOOKUP}`;
  const value = issue.path.reduce<unknown>(
    (at, key) => (typeof at === "object" && at !== null ? (at as Props)[key as string] : undefined),
    inputs,
  );
  return issue.path.at(-1) === "userId" && typeof value === "string" && value.includes("@")
    ? `${issue.message}${USER_LOOKUP}`
    : issue.message;
}

/** Whether a failure is about a value not known yet: the value at its path is, holds one, or sits inside one. */
function aboutUnknown(issue: z.core.$ZodIssue, inputs: Props): boolean {
  // A key the schema does not have is wrong whatever its value.
  if (issue.code === "unrecognized_keys") return false;
  let value: unknown = inputs;
  for (const key of issue.path) {
    if (isUnknown(value)) return true;
    if (typeof value !== "object" || value === null) return false;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return containsUnknown(value);
}

/** Whether two JSON-like values are equal, keys in any order and a key whose value is `undefined` taken as absent. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  const [x, y] = [a as Props, b as Props];
  const keys = Object.keys(x).filter((k) => x[k] !== undefined);
  return keys.length === Object.keys(y).filter((k) => y[k] !== undefined).length && keys.every((k) => sameJson(x[k], y[k]));
}

function propertyOf(issue: z.core.$ZodIssue): string {
  // An unknown key is named where it is: `extra`, or `members[0].extra` inside a list.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  const [head, ...rest] = path;
  // As Pulumi writes a property path: a key that is not a name (an email) quoted, `users["ann@example.com"].firstName`.
  const step = (p: PropertyKey) =>
    typeof p === "number" ? `[${p}]` : /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(String(p))}]`;
  return String(head ?? "") + rest.map(step).join("");
}

function unknownKeysReason(keys: readonly string[], schema: z.ZodObject): string {
  const allowed = Object.keys(schema.shape);
  return `unknown input ${keys.map((k) => `"${k}"`).join(", ")}: the inputs are ${allowed.join(", ")}`;
}

/** Removes `undefined` values (the host cannot encode them). */
export function defined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The sorted set of ids: order and duplicates do not matter. */
export function entitlementSet(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort();
}

const isIdList = (value: unknown): value is string[] => Array.isArray(value) && value.every((e) => typeof e === "string");

/** Whether two lists of entitlement ids name one set (order and duplicates aside); anything but a list of strings never does. */
export function sameSet(a: unknown, b: unknown): boolean {
  if (!isIdList(a) || !isIdList(b)) return false;
  const [x, y] = [entitlementSet(a), entitlementSet(b)];
  return x.length === y.length && x.every((id, i) => id === y[i]);
}

/**
 * The inputs of a create or update (checked already): the schema's output. The engine hands these methods the inputs `check`
 * returned: when `checked` (an output of that schema) equals them, it is that output, with no second parse.
 */
export function parseInputs<S extends z.ZodObject>(schema: S, news: Props, checked?: readonly Props[]): z.output<S> {
  const { __provider: _, ...inputs } = news;
  return (checked?.find((output) => sameJson(output, inputs)) as z.output<S> | undefined) ?? schema.parse(inputs);
}

/** Whether the destroy opt-in (`deleteOnDestroy`) changes: no request, but the state (which the delete reads) must learn it. */
export const optInChanged = (olds: { deleteOnDestroy?: unknown }, news: Props): boolean =>
  isUnknown(news.deleteOnDestroy) || (olds.deleteOnDestroy === true) !== (news.deleteOnDestroy === true);

/** The destroy opt-in as a state records it: present only when set. */
export const optIn = (deleteOnDestroy: unknown): { deleteOnDestroy?: true } => (deleteOnDestroy === true ? { deleteOnDestroy: true } : {});
