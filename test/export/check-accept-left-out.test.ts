/**
 * `--check --accept` and records `access.yaml` declares that the workspace still has, in a form a project cannot
 * declare now (a last name cleared, a record that breaks the contract, a member with no entitlement), in process
 * against the emulator over loopback. Taking the workspace's side would drop their entries, and the next `pulumi up`
 * would remove what it can of them (the sets shape removes a member its `IntegrationMembers` no longer lists): the
 * accept refuses, naming each record and what to do, and leaves `access.yaml` as it is.
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

/** Exports the two-member workspace in the sets shape, runs `test` on it; the emulator closed after. */
async function withExport(test: (emulator: Emulator, dir: string, file: string) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembers() });
  try {
    const { dir } = await runExport(options(emulator, { shape: "sets" }));
    await test(emulator, dir, path.join(dir, "access.yaml"));
  } finally {
    await emulator.close();
  }
}

const fix =
  "The next pulumi up would then remove what the project can of them (an IntegrationMembers removes a member it no longer lists), " +
  "so access.yaml was left as it is. Complete them in the workspace and check again; or, to stop declaring them, remove their " +
  "entries from access.yaml yourself (pulumi up then does what the file says), then run --check --accept again.";

describe("--check --accept of a record access.yaml declares that the workspace has in a form a project cannot declare", () => {
  it("refuses, naming the records and what to do, and leaves access.yaml as it is: a last name cleared", async () => {
    await withExport(async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      emulator.users.update("u-bob", { lastName: null });
      emulator.clearRequests();
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true }));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toBe(
        "--accept would take out of access.yaml what it declares of 2 records the workspace still has, in a form a project " +
          "cannot declare:\n" +
          // One a line: a reason may hold semicolons of its own.
          "  - user u-bob <bob@x.example>: no last name\n" +
          '  - membership of u-bob <bob@x.example> in "YouTube acme": its user is left out (no last name)\n' +
          fix,
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
      // Its entries removed by hand (what the up then does is the file's), the rest is taken in: bob under leftOut alone.
      const bobUser = /\n {2}- name: bob-at-x\.example\n(?: {4}.*\n)+/.exec(before)![0];
      const bobMember = /\n {6}- user: bob@x\.example\n(?: {8}.*\n)+/.exec(before)![0];
      fs.writeFileSync(file, before.replace(bobUser, "\n").replace(bobMember, "\n"));
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true })).accepted).toBe(true);
      const access = parseAccessFile(fs.readFileSync(file, "utf8"));
      expect(access.users.map((u) => u.email)).toEqual(["ann@x.example"]);
      expect(access.integrations[0]!.members.map((m) => m.user)).toEqual(["ann@x.example"]);
      expect(access.leftOut.map((l) => [l.kind, l.id, l.reason])).toEqual([
        ["user", "u-bob", "no last name"],
        ["membership", "u-bob", "its user is left out (no last name)"],
      ]);
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });

  it("refuses a user whose record breaks the contract, named by the email access.yaml has for its id", async () => {
    await withExport(async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      const users = await rawPage(emulator, "users");
      users.data.find((r) => r.id === "u-bob")!.attributes["firstName"] = 42;
      answerWith(emulator, "users", users);
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true }));
      expect(refused.message).toMatch(
        /^--accept would take out of access\.yaml what it declares of 2 records the workspace still has, in a form a project cannot declare:\n {2}- user u-bob <bob@x\.example>: GET \/api\/v1\/users answered 200 with a record \(id u-bob\) that does not match the API contract: .*\n {2}- membership of u-bob <bob@x\.example> in "YouTube acme": its user is left out \(its record does not match the API contract\)\nThe next pulumi up/,
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
    });
  });

  it("names a record left out for two reasons under one id once, its reasons joined as access.yaml joins them", async () => {
    await withExport(async (emulator, dir) => {
      // Bob listed again in a copy that breaks the contract and in one that differs: left out twice under u-bob.
      const users = await rawPage(emulator, "users");
      const bob = users.data.find((r) => r.id === "u-bob")!;
      const [bad, other] = [copy(bob), copy(bob)];
      bad.attributes["firstName"] = 42;
      other.attributes["lastName"] = "Ray-Smith";
      answerWith(emulator, "users", { ...users, data: [...users.data, bad, other] }, 100);
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true }));
      const listed = refused.message.split("\n").filter((line) => line.startsWith("  - "));
      expect(refused.message).toMatch(/^--accept would take out of access\.yaml what it declares of 2 records /);
      expect(listed).toEqual([
        expect.stringMatching(
          /^ {2}- user u-bob <bob@x\.example>: GET \/api\/v1\/users answered 200 with a record \(id u-bob\) .* \| listed twice, differently \(lastName: "Ray" \/ "Ray-Smith"\)$/,
        ),
        expect.stringMatching(/^ {2}- membership of u-bob <bob@x\.example> in "YouTube acme": its user is left out/),
      ]);
    });
  });

  it("refuses a member the workspace holds with no entitlement (the up would remove the membership)", async () => {
    await withExport(async (emulator, dir, file) => {
      const before = fs.readFileSync(file, "utf8");
      emulator.integrations.setMember(YT, "u-bob", { entitlements: [] });
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true }));
      expect(refused.message).toBe(
        "--accept would take out of access.yaml what it declares of a record the workspace still has, in a form a project " +
          'cannot declare:\n  - membership of u-bob <bob@x.example> in "YouTube acme": no entitlements (an IntegrationEntitlement ' +
          "declares at least one)\nThe next pulumi up would then remove what the project can of it (an IntegrationMembers " +
          "removes a member it no longer lists), so access.yaml was left as it is. Complete it in the workspace and check again; " +
          "or, to stop declaring it, remove its entries from access.yaml yourself (pulumi up then does what the file says), then " +
          "run --check --accept again.",
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      // Once the member holds an entitlement again, nothing differs.
      emulator.integrations.setMember(YT, "u-bob", { entitlements: ["VIEWER"] });
      expect(await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true })).toMatchObject({
        changes: [],
        accepted: false,
      });
    });
  });
});

describe("--check --accept under --members-only of a user who has no membership in scope now", () => {
  it("refuses while the workspace still has them (the up would delete one the stack created), and accepts once they are gone", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const { dir } = await runExport(options(emulator, { membersOnly: true }));
      const file = path.join(dir, "access.yaml");
      const before = fs.readFileSync(file, "utf8");
      emulator.integrations.removeMember(YT, "u-bob");
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true }));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toBe(
        "--accept would take out of access.yaml a user the workspace still has, with no membership in the --members-only scope " +
          "now: bob@x.example (u-bob). The next pulumi up would then delete each one the stack created, so access.yaml was left " +
          "as it is. To keep managing them, give them a membership in scope; to stop declaring them, remove their entries from " +
          "access.yaml yourself (pulumi up then does what the file says), then run --check --accept again.",
      );
      expect(fs.readFileSync(file, "utf8")).toBe(before);
      // Gone from the workspace too: taking its side deletes nobody.
      emulator.users.remove("u-bob");
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true })).accepted).toBe(true);
      expect(parseAccessFile(fs.readFileSync(file, "utf8")).users.map((u) => u.email)).toEqual(["ann@x.example"]);
    } finally {
      await emulator.close();
    }
  });
});
