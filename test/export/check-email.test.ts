/**
 * The review of a user whose email changed in the workspace, in process against the emulator over loopback: where
 * `access.yaml` records the user's id, the workspace's user of that id is the same person under another email, one
 * `user-email` difference, their other attributes and memberships compared as theirs; where it records none, they are
 * matched by email alone, as before (one user removed, another added). Each format, the count, and `--accept`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { renderReview } from "../../src/export/review/render";
import { env, lineDiff, options, twoIntegrations, YT } from "./support";

/** The two-member workspace (ann and bob in "YouTube acme"), ann alone in "Slack acme" too. */
const seed = twoIntegrations;

/** Exports the workspace of {@link seed} (`membersOnly`: with --members-only), runs `test` on the project. */
async function withExport(test: (emulator: Emulator, dir: string, file: string) => Promise<void>, membersOnly = false): Promise<void> {
  const emulator = await startEmulator({ seed: seed() });
  try {
    const { dir } = await runExport(options(emulator, { membersOnly }));
    await test(emulator, dir, path.join(dir, "access.yaml"));
  } finally {
    await emulator.close();
  }
}

const check = (emulator: Emulator, dir: string, accept = false) =>
  runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept });
const texts = (review: Awaited<ReturnType<typeof check>>) => review.changes.map((c) => c.text);
const BOB_NOW = "access.yaml records the user u-bob as bob@x.example; the workspace's user u-bob is robert@x.example";

