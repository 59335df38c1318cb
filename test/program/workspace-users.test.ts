import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it, vi } from "vitest";
import { ownedEmails } from "../../src/program/owners";
import { IntegrationEntitlement } from "../../src/program/integration-entitlement";
import { IntegrationMembers } from "../../src/program/integration-members";
import { User } from "../../src/program/user";
import { refuseUsersWithoutEmail, WorkspaceUsers } from "../../src/program/workspace-users";
import { recordedInputs } from "../support/recorded-inputs";

async function newProgram(): Promise<void> {
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

describe("one owner per user: two WorkspaceUsers (a User registers the same key, ownedEmail)", () => {
  it("fails both declarations of one email in any case, naming both resources; the other users pass", async () => {
    await newProgram();
    const set = ownedEmails([{ email: "ann@example.com" }, { email: "bob@example.com" }], "people", {});
    const other = ownedEmails([{ email: "ANN@example.com" }], "admins", {});
    await expect(set).rejects.toThrow('WorkspaceUsers resources "people" and "admins" both manage the user with the email ann@example.com');
    await expect(other).rejects.toThrow('Nothing was sent to the service for "admins"');
    await newProgram();
    await expect(ownedEmails([{ email: "bob@example.com" }], "people", {})).resolves.toEqual([{ email: "bob@example.com" }]);
  });

  it("names only the resources when either declared the email as a secret, as a run error (printed as one line)", async () => {
    await newProgram();
    const user = ownedEmails([{ email: "ann@example.com" }], "ann", {}, { secret: true });
    const set = ownedEmails([{ email: "ANN@example.com" }], "people", {});
    for (const failure of [user, set]) {
      const error = await failure.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String(error)).toContain('User "ann" and WorkspaceUsers "people" both manage one user (its email is a secret)');
      expect(String(error).toLowerCase()).not.toContain("ann@example.com");
      expect(error).toHaveProperty("__pulumiRunError", true);
    }
  });
});

