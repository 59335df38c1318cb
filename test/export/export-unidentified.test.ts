/**
 * Records the workspace leaves out that have neither id nor email (the service sent them with an id that is not text, and
 * no email): nothing tells two of one kind apart, in process against the emulator over loopback. `access.yaml` records
 * them as one record with their `count`, never one of them silently; `--check` compares that count and `--accept` takes it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { formatAccessFile, parseAccessFile } from "../../src/export/access-file";
import { AccessFileError } from "../../src/export/errors";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { answerWith, copy, env, options, rawPage, twoMembers } from "./support";

/** The ids of the records the service sends with an id that is not text (and, for a user, no email). */
const BROKEN_USERS = ["u-x1", "u-x2"];
const BROKEN_INTEGRATIONS = ["Jira acme", "Slack acme"];

/** Has the service send `users` (by id) with `42` for an id and no email, and the integrations of `labels` with `42` for an id. */
async function breakIds(emulator: Emulator, users: readonly string[], labels: readonly string[]): Promise<void> {
  emulator.clearFaults();
  const userPage = copy(await rawPage(emulator, "users"));
  for (const record of userPage.data.filter((r) => users.includes(r.id))) {
    (record as { id: unknown }).id = 42;
    delete record.attributes["email"];
  }
  answerWith(emulator, "users", userPage, 100);
  const integrationPage = copy(await rawPage(emulator, "integrations"));
  for (const record of integrationPage.data.filter((r) => labels.includes(String(r.attributes["label"])))) {
    (record as { id: unknown }).id = 42;
  }
  answerWith(emulator, "integrations", integrationPage, 100);
}

const BROKEN_ID = 'field "id": Invalid input: expected string, received number.';

describe("records left out with neither id nor email", () => {
  it("are recorded as one record of each kind with their count, compared by --check and taken by --accept", async () => {
    const seed = twoMembers();
    const extra = BROKEN_USERS.map((id, i) => ({ id, email: `x${i + 1}@x.example`, firstName: "X", lastName: `${i + 1}` }));
    const emulator = await startEmulator({
      seed: { ...seed, users: [...seed.users, ...extra, { id: "u-x3", email: "x3@x.example", firstName: "X", lastName: "3" }] },
    });
    try {
      for (const label of BROKEN_INTEGRATIONS) emulator.integrations.add({ application: "App", label, entitlements: [{ id: "MEMBER" }] });
      await breakIds(emulator, BROKEN_USERS, BROKEN_INTEGRATIONS);
      const exported = await runExport(options(emulator));
      // The export's own list names each one.
      expect(exported.leftOut.map((l) => l.text)).toEqual([
        `integration (no id): GET /api/v1/integrations answered 200 with a record that does not match the API contract: ${BROKEN_ID}`,
        `integration (no id): GET /api/v1/integrations answered 200 with a record that does not match the API contract: ${BROKEN_ID}`,
        `user (no id): GET /api/v1/users answered 200 with a record that does not match the API contract: ${BROKEN_ID}`,
        `user (no id): GET /api/v1/users answered 200 with a record that does not match the API contract: ${BROKEN_ID}`,
      ]);
      const file = path.join(exported.dir, "access.yaml");
      const text = fs.readFileSync(file, "utf8");
      expect(text).toContain(
        'leftOut:\n  - kind: integration\n    count: 2\n    reason: "GET /api/v1/integrations answered 200 with a record that does not match the API contract: field \\"id\\": Invalid input: expected string, received number."\n' +
          '  - kind: user\n    count: 2\n    reason: "GET /api/v1/users answered 200 with a record that does not match the API contract: field \\"id\\": Invalid input: expected string, received number."\n',
      );
      expect(parseAccessFile(text).leftOut.map((l) => [l.kind, l.count])).toEqual([
        ["integration", 2],
        ["user", 2],
      ]);
      const check = (accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept });
      // The same workspace: the same records, no difference.
      expect((await check()).changes).toEqual([]);

      // A third user's record sent so: the count differs.
      await breakIds(emulator, [...BROKEN_USERS, "u-x3"], BROKEN_INTEGRATIONS);
      const review = await check();
      expect(review.changes.map((c) => [c.kind, c.side, c.accessYaml, c.workspace, c.text])).toEqual([
        [
          "left-out",
          "both",
          "2 records",
          "3 records",
          `access.yaml records 2 users (no id) as left out; the workspace has 3, left out: GET /api/v1/users answered 200 with a record that does not match the API contract: ${BROKEN_ID}`,
        ],
        [
          "user",
          "access.yaml",
          "X 3, workspace_login_only",
          "(could not be told)",
          "access.yaml declares user x3@x.example (X 3, workspace_login_only); whether the workspace has them could not be told " +
            "(3 user records of the workspace break the contract, and neither their ids nor their emails could be read)",
        ],
      ]);
      expect(review.leftOut).toHaveLength(5);
      // --accept refuses the user it cannot tell; with that entry removed by hand, it takes the count.
      fs.writeFileSync(file, text.replace(/ {2}- name: x3-at-x\.example\n( {4}.*\n)+?(?= {2}- |integrations:)/, ""));
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).users.map((u) => u.email)).not.toContain("x3@x.example");
      const accepted = await check(true);
      expect(accepted.accepted).toBe(true);
      expect(accepted.notes.join("\n")).not.toMatch(/written anew/);
      expect(fs.readFileSync(file, "utf8")).toContain("  - kind: user\n    count: 3\n");
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).leftOut.map((l) => [l.kind, l.count])).toEqual([
        ["integration", 2],
        ["user", 3],
      ]);
      expect((await check()).changes).toEqual([]);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
    } finally {
      await emulator.close();
    }
  });
});