describe("--check of a user whose email changed, the id recorded", () => {
  it("is one user-email difference, in every format", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "robert@x.example" });
      const review = await check(emulator, dir);
      expect(texts(review)).toEqual([BOB_NOW]);
      const render = (format: "text" | "markdown" | "json") => renderReview(review, { format, verbose: false, out: "." });
      expect(render("text").split("\n").slice(0, 2)).toEqual([BOB_NOW, "1 difference between access.yaml and the workspace."]);
      expect(render("markdown").split("\n").slice(0, 7)).toEqual([
        "### Access review: 1 difference between `access.yaml` and the workspace",
        "",
        `Workspace: \`${emulator.url.replace(/\/?$/, "/")}\``,
        "",
        "| Who | Where | What | `access.yaml` | Workspace |",
        "| --- | --- | --- | --- | --- |",
        "| robert@x.example | workspace | email | bob@x.example | robert@x.example |",
      ]);
      const json = JSON.parse(render("json")) as { version: number; differences: unknown[] };
      expect(json.version).toBe(1);
      expect(json.differences).toEqual([
        {
          kind: "user-email",
          side: "both",
          user: "robert@x.example",
          userId: "u-bob",
          integration: null,
          integrationId: null,
          accessYaml: "bob@x.example",
          workspace: "robert@x.example",
          entitlements: null,
          leftOut: null,
          text: BOB_NOW,
        },
      ]);
    });
  });

  it("compares the user's other attributes and memberships as theirs", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "robert@x.example", lastName: "Ray-Ode" });
      emulator.integrations.setMember(YT, "u-bob", { entitlements: ["EDITOR", "VIEWER"] });
      expect(texts(await check(emulator, dir))).toEqual([
        BOB_NOW,
        'access.yaml names robert@x.example "Bob Ray"; the workspace names them "Bob Ray-Ode"',
        'the workspace grants robert@x.example EDITOR in "YouTube acme"; access.yaml does not',
      ]);
    });
  });

  it("is one difference under --members-only too", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "robert@x.example" });
      expect(texts(await check(emulator, dir))).toEqual([BOB_NOW]);
    }, true);
  });

  it("is no difference when only the email's case changed, as a User compares emails", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "Bob@X.example" });
      expect((await check(emulator, dir)).changes).toEqual([]);
    });
  });

  it("takes two users who swapped emails for what they are: two email changes, nothing else", async () => {
    await withExport(async (emulator, dir, file) => {
      const members = (a: string, b: string) =>
        `      - user: ${a}\n        role: account_collaborator\n        entitlements: [VIEWER]\n` +
        `      - user: ${b}\n        role: account_collaborator\n        entitlements: [VIEWER]\n`;
      const exported = fs.readFileSync(file, "utf8");
      expect(exported).toContain(members("ann@x.example", "bob@x.example"));
      const before = exported.replace(
        members("ann@x.example", "bob@x.example"),
        members("ann@x.example # Ann's, approved", "bob@x.example # Bob's, approved"),
      );
      fs.writeFileSync(file, before);
      emulator.users.update("u-bob", { email: "swap@x.example" });
      emulator.users.update("u-ann", { email: "bob@x.example" });
      emulator.users.update("u-bob", { email: "ann@x.example" });
      expect(texts(await check(emulator, dir))).toEqual([
        "access.yaml records the user u-bob as bob@x.example; the workspace's user u-bob is ann@x.example",
        "access.yaml records the user u-ann as ann@x.example; the workspace's user u-ann is bob@x.example",
      ]);
      // --accept as before: only the email lines change, each record keeping its name.
      expect((await check(emulator, dir, true)).accepted).toBe(true);
      // Each membership is its user's, as the review pairs them: its email line changes with theirs, its comment stays on it.
      const after = fs.readFileSync(file, "utf8");
      expect(after).toContain(members("bob@x.example # Ann's, approved", "ann@x.example # Bob's, approved"));
      expect(lineDiff(before.split("\n"), after.split("\n"))).toEqual({
        removed: [
          "    email: ann@x.example",
          "    email: bob@x.example",
          "      - user: ann@x.example",
          "      - user: ann@x.example # Ann's, approved",
          "      - user: bob@x.example # Bob's, approved",
        ],
        added: [
          "    email: bob@x.example",
          "    email: ann@x.example",
          "      - user: bob@x.example",
          "      - user: bob@x.example # Ann's, approved",
          "      - user: ann@x.example # Bob's, approved",
        ],
      });
      expect((await check(emulator, dir)).changes).toEqual([]);
    });
  });

  it("says the user of the old email is gone when another user has their email now", async () => {
    await withExport(async (emulator, dir) => {
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.remove("u-bob");
      emulator.users.update("u-ann", { email: "bob@x.example" });
      expect(texts(await check(emulator, dir))).toEqual([
        "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has no such user",
        "access.yaml records the user u-ann as ann@x.example; the workspace's user u-ann is bob@x.example",
        'access.yaml grants bob@x.example VIEWER in "YouTube acme" as account_collaborator; the workspace does not (not a member there)',
      ]);
    });
  });

  it("under --members-only too, and --accept drops the user gone rather than refuse as if the workspace still had them", async () => {
    await withExport(async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.remove("u-bob");
      emulator.users.update("u-ann", { email: "bob@x.example" });
      expect(texts(await check(emulator, dir))).toEqual([
        "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has no such user",
        "access.yaml records the user u-ann as ann@x.example; the workspace's user u-ann is bob@x.example",
        'access.yaml grants bob@x.example VIEWER in "YouTube acme" as account_collaborator; the workspace does not (not a member there)',
      ]);
      expect((await check(emulator, dir, true)).accepted).toBe(true);
      const diff = lineDiff(before.split("\n"), fs.readFileSync(file, "utf8").split("\n"));
      // bob's record and membership go; ann's keep their name, only their email lines change.
      expect(diff).toEqual({
        removed: [
          "    email: ann@x.example",
          "  - name: bob-at-x.example",
          "    email: bob@x.example",
          "    firstName: Bob",
          "    lastName: Ray",
          "    role: workspace_login_only",
          "    isGuest: false",
          "    id: u-bob",
          "      - user: ann@x.example",
          "      - user: ann@x.example",
          "        role: account_collaborator",
          "        entitlements: [VIEWER]",
        ],
        added: ["    email: bob@x.example", "      - user: bob@x.example"],
      });
      expect((await check(emulator, dir)).changes).toEqual([]);
    }, true);
  });

  it("leaves a user whose id now belongs to a record a project cannot declare to the left-out part", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "robert@x.example", lastName: "" });
      const review = await check(emulator, dir);
      expect(review.changes.map((c) => c.kind)).toEqual(["left-out", "left-out"]);
      expect(texts(review)).toEqual([
        "access.yaml declares user u-bob <robert@x.example> (Bob Ray, workspace_login_only); the workspace has it in a form a " +
          "project cannot declare: no last name",
        'access.yaml declares the membership of u-bob <robert@x.example> in "YouTube acme" (VIEWER as account_collaborator); the ' +
          "workspace has it in a form a project cannot declare: its user is left out (no last name)",
      ]);
    });
  });
});

