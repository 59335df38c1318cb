/**
 * The emulator's world in memory: workspace users, integrations with their entitlement
 * catalogues, and memberships. Maps keep insertion order, which is the stable creation
 * order the list endpoints promise. Everything handed out is a copy, so a test holding an
 * object cannot change state behind the server's back.
 */
import { randomUUID } from "node:crypto";
import type { IntegrationRow, MemberRow, UserRow } from "./rows";
import type { EmulatedEntitlement, EntitlementGroup, MemberRole, SeedIntegration, SeedUser } from "./types";

export type { IntegrationRow, MemberRow, UserAttributes, UserRow } from "./rows";

/** The workspace name integrations report. */
const WORKSPACE = "emulator";

/**
 * The one form of an id in the store: lower case. Ids compare case-insensitively (the contract), so
 * an id is lowered where it enters (a seed, `users.add`, `setMember`) and where it is looked up.
 */
export function idKey(id: string): string {
  return id.toLowerCase();
}

/** Emails compare case-insensitively (contract). */
function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

function defaultRole(isGuest: boolean): string {
  return isGuest ? "workspace_guest_user" : "workspace_login_only";
}

/** Users, integrations and memberships. Methods throw plain Errors on misuse; HTTP mapping is the routes' job. */
export class Store {
  readonly #users = new Map<string, UserRow>();
  /** Each user's id by {@link emailKey} of their email: a lookup by email (every create's) is not a walk over every user. */
  readonly #idByEmail = new Map<string, string>();
  readonly #integrations = new Map<string, IntegrationRow>();
  /** The id integrations and jobs name as their creator. */
  readonly operatorId = randomUUID();

  /**
   * Another admin's records (the adversarial world seeds them): what a page shift may remove.
   * A record leaves these sets as soon as anything writes it, so a shift never removes what a test
   * or a program made or changed. Memberships are keyed `<integrationId> <userId>`.
   */
  readonly otherAdmin = {
    /** Whether another admin acts at all (the adversarial world): else page shifts are simulated. */
    active: false,
    users: new Set<string>(),
    members: new Set<string>(),
    integrations: new Set<string>(),
    /** How many records the other admin has added so far (their emails and ids count on from it). */
    added: 0,
  };

