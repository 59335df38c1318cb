/**
 * A populated world: a workspace as it looks before anyone writes a Pulumi program for it (see
 * `api-contract.md`, "A real workspace"). Users came from an identity provider: owners and
 * admins, guests, pending users whose names are not known yet, disabled users, one with a role
 * the public document does not list, emails in mixed case and emails that contain one another
 * (so a `filter` matches more than the user looked for). People already hold entitlements: one
 * integration has 300 members, two smaller ones share an application.
 *
 * Everything is deterministic (fixed ids, no randomness), so tests can name any user.
 */
import type { EmulatorSeed, SeedMember, SeedUser, UserStatus } from "./types";

/** How many users the populated world has. */
export const POPULATED_USER_COUNT = 512;
/** How many members its big integration has (users 0..299). */
export const POPULATED_BIG_MEMBERS = 300;

/** The id of the populated world's user number `index` (0-based). */
export function populatedUserId(index: number): string {
  return `7a5e0000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

/** The fixed ids of {@link populatedSeed}: its integrations, and one user of each kind. */
export const POPULATED_IDS = {
  integrations: {
    /** `Salesforce`, 300 members (users 0..299). */
    big: "5b1f0000-0000-4000-8000-000000000001",
    /** `GitHub` "GitHub acme": a few members. */
    small: "5b1f0000-0000-4000-8000-000000000002",
    /** `GitHub` "GitHub acme-labs": the same application as `small`, other members. */
    smallTwin: "5b1f0000-0000-4000-8000-000000000003",
  },
  users: {
    /** `workspace_owner`, live, an owner of every integration. */
    owner: populatedUserId(0),
    secondOwner: populatedUserId(1),
    /** `workspace_super_admin`. */
    superAdmin: populatedUserId(2),
    /** `workspace_guest_admin`. */
    guestAdmin: populatedUserId(7),
    /** A guest (`isGuest: true`, `workspace_guest_user`). */
    guest: populatedUserId(10),
    /** Pending, with no first or last name (`null`). */
    pending: populatedUserId(50),
    /** Disabled. */
    disabled: populatedUserId(80),
    /** A role the public document does not list (`workspace_billing_admin`). */
    unknownRole: populatedUserId(85),
    /** `workspace_login_only`, live, not a member of the big integration. */
    plain: populatedUserId(300),
  },
} as const;

const FIRST = [
  "Ada",
  "Grace",
  "Alan",
  "Katherine",
  "Edsger",
  "Barbara",
  "Donald",
  "Frances",
  "John",
  "Radia",
  "Ken",
  "Margaret",
  "Tim",
  "Shafi",
  "Leslie",
  "Hedy",
];
const LAST = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Johnson",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Allen",
  "Backus",
  "Perlman",
  "Thompson",
  "Hamilton",
  "Berners-Lee",
  "Goldwasser",
  "Lamport",
  "Lamarr",
];

/** What kind of user number `index` is. */
function kindOf(index: number): { role: string; isGuest: boolean; status: UserStatus; named: boolean } {
  if (index <= 1) return { role: "workspace_owner", isGuest: false, status: "live", named: true };
  if (index <= 6) return { role: "workspace_super_admin", isGuest: false, status: "live", named: true };
  if (index <= 9) return { role: "workspace_guest_admin", isGuest: false, status: "live", named: true };
  if (index <= 49) return { role: "workspace_guest_user", isGuest: true, status: "live", named: true };
  if (index <= 79) return { role: "workspace_login_only", isGuest: false, status: "pending", named: false };
  if (index <= 84) return { role: "workspace_login_only", isGuest: false, status: "disabled", named: true };
  if (index === 85) return { role: "workspace_billing_admin", isGuest: false, status: "live", named: true };
  return { role: "workspace_login_only", isGuest: false, status: "live", named: true };
}

/** The email of user number `index`: guests at a partner's domain, every seventh in mixed case. */
export function populatedEmail(index: number): string {
  const local = `user${String(index).padStart(3, "0")}`;
  const domain = kindOf(index).isGuest ? "partner.example" : "acme.example";
  // Emails that contain one another: `filter=ann@acme.example` also matches the next two.
  if (index === 86) return "ann@acme.example";
  if (index === 87) return "joann@acme.example";
  if (index === 88) return "ann@acme.example.net";
  return index % 7 === 3 ? `User${local.slice(4)}@${domain.toUpperCase()}` : `${local}@${domain}`;
}

function user(index: number): SeedUser {
  const kind = kindOf(index);
  return {
    id: populatedUserId(index),
    email: populatedEmail(index),
    firstName: kind.named ? FIRST[index % FIRST.length]! : null,
    lastName: kind.named ? LAST[Math.floor(index / FIRST.length) % LAST.length]! : null,
    role: kind.role,
    isGuest: kind.isGuest,
    status: kind.status,
    mfaEnabled: index % 3 === 0,
  };
}

/** The big integration's members: most view, every fifth edits, every fiftieth administers; the owners own it. */
function bigMember(index: number): SeedMember {
  const entitlements = index % 50 === 0 ? ["ADMIN", "VIEWER"] : index % 5 === 0 ? ["EDITOR"] : ["VIEWER"];
  return { userId: populatedUserId(index), role: index <= 1 ? "owner" : "collaborator", entitlements };
}

/**
 * The populated world, a fresh object each call: {@link POPULATED_USER_COUNT} users and three
 * integrations with members (ids in {@link POPULATED_IDS}).
 */
export function populatedSeed(): EmulatorSeed {
  const { integrations, users } = POPULATED_IDS;
  return {
    users: Array.from({ length: POPULATED_USER_COUNT }, (_, i) => user(i)),
    integrations: [
      {
        id: integrations.big,
        application: "Salesforce",
        label: "Salesforce acme",
        entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }, { id: "ADMIN" }],
        users: Array.from({ length: POPULATED_BIG_MEMBERS }, (_, i) => bigMember(i)),
      },
      {
        id: integrations.small,
        application: "GitHub",
        label: "GitHub acme",
        entitlements: [{ id: "READ" }, { id: "WRITE" }, { id: "MAINTAIN" }],
        users: [
          { userId: users.owner, role: "owner", entitlements: ["MAINTAIN"] },
          { userId: users.superAdmin, entitlements: ["READ", "WRITE"] },
          { userId: users.guest, entitlements: ["READ"] },
          { userId: users.pending, entitlements: ["READ"] },
        ],
      },
      {
        id: integrations.smallTwin,
        application: "GitHub",
        label: "GitHub acme-labs",
        entitlements: [{ id: "READ" }, { id: "WRITE" }],
        users: [{ userId: users.guestAdmin, entitlements: ["WRITE"] }],
      },
    ],
  };
}

/** How many users the adversarial world's other admin has. */
export const OTHER_ADMIN_USER_COUNT = 20;

/** The id of the other admin's user number `index` (0-based). */
export function otherAdminUserId(index: number): string {
  return `0a4e0000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

/** The fixed ids the adversarial world adds to the populated one. */
export const ADVERSARIAL_IDS = {
  /** Another admin's users: what page shifts remove (every one a member of the big integration). */
  otherAdminUsers: Array.from({ length: OTHER_ADMIN_USER_COUNT }, (_, i) => otherAdminUserId(i)),
  /** Another admin's integration (`Jira`, no label of its own), first in the integration list. */
  otherAdminIntegration: "5b1f0000-0000-4000-8000-0000000000aa",
} as const;

/**
 * The adversarial world, a fresh object each call: the populated world plus another admin's
 * records, interleaved so that some sort before any page boundary a client will cross: a user
 * after every tenth populated user (from user 5), a membership of the big integration after every
 * tenth of its members, and an integration of their own listed first. Page shifts remove these
 * (see `EmulatorQuirks.shiftPages`); nothing else of the populated world moves or changes.
 */
export function adversarialSeed(): EmulatorSeed {
  const populated = populatedSeed();
  const others: SeedUser[] = ADVERSARIAL_IDS.otherAdminUsers.map((id, i) => ({
    id,
    email: `other-admin-${String(i).padStart(2, "0")}@acme.example`,
    firstName: "Other",
    lastName: `Admin ${i}`,
    role: "workspace_login_only",
    isGuest: false,
    status: "live",
  }));
  const users: SeedUser[] = [];
  for (const [i, u] of (populated.users ?? []).entries()) {
    users.push(u);
    if (i % 10 === 5 && others[(i - 5) / 10] !== undefined) users.push(others[(i - 5) / 10]!);
  }
  const integrations = (populated.integrations ?? []).map((integration) => {
    if (integration.id !== POPULATED_IDS.integrations.big) return integration;
    const members: SeedMember[] = [];
    for (const [i, m] of (integration.users ?? []).entries()) {
      members.push(m);
      const other = ADVERSARIAL_IDS.otherAdminUsers[(i - 5) / 10];
      if (i % 10 === 5 && other !== undefined) members.push({ userId: other, entitlements: ["VIEWER"] });
    }
    return { ...integration, users: members };
  });
  const jira = {
    id: ADVERSARIAL_IDS.otherAdminIntegration,
    application: "Jira",
    entitlements: [{ id: "USER" }, { id: "PROJECT_ADMIN" }],
    users: ADVERSARIAL_IDS.otherAdminUsers.slice(0, 2).map((userId) => ({ userId, entitlements: ["USER"] })),
  };
  return { users, integrations: [jira, ...integrations] };
}
