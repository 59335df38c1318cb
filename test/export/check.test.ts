/**
 * The access review (`--check`) in process, against the emulator over loopback: each difference
 * worded by which side holds what, reads only (asserted on the emulator's request log), the
 * address it reads, and `--accept` rewriting `access.yaml` so that only the records that differ
 * change. The records a project cannot declare: `check-left-out.test.ts`; the comparison alone, in
 * tables: `review.test.ts`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Emulator, POPULATED_IDS, populatedUserId, startEmulator } from "../../src/emulator/index";
import { ExportError } from "../../src/export/errors";
import { rememberWorkspace } from "../../src/export/known-workspaces";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { rejection } from "../support/fixtures";
import { env, freshCacheDir, gets, lineDiff, options, twoMembers } from "./support";

const { integrations, users } = POPULATED_IDS;

describe("--check", () => {
  let emulator: Emulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated" });
    dir = (await runExport(options(emulator))).dir;
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("finds nothing when nothing changed, with reads only", async () => {
    emulator.clearRequests();
    const result = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
    expect(result.changes).toEqual([]);
    expect(result.notes).toEqual([]);
    expect(gets(emulator).every((l) => l.startsWith("GET "))).toBe(true);
    // The export's reads: every list listed twice, the second listing proving the first.
    expect(result.requests).toBe(25);
  });

  it("words each difference by the side that holds it: entitlements on either side, a user only the workspace has, a role", async () => {
    const viewer = populatedUserId(101); // a Salesforce viewer
    const admin = populatedUserId(100); // a Salesforce admin: ADMIN and VIEWER
    emulator.integrations.setMember(integrations.big, viewer, { entitlements: ["EDITOR", "VIEWER"] });
    emulator.integrations.setMember(integrations.big, admin, { entitlements: ["ADMIN"] });
    emulator.users.add({ email: "new.person@acme.example", firstName: "New", lastName: "Person", role: "workspace_login_only" });
    emulator.users.update(users.plain, { role: "workspace_super_admin" });
    emulator.clearRequests();
    const result = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
    expect(result.changes.map((c) => c.text)).toEqual([
      "the workspace has user new.person@acme.example (New Person, workspace_login_only); access.yaml does not",
      'access.yaml grants user100@acme.example VIEWER in "Salesforce acme"; the workspace does not',
      'the workspace grants User101@ACME.EXAMPLE EDITOR in "Salesforce acme"; access.yaml does not',
      "access.yaml gives user300@acme.example the role workspace_login_only; the workspace gives the role workspace_super_admin",
    ]);
    expect(result.changes.map((c) => [c.kind, c.side, c.accessYaml, c.workspace])).toEqual([
      ["user", "workspace", null, "New Person, workspace_login_only"],
      ["entitlements", "access.yaml", "VIEWER", null],
      ["entitlements", "workspace", null, "EDITOR"],
      ["user-role", "both", "workspace_login_only", "workspace_super_admin"],
    ]);
    expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
  });

  it("words memberships one side has, member roles and a user only access.yaml declares the same way", async () => {
    emulator.integrations.removeMember(integrations.smallTwin, users.guestAdmin);
    emulator.integrations.setMember(integrations.smallTwin, users.superAdmin, { entitlements: ["READ"] });
    emulator.integrations.setMember(integrations.small, users.superAdmin, { role: "owner", entitlements: ["READ", "WRITE"] });
    emulator.users.remove(populatedUserId(400));
    const result = await runCheck({
      out: dir,
      baseUrl: emulator.url,
      env: env(emulator),
      integrations: ["GitHub acme", "GitHub acme-labs"],
    });
    expect(result.changes.map((c) => c.text)).toEqual(
      [
        'access.yaml makes user002@acme.example account_collaborator in "GitHub acme"; the workspace makes them account_owner',
        'the workspace grants user002@acme.example READ in "GitHub acme-labs" as account_collaborator; access.yaml does not',
        'access.yaml grants user007@acme.example WRITE in "GitHub acme-labs" as account_collaborator; the workspace does not (not a member there)',
        "access.yaml declares user user400@acme.example (Ada Perlman, workspace_login_only); the workspace has no such user",
        // (the changes of the test before, not in these integrations, are users' only)
        "the workspace has user new.person@acme.example (New Person, workspace_login_only); access.yaml does not",
        "access.yaml gives user300@acme.example the role workspace_login_only; the workspace gives the role workspace_super_admin",
      ].sort((a, b) => key(a).localeCompare(key(b))),
    );
  });

  it("reads an address given over the one access.yaml records, and says so; --accept refuses it", async () => {
    const other = await startEmulator({ world: "populated", apiKey: emulator.apiKey });
    try {
      const result = await runCheck({ out: dir, baseUrl: other.url, env: env(emulator) });
      expect(result.notes).toEqual([
        `access.yaml was exported from ${emulator.url}; this check reads ${other.url}, the address given (--base-url or the environment wins over access.yaml).`,
      ]);
      // Taking another workspace's side into this access.yaml is refused, before any request.
      other.clearRequests();
      await expect(runCheck({ out: dir, baseUrl: other.url, env: env(emulator), accept: true })).rejects.toThrow(
        `--accept would write the access of ${other.url} into a access.yaml exported from ${emulator.url}`,
      );
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

/** The email a change line is about, for the order the check sorts in. */
function key(line: string): string {
  return /(\S+@\S+)/.exec(line)?.[1]?.toLowerCase() ?? "";
}

