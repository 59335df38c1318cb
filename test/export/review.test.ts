/**
 * The review's comparison and `--accept` as pure functions, in tables: `access.yaml` and the
 * workspace (as an export would write it now) in, each difference out, worded by which side holds
 * what; and the accepted file, which the comparison then finds equal to the workspace.
 */
import { describe, expect, it } from "vitest";
import { type AccessFile, type AccessLeftOut, type AccessUser, formatAccessFile, parseAccessFile } from "../../src/export/access-file";
import { acceptAccess } from "../../src/export/review/accept";
import { type AccessDifference, compareAccess } from "../../src/export/review/differences";

const GH = "5b1f0000-0000-4000-8000-000000000002";
const ann: AccessUser = {
  name: "ann-at-x.example",
  email: "ann@x.example",
  firstName: "Ann",
  lastName: "Lee",
  role: "workspace_login_only",
  isGuest: false,
};
const bob: AccessUser = {
  name: "bob-at-x.example",
  email: "bob@x.example",
  firstName: "Bob",
  lastName: "Ray",
  role: "workspace_login_only",
  isGuest: false,
};
const scim: AccessLeftOut = {
  kind: "user",
  id: "u-scim",
  email: "scim@x.example",
  role: "workspace_login_only",
  isGuest: false,
  reason: "no last name",
};
const scimMember: AccessLeftOut = {
  kind: "membership",
  integration: GH,
  id: "u-scim",
  email: "scim@x.example",
  role: "collaborator",
  entitlements: ["READ"],
  reason: "its user is left out (no last name)",
};

/** A file with ann and bob, both members of GitHub acme (ann with READ, bob with READ and WRITE). */
function file(change: (f: AccessFile) => void = () => {}): AccessFile {
  const f: AccessFile = {
    version: 1,
    workspace: "https://acme.example.com/api/v1/",
    scope: { membersOnly: false },
    users: [{ ...ann }, { ...bob }],
    integrations: [
      {
        name: "github-acme",
        id: GH,
        label: "GitHub acme",
        application: "GitHub",
        members: [
          { user: "ann@x.example", role: "account_collaborator", entitlements: ["READ"] },
          { user: "bob@x.example", role: "account_collaborator", entitlements: ["READ", "WRITE"] },
        ],
      },
    ],
    leftOut: [],
  };
  change(f);
  return f;
}
const gh = (f: AccessFile) => f.integrations[0]!;
const member = (f: AccessFile, email: string) => gh(f).members.find((m) => m.user === email)!;
const drop = (f: AccessFile, email: string) => {
  gh(f).members = gh(f).members.filter((m) => m.user !== email);
};
const brief = (d: AccessDifference) => [d.kind, d.side, d.accessYaml, d.workspace];