describe("unknown roles", () => {
  const settled = (o: pulumi.Output<unknown>) => new Promise((resolve) => o.apply(resolve));

  it("warn once per unknown role, naming its users; in a set holding a secret, naming neither role nor emails", async () => {
    await newProgram();
    const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
    try {
      const person = (email: string, role: string) => ({ email, firstName: "F", lastName: "L", role });
      const team = new WorkspaceUsers("team", {
        users: [
          person("Bob@Example.com", "workspace_admn"),
          person("ann@example.com", "workspace_admn"),
          person("cy@example.com", "workspace_login_only"),
          person("dee@example.com", "pilot"),
        ],
      });
      const hidden = new WorkspaceUsers("hidden", {
        users: [{ ...person("eve@example.com", "workspace_admn"), firstName: pulumi.secret("Eve") }],
      });
      await Promise.all([settled(team.id), settled(hidden.id)]);
      const known = "is not one of the known workspace roles";
      const calls = warn.mock.calls.filter(([message]) => String(message).includes(known));
      const seen = calls.map(([message, resource]) => [String(message).slice(0, String(message).indexOf(known)), resource]);
      expect(seen.sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
        ['role "pilot" of dee@example.com ', team],
        ['role "workspace_admn" of ann@example.com, bob@example.com ', team],
        ["the role (a secret) of 1 user ", hidden],
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("the hidden __secretUsers input", () => {
  it("is true for a set holding a secret (its email, or any other value), and absent from a plain set's inputs", async () => {
    const inputs = await recordedInputs();
    const person = { email: "ann@example.com", firstName: "Ann", lastName: "Lee" };
    const sets = [
      new WorkspaceUsers("plain", { users: [person] }),
      new WorkspaceUsers("email", { users: [{ ...person, email: pulumi.secret("bob@example.com") }] }),
      new WorkspaceUsers("name", { users: pulumi.output([{ ...person, email: "cy@example.com", lastName: pulumi.secret("Lee") }]) }),
    ];
    await Promise.all(sets.map((set) => new Promise((resolve) => set.id.apply(resolve))));
    expect(inputs.get("plain")).not.toHaveProperty("__secretUsers");
    expect(inputs.get("email")?.__secretUsers).toBe(true);
    expect(inputs.get("name")?.__secretUsers).toBe(true);
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

  it("refuse a quoted root naming a user by place, and an email not in lower case, giving the path to write", async () => {
    await newProgram();
    const users = [{ email: "Ann@Example.com", firstName: "Ann", lastName: "Lee" }];
    expect(() => new WorkspaceUsers("people", { users }, { ignoreChanges: [' ["users"] [0].firstName'] })).toThrow(
      "names a user by place, but the set keys its users by email in lower case (order does not matter), so it would match " +
        'nothing: write "users["ann@example.com"].firstName".',
    );
    for (const path of [
      'users["Ann@Example.com"].firstName',
      '["users"]["Ann@Example.com"].firstName',
      'users[" ann@example.com"].firstName',
    ]) {
      expect(() => new WorkspaceUsers("people", { users }, { replaceOnChanges: [path] })).toThrow(
        `WorkspaceUsers "people": replaceOnChanges path "${path}" names a user by an email not in lower case, but the set keys ` +
          'its users by email in lower case, so it would match nothing: write "users["ann@example.com"].firstName".',
      );
    }
    // Paths that match: the key in lower case (root plain or quoted), every user, the set whole.
    const fine = ['["users"]["user0@example.com"].firstName', "users[*].role", "users", '["users"]'];
    for (const [i, path] of fine.entries()) {
      const one = [{ email: `User${i}@Example.com`, firstName: "U", lastName: "Ser" }];
      expect(() => new WorkspaceUsers(`fine-${i}`, { users: one }, { ignoreChanges: [path] })).not.toThrow();
    }
  });

  // The state keeps a set sorted: "members[0]" would take the first member by user id's old value for the program's first.
  it("refuse a path naming a member or an entitlement by place (it would give one member another's value)", async () => {
    await newProgram();
    const members = [{ userId: "00000000-0000-4000-8000-0000000000b0", entitlements: ["MEMBER"] }];
    const integrationId = "00000000-0000-4000-8000-0000000000c0";
    for (const path of ["members[0].entitlements", "members[*].entitlements", "members[1]", '["members"][0].entitlements']) {
      expect(() => new IntegrationMembers("slack", { integrationId, members }, { ignoreChanges: [path] })).toThrow(
        `IntegrationMembers "slack": ignoreChanges path "${path}" names a member by place, but the state keeps its members sorted by ` +
          `user id, not in the program's order, so the path would take another's value: write "members" whole, or leave that ` +
          "member out of the set (a member the set does not list is not managed).",
      );
    }
    const membership = { integrationId, userId: "00000000-0000-4000-8000-0000000000b1", entitlements: ["MEMBER", "ADMIN"] };
    expect(() => new IntegrationEntitlement("bob-slack", membership, { replaceOnChanges: ["entitlements[0]"] })).toThrow(
      'IntegrationEntitlement "bob-slack": replaceOnChanges path "entitlements[0]" names an entitlement by place, but the state keeps ' +
        `the entitlements sorted, not in the program's order, so the path would take another's value: write "entitlements" whole.`,
    );
    expect(
      () => new IntegrationMembers("slack-2", { integrationId, members }, { ignoreChanges: ["members", "removeUnmanaged"] }),
    ).not.toThrow();
    expect(
      () =>
        new IntegrationEntitlement(
          "bob-slack-2",
          { ...membership, integrationId: "00000000-0000-4000-8000-0000000000c1" },
          { ignoreChanges: ["entitlements"] },
        ),
    ).not.toThrow();
  });
});

describe("one owner per user: resources told apart by instance, not by name", () => {
  it("two resources of one name (under other parents), or a User and a WorkspaceUsers of one name, collide", async () => {
    await newProgram();
    const underTeamA = ownedEmails([{ email: "lead@example.com" }], "lead", {});
    const underTeamB = ownedEmails([{ email: "LEAD@example.com" }], "lead", {});
    await expect(underTeamA).rejects.toThrow(
      'Two WorkspaceUsers resources named "lead" (under other parents) both manage the user with the email lead@example.com',
    );
    await expect(underTeamB).rejects.toThrow("Nothing was sent to the service");
    await newProgram();
    const self = {};
    // One resource declaring its user twice is one owner.
    await expect(
      Promise.all([ownedEmails([{ email: "x@example.com" }], "x", self), ownedEmails([{ email: "x@example.com" }], "x", self)]),
    ).resolves.toHaveLength(2);
  });
});

/** A resource of another provider whose `name` a preview does not know yet (the mocks make it no id, as a create's preview). */
class Unmade extends pulumi.CustomResource {
  declare readonly name: pulumi.Output<string>;
  constructor(name: string) {
    super("test:index:Unmade", name, { name: undefined });
  }
}

/**
 * A preview under Pulumi's mocks, `declare` run in it (a resource of type `test:index:Unmade` gets no id, its outputs unknown):
 * the resources registered, by name, and the failures of those that were not (the rejections of their outputs, which
 * Pulumi's output chain leaves unhandled), once the resources `declare` returns have settled.
 */
async function previewOf(declare: () => pulumi.Resource[]): Promise<{ registered: string[]; failures: string[] }> {
  const registered: string[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (a) => {
        registered.push(a.name);
        return { id: a.type === "test:index:Unmade" ? (undefined as unknown as string) : `${a.name}-id`, state: a.inputs };
      },
      call: (a) => a.inputs,
    },
    "p",
    "s",
    true,
  );
  const failures: string[] = [];
  const listeners = process.listeners("unhandledRejection");
  process.removeAllListeners("unhandledRejection");
  process.on("unhandledRejection", (reason) => failures.push(String(reason)));
  try {
    const urnOf = (resource: pulumi.Resource) => (resource.urn as unknown as { promise(): Promise<string> }).promise();
    await Promise.allSettled(declare().map(urnOf));
    await new Promise((resolve) => setImmediate(resolve));
    return { registered, failures };
  } finally {
    process.removeAllListeners("unhandledRejection");
    for (const listener of listeners) process.on("unhandledRejection", listener);
  }
}

/** Whether `failures` fail both `User "ann"` and `WorkspaceUsers "people"` for the one user they both manage. */
function bothFailed(failures: string[]): void {
  const collision = 'User "ann" and WorkspaceUsers "people" both manage the user with the email';
  expect(failures.some((f) => f.includes(collision) && f.includes('Nothing was sent to the service for "people"'))).toBe(true);
  expect(failures.some((f) => f.includes(collision) && f.includes('Nothing was sent to the service for "ann"'))).toBe(true);
}

describe("one owner per user: a set declares its emails once they are known", () => {
  it("in a preview, a user another resource manages fails both, though another value of the set is not known yet", async () => {
    const { registered, failures } = await previewOf(() => {
      const name = new Unmade("hr-record").name;
      const ann = new User("ann", { email: "ann@example.com", firstName: "Ann", lastName: "Lee" });
      const people = new WorkspaceUsers("people", { users: [{ email: "ANN@example.com", firstName: name, lastName: "Lee" }] });
      // The control: a set of other users, one of its values unknown, registers.
      const others = new WorkspaceUsers("others", { users: [{ email: "carl@example.com", firstName: name, lastName: "Cole" }] });
      return [ann, people, others];
    });
    expect(registered).toEqual(["hr-record", "others"]);
    bothFailed(failures);
  });
});

describe("a set's users as a JavaScript program may give them", () => {
  it("a user without an email, or not a user, fails naming the set and the place, printing no value", () => {
    expect(() => refuseUsersWithoutEmail([{ email: "ann@example.com" }, { firstName: "Bob" }], "people")).toThrow(
      'WorkspaceUsers "people": users[1] needs an email, a string that is not empty (got an email of type undefined): give each user its email.',
    );
    expect(() => refuseUsersWithoutEmail([{ email: 42, firstName: "Secret" }], "people")).toThrow("users[0] needs an email");
    expect(() => refuseUsersWithoutEmail([{ email: 42, firstName: "Secret" }], "people")).not.toThrow("Secret");
    expect(() => refuseUsersWithoutEmail(["ann@example.com"], "people")).toThrow("(got a string)");
    expect(() => refuseUsersWithoutEmail([{ email: "  " }], "people")).toThrow("users[0] needs an email");
    expect(() => refuseUsersWithoutEmail({ ann: { email: "ann@example.com" } }, "people")).toThrow(
      "users must be a list of users, got object",
    );
    expect(() => refuseUsersWithoutEmail([{ email: "ann@example.com" }], "people")).not.toThrow();
  });
});

describe("one owner per user: a set declares each email once it is known", () => {
  it("in a preview, a user another resource manages fails both, though another user's email is not known yet", async () => {
    const { registered, failures } = await previewOf(() => {
      const name = new Unmade("hr-record").name;
      const ann = new User("ann", { email: "ann@example.com", firstName: "Ann", lastName: "Lee" });
      // Ann's email is known; the other user's is made from a resource the preview has not made yet.
      const users = [
        { email: "ANN@example.com", firstName: "Ann", lastName: "Lee" },
        { email: name.apply((n) => `${n}@example.com`), firstName: "Dee", lastName: "Moe" },
      ];
      return [ann, new WorkspaceUsers("people", { users })];
    });
    expect(registered).toEqual(["hr-record"]);
    bothFailed(failures);
  });
});
