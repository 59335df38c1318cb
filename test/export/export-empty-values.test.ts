/**
 * Empty text the service sends (a pending user's email `""`, a role `""`, a label `""`), in process against the
 * emulator over loopback: the export writes it as absent, so the project's `access.yaml` reads (its `index.ts` and
 * `--check` read it), and a check right after finds nothing. An `access.yaml` an earlier export wrote with such a
 * value reads as if it were absent.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index";
import { idOf } from "../../src/client";
import { formatAccessFile, parseAccessFile, readAccessFile } from "../../src/export/access-file";
import { buildAccessFile } from "../../src/export/build";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { answerWith, env, options, rawPage, twoMembers, YT } from "./support";

const GH = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02";

describe("empty text the service sends", () => {
  it("is written as absent: access.yaml reads, and a check right after finds nothing", async () => {
    const seed = twoMembers();
    const emulator = await startEmulator({
      seed: {
        users: [
          ...seed.users,
          { id: "u-pend", email: "", firstName: null, lastName: null },
          { id: "u-scim", email: "scim@x.example", firstName: null, lastName: "Doe" },
        ],
        integrations: [
          ...seed.integrations,
          {
            id: GH,
            application: "GitHub",
            label: "GitHub acme",
            entitlements: [{ id: "READ" }],
            users: [{ userId: "u-ann", entitlements: ["READ"] }],
          },
        ],
      },
    });
    try {
      // The service sends what its seed cannot hold: scim's role, bob's role in YouTube and GitHub's label, all empty.
      const alter = async () => {
        const users = await rawPage(emulator, "users");
        users.data.find((r) => r.id === "u-scim")!.attributes["role"] = "";
        answerWith(emulator, "users", users);
        const members = await rawPage(emulator, `integrations/${YT}/users`);
        const bob = members.data.find((r) => r.id === "u-bob")!;
        // And a member the user list does not have, without an email.
        members.data.push({ ...bob, id: "u-ghost", attributes: { ...bob.attributes, email: "" } });
        bob.attributes["role"] = "";
        answerWith(emulator, `integrations/${YT}/users`, members);
        const integrations = await rawPage(emulator, "integrations");
        integrations.data.find((r) => r.id === GH)!.attributes["label"] = "";
        answerWith(emulator, "integrations", integrations);
      };
      await alter();
      const exported = await runExport(options(emulator));
      const file = path.join(exported.dir, "access.yaml");
      const text = fs.readFileSync(file, "utf8");
      expect(text).not.toContain('""');
      expect(text).toContain("  - name: github\n    id: 3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02\n    application: GitHub\n    members:\n");
      const access = readAccessFile(file);
      expect(access.leftOut).toEqual([
        { kind: "user", id: "u-pend", role: "workspace_login_only", isGuest: false, reason: "no email" },
        { kind: "user", id: "u-scim", email: "scim@x.example", isGuest: false, reason: "no first name" },
        { kind: "membership", integration: YT, id: "u-bob", email: "bob@x.example", entitlements: ["VIEWER"], reason: "no role" },
        {
          kind: "membership",
          integration: YT,
          id: "u-ghost",
          role: "collaborator",
          entitlements: ["VIEWER"],
          reason: "not a user of the workspace's user list",
        },
      ]);
      expect(exported.leftOut.map((l) => l.text)).toEqual([
        "user u-pend: no email",
        "user u-scim <scim@x.example>: no first name",
        'membership of u-ghost in "YouTube acme": not a user of the workspace\'s user list',
        'membership of u-bob <bob@x.example> in "YouTube acme": no role',
      ]);
      await alter();
      const check = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
      expect(check.changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });

  it("an entitlement id empty (the client refuses one; the build does not rely on it): left out of the list access.yaml records", () => {
    const integration = { id: YT, application: "YouTube", label: "YouTube acme", workspace: null, createdAt: null, updatedAt: null };
    const { file } = buildAccessFile(
      {
        users: [{ id: idOf("u-ann"), email: "ann@x.example", firstName: "Ann", lastName: "Lee", role: "workspace_owner", isGuest: false }],
        integrations: [
          {
            integration: { ...integration, id: idOf(YT) },
            members: [{ id: idOf("u-ann"), email: "", role: "owner", entitlements: ["", "VIEWER"] }],
          },
        ],
        invalid: [],
      },
      { workspace: "http://127.0.0.1/api/v1/", scopeIds: undefined, membersOnly: false },
    );
    expect(parseAccessFile(formatAccessFile(file)).leftOut).toEqual([
      {
        kind: "membership",
        integration: YT,
        id: "u-ann",
        email: "ann@x.example",
        role: "owner",
        entitlements: ["VIEWER"],
        reason: expect.any(String),
      },
    ]);
  });

  it("read from an access.yaml an earlier export wrote, where no program declares it, is read as absent", () => {
    const text = [
      "version: 1",
      "users: []",
      "integrations:",
      "  - name: github",
      `    id: ${GH}`,
      '    label: ""',
      '    application: ""',
      "leftOut:",
      "  - kind: user",
      "    id: u-pend",
      '    email: ""',
      '    role: ""',
      "    reason: no email",
      "  - kind: membership",
      `    integration: ${YT}`,
      "    id: u-bob",
      "    email: bob@x.example",
      '    entitlements: ["", VIEWER]',
      "    reason: no role",
      "",
    ].join("\n");
    const access = parseAccessFile(text);
    expect(access.integrations).toEqual([{ name: "github", id: GH, members: [] }]);
    expect(access.leftOut).toEqual([
      { kind: "user", id: "u-pend", reason: "no email" },
      { kind: "membership", integration: YT, id: "u-bob", email: "bob@x.example", entitlements: ["VIEWER"], reason: "no role" },
    ]);
    // Where a program declares it, empty is still refused.
    expect(() =>
      parseAccessFile('version: 1\nusers:\n  - name: a\n    email: a@x.example\n    firstName: A\n    lastName: B\n    role: ""\n'),
    ).toThrow("access.yaml, line 7: users[0].role must be text");
  });
});
