/**
 * `--check --accept` of an `access.yaml` a person wrote comments in, in process against the emulator over loopback: the
 * accepted changes are applied to the file as it is, so the comments on records that do not differ stay, and a diff of
 * the file shows only the records that differ. A comment on a record taken out goes with it, and the output says so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { type AccessFile, parseAccessFile } from "../../src/export/access-file";
import { editAccessFile } from "../../src/export/access-file-edit";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { env, lineDiff, options, twoMembers, YT } from "./support";

/** Exports the two-member workspace, runs `test` on its access.yaml; the emulator closed after. */
async function withExport(test: (emulator: Emulator, dir: string, file: string) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembers() });
  try {
    const { dir } = await runExport(options(emulator));
    await test(emulator, dir, path.join(dir, "access.yaml"));
  } finally {
    await emulator.close();
  }
}

const lines = (text: string) => text.split("\n");
const accept = (emulator: Emulator, dir: string) => runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true });

describe("--check --accept of an access.yaml with comments", () => {
  it("keeps every comment on records that do not differ, and changes only the lines that differ", async () => {
    await withExport(async (emulator, dir, file) => {
      const commented = fs
        .readFileSync(file, "utf8")
        .replace("users:\n", "users:\n  # people first, then integrations\n")
        .replace("    email: ann@x.example\n", "    email: ann@x.example # contractor, access until 2026-03-31 (ticket SEC-123)\n")
        .replace("    lastName: Ray\n", "    lastName: Ray # legal name\n")
        .replace("      - user: ann@x.example\n", "      # approved by the owner\n      - user: ann@x.example\n");
      fs.writeFileSync(file, commented);
      emulator.users.update("u-bob", { lastName: "Ray-Smith" });
      emulator.integrations.setMember(YT, "u-bob", { entitlements: ["EDITOR", "VIEWER"] });
      const review = await accept(emulator, dir);
      expect(review.accepted).toBe(true);
      expect(review.notes).toEqual([]);
      const after = fs.readFileSync(file, "utf8");
      // bob's last name and entitlements, and nothing else: the comment on the changed line stays on it.
      expect(lineDiff(lines(commented), lines(after))).toEqual({
        removed: ["    lastName: Ray # legal name", "        entitlements: [VIEWER]"],
        added: ["    lastName: Ray-Smith # legal name", "        entitlements: [EDITOR, VIEWER]"],
      });
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });

  it("adds a record as the export writes it, and says which comments went with a record taken out", async () => {
    await withExport(async (emulator, dir, file) => {
      const commented = fs
        .readFileSync(file, "utf8")
        .replace("    email: ann@x.example\n", "    email: ann@x.example # contractor\n")
        .replace("  - name: bob-at-x.example\n", "  # bob leaves in May\n  - name: bob-at-x.example\n");
      fs.writeFileSync(file, commented);
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.remove("u-bob");
      emulator.users.add({ id: "u-cy", email: "cy@x.example", firstName: "Cy", lastName: "Day" });
      const review = await accept(emulator, dir);
      expect(review.notes).toEqual(["The comments of access.yaml on what --accept took out went with it:\n  - user bob@x.example"]);
      // bob's user (with the comment above it) and membership out, cy's user in, as the export writes it: nothing else.
      const bob = /\n {2}# bob leaves in May\n {2}- name: bob-at-x\.example\n(?: {4}.*\n)+/.exec(commented)![0];
      const bobMember = /\n {6}- user: bob@x\.example\n(?: {8}.*\n)+/.exec(commented)![0];
      const cy = "\n  - name: cy-at-x.example\n    email: cy@x.example\n    firstName: Cy\n    lastName: Day\n";
      expect(fs.readFileSync(file, "utf8")).toBe(
        commented.replace(bob, `${cy}    role: workspace_login_only\n    isGuest: false\n    id: u-cy\n`).replace(bobMember, "\n"),
      );
      const after = fs.readFileSync(file, "utf8");
      expect(parseAccessFile(after).users.map((u) => u.email)).toEqual(["ann@x.example", "cy@x.example"]);
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });

  it("lists the records whose comments went with them one a line, as the refusals list theirs", async () => {
    await withExport(async (emulator, dir, file) => {
      fs.writeFileSync(
        file,
        fs
          .readFileSync(file, "utf8")
          .replace("  - name: bob-at-x.example\n", "  # bob leaves in May; see HR-9\n  - name: bob-at-x.example\n")
          .replace("      - user: bob@x.example\n", "      - user: bob@x.example # approved; until May\n"),
      );
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.remove("u-bob");
      const review = await accept(emulator, dir);
      expect(review.accepted).toBe(true);
      expect(review.notes).toEqual([
        "The comments of access.yaml on what --accept took out went with it:\n" +
          "  - user bob@x.example\n" +
          "  - member bob@x.example of integration YouTube acme",
      ]);
    });
  });
});

describe("--check --accept of a record left out that a person recorded without its id", () => {
  it("keeps it where the review pairs it with the workspace's, by email: its comment stays, its id is recorded", async () => {
    const seed = twoMembers();
    seed.users[0]!.lastName = "";
    const emulator = await startEmulator({ seed });
    try {
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      // ann's records left out, as a person writes them: without the ids, a comment on her user's.
      const exported = fs.readFileSync(file, "utf8");
      const byHand = exported
        .replace("  - kind: user\n    id: u-ann\n", "  # ann: pending HR, see HR-7\n  - kind: user\n")
        .replace(`    integration: ${YT}\n    id: u-ann\n`, `    integration: ${YT}\n`);
      expect(byHand.match(/id: u-ann/g)).toBeNull();
      fs.writeFileSync(file, byHand);
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
      emulator.users.update("u-bob", { lastName: "Ray-Smith" });
      const review = await accept(emulator, dir);
      expect(review.changes.map((c) => c.kind)).toEqual(["user-name"]);
      expect(review.notes).toEqual([]);
      // bob's last name, and the ids of ann's records: her records kept where they are, the comment with them.
      expect(fs.readFileSync(file, "utf8")).toBe(
        exported
          .replace("    lastName: Ray\n", "    lastName: Ray-Smith\n")
          .replace("  - kind: user\n", "  # ann: pending HR, see HR-7\n  - kind: user\n"),
      );
    } finally {
      await emulator.close();
    }
  });
});

describe("--check --accept of an access.yaml whose records a person ordered", () => {
  /** The exported file with bob's record first, under a heading of its own, then ann's under another. */
  const reorder = (exported: string) => {
    const ann = /\n {2}- name: ann-at-x\.example\n(?: {4}.*\n)+/.exec(exported)![0];
    const bob = /\n {2}- name: bob-at-x\.example\n(?: {4}.*\n)+/.exec(exported)![0];
    const reordered = exported.replace(`${ann}${bob.slice(1)}`, `\n  # --- legal team ---${bob}  # --- sales team ---${ann}`);
    expect(reordered).not.toBe(exported);
    return { reordered, ann, bob };
  };

  it("keeps the records in the file's order: a change to one record changes only its lines", async () => {
    await withExport(async (emulator, dir, file) => {
      // The members too: bob's first.
      const members = (a: string, b: string) =>
        [a, b].map((u) => `      - user: ${u}@x.example\n        role: account_collaborator\n        entitlements: [VIEWER]\n`).join("");
      const exported = fs.readFileSync(file, "utf8");
      expect(exported).toContain(members("ann", "bob"));
      const reordered = reorder(exported).reordered.replace(members("ann", "bob"), members("bob", "ann"));
      fs.writeFileSync(file, reordered);
      emulator.users.update("u-ann", { lastName: "Lee-Kim" });
      emulator.integrations.setMember(YT, "u-ann", { entitlements: ["EDITOR", "VIEWER"] });
      const review = await accept(emulator, dir);
      expect(review.accepted).toBe(true);
      expect(review.notes).toEqual([]);
      expect(lineDiff(lines(reordered), lines(fs.readFileSync(file, "utf8")))).toEqual({
        removed: ["    lastName: Lee", "        entitlements: [VIEWER]"],
        added: ["    lastName: Lee-Kim", "        entitlements: [EDITOR, VIEWER]"],
      });
      // ann's entitlements are the last member's, as the file has them.
      expect(fs.readFileSync(file, "utf8")).toContain(
        "      - user: ann@x.example\n        role: account_collaborator\n        entitlements: [EDITOR, VIEWER]\nleftOut",
      );
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });

  it("puts a record added after the one it follows in the export's order, and takes one out where it is", async () => {
    await withExport(async (emulator, dir, file) => {
      const { reordered, ann } = reorder(fs.readFileSync(file, "utf8"));
      fs.writeFileSync(file, reordered);
      // In the export's order cy follows bob (ann, bob, cy): cy goes right after bob, above ann's heading; ann goes.
      emulator.users.add({ id: "u-cy", email: "cy@x.example", firstName: "Cy", lastName: "Day" });
      emulator.integrations.removeMember(YT, "u-ann");
      emulator.users.remove("u-ann");
      const review = await accept(emulator, dir);
      expect(review.accepted).toBe(true);
      expect(review.notes).toEqual(["The comments of access.yaml on what --accept took out went with it:\n  - user ann@x.example"]);
      const cy = "  - name: cy-at-x.example\n    email: cy@x.example\n    firstName: Cy\n    lastName: Day\n";
      const annMember = /\n {6}- user: ann@x\.example\n(?: {8}.*\n)+/.exec(reordered)![0];
      expect(fs.readFileSync(file, "utf8")).toBe(
        reordered
          .replace(`  # --- sales team ---${ann}`, `${cy}    role: workspace_login_only\n    isGuest: false\n    id: u-cy\n`)
          .replace(annMember, "\n"),
      );
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });
});

describe("editAccessFile", () => {
  const text = [
    "# mine",
    "version: 1",
    "users:",
    "  - name: a",
    "    email: 'a@x.example' # single quotes kept",
    "    firstName: A",
    "    lastName: B",
    "",
  ].join("\n");

  it("keeps a person's quotes and comments on a record that does not differ", () => {
    const data = parseAccessFile(text);
    const edited = editAccessFile(text, {
      ...data,
      users: [...data.users, { name: "c", email: "c@x.example", firstName: "C", lastName: "D" }],
    });
    expect(edited).toEqual({
      // The keys the file left out read as the accepted data's (none): not added.
      text: `${text}  - name: c\n    email: c@x.example\n    firstName: C\n    lastName: D\n`,
      lost: [],
    });
  });

  it("pairs a user by the id the file records, by email only as the review may (mayMatchByEmail): the comments follow", () => {
    const recorded =
      "version: 1\nusers:\n  - name: a # Ann, contractor\n    email: a@x.example\n    firstName: A\n    lastName: B\n    id: u-a\n";
    const newcomer = { name: "a", email: "a@x.example", firstName: "A", lastName: "B", id: "u-new" };
    const accepted: AccessFile = { version: 1, scope: { membersOnly: false }, users: [newcomer], integrations: [], leftOut: [] };
    // u-a listed still (under another email, out of scope): the newcomer with its old email is another person.
    const listed = editAccessFile(recorded, accepted, ["u-a"]);
    expect(listed.lost).toEqual(["user a@x.example"]);
    expect(listed.text).not.toContain("contractor");
    // u-a listed no more (deleted, made again): the same user by email, whose id changed; the comment stays.
    const gone = editAccessFile(recorded, accepted, []);
    expect(gone).toEqual({ text: recorded.replace("id: u-a", "id: u-new"), lost: [] });
  });

  it("writes the file anew, saying why, when an edit in place would not read as the accepted data", () => {
    // b's last name is an alias of a's first name: with a taken out, the alias would name nothing.
    const aliased =
      "version: 1 # mine\nusers:\n  - name: a\n    email: a@x.example\n    firstName: &n A\n    lastName: B\n" +
      "  - name: b\n    email: b@x.example\n    firstName: B\n    lastName: *n\n";
    const b = { name: "b", email: "b@x.example", firstName: "B", lastName: "A" };
    const edited = editAccessFile(aliased, { version: 1, scope: { membersOnly: false }, users: [b], integrations: [], leftOut: [] });
    expect(edited.rewritten).toEqual(expect.any(String));
    expect(edited.text).not.toContain("# mine");
    expect(parseAccessFile(edited.text).users).toEqual([b]);
  });
});
