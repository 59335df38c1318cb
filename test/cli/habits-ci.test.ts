/**
 * What a platform team's CI runs, through the real `pulumi` CLI, on one stack of the four resources: `refresh
 * --expect-no-changes` right after an up, a `pulumi stack export | pulumi stack import` round trip, `refresh --run-program`,
 * `ignoreChanges` then a refresh, `up --replace` of a WorkspaceUsers, `destroy --exclude-protected`, then `pulumi state
 * unprotect` and destroy.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES, DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ SLACK: integrations.slack, YOUTUBE: integrations.youtube, ALAN: users.alan })}
const kim = new wa.User("kim", { email: "kim@example.com", firstName: "Kim", lastName: "Lee" }, { protect: flag("protect") });
new wa.IntegrationEntitlement("kim-youtube", { integrationId: YOUTUBE, userId: kim.id, entitlements: ["VIEWER"] }, { ignoreChanges: ["entitlements"] });
new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: ALAN, entitlements: ["MEMBER"] }] });
new wa.WorkspaceUsers("team", { users: [{ email: "lee@example.com", firstName: "Lee", lastName: "Park" }] });
`;

describe.skipIf(!cliAvailable)(`what CI runs, through the real pulumi CLI${skipNote}`, { timeout: 600_000 }, () => {
  let h: HabitsStack;
  const idOf = (email: string) => h.emulator.users.findByEmail(email)?.id ?? "";
  const state = async () => dynamicResources(await h.stack.exportState());

  beforeAll(async () => {
    h = await habitsStack("habits-ci", program);
    await h.stack.up();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("refresh --expect-no-changes right after up passes, writing nothing; so does preview --expect-no-changes", async () => {
    const refresh = await h.step((s) => s.refresh("--expect-no-changes"));
    expect(writesOf(refresh.requests)).toEqual([]);
    const preview = await h.step((s) => s.preview("--expect-no-changes"));
    expect(writesOf(preview.requests)).toEqual([]);
  });

  it("refresh --run-program --expect-no-changes passes, writing nothing", async () => {
    const refresh = await h.step((s) => s.refresh("--run-program", "--expect-no-changes"));
    expect(writesOf(refresh.requests)).toEqual([]);
  });

  it("stack export | stack import round trip: preview and refresh see no change", async () => {
    const exported = await h.stack.run(["stack", "export"]);
    const file = path.join(h.project.dir, "exported.json");
    fs.writeFileSync(file, exported.stdout);
    await h.stack.run(["stack", "import", "--file", file]);
    await h.stack.preview("--expect-no-changes");
    const refresh = await h.step((s) => s.refresh("--expect-no-changes"));
    expect(writesOf(refresh.requests)).toEqual([]);
  });

  it("ignoreChanges on entitlements, an edit by hand, a refresh: the next preview expects no changes, up writes nothing", async () => {
    const kim = idOf("kim@example.com");
    h.emulator.integrations.setMember(integrations.youtube, kim, { role: "collaborator", entitlements: ["EDITOR"] });
    await h.stack.refresh();
    await h.stack.preview("--expect-no-changes");
    const up = await h.step((s) => s.up());
    expect(writesOf(up.requests)).toEqual([]);
    h.emulator.integrations.setMember(integrations.youtube, kim, { role: "collaborator", entitlements: ["VIEWER"] });
    await h.stack.refresh();
  });

  it("up --replace of a WorkspaceUsers keeps its users as the set held them: one it created is still its own, for destroy to delete", async () => {
    const lee = idOf("lee@example.com");
    const { run, requests } = await h.step((s) => s.up("--replace", h.urn("WorkspaceUsers", "team")));
    expect(run.output).toContain("took back 1 the set it replaces had created (its delete left them), as its own");
    // The delete leaves the user the replacement declares; the create takes it back, writing nothing.
    expect(writesOf(requests)).toEqual([]);
    expect(idOf("lee@example.com")).toBe(lee);
    const team = (await state()).find((r) => r.urn === h.urn("WorkspaceUsers", "team"));
    const held = team?.outputs?.["users"] as Record<string, { id: string; created?: boolean }> | undefined;
    expect(held?.["lee@example.com"]).toMatchObject({ id: lee, created: true });
    await h.stack.preview("--expect-no-changes");
  });

  it("a refresh and a destroy refused by the service print the package's message alone, not the JavaScript stack trace", async () => {
    // The key loses every scope (a missing scope answers 401 as a revoked key does), then gets them back.
    h.emulator.addKey(h.emulator.apiKey, []);
    h.emulator.setMissingScopeStatus(401);
    try {
      const failing = { allowFailure: true };
      const refresh = await h.stack.run(["refresh", "--yes", "--skip-preview"], failing);
      const destroy = await h.stack.run(["destroy", "--yes", "--skip-preview", "--target", h.urn("WorkspaceUsers", "team")], failing);
      for (const run of [refresh, destroy]) {
        expect(run.code).not.toBe(0);
        expect(run.output).toContain("The API key was not accepted");
        expect(run.output).not.toMatch(/^\s+at /m);
        expect(run.output).not.toContain("node_modules");
      }
    } finally {
      h.emulator.addKey(h.emulator.apiKey, [...ALL_SCOPES]);
    }
  });

  it("destroy --exclude-protected leaves the protected User and what depends on it; state unprotect, then destroy removes it", async () => {
    await h.stack.setConfig("habits-ci:protect", "true");
    await h.stack.up();
    const kim = idOf("kim@example.com");
    const lee = idOf("lee@example.com");
    const destroy = await h.step((s) => s.destroy("--exclude-protected"));
    expect(h.emulator.users.get(kim)).toBeDefined();
    expect((await state()).map((r) => r.urn)).toEqual([h.urn("User", "kim")]);
    await h.stack.run(["state", "unprotect", h.urn("User", "kim"), "--yes"]);
    const last = await h.step((s) => s.destroy());
    expect(writesOf(last.requests)).toEqual([`DELETE /users/${kim}`]);
    expect(h.emulator.users.get(kim)).toBeUndefined();
    // lee, whom the set created, went with the first destroy.
    expect(writesOf(destroy.requests)).toContain(`DELETE /users/${lee}`);
    expect(h.emulator.users.findByEmail("lee@example.com")).toBeUndefined();
    expect(await state()).toEqual([]);
  });
});
