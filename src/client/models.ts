/**
 * The plain shapes the client returns: flat, JSON-ready, with optional fields as `null` rather
 * than `undefined` so they cross process boundaries (Pulumi state) unchanged.
 */
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

/**
 * A workspace user. Only `id` is certain: a pending or SCIM-provisioned user may have no names,
 * and the service may leave out any other attribute (`null` here).
 */
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

/**
 * The writable attributes of a user. `isGuest` left out is left out of the body too (the service
 * keeps what it has): the caller does not know it and must not guess.
 */
export interface UserAttributes {
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  isGuest?: boolean;
}

/** An entitlement (a role in an integration's application). */
export interface Entitlement {
  id: string;
  group: string | null;
  key: string | null;
  label: string | null;
  value: string | null;
}

/** An integration (record type `account`). */
export interface Integration {
  id: Id;
  application: string | null;
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
  entitlements: string[];
  dynamicFields: Record<string, unknown>;
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

const orNull = <T>(value: T | null | undefined): T | null => (value === undefined ? null : value);

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations). */
export function toUser(r: UserRecord): User {
  const a = r.attributes ?? {};
  return {
    id: idOf(r.id),
    email: orNull(a.email),
    firstName: orNull(a.firstName),
    lastName: orNull(a.lastName),
    role: orNull(a.role),
    isGuest: orNull(a.isGuest),
    status: orNull(a.status),
    mfaStatus: a.mfaStatus
      ? { mfaEnabled: orNull(a.mfaStatus.mfaEnabled), mfaEnrollmentDate: orNull(a.mfaStatus.mfaEnrollmentDate) }
      : null,
    createdAt: orNull(a.createdAt),
    updatedAt: orNull(a.updatedAt),
  };
}

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations). */
export function toEntitlement(r: EntitlementRecord): Entitlement {
  return {
    id: r.id,
    group: orNull(r.attributes?.group),
    key: orNull(r.attributes?.key),
    label: orNull(r.attributes?.label),
    value: orNull(r.attributes?.value),
  };
}

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations). */
export function toIntegration(r: IntegrationRecord): Integration {
  const a = r.attributes ?? {};
  return {
    id: idOf(r.id),
    application: orNull(a.application),
    label: orNull(a.label),
    workspace: orNull(a.workspace),
    createdAt: orNull(a.createdAt),
    updatedAt: orNull(a.updatedAt),
  };
}

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations). */
export function toIntegrationUser(r: IntegrationUserRecord): IntegrationUser {
  const a = r.attributes ?? {};
  const ids = (a.entitlements ?? []).map((e) => (typeof e === "string" ? e : e.id));
  return {
    id: idOf(r.id),
    email: orNull(a.email),
    firstName: orNull(a.firstName),
    lastName: orNull(a.lastName),
    isGuest: orNull(a.isGuest),
    status: orNull(a.status),
    role: orNull(a.role),
    entitlements: [...new Set(ids)].sort(),
    dynamicFields: r.meta?.dynamicFields ?? {},
  };
}

/** @internal Maps a parsed record (its types come from zod, kept out of the public declarations). */
export function toJob(r: JobRecord): Job {
  const a = r.attributes ?? {};
  return {
    id: r.id,
    status: orNull(a.status),
    canRetry: orNull(a.canRetry),
    trigger: orNull(a.trigger),
    workflowType: orNull(a.workflowType),
    createdAt: orNull(a.createdAt),
    updatedAt: orNull(a.updatedAt),
    createdBy: orNull(a.createdBy),
    account: orNull(a.account),
    errorDetails: a.errorDetails
      ? {
          errorType: orNull(a.errorDetails.errorType),
          screenshotUrl: orNull(a.errorDetails.screenshotUrl),
          userRequired: orNull(a.errorDetails.userRequired),
        }
      : null,
    response: orNull(a.response),
    payload: orNull(a.payload),
    hasMoreDetails: orNull(a.hasMoreDetails),
    workspacePolicyEnforcementId: orNull(a.workspacePolicyEnforcementId),
  };
}