/** Runs `test` on an export of its own of the populated world (`file`: its access.yaml), which it may change; the emulator closed after. */
async function withOwnExport(test: (emulator: Emulator, dir: string, file: string) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ world: "populated" });
  try {
    const { dir } = await runExport(options(emulator));
    await test(emulator, dir, path.join(dir, "access.yaml"));
  } finally {
    await emulator.close();
  }
}

describe("--check --accept", () => {
  it("rewrites access.yaml to the workspace's side: a diff shows only the records that differ; the next check finds nothing", async () => {
    await withOwnExport(async (emulator, dir, file) => {
      const before = path.join(path.dirname(dir), "access.before.yaml");
      fs.copyFileSync(file, before);
      emulator.integrations.setMember(integrations.big, populatedUserId(101), { entitlements: ["EDITOR", "VIEWER"] });
      const added = emulator.users.add({
        email: "new.person@acme.example",
        firstName: "New",
        lastName: "Person",
        role: "workspace_login_only",
      });
      emulator.users.update(users.plain, { role: "workspace_super_admin" });
      const result = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true });
      expect(result.accepted).toBe(true);
      expect(result.changes).toHaveLength(3);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
      const lines = (f: string) => fs.readFileSync(f, "utf8").split("\n");
      // Only the three records that differ: the new user's seven lines (its id last), user300's role, User101's set.
      expect(lineDiff(lines(before), lines(file))).toEqual({
        removed: ["    role: workspace_login_only", "        entitlements: [VIEWER]"],
        added: [
          "  - name: new.person-at-acme.example",
          "    email: new.person@acme.example",
          "    firstName: New",
          "    lastName: Person",
          "    role: workspace_login_only",
          "    isGuest: false",
          `    id: ${added.id}`,
          "    role: workspace_super_admin",
          "        entitlements: [EDITOR, VIEWER]",
        ],
      });
      expect(lines(file).length).toBe(lines(before).length + 7);
      const again = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
      expect(again.changes).toEqual([]);
      // Accepting with nothing to take in leaves the file alone.
      const text = fs.readFileSync(file, "utf8");
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true })).accepted).toBe(false);
      expect(fs.readFileSync(file, "utf8")).toBe(text);
    });
  });
});

describe("--check --accept of a narrowed read", () => {
  it.each([
    ["--integration", { integrations: [integrations.big] }],
    ["another --members-only than access.yaml records", { membersOnly: true }],
  ])("is refused with %s: access.yaml is left as it is, and nothing is read", async (_what, narrowing) => {
    await withOwnExport(async (emulator, dir, file) => {
      // A change the accept would take in, were it allowed: the refusal is not for want of one.
      emulator.users.update(users.plain, { role: "workspace_super_admin" });
      const text = fs.readFileSync(file, "utf8");
      emulator.clearRequests();
      const error = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true, ...narrowing }));
      expect(error).toBeInstanceOf(ExportError);
      expect(error.message).toContain("--accept rewrites the whole of access.yaml from what it reads");
      expect(fs.readFileSync(file, "utf8")).toBe(text);
      expect(emulator.requests).toEqual([]);
      // The same check without --accept reads and reports the change.
      const check = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), ...narrowing });
      expect(check.accepted).toBe(false);
      expect(emulator.requests.length).toBeGreaterThan(0);
    });
  });
});

