import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { ownedEmail, ownedIntegration, ownedMembership } from "../../src/program/owners";

/** Starts a new program run, as `pulumi up` (or each test file's setMocks) does: a new resource monitor. */
async function newProgram(): Promise<void> {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

/** The value of an output, or its failure: Pulumi's outputs keep their promise internal. */
function settled<T>(output: pulumi.Output<T>): Promise<T> {
  const internal = output as { promise?: (withUnknowns?: boolean) => Promise<T> };
  if (!internal.promise) throw new Error("this @pulumi/pulumi keeps no promise in its outputs");
  return internal.promise();
}

// A collision within one program is tested through the engine (test/reliability/integration-members.test.ts):
// here its rejected outputs would surface as unhandled errors of Pulumi's output chain.
describe("one owner per user and membership, per program run", () => {
  it("forgets a finished program's declarations: the next program may declare the same user under another name", async () => {
    await newProgram();
    await expect(settled(ownedEmail("ann@example.com", "ann-v1", {}))).resolves.toBe("ann@example.com");
    await newProgram();
    await expect(settled(ownedEmail("ann@example.com", "ann-v2", {}))).resolves.toBe("ann@example.com");
    await expect(settled(ownedIntegration("integration-1", "IntegrationMembers", "members-v2", {}))).resolves.toBe("integration-1");
  });
});

/** The error an output fails with, its other promises (known, secret, resources), which reject with it, handled. */
async function failureOf(output: pulumi.Output<unknown>): Promise<string> {
  const o = output as unknown as { isKnown: Promise<boolean>; isSecret: Promise<boolean>; allResources(): Promise<unknown> };
  for (const other of [o.isKnown, o.isSecret, o.allResources()]) other.catch(() => {});
  return settled(output).then(
    () => "no error",
    (error: unknown) => String(error),
  );
}

describe("a collision of secret ids", () => {
  const integration = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
  const user = "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f02";

  it("names the two memberships' resources, not the user id either declared as a secret (a secret lookup's id)", async () => {
    await newProgram();
    const first = ownedMembership(integration, pulumi.secret(user), "ann-youtube", {});
    const second = ownedMembership(integration, user.toUpperCase(), "ann-youtube-2", {});
    for (const message of await Promise.all([failureOf(first), failureOf(second)])) {
      // In the order their ids became known.
      expect(message).toMatch(
        /IntegrationEntitlement resources "ann-youtube(-2)?" and "ann-youtube(-2)?" both manage one membership \(its/,
      );
      expect(message).toContain("both manage one membership (its user or integration id is a secret)");
      expect(message.toLowerCase()).not.toContain(user);
    }
  });

  it("names an integration both kinds manage, but not its id when either declared it as a secret", async () => {
    await newProgram();
    const members = ownedIntegration(pulumi.secret(integration), "IntegrationMembers", "youtube-members", {});
    const one = ownedIntegration(integration, "IntegrationEntitlement", "ann-youtube", {});
    for (const message of await Promise.all([failureOf(members), failureOf(one)])) {
      expect(message).toContain('IntegrationMembers "youtube-members" manages every member of an integration (its id is a secret)');
      expect(message).not.toContain(integration);
    }
  });
});
