/**
 * The export's `sets` shape through the real `pulumi` CLI: `workspace-access-export --shape sets` (the built command) writes
 * the emulator's populated world (482 users, 274 memberships) as one `WorkspaceUsers` and an `IntegrationMembers` per
 * integration; its first `pulumi up` adopts everything and sends no write, and `pulumi preview --expect-no-changes`
 * passes after it, writing nothing; an edit of one user in access.yaml previews as that user's change alone (members are
 * declared by the ids access.yaml records, known in a preview) and its up sends one `PUT`; a user added to access.yaml and
 * one integration previews as changes of the users and that integration alone, and its up creates and invites them; an id
 * the workspace's user no longer has fails the preview and the up, naming it, with no write. A `User` of an email the `WorkspaceUsers` has fails the
 * program, naming both. A member holding an entitlement its integration no longer offers is let through with a warning.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { formatAccessFile, parseAccessFile } from "../../src/export/access-file";
import { linkExportModules } from "../support/packed.ts";
import { populatedWithRetired, runExport } from "./export-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type CliStack, cliAvailable, dynamicResources, openCliStack, skipNote, writesOf } from "./support.ts";

/** The steps of `pulumi preview --json` that change something (not the refresh `refresh: always` asks for): `<op> <type> <name>`, sorted. */
function changes(json: string): string[] {
  const preview = JSON.parse(json) as { steps?: Array<{ op: string; urn: string }> };
  const named = (urn: string) => `${urn.split("::")[2]?.split(":").pop()} ${urn.split("::").pop()}`;
  return (preview.steps ?? [])
    .filter((s) => s.op !== "same" && s.op !== "refresh")
    .map((s) => `${s.op} ${named(s.urn)}`)
    .sort();
}

