import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { ownedEmail, ownedIntegration } from "../../src/program/owners";

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
