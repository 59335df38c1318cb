/**
 * The default world, and loading a seed into a store. The default uses fixed ids so that a
 * demo or a user trying the emulator offline can name them across restarts.
 */
import type { Store } from "./store";
import type { EmulatorSeed } from "./types";

/** The fixed ids of {@link defaultSeed}. */
export const DEFAULT_IDS = {
  users: {
    ada: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f01",
    grace: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f02",
    alan: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f03",
    katherine: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f04",
  },
  integrations: {
    youtube: "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01",
    slack: "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02",
  },
} as const;

/** A small useful world: four users, a YouTube and a Slack integration with a few members. A fresh object each call. */
export function defaultSeed(): EmulatorSeed {
  const { users, integrations } = DEFAULT_IDS;
  return {
    users: [
      {
        id: users.ada,
        email: "ada@example.com",
        firstName: "Ada",
        lastName: "Lovelace",
        role: "workspace_owner",
        status: "live",
        mfaEnabled: true,
      },
      {
        id: users.grace,
        email: "grace@example.com",
        firstName: "Grace",
        lastName: "Hopper",
        role: "workspace_super_admin",
        status: "live",
        mfaEnabled: true,
      },
      { id: users.alan, email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", status: "pending" },
      {
        id: users.katherine,
        email: "katherine@partner.example",
        firstName: "Katherine",
        lastName: "Johnson",
        role: "workspace_guest_user",
        isGuest: true,
        status: "live",
      },
    ],
    integrations: [
      {
        id: integrations.youtube,
        application: "YouTube",
        label: "YouTube acme",
        entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }, { id: "MANAGER" }],
        users: [
          { userId: users.ada, role: "owner", entitlements: ["MANAGER"], dynamicFields: { channel: "acme", seats: 3, verified: true } },
          { userId: users.grace, role: "collaborator", entitlements: ["EDITOR"] },
        ],
      },
      {
        id: integrations.slack,
        application: "Slack",
        label: "Slack acme",
        entitlements: [
          { id: "MEMBER", label: "SLACK_MEMBER_DESC" },
          { id: "ADMIN", label: "SLACK_ADMIN_DESC" },
          { id: "BILLING", label: "SLACK_BILLING_DESC", group: "secondary" },
        ],
        users: [
          { userId: users.ada, role: "owner", entitlements: ["ADMIN", "BILLING"] },
          { userId: users.alan, role: "collaborator", entitlements: ["MEMBER"] },
        ],
      },
    ],
  };
}

/** Loads a seed: users first, so integrations can name them (by id or email). */
export function applySeed(store: Store, seed: EmulatorSeed): void {
  for (const user of seed.users ?? []) store.addUser(user);
  for (const integration of seed.integrations ?? []) store.addIntegration(integration);
}

type Shape = Record<
  string,
  { type: "string" | "boolean" | "object" | "strings"; required?: boolean; nullable?: boolean; oneOf?: readonly string[] }
>;

const USER_SHAPE: Shape = {
  id: { type: "string" },
  email: { type: "string", required: true },
  // Pending and SCIM-provisioned users may have no names yet (the contract): `null`.
  firstName: { type: "string", required: true, nullable: true },
  lastName: { type: "string", required: true, nullable: true },
  role: { type: "string" },
  isGuest: { type: "boolean" },
  status: { type: "string", oneOf: ["live", "pending", "disabled"] },
  mfaEnabled: { type: "boolean" },
};
const ENTITLEMENT_SHAPE: Shape = {
  id: { type: "string", required: true },
  label: { type: "string" },
  group: { type: "string", oneOf: ["primary", "secondary"] },
};
const MEMBER_SHAPE: Shape = {
  userId: { type: "string", required: true },
  role: { type: "string", oneOf: ["owner", "collaborator"] },
  entitlements: { type: "strings", required: true },
  dynamicFields: { type: "object" },
};
const INTEGRATION_SHAPE: Shape = {
  id: { type: "string" },
  application: { type: "string", required: true },
  label: { type: "string" },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkShape(value: unknown, shape: Shape, at: string, extra: readonly string[] = []): Record<string, unknown> {
  if (!isObject(value)) throw new Error(`${at} must be an object`);
  for (const key of Object.keys(value)) {
    if (!(key in shape) && !extra.includes(key)) {
      throw new Error(`${at}.${key} is not a field of the seed here; the fields are ${[...Object.keys(shape), ...extra].join(", ")}`);
    }
  }
  for (const [key, rule] of Object.entries(shape)) {
    const field = value[key];
    const where = `${at}.${key}`;
    if (field === undefined) {
      if (rule.required) throw new Error(`${where} is required${rule.nullable ? " (null for none)" : ""}`);
      continue;
    }
    if (field === null && rule.nullable) continue;
    if (rule.type === "string" && (typeof field !== "string" || field.trim() === ""))
      throw new Error(`${where} must be a non-empty string`);
    if (rule.type === "boolean" && typeof field !== "boolean") throw new Error(`${where} must be true or false`);
    if (rule.type === "object" && !isObject(field)) throw new Error(`${where} must be an object`);
    if (rule.type === "strings" && (!Array.isArray(field) || field.some((s) => typeof s !== "string"))) {
      throw new Error(`${where} must be a list of strings`);
    }
    if (rule.oneOf && !rule.oneOf.includes(field as string))
      throw new Error(`${where} must be one of ${rule.oneOf.join(", ")}, got ${JSON.stringify(field)}`);
  }
  return value;
}

function list(value: unknown, at: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new Error(`${at} must be a list`);
  return value;
}

/**
 * Checks a seed read from JSON (the CLI's `--seed` file) field by field, and returns it typed.
 * Throws an error naming the first field at fault, e.g. `users[1].email is required`.
 */
export function parseSeed(value: unknown): EmulatorSeed {
  checkShape(value, {}, "seed", ["users", "integrations"]);
  const seed = value as Record<string, unknown>;
  list(seed.users, "users").forEach((user, i) => {
    checkShape(user, USER_SHAPE, `users[${i}]`);
  });
  list(seed.integrations, "integrations").forEach((integration, i) => {
    const at = `integrations[${i}]`;
    const checked = checkShape(integration, INTEGRATION_SHAPE, at, ["entitlements", "users"]);
    if (checked.entitlements === undefined) throw new Error(`${at}.entitlements is required (a list, e.g. [{ "id": "VIEWER" }])`);
    list(checked.entitlements, `${at}.entitlements`).forEach((entitlement, j) => {
      checkShape(entitlement, ENTITLEMENT_SHAPE, `${at}.entitlements[${j}]`);
    });
    list(checked.users, `${at}.users`).forEach((member, j) => {
      checkShape(member, MEMBER_SHAPE, `${at}.users[${j}]`);
    });
  });
  return value as EmulatorSeed;
}
