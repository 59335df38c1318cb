/**
 * An integration deleted in the service, through the real `pulumi` CLI: `pulumi refresh` drops its `IntegrationEntitlement`
 * and `IntegrationMembers` from the state, as any provider drops a record deleted out of band, with a warning, writing
 * nothing; the next `up` tries to create them and fails naming the integrations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ SLACK: integrations.slack, YOUTUBE: integrations.youtube, ALAN: users.alan, KATHERINE: users.katherine })}
new wa.IntegrationEntitlement("alan-youtube", { integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"] });
new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: KATHERINE, entitlements: ["MEMBER"] }] });
`;

describe.skipIf(!cliAvailable)(
  `an integration deleted in the service, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;
    const types = async () => dynamicResources(await h.stack.exportState()).map((r) => r.type.split(":").at(-1));

    beforeAll(async () => {
      h = await habitsStack("integration-gone", program);
      await h.stack.up();
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("refresh drops both resources with a warning, writing nothing; the next up fails naming each integration", async () => {
      expect((await types()).sort()).toEqual(["IntegrationEntitlement", "IntegrationMembers"]);
      h.emulator.integrations.remove(integrations.youtube);
      h.emulator.integrations.remove(integrations.slack);
      const refresh = await h.step((s) => s.refresh());
      expect(refresh.run.code).toBe(0);
      expect(refresh.run.output).toMatch(/2 deleted/);
      expect(refresh.run.output).toContain(`Integration ${integrations.youtube} no longer exists`);
      expect(refresh.run.output).toContain(`Integration ${integrations.slack} no longer exists`);
      expect(writesOf(refresh.requests)).toEqual([]);
      expect(await types()).toEqual([]);
      // --continue-on-error: the engine starts no create after the first fails, and which fails first is not fixed.
      const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview", "--continue-on-error"], { allowFailure: true }));
      expect(up.run.code).not.toBe(0);
      expect(up.run.output).toContain(`/integrations/${integrations.youtube}/users answered 404`);
      expect(up.run.output).toContain(`/integrations/${integrations.slack}/users`);
      // Nothing landed: the one write tried, the invitation to the gone integration, answered 404.
      expect(up.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `POST /integrations/${integrations.youtube}/users 404`,
      ]);
      expect(await types()).toEqual([]);
    });
  },
);
