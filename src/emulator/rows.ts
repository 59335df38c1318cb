/**
 * The emulator's records as the store keeps them (timestamps as epoch ms), and the copies handed
 * out of them, so that a test holding an object cannot change state behind the server's back.
 */
import { formatTimestamp } from "./time";
import type { EmulatedEntitlement, EmulatedIntegration, EmulatedMember, EmulatedUser, MemberRole } from "./types";

/** A user as stored: what {@link userView} hands out, with timestamps as epoch ms. */
export interface UserRow extends Omit<EmulatedUser, "createdAt" | "updatedAt"> {
  createdAt: number;
  updatedAt: number;
}

/** A membership as stored. */
export interface MemberRow {
  userId: string;
  role: MemberRole;
  entitlements: string[];
  dynamicFields: Record<string, unknown>;
}

/** An integration as stored. */
export interface IntegrationRow {
  id: string;
  application: string;
  label: string;
  workspace: string;
  createdBy: string;
  createdAt: number;
  updatedAt: number;
  entitlements: EmulatedEntitlement[];
  members: Map<string, MemberRow>;
}

/** The writable attributes of a workspace user. */
export interface UserAttributes {
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  isGuest: boolean;
}

/** Copies a stored user out. */
export function userView(row: UserRow): EmulatedUser {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    isGuest: row.isGuest,
    status: row.status,
    mfaEnabled: row.mfaEnabled,
    createdAt: formatTimestamp(row.createdAt),
    updatedAt: formatTimestamp(row.updatedAt),
  };
}

/** Copies a stored integration out (without members). */
export function integrationView(row: IntegrationRow): EmulatedIntegration {
  return {
    id: row.id,
    application: row.application,
    label: row.label,
    workspace: row.workspace,
    createdBy: row.createdBy,
    createdAt: formatTimestamp(row.createdAt),
    updatedAt: formatTimestamp(row.updatedAt),
    entitlements: row.entitlements.map((e) => ({ ...e })),
  };
}

/** Copies a stored membership out. */
export function memberView(row: MemberRow): EmulatedMember {
  return { userId: row.userId, role: row.role, entitlements: [...row.entitlements] };
}
