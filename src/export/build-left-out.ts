/** The records an export leaves out, as the build finds them: each with its reason, what was read of it, one line for people. */
import type { Integration } from "../client";
import { idOf } from "../client";
import { emailKey } from "../client/models";
import { type AccessLeftOut, LEFT_OUT_KINDS } from "./access-file";
import { byKey } from "./names";
import type { InvalidRecord, SnapshotMember, SnapshotUser } from "./snapshot";

/** A record the export could not declare, as `access.yaml` records it, with what people read of it. */
export interface LeftOut extends AccessLeftOut {
  /** For a membership: its integration's label (else id, `?` when unknown); for an integration, its label if known. */
  label?: string | undefined;
  /** One line for people: `user 7a5e… <ann@acme.example>: no first name`. */
  text: string;
}

/**
 * `user u-scim <scim@x.example>`, `membership of u-scim <scim@x.example> in "YouTube acme"`, `integration 3c9e… ("YouTube
 * acme")`: a user by id and email, else the one known (one `access.yaml` records without an id, added by hand, by its email);
 * a record that stands for several with neither (its `count`) by their number: `2 users (no id)`.
 */
export function leftOutName(record: AccessLeftOut, label: string | undefined, sharedBy?: string): string {
  const { id, email, count } = record;
  const who = id !== undefined && email !== undefined ? `${id} <${email}>` : (id ?? email ?? "(no id)");
  const shown = label === undefined || label === record.id ? "" : ` ("${label}")`;
  // A membership's integration by its label, and its id too when another integration has that label (`sharedBy`).
  const inIntegration = ` in "${label}"${sharedBy === undefined ? "" : ` (${sharedBy})`}`;
  if (count !== undefined && count > 1) {
    const where = record.kind === "membership" ? inIntegration : record.kind === "integration" ? shown : "";
    return `${count} ${record.kind}s (no id)${where}`;
  }
  if (record.kind === "user") return `user ${who}`;
  if (record.kind === "membership") return `membership of ${who}${inIntegration}`;
  return `integration ${record.id ?? "(no id)"}${shown}`;
}

/** A text as `access.yaml` records it: empty is absent (a pending user's email may be `""`), as the reader takes it. */
const given = (value: string | null | undefined): string | undefined => (value === null || value === "" ? undefined : value);

/** The list of records left out, as the build adds them. */
export class LeftOutList {
  readonly #records: LeftOut[] = [];
  /** The labels that more than one of the integrations read hold: a membership's text names its integration's id too. */
  readonly #shared: Set<string>;

  constructor(integrations: ReadonlyArray<Pick<Integration, "id" | "label">> = []) {
    const holders = new Map<string, Set<string>>();
    for (const { id, label } of integrations) if (label) holders.set(label, (holders.get(label) ?? new Set()).add(idOf(id)));
    this.#shared = new Set([...holders].filter(([, ids]) => ids.size > 1).map(([label]) => label));
  }

  #add(record: AccessLeftOut, label?: string): void {
    const sharedBy = record.kind === "membership" && label !== undefined && this.#shared.has(label) ? record.integration : undefined;
    this.#records.push({ ...record, label, text: `${leftOutName(record, label, sharedBy)}: ${record.reason}` });
  }

  /** A user; `user` given when read whole (its role and guest flag are recorded). */
  user(id: string | undefined, email: string | null, reason: string, user?: SnapshotUser): void {
    this.#add({ kind: "user", id: given(id), email: given(email), role: given(user?.role), isGuest: user?.isGuest ?? undefined, reason });
  }

  /** A membership; `member` given when read whole (its role and entitlements are recorded, an empty entitlement id left out). */
  member(
    id: string | undefined,
    email: string | null,
    integration: Integration | undefined,
    reason: string,
    member?: SnapshotMember,
  ): void {
    const [role, entitlements] = [given(member?.role), member?.entitlements?.filter((e) => e !== "").sort()];
    const label = integration ? integration.label || integration.id : "?";
    this.#add(
      { kind: "membership", integration: given(integration?.id), id: given(id), email: given(email), role, entitlements, reason },
      label,
    );
  }

  /** An integration whose record broke the contract, or was listed twice differently. */
  integration({ id, integration, reason }: InvalidRecord): void {
    this.#add({ kind: "integration", id: given(id), reason }, given(integration?.label));
  }

  /** The records by kind (integrations, users, memberships), integration, email, id, reason. */
  sorted(): LeftOut[] {
    const order = (l: LeftOut) =>
      `${LEFT_OUT_KINDS.indexOf(l.kind)}\u0000${l.label ?? ""}\u0000${l.email === undefined ? "" : emailKey(l.email)}\u0000${l.id ?? ""}\u0000${l.reason}`;
    return [...this.#records].sort(byKey(order));
  }
}
