/**
 * The records an export leaves out, collected as the build finds them: each with its reason, what
 * was read of it (so that `--check` notices a change of its access), and one line for people.
 */
import type { Integration } from "../client";
import type { AccessLeftOut } from "./access-file";
import { byKey, emailKey } from "./names";
import type { InvalidRecord, SnapshotMember, SnapshotUser } from "./snapshot";

/** A user or membership the export could not represent, and why. */
export interface LeftOut {
  kind: "user" | "membership" | "integration";
  /** The user's id (the integration's, for an integration). */
  id: string | undefined;
  email: string | null;
  /** For a membership: the integration's label (else id); for an integration, its label if known. */
  integration?: string;
  /** For a membership: the integration's id. */
  integrationId?: string;
  /**
   * For a record read whole: a membership's role as the service reports it and its entitlements;
   * a user's workspace role and guest flag (null: not reported).
   */
  role?: string | null;
  entitlements?: string[];
  isGuest?: boolean | null;
  reason: string;
  /** One line for people: `user 7a5e… <ann@acme.example>: no first name`. */
  text: string;
}

/** Integrations first, then users, then memberships. */
const KIND_ORDER: Record<LeftOut["kind"], number> = { integration: 0, user: 1, membership: 2 };

const describe = (id: string | undefined, email: string | null) => `${id ?? "(no id)"}${email ? ` <${email}>` : ""}`;

/** The list of records left out, as the build adds them. */
export class LeftOutList {
  readonly records: LeftOut[] = [];

  /** A user; `user` given when read whole (its role and guest flag are recorded). */
  user(id: string | undefined, email: string | null, reason: string, user?: SnapshotUser): void {
    this.records.push({
      kind: "user",
      id,
      email,
      ...(user ? { role: user.role, isGuest: user.isGuest } : {}),
      reason,
      text: `user ${describe(id, email)}: ${reason}`,
    });
  }

  /** A membership; `member` given when read whole (its role and entitlements are recorded). */
  member(
    id: string | undefined,
    email: string | null,
    integration: Pick<Integration, "id" | "label"> | undefined,
    reason: string,
    member?: SnapshotMember,
  ): void {
    const label = integration ? (integration.label ?? integration.id) : "?";
    this.records.push({
      kind: "membership",
      id,
      email,
      integration: label,
      ...(integration ? { integrationId: integration.id } : {}),
      ...(member ? { role: member.role, entitlements: member.entitlements } : {}),
      reason,
      text: `membership of ${describe(id, email)} in "${label}": ${reason}`,
    });
  }

  /** An integration whose record broke the contract, or was listed twice differently. */
  integration(record: InvalidRecord): void {
    const label = record.integration?.label ?? undefined;
    this.records.push({
      kind: "integration",
      id: record.id,
      email: null,
      ...(label === undefined ? {} : { integration: label }),
      reason: record.reason,
      text: `integration ${record.id ?? "(no id)"}${label === undefined ? "" : ` ("${label}")`}: ${record.reason}`,
    });
  }

  /** The records, sorted: by kind, integration, email, id, reason. */
  sorted(): LeftOut[] {
    const order = (l: LeftOut) =>
      `${KIND_ORDER[l.kind]}\u0000${l.integration ?? ""}\u0000${l.email == null ? "" : emailKey(l.email)}\u0000${l.id ?? ""}\u0000${l.reason}`;
    return [...this.records].sort(byKey(order));
  }
}

/** A left-out record as `access.yaml` keeps it (the file sorts them, one per key). */
export function recordedLeftOut(record: LeftOut): AccessLeftOut {
  return {
    kind: record.kind,
    ...(record.kind === "membership" && record.integrationId !== undefined ? { integration: record.integrationId } : {}),
    ...(record.id === undefined ? {} : { id: record.id }),
    ...(record.email === null ? {} : { email: record.email }),
    ...(record.role === undefined || record.role === null ? {} : { role: record.role }),
    ...(record.isGuest === undefined || record.isGuest === null ? {} : { isGuest: record.isGuest }),
    ...(record.entitlements === undefined ? {} : { entitlements: [...record.entitlements].sort() }),
    reason: record.reason,
  };
}