  /** The emulator's clock: the time records are stamped with. */
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Every user in creation order. */
  listUsers(): UserRow[] {
    return [...this.#users.values()];
  }

  /** A user by id. */
  user(id: string): UserRow | undefined {
    return this.#users.get(idKey(id));
  }

  /** A user by email, case-insensitively. */
  userByEmail(email: string): UserRow | undefined {
    const id = this.#idByEmail.get(emailKey(email));
    return id === undefined ? undefined : this.#users.get(id);
  }

  /** Whether `email` belongs to a user other than `exceptId`. */
  emailTaken(email: string, exceptId?: string): boolean {
    const owner = this.userByEmail(email);
    return owner !== undefined && owner.id !== exceptId;
  }

  /** Creates a user; throws when the id or email is taken. */
  addUser(seed: SeedUser, now = this.#now()): UserRow {
    const id = idKey(seed.id ?? randomUUID());
    if (this.#users.has(id)) throw new Error(`emulator: a user with id ${id} already exists`);
    if (this.emailTaken(seed.email)) throw new Error(`emulator: the email ${seed.email} is already taken`);
    const isGuest = seed.isGuest ?? false;
    const row: UserRow = {
      id,
      email: seed.email,
      firstName: seed.firstName,
      lastName: seed.lastName,
      role: seed.role ?? defaultRole(isGuest),
      isGuest,
      status: seed.status ?? "live",
      mfaEnabled: seed.mfaEnabled ?? false,
      createdAt: now,
      updatedAt: now,
    };
    this.#users.set(id, row);
    this.#idByEmail.set(emailKey(row.email), id);
    return row;
  }

  /** Changes a user in place (keeping its list position); throws when unknown or the email is taken. */
  updateUser(anyId: string, patch: Partial<SeedUser>, now = this.#now()): UserRow {
    const id = idKey(anyId);
    const row = this.#users.get(id);
    if (row === undefined) throw new Error(`emulator: no user with id ${id}`);
    if (patch.email !== undefined && this.emailTaken(patch.email, id)) {
      throw new Error(`emulator: the email ${patch.email} is already taken`);
    }
    this.otherAdmin.users.delete(id);
    if (patch.email !== undefined) {
      this.#idByEmail.delete(emailKey(row.email));
      row.email = patch.email;
      this.#idByEmail.set(emailKey(row.email), id);
    }
    if (patch.firstName !== undefined) row.firstName = patch.firstName;
    if (patch.lastName !== undefined) row.lastName = patch.lastName;
    if (patch.role !== undefined) row.role = patch.role;
    if (patch.isGuest !== undefined) row.isGuest = patch.isGuest;
    if (patch.status !== undefined) row.status = patch.status;
    if (patch.mfaEnabled !== undefined) row.mfaEnabled = patch.mfaEnabled;
    row.updatedAt = Math.max(now, row.updatedAt);
    return row;
  }

  /** Deletes a user and every membership of theirs; returns whether the user existed. */
  removeUser(anyId: string): boolean {
    const id = idKey(anyId);
    const row = this.#users.get(id);
    if (row !== undefined) this.#idByEmail.delete(emailKey(row.email));
    const existed = this.#users.delete(id);
    for (const integration of this.#integrations.values()) integration.members.delete(id);
    return existed;
  }

  /** Every integration in creation order. */
  listIntegrations(): IntegrationRow[] {
    return [...this.#integrations.values()];
  }

  /** An integration by id. */
  integration(id: string): IntegrationRow | undefined {
    return this.#integrations.get(idKey(id));
  }

  /** Creates an integration and its memberships; member `userId`s may be ids or emails of existing users. */
  addIntegration(seed: SeedIntegration, now = this.#now()): IntegrationRow {
    const id = idKey(seed.id ?? randomUUID());
    if (this.#integrations.has(id)) throw new Error(`emulator: an integration with id ${id} already exists`);
    const prefix = seed.application.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
    const catalogue: EmulatedEntitlement[] = [];
    for (const e of seed.entitlements) {
      if (catalogue.some((c) => c.id === e.id)) throw new Error(`emulator: entitlement ${e.id} is listed twice in ${seed.application}`);
      const group: EntitlementGroup = e.group ?? "primary";
      catalogue.push({ id: e.id, label: e.label ?? `${prefix}_${e.id}_DESC`, group });
    }
    const row: IntegrationRow = {
      id,
      application: seed.application,
      label: seed.label ?? `${seed.application} (emulator)`,
      workspace: WORKSPACE,
      createdBy: this.operatorId,
      createdAt: now,
      updatedAt: now,
      entitlements: catalogue,
      members: new Map(),
    };
    this.#integrations.set(id, row);
    for (const m of seed.users ?? []) {
      const user = this.user(m.userId) ?? this.userByEmail(m.userId);
      if (user === undefined) throw new Error(`emulator: integration ${seed.application} names an unknown user ${m.userId}`);
      this.setMember(id, user.id, m);
    }
    return row;
  }

  /** Adds or replaces a membership; throws for an unknown integration or user. */
  setMember(
    anyIntegrationId: string,
    anyUserId: string,
    m: { role?: MemberRole; entitlements: readonly string[]; dynamicFields?: Record<string, unknown> },
  ): MemberRow {
    const integrationId = idKey(anyIntegrationId);
    const userId = idKey(anyUserId);
    const integration = this.#integrations.get(integrationId);
    if (integration === undefined) throw new Error(`emulator: no integration with id ${integrationId}`);
    if (!this.#users.has(userId)) throw new Error(`emulator: no user with id ${userId}`);
    const existing = integration.members.get(userId);
    this.otherAdmin.members.delete(`${integrationId} ${userId}`);
    const row: MemberRow = {
      userId,
      role: m.role ?? existing?.role ?? "collaborator",
      entitlements: [...new Set(m.entitlements)],
      dynamicFields: m.dynamicFields ?? existing?.dynamicFields ?? {},
    };
    // Map.set on an existing key keeps its position: a changed member stays where it was listed.
    integration.members.set(userId, row);
    return row;
  }

  /**
   * Another admin adds a user and lists it at `index` of the users list (`undefined`: last), a
   * record of theirs that a page shift may later remove.
   */
  addOtherAdminUser(index?: number): UserRow {
    const n = this.otherAdmin.added++;
    const row = this.addUser({
      id: `0a4e0000-0000-4000-9000-${n.toString(16).padStart(12, "0")}`,
      email: `other-admin-added-${n}@acme.example`,
      firstName: "Other",
      lastName: `Added ${n}`,
    });
    if (index !== undefined) moveTo(this.#users, row.id, index);
    this.otherAdmin.users.add(row.id);
    return row;
  }

  /** Another admin adds a new user of theirs to an integration, listed at `index` of its members. */
  addOtherAdminMember(anyIntegrationId: string, index: number): MemberRow {
    const integrationId = idKey(anyIntegrationId);
    const user = this.addOtherAdminUser();
    const integration = this.#integrations.get(integrationId);
    if (integration === undefined) throw new Error(`emulator: no integration with id ${integrationId}`);
    const entitlement = integration.entitlements[0]?.id;
    const row = this.setMember(integrationId, user.id, { entitlements: entitlement === undefined ? [] : [entitlement] });
    moveTo(integration.members, user.id, index);
    this.otherAdmin.members.add(`${integrationId} ${user.id}`);
    return row;
  }

  /** Deletes an integration and its memberships; returns whether it existed. */
  removeIntegration(id: string): boolean {
    return this.#integrations.delete(idKey(id));
  }

  /** Whether a user is another admin's and may vanish: never changed, not an owner, every membership also the other admin's. */
  removableUser(row: UserRow): boolean {
    if (!this.otherAdmin.users.has(row.id) || row.role === "workspace_owner") return false;
    for (const integration of this.#integrations.values()) {
      if (integration.members.has(row.id) && !this.otherAdmin.members.has(`${integration.id} ${row.id}`)) return false;
    }
    return true;
  }

  /** Whether a membership is another admin's and may vanish: never changed, not an owner. */
  removableMember(integrationId: string, member: MemberRow): boolean {
    return member.role !== "owner" && this.otherAdmin.members.has(`${integrationId} ${member.userId}`);
  }

  /** Removes a membership; returns whether it existed. */
  removeMember(integrationId: string, userId: string): boolean {
    return this.#integrations.get(idKey(integrationId))?.members.delete(idKey(userId)) ?? false;
  }
}

/** Moves an entry of a map to position `index` of its iteration order (Maps keep insertion order). */
function moveTo<V>(map: Map<string, V>, key: string, index: number): void {
  const value = map.get(key);
  if (value === undefined) return;
  const entries = [...map].filter(([k]) => k !== key);
  entries.splice(Math.max(0, Math.min(index, entries.length)), 0, [key, value]);
  map.clear();
  for (const [k, v] of entries) map.set(k, v);
}
