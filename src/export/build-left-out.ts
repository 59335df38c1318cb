/** The records an export leaves out, as the build finds them: each with its reason, what was read of it, one line for people. */
import type { Integration } from "../client";
import { emailKey } from "../client/models";
import type { AccessLeftOut } from "./access-file";
import { byKey } from "./names";
import type { InvalidRecord, SnapshotMember, SnapshotUser } from "./snapshot";

/** A record the export could not declare, as `access.yaml` records it, with what people read of it. */
export interface LeftOut extends AccessLeftOut {
  /** For a membership: its integration's label (else id, `?` when unknown); for an integration, its label if known. */
  label?: string | undefined;
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
    const [role, isGuest] = [user?.role ?? undefined, user?.isGuest ?? undefined];
    this.#records.push({
      kind: "user",
      id,
      email: email ?? undefined,
      role,
      isGuest,
      reason,
      text: `user ${describe(id, email)}: ${reason}`,
    });
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
    const [role, entitlements] = [member?.role ?? undefined, member && [...member.entitlements].sort()];
    const text = `membership of ${describe(id, email)} in "${label}": ${reason}`;
    this.#records.push({
      kind: "membership",
      integration: integration?.id,
      id,
      email: email ?? undefined,
      role,
      entitlements,
      label,
      reason,
      text,
    });
  }

  /** An integration whose record broke the contract, or was listed twice differently. */
  integration({ id, integration, reason }: InvalidRecord): void {
    const label = integration?.label ?? undefined;
    const text = `integration ${id ?? "(no id)"}${label === undefined ? "" : ` ("${label}")`}: ${reason}`;
    this.#records.push({ kind: "integration", id, label, reason, text });
  }

  /** The records by kind (integrations, users, memberships), integration, email, id, reason. */
  sorted(): LeftOut[] {
    const order = (l: LeftOut) =>
      `${KIND_ORDER[l.kind]}\u0000${l.label ?? ""}\u0000${l.email === undefined ? "" : emailKey(l.email)}\u0000${l.id ?? ""}\u0000${l.reason}`;
    return [...this.#records].sort(byKey(order));
  }
}
