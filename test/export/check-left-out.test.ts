/**
 * `--check` and the records a project cannot declare (`leftOut`), in process against the
 * emulator: recorded in `access.yaml` with what was read of their access, compared by it when both
 * sides leave a record out, and worded by what the other side holds when only one does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { type AccessFile, formatAccessFile, parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { answerWith, env, options, rawPage, twoMembers, twoMembersAndCy, YT } from "./support";

/** The emulator of {@link twoMembers} with one more user, left out of the export (no last name), and their membership. */
function withScimUser() {
  const seed = twoMembers();
  return startEmulator({
    seed: {
      users: [
        ...seed.users,
        { id: "u-scim", email: "scim@x.example", firstName: "Sc", lastName: null, role: "workspace_login_only", isGuest: false },
      ],
      integrations: [{ ...seed.integrations[0]!, users: [...seed.integrations[0]!.users, { userId: "u-scim", entitlements: ["VIEWER"] }] }],
    },
  });
}

describe("--check and the records the export leaves out", () => {
  /** Exports a fresh two-member workspace (with `extra` users), runs `change`, then checks. */
  async function exportChangeCheck(change: (emulator: Emulator) => void | Promise<void>, extra: Array<Record<string, unknown>> = []) {
    const seed = twoMembers();
    const emulator = await startEmulator({ seed: { ...seed, users: [...seed.users, ...extra] } as typeof seed });
    try {
      const exported = await runExport(options(emulator));
      await change(emulator);
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      return { exported, result, texts: result.changes.map((c) => c.text) };
    } finally {
      await emulator.close();
    }
  }

  it("records them in access.yaml: sorted, one per key, as data; a fresh check finds nothing", async () => {
    const { exported, result } = await exportChangeCheck(() => {}, [
      { id: "u-pending", email: "pending@x.example", firstName: null, lastName: null },
    ]);
    const text = fs.readFileSync(path.join(exported.dir, "access.yaml"), "utf8");
    expect(text).toContain(
      "leftOut:\n  - kind: user\n    id: u-pending\n    email: pending@x.example\n    role: workspace_login_only\n    isGuest: false\n    reason: no first name\n",
    );
    expect(parseAccessFile(text).leftOut).toEqual([
      { kind: "user", id: "u-pending", email: "pending@x.example", role: "workspace_login_only", isGuest: false, reason: "no first name" },
    ]);
    expect(result.changes).toEqual([]);
    expect(result.leftOut.map((l) => l.text)).toEqual(["user u-pending <pending@x.example>: no first name"]);
  });

  it("reports a user without a last name, an owner, and their membership as records the workspace has and a project cannot declare", async () => {
    const { texts, result } = await exportChangeCheck((emulator) => {
      emulator.users.add({ id: "u-scim", email: "scim@x.example", firstName: "Sc", lastName: null, role: "workspace_super_admin" });
      emulator.integrations.setMember(YT, "u-scim", { role: "owner", entitlements: ["VIEWER"] });
    });
    expect(texts).toEqual([
      "the workspace has user u-scim <scim@x.example> (workspace_super_admin), which a project cannot declare: no last name; access.yaml does not record it",
      'the workspace has the membership of u-scim <scim@x.example> in "YouTube acme" (VIEWER as owner), which a project cannot declare: its user is left out (no last name); access.yaml does not record it',
    ]);
    expect(result.changes.map((c) => [c.kind, c.side])).toEqual([
      ["left-out", "workspace"],
      ["left-out", "workspace"],
    ]);
  });

  it("compares a record left out then and now by what is known of it: a user made owner, a membership made owner with one more entitlement", async () => {
    const emulator = await withScimUser();
    try {
      const exported = await runExport(options(emulator));
      const check = () => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      const text = fs.readFileSync(path.join(exported.dir, "access.yaml"), "utf8");
      expect(parseAccessFile(text).leftOut).toEqual([
        { kind: "user", id: "u-scim", email: "scim@x.example", role: "workspace_login_only", isGuest: false, reason: "no last name" },
        {
          kind: "membership",
          integration: YT,
          id: "u-scim",
          email: "scim@x.example",
          role: "collaborator",
          entitlements: ["VIEWER"],
          reason: "its user is left out (no last name)",
        },
      ]);
      expect((await check()).changes).toEqual([]);
      emulator.users.update("u-scim", { role: "workspace_owner" });
      emulator.integrations.setMember(YT, "u-scim", { role: "owner", entitlements: ["VIEWER", "EDITOR"] });
      const result = await check();
      expect(result.changes.map((c) => [c.kind, c.side, c.accessYaml, c.workspace])).toEqual([
        ["left-out", "both", "workspace_login_only", "workspace_owner"],
        ["left-out", "both", "VIEWER as collaborator", "EDITOR, VIEWER as owner"],
      ]);
      expect(result.changes.map((c) => c.text)).toEqual([
        "access.yaml records user u-scim <scim@x.example> as left out with workspace_login_only; the workspace has workspace_owner, left out: no last name",
        'access.yaml records the membership of u-scim <scim@x.example> in "YouTube acme" as left out with VIEWER as collaborator; the workspace has EDITOR, VIEWER as owner, left out: its user is left out (no last name)',
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("a membership left out then, whose record now leaves its entitlements out, is not reported changed: its set is not known", async () => {
    const emulator = await withScimUser();
    try {
      const exported = await runExport(options(emulator));
      emulator.quirks.memberEntitlements = "left-out";
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes.filter((c) => c.text.includes("u-scim"))).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("a membership left out then whose role changed, its record now leaving the entitlements out, is reported with the role it has now", async () => {
    const emulator = await withScimUser();
    try {
      const exported = await runExport(options(emulator));
      emulator.integrations.setMember(YT, "u-scim", { role: "owner", entitlements: ["VIEWER"] });
      emulator.quirks.memberEntitlements = "left-out";
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      const [change] = result.changes.filter((c) => c.text.includes("u-scim"));
      // The role is what was read, and what changed: the workspace's side names it, not "(not read)".
      expect(change?.workspace).toBe("owner, entitlements not known");
      expect(change?.text).toContain(
        "as left out with VIEWER as collaborator; the workspace has owner, entitlements not known, left out: ",
      );
    } finally {
      await emulator.close();
    }
  });

  it("reports a member with a role a project cannot declare as declared in access.yaml and undeclarable in the workspace, not as missing", async () => {
    const { texts } = await exportChangeCheck(async (emulator) => {
      const page = await rawPage(emulator, `integrations/${YT}/users`);
      page.data.find((r) => r.id === "u-bob")!.attributes["role"] = "admin";
      answerWith(emulator, `integrations/${YT}/users`, page);
    });
    expect(texts).toEqual([
      `access.yaml declares the membership of u-bob <bob@x.example> in "YouTube acme" (VIEWER as account_collaborator); the workspace has it in a form a project cannot declare: role "admin" is neither owner nor collaborator`,
    ]);
  });

  it("reports users whose emails differ only in case as undeclarable in the workspace, not as missing", async () => {
    const { texts } = await exportChangeCheck(async (emulator) => {
      const page = await rawPage(emulator, "users");
      page.data.push({ id: "u-ann2", type: "user", attributes: { email: "Ann@X.example", firstName: "Ann", lastName: "Two" } });
      answerWith(emulator, "users", page);
    });
    const reason = (other: string) =>
      `another user has the same email but for case (${other}): access.yaml tells users apart by email, case-insensitively`;
    // u-ann2 is a user of their own, not ann: the workspace still lists ann's id, so her email matches nobody else.
    expect(texts).toEqual([
      `access.yaml declares user u-ann <ann@x.example> (Ann Lee, workspace_login_only); the workspace has it in a form a project cannot declare: ${reason("u-ann2")}`,
      `the workspace has user u-ann2 <Ann@X.example> (its access not read), which a project cannot declare: ${reason("u-ann")}; access.yaml does not record it`,
      `access.yaml declares the membership of u-ann <ann@x.example> in "YouTube acme" (VIEWER as account_collaborator); the workspace has it in a form a project cannot declare: its user is left out (${reason("u-ann2")})`,
    ]);
  });

  it("reports a record access.yaml records as left out that a project can declare now as that, not as a user only the workspace has", async () => {
    const { texts, result } = await exportChangeCheck(
      (emulator) => {
        emulator.users.update("u-cy", { firstName: "Cy" });
      },
      [{ id: "u-cy", email: "cy@x.example", firstName: null, lastName: "Doe" }],
    );
    expect(texts).toEqual([
      "the workspace has user u-cy <cy@x.example> (Cy Doe, workspace_login_only); access.yaml records it only as left out: no first name",
    ]);
    expect(result.changes[0]).toMatchObject({ kind: "left-out", side: "workspace", user: "cy@x.example", leftOut: "no first name" });
  });

  it("takes a user access.yaml records as left out with an id for that user alone, not a newcomer given their email", async () => {
    const emulator = await startEmulator({ seed: twoMembersAndCy() });
    try {
      const exported = await runExport(options(emulator));
      // u-cy deleted; someone else now holds the email, in a form a project can declare, a member too.
      emulator.users.remove("u-cy");
      emulator.users.add({ id: "u-new", email: "cy@x.example", firstName: "New", lastName: "Person" });
      emulator.integrations.setMember(YT, "u-new", { entitlements: ["EDITOR"] });
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes.map((c) => c.text)).toEqual([
        "the workspace has user cy@x.example (New Person, workspace_login_only); access.yaml does not",
        "access.yaml records user u-cy <cy@x.example> as left out: no first name; the workspace has no such user",
        'the workspace grants cy@x.example EDITOR in "YouTube acme" as account_collaborator; access.yaml does not',
        'access.yaml records the membership of u-cy <cy@x.example> in "YouTube acme" as left out: its user is left out (no first name); the workspace has no such membership',
      ]);
      expect(result.changes.map((c) => [c.kind, c.side, c.userId])).toEqual([
        ["user", "workspace", undefined],
        ["left-out", "access.yaml", "u-cy"],
        ["membership", "workspace", undefined],
        ["left-out", "access.yaml", "u-cy"],
      ]);
      // --accept takes the newcomer as a user to declare, and the left-out records out: a check then finds nothing.
      const check = (accept: boolean) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept });
      expect((await check(true)).accepted).toBe(true);
      const accepted = parseAccessFile(fs.readFileSync(path.join(exported.dir, "access.yaml"), "utf8"));
      expect(accepted.users.find((u) => u.email === "cy@x.example")).toMatchObject({ id: "u-new", firstName: "New" });
      expect(accepted.leftOut).toEqual([]);
      expect((await check(false)).changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("names a record access.yaml records as left out without an id (added by hand) by its email alone", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const exported = await runExport(options(emulator));
      // bob taken out of users and members by hand, and recorded as left out, without the ids the export writes.
      const file = path.join(exported.dir, "access.yaml");
      const data = parseAccessFile(fs.readFileSync(file, "utf8"));
      const yt = data.integrations[0]!;
      const byHand: AccessFile = {
        ...data,
        users: data.users.filter((u) => u.email !== "bob@x.example"),
        integrations: [{ ...yt, members: yt.members.filter((m) => m.user !== "bob@x.example") }],
        leftOut: [
          { kind: "user", email: "bob@x.example", reason: "no first name" },
          { kind: "membership", integration: YT, email: "bob@x.example", reason: "its user is left out (no first name)" },
        ],
      };
      fs.writeFileSync(file, formatAccessFile(byHand));
      const review = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(review.changes.map((c) => c.text)).toEqual([
        "the workspace has user bob@x.example (Bob Ray, workspace_login_only); access.yaml records it only as left out: no first name",
        'the workspace has the membership of bob@x.example in "YouTube acme" (VIEWER as account_collaborator); access.yaml ' +
          "records it only as left out: its user is left out (no first name)",
      ]);
      // The json as before: the user by email, no id.
      expect(review.changes.map((c) => [c.user, c.userId])).toEqual([
        ["bob@x.example", undefined],
        ["bob@x.example", undefined],
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("keeps every record added by hand without an id: two users and two memberships of one integration, checked and accepted each", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const exported = await runExport(options(emulator));
      // ann and bob taken out of users and members by hand, each recorded as left out, without the ids the export writes.
      const file = path.join(exported.dir, "access.yaml");
      const data = parseAccessFile(fs.readFileSync(file, "utf8"));
      const byHand: AccessFile = {
        ...data,
        users: [],
        integrations: [{ ...data.integrations[0]!, members: [] }],
        leftOut: ["ann@x.example", "bob@x.example"].flatMap((email) => [
          { kind: "user" as const, email, reason: "no first name" },
          { kind: "membership" as const, integration: YT, email, reason: "its user is left out (no first name)" },
        ]),
      };
      fs.writeFileSync(file, formatAccessFile(byHand));
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut).toHaveLength(4);
      const check = (accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept });
      expect((await check()).changes.map((c) => c.text)).toEqual([
        "the workspace has user ann@x.example (Ann Lee, workspace_login_only); access.yaml records it only as left out: no first name",
        'the workspace has the membership of ann@x.example in "YouTube acme" (VIEWER as account_collaborator); access.yaml ' +
          "records it only as left out: its user is left out (no first name)",
        "the workspace has user bob@x.example (Bob Ray, workspace_login_only); access.yaml records it only as left out: no first name",
        'the workspace has the membership of bob@x.example in "YouTube acme" (VIEWER as account_collaborator); access.yaml ' +
          "records it only as left out: its user is left out (no first name)",
      ]);
      // --accept takes the workspace's side of both: their users and members back, no record left out.
      expect((await check(true)).accepted).toBe(true);
      const accepted = parseAccessFile(fs.readFileSync(file, "utf8"));
      expect(accepted.users.map((u) => u.email)).toEqual(["ann@x.example", "bob@x.example"]);
      expect(accepted.integrations[0]!.members.map((m) => m.user)).toEqual(["ann@x.example", "bob@x.example"]);
      expect(accepted.leftOut).toEqual([]);
      expect((await check()).changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("matches a record access.yaml records as left out without an id (added by hand) to the one the workspace leaves out of that email", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const exported = await runExport(options(emulator));
      // ann and bob taken out of users and members by hand and recorded as left out without ids: ann with no access
      // recorded, bob with the access the workspace will hold. Then both left out in the workspace (no first name).
      const file = path.join(exported.dir, "access.yaml");
      const data = parseAccessFile(fs.readFileSync(file, "utf8"));
      const reason = "its user is left out (no first name)";
      const byHand: AccessFile = {
        ...data,
        users: [],
        integrations: [{ ...data.integrations[0]!, members: [] }],
        leftOut: [
          { kind: "user", email: "ann@x.example", reason: "no first name" },
          { kind: "membership", integration: YT, email: "ann@x.example", reason },
          { kind: "user", email: "bob@x.example", role: "workspace_login_only", isGuest: false, reason: "no first name" },
          { kind: "membership", integration: YT, email: "bob@x.example", role: "collaborator", entitlements: ["VIEWER"], reason },
        ],
      };
      fs.writeFileSync(file, formatAccessFile(byHand));
      emulator.users.update("u-ann", { firstName: null });
      emulator.users.update("u-bob", { firstName: null });
      const check = (accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept });
      const review = await check();
      // One comparison each for ann, by what is known of it; none for bob, whose access is the same on both sides.
      expect(review.changes.map((c) => c.text)).toEqual([
        "access.yaml records user u-ann <ann@x.example> as left out, with no access recorded; the workspace has workspace_login_only, left out: no first name",
        'access.yaml records the membership of u-ann <ann@x.example> in "YouTube acme" as left out, with no access recorded; the workspace has VIEWER as collaborator, left out: its user is left out (no first name)',
      ]);
      expect(review.changes.map((c) => [c.kind, c.side, c.user, c.userId, c.accessYaml, c.workspace])).toEqual([
        ["left-out", "both", "ann@x.example", "u-ann", "(not read)", "workspace_login_only"],
        ["left-out", "both", "ann@x.example", "u-ann", "(not read)", "VIEWER as collaborator"],
      ]);
      // --accept records the workspace's records, ids and access in: a check then finds nothing.
      expect((await check(true)).accepted).toBe(true);
      const accepted = parseAccessFile(fs.readFileSync(file, "utf8"));
      expect(accepted.leftOut.map((l) => [l.kind, l.id, l.email])).toEqual([
        ["user", "u-ann", "ann@x.example"],
        ["user", "u-bob", "bob@x.example"],
        ["membership", "u-ann", "ann@x.example"],
        ["membership", "u-bob", "bob@x.example"],
      ]);
      expect((await check()).changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("finds a user whose record breaks the contract by the id access.yaml records: declared, in a form a project cannot declare, not missing", async () => {
    const { texts, result } = await exportChangeCheck(async (emulator) => {
      const users = await rawPage(emulator, "users");
      users.data.find((r) => r.id === "u-bob")!.attributes["firstName"] = 42;
      answerWith(emulator, "users", users);
      // Nor does the member list name bob's email: his membership is found by his id too.
      const members = await rawPage(emulator, `integrations/${YT}/users`);
      members.data.find((r) => r.id === "u-bob")!.attributes["email"] = null;
      answerWith(emulator, `integrations/${YT}/users`, members);
    });
    const broken =
      'GET /api/v1/users answered 200 with a record (id u-bob) that does not match the API contract: field "attributes.firstName": Invalid input: expected string, received number.';
    expect(texts).toEqual([
      `access.yaml declares user u-bob <bob@x.example> (Bob Ray, workspace_login_only); the workspace has it in a form a project cannot declare: ${broken}`,
      'access.yaml declares the membership of u-bob <bob@x.example> in "YouTube acme" (VIEWER as account_collaborator); the workspace has it in a form a project cannot declare: its user is left out (its record does not match the API contract)',
    ]);
    expect(result.changes.map((c) => [c.kind, c.side, c.user, c.userId])).toEqual([
      ["left-out", "both", "bob@x.example", "u-bob"],
      ["left-out", "both", "bob@x.example", "u-bob"],
    ]);
  });

  it("finds a user access.yaml records as left out by id alone (the record broke the contract) once a project can declare it", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const users = await rawPage(emulator, "users");
      users.data.find((r) => r.id === "u-bob")!.attributes["lastName"] = ["Ray"];
      // Its email not sent either: the record is recorded, and found, by its id alone.
      delete users.data.find((r) => r.id === "u-bob")!.attributes["email"];
      answerWith(emulator, "users", users);
      const exported = await runExport(options(emulator));
      expect(parseAccessFile(fs.readFileSync(path.join(exported.dir, "access.yaml"), "utf8")).leftOut[0]).toEqual({
        kind: "user",
        id: "u-bob",
        reason: expect.stringContaining('field "attributes.lastName"'),
      });
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes.map((c) => c.text)).toEqual([
        expect.stringMatching(
          /^the workspace has user u-bob <bob@x\.example> \(Bob Ray, workspace_login_only\); access\.yaml records it only as left out: GET \/api\/v1\/users answered 200 with a record \(id u-bob\) that does not match the API contract: field "attributes\.lastName"/,
        ),
        'the workspace has the membership of u-bob <bob@x.example> in "YouTube acme" (VIEWER as account_collaborator); access.yaml records it only as left out: its user is left out (its record does not match the API contract)',
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("reads an access.yaml written before leftOut was recorded: every record left out now is reported", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const exported = await runExport(options(emulator));
      const file = path.join(exported.dir, "access.yaml");
      const text = fs.readFileSync(file, "utf8");
      expect(text.endsWith("leftOut: []\n")).toBe(true);
      fs.writeFileSync(file, text.replace("leftOut: []\n", ""));
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut).toEqual([]);
      expect((await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
      emulator.users.add({ id: "u-new", email: "new@x.example", firstName: null, lastName: null });
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes.map((c) => c.text)).toEqual([
        "the workspace has user u-new <new@x.example> (workspace_login_only), which a project cannot declare: no first name; access.yaml does not record it",
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("reports an integration whose record breaks the contract once, and none of its members as missing", async () => {
    const { texts } = await exportChangeCheck(async (emulator) => {
      const page = await rawPage(emulator, "integrations");
      page.data.find((r) => r.id === YT)!.attributes["label"] = 42;
      answerWith(emulator, "integrations", page);
    });
    expect(texts).toEqual([
      expect.stringMatching(
        new RegExp(
          `^access.yaml declares integration ${YT} \\("YouTube acme"\\) \\(2 members\\); the workspace has it in a form a project cannot declare: GET /api/v1/integrations answered 200 .* field "attributes\\.label"`,
        ),
      ),
    ]);
  });

  it("reports names that differ: the project declares names, so its next up would set access.yaml's", async () => {
    const { texts, result } = await exportChangeCheck((emulator) => {
      emulator.users.update("u-ann", { lastName: "Lee-Smith" });
      emulator.users.update("u-bob", { firstName: "Robert", lastName: "Ray Jr" });
    });
    expect(texts).toEqual([
      'access.yaml names ann@x.example "Ann Lee"; the workspace names them "Ann Lee-Smith"',
      'access.yaml names bob@x.example "Bob Ray"; the workspace names them "Robert Ray Jr"',
    ]);
    expect(result.changes[0]).toMatchObject({
      kind: "user-name",
      side: "both",
      user: "ann@x.example",
      accessYaml: "Ann Lee",
      workspace: "Ann Lee-Smith",
    });
  });

  it("under --members-only, reports a user the workspace has with no membership in scope as that, not as missing", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const exported = await runExport(options(emulator, { membersOnly: true }));
      emulator.integrations.removeMember(YT, "u-bob");
      const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes.map((c) => c.text)).toEqual([
        "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has them with no membership in scope (--members-only)",
        'access.yaml grants bob@x.example VIEWER in "YouTube acme" as account_collaborator; the workspace does not (not a member there)',
      ]);
      expect(result.changes[0]).toMatchObject({ kind: "user", side: "access.yaml", workspace: "no membership in scope" });
      emulator.users.remove("u-bob");
      expect((await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) })).changes[0]!.text).toBe(
        "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has no such user",
      );
    } finally {
      await emulator.close();
    }
  });

  describe("under --members-only, claims no user out of scope whose memberships went unread", () => {
    const GH = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02";
    /** ann a member of YouTube acme, bob of GitHub acme only: exported with --members-only, then `change`d and checked. */
    async function membersOnly(change: (emulator: Emulator) => Promise<void>, check: { integrations?: string[] } = {}) {
      const seed = twoMembers();
      const [annMember] = seed.integrations[0]!.users;
      const emulator = await startEmulator({
        seed: {
          users: seed.users,
          integrations: [
            { ...seed.integrations[0]!, users: [annMember!] },
            {
              id: GH,
              application: "GitHub",
              label: "GitHub acme",
              entitlements: [{ id: "READ" }],
              users: [{ userId: "u-bob", entitlements: ["READ"] }],
            },
          ],
        },
      });
      try {
        const exported = await runExport(options(emulator, { membersOnly: true }));
        await change(emulator);
        const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), ...check });
        return result.changes.map((c) => c.text);
      } finally {
        await emulator.close();
      }
    }

    it("an integration whose record breaks the contract (its members unread): one line for it", async () => {
      const texts = await membersOnly(async (emulator) => {
        const page = await rawPage(emulator, "integrations");
        page.data.find((r) => r.id === GH)!.attributes["label"] = 42;
        answerWith(emulator, "integrations", page);
      });
      expect(texts).toEqual([
        expect.stringMatching(
          new RegExp(`^access.yaml declares integration ${GH} \\("GitHub acme"\\) \\(1 member\\); the workspace has it in a form`),
        ),
      ]);
    });

    it("a member whose record breaks the contract: a member all the same, its user in scope", async () => {
      const texts = await membersOnly(async (emulator) => {
        const page = await rawPage(emulator, `integrations/${GH}/users`);
        page.data[0]!.attributes["role"] = 42;
        answerWith(emulator, `integrations/${GH}/users`, page);
      });
      expect(texts).toEqual([
        expect.stringMatching(
          /^access\.yaml declares the membership of u-bob <bob@x\.example> in "GitHub acme" \(READ as account_collaborator\); the workspace has it in a form a project cannot declare: GET .* field "attributes\.role"/,
        ),
      ]);
    });

    it("a check of one integration (--integration): nothing of the users of the others", async () => {
      expect(await membersOnly(async () => {}, { integrations: ["YouTube acme"] })).toEqual([]);
      // What it reads, it still reports: ann's membership gone from YouTube acme.
      const texts = await membersOnly(async (emulator) => emulator.integrations.removeMember(YT, "u-ann"), {
        integrations: ["YouTube acme"],
      });
      expect(texts).toEqual([
        'access.yaml grants ann@x.example VIEWER in "YouTube acme" as account_collaborator; the workspace does not (not a member there)',
      ]);
    });

    it("a user access.yaml records as left out that the workspace has with no membership in scope: said so, not missing", async () => {
      const seed = twoMembers();
      const yt = seed.integrations[0]!;
      const emulator = await startEmulator({
        seed: {
          users: [...seed.users, { id: "u-scim", email: "scim@x.example", firstName: "Sc", lastName: null }],
          integrations: [{ ...yt, users: [...yt.users, { userId: "u-scim", entitlements: ["VIEWER"] }] }],
        },
      });
      try {
        const exported = await runExport(options(emulator, { membersOnly: true }));
        emulator.integrations.removeMember(YT, "u-scim");
        const result = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
        expect(result.changes.map((c) => c.text)).toEqual([
          "access.yaml records user u-scim <scim@x.example> as left out: no last name; the workspace has them with no membership in scope (--members-only)",
          'access.yaml records the membership of u-scim <scim@x.example> in "YouTube acme" as left out: its user is left out (no last name); the workspace has no such membership',
        ]);
        expect(result.changes[0]).toMatchObject({ kind: "left-out", side: "access.yaml", workspace: "no membership in scope" });
      } finally {
        await emulator.close();
      }
    });
  });

  it("reports a member the workspace holds with no entitlement as the entitlements access.yaml grants, not as missing", async () => {
    const { texts, result } = await exportChangeCheck((emulator) => {
      emulator.integrations.setMember(YT, "u-bob", { entitlements: [] });
    });
    expect(texts).toEqual([
      'access.yaml grants bob@x.example VIEWER in "YouTube acme"; the workspace does not (a member there with no entitlement)',
    ]);
    expect(result.changes[0]).toMatchObject({
      kind: "entitlements",
      side: "access.yaml",
      entitlements: ["VIEWER"],
      workspace: "no entitlement",
    });
  });
});