describe("compareAccess", () => {
  it.each<[string, AccessFile, AccessFile, string[], unknown[][]]>([
    ["nothing differs", file(), file(), [], []],
    [
      "a member access.yaml has and the workspace not (a pending edit, or someone removed: the same words)",
      file(),
      file((f) => drop(f, "ann@x.example")),
      ['access.yaml grants ann@x.example READ in "GitHub acme" as account_collaborator; the workspace does not (not a member there)'],
      [["membership", "access.yaml", "READ as account_collaborator", null]],
    ],
    [
      "a member the workspace has and access.yaml not",
      file((f) => drop(f, "bob@x.example")),
      file(),
      ['the workspace grants bob@x.example READ, WRITE in "GitHub acme" as account_collaborator; access.yaml does not'],
      [["membership", "workspace", null, "READ, WRITE as account_collaborator"]],
    ],
    [
      "entitlements each side grants and the other does not",
      file(),
      file((f) => {
        member(f, "bob@x.example").entitlements = ["ADMIN", "READ"];
      }),
      [
        'access.yaml grants bob@x.example WRITE in "GitHub acme"; the workspace does not',
        'the workspace grants bob@x.example ADMIN in "GitHub acme"; access.yaml does not',
      ],
      [
        ["entitlements", "access.yaml", "WRITE", null],
        ["entitlements", "workspace", null, "ADMIN"],
      ],
    ],
    [
      "a member's role",
      file(),
      file((f) => {
        member(f, "ann@x.example").role = "account_owner";
      }),
      ['access.yaml makes ann@x.example account_collaborator in "GitHub acme"; the workspace makes them account_owner'],
      [["member-role", "both", "account_collaborator", "account_owner"]],
    ],
    [
      "a user the workspace has and access.yaml not",
      file((f) => {
        f.users = [f.users[0]!];
        drop(f, "bob@x.example");
      }),
      file((f) => drop(f, "bob@x.example")),
      ["the workspace has user bob@x.example (Bob Ray, workspace_login_only); access.yaml does not"],
      [["user", "workspace", null, "Bob Ray, workspace_login_only"]],
    ],
    [
      "a user access.yaml declares and the workspace has not",
      file((f) => drop(f, "bob@x.example")),
      file((f) => {
        f.users = [f.users[0]!];
        drop(f, "bob@x.example");
      }),
      ["access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has no such user"],
      [["user", "access.yaml", "Bob Ray, workspace_login_only", null]],
    ],
    [
      "a user's names, role and guest flag; emails compare case-insensitively",
      file(),
      file((f) => {
        f.users[0] = { ...ann, email: "Ann@X.example", lastName: "Lee-Smith", role: "workspace_owner", isGuest: true };
      }),
      [
        'access.yaml names Ann@X.example "Ann Lee"; the workspace names them "Ann Lee-Smith"',
        "access.yaml gives Ann@X.example the role workspace_login_only; the workspace gives the role workspace_owner",
        "access.yaml has Ann@X.example as not a guest; the workspace has them as a guest",
      ],
      [
        ["user-name", "both", "Ann Lee", "Ann Lee-Smith"],
        ["user-role", "both", "workspace_login_only", "workspace_owner"],
        ["user-guest", "both", "false", "true"],
      ],
    ],
    [
      "a guest flag the workspace's record does not tell (left out beside a guest role, or no role): a User writes the declared one",
      file((f) => {
        f.users[0] = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee", isGuest: false };
        f.users[1] = { ...bob, isGuest: true };
      }),
      file((f) => {
        f.users[0] = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee", role: "workspace_guest_user" };
        f.users[1] = { name: bob.name, email: bob.email, firstName: "Bob", lastName: "Ray" };
      }),
      [
        "access.yaml has ann@x.example as not a guest; the workspace does not tell whether they are (isGuest left out beside the role workspace_guest_user): pulumi up writes access.yaml's flag unless the stack's state records that write already",
        "access.yaml gives bob@x.example the role workspace_login_only; the workspace gives no role",
        "access.yaml has bob@x.example as a guest; the workspace does not tell whether they are (isGuest left out beside no role): pulumi up writes access.yaml's flag unless the stack's state records that write already",
      ],
      [
        ["user-guest", "both", "false", "not told"],
        ["user-role", "both", "workspace_login_only", null],
        ["user-guest", "both", "true", "not told"],
      ],
    ],
    [
      "a guest flag access.yaml leaves out, the workspace's untold: no difference (a User keeps the service's)",
      file((f) => {
        f.users[0] = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee" };
      }),
      file((f) => {
        f.users[0] = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee", role: "workspace_guest_admin" };
      }),
      [],
      [],
    ],
    [
      "a user's id, where access.yaml records one that the workspace's user of that email no longer has",
      file((f) => {
        f.users[0] = { ...ann, id: "7a5e0000-0000-4000-8000-00000000000a" };
        f.users[1] = { ...bob, id: "7a5e0000-0000-4000-8000-00000000000b" };
      }),
      file((f) => {
        f.users[0] = { ...ann, id: "7a5e0000-0000-4000-8000-0000000000aa" };
        f.users[1] = { ...bob, id: "7a5e0000-0000-4000-8000-00000000000b" };
      }),
      [
        "access.yaml records ann@x.example as the user 7a5e0000-0000-4000-8000-00000000000a; the workspace's ann@x.example is the user 7a5e0000-0000-4000-8000-0000000000aa",
      ],
      [["user-id", "both", "7a5e0000-0000-4000-8000-00000000000a", "7a5e0000-0000-4000-8000-0000000000aa"]],
    ],
    [
      "a user's email, where access.yaml records the id the workspace has under another: one difference, their membership theirs",
      file((f) => {
        f.users[1] = { ...bob, id: "7a5e0000-0000-4000-8000-00000000000b" };
      }),
      file((f) => {
        f.users[1] = { ...bob, email: "Robert@x.example", id: "7a5e0000-0000-4000-8000-00000000000b" };
        member(f, "bob@x.example").user = "Robert@x.example";
      }),
      [
        "access.yaml records the user 7a5e0000-0000-4000-8000-00000000000b as bob@x.example; the workspace's user 7a5e0000-0000-4000-8000-00000000000b is Robert@x.example",
      ],
      [["user-email", "both", "bob@x.example", "Robert@x.example"]],
    ],
    [
      "a user added by hand, no id recorded: no difference (the program declares them by email until an id is)",
      file(),
      file((f) => {
        f.users[0] = { ...ann, id: "7a5e0000-0000-4000-8000-00000000000a" };
      }),
      [],
      [],
    ],
    [
      "a record left out on both sides, its access the same: no difference, whatever the reason says",
      file((f) => {
        f.leftOut = [scim, scimMember];
      }),
      file((f) => {
        f.leftOut = [{ ...scim, reason: "no first name" }, scimMember];
      }),
      [],
      [],
    ],
    [
      "a record left out on both sides whose access differs: a user made owner, a member made owner with one more entitlement",
      file((f) => {
        f.leftOut = [scim, scimMember];
      }),
      file((f) => {
        f.leftOut = [
          { ...scim, role: "workspace_owner" },
          { ...scimMember, role: "owner", entitlements: ["READ", "WRITE"] },
        ];
      }),
      [
        "access.yaml records user u-scim <scim@x.example> as left out with workspace_login_only; the workspace has workspace_owner, left out: no last name",
        'access.yaml records the membership of u-scim <scim@x.example> in "GitHub acme" as left out with READ as collaborator; the workspace has READ, WRITE as owner, left out: its user is left out (no last name)',
      ],
      [
        ["left-out", "both", "workspace_login_only", "workspace_owner"],
        ["left-out", "both", "READ as collaborator", "READ, WRITE as owner"],
      ],
    ],
    [
      "a record left out on both sides, access.yaml recording none of its access (written by hand): said so, not as '(not read)'",
      file((f) => {
        f.leftOut = [{ kind: "user", id: "u-scim", email: "scim@x.example", reason: "no last name" }];
      }),
      file((f) => {
        f.leftOut = [scim];
      }),
      [
        "access.yaml records user u-scim <scim@x.example> as left out, with no access recorded; the workspace has workspace_login_only, left out: no last name",
      ],
      [["left-out", "both", "(not read)", "workspace_login_only"]],
    ],
    [
      "an integration left out now, access.yaml recording nothing of it: its members not read",
      file((f) => {
        f.integrations = [];
      }),
      file((f) => {
        f.integrations = [];
        f.leftOut = [{ kind: "integration", id: GH, reason: "listed twice, differently" }];
      }),
      [
        `the workspace has integration ${GH} (its members not read), which a project cannot declare: listed twice, differently; access.yaml does not record it`,
      ],
      [["left-out", "workspace", null, "(not read)"]],
    ],
    [
      "a record left out now, not recorded",
      file(),
      file((f) => {
        f.leftOut = [scim];
      }),
      [
        "the workspace has user u-scim <scim@x.example> (workspace_login_only), which a project cannot declare: no last name; access.yaml does not record it",
      ],
      [["left-out", "workspace", null, "workspace_login_only"]],
    ],
    [
      "a record access.yaml records as left out that the workspace has not",
      file((f) => {
        f.leftOut = [scim];
      }),
      file(),
      ["access.yaml records user u-scim <scim@x.example> as left out: no last name; the workspace has no such user"],
      [["left-out", "access.yaml", "workspace_login_only", null]],
    ],
    [
      "a record access.yaml records as left out that a project can declare now",
      file((f) => {
        f.users = [f.users[0]!];
        drop(f, "bob@x.example");
        f.leftOut = [{ kind: "user", id: "u-bob", email: "bob@x.example", reason: "no first name" }];
      }),
      // The workspace's bob by the id recorded: a record access.yaml leaves out with an id is that user alone.
      file((f) => {
        drop(f, "bob@x.example");
        f.users[1] = { ...bob, id: "u-bob" };
      }),
      [
        "the workspace has user u-bob <bob@x.example> (Bob Ray, workspace_login_only); access.yaml records it only as left out: no first name",
      ],
      [["left-out", "workspace", "left out: (not read)", "Bob Ray, workspace_login_only"]],
    ],
    [
      "a record access.yaml records as left out with an id the workspace no longer has, another user holding its email now",
      file((f) => {
        f.users = [f.users[0]!];
        drop(f, "bob@x.example");
        f.leftOut = [{ kind: "user", id: "u-bob", email: "bob@x.example", reason: "no first name" }];
      }),
      file((f) => {
        drop(f, "bob@x.example");
        f.users[1] = { ...bob, id: "u-new" };
      }),
      [
        "the workspace has user bob@x.example (Bob Ray, workspace_login_only); access.yaml does not",
        "access.yaml records user u-bob <bob@x.example> as left out: no first name; the workspace has no such user",
      ],
      [
        ["user", "workspace", null, "Bob Ray, workspace_login_only"],
        ["left-out", "access.yaml", "(not read)", null],
      ],
    ],
    [
      "a record access.yaml records as left out without an id (added by hand): matched by email",
      file((f) => {
        f.users = [f.users[0]!];
        drop(f, "bob@x.example");
        f.leftOut = [{ kind: "user", email: "bob@x.example", reason: "no first name" }];
      }),
      file((f) => {
        drop(f, "bob@x.example");
        f.users[1] = { ...bob, id: "u-new" };
      }),
      ["the workspace has user bob@x.example (Bob Ray, workspace_login_only); access.yaml records it only as left out: no first name"],
      [["left-out", "workspace", "left out: (not read)", "Bob Ray, workspace_login_only"]],
    ],
    [
      "a member the workspace holds with no entitlement (left out now): the entitlements access.yaml grants",
      file(),
      file((f) => {
        drop(f, "ann@x.example");
        f.leftOut = [
          {
            kind: "membership",
            integration: GH,
            id: "u-ann",
            email: "ann@x.example",
            role: "collaborator",
            entitlements: [],
            reason: "no entitlements",
          },
        ];
      }),
      ['access.yaml grants ann@x.example READ in "GitHub acme"; the workspace does not (a member there with no entitlement)'],
      [["entitlements", "access.yaml", "READ", "no entitlement"]],
    ],
    [
      "an integration left out now: reported once, none of its members as missing",
      file(),
      file((f) => {
        f.integrations = [];
        f.leftOut = [{ kind: "integration", id: GH, reason: "listed twice, differently" }];
      }),
      [
        `access.yaml declares integration ${GH} ("GitHub acme") (2 members); the workspace has it in a form a project cannot declare: listed twice, differently`,
      ],
      [["left-out", "both", "2 members", "(not read)"]],
    ],
  ])("%s", (_, recorded, live, texts, briefs) => {
    const differences = compareAccess(recorded, live);
    expect(differences.map((d) => d.text)).toEqual(texts);
    expect(differences.map(brief)).toEqual(briefs);
  });

  it("words a reason that ends in parentheses of its own after a colon, never as '(… (no last name))'", () => {
    // The reasons a membership of a user left out, or a record listed twice, are given.
    const nested = "its user is left out (no last name)";
    const twice = 'listed twice, differently (lastName: "Lee" / "Lee-Smith")';
    const texts = (recorded: AccessFile, live: AccessFile, options?: Parameters<typeof compareAccess>[2]) =>
      compareAccess(recorded, live, options).map((d) => d.text);
    // Left out by the workspace, not recorded; declared by access.yaml; left out on both sides, its access changed.
    expect(
      texts(
        file((f) => {
          f.leftOut = [{ ...scimMember, role: "owner" }];
        }),
        file((f) => {
          f.leftOut = [
            scimMember,
            { kind: "user", id: "u-new", email: "new@x.example", reason: twice },
            { kind: "membership", integration: GH, email: "bob@x.example", reason: nested },
          ];
          drop(f, "bob@x.example");
        }),
      ),
    ).toEqual([
      `access.yaml declares the membership of bob@x.example in "GitHub acme" (READ, WRITE as account_collaborator); the workspace has it in a form a project cannot declare: ${nested}`,
      `the workspace has user u-new <new@x.example> (its access not read), which a project cannot declare: ${twice}; access.yaml does not record it`,
      `access.yaml records the membership of u-scim <scim@x.example> in "GitHub acme" as left out with READ as owner; the workspace has READ as collaborator, left out: ${nested}`,
    ]);
    // Recorded as left out by access.yaml: the workspace declares it now, has no such record, or it could not be told.
    expect(
      texts(
        file((f) => {
          f.leftOut = [
            { kind: "membership", integration: GH, email: "ann@x.example", reason: nested },
            { kind: "user", email: "gone@x.example", reason: twice },
            { kind: "membership", integration: GH, email: "cy@x.example", reason: nested },
          ];
          drop(f, "ann@x.example");
        }),
        file(),
        { unnamed: [{ kind: "membership", id: "u-broken", integration: GH }] },
      ),
    ).toEqual([
      `the workspace has the membership of ann@x.example in "GitHub acme" (READ as account_collaborator); access.yaml records it only as left out: ${nested}`,
      `access.yaml records the membership of cy@x.example in "GitHub acme" as left out: ${nested}; whether the workspace has it could not be told (a member record of the workspace breaks the contract and its email could not be read: u-broken)`,
      `access.yaml records user gone@x.example as left out: ${twice}; the workspace has no such user`,
    ]);
    // Under --members-only, a user recorded as left out that the workspace has with no membership in scope.
    const membersOnly = (f: AccessFile) => {
      f.scope = { membersOnly: true };
    };
    expect(
      texts(
        file((f) => {
          membersOnly(f);
          f.leftOut = [{ ...scim, reason: twice }];
        }),
        file(membersOnly),
        { workspaceIds: new Set(["u-scim"]) },
      ),
    ).toEqual([
      `access.yaml records user u-scim <scim@x.example> as left out: ${twice}; the workspace has them with no membership in scope (--members-only)`,
    ]);
  });

  it("under --members-only, a user the workspace still has, with no membership in scope, is out of scope", () => {
    const live = file((f) => {
      f.users = [f.users[0]!];
      drop(f, "bob@x.example");
    });
    const differences = compareAccess(file(), live, { workspaceEmails: new Set(["ann@x.example", "bob@x.example"]) });
    expect(differences.map((d) => d.text)).toEqual([
      "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has them with no membership in scope (--members-only)",
      'access.yaml grants bob@x.example READ, WRITE in "GitHub acme" as account_collaborator; the workspace does not (not a member there)',
    ]);
  });

  it.each<[string, NonNullable<Parameters<typeof compareAccess>[2]>["unnamed"], string]>([
    ["its id", [{ kind: "user", id: "u-x1" }], "a user record of the workspace breaks the contract and its email could not be read: u-x1"],
    [
      "that it has no id",
      [{ kind: "user" }],
      "a user record of the workspace breaks the contract, and neither its id nor its email could be read",
    ],
    [
      "how many have no id",
      [{ kind: "user" }, { kind: "user" }, { kind: "user" }],
      "3 user records of the workspace break the contract, and neither their ids nor their emails could be read",
    ],
    [
      "the ids, and how many have none",
      [{ kind: "user", id: "u-x1" }, { kind: "user" }, { kind: "user", id: "u-x2" }, { kind: "user" }],
      "4 user records of the workspace break the contract and their emails could not be read: u-x1, u-x2 and 2 with no id",
    ],
    [
      "the first ids, and how many more",
      ["u-x1", "u-x2", "u-x3", "u-x4", undefined].map((id) => ({ kind: "user" as const, id })),
      "5 user records of the workspace break the contract and their emails could not be read: u-x1, u-x2, u-x3 and 1 more, and 1 with no id",
    ],
  ])("names the records that may be a user it cannot tell, their email unread, by %s", (_, unnamed, why) => {
    const live = file((f) => {
      f.users = [f.users[0]!];
      drop(f, "bob@x.example");
    });
    const texts = compareAccess(file(), live, { unnamed }).map((d) => d.text);
    expect(texts).toEqual([
      `access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); whether the workspace has them could not be told (${why})`,
      'access.yaml grants bob@x.example READ, WRITE in "GitHub acme" as account_collaborator; the workspace does not (not a member there)',
    ]);
  });

  it("names the member records that may be a member it cannot tell by how many have no id", () => {
    const live = file((f) => drop(f, "bob@x.example"));
    const unnamed = [1, 2].map(() => ({ kind: "membership" as const, integration: GH }));
    expect(compareAccess(file(), live, { unnamed }).map((d) => d.text)).toEqual([
      'access.yaml grants bob@x.example READ, WRITE in "GitHub acme" as account_collaborator; whether the workspace does could not ' +
        "be told (2 member records of the workspace break the contract, and neither their ids nor their emails could be read)",
    ]);
  });
});

