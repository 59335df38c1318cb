import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { ownedEmails } from "../../src/program/owners";
import { WorkspaceUsers } from "../../src/program/workspace-users";

async function newProgram(): Promise<void> {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

describe("one owner per user: two WorkspaceUsers (a User registers the same key, ownedEmail)", () => {
  it("fails both declarations of one email in any case, naming both resources; the other users pass", async () => {
    await newProgram();
    const set = ownedEmails([{ email: "ann@example.com" }, { email: "bob@example.com" }], "people", {});
    const other = ownedEmails([{ email: "ANN@example.com" }], "admins", {});
    await expect(set).rejects.toThrow('resources "people" and "admins" both manage the user with the email ann@example.com');
    await expect(other).rejects.toThrow('Nothing was sent to the service for "admins"');
    await newProgram();
    await expect(ownedEmails([{ email: "bob@example.com" }], "people", {})).resolves.toEqual([{ email: "bob@example.com" }]);
  });
});

describe("property paths", () => {
  it("refuse a path naming a user by place, giving the path by email, before anything is registered", async () => {
    await newProgram();
    const users = [{ email: "Ann@Example.com", firstName: "Ann", lastName: "Lee" }];
    expect(() => new WorkspaceUsers("people", { users }, { ignoreChanges: ["users[0].firstName"] })).toThrow(
      'WorkspaceUsers "people": ignoreChanges path "users[0].firstName" names a user by place, but the set keys its users by email ' +
        'in lower case (order does not matter), so it would match nothing: write "users["ann@example.com"].firstName".',
    );
    expect(() => new WorkspaceUsers("people", { users: pulumi.output(users) }, { replaceOnChanges: ["users[3]"] })).toThrow(
      'write "users["<email in lower case>"]"',
    );
    expect(() => new WorkspaceUsers("people", { users }, { ignoreChanges: ['users["ann@example.com"].firstName'] })).not.toThrow();
  });
});

describe("one owner per user: resources told apart by instance, not by name", () => {
  it("two resources of one name (under other parents), or a User and a WorkspaceUsers of one name, collide", async () => {
    await newProgram();
    const underTeamA = ownedEmails([{ email: "lead@example.com" }], "lead", {});
    const underTeamB = ownedEmails([{ email: "LEAD@example.com" }], "lead", {});
    await expect(underTeamA).rejects.toThrow('resources "lead" and "lead" both manage the user with the email lead@example.com');
    await expect(underTeamB).rejects.toThrow("Nothing was sent to the service");
    await newProgram();
    const self = {};
    // One resource declaring its user twice is one owner.
    await expect(
      Promise.all([ownedEmails([{ email: "x@example.com" }], "x", self), ownedEmails([{ email: "x@example.com" }], "x", self)]),
    ).resolves.toHaveLength(2);
  });
});
