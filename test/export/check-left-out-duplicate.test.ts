/**
 * `--check` and `--check --accept` of a record left out that a person wrote into `access.yaml` without an id beside the
 * one the export wrote with an id for the same email, in process against the emulator over loopback. The two are one
 * user's: the review says the one without an id duplicates the other, naming both, never "no such user"; it is paired with
 * the workspace's record of that email by email only when no record with an id, still listed, claims the email. So too
 * beside a user `users` declares with an id for that email (or their membership an integration declares); a membership of
 * theirs that no integration declares is theirs, paired with the workspace's record of their id.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { env, options, twoMembers, twoMembersAndCy, YT } from "./support";

/** The records a person adds by hand: cy's user and membership, by email alone. */
const BY_HAND =
  "  - kind: user\n    email: cy@x.example\n    reason: added by hand\n" +
  `  - kind: membership\n    integration: ${YT}\n    email: cy@x.example\n    reason: added by hand too\n`;

/**
 * Exports the two-member workspace with cy, who has no first name (left out, with their membership, under the id u-cy), adds
 * {@link BY_HAND} to access.yaml's leftOut, runs `change`, then hands over a check.
 */
async function withDuplicate(
  change: (emulator: Emulator) => void,
  test: (check: (accept?: boolean) => ReturnType<typeof runCheck>, file: string, emulator: Emulator) => Promise<void>,
): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembersAndCy() });
  try {
    const exported = await runExport(options(emulator));
    const file = path.join(exported.dir, "access.yaml");
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("leftOut:\n");
    fs.writeFileSync(file, text.replace("leftOut:\n", `leftOut:\n${BY_HAND}`));
    expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut).toHaveLength(4);
    change(emulator);
    await test((accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept }), file, emulator);
  } finally {
    await emulator.close();
  }
}

const DUPLICATE_USER =
  "access.yaml records user cy@x.example as left out: added by hand; it duplicates access.yaml's record of user u-cy " +
  "<cy@x.example>, the one compared: remove the one without an id";
const DUPLICATE_MEMBER =
  'access.yaml records the membership of cy@x.example in "YouTube acme" as left out: added by hand too; it duplicates ' +
  'access.yaml\'s record of the membership of u-cy <cy@x.example> in "YouTube acme", the one compared: remove the one without an id';

describe("a record left out written by hand without an id beside the export's with an id for that email", () => {
  it("is reported as a duplicate of it, naming both, not as a user the workspace lacks; --accept takes it out", async () => {
    await withDuplicate(
      () => {},
      async (check, file, emulator) => {
        const review = await check();
        expect(review.changes.map((c) => c.text)).toEqual([DUPLICATE_USER, DUPLICATE_MEMBER]);
        expect(review.changes.map((c) => [c.kind, c.side, c.user, c.userId])).toEqual([
          ["left-out", "access.yaml", "cy@x.example", "u-cy"],
          ["left-out", "access.yaml", "cy@x.example", "u-cy"],
        ]);
        const accepted = await check(true);
        expect(accepted.accepted).toBe(true);
        expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut.map((l) => [l.kind, l.id])).toEqual([
          ["user", "u-cy"],
          ["membership", "u-cy"],
        ]);
        expect((await check()).changes).toEqual([]);
        expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
      },
    );
  });

  it("is a duplicate still when cy is a user a project can declare now: one line for the record with the id, not two", async () => {
    await withDuplicate(
      (emulator) => emulator.users.update("u-cy", { firstName: "Cy" }),
      async (check) => {
        const texts = (await check()).changes.map((c) => c.text);
        expect(texts).toEqual([
          DUPLICATE_USER,
          "the workspace has user u-cy <cy@x.example> (Cy Doe, workspace_login_only); access.yaml records it only as left out: no first name",
          DUPLICATE_MEMBER,
          'the workspace has the membership of u-cy <cy@x.example> in "YouTube acme" (VIEWER as account_collaborator); access.yaml ' +
            "records it only as left out: its user is left out (no first name)",
        ]);
      },
    );
  });

  it("is not paired with a newcomer given cy's email while cy's id is listed: that one is not recorded", async () => {
    await withDuplicate(
      (emulator) => {
        emulator.users.update("u-cy", { email: "cy.doe@x.example" });
        emulator.users.add({ id: "u-new", email: "cy@x.example", firstName: null, lastName: "New" });
      },
      async (check) => {
        const texts = (await check()).changes.map((c) => c.text);
        expect(texts).toContain(DUPLICATE_USER);
        expect(texts).toContain(
          "the workspace has user u-new <cy@x.example> (workspace_login_only), which a project cannot declare: no first name; access.yaml does not record it",
        );
      },
    );
  });

  it("is paired with the workspace's record of that email once cy's id is listed no more: no duplicate then", async () => {
    await withDuplicate(
      (emulator) => {
        emulator.users.remove("u-cy");
        emulator.users.add({ id: "u-new", email: "cy@x.example", firstName: null, lastName: "New" });
      },
      async (check) => {
        const texts = (await check()).changes.map((c) => c.text);
        expect(texts.join("\n")).not.toMatch(/duplicates/);
        expect(texts).toEqual([
          "access.yaml records user u-cy <cy@x.example> as left out: no first name; the workspace has no such user",
          "access.yaml records user u-new <cy@x.example> as left out, with no access recorded; the workspace has workspace_login_only, left out: no first name",
          'access.yaml records the membership of cy@x.example in "YouTube acme" as left out: added by hand too; the workspace has no such membership',
          'access.yaml records the membership of u-cy <cy@x.example> in "YouTube acme" as left out: its user is left out (no first name); the workspace has no such membership',
        ]);
      },
    );
  });
});

