// Two workspace users, their access to two integrations, and the job of the last change.
// Configure the stack first (see this folder's README): workspace-access:baseUrl (or :workspace and :host) and a secret :apiKey.
import * as wa from "pulumi-workspace-access";

// What the workspace already has is looked up by the names people know, not pasted as UUIDs.
const youtube = wa.getIntegrationOutput({ application: "YouTube" }).id;
const slack = wa.getIntegrationOutput({ application: "Slack" }).id;
// An existing user (one the stack does not manage): looked up, never changed or deleted.
const grace = wa.getUserOutput({ email: "grace@example.com" });

const alice = new wa.User("alice", {
  email: "alice@example.com",
  firstName: "Alice",
  lastName: "Doe",
});

const bob = new wa.User("bob", {
  email: "bob@example.com",
  firstName: "Bob",
  lastName: "Roe",
  role: "workspace_super_admin",
});

const aliceYoutube = new wa.IntegrationEntitlement("alice-youtube", {
  integrationId: youtube,
  userId: alice.id,
  entitlements: ["VIEWER", "EDITOR"],
});

new wa.IntegrationEntitlement("bob-slack", {
  integrationId: slack,
  userId: bob.id,
  entitlements: ["MEMBER"],
  role: "account_owner",
});

// The job of alice's last entitlement change, read back as data.
const aliceJob = aliceYoutube.lastJobId.apply(async (id) => (id ? await wa.getJob({ id }) : undefined));

export const aliceId = alice.id;
export const aliceEntitlements = aliceYoutube.entitlements;
export const aliceJobStatus = aliceJob.apply((job) => job?.status ?? "no job");
export const graceId = grace.id;
export const graceRole = grace.role;
