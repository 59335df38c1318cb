// One program for every workspace: each stack's config names its workspace, its key (a secret)
// and the people who should have access there.
import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";

interface Person {
  email: string;
  firstName: string;
  lastName: string;
  role?: string;
  /** integration id -> entitlement ids */
  integrations?: Record<string, string[]>;
}

const people = new pulumi.Config().requireObject<Person[]>("people");

for (const person of people) {
  const name = person.email.split("@")[0] ?? person.email;
  const user = new wa.User(name, {
    email: person.email,
    firstName: person.firstName,
    lastName: person.lastName,
    ...(person.role ? { role: person.role } : {}),
  });
  for (const [integrationId, entitlements] of Object.entries(person.integrations ?? {})) {
    new wa.IntegrationEntitlement(`${name}-${integrationId.slice(0, 8)}`, { integrationId, userId: user.id, entitlements });
  }
}

export const workspace = new pulumi.Config("workspace-access").get("workspace");