describe("--check of users named without an id (added by hand)", () => {
  it("is no difference; --accept records the workspace's id, and changes nothing else", async () => {
    await withOwnExport(async (emulator, dir, file) => {
      const exported = fs.readFileSync(file, "utf8");
      const idLine = `    id: ${users.plain}\n`;
      expect(exported).toContain(idLine);
      fs.writeFileSync(file, exported.replace(idLine, ""));
      const check = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
      expect(check.changes).toEqual([]);
      expect(check.notes).toEqual([
        "access.yaml names 1 user without an id (added by hand): --accept records the workspace's (the sets shape declares members by id).",
      ]);
      // A check of part of the workspace says --accept needs the whole (it refuses --integration).
      const part = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), integrations: [integrations.big] });
      expect(part.notes).toEqual([
        "access.yaml names 1 user without an id (added by hand): --accept, run without --integration and --members-only, records the workspace's (the sets shape declares members by id).",
      ]);
      const accept = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true });
      expect(accept.accepted).toBe(true);
      expect(accept.notes).toEqual([
        "access.yaml now records the workspace's id of 1 user it named without one (the sets shape declares members by id).",
      ]);
      expect(fs.readFileSync(file, "utf8")).toBe(exported);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
    });
  });
});

describe("--check of a user whose role and guest flag access.yaml leaves out (the service's, never written)", () => {
  it("compares neither, as the resources do; --accept leaves them out, changing only what differs", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      const roleLines = "    role: workspace_login_only\n    isGuest: false\n";
      const exported = fs.readFileSync(file, "utf8");
      // ann's lines, as a user added by hand has them (or one the service reported neither of): her User keeps the service's.
      const undeclared = exported.replace(`    lastName: Lee\n${roleLines}`, "    lastName: Lee\n");
      expect(undeclared).not.toBe(exported);
      fs.writeFileSync(file, undeclared);
      emulator.users.update("u-ann", { role: "workspace_super_admin", isGuest: true });
      emulator.users.update("u-bob", { role: "workspace_super_admin" });
      const check = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
      expect(check.changes.map((c) => c.text)).toEqual([
        "access.yaml gives bob@x.example the role workspace_login_only; the workspace gives the role workspace_super_admin",
      ]);
      // ann's name differs too: her record changes, and still declares no role nor guest flag.
      emulator.users.update("u-ann", { lastName: "Lee-Smith" });
      const accept = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true });
      expect(accept.changes.map((c) => c.kind)).toEqual(["user-name", "user-role"]);
      expect(lineDiff(undeclared.split("\n"), fs.readFileSync(file, "utf8").split("\n"))).toEqual({
        removed: ["    lastName: Lee", "    role: workspace_login_only"],
        added: ["    lastName: Lee-Smith", "    role: workspace_super_admin"],
      });
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe("the address --check reads", () => {
  let emulator: Emulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: twoMembers() });
    // The export remembers the address it was given: outside CI a check may then read the one access.yaml records.
    freshCacheDir();
    dir = (await runExport(options(emulator))).dir;
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await emulator?.close();
  });

  it("is the one access.yaml records, given to the export, when neither --base-url nor the environment gives one: the generated README's command works as written", async () => {
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    const commands = [...readme.matchAll(/^(.*)npx workspace-access-export (.*)$/gm)].map((m) => ({
      env: m[1]!.trim(),
      args: m[2]!.split(" "),
    }));
    expect(commands.map((c) => c.args.join(" "))).toEqual(["--check --out .", "--check --accept --out ."]);
    for (const command of commands) {
      // As written: the key from the environment (the line's assignment), the project as the working directory, no address.
      expect(command.env).toBe("WORKSPACE_ACCESS_API_KEY=<key>");
      expect(command.args.slice(-2)).toEqual(["--out", "."]);
      const result = await runCheck({
        out: dir,
        env: { WORKSPACE_ACCESS_API_KEY: emulator.apiKey },
        ...(command.args.includes("--accept") ? { accept: true } : {}),
      });
      expect(result).toMatchObject({ changes: [], notes: [], workspace: emulator.url, accepted: false });
    }
  });

  it("in CI is never the one access.yaml records (a pull request can edit it): the key goes only to an address the CI's settings give", async () => {
    const sent = emulator.requests.length;
    for (const ci of ["true", "1", "woodpecker"]) {
      const refused = await rejection(runCheck({ out: dir, env: { WORKSPACE_ACCESS_API_KEY: emulator.apiKey, CI: ci } }));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toBe(
        `${path.join(dir, "access.yaml")} records the workspace ${emulator.url}, but CI is set: in CI the key goes only to an ` +
          `address the CI's own settings give, since the change under review can edit ${path.join(dir, "access.yaml")}. Set ` +
          "WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST) beside WORKSPACE_ACCESS_API_KEY " +
          "in the CI's settings, or pass --base-url.",
      );
    }
    expect(emulator.requests.length).toBe(sent);
    // Given by the CI's settings (the environment or the flag), it is read; CI empty, 0 or false is not CI.
    const inCi = { WORKSPACE_ACCESS_API_KEY: emulator.apiKey, CI: "true" };
    expect(await runCheck({ out: dir, env: { ...inCi, WORKSPACE_ACCESS_BASE_URL: emulator.url } })).toMatchObject({
      changes: [],
      notes: [],
    });
    expect(await runCheck({ out: dir, env: inCi, baseUrl: emulator.url })).toMatchObject({ changes: [], notes: [] });
    for (const ci of ["", "0", "false", "FALSE"]) {
      const shell = { WORKSPACE_ACCESS_API_KEY: emulator.apiKey, CI: ci };
      expect(await runCheck({ out: dir, env: shell })).toMatchObject({ changes: [], workspace: emulator.url });
    }
  });

  it("names access.yaml when the address it records is not one the check can use", async () => {
    const copy = path.join(path.dirname(dir), "copy");
    fs.mkdirSync(copy);
    const text = fs
      .readFileSync(path.join(dir, "access.yaml"), "utf8")
      .replace(/^workspace: .*$/m, "workspace: http://acme.example.com/api/v1/");
    fs.writeFileSync(path.join(copy, "access.yaml"), text);
    // Checked when the file is read, naming its line, before any request.
    await expect(runCheck({ out: copy, env: env(emulator) })).rejects.toThrow(
      /^.*access\.yaml, line \d+: workspace "http:\/\/acme\.example\.com" uses plain http:\/\/.*\(the address the file was exported from: correct it, or remove the line\)$/,
    );
    fs.writeFileSync(path.join(copy, "access.yaml"), text.replace(/^workspace: .*\n/m, ""));
    await expect(runCheck({ out: copy, env: env(emulator) })).rejects.toThrow(
      /^No workspace address: .* \(.*access\.yaml records none\)\.$/,
    );
  });

  it("names access.yaml when the address it records answers, but is not the workspace API", async () => {
    const copy = path.join(path.dirname(dir), "wrong-path");
    fs.mkdirSync(copy);
    const file = path.join(copy, "access.yaml");
    const wrong = emulator.url.replace("/api/v1/", "/api/v2/");
    // Given before (to an export, say): the check may send the key there.
    await rememberWorkspace(wrong);
    fs.writeFileSync(file, fs.readFileSync(path.join(dir, "access.yaml"), "utf8").replace(/^workspace: .*$/m, `workspace: ${wrong}`));
    const error = await rejection(runCheck({ out: copy, env: env(emulator) }));
    expect(error.message).toContain(`${wrong} is not the workspace's API root`);
    expect(error.message).toContain(
      `is not the workspace's API root: check the workspace ${file} records, it should be the API root, such as ` +
        "https://acme.example.com/api/v1/. Or it is, and the service answers 404 (not disclosed) to a key without Read " +
        "integrations and Read users: give the key in WORKSPACE_ACCESS_API_KEY the scopes Read integrations (read:integrations) " +
        "and Read users (read:users).",
    );
    expect(error.message).not.toMatch(/baseUrl|--base-url|WORKSPACE_ACCESS_BASE_URL/);
  });
});
