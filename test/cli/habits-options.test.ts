/**
 * Pulumi's resource options and commands on the package's resources, through the real `pulumi`
 * CLI, one stack for them all: `protect`, `retainOnDelete`, `ignoreChanges`, `aliases`,
 * `dependsOn`, `--target`, `pulumi state delete` then adoption, a key rotation (the first refresh
 * after it is refused, saying what to run), and destroy giving back what the stack adopted or
 * what is a workspace owner. Each step asserts on what the emulator received.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES, DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { writesOf } from "./support.ts";
import { cliAvailable, dynamicResources, skipNote } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const person = (name: string, last: string) =>
  `email: "${name}@example.com", firstName: "${name[0]?.toUpperCase()}${name.slice(1)}", lastName: ${last}`;

const program = `${programHeader({ GRACE: users.grace, SLACK: integrations.slack, ALAN: users.alan, YOUTUBE: integrations.youtube })}
// The workspace's owner, adopted: destroy leaves it.
new wa.User("ada", { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", adoptExisting: true });
new wa.User("bob", { ${person("bob", `config.get("bobLast") ?? "Stone"`)} }, { protect: flag("protect") });
new wa.User("carol", { ${person("carol", `"Reed"`)} }, { retainOnDelete: true });
new wa.User("dave", {
  email: "dave@example.com", firstName: config.get("daveFirst") ?? "Dave", lastName: "Jones", role: "workspace_super_admin",
}, { ignoreChanges: ["lastName", "role"] });
const erin = flag("renamed")
  ? new wa.User("erin-renamed", { ${person("erin", `"Moss"`)} }, { aliases: [{ name: "erin" }] })
  : new wa.User("erin", { ${person("erin", `"Moss"`)} });
// No data dependency on erin: only dependsOn orders the invitation after her create.
new wa.IntegrationEntitlement("grace-slack", { integrationId: SLACK, userId: GRACE, entitlements: ["MEMBER"] }, { dependsOn: [erin] });
new wa.User("frank", { ${person("frank", `config.get("frankLast") ?? "Target"`)} });
new wa.User("gina", { ${person("gina", `"Kept"`)}, adoptExisting: flag("ginaAdopt") });
// An owner the stack creates: destroy leaves it too, unless deleteOnDestroy.
new wa.User("owen", { ${person("owen", `"Owner"`)}, role: "workspace_owner" });
// Renamed without an alias when "moved": the new resources adopt what the old ones made.
const moved = flag("moved");
new wa.User(moved ? "hal-moved" : "hal", { ${person("hal", `"Moved"`)}, adoptExisting: moved });
new wa.IntegrationEntitlement(moved ? "alan-youtube-moved" : "alan-youtube", {
  integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"], adoptExisting: moved,
});
`;

describe.skipIf(!cliAvailable)(
  `Pulumi's resource options and commands, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;
    const idOf = (email: string) => h.emulator.users.findByEmail(email)?.id ?? "";

    beforeAll(async () => {
      h = await habitsStack("habits-options", program);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("dependsOn: the invitation is sent only after the user it depends on was created", async () => {
      const { requests } = await h.step((s) => s.up());
      const erinCreated = requests.findIndex(
        (r) => r.method === "POST" && r.path === "/users" && JSON.stringify(r.body).includes("erin@example.com"),
      );
      const invited = requests.findIndex((r) => r.method === "POST" && r.path === `/integrations/${integrations.slack}/users`);
      expect(erinCreated).toBeGreaterThanOrEqual(0);
      expect(invited).toBeGreaterThan(erinCreated);
      // ada was adopted with nothing to change: never written.
      expect(writesOf(requests).filter((w) => w.includes(users.ada))).toEqual([]);
    });

    it("ignoreChanges: an edit in the service to an ignored property is left alone (the same edit elsewhere is undone)", async () => {
      h.emulator.users.update(idOf("dave@example.com"), { lastName: "Changed" });
      h.emulator.users.update(idOf("frank@example.com"), { lastName: "Changed" });
      const { requests } = await h.step((s) => s.up("--refresh"));
      expect(writesOf(requests)).toEqual([`PUT /users/${idOf("frank@example.com")}`]);
      expect(h.emulator.users.findByEmail("dave@example.com")?.lastName).toBe("Changed");
      expect(h.emulator.users.findByEmail("frank@example.com")?.lastName).toBe("Target");
    });

    it("ignoreChanges: an update of another property does not write an ignored one back (a demotion by hand stays)", async () => {
      const dave = idOf("dave@example.com");
      h.emulator.users.update(dave, { role: "workspace_login_only", lastName: "Again" });
      await h.stack.setConfig("habits-options:daveFirst", "David");
      const { requests } = await h.step((s) => s.up());
      expect(writesOf(requests)).toEqual([`PUT /users/${dave}`]);
      expect(h.emulator.users.get(dave)).toMatchObject({ firstName: "David", lastName: "Again", role: "workspace_login_only" });
      // What was left unsent causes no diff of its own in the next up; a refresh reads the service's values into the
      // state, and ignoreChanges then keeps them.
      const again = await h.step((s) => s.up());
      expect(writesOf(again.requests)).toEqual([]);
      const refreshed = await h.step((s) => s.refresh());
      expect(refreshed.run.output).toMatch(/User dave updated .*\[diff: ~lastName,role\]/);
      expect(writesOf((await h.step((s) => s.up("--expect-no-changes"))).requests)).toEqual([]);
    });

    it("a role the program leaves out: a member made an owner by hand is neither replaced nor demoted by up --refresh", async () => {
      const grace = () => h.emulator.integrations.members(integrations.slack).find((m) => m.userId === users.grace);
      h.emulator.integrations.setMember(integrations.slack, users.grace, { role: "owner", entitlements: ["MEMBER"] });
      const { requests } = await h.step((s) => s.up("--refresh"));
      expect(writesOf(requests)).toEqual([]);
      expect(grace()).toMatchObject({ role: "owner", entitlements: ["MEMBER"] });
    });

    it("aliases: renaming a resource with an alias plans no replacement and writes nothing", async () => {
      await h.stack.setConfig("habits-options:renamed", "true");
      const preview = await h.step((s) => s.preview("--diff"));
      expect(preview.run.output).not.toMatch(/to create|to delete|to replace|to update/);
      const up = await h.step((s) => s.up());
      expect(writesOf(up.requests)).toEqual([]);
      const urns = dynamicResources(await h.stack.exportState()).map((r) => r.urn);
      expect(urns).toContain(h.urn("User", "erin-renamed"));
      expect(urns).not.toContain(h.urn("User", "erin"));
    });

    it("--target: up of one resource changes only that one", async () => {
      await h.stack.setConfig("habits-options:frankLast", "Targeted");
      await h.stack.setConfig("habits-options:bobLast", "Stoner");
      const { requests } = await h.step((s) => s.up("--target", h.urn("User", "frank")));
      expect(writesOf(requests)).toEqual([`PUT /users/${idOf("frank@example.com")}`]);
      expect(h.emulator.users.findByEmail("bob@example.com")?.lastName).toBe("Stone");
    });

    it("protect: a protected resource is not deleted, and nothing is sent for it", async () => {
      await h.stack.setConfig("habits-options:protect", "true");
      await h.stack.up();
      expect(h.emulator.users.findByEmail("bob@example.com")?.lastName).toBe("Stoner");
      const destroy = await h.step((s) =>
        s.run(["destroy", "--yes", "--skip-preview", "--target", h.urn("User", "bob")], { allowFailure: true }),
      );
      expect(destroy.run.code).not.toBe(0);
      expect(destroy.run.output).toContain("protected");
      expect(writesOf(destroy.requests)).toEqual([]);
      expect(h.emulator.users.findByEmail("bob@example.com")).toBeDefined();
      // Unprotected by the next step's up (one up fewer).
      await h.stack.setConfig("habits-options:protect", "false");
    });

    it("pulumi state delete, then adoptExisting: the user is taken back with no write", async () => {
      const gina = idOf("gina@example.com");
      await h.stack.run(["state", "delete", h.urn("User", "gina"), "--yes"]);
      expect(h.emulator.users.get(gina)).toBeDefined();
      await h.stack.setConfig("habits-options:ginaAdopt", "true");
      const { requests } = await h.step((s) => s.up());
      expect(writesOf(requests)).toEqual([]);
      const state = dynamicResources(await h.stack.exportState());
      expect(state.find((r) => r.urn === h.urn("User", "gina"))?.id).toBe(gina);
    });

    it("key rotation: the first refresh after the old key is revoked is refused, saying to run up first; up, then refresh, work", async () => {
      const newKey = `wa_emu_${randomBytes(16).toString("hex")}`;
      h.emulator.addKey(newKey, [...ALL_SCOPES]);
      // Revoked: the old key keeps no scope, and a missing scope answers 401 as an expired key does.
      h.emulator.addKey(h.emulator.apiKey, []);
      h.emulator.setMissingScopeStatus(401);
      await h.stack.setConfig("workspace-access:apiKey", { secret: newKey });
      const refused = await h.step((s) => s.run(["refresh", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(refused.run.code).not.toBe(0);
      expect(refused.run.output).toContain("run pulumi up (or pulumi refresh --run-program) first");
      for (const run of [refused.run]) expect(run.output.includes(newKey) || run.output.includes(h.emulator.apiKey)).toBe(false);
      const up = await h.step((s) => s.up());
      expect(up.requests.every((r) => r.status !== 401)).toBe(true);
      const refresh = await h.step((s) => s.refresh("--expect-no-changes"));
      expect(refresh.requests.length).toBeGreaterThan(0);
      expect(refresh.requests.every((r) => r.status !== 401)).toBe(true);
    });

    it("a rename without an alias, the new resources adopting, then up --target of them: a later up's delete of the old ones leaves the records", async () => {
      const hal = idOf("hal@example.com");
      const alanYoutube = () => h.emulator.integrations.members(integrations.youtube).find((m) => m.userId === users.alan);
      await h.stack.setConfig("habits-options:moved", "true");
      const targets = [h.urn("User", "hal-moved"), h.urn("IntegrationEntitlement", "alan-youtube-moved")];
      const adopted = await h.step((s) => s.up(...targets.flatMap((urn) => ["--target", urn])));
      expect(writesOf(adopted.requests)).toEqual([]);
      // The old resources are still in the state (not targeted): this up deletes them, in a deployment of its own.
      const { run, requests } = await h.step((s) => s.up());
      expect(run.output).toMatch(/2 deleted/);
      expect(writesOf(requests)).toEqual([]);
      expect(h.emulator.users.get(hal)).toBeDefined();
      expect(alanYoutube()).toMatchObject({ entitlements: ["VIEWER"] });
    });

    it("retainOnDelete, adoption and owners: destroy deletes what the stack created, and leaves the rest (a workspace or integration owner too) with a warning", async () => {
      const kept = ["ada", "carol", "gina", "owen"].map((n) => idOf(`${n}@example.com`));
      const gone = ["bob", "dave", "erin", "frank"].map((n) => idOf(`${n}@example.com`));
      const { run, requests } = await h.step((s) => s.destroy());
      // grace-slack's member was made an owner of Slack by hand (above), a role the program never declared: left too.
      expect(writesOf(requests).sort()).toEqual(gone.map((id) => `DELETE /users/${id}`).sort());
      expect(h.emulator.integrations.members(integrations.slack).find((m) => m.userId === users.grace)?.role).toBe("owner");
      expect(run.output).toContain(
        `The membership of user ${users.grace} (grace@example.com) in integration ${integrations.slack} is left`,
      );
      for (const id of kept) expect(h.emulator.users.get(id), id).toBeDefined();
      expect(run.output).toContain(`User ${users.ada} (ada@example.com) is left in the workspace as it is: the stack adopted it`);
      expect(run.output).toContain(`User ${kept[2]} (gina@example.com) is left in the workspace as it is: the stack adopted it`);
      expect(run.output).toContain(`User ${kept[3]} (owen@example.com) is left in the workspace as it is: it is a workspace owner`);
      expect(dynamicResources(await h.stack.exportState())).toEqual([]);
    });
  },
);
