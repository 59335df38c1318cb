/**
 * `--check` and `--check --accept` of a user added to `access.yaml` by hand (no `id`, as the generated README says) whose
 * records the service later sends with one field that breaks the contract, in process against the emulator over
 * loopback. The user and the membership are there: the review names them by the email it could read, or, when the email
 * itself cannot be read, says whether the workspace holds them could not be told. It never claims "no such user" or "not a
 * member there", and `--accept` refuses rather than drop them (in the sets shape the next `pulumi up` would remove the
 * membership and delete the user the stack created).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { ExportError } from "../../src/export/errors";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { rejection } from "../support/fixtures";
import { answerWith, copy, env, options, rawPage, twoMembers, YT } from "./support";

const CAROL = "  - name: carol-at-x.example\n    email: carol@x.example\n    firstName: Carol\n    lastName: Day\n";
const CAROL_MEMBER = "      - user: carol@x.example\n        role: account_collaborator\n        entitlements: [VIEWER]\n";

/**
 * Exports the two-member workspace in the sets shape, adds carol to access.yaml by hand (with a membership), has the
 * workspace make her as `pulumi up` would, then has the service send her user and member records with `field` set to 42.
 */
async function withCarol(
  field: string,
  test: (emulator: Emulator, dir: string, file: string, before: string) => Promise<void>,
): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembers() });
  try {
    const { dir } = await runExport(options(emulator, { shape: "sets" }));
    const file = path.join(dir, "access.yaml");
    const text = fs
      .readFileSync(file, "utf8")
      .replace("users:\n", `users:\n${CAROL}`)
      .replace("    members:\n", `    members:\n${CAROL_MEMBER}`);
    fs.writeFileSync(file, text);
    expect(parseAccessFile(text).memberships.map((m) => m.user)).toContain("carol@x.example");
    emulator.users.add({ id: "u-carol", email: "carol@x.example", firstName: "Carol", lastName: "Day" });
    emulator.integrations.setMember(YT, "u-carol", { role: "collaborator", entitlements: ["VIEWER"] });
    const users = copy(await rawPage(emulator, "users"));
    users.data.find((u) => u.id === "u-carol")!.attributes[field] = 42;
    answerWith(emulator, "users", users, 100);
    const members = copy(await rawPage(emulator, `integrations/${YT}/users`));
    members.data.find((u) => u.id === "u-carol")!.attributes[field] = 42;
    answerWith(emulator, `integrations/${YT}/users`, members, 100);
    await test(emulator, dir, file, text);
  } finally {
    await emulator.close();
  }
}

const check = (emulator: Emulator, dir: string, accept = false) =>
  runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept });

describe("--check of a user added by hand whose records break the contract", () => {
  it("names them by the email it could read, as records the workspace has in a form a project cannot declare", async () => {
    await withCarol("lastName", async (emulator, dir, file, before) => {
      const texts = (await check(emulator, dir)).changes.map((c) => c.text);
      expect(texts.filter((t) => t.includes("carol"))).toEqual([
        expect.stringMatching(
          /^access\.yaml declares user u-carol <carol@x\.example> \(Carol Day\); the workspace has it in a form a project cannot declare: GET \/api\/v1\/users answered 200 with a record \(id u-carol\) that /,
        ),
        expect.stringMatching(
          /^access\.yaml declares the membership of u-carol <carol@x\.example> in "YouTube acme" \(VIEWER as account_collaborator\); the workspace has it in a form a project cannot declare: GET /,
        ),
      ]);
      expect(texts.join("\n")).not.toMatch(/no such user|not a member there/);
      // --accept would drop both: refused, the file as it was.
      const refused = await rejection(check(emulator, dir, true));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toMatch(/^--accept would take out of access\.yaml what it declares of 2 records the workspace still has/);
      expect(fs.readFileSync(file, "utf8")).toBe(before);
    });
  });

  it("says whether the workspace has them could not be told when their email cannot be read, and --accept refuses", async () => {
    await withCarol("email", async (emulator, dir, file, before) => {
      const review = await check(emulator, dir);
      const untold = review.changes.filter((c) => c.user === "carol@x.example");
      expect(untold.map((c) => [c.kind, c.side, c.workspace, c.text])).toEqual([
        [
          "user",
          "access.yaml",
          "(could not be told)",
          "access.yaml declares user carol@x.example (Carol Day); whether the workspace has them could not be told " +
            "(a user record of the workspace breaks the contract and its email could not be read: u-carol)",
        ],
        [
          "membership",
          "access.yaml",
          "(could not be told)",
          'access.yaml grants carol@x.example VIEWER in "YouTube acme" as account_collaborator; whether the workspace does ' +
            "could not be told (a member record of the workspace breaks the contract and its email could not be read: u-carol)",
        ],
      ]);
      expect(review.changes.map((c) => c.text).join("\n")).not.toMatch(/no such user|not a member there/);
      const refused = await rejection(check(emulator, dir, true));
      expect(refused).toBeInstanceOf(ExportError);
      // One entry a line: each line holds semicolons of its own.
      expect(refused.message).toBe(
        "--accept would take out of access.yaml 2 entries whose absence from the workspace could not be told:\n" +
          `${untold.map((c) => `  - ${c.text}\n`).join("")}` +
          "access.yaml was left as it is. Have the record that breaks the contract corrected in the workspace (or the field it " +
          "breaks made readable: a user's email, an integration's id) and check again; or, to stop declaring them, remove " +
          "their entries from access.yaml yourself, then run --check --accept again.",
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
    });
  });

  it("still claims the absence of a user no unreadable record can be", async () => {
    await withCarol("email", async (emulator, dir) => {
      // access.yaml records carol's id: the record of u-carol is hers, and dave, added by hand, is not in the workspace.
      const file = path.join(dir, "access.yaml");
      const text = fs
        .readFileSync(file, "utf8")
        .replace(
          CAROL,
          `${CAROL}    id: u-carol\n  - name: dave-at-x.example\n    email: dave@x.example\n    firstName: Dave\n    lastName: Fox\n`,
        );
      fs.writeFileSync(file, text);
      const texts = (await check(emulator, dir)).changes.map((c) => c.text);
      expect(texts).toContain("access.yaml declares user dave@x.example (Dave Fox); the workspace has no such user");
      expect(texts.join("\n")).not.toMatch(/could not be told/);
    });
  });
});
