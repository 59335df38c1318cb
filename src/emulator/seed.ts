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
			{ id: users.ada, email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", role: "workspace_owner", status: "live", mfaEnabled: true },
			{ id: users.grace, email: "grace@example.com", firstName: "Grace", lastName: "Hopper", role: "workspace_super_admin", status: "live", mfaEnabled: true },
			{ id: users.alan, email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", status: "pending" },
			{ id: users.katherine, email: "katherine@partner.example", firstName: "Katherine", lastName: "Johnson", role: "workspace_guest_user", isGuest: true, status: "live" },
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
