import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { ownedEmails } from "../../src/program/owners";

async function newProgram(): Promise<void> {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

describe("one owner per user: two WorkspaceUsers (a User registers the same key, ownedEmail)", () => {
  it("fails both declarations of one email in any case, naming both resources; the other users pass", async () => {
    await newProgram();
    const set = ownedEmails([{ email: "ann@example.com" }, { email: "bob@example.com" }], "people");
    const other = ownedEmails([{ email: "ANN@example.com" }], "admins");
    await expect(set).rejects.toThrow('resources "people" and "admins" both manage the user with the email ann@example.com');
    await expect(other).rejects.toThrow('Nothing was sent to the service for "admins"');
    await newProgram();
    await expect(ownedEmails([{ email: "bob@example.com" }], "people")).resolves.toEqual([{ email: "bob@example.com" }]);
  });
});
