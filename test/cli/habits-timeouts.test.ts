/**
 * The `customTimeouts` resource option through the real `pulumi` CLI: the engine hands a dynamic provider no operation timeout,
 * so the class passes it as a hidden input and the provider bounds the create's job waits by it (jobTimeoutSeconds is left at
 * its 900 s). A create whose job outlives it fails naming it and records the invitation pending; editing the option alone
 * plans no change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, YOUTUBE: integrations.youtube })}
new wa.IntegrationEntitlement("alan-youtube", { integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"] }, {
  customTimeouts: { create: config.get("createTimeout") ?? "2s", delete: config.get("deleteTimeout") },
});
`;

describe.skipIf(!cliAvailable)(`customTimeouts, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;

  beforeAll(async () => {
    h = await habitsStack("habits-timeouts", program);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("a create whose job outlives customTimeouts.create fails at it, naming it, and records the invitation pending", async () => {
    h.emulator.jobs.hangNext(1);
    const started = Date.now();
    const { run } = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
    // Well before jobTimeoutSeconds' 900 s.
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(run.code).not.toBe(0);
    const job = h.emulator.jobs.list().find((j) => j.status === "running")!;
    expect(run.output).toContain(
      `The job ${job.id} did not finish within this resource's customTimeouts.create, 2s from the start of its create`,
    );
    expect(run.output).toContain("raise customTimeouts.create");
    const [state] = dynamicResources(await h.stack.exportState());
    expect(state?.outputs).toMatchObject({ pendingInvitations: [{ userId: users.alan, jobId: job.id }] });
    // The next up resumes it: the invitation is not sent again.
    h.emulator.jobs.release(job.id);
    const { requests } = await h.step((s) => s.up());
    expect(writesOf(requests)).toEqual([]);
    expect(h.emulator.integrations.members(integrations.youtube).some((m) => m.userId === users.alan)).toBe(true);
  });

  it("editing customTimeouts alone plans no change: the preview shows none, and the up writes nothing", async () => {
    await h.stack.setConfig("habits-timeouts:createTimeout", "1h30m");
    await h.stack.setConfig("habits-timeouts:deleteTimeout", "45s");
    const preview = await h.stack.preview("--expect-no-changes");
    expect(preview.output).not.toMatch(/~ .*update|alan-youtube.*update/);
    const { run, requests } = await h.step((s) => s.up("--expect-no-changes"));
    expect(run.code).toBe(0);
    expect(writesOf(requests)).toEqual([]);
  });
});
