/** The records an export leaves out, as the build finds them: each with its reason, what was read of it, one line for people. */
import type { Integration } from "../client";
import { emailKey } from "../client/models";
import type { AccessLeftOut } from "./access-file";
import { byKey } from "./names";
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
  /** For a record read whole: a membership's role as the service reports it and entitlements; a user's role and guest flag. */
  role?: string | null;
  entitlements?: string[];
  isGuest?: boolean | null;
  reason: string;
  /** One line for people: `user 7a5e… <ann@acme.example>: no first name`. */
  text: string;
}

const KIND_ORDER: Record<LeftOut["kind"], number> = { integration: 0, user: 1, membership: 2 };

const describe = (id: string | undefined, email: string | null) => `${id ?? "(no id)"}${email ? ` <${email}>` : ""}`;

/** The list of records left out, as the build adds them. */
export class LeftOutList {
  readonly #records: LeftOut[] = [];

  /** A user; `user` given when read whole (its role and guest flag are recorded). */
  user(id: string | undefined, email: string | null, reason: string, user?: SnapshotUser): void {
    const read = user && { role: user.role, isGuest: user.isGuest };
    this.#records.push({ kind: "user", id, email, ...read, reason, text: `user ${describe(id, email)}: ${reason}` });
  }

  /** A membership; `member` given when read whole (its role and entitlements are recorded). */
  member(
    id: string | undefined,
    email: string | null,
    integration: Integration | undefined,
    reason: string,
    member?: SnapshotMember,
  ): void {
    const label = integration ? (integration.label ?? integration.id) : "?";
    const read = member && { role: member.role, entitlements: member.entitlements };
    const text = `membership of ${describe(id, email)} in "${label}": ${reason}`;
    this.#records.push({
      kind: "membership",
      id,
      email,
      integration: label,
      ...(integration && { integrationId: integration.id }),
      ...read,
      reason,
      text,
    });
  }

  /** An integration whose record broke the contract, or was listed twice differently. */
  integration({ id, integration, reason }: InvalidRecord): void {
    const label = integration?.label ?? undefined;
    const text = `integration ${id ?? "(no id)"}${label === undefined ? "" : ` ("${label}")`}: ${reason}`;
    this.#records.push({ kind: "integration", id, email: null, ...(label === undefined ? {} : { integration: label }), reason, text });
  }

  /** The records by kind (integrations, users, memberships), integration, email, id, reason. */
  sorted(): LeftOut[] {
    const order = (l: LeftOut) =>
      `${KIND_ORDER[l.kind]}\u0000${l.integration ?? ""}\u0000${l.email == null ? "" : emailKey(l.email)}\u0000${l.id ?? ""}\u0000${l.reason}`;
    return [...this.#records].sort(byKey(order));
  }
}

/** A left-out record as `access.yaml` keeps it. */
export function recordedLeftOut({ kind, id, email, integrationId, role, isGuest, entitlements, reason }: LeftOut): AccessLeftOut {
  const integration = kind === "membership" ? integrationId : undefined;
  return {
    kind,
    integration,
    id,
    email: email ?? undefined,
    role: role ?? undefined,
    isGuest: isGuest ?? undefined,
    entitlements: entitlements && [...entitlements].sort(),
    reason,
  };
}
