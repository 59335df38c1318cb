/**
 * `--check --accept` of a user whose email changed in the workspace (the same id, which `access.yaml` records), in process
 * against the emulator over loopback: the user is the same record, matched by id, so their record and membership change
 * only in the email, keeping the resource name and the comments. The refusal to drop a user the workspace still has is
 * `--members-only`'s only, and the review says "(--members-only)" only under it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { env, lineDiff, options, twoMembers, YT } from "./support";

/** Exports the two-member workspace (`membersOnly`: with --members-only), runs `test` on its access.yaml. */
async function withExport(
  membersOnly: boolean,
  test: (emulator: Emulator, dir: string, file: string) => Promise<void>,
  seed = twoMembers(),
): Promise<void> {
  const emulator = await startEmulator({ seed });
  try {
    const { dir } = await runExport(options(emulator, { membersOnly }));
    await test(emulator, dir, path.join(dir, "access.yaml"));
  } finally {
    await emulator.close();
  }
}

const lines = (text: string) => text.split("\n");
const check = (emulator: Emulator, dir: string, accept = false) =>
  runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept });

describe("--check --accept of a user whose email changed (the same id recorded)", () => {
  for (const membersOnly of [false, true]) {
    it(`changes only the email lines, keeping the record's name and comments${membersOnly ? " (--members-only)" : ""}`, async () => {
      await withExport(membersOnly, async (emulator, dir, file) => {
        const commented = fs
          .readFileSync(file, "utf8")
          .replace("  - name: bob-at-x.example\n", "  # bob, legal\n  - name: bob-at-x.example\n")
          .replace("    lastName: Ray\n", "    lastName: Ray # legal name, see HR-42\n")
          .replace("      - user: bob@x.example\n", "      - user: bob@x.example # approved by the owner\n");
        fs.writeFileSync(file, commented);
        emulator.users.update("u-bob", { email: "robert@x.example" });
        const review = await check(emulator, dir, true);
        expect(review.accepted).toBe(true);
        expect(review.notes).toEqual([]);
        // The resource name stays bob-at-x.example: the next up changes the email of the same User, nothing is replaced.
        expect(lineDiff(lines(commented), lines(fs.readFileSync(file, "utf8")))).toEqual({
          removed: ["    email: bob@x.example", "      - user: bob@x.example # approved by the owner"],
          added: ["    email: robert@x.example", "      - user: robert@x.example # approved by the owner"],
        });
        expect((await check(emulator, dir)).changes).toEqual([]);
      });
    });
  }

  it("pairs a member by their user as the review does: the comment on the old email's membership goes, not onto a newcomer's", async () => {
    await withExport(false, async (emulator, dir, file) => {
      const commented = fs
        .readFileSync(file, "utf8")
        .replace("      - user: bob@x.example\n", "      - user: bob@x.example # approved for bob, see HR-42\n");
      fs.writeFileSync(file, commented);
      // bob is robert@ now, and out of YouTube; cy, a newcomer, has bob's old email and joins YouTube.
      emulator.users.update("u-bob", { email: "robert@x.example" });
      emulator.integrations.removeMember(YT, "u-bob");
      emulator.users.add({ id: "u-cy", email: "bob@x.example", firstName: "Cy", lastName: "Day" });
      emulator.integrations.setMember(YT, "u-cy", { entitlements: ["VIEWER"] });
      const review = await check(emulator, dir, true);
      expect(review.changes.map((c) => [c.kind, c.side, c.user])).toEqual([
        ["user", "workspace", "bob@x.example"],
        ["membership", "access.yaml", "bob@x.example"],
        ["membership", "workspace", "bob@x.example"],
        ["user-email", "both", "robert@x.example"],
      ]);
      // bob's membership (the review's 'access.yaml grants bob…') is taken out with its comment; cy's comes in as written.
      expect(review.notes).toEqual([
        "The comments of access.yaml on what --accept took out went with it:\n  - member bob@x.example of integration YouTube acme",
      ]);
      const after = fs.readFileSync(file, "utf8");
      expect(after).not.toContain("HR-42");
      expect(after).toContain("      - user: bob@x.example\n        role: account_collaborator\n        entitlements: [VIEWER]\n");
      expect((await check(emulator, dir)).changes).toEqual([]);
    });
  });

  it("still refuses under --members-only to drop a user the workspace has with no membership in scope", async () => {
    await withExport(true, async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      emulator.users.update("u-bob", { email: "robert@x.example" });
      emulator.integrations.removeMember(YT, "u-bob");
      await expect(check(emulator, dir, true)).rejects.toThrow(
        "--accept would take out of access.yaml a user the workspace still has, with no membership in the --members-only " +
          "scope now: bob@x.example (u-bob).",
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
    });
  });
});

describe("the review of a user recorded as left out whose email another user has now", () => {
  // ann has no last name: left out, recorded with her id. She is deleted, and a new user takes her email, also left out.
  const seed = () => {
    const workspace = twoMembers();
    workspace.users[0]!.lastName = "";
    return workspace;
  };
  const recreate = (emulator: Emulator) => {
    emulator.integrations.removeMember(YT, "u-ann");
    emulator.users.remove("u-ann");
    emulator.users.add({ id: "u-ann2", email: "ann@x.example", firstName: "Ann", lastName: "" });
  };

  it("says the workspace has no such user, not that they are out of a --members-only scope", async () => {
    await withExport(
      false,
      async (emulator, dir) => {
        recreate(emulator);
        expect((await check(emulator, dir)).changes.map((c) => c.text)).toEqual([
          "access.yaml records user u-ann <ann@x.example> as left out: no last name; the workspace has no such user",
          "the workspace has user u-ann2 <ann@x.example> (workspace_login_only), which a project cannot declare: no last name; " +
            "access.yaml does not record it",
          'access.yaml records the membership of u-ann <ann@x.example> in "YouTube acme" as left out: its user is left out (no ' +
            "last name); the workspace has no such membership",
        ]);
      },
      seed(),
    );
  });
});
