/**
 * A service whose job store lags its writes, through the real `pulumi` CLI: every job answers 404 until 300 ms after its write
 * answered with it (the emulator's `job.readableAfterMs`). A first `up` that creates a user (its write answered with a job), an
 * `IntegrationEntitlement` and an `IntegrationMembers` succeeds, each job read again through its 404s, nothing left pending.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, dynamicResources, skipNote } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, KATHERINE: users.katherine, YOUTUBE: integrations.youtube, SLACK: integrations.slack })}
new wa.User("joan", { email: "joan@example.com", firstName: "Joan", lastName: "Clarke" });
new wa.IntegrationEntitlement("alan-youtube", { integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"] });
new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: KATHERINE, entitlements: ["MEMBER"] }] });
`;

describe.skipIf(!cliAvailable)(`a job store that lags its writes, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;

  beforeAll(async () => {
    h = await habitsStack("job-store-lag", program, {}, { job: { finishAfterPolls: 1, readableAfterMs: 300 }, userWritesAsJobs: true });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("a first up creating a user, an IntegrationEntitlement and an IntegrationMembers succeeds, each job waited through its 404s", async () => {
    const { run, requests } = await h.step((s) => s.up());
    expect(run.code).toBe(0);
    const jobs = h.emulator.jobs.list();
    expect(jobs.map((job) => job.status)).toEqual(["finished", "finished", "finished"]);
    for (const job of jobs) {
      const reads = requests.filter((r) => r.path === `/jobs/${job.id}`).map((r) => r.status);
      expect(reads.join(" ")).toMatch(/^(404 )+200$/);
    }
    expect(h.emulator.users.findByEmail("joan@example.com")).toBeDefined();
    expect(h.emulator.integrations.members(integrations.youtube).find((m) => m.userId === users.alan)?.entitlements).toEqual(["VIEWER"]);
    expect(h.emulator.integrations.members(integrations.slack).find((m) => m.userId === users.katherine)?.entitlements).toEqual(["MEMBER"]);
    const states = dynamicResources(await h.stack.exportState());
    expect(states).toHaveLength(3);
    for (const state of states) expect(state.outputs?.pendingInvitations ?? []).toEqual([]);
  });
});
