/**
 * Pulumi's commands on the package's four resources, through the real `pulumi` CLI, one small stack: `up --target` of a
 * membership whose User is left out, `refresh --target` and `up --refresh` after edits made by hand, `pulumi import` (the
 * command, which cannot reach a dynamic provider), `pulumi state delete` of every resource then `up` (refused clearly or
 * adopted, never duplicated, nothing removed), and `destroy --target` of a User a membership depends on, with `deletedWith`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ SLACK: integrations.slack, YOUTUBE: integrations.youtube, ALAN: users.alan, KATHERINE: users.katherine })}
const kim = new wa.User("kim", {
  email: "kim@example.com", firstName: "Kim", lastName: "Lee", adoptExisting: flag("kimAdopt"), deleteOnDestroy: flag("kimDelete") || undefined,
});
new wa.IntegrationEntitlement(
  "kim-youtube", { integrationId: YOUTUBE, userId: kim.id, entitlements: ["VIEWER"], adoptExisting: flag("entAdopt") }, { deletedWith: kim },
);
new wa.IntegrationMembers("slack", {
  integrationId: SLACK, members: [{ userId: ALAN, entitlements: ["MEMBER"] }, { userId: KATHERINE, entitlements: ["MEMBER"] }],
});
new wa.WorkspaceUsers("team", { users: [{ email: "lee@example.com", firstName: "Lee", lastName: "Park" }] });
`;

describe.skipIf(!cliAvailable)(
  `Pulumi's commands on the four resources, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;
    const idOf = (email: string) => h.emulator.users.findByEmail(email)?.id ?? "";
    const members = (integration: string) =>
      Object.fromEntries(h.emulator.integrations.members(integration).map((m) => [m.userId, [...m.entitlements].sort()]));
    const state = async () => dynamicResources(await h.stack.exportState());
    const failing = { allowFailure: true };

    beforeAll(async () => {
      h = await habitsStack("habits-commands", program);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("up --target of a membership whose User is left out fails naming userId and the fix, writing nothing", async () => {
      const { run, requests } = await h.step((s) =>
        s.run(["up", "--yes", "--skip-preview", "--target", h.urn("IntegrationEntitlement", "kim-youtube")], failing),
      );
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("userId is not set: when it comes from another resource");
      expect(run.output).toContain("target that resource too, or run pulumi up without --target");
      expect(writesOf(requests)).toEqual([]);
      expect(idOf("kim@example.com")).toBe("");
      // The whole up then creates everything: kim, her invitation, lee, katherine's invitation into Slack.
      const up = await h.step((s) => s.up());
      expect(writesOf(up.requests).sort()).toEqual(
        [
          "POST /users",
          "POST /users",
          `POST /integrations/${integrations.youtube}/users`,
          `POST /integrations/${integrations.slack}/users`,
        ].sort(),
      );
      expect(members(integrations.youtube)[idOf("kim@example.com")]).toEqual(["VIEWER"]);
    });

    it("refresh --target drops a membership removed by hand, writing nothing; the next up invites it again", async () => {
      const kim = idOf("kim@example.com");
      h.emulator.integrations.removeMember(integrations.youtube, kim);
      const refresh = await h.step((s) => s.refresh("--target", h.urn("IntegrationEntitlement", "kim-youtube")));
      expect(refresh.run.output).toMatch(/1 deleted/);
      expect(writesOf(refresh.requests)).toEqual([]);
      // Only the targeted resource was read (the member, then whether the user and the integration are still there).
      expect(refresh.requests.some((r) => r.path.includes(integrations.slack))).toBe(false);
      const up = await h.step((s) => s.up());
      expect(writesOf(up.requests)).toEqual([`POST /integrations/${integrations.youtube}/users`]);
      expect(members(integrations.youtube)[kim]).toEqual(["VIEWER"]);
    });

    it("up --refresh after edits by hand: a managed set is restored, a member added by hand is left alone", async () => {
      h.emulator.integrations.setMember(integrations.slack, users.katherine, { role: "collaborator", entitlements: ["MEMBER", "ADMIN"] });
      h.emulator.integrations.setMember(integrations.slack, users.grace, { role: "collaborator", entitlements: ["MEMBER"] });
      h.emulator.integrations.setMember(integrations.youtube, idOf("kim@example.com"), { role: "collaborator", entitlements: ["EDITOR"] });
      const { requests } = await h.step((s) => s.up("--refresh"));
      expect(writesOf(requests).sort()).toEqual([
        `PATCH /integrations/${integrations.youtube}/users/${idOf("kim@example.com")}`,
        `PATCH /integrations/${integrations.slack}/users/${users.katherine}`,
      ]);
      expect(members(integrations.slack)).toMatchObject({ [users.katherine]: ["MEMBER"], [users.grace]: ["MEMBER"] });
      expect(members(integrations.youtube)[idOf("kim@example.com")]).toEqual(["VIEWER"]);
      h.emulator.integrations.removeMember(integrations.slack, users.grace);
    });

    it("state delete of every resource, then pulumi import (the command): refused by the engine, nothing written or recorded", async () => {
      const kim = idOf("kim@example.com");
      for (const [type, name] of [
        ["IntegrationEntitlement", "kim-youtube"],
        ["User", "kim"],
        ["IntegrationMembers", "slack"],
        ["WorkspaceUsers", "team"],
      ] as const) {
        await h.stack.run(["state", "delete", h.urn(type, name), "--yes"]);
      }
      expect(await state()).toEqual([]);
      for (const [type, name, id] of [
        ["User", "kim", kim],
        ["IntegrationEntitlement", "kim-youtube", `${integrations.youtube}/${kim}`],
        ["IntegrationMembers", "slack", integrations.slack],
        ["WorkspaceUsers", "team", "workspace-users"],
      ] as const) {
        const { run, requests } = await h.step((s) =>
          s.run(["import", `pulumi-nodejs:dynamic/workspace-access:${type}`, name, id, "--yes", "--skip-preview"], failing),
        );
        expect(run.code, type).not.toBe(0);
        // The engine's read of an import carries no __provider (pulumi/pulumi#3550): the host fails before the package runs.
        expect(run.output, type).toContain("code must be a string");
        expect(requests, type).toEqual([]);
      }
      expect(await state()).toEqual([]);
    });

    it("then up: the User's create is refused naming adoptExisting, the sets are taken over; nothing duplicated or removed", async () => {
      const kim = idOf("kim@example.com");
      const before = { users: h.emulator.users.list().length, youtube: members(integrations.youtube), slack: members(integrations.slack) };
      const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview", "--continue-on-error"], failing));
      expect(up.run.code).not.toBe(0);
      expect(up.run.output).toContain(
        `A user with the email kim@example.com already exists. It conflicts with the current state of the workspace. That user's id is ${kim}. To manage that user with this resource, set adoptExisting: true.`,
      );
      expect(up.run.output).toContain("WorkspaceUsers adopted 1 existing user(s) of those added, and created 0.");
      // The refused POST is the only write; its membership waits for the user (the engine skips it).
      expect(writesOf(up.requests)).toEqual(["POST /users"]);
      expect(h.emulator.users.list().length).toBe(before.users);
      expect(members(integrations.slack)).toEqual(before.slack);
      const slack = (await state()).find((r) => r.urn === h.urn("IntegrationMembers", "slack"));
      expect(slack?.outputs?.["adoptedMembers"]).toEqual([users.alan, users.katherine].sort());

      // kim adopted: her membership's create is refused the same way, naming adoptExisting.
      await h.stack.setConfig("habits-commands:kimAdopt", "true");
      const second = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], failing));
      expect(second.run.code).not.toBe(0);
      expect(second.run.output).toContain("adoptExisting: true");
      expect(writesOf(second.requests)).toEqual([]);
      await h.stack.setConfig("habits-commands:entAdopt", "true");
      const third = await h.step((s) => s.up());
      expect(writesOf(third.requests)).toEqual([]);
      expect(members(integrations.youtube)).toEqual(before.youtube);
      expect((await state()).map((r) => r.id).sort()).toEqual(
        [kim, `${integrations.youtube}/${kim}`, integrations.slack, "workspace-users"].sort(),
      );
    });

    it("destroy --target of the User a membership depends on: refused without --target-dependents; with it, deletedWith leaves the membership to the user's delete", async () => {
      const kim = idOf("kim@example.com");
      // The user is adopted now: deleteOnDestroy lets destroy delete her (the state learns it, nothing is sent).
      await h.stack.setConfig("habits-commands:kimDelete", "true");
      expect(writesOf((await h.step((s) => s.up())).requests)).toEqual([]);
      const refused = await h.step((s) => s.run(["destroy", "--yes", "--skip-preview", "--target", h.urn("User", "kim")], failing));
      expect(refused.run.code).not.toBe(0);
      expect(refused.run.output).toContain("pass --target-dependents to proceed");
      expect(writesOf(refused.requests)).toEqual([]);
      const { requests } = await h.step((s) => s.destroy("--target", h.urn("User", "kim"), "--target-dependents"));
      expect(writesOf(requests)).toEqual([`DELETE /users/${kim}`]);
      expect(members(integrations.youtube)[kim]).toBeUndefined();
      expect((await state()).map((r) => r.urn).sort()).toEqual(
        [h.urn("IntegrationMembers", "slack"), h.urn("WorkspaceUsers", "team")].sort(),
      );
    });

    it("destroy leaves what the state delete turned into adoptions: the Slack members and lee stay, with a warning", async () => {
      const lee = idOf("lee@example.com");
      const slack = members(integrations.slack);
      const { run, requests } = await h.step((s) => s.destroy());
      expect(writesOf(requests)).toEqual([]);
      expect(members(integrations.slack)).toEqual(slack);
      expect(h.emulator.users.get(lee)).toBeDefined();
      expect(run.output).toContain(`Integration ${integrations.slack}: 2 adopted member(s) left as they are`);
      expect(run.output).toContain("WorkspaceUsers left 1 user(s) in the workspace, the stack no longer manages them: lee@example.com.");
      expect(await state()).toEqual([]);
    });
  },
);
