// One program for every workspace: each stack's config names its workspace, its key (a secret)
// and the people who should have access there.
import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";

interface Person {
  email: string;
  firstName: string;
  lastName: string;
  role?: wa.UserRole;
  /** integration application (e.g. `YouTube`) -> entitlement ids */
  integrations?: Record<string, string[]>;
}

const people = new pulumi.Config().requireObject<Person[]>("people");

// Each integration is looked up by its application, once however many people use it; a workspace
// with none, or with two, of an application fails the program naming them.
const integrationIds = new Map<string, pulumi.Output<string>>();
function integrationId(application: string): pulumi.Output<string> {
  let id = integrationIds.get(application);
  if (!id) {
    id = wa.getIntegrationOutput({ application }).id;
    integrationIds.set(application, id);
  }
  return id;
}

// Resource names come from what is unique in a workspace: a user's email (compared without case),
// and for an entitlement, that email with the application (a key of the person's integrations,
// and one integration per application). Two people, or two integrations, can then never give two
// resources the same name.
const declared = new Set<string>();
for (const person of people) {
  const email = person.email.trim().toLowerCase();
  if (declared.has(email)) throw new Error(`people lists ${email} twice: list each person once`);
  declared.add(email);
  const user = new wa.User(email, {
    email: person.email,
    firstName: person.firstName,
    lastName: person.lastName,
    ...(person.role ? { role: person.role } : {}),
  });
  for (const [application, entitlements] of Object.entries(person.integrations ?? {})) {
    new wa.IntegrationEntitlement(`${email}/${application}`, { integrationId: integrationId(application), userId: user.id, entitlements });
  }
}

// The address this stack manages, as the package reads it: baseUrl wins over workspace and host.
const access = new pulumi.Config("workspace-access");
export const workspace = access.get("baseUrl") ?? `https://${access.get("workspace")}.${access.get("host")}/api/v1/`;
