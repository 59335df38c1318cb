/**
 * `retainOnDelete` on a replacement, and `aliases` moving a resource under a component, through the real `pulumi` CLI.
 * The engine skips a retained resource's provider delete on a replacement as on a destroy: the create that follows finds
 * the record still there. The classes pass the option as a hidden input: a role change of a retained membership is refused
 * at preview, and a forced replacement's failure says how to take the record back (adoptExisting), which the tests run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, YOUTUBE: integrations.youtube })}
new wa.IntegrationEntitlement(
  "alan-youtube",
  { integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"], role: (config.get("role") ?? "account_collaborator") as any },
  { retainOnDelete: !flag("releaseAlan") },
);
new wa.User(
  "rita",
  { email: "rita@example.com", firstName: "Rita", lastName: "Kept", adoptExisting: flag("ritaAdopt") },
  { retainOnDelete: true },
);
const moeArgs = { email: "moe@example.com", firstName: "Moe", lastName: "Moved" };
if (flag("moved")) {
  const team = new pulumi.ComponentResource("acme:index:Team", "team");
  new wa.User("moe", moeArgs, { parent: team, aliases: [{ parent: pulumi.rootStackResource }] });
} else {
  new wa.User("moe", moeArgs);
}
`;

describe.skipIf(!cliAvailable)(
  `retainOnDelete on replacements, aliases to a parent, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;

    beforeAll(async () => {
      h = await habitsStack("habits-retain", program);
      await h.stack.up();
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("aliases: moving a User under a component with an alias to its old parent plans nothing and writes nothing", async () => {
      await h.stack.setConfig("habits-retain:moved", "true");
      const preview = await h.step((s) => s.preview("--diff"));
      // The component is new; the User it now parents is unchanged.
      expect(preview.run.output).toMatch(/\+ 1 to create/);
      expect(preview.run.output).not.toMatch(/to delete|to replace|to update/);
      const up = await h.step((s) => s.up());
      expect(writesOf(up.requests)).toEqual([]);
      const moe = dynamicResources(await h.stack.exportState()).find((r) => r.urn.endsWith("::moe"));
      expect(moe?.urn).toContain("acme:index:Team$pulumi-nodejs:dynamic/workspace-access:User::moe");
    });

    it("retainOnDelete: a declared role change of an IntegrationEntitlement (a replacement) is refused at preview, nothing sent", async () => {
      const urn = h.urn("IntegrationEntitlement", "alan-youtube");
      const alan = () => h.emulator.integrations.members(integrations.youtube).find((m) => m.userId === users.alan);
      await h.stack.setConfig("habits-retain:role", "account_owner");
      const preview = await h.step((s) => s.run(["preview"], { allowFailure: true }));
      expect(preview.run.code).not.toBe(0);
      expect(preview.run.output).toContain("retainOnDelete: true");
      expect(preview.run.output).toContain("remove retainOnDelete from the resource and run pulumi up");
      const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(up.run.code).not.toBe(0);
      expect(writesOf([...preview.requests, ...up.requests])).toEqual([]);
      expect(alan()?.role).toBe("collaborator");
      const marked = dynamicResources(await h.stack.exportState()).find((r) => r.urn === urn) as { pendingReplacement?: boolean };
      expect(marked?.pendingReplacement ?? false).toBe(false);
      // The way out the message gives: retainOnDelete removed in one up (nothing sent), then the role changed.
      await h.stack.setConfig("habits-retain:role", "account_collaborator");
      await h.stack.setConfig("habits-retain:releaseAlan", "true");
      const released = await h.step((s) => s.up());
      expect(writesOf(released.requests)).toEqual([]);
      await h.stack.setConfig("habits-retain:role", "account_owner");
      await h.stack.up();
      expect(alan()?.role).toBe("owner");
      const back = await h.step((s) => s.up());
      expect(writesOf(back.requests)).toEqual([]);
    });

    it("retainOnDelete: up --replace of a User the stack created fails naming retainOnDelete; adoptExisting takes the user back", async () => {
      const urn = h.urn("User", "rita");
      const rita = h.emulator.users.findByEmail("rita@example.com")?.id;
      const forced = await h.step((s) => s.run(["up", "--yes", "--skip-preview", "--replace", urn], { allowFailure: true }));
      // The engine skipped the retained user's delete: the create's POST answers 409, and the old resource stays marked
      // pendingReplacement, so each plain up fails the same way until the new resource takes the user back.
      expect(forced.run.code).not.toBe(0);
      expect(forced.run.output).toContain("declared with retainOnDelete: true");
      expect(forced.run.output).toContain("set adoptExisting: true on this resource and run pulumi up");
      const next = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(next.run.code).not.toBe(0);
      await h.stack.setConfig("habits-retain:ritaAdopt", "true");
      const adopted = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(adopted.run.code).toBe(0);
      expect(writesOf(adopted.requests)).toEqual([]);
      const state = dynamicResources(await h.stack.exportState()).filter((r) => r.urn === urn) as {
        pendingReplacement?: boolean;
        id?: string;
      }[];
      expect(state.map((r) => ({ id: r.id, pending: r.pendingReplacement ?? false }))).toEqual([{ id: rita, pending: false }]);
      const after = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect({ code: after.run.code, writes: writesOf(after.requests) }).toEqual({ code: 0, writes: [] });
    });
  },
);

const others = `${programHeader({ KATHERINE: users.katherine, YOUTUBE: integrations.youtube, SLACK: integrations.slack })}
const nina = new wa.User("nina", { email: "nina@example.com", firstName: "Nina", lastName: "New" });
new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: nina.id, entitlements: ["MEMBER"] }] }, {
  retainOnDelete: !flag("release"),
});
new wa.IntegrationEntitlement(
  "kat-youtube",
  { integrationId: YOUTUBE, userId: KATHERINE, entitlements: ["VIEWER"], role: (config.get("katRole") ?? "account_collaborator") as any },
  { protect: true },
);
new wa.User("x1", { email: "x1@example.com", firstName: "X", lastName: config.get("x1Last") ?? "One" });
new wa.User("x2", { email: "x2@example.com", firstName: "X", lastName: config.get("x2Last") ?? "Two" });
`;

describe.skipIf(!cliAvailable)(
  `--exclude, protect on a replacement, a retained set replaced, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;
    const idOf = (email: string) => h.emulator.users.findByEmail(email)?.id ?? "";

    beforeAll(async () => {
      h = await habitsStack("habits-others", others);
      await h.stack.up();
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("up --exclude leaves the excluded resource alone and writes the rest", async () => {
      await h.stack.setConfig("habits-others:x1Last", "Uno");
      await h.stack.setConfig("habits-others:x2Last", "Dos");
      const up = await h.step((s) => s.up("--exclude", h.urn("User", "x1")));
      expect(writesOf(up.requests)).toEqual([`PUT /users/${idOf("x2@example.com")}`]);
      expect(h.emulator.users.findByEmail("x1@example.com")?.lastName).toBe("One");
      // Put back: the next up (the protect test's) would otherwise update x1, racing the engine's refusal of the protected replacement.
      await h.stack.setConfig("habits-others:x1Last", "One");
    });

    it("protect: a role change of a protected membership (a replacement) is refused by the engine, nothing sent, the state as it was", async () => {
      // Any provider's role change would be an update in place, which protect allows: here it is a replacement, which it refuses.
      await h.stack.setConfig("habits-others:katRole", "account_owner");
      const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(up.run.code).not.toBe(0);
      expect(up.run.output).toContain("as it is currently marked for protection");
      expect(writesOf(up.requests)).toEqual([]);
      const kat = dynamicResources(await h.stack.exportState()).find((r) => r.urn === h.urn("IntegrationEntitlement", "kat-youtube"));
      expect(kat?.outputs).toMatchObject({ role: "account_collaborator" });
      await h.stack.setConfig("habits-others:katRole", "account_collaborator");
    });

    // Not done: the create cannot tell a member the replaced set invited from one it adopted (a replacement's create gets neither
    // the old state nor a delete to learn it from), and recording an adopted member as its own would let a later destroy
    // remove someone who was there before the stack. So the set records what it found as adopted: this test fails on that.
    it("retainOnDelete: up --replace of an IntegrationMembers records the member it invited as adopted: a later destroy leaves them", async () => {
      const slack = h.urn("IntegrationMembers", "slack");
      // The engine skips the retained set's delete; the create finds the member the set invited and cannot tell them from one
      // who was there before it (it gets no state): it records them adopted (docs/pulumi-habits.md), the safe side.
      await h.stack.up("--replace", slack);
      await h.stack.setConfig("habits-others:release", "true");
      await h.stack.up();
      const destroy = await h.step((s) => s.destroy("--target", slack));
      expect(writesOf(destroy.requests)).toEqual([]);
      expect(destroy.run.output).toContain("before this resource managed them");
    });
  },
);
