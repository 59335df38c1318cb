/**
 * Transient 5xx on every idempotent method, jobs that fail or hang, and membership drift, each
 * driven through the real `pulumi` CLI against the emulator (issue 6, "Faults").
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator/index.ts";
import { type Scenario, scenarios, stepOf, userProgram } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();

const youtube = DEFAULT_IDS.integrations.youtube;
const seeded = { emulator: { seed: defaultSeed(), job: { finishAfterPolls: 1 } } };
const program = (firstName: string, entitlements: string[]) =>
  userProgram(
    { carol: { email: "carol@example.com", firstName } },
    { carol_youtube: { integrationId: youtube, user: "carol", entitlements } },
  );
const carol = (s: Scenario) => s.emu.users.findByEmail("carol@example.com");
const membership = (s: Scenario) => {
  const user = carol(s);
  return user ? s.emu.integrations.members(youtube).find((m) => m.userId === user.id) : undefined;
};
const statuses = (s: Scenario, method: string) => s.emu.requests.filter((r) => r.method === method).map((r) => r.status);

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  describe("500/502/503/504 on GET, PUT, PATCH and DELETE", () => {
    it("are retried with back-off and then succeed; after the retry budget the error is clear", async () => {
      const s = await start({ program: program("Carol", ["VIEWER"]), ...seeded });
      await s.up();
      expect(membership(s)?.entitlements).toEqual(["VIEWER"]);

      // GET: the refresh's reads get 503 twice, then answers.
      s.emu.clearRequests();
      s.emu.fault({ method: "GET", path: /^\//, status: 503, times: 2 });
      const refresh = await s.refresh();
      expect(refresh.errors).toEqual([]);
      expect(refresh.steps.filter((st) => st.type !== "pulumi:pulumi:Stack" && st.op !== "same")).toEqual([]);
      expect(statuses(s, "GET").slice(0, 2)).toEqual([503, 503]);

      // PUT (the user) and PATCH (the entitlement set): 502 and 504, twice each.
      s.emu.clearRequests();
      s.emu.fault({ method: "PUT", path: /^\/users\//, status: 502, times: 2 });
      s.emu.fault({ method: "PATCH", path: /^\/integrations\//, status: 504, times: 2 });
      s.setProgram(program("Caroline", ["EDITOR", "VIEWER"]));
      const up = await s.up();
      expect(stepOf(up, "carol").op).toBe("update");
      expect(stepOf(up, "carol_youtube").op).toBe("update");
      expect(statuses(s, "PUT")).toEqual([502, 502, 200]);
      expect(statuses(s, "PATCH")).toEqual([504, 504, 200]);
      expect(carol(s)?.firstName).toBe("Caroline");
      expect(membership(s)?.entitlements.sort()).toEqual(["EDITOR", "VIEWER"]);
      // Back-off: the retries were spaced, not sent at once.
      const puts = s.emu.requests.filter((r) => r.method === "PUT");
      expect(puts[1]!.at - puts[0]!.at).toBeGreaterThanOrEqual(200);

      // The retry budget: with maxRetries 1, a lasting 500 fails after one retry, with a clear message.
      s.setConfig("maxRetries", "1");
      s.emu.clearRequests();
      s.emu.fault({ method: "PUT", path: /^\/users\//, status: 500, times: 10 });
      s.setProgram(program("Carrie", ["EDITOR", "VIEWER"]));
      const error = await s.fails("up");
      expect(error.result.failed).toContain("carol");
      expect(error.message).toMatch(/PUT \/api\/v1\/users\/[0-9a-f-]+ answered 500/);
      expect(error.message).toContain("Gave up after 1 retries (workspace-access:maxRetries)");
      expect(statuses(s, "PUT")).toEqual([500, 500]);
      expect(carol(s)?.firstName).toBe("Caroline");
      s.emu.clearFaults();
      s.setConfig("maxRetries", undefined);
      // A destroy configures the provider as the last update left it (the real engine keeps the
      // provider's config in the state): this up records the default retries again.
      await s.up();

      // DELETE: 503 twice on each delete, then destroy completes.
      s.emu.clearRequests();
      s.emu.fault({ method: "DELETE", path: /^\/integrations\//, status: 503, times: 2 });
      s.emu.fault({ method: "DELETE", path: /^\/users\//, status: 503, times: 2 });
      const destroy = await s.destroy();
      expect(destroy.steps.filter((st) => st.type !== "pulumi:pulumi:Stack").map((st) => st.op)).toEqual(["delete", "delete"]);
      expect(statuses(s, "DELETE")).toEqual([503, 503, 200, 503, 503, 204]);
      expect(carol(s)).toBeUndefined();
      expect(s.stack.state().resources).toHaveLength(0);
      // Six CLI runs and their retries: 5 minutes ran out at load 20 on 2 cores.
    }, 600_000);
  });

  describe("jobs", () => {
    it("a job that ends in error fails the operation with errorType, userRequired and the job id", async () => {
      const s = await start({ program: program("Carol", ["VIEWER"]), ...seeded });
      s.emu.jobs.failNext(1, { errorType: "INVITATION_BLOCKED", userRequired: true });
      const error = await s.fails("up");
      const job = s.emu.jobs.list().find((j) => j.status === "error");
      expect(job).toBeDefined();
      expect(error.result.failed).toContain("carol_youtube");
      expect(error.message).toContain(job!.id);
      expect(error.message).toContain("INVITATION_BLOCKED");
      expect(error.message).toContain("userRequired: true");
      expect(membership(s)).toBeUndefined();
    });

    it("a job that never finishes fails at the job timeout naming the job and its last status; the next up resumes", async () => {
      const s = await start({ program: program("Carol", ["VIEWER"]), config: { jobTimeoutSeconds: "0.25" }, ...seeded });
      s.emu.jobs.hangNext(1);
      const began = Date.now();
      const error = await s.fails("up");
      // Well before the default timeout: the 0.25 s one, plus what a `pulumi up` costs on a busy machine.
      expect(Date.now() - began).toBeLessThan(120_000);
      const job = s.emu.jobs.list().find((j) => j.status === "running");
      expect(job).toBeDefined();
      expect(error.message).toContain(`The job ${job!.id} did not finish within 0.25 s (last status: running)`);
      expect(error.message).toContain("workspace-access:jobTimeoutSeconds");
      // Recorded as a partial create, so the next up resumes it instead of starting over.
      const partial = s.stack.state().resources.find((r) => r.name === "carol_youtube");
      expect(partial?.id).toBe(`${youtube}/${carol(s)!.id}`);
      expect(partial?.initErrors.length).toBe(1);

      const up = await s.up();
      expect(stepOf(up, "carol").op).toBe("same");
      expect(stepOf(up, "carol_youtube").op).toBe("update");
      expect(membership(s)?.entitlements).toEqual(["VIEWER"]);
      expect(s.stack.state().resources.find((r) => r.name === "carol_youtube")?.initErrors).toEqual([]);
    });
  });

  describe("membership drift", () => {
    it("refresh reports a membership removed or changed out of band; up restores it; a 404 on delete counts as done", async () => {
      const s = await start({ program: program("Carol", ["VIEWER"]), ...seeded });
      await s.up();
      const userId = carol(s)!.id;

      s.emu.integrations.removeMember(youtube, userId);
      const refresh = await s.refresh();
      expect(stepOf(refresh, "carol_youtube").op).toBe("delete");
      expect(stepOf(refresh, "carol").op).toBe("same");
      const up = await s.up();
      expect(stepOf(up, "carol_youtube").op).toBe("create");
      expect(membership(s)?.entitlements).toEqual(["VIEWER"]);

      s.emu.integrations.setMember(youtube, userId, { entitlements: ["MANAGER"] });
      const refreshed = await s.refresh();
      expect(stepOf(refreshed, "carol_youtube").op).toBe("update");
      const stored = s.stack.state().resources.find((r) => r.name === "carol_youtube");
      expect(stored?.outputs.entitlements).toEqual(["MANAGER"]);
      const restored = await s.up();
      expect(stepOf(restored, "carol_youtube").op).toBe("update");
      expect(membership(s)?.entitlements).toEqual(["VIEWER"]);

      // Removed again behind the stack's back: destroy's DELETE gets 404 and carries on.
      s.emu.integrations.removeMember(youtube, userId);
      s.emu.clearRequests();
      const destroy = await s.destroy();
      expect(destroy.steps.filter((st) => st.type !== "pulumi:pulumi:Stack").map((st) => st.op)).toEqual(["delete", "delete"]);
      expect(s.emu.requests.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([404, 204]);
      expect(s.stack.state().resources).toHaveLength(0);
    });
  });
});
