/**
 * Scale through the real `pulumi` CLI, at its default `--parallel`: an `IntegrationMembers` of 200
 * members and 50 `IntegrationEntitlement`s of another integration, all users new to both, in one
 * `pulumi up`, then `pulumi refresh --expect-no-changes`. The invitations go out batched (far fewer
 * POSTs than users), and every user ends a member exactly once with the declared set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator/index";
import { appliedPerUser, invitePosts } from "../support/invitations.ts";
import { packedProject } from "../support/packed.ts";
import type { Project } from "../support/project.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { CLI_DEFAULT_PARALLEL, type CliConfigValue, type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

const MEMBERS = 200;
const ENTITLEMENTS = 50;
/** The integration whose whole member set `IntegrationMembers` manages. */
const TEAM = "5b1c0d2e-0000-4000-8000-0000000000a1";
/** The integration of the `IntegrationEntitlement`s (one resource kind per integration). */
const APP = "5b1c0d2e-0000-4000-8000-0000000000a2";
const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
/** Users 0..199 join the team; users 200..249 get an entitlement of the app. */
const entitled = (i: number) => userId(MEMBERS + i);

function world(): EmulatorOptions {
  return {
    seed: {
      users: Array.from({ length: MEMBERS + ENTITLEMENTS }, (_, i) => ({
        id: userId(i),
        email: `u${i}@example.com`,
        firstName: "U",
        lastName: `${i}`,
      })),
      integrations: [
        { id: TEAM, application: "team", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] },
        { id: APP, application: "app", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] },
      ],
    },
    job: { finishAfterPolls: 1 },
  };
}

const program = `import * as wa from "pulumi-workspace-access";
const id = (i: number) => "00000000-0000-4000-8000-" + String(i).padStart(12, "0");
const team = new wa.IntegrationMembers("team", {
  integrationId: "${TEAM}",
  members: Array.from({ length: ${MEMBERS} }, (_, i) => ({ userId: id(i), entitlements: i % 2 === 0 ? ["VIEWER"] : ["VIEWER", "EDITOR"] })),
});
for (let i = 0; i < ${ENTITLEMENTS}; i++) {
  new wa.IntegrationEntitlement("e" + i, { integrationId: "${APP}", userId: id(${MEMBERS} + i), entitlements: ["VIEWER"] });
}
export const managed = team.members.apply((m) => m.length);
export const unmanaged = team.unmanagedMembers.apply((m) => m.length);
`;

const access = (emulator: Emulator): Record<string, CliConfigValue> => ({
  "workspace-access:baseUrl": emulator.url,
  "workspace-access:apiKey": { secret: emulator.apiKey },
});

/** Each integration's members as `userId role:set`, sorted. */
function members(emulator: Emulator, integrationId: string): string[] {
  return emulator.integrations
    .members(integrationId)
    .map((m) => `${m.userId} ${m.role}:${[...m.entitlements].sort().join(",")}`)
    .sort();
}

const expectedTeam = Array.from(
  { length: MEMBERS },
  (_, i) => `${userId(i)} collaborator:${i % 2 === 0 ? "VIEWER" : "EDITOR,VIEWER"}`,
).sort();
const expectedApp = Array.from({ length: ENTITLEMENTS }, (_, i) => `${entitled(i)} collaborator:VIEWER`).sort();

describe.skipIf(!cliAvailable)(
  `IntegrationMembers of ${MEMBERS} and ${ENTITLEMENTS} batched IntegrationEntitlements through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let cliService: Emulator;
    let project: Project;
    let stack: CliStack;
    let ran = false;

    beforeAll(async () => {
      cliService = await startEmulator(world());
      project = await packedProject({ name: "scale", files: { "index.ts": program } });
      stack = await openCliStack({ projectDir: project.dir, config: access(cliService) });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.remove();
      await Promise.all([project?.remove(), cliService?.close()]);
    });

    it("pulumi up invites in batches, every user a member once with the declared set; refresh and preview --expect-no-changes pass", async () => {
      await stack.up();
      const outputs = await stack.outputs();
      const writesBefore = cliService.requests.filter((r) => r.method !== "GET").length;
      await stack.refresh("--expect-no-changes");
      ran = true;
      expect(members(cliService, TEAM)).toEqual(expectedTeam);
      expect(members(cliService, APP)).toEqual(expectedApp);
      const teamPosts = invitePosts(cliService, TEAM);
      const appPosts = invitePosts(cliService, APP);
      // Two sets in the team: one POST per set of 100 users.
      expect(teamPosts.map((p) => p.userIds.length).sort()).toEqual([100, 100]);
      // The 50 creates reach the provider at the CLI's pace (`--parallel`, 4 per CPU by default),
      // not all at once. Some are batched; how well is the known gap below.
      expect(appPosts.length).toBeLessThan(ENTITLEMENTS);
      expect(appPosts.flatMap((p) => p.userIds).sort()).toEqual(Array.from({ length: ENTITLEMENTS }, (_, i) => entitled(i)).sort());
      const applied = appliedPerUser(cliService);
      expect(applied.size).toBe(MEMBERS + ENTITLEMENTS);
      expect([...applied.values()].every((count) => count === 1)).toBe(true);
      expect(outputs).toEqual({ managed: MEMBERS, unmanaged: 0 });
      // The refresh wrote nothing, and nothing is left to do.
      const writes = cliService.requests.filter((r) => r.method !== "GET").length;
      await stack.preview("--expect-no-changes");
      expect(cliService.requests.filter((r) => r.method !== "GET")).toHaveLength(writes);
      expect(writes).toBe(writesBefore);
      console.log(
        `invitation POSTs through the CLI: team ${teamPosts.length}, app ${appPosts.length} (${appPosts.map((p) => p.userIds.length).join(", ")} users)`,
      );
    });

    // Found by this tier: the file backend writes the whole checkpoint after each step, before the
    // engine starts the next, so creates reach the provider one checkpoint apart (tens of ms, more
    // as the state grows). With the batcher's old fixed 10 ms window, 50 creates went out as 15 to 31
    // POSTs of 1 to 6 users (bench/cli.ts, 1,000 creates: 916 POSTs); the window now follows the
    // pace invitations arrive at (src/host/membership/invite-batcher.ts, `paced`).
    it("the 50 creates are invited in batches that grow to --parallel (at most ceil(50 / parallel) + 2 POSTs)", () => {
      expect(ran, "the CLI's run above").toBe(true);
      expect(invitePosts(cliService, APP).length).toBeLessThanOrEqual(Math.ceil(ENTITLEMENTS / CLI_DEFAULT_PARALLEL) + 2);
    });
  },
);