describe("access.yaml's count of records left out with neither id nor email", () => {
  const record = (fields: string) => `  - kind: user\n${fields}    reason: no id\n`;
  const file = (...records: string[]) => `version: 1\nleftOut:\n${records.join("")}`;

  it("is read (1 as absent) and written back as read", () => {
    const parsed = parseAccessFile(file(record("    count: 3\n"), `  - kind: integration\n    count: 1\n    reason: no id\n`));
    expect(parsed.leftOut).toEqual([
      { kind: "integration", reason: "no id" },
      { kind: "user", count: 3, reason: "no id" },
    ]);
    expect(parseAccessFile(formatAccessFile(parsed)).leftOut).toEqual(parsed.leftOut);
  });

  it("is what the writer makes of two such records of one kind and integration, each reason once", () => {
    const membership = (reason: string) => ({ kind: "membership" as const, integration: "i", reason });
    const text = formatAccessFile({
      ...parseAccessFile(file()),
      leftOut: [membership("b"), membership("a"), membership("b"), { kind: "membership", integration: "j", reason: "c" }],
    });
    expect(parseAccessFile(text).leftOut).toEqual([
      { kind: "membership", integration: "i", count: 3, reason: "a | b" },
      { kind: "membership", integration: "j", reason: "c" },
    ]);
  });

  it.each([
    ["a whole number", record("    count: 2.5\n"), "/p/access.yaml, line 4: leftOut[0].count must be a whole number"],
    ["1 or more", record("    count: 0\n"), "/p/access.yaml, line 4: leftOut[0].count must be 1 or more"],
    [
      "on a record with neither id nor email",
      record("    email: a@x.example\n    count: 2\n"),
      "/p/access.yaml, line 5: leftOut[0]: a count is for records with neither id nor email (nothing else tells them apart): remove the count",
    ],
  ])("must be %s", (_what, text, message) => {
    expect(() => parseAccessFile(file(text), "/p/access.yaml")).toThrow(AccessFileError);
    expect(() => parseAccessFile(file(text), "/p/access.yaml")).toThrow(message);
  });
});
