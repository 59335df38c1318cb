// Two workspace users, their access to two integrations, and the job of the last change.
// Configure the stack first (see the README): workspace-access:workspace, :host and a secret :apiKey.
import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";

const config = new pulumi.Config();
// Integration ids are in the workspace's integration settings. The defaults are the emulator's.
const youtube = config.get("youtubeIntegrationId") ?? "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
const slack = config.get("slackIntegrationId") ?? "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02";

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
