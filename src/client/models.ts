/** The plain shapes the client returns: flat, JSON-ready, `null` rather than `undefined` so they cross into Pulumi state unchanged. */
import { type Id, idOf } from "./ids";
import type { EntitlementRecord, IntegrationRecord, IntegrationUserRecord, JobRecord, UserRecord } from "./schemas";

/** Workspace roles the public document lists; others are accepted with a warning by the resources. */
export const KNOWN_USER_ROLES = [
  "workspace_owner",
  "workspace_super_admin",
  "workspace_guest_admin",
  "workspace_login_only",
  "workspace_guest_user",
] as const;

/** The roles of guests: beside one, a record that leaves `isGuest` out says nothing of it (see {@link guestOf}). */
export const GUEST_ROLES: ReadonlySet<string> = new Set(["workspace_guest_user", "workspace_guest_admin"]);

/**
 * The listed roles that are not a guest's: only beside one does a record that leaves `isGuest` out say `false`. A role the
 * public document does not list may be a guest's (the contract has unknown enum values appear), so it says nothing.
 */
export const MEMBER_ROLES: ReadonlySet<string> = new Set(KNOWN_USER_ROLES.filter((role) => !GUEST_ROLES.has(role)));

/**
 * Whether a user is a guest, as far as the record tells (assumed, `docs/contract.md`): `isGuest` when it reports one; left out
 * beside a listed role that is not a guest's, `false` (a service may leave `false` out); left out beside a guest role, a role
 * the document does not list, or none, unknown.
 */
export function guestOf(user: { isGuest: boolean | null; role: string | null }): boolean | undefined {
  if (user.isGuest !== null) return user.isGuest;
  return user.role !== null && MEMBER_ROLES.has(user.role) ? false : undefined;
}

/** The one form of an email for comparing and keying: emails compare case-insensitively (contract). Emails are not ids (`ids.ts`). */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/** Emails are compared case-insensitively (contract); a missing email matches nothing. */
export function sameEmail(a: string | null | undefined, b: string | null | undefined): boolean {
  if (typeof a !== "string" || typeof b !== "string") return false;
  return emailKey(a) === emailKey(b);
}

/** Drains an async iterable into an array. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A workspace user. Only `id` is certain: a pending or SCIM-provisioned user may have no names (`null` here). */
export interface User {
  id: Id;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  role: string | null;
  isGuest: boolean | null;
  status: string | null;
  mfaStatus: { mfaEnabled: boolean | null; mfaEnrollmentDate: string | null } | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** The writable attributes of a user. `isGuest` left out is sent as `false` (`userBody`): a `PUT` replaces every writable attribute. */
export interface UserAttributes {
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  isGuest?: boolean;
}

/** An entitlement (a role in an integration's application). */
export interface Entitlement {
  /** What a membership's entitlements name, e.g. `VIEWER`. */
  id: string;
  /** `primary` or `secondary`. */
  group: string | null;
  key: string | null;
  label: string | null;
  value: string | null;
}

/** An integration (record type `account`). */
export interface Integration {
  id: Id;
  /** The application it connects, e.g. `YouTube`. Two integrations may share one. */
  application: string | null;
  /** The name people know it by in the workspace. */
  label: string | null;
  workspace: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** A member of an integration, with the ids of its entitlements (sorted). */
export interface IntegrationUser {
  id: Id;
  email: string | null;
  firstName: string | null;
  lastName: string | null;
  isGuest: boolean | null;
  status: string | null;
  role: string | null;
  /** `null` where the record leaves them out (or answers null): not known, which is not none; `[]` when it says none. */
  entitlements: string[] | null;
  dynamicFields: Record<string, unknown>;
}

/**
 * An end the caller sets to every job wait of one operation, instead of each wait's `jobTimeoutSeconds` (a Pulumi resource's
 * `customTimeouts`): a wait gives up at `at`, its {@link JobTimeoutError} saying `within` and what to `raise`.
 */
export interface JobDeadline {
  /** When the waits give up, on the client's clock (ms). */
  at: number;
  /** The end as a timeout's message says it: "did not finish within <within>". */
  within: string;
  /** What to raise for a longer wait, as the message names it. */
  raise: string;
}

/** A job: an asynchronous write of the service. `status` is `null` when the record has none. */
export interface Job {
  id: string;
  status: string | null;
  canRetry: boolean | null;
  trigger: string | null;
  workflowType: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  createdBy: Record<string, unknown> | null;
  account: Record<string, unknown> | null;
  errorDetails: { errorType: string | null; screenshotUrl: string | null; userRequired: boolean | null } | null;
  response: unknown;
  payload: unknown;
  hasMoreDetails: boolean | null;
  workspacePolicyEnforcementId: string | null;
}

/** The attributes named, each `null` where the service left it out (or sent no attributes at all). */
function nullable<A extends object, K extends keyof A>(
  a: A | null | undefined,
  keys: readonly K[],
): { [P in K]-?: NonNullable<A[P]> | null } {
  return Object.fromEntries(keys.map((key) => [key, a?.[key] ?? null])) as { [P in K]-?: NonNullable<A[P]> | null };
}

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations); so do the four below. */
export function toUser({ id, attributes: a }: UserRecord): User {
  const mfaStatus = a?.mfaStatus ? nullable(a.mfaStatus, ["mfaEnabled", "mfaEnrollmentDate"]) : null;
  const fields = nullable(a, ["email", "firstName", "lastName", "role", "isGuest", "status", "createdAt", "updatedAt"]);
  return { id: idOf(id), ...fields, mfaStatus };
}

/** @internal Maps a parsed record. */
export function toEntitlement({ id, attributes }: EntitlementRecord): Entitlement {
  return { id, ...nullable(attributes, ["group", "key", "label", "value"]) };
}

/** @internal Maps a parsed record. */
export function toIntegration({ id, attributes }: IntegrationRecord): Integration {
  return { id: idOf(id), ...nullable(attributes, ["application", "label", "workspace", "createdAt", "updatedAt"]) };
}

/** @internal Maps a parsed record. */
export function toIntegrationUser({ id, attributes: a, meta }: IntegrationUserRecord): IntegrationUser {
  const ids = a?.entitlements?.map((e) => (typeof e === "string" ? e : e.id));
  const fields = nullable(a, ["email", "firstName", "lastName", "isGuest", "status", "role"]);
  const entitlements = ids ? [...new Set(ids)].sort() : null;
  return { id: idOf(id), ...fields, entitlements, dynamicFields: meta?.dynamicFields ?? {} };
}

/** @internal Maps a parsed record. */
export function toJob({ id, attributes: a }: JobRecord): Job {
  const errorDetails = a?.errorDetails ? nullable(a.errorDetails, ["errorType", "screenshotUrl", "userRequired"]) : null;
  const texts = nullable(a, ["status", "trigger", "workflowType", "createdAt", "updatedAt", "workspacePolicyEnforcementId"]);
  // The status in the contract's one form where it enters (`Finished` is `finished`): every wait and settlement compares it so.
  const status = texts.status === null ? null : texts.status.trim().toLowerCase();
  return {
    id,
    ...texts,
    status,
    ...nullable(a, ["canRetry", "createdBy", "account", "response", "payload", "hasMoreDetails"]),
    errorDetails,
  };
}