describe.skipIf(!cliAvailable)(`the export's sets shape through the real pulumi CLI${skipNote}`, { timeout: 600_000 }, () => {
  let service: Emulator;
  let tmp: string;
  let dir: string;
  let stack: CliStack;

  beforeAll(async () => {
    // One member holds an entitlement the integration no longer offers: the first preview must let it through.
    service = await populatedWithRetired();
    tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-cli-export-sets-"));
    dir = path.join(tmp, "access");
    const exported = await runExport(["--out", dir, "--base-url", service.url, "--shape", "sets"], {
      WORKSPACE_ACCESS_API_KEY: service.apiKey,
    });
    if (exported.code !== 0) throw new Error(`the export failed:\n${exported.stderr}`);
    expect(exported.stdout).toContain("482 users and 274 memberships of 3 integrations");
    expect(exported.stdout).toContain("(--shape sets: given with --shape)");
    await linkExportModules(dir);
    stack = await openCliStack({
      projectDir: dir,
      config: { "workspace-access:baseUrl": service.url, "workspace-access:apiKey": { secret: service.apiKey } },
    });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.remove();
    await service?.close();
    if (tmp) await fs.promises.rm(tmp, { recursive: true, force: true });
  });

  it("the first pulumi up adopts every user and membership with no write; a preview then shows no change and writes nothing", async () => {
    const usersBefore = service.users.list();
    const membersBefore = service.integrations.list().map((i) => service.integrations.members(i.id));
    service.clearRequests();
    const up = await stack.up();
    expect(writesOf(service.requests)).toEqual([]);
    expect(up.output).toContain('offers no entitlement "RETIRED_ACCESS"');
    expect(up.output).toContain("Let through: the member holds it already");
    expect(service.users.list()).toEqual(usersBefore);
    expect(service.integrations.list().map((i) => service.integrations.members(i.id))).toEqual(membersBefore);
    const resources = dynamicResources(await stack.exportState());
    expect(resources.map((r) => r.type.split(":").pop()).sort()).toEqual([
      "IntegrationMembers",
      "IntegrationMembers",
      "IntegrationMembers",
      "WorkspaceUsers",
    ]);
    const users = resources.find((r) => r.type.endsWith(":WorkspaceUsers"))?.outputs?.userIds;
    expect(Object.keys(users as Record<string, string>)).toHaveLength(482);
    expect(await stack.outputs()).toMatchObject({ userCount: 482, membershipCount: 274 });
    const before = service.requests.length;
    await stack.preview("--expect-no-changes");
    expect(writesOf(service.requests.slice(before))).toEqual([]);
    expect(service.requests.length).toBeGreaterThan(before);
  });

  it("an edit of one user in access.yaml previews as that user's change alone, and the up sends one PUT of that user alone", async () => {
    const file = path.join(dir, "access.yaml");
    const yaml = await fs.promises.readFile(file, "utf8");
    const [, email, lastName] = /email: (\S+)\n {4}firstName: .*\n {4}lastName: (.*)\n/.exec(yaml) ?? [];
    const id = service.users.findByEmail(email!)!.id;
    await fs.promises.writeFile(file, yaml.replace(`lastName: ${lastName}\n`, "lastName: Changed\n"));
    try {
      const before = service.requests.length;
      const preview = await stack.preview("--diff");
      expect(preview.output.match(/^\s+~ lastName\s*: .*$/gm)).toEqual([expect.stringMatching(/"Changed"$/)]);
      // The members are declared by the ids access.yaml records: no integration shows a change.
      expect(changes((await stack.preview("--json")).stdout)).toEqual(["update WorkspaceUsers users"]);
      expect(writesOf(service.requests.slice(before))).toEqual([]);
      const up = service.requests.length;
      await stack.up();
      expect(writesOf(service.requests.slice(up))).toEqual([`PUT /users/${id}`]);
      expect(service.users.get(id)?.lastName).toBe("Changed");
    } finally {
      // Both back as exported (the project refreshes before each operation: its state follows).
      await fs.promises.writeFile(file, yaml);
      service.users.update(id, { lastName: lastName! });
    }
  });

  it("a user added to access.yaml and one integration previews as changes of the users and that integration alone", async () => {
    const file = path.join(dir, "access.yaml");
    const yaml = await fs.promises.readFile(file, "utf8");
    const access = parseAccessFile(yaml);
    const email = "added.by.hand@acme.example";
    access.users.push({ name: "added-by-hand", email, firstName: "Added", lastName: "Hand" });
    const [into, ...others] = access.integrations;
    const entitlement = into!.members[0]!.entitlements[0]!;
    into!.members.push({ user: email, role: "account_collaborator", entitlements: [entitlement] });
    await fs.promises.writeFile(file, formatAccessFile(access));
    try {
      const before = service.requests.length;
      // No id recorded for the new user: that integration's members are known only once the users are made.
      expect(changes((await stack.preview("--json")).stdout)).toEqual([
        `update IntegrationMembers ${into!.name}`,
        "update WorkspaceUsers users",
      ]);
      expect(writesOf(service.requests.slice(before))).toEqual([]);
      const up = service.requests.length;
      await stack.up();
      const user = service.users.findByEmail(email)!;
      expect(writesOf(service.requests.slice(up))).toEqual(["POST /users", `POST /integrations/${into!.id}/users`]);
      expect(service.integrations.members(into!.id).find((m) => m.userId === user.id)?.entitlements).toEqual([entitlement]);
      expect(others.length).toBeGreaterThan(0);
      await stack.preview("--expect-no-changes");
    } finally {
      // Back as exported: the member is removed, the user (made by this stack) deleted.
      await fs.promises.writeFile(file, yaml);
      await stack.up();
    }
    expect(service.users.findByEmail(email)).toBeUndefined();
  });

  // Where the users change too, their ids are known only in the up, which checks each member's before its integration is written.
  it("an id access.yaml records that the workspace's user of that email no longer has fails the preview and the up, naming it, with no write", async () => {
    const file = path.join(dir, "access.yaml");
    const yaml = await fs.promises.readFile(file, "utf8");
    const access = parseAccessFile(yaml);
    const user = access.users.find((u) => access.memberships.some((m) => m.user === u.email))!;
    const stale = "7a5e0000-0000-4000-8000-0000000ffff1";
    const real = user.id;
    user.id = stale;
    await fs.promises.writeFile(file, formatAccessFile(access));
    try {
      const before = service.requests.length;
      const said = `access.yaml records ${user.email} as the user ${stale}; the workspace's ${user.email} is the user ${real}. Set that user's id`;
      const preview = await stack.run(["preview"], { allowFailure: true });
      expect(preview.code).not.toBe(0);
      expect(preview.output).toContain(said);
      // An up checks every member's id before any integration is written: none is.
      const up = await stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
      expect(up.code).not.toBe(0);
      expect(up.output).toContain(said);
      expect(writesOf(service.requests.slice(before))).toEqual([]);
      // With other edits pending, a user's and another integration's new member: the preview cannot see the stale id
      // (the users change); the up makes the users' change, then fails before any membership is written.
      const other = access.users.find((u) => u !== user && u.id !== undefined)!;
      other.lastName = "Edited";
      const elsewhere = access.integrations.find((g) => !g.members.some((m) => m.user === user.email)) ?? access.integrations[0]!;
      const joiner = access.users.find((u) => u !== user && !elsewhere.members.some((m) => m.user === u.email))!;
      elsewhere.members.push({ user: joiner.email, role: "account_collaborator", entitlements: [elsewhere.members[0]!.entitlements[0]!] });
      await fs.promises.writeFile(file, formatAccessFile(access));
      const edited = service.requests.length;
      const upAll = await stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
      expect(upAll.code).not.toBe(0);
      expect(upAll.output).toContain(said);
      expect(writesOf(service.requests.slice(edited))).toEqual([`PUT /users/${other.id}`]);
    } finally {
      await fs.promises.writeFile(file, yaml);
      const original = parseAccessFile(yaml).users.find((u) => u.lastName !== "Edited" && service.users.get(u.id!)?.lastName === "Edited");
      if (original) service.users.update(original.id!, { lastName: original.lastName });
    }
  });

  it("a User of an email the WorkspaceUsers manages fails the program, naming both, with no write", async () => {
    const email = service.users.list()[0]!.email;
    const index = path.join(dir, "index.ts");
    const program = await fs.promises.readFile(index, "utf8");
    await fs.promises.writeFile(
      index,
      `${program}\nnew wa.User("twin", { email: ${JSON.stringify(email)}, firstName: "T", lastName: "W" });\n`,
    );
    try {
      const before = service.requests.length;
      const result = await stack.run(["preview"], { allowFailure: true });
      expect(result.code).not.toBe(0);
      // Each named with its class: the set is not one of two "User resources".
      expect(result.output).toMatch(
        /(User "twin" and WorkspaceUsers "users"|WorkspaceUsers "users" and User "twin") both manage the user with the email/,
      );
      expect(writesOf(service.requests.slice(before))).toEqual([]);
    } finally {
      await fs.promises.writeFile(index, program);
    }
  });
});