/** bob's user and membership recorded as left out by hand, by email alone, in a file that declares bob with his id. */
const BOB_BY_HAND =
  "  - kind: user\n    email: bob@x.example\n    reason: added by hand\n" +
  `  - kind: membership\n    integration: ${YT}\n    email: bob@x.example\n    reason: added by hand too\n`;

/** Exports the two-member workspace (bob declared with his id, u-bob), has `edit` change access.yaml, then hands over a check. */
async function withDeclared(
  edit: (text: string) => string,
  test: (check: (accept?: boolean) => ReturnType<typeof runCheck>, file: string, emulator: Emulator) => Promise<void>,
): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembers() });
  try {
    const exported = await runExport(options(emulator));
    const file = path.join(exported.dir, "access.yaml");
    const text = fs.readFileSync(file, "utf8");
    expect(text).toContain("    id: u-bob\n");
    fs.writeFileSync(file, edit(text));
    await test((accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept }), file, emulator);
  } finally {
    await emulator.close();
  }
}

const DECLARED_USER =
  "access.yaml records user bob@x.example as left out: added by hand; access.yaml declares that user, u-bob <bob@x.example> " +
  "(Bob Ray, workspace_login_only), the one compared: remove the record left out";
const DECLARED_MEMBER =
  'access.yaml records the membership of bob@x.example in "YouTube acme" as left out: added by hand too; access.yaml declares ' +
  "that membership, of u-bob <bob@x.example> (VIEWER as account_collaborator), the one compared: remove the record left out";

describe("a record left out written by hand without an id for a user access.yaml declares with an id", () => {
  const byHand = (text: string) => text.replace("leftOut: []\n", `leftOut:\n${BOB_BY_HAND}`);

  it("is the declared user's when the workspace leaves that id out: a copy of the entry compared, not a user it lacks", async () => {
    await withDeclared(byHand, async (check, _file, emulator) => {
      emulator.users.update("u-bob", { lastName: null });
      const texts = (await check()).changes.map((c) => c.text);
      expect(texts).toEqual([
        DECLARED_USER,
        "access.yaml declares user u-bob <bob@x.example> (Bob Ray, workspace_login_only); the workspace has it in a form a project cannot declare: no last name",
        DECLARED_MEMBER,
        'access.yaml declares the membership of u-bob <bob@x.example> in "YouTube acme" (VIEWER as account_collaborator); the ' +
          "workspace has it in a form a project cannot declare: its user is left out (no last name)",
      ]);
      expect(texts.join("\n")).not.toMatch(/no such|records it only as left out/);
    });
  });

  it("is the declared user's while the workspace has them as declared too; --accept takes it out", async () => {
    await withDeclared(byHand, async (check, file, emulator) => {
      const review = await check();
      expect(review.changes.map((c) => c.text)).toEqual([DECLARED_USER, DECLARED_MEMBER]);
      expect(review.changes.map((c) => [c.kind, c.side, c.user, c.userId])).toEqual([
        ["left-out", "access.yaml", "bob@x.example", "u-bob"],
        ["left-out", "access.yaml", "bob@x.example", "u-bob"],
      ]);
      expect((await check(true)).accepted).toBe(true);
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut).toEqual([]);
      expect((await check()).changes).toEqual([]);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
    });
  });

  it("is not taken for a newcomer given bob's email while bob's id is listed", async () => {
    await withDeclared(byHand, async (check, _file, emulator) => {
      emulator.users.update("u-bob", { email: "robert@x.example" });
      emulator.users.add({ id: "u-new", email: "bob@x.example", firstName: null, lastName: "New" });
      const texts = (await check()).changes.map((c) => c.text);
      expect(texts).toContain(DECLARED_USER);
      expect(texts).toContain(
        "the workspace has user u-new <bob@x.example> (workspace_login_only), which a project cannot declare: no first name; access.yaml does not record it",
      );
    });
  });

  it("is that user's membership where no integration declares it: the workspace's record of their id, by email", async () => {
    const bobMember = /\n {6}- user: bob@x\.example\n(?: {8}.*\n)+/;
    await withDeclared(
      (text) =>
        byHand(text)
          .replace(bobMember, "\n")
          .replace("  - kind: user\n    email: bob@x.example\n    reason: added by hand\n", "")
          .replace("  - kind: membership\n", "  # bob: no entitlement yet, see HR-7\n  - kind: membership\n"),
      async (check, file, emulator) => {
        emulator.integrations.setMember(YT, "u-bob", { entitlements: [] });
        const review = await check();
        expect(review.changes.map((c) => c.text)).toEqual([
          'access.yaml records the membership of u-bob <bob@x.example> in "YouTube acme" as left out, with no access recorded; the ' +
            "workspace has no entitlement as collaborator, left out: no entitlements (an IntegrationEntitlement declares at least one)",
        ]);
        // Paired, the record stays where it is, its comment with it, and takes the workspace's id and access.
        const accepted = await check(true);
        expect(accepted.notes).toEqual([]);
        const after = fs.readFileSync(file, "utf8");
        expect(after).toContain(`  # bob: no entitlement yet, see HR-7\n  - kind: membership\n    integration: ${YT}\n    id: u-bob\n`);
        expect((await check()).changes).toEqual([]);
      },
    );
  });
});