describe("--check of a user whose email changed, no id recorded (added by hand)", () => {
  it("matches by email alone, as before: one user access.yaml has, one the workspace has, and their memberships", async () => {
    await withExport(async (emulator, dir, file) => {
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("    id: u-bob\n", ""));
      emulator.users.update("u-bob", { email: "robert@x.example" });
      expect(texts(await check(emulator, dir))).toEqual([
        "access.yaml declares user bob@x.example (Bob Ray, workspace_login_only); the workspace has no such user",
        'access.yaml grants bob@x.example VIEWER in "YouTube acme" as account_collaborator; the workspace does not (not a member there)',
        "the workspace has user robert@x.example (Bob Ray, workspace_login_only); access.yaml does not",
        'the workspace grants robert@x.example VIEWER in "YouTube acme" as account_collaborator; access.yaml does not',
      ]);
    });
  });
});

describe("--check of a user whose email changed, the id recorded, another user holding the old email now", () => {
  /** bob is robert@ now; a newcomer, u-new, has bob's old email in a form a project cannot declare (no first name), a member too. */
  const newcomer = (emulator: Emulator) => {
    emulator.users.update("u-bob", { email: "robert@x.example" });
    emulator.users.add({ id: "u-new", email: "bob@x.example", firstName: null, lastName: "New" });
    emulator.integrations.setMember(YT, "u-new", { entitlements: ["EDITOR"] });
  };
  const NEW_USER =
    "the workspace has user u-new <bob@x.example> (workspace_login_only), which a project cannot declare: no first name; access.yaml does not record it";
  const NEW_MEMBER =
    'the workspace has the membership of u-new <bob@x.example> in "YouTube acme" (EDITOR as collaborator), which a project cannot declare: ' +
    "its user is left out (no first name); access.yaml does not record it";

  it("takes the newcomer left out for a record of their own, not for bob, whose id the workspace still has", async () => {
    await withExport(async (emulator, dir) => {
      newcomer(emulator);
      const review = await check(emulator, dir);
      expect(texts(review)).toEqual([NEW_USER, NEW_MEMBER, BOB_NOW]);
      expect(review.changes.map((c) => [c.kind, c.side, c.userId])).toEqual([
        ["left-out", "workspace", "u-new"],
        ["left-out", "workspace", "u-new"],
        ["user-email", "both", "u-bob"],
      ]);
    });
  });

  it("--accept takes the newcomer in as left out, rather than refuse as if access.yaml declared them", async () => {
    await withExport(async (emulator, dir, file) => {
      newcomer(emulator);
      expect((await check(emulator, dir, true)).accepted).toBe(true);
      const accepted = parseAccessFile(fs.readFileSync(file, "utf8"));
      expect(accepted.users.map((u) => [u.name, u.email, u.id])).toEqual([
        ["ann-at-x.example", "ann@x.example", "u-ann"],
        ["bob-at-x.example", "robert@x.example", "u-bob"],
      ]);
      expect(accepted.leftOut.map((l) => [l.kind, l.id, l.email])).toEqual([
        ["user", "u-new", "bob@x.example"],
        ["membership", "u-new", "bob@x.example"],
      ]);
      expect((await check(emulator, dir)).changes).toEqual([]);
    });
  });

  it("takes a declarable newcomer for a user of their own while bob, their id still listed, is left out", async () => {
    await withExport(async (emulator, dir) => {
      emulator.users.update("u-bob", { email: "robert@x.example", firstName: "" });
      emulator.users.add({ id: "u-new", email: "bob@x.example", firstName: "New", lastName: "Person" });
      const review = await check(emulator, dir);
      expect(texts(review)).toEqual([
        "the workspace has user bob@x.example (New Person, workspace_login_only); access.yaml does not",
        "access.yaml declares user u-bob <robert@x.example> (Bob Ray, workspace_login_only); the workspace has it in a form a " +
          "project cannot declare: no first name",
        'access.yaml declares the membership of u-bob <robert@x.example> in "YouTube acme" (VIEWER as account_collaborator); the ' +
          "workspace has it in a form a project cannot declare: its user is left out (no first name)",
      ]);
    });
  });

  it("under --members-only, --accept refuses to take bob out for a newcomer given his email while he is out of scope", async () => {
    await withExport(async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      emulator.users.update("u-bob", { email: "robert@x.example" });
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.add({ id: "u-new", email: "bob@x.example", firstName: "New", lastName: "Person" });
      emulator.integrations.setMember(YT, "u-new", { entitlements: ["VIEWER"] });
      await expect(check(emulator, dir, true)).rejects.toThrow(/a user the workspace still has, .*: bob@x\.example \(u-bob\)/);
      expect(fs.readFileSync(file, "utf8")).toBe(before);
    }, true);
  });
});