describe("acceptAccess", () => {
  const recorded = file((f) => {
    f.leftOut = [scim];
  });
  const live = file((f) => {
    // The workspace spells ann's email in capitals (no difference), renamed bob, gave him ADMIN,
    // has a new user cy, and the names it would give are not the file's.
    f.users = [
      { ...ann, name: "other-name", email: "ANN@x.example" },
      { ...bob, name: "bob-2", lastName: "Ray Jr" },
      { name: "cy-at-x.example", email: "cy@x.example", firstName: "Cy", lastName: "Doe", role: "workspace_login_only", isGuest: false },
    ];
    gh(f).name = "renamed-integration";
    gh(f).members = [
      { user: "ANN@x.example", role: "account_collaborator", entitlements: ["READ"] },
      { user: "bob@x.example", role: "account_collaborator", entitlements: ["ADMIN", "READ", "WRITE"] },
    ];
    f.leftOut = [{ ...scim, role: "workspace_owner" }];
  });

  it("takes the workspace's side of every difference, keeping names, the file's spelling of records that do not differ, the address and scope", () => {
    const accepted = acceptAccess(recorded, live);
    expect(compareAccess(accepted, live)).toEqual([]);
    expect(accepted.users.map((u) => [u.name, u.email, u.lastName])).toEqual([
      ["ann-at-x.example", "ann@x.example", "Lee"],
      ["bob-at-x.example", "bob@x.example", "Ray Jr"],
      ["cy-at-x.example", "cy@x.example", "Doe"],
    ]);
    expect(gh(accepted).name).toBe("github-acme");
    expect(gh(accepted).members.map((m) => [m.user, m.entitlements])).toEqual([
      ["ann@x.example", ["READ"]],
      ["bob@x.example", ["ADMIN", "READ", "WRITE"]],
    ]);
    expect(accepted.workspace).toBe(recorded.workspace);
    expect(accepted.leftOut).toEqual([{ ...scim, role: "workspace_owner" }]);
  });

  it("takes a guest flag the workspace does not tell out of the file, as the export leaves it out: a User then writes none", () => {
    const untold = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee", role: "workspace_guest_user" };
    const recordedFlag = file((f) => {
      f.users[0] = { name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee", isGuest: false };
    });
    const liveUntold = file((f) => {
      f.users[0] = untold;
    });
    expect(compareAccess(recordedFlag, liveUntold).map(brief)).toEqual([["user-guest", "both", "false", "not told"]]);
    const accepted = acceptAccess(recordedFlag, liveUntold);
    // No flag, and still no role: a role the file leaves out stays out (taking one in would make the project manage it).
    expect(accepted.users[0]).toEqual({ name: ann.name, email: ann.email, firstName: "Ann", lastName: "Lee" });
    expect(compareAccess(accepted, liveUntold)).toEqual([]);
    expect(parseAccessFile(formatAccessFile(accepted)).users[0]).not.toHaveProperty("isGuest");
  });

  it("is deterministic and reads back: the same file twice, parsed to the same access", () => {
    const text = formatAccessFile(acceptAccess(recorded, live));
    expect(formatAccessFile(acceptAccess(recorded, live))).toBe(text);
    expect(compareAccess(parseAccessFile(text), live)).toEqual([]);
  });

  it("records the workspace's id of a user the file has without one, and takes a changed one, keeping the rest as written", () => {
    const recordedIds = file((f) => {
      f.users[1] = { ...bob, id: "7a5e0000-0000-4000-8000-00000000000b" };
      member(f, "bob@x.example").entitlements = ["READ"];
    });
    const liveIds = file((f) => {
      f.users[0] = { ...ann, id: "7a5e0000-0000-4000-8000-00000000000a" };
      f.users[1] = { ...bob, id: "7a5e0000-0000-4000-8000-0000000000bb" };
    });
    const accepted = acceptAccess(recordedIds, liveIds);
    expect(accepted.users).toEqual([
      { ...ann, id: "7a5e0000-0000-4000-8000-00000000000a" },
      { ...bob, id: "7a5e0000-0000-4000-8000-0000000000bb" },
    ]);
    expect(compareAccess(accepted, liveIds)).toEqual([]);
    expect(parseAccessFile(formatAccessFile(accepted)).users).toEqual(accepted.users);
  });

  it("refuses an id given to two users (a block copied to add a user, its id line kept), naming both", () => {
    const text = formatAccessFile(
      file((f) => {
        f.users[0] = { ...ann, id: "7a5e0000-0000-4000-8000-00000000000a" };
        f.users[1] = { ...bob, id: "7A5E0000-0000-4000-8000-00000000000A" };
      }),
    );
    expect(() => parseAccessFile(text)).toThrow(
      /^access\.yaml, line \d+: users\[1\]: the id 7a5e0000-0000-4000-8000-00000000000a is ann@x\.example's too: remove the id line of the user you added/,
    );
  });

  it("reads an id in capitals as its one form", () => {
    const text = formatAccessFile(
      file((f) => {
        f.users[0] = { ...ann, id: "7A5E0000-0000-4000-8000-00000000000A" };
      }),
    );
    expect(parseAccessFile(text).users[0]?.id).toBe("7a5e0000-0000-4000-8000-00000000000a");
  });

  it("gives a new record whose name is taken another", () => {
    const taken = file((f) => {
      f.users.push({ ...bob, name: "cy-at-x.example", email: "bob2@x.example" });
    });
    const withCy = file((f) => {
      f.users.push({ ...bob, name: "whatever", email: "bob2@x.example" });
      f.users.push({ name: "cy-at-x.example", email: "cy@x.example", firstName: "Cy", lastName: "Doe" });
    });
    const names = acceptAccess(taken, withCy).users.map((u) => u.name);
    // (bob2@ sorts before bob@: "2" before "@")
    expect(names).toEqual(["ann-at-x.example", "cy-at-x.example", "bob-at-x.example", "cy-at-x.example-2"]);
  });
});
