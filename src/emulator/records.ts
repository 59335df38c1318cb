/**
 * Stored rows rendered as the public document's records (`users`, `integration`,
 * `integrationUser`, `entitlement`, `job`). Where the document types a field as a
 * non-nullable string and we have no value (an MFA enrollment date, a screenshot URL, a
 * policy enforcement id), the field is left out rather than sent as `null`: none of them is
 * `required`, and a `null` would break the document's schema.
 */
import type { JobRow } from "./jobs";
import type { IntegrationRow, MemberRow, UserRow } from "./store";
import { formatTimestamp } from "./time";
import type { EmulatedEntitlement, EntitlementGroup } from "./types";

/** The document's `users` record. */
export interface UserRecord {
  id: string;
  type: "user";
  attributes: {
    createdAt: string;
    email: string;
    firstName: string | null;
    isGuest: boolean;
    lastName: string | null;
    mfaStatus: { mfaEnabled: boolean; mfaEnrollmentDate?: string } | null;
    role: string;
    status: string;
    updatedAt: string;
  };
}

/** The document's `entitlement` record. */
export interface EntitlementRecord {
  id: string;
  type: "entitlement";
  attributes: { group: EntitlementGroup; key: string; label: string; value: string };
}

/** The document's `integration` record (type `account`). */
export interface IntegrationRecord {
  id: string;
  type: "account";
  attributes: { application: string; createdAt: string; createdBy: string; label: string; updatedAt: string; workspace: string };
}

/** The document's `integrationUser` record. */
export interface IntegrationUserRecord {
  id: string;
  type: "user";
  attributes: {
    email: string;
    entitlements: EntitlementRecord[];
    firstName: string | null;
    isGuest: boolean;
    lastName: string | null;
    role: string;
    status: string;
  };
  meta: { dynamicFields: Record<string, unknown> };
}

/** The document's `job` record. */
export interface JobRecord {
  id: string;
  type: "job";
  attributes: Record<string, unknown>;
}

/** A user; `withMfa` mirrors `?mfaStatus=true` (else `mfaStatus` is `null`). */
export function userRecord(row: UserRow, withMfa: boolean): UserRecord {
  return {
    id: row.id,
    type: "user",
    attributes: {
      createdAt: formatTimestamp(row.createdAt),
      email: row.email,
      firstName: row.firstName,
      isGuest: row.isGuest,
      lastName: row.lastName,
      // The emulator has no enrollment events; a user enrolled "at creation" is as good as any date.
      mfaStatus: withMfa
        ? row.mfaEnabled
          ? { mfaEnabled: true, mfaEnrollmentDate: formatTimestamp(row.createdAt) }
          : { mfaEnabled: false }
        : null,
      role: row.role,
      status: row.status,
      updatedAt: formatTimestamp(row.updatedAt),
    },
  };
}

/** An entitlement of a catalogue; the id doubles as `key` and `value`, as in the document's examples. */
export function entitlementRecord(e: EmulatedEntitlement): EntitlementRecord {
  return { id: e.id, type: "entitlement", attributes: { group: e.group, key: e.id, label: e.label, value: e.id } };
}

/** An integration. */
export function integrationRecord(row: IntegrationRow): IntegrationRecord {
  return {
    id: row.id,
    type: "account",
    attributes: {
      application: row.application,
      createdAt: formatTimestamp(row.createdAt),
      createdBy: row.createdBy,
      label: row.label,
      updatedAt: formatTimestamp(row.updatedAt),
      workspace: row.workspace,
    },
  };
}

/** A member of an integration, joined with their workspace user. */
export function integrationUserRecord(integration: IntegrationRow, member: MemberRow, user: UserRow): IntegrationUserRecord {
  const entitlements = member.entitlements.map((id) => {
    // An id outside the catalogue (seeded drift) still renders, as a bare primary entitlement.
    const known = integration.entitlements.find((e) => e.id === id) ?? { id, label: id, group: "primary" as const };
    return entitlementRecord(known);
  });
  return {
    id: user.id,
    type: "user",
    attributes: {
      email: user.email,
      entitlements,
      firstName: user.firstName,
      isGuest: user.isGuest,
      lastName: user.lastName,
      role: member.role,
      status: user.status,
    },
    meta: { dynamicFields: { ...member.dynamicFields } },
  };
}

/** A job, every field of the document's `job` schema that has a value. */
export function jobRecord(row: JobRow): JobRecord {
  const errorDetails: Record<string, unknown> = { ...row.errorDetails };
  if (errorDetails["screenshotUrl"] === null || errorDetails["screenshotUrl"] === undefined) delete errorDetails["screenshotUrl"];
  const attributes: Record<string, unknown> = {
    ...(row.account === null ? {} : { account: { ...row.account } }),
    canRetry: false,
    createdAt: formatTimestamp(row.createdAt),
    createdBy: { ...row.createdBy },
    errorDetails,
    hasMoreDetails: false,
    payload: row.payload,
    response: row.response,
    status: row.status,
    trigger: row.trigger,
    updatedAt: formatTimestamp(row.updatedAt),
    workflowType: row.workflowType,
  };
  return { id: row.id, type: "job", attributes };
}

/** The short job record write endpoints answer with (the document's `integrationJob`). */
export function integrationJobRecord(row: JobRow): JobRecord {
  return { id: row.id, type: "job", attributes: { status: row.status } };
}

/** The single-job envelope of the contract: `links` only `self`, `meta` empty. */
export function jobEnvelope(record: JobRecord): { data: JobRecord; links: { self: string }; meta: Record<string, never> } {
  return { data: record, links: { self: `/api/v1/jobs/${encodeURIComponent(record.id)}` }, meta: {} };
}
