/**
 * Generated worlds of any size, for benchmarks: `users` users and `memberships` memberships spread
 * over `integrations` integrations, deterministic (fixed ids, no randomness). Every user has names
 * and an email, so an export represents all of them; two are owners, every 25th a guest. Member
 * entitlements: most view, every fifth edits, every fiftieth administers.
 */
import type { EmulatorSeed, SeedIntegration, SeedMember, SeedUser } from "./types";

/** The size of a generated world. */
export interface GeneratedWorldSize {
  users: number;
  integrations: number;
  /** At most `users` × `integrations`. */
  memberships: number;
}

/** The id of user number `index` of a generated world. */
export function generatedUserId(index: number): string {
  return `9e0e0000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

/** The id of integration number `index` of a generated world. */
export function generatedIntegrationId(index: number): string {
  return `9e0f0000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

function user(index: number): SeedUser {
  const guest = index % 25 === 24;
  return {
    id: generatedUserId(index),
    email: `person${String(index).padStart(5, "0")}@${guest ? "partner" : "corp"}.example`,
    firstName: `First${index}`,
    lastName: `Last${index}`,
    role: index < 2 ? "workspace_owner" : guest ? "workspace_guest_user" : "workspace_login_only",
    isGuest: guest,
    status: "live",
  };
}

/**
 * A world of the given size. Membership `k` puts user `k mod users` into integration
 * `(k mod users + floor(k / users)) mod integrations`, so a user's memberships fall in different
 * integrations and every integration gets about `memberships / integrations` members.
 */
export function generatedSeed(size: GeneratedWorldSize): EmulatorSeed {
  if (size.memberships > size.users * size.integrations) throw new Error("emulator: more memberships than users × integrations");
  const members: SeedMember[][] = Array.from({ length: size.integrations }, () => []);
  for (let k = 0; k < size.memberships; k++) {
    const u = k % size.users;
    const i = (u + Math.floor(k / size.users)) % size.integrations;
    const entitlements = k % 50 === 0 ? ["ADMIN", "VIEWER"] : k % 5 === 0 ? ["EDITOR"] : ["VIEWER"];
    members[i]!.push({ userId: generatedUserId(u), role: u < 2 ? "owner" : "collaborator", entitlements });
  }
  const integrations: SeedIntegration[] = members.map((users, i) => ({
    id: generatedIntegrationId(i),
    application: `App${i % 7}`,
    label: `App${i % 7} team ${i}`,
    entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }, { id: "ADMIN" }],
    users,
  }));
  return { users: Array.from({ length: size.users }, (_, i) => user(i)), integrations };
}
