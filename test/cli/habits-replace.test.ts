/**
 * Replacements of records that cannot coexist, through the real `pulumi` CLI. A forced
 * `pulumi up --replace` never asks the provider's diff, so the classes default the resource option
 * `deleteBeforeReplace` to true: a `User` (two users cannot share an email), an
 * `IntegrationEntitlement` and an `IntegrationMembers` (a user has one membership of an
 * integration) are deleted first, then created. `pulumi preview --show-replacement-steps` shows the order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { writesOf } from "./support.ts";
import { cliAvailable, dynamicResources, skipNote } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, YOUTUBE: integrations.youtube, SLACK: integrations.slack })}
const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
new wa.IntegrationEntitlement(
  "member-youtube",
  { integrationId: YOUTUBE, userId: config.get("member") ?? ALAN, entitlements: ["VIEWER"] },
  flag("createFirst") ? { deleteBeforeReplace: false } : {},
);
new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: alice.id, entitlements: ["MEMBER"] }] });
`;

/** The steps of `pulumi preview --json` for one URN, as their operations in order. */
function stepsFor(json: string, urn: string): string[] {
  const preview = JSON.parse(json) as { steps?: Array<{ op: string; urn: string }> };
  return (preview.steps ?? []).filter((s) => s.urn === urn).map((s) => s.op);
}

const DELETE_FIRST = ["delete-replaced", "replace", "create-replacement"];

describe.skipIf(!cliAvailable)(
  `replacements that cannot coexist delete first, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let h: HabitsStack;
    let alice: string;
    let member: string;
    let slack: string;

    beforeAll(async () => {
      h = await habitsStack("habits-replace", program);
      alice = h.urn("User", "alice");
      member = h.urn("IntegrationEntitlement", "member-youtube");
      slack = h.urn("IntegrationMembers", "slack");
      await h.stack.up();
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("pulumi preview --replace shows each forced replacement as delete first, and writes nothing", async () => {
      for (const urn of [alice, member, slack]) {
        const preview = await h.step((s) => s.preview("--json", "--show-replacement-steps", "--replace", urn));
        expect(stepsFor(preview.run.stdout, urn), urn).toEqual(DELETE_FIRST);
        expect(writesOf(preview.requests)).toEqual([]);
      }
    });

    it("up --replace of a User deletes it, then creates it again (the email is free by then)", async () => {
      const before = h.emulator.users.findByEmail("alice@example.com")?.id;
      const { requests } = await h.step((s) => s.up("--replace", alice));
      const after = h.emulator.users.findByEmail("alice@example.com")?.id;
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
      const writes = writesOf(requests);
      expect(writes.indexOf(`DELETE /users/${before}`)).toBeGreaterThanOrEqual(0);
      expect(writes.indexOf(`DELETE /users/${before}`)).toBeLessThan(writes.indexOf("POST /users"));
      // The Slack members follow the new id.
      expect(h.emulator.integrations.members(integrations.slack).map((m) => m.userId)).toContain(after);
      await h.stack.preview("--expect-no-changes");
    });

    it("up --replace of an IntegrationEntitlement and of an IntegrationMembers removes the member, then invites again", async () => {
      const one = await h.step((s) => s.up("--replace", member));
      expect(writesOf(one.requests)).toEqual([
        `DELETE /integrations/${integrations.youtube}/users/${users.alan}`,
        `POST /integrations/${integrations.youtube}/users`,
      ]);
      const aliceId = h.emulator.users.findByEmail("alice@example.com")?.id;
      const all = await h.step((s) => s.up("--replace", slack));
      expect(writesOf(all.requests)).toEqual([
        `DELETE /integrations/${integrations.slack}/users/${aliceId}`,
        `POST /integrations/${integrations.slack}/users`,
      ]);
      const state = dynamicResources(await h.stack.exportState());
      expect(state.map((r) => r.urn).sort()).toEqual([alice, member, slack].sort());
    });

    it("up --replace of a record its delete leaves (an owner made by hand) takes it back: no failure, nothing removed", async () => {
      // The delete leaves an owner the program did not declare; the create that follows in the same up used to fail on it
      // ("already a member", a 409 for the user), and the resource was gone from the state.
      const aliceId = h.emulator.users.findByEmail("alice@example.com")?.id as string;
      h.emulator.users.update(aliceId, { role: "workspace_owner" });
      h.emulator.integrations.setMember(integrations.youtube, users.alan, { role: "owner", entitlements: ["VIEWER"] });
      const user = await h.step((s) => s.up("--replace", alice));
      expect(writesOf(user.requests)).toEqual([]);
      expect(h.emulator.users.findByEmail("alice@example.com")).toMatchObject({ id: aliceId, role: "workspace_owner" });
      const one = await h.step((s) => s.up("--replace", member));
      expect(writesOf(one.requests)).toEqual([]);
      const alan = h.emulator.integrations.members(integrations.youtube).find((m) => m.userId === users.alan);
      expect(alan).toMatchObject({ role: "owner", entitlements: ["VIEWER"] });
      const state = dynamicResources(await h.stack.exportState());
      expect(state.map((r) => r.urn).sort()).toEqual([alice, member, slack].sort());
      // Taken back as the program's own, not adopted: the state says what the deleted resource's did.
      expect(state.find((r) => r.urn === member)?.outputs).toMatchObject({ adopted: false, role: "account_owner" });
      expect(state.find((r) => r.urn === alice)?.outputs).toMatchObject({ adopted: false, role: "workspace_owner" });
      await h.stack.preview("--expect-no-changes");
      h.emulator.users.update(aliceId, { role: "workspace_login_only" });
      h.emulator.integrations.setMember(integrations.youtube, users.alan, { role: "collaborator", entitlements: ["VIEWER"] });
      await h.stack.refresh();
    });

    it("a replacement that changes the user deletes first too under the default; deleteBeforeReplace: false keeps create-first", async () => {
      // The engine lets the resource option override the provider's diff, and the class cannot tell
      // a key change from a forced replace: both delete first (docs/pulumi-habits.md).
      await h.stack.setConfig("habits-replace:member", users.katherine);
      const preview = await h.step((s) => s.preview("--json", "--show-replacement-steps"));
      expect(stepsFor(preview.run.stdout, member)).toEqual(DELETE_FIRST);
      const up = await h.step((s) => s.up());
      expect(writesOf(up.requests)).toEqual([
        `DELETE /integrations/${integrations.youtube}/users/${users.alan}`,
        `POST /integrations/${integrations.youtube}/users`,
      ]);

      // The program's own deleteBeforeReplace: false: the new membership first, then the old one goes.
      await h.stack.setConfig("habits-replace:createFirst", "true");
      await h.stack.setConfig("habits-replace:member", users.alan);
      const createFirst = await h.step((s) => s.preview("--json", "--show-replacement-steps"));
      expect(stepsFor(createFirst.run.stdout, member)).toEqual(["create-replacement", "replace", "delete-replaced"]);
      const again = await h.step((s) => s.up());
      expect(writesOf(again.requests)).toEqual([
        `POST /integrations/${integrations.youtube}/users`,
        `DELETE /integrations/${integrations.youtube}/users/${users.katherine}`,
      ]);
    });
  },
);
