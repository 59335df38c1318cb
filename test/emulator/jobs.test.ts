import { describe, expect, it, vi } from "vitest";
import { type Emulator, type EmulatorOptions, INJECTED_ERROR_TYPE, startEmulator } from "../../src/emulator/index";
import { systemClock } from "../../src/emulator/clock";
import { VirtualClock } from "../support/virtual-clock";
import { at, call, TEAM, teamSeed, replaceBody, userBody } from "./helpers";

const tube = `integrations/${TEAM.tube}`;
const setBody = (entitlements: string[]) => ({
  data: { type: "update_user_entitlement", attributes: { entitlements: entitlements.map((id) => ({ id })) } },
});

async function withEmulator(options: EmulatorOptions, run: (emulator: Emulator) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ seed: teamSeed(), ...options });
  try {
    await run(emulator);
  } finally {
    await emulator.close();
  }
}

async function startJob(emulator: Emulator, entitlements = ["MANAGER"]): Promise<string> {
  const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}`, { body: setBody(entitlements) });
  expect(answer.status).toBe(200);
  return at(answer.json, "data", "id") as string;
}

async function status(emulator: Emulator, id: string): Promise<string> {
  return at((await call(emulator, "GET", `jobs/${id}`)).json, "data", "attributes", "status") as string;
}

describe("GET /jobs/{id}", () => {
  it("answers the full job record", async () => {
    await withEmulator({}, async (emulator) => {
      const id = await startJob(emulator);
      const answer = await call(emulator, "GET", `jobs/${id}`);
      expect(answer.json).toEqual({
        data: {
          id,
          type: "job",
          attributes: {
            account: { entity: "account", id: TEAM.tube, name: "YouTube acme", provider: "YouTube" },
            canRetry: false,
            createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
            createdBy: { id: expect.any(String), name: expect.any(String) },
            errorDetails: {},
            hasMoreDetails: false,
            payload: { integrationId: TEAM.tube, userId: TEAM.ada, entitlements: [{ id: "MANAGER" }] },
            response: {},
            status: "running",
            trigger: "manual",
            updatedAt: expect.stringMatching(/\+00:00$/),
            workflowType: "update_access",
          },
        },
        links: { self: `/api/v1/jobs/${id}` },
        meta: {},
      });
    });
  });

  it("answers 404 for an unknown job", async () => {
    await withEmulator({}, async (emulator) => {
      expect((await call(emulator, "GET", "jobs/nope")).status).toBe(404);
    });
  });
});

describe("progression by polls", () => {
  it.each([
    [1, ["finished"]],
    [2, ["running", "finished"]],
    [4, ["running", "running", "running", "finished"]],
  ])("with finishAfterPolls %i, polls see %j", async (finishAfterPolls, expected) => {
    await withEmulator({ job: { finishAfterPolls } }, async (emulator) => {
      const id = await startJob(emulator);
      const seen: string[] = [];
      for (const _ of expected) seen.push(await status(emulator, id));
      expect(seen).toEqual(expected);
      expect(await status(emulator, id)).toBe("finished");
      expect(emulator.jobs.get(id)?.polls).toBe(expected.length + 1);
    });
  });

  it("defaults to finishing on the second poll", async () => {
    await withEmulator({}, async (emulator) => {
      const id = await startJob(emulator);
      expect(emulator.jobs.get(id)?.status).toBe("created");
      expect(await status(emulator, id)).toBe("running");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["VIEWER"]);
      expect(await status(emulator, id)).toBe("finished");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["MANAGER"]);
    });
  });

  it("with finishAfterPolls 0, the job is done before the write answers", async () => {
    await withEmulator({ job: { finishAfterPolls: 0 } }, async (emulator) => {
      const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}`, { body: setBody(["EDITOR"]) });
      expect(at(answer.json, "data", "attributes", "status")).toBe("finished");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["EDITOR"]);
    });
  });

  it("setTiming changes jobs created afterwards only", async () => {
    await withEmulator({ job: { finishAfterPolls: 3 } }, async (emulator) => {
      const slow = await startJob(emulator);
      emulator.jobs.setTiming({ finishAfterPolls: 1 });
      const fast = await startJob(emulator, ["EDITOR"]);
      expect(await status(emulator, fast)).toBe("finished");
      expect(await status(emulator, slow)).toBe("running");
    });
  });
});

describe("progression by time", () => {
  it("is running before finishAfterMs and finished after it, applying the write even when nobody polls", async () => {
    const clock = new VirtualClock();
    await withEmulator({ job: { finishAfterMs: 80 }, clock }, async (emulator) => {
      const id = await startJob(emulator);
      clock.advance(79);
      expect(await status(emulator, id)).toBe("running");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["VIEWER"]);
      // Nobody polls: the deadline alone settles the job.
      clock.advance(1);
      expect(emulator.jobs.get(id)?.status).toBe("finished");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["MANAGER"]);
      expect(await status(emulator, id)).toBe("finished");
    });
  });
});

/** The set the emulator's first member of the team's YouTube holds. */
const viewer = (emulator: Emulator) => emulator.integrations.members(TEAM.tube)[0]?.entitlements;

describe("the ceiling of jobs that progress by polls (settleAfterMs)", () => {
  it("ends a job nobody reads by itself at the ceiling, doing its work, as the service does", async () => {
    const clock = new VirtualClock();
    await withEmulator({ job: { finishAfterPolls: 2, settleAfterMs: 30_000 }, clock }, async (emulator) => {
      const unread = await startJob(emulator);
      const readOnce = await startJob(emulator, ["EDITOR", "MANAGER"]);
      expect(await status(emulator, readOnce)).toBe("running");
      clock.advance(29_999);
      expect(emulator.jobs.get(unread)?.status).toBe("created");
      expect(viewer(emulator)).toEqual(["VIEWER"]);
      clock.advance(1);
      expect(emulator.jobs.get(unread)).toMatchObject({ status: "finished", polls: 0 });
      expect(emulator.jobs.get(readOnce)).toMatchObject({ status: "finished", polls: 1 });
      expect(viewer(emulator)).toEqual(["EDITOR", "MANAGER"]);
      // Its timer is gone: a job ended by its reads leaves none behind either.
      expect(clock.pendingTimers).toBe(0);
      const read = await startJob(emulator, ["VIEWER"]);
      await status(emulator, read);
      expect(await status(emulator, read)).toBe("finished");
      expect(clock.pendingTimers).toBe(0);
    });
  });

  it("ends a job failNext chose in error at the ceiling, and never one hangNext chose", async () => {
    const clock = new VirtualClock();
    await withEmulator({ job: { finishAfterPolls: 2, settleAfterMs: 1_000 }, clock }, async (emulator) => {
      emulator.jobs.hangNext(1);
      const hung = await startJob(emulator);
      emulator.jobs.failNext(1);
      const failed = await startJob(emulator, ["EDITOR"]);
      clock.advance(60_000);
      expect(emulator.jobs.get(failed)?.status).toBe("error");
      expect(await status(emulator, hung)).toBe("running");
      expect(viewer(emulator)).toEqual(["VIEWER"]);
      emulator.jobs.release(hung);
      expect(viewer(emulator)).toEqual(["MANAGER"]);
    });
  });

  it("is off by default: polls alone end a job, however long nobody reads it", async () => {
    const clock = new VirtualClock();
    await withEmulator({ clock }, async (emulator) => {
      const id = await startJob(emulator);
      clock.advance(24 * 3600_000);
      expect(emulator.jobs.get(id)?.status).toBe("created");
      expect(clock.pendingTimers).toBe(0);
      expect(await status(emulator, id)).toBe("running");
      expect(await status(emulator, id)).toBe("finished");
    });
  });

  it("applies to jobs created after setTiming, and a read at the ceiling sees the job done", async () => {
    const clock = new VirtualClock();
    await withEmulator({ clock }, async (emulator) => {
      const before = await startJob(emulator, ["EDITOR"]);
      emulator.jobs.setTiming({ finishAfterPolls: 5, settleAfterMs: 500 });
      const after = await startJob(emulator);
      clock.time += 500; // time passes without firing timers: the read itself sees the ceiling
      expect(await status(emulator, after)).toBe("finished");
      expect(emulator.jobs.get(before)?.status).toBe("created");
    });
  });
});

describe("a job store that lags its writes (readableAfterMs)", () => {
  it("answers 404, the body an unknown job gets, until readableAfterMs after creation; those reads are no polls", async () => {
    const clock = new VirtualClock();
    await withEmulator({ job: { finishAfterPolls: 2, readableAfterMs: 300 }, clock }, async (emulator) => {
      const id = await startJob(emulator);
      const unknown = await call(emulator, "GET", "jobs/00000000-0000-4000-8000-00000000beef");
      const early = await call(emulator, "GET", `jobs/${id}`);
      expect(early.status).toBe(404);
      expect(early.json).toEqual(JSON.parse(JSON.stringify(unknown.json).replaceAll("00000000-0000-4000-8000-00000000beef", id)));
      clock.advance(299);
      expect((await call(emulator, "GET", `jobs/${id}`)).status).toBe(404);
      expect(emulator.jobs.get(id)).toMatchObject({ status: "created", polls: 0 });
      clock.advance(1);
      // Readable now: its reads count from here, the second ending it.
      expect(await status(emulator, id)).toBe("running");
      expect(viewer(emulator)).toEqual(["VIEWER"]);
      expect(await status(emulator, id)).toBe("finished");
      expect(emulator.jobs.get(id)?.polls).toBe(2);
      expect(viewer(emulator)).toEqual(["MANAGER"]);
    });
  });

  it("runs its job all the same: one done by time before it is readable reads finished once it is", async () => {
    const clock = new VirtualClock();
    await withEmulator({ job: { finishAfterMs: 100, readableAfterMs: 300 }, clock }, async (emulator) => {
      const id = await startJob(emulator);
      clock.advance(200);
      expect(viewer(emulator)).toEqual(["MANAGER"]);
      expect((await call(emulator, "GET", `jobs/${id}`)).status).toBe(404);
      clock.advance(100);
      expect(await status(emulator, id)).toBe("finished");
    });
  });

  it("is 0 by default, and setTiming gives it to the jobs created afterwards only", async () => {
    const clock = new VirtualClock();
    await withEmulator({ clock }, async (emulator) => {
      const before = await startJob(emulator, ["EDITOR"]);
      expect(await status(emulator, before)).toBe("running");
      emulator.jobs.setTiming({ readableAfterMs: 50 });
      const after = await startJob(emulator);
      expect((await call(emulator, "GET", `jobs/${after}`)).status).toBe(404);
      expect(await status(emulator, before)).toBe("finished");
      clock.advance(50);
      expect(await status(emulator, after)).toBe("running");
    });
  });
});

describe("failNext and hangNext", () => {
  it("failNext makes the next jobs end in error with the given details, applying nothing", async () => {
    await withEmulator({ job: { finishAfterPolls: 1 } }, async (emulator) => {
      emulator.jobs.failNext(2, { errorType: "mfa_required", screenshotUrl: "https://example.com/shot.png", userRequired: true });
      const first = await startJob(emulator);
      const second = await startJob(emulator);
      const third = await startJob(emulator, ["EDITOR"]);
      const answer = await call(emulator, "GET", `jobs/${first}`);
      expect(at(answer.json, "data", "attributes", "status")).toBe("error");
      expect(at(answer.json, "data", "attributes", "errorDetails")).toEqual({
        errorType: "mfa_required",
        screenshotUrl: "https://example.com/shot.png",
        userRequired: true,
      });
      expect(await status(emulator, second)).toBe("error");
      expect(await status(emulator, third)).toBe("finished");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["EDITOR"]);
    });
  });

  it("failNext without details uses a generic errorType and leaves a null screenshotUrl out", async () => {
    await withEmulator({ job: { finishAfterPolls: 1 } }, async (emulator) => {
      emulator.jobs.failNext(1);
      const id = await startJob(emulator);
      const answer = await call(emulator, "GET", `jobs/${id}`);
      expect(at(answer.json, "data", "attributes", "errorDetails")).toEqual({ errorType: INJECTED_ERROR_TYPE, userRequired: false });
      emulator.jobs.failNext(1, { errorType: "x", screenshotUrl: null, userRequired: false });
      const other = await startJob(emulator);
      expect(at((await call(emulator, "GET", `jobs/${other}`)).json, "data", "attributes", "errorDetails")).toEqual({
        errorType: "x",
        userRequired: false,
      });
    });
  });

  it("hangNext makes the next jobs stay running forever", async () => {
    await withEmulator({ job: { finishAfterPolls: 1 } }, async (emulator) => {
      emulator.jobs.hangNext(1);
      const hung = await startJob(emulator);
      for (let i = 0; i < 5; i++) expect(await status(emulator, hung)).toBe("running");
      expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["VIEWER"]);
      const next = await startJob(emulator);
      expect(await status(emulator, next)).toBe("finished");
    });
  });
});

describe("user writes answered with jobs (userWritesAsJobs)", () => {
  it("creates the user only when the job finishes; the client then finds it by email", async () => {
    await withEmulator({ userWritesAsJobs: true }, async (emulator) => {
      const answer = await call(emulator, "POST", "users", { body: userBody({ email: "later@example.com" }) });
      expect(answer.status).toBe(200);
      expect(at(answer.json, "data", "type")).toBe("job");
      const id = at(answer.json, "data", "id") as string;
      expect(emulator.users.findByEmail("later@example.com")).toBeUndefined();
      expect(await status(emulator, id)).toBe("running");
      expect(await status(emulator, id)).toBe("finished");
      const filtered = await call(emulator, "GET", "users?filter=later@example.com");
      expect(at(filtered.json, "data", 0, "attributes", "status")).toBe("pending");
      const job = await call(emulator, "GET", `jobs/${id}`);
      expect(at(job.json, "data", "attributes", "workflowType")).toBe("create_user");
      expect(at(job.json, "data", "attributes", "account")).toBeUndefined();
    });
  });

  it("replaces and deletes through jobs too", async () => {
    await withEmulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 } }, async (emulator) => {
      const put = await call(emulator, "PUT", `users/${TEAM.cy}`, { body: replaceBody({ email: "cy2@example.com" }) });
      expect(emulator.users.get(TEAM.cy)?.email).toBe("cy@example.com");
      await status(emulator, at(put.json, "data", "id") as string);
      expect(emulator.users.get(TEAM.cy)?.email).toBe("cy2@example.com");
      const del = await call(emulator, "DELETE", `users/${TEAM.bob}`);
      expect(del.status).toBe(200);
      expect(emulator.users.get(TEAM.bob)).toBeDefined();
      await status(emulator, at(del.json, "data", "id") as string);
      expect(emulator.users.get(TEAM.bob)).toBeUndefined();
    });
  });

  it("still answers 409 at once for a taken email, and the job errors if the email is taken meanwhile", async () => {
    await withEmulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 } }, async (emulator) => {
      expect((await call(emulator, "POST", "users", { body: userBody({ email: "ADA@example.com" }) })).status).toBe(409);
      const answer = await call(emulator, "POST", "users", { body: userBody({ email: "race@example.com" }) });
      emulator.users.add({ email: "Race@example.com", firstName: "R", lastName: "Ace" });
      const job = await call(emulator, "GET", `jobs/${at(answer.json, "data", "id") as string}`);
      expect(at(job.json, "data", "attributes", "status")).toBe("error");
      expect(at(job.json, "data", "attributes", "errorDetails", "errorType")).toBe("user_already_exists");
    });
  });

  it("needs write:automations as well as write:users", async () => {
    await withEmulator({ userWritesAsJobs: true, keys: { "users-only": ["read:users", "write:users"] } }, async (emulator) => {
      const answer = await call(emulator, "POST", "users", { key: "users-only", body: userBody({ email: "n@example.com" }) });
      expect(answer.status).toBe(403);
      expect(at(answer.json, "errors", 0, "detail")).toContain("write:automations");
    });
  });
});

describe("the emulator's wall clock", () => {
  it("arms a delay longer than Node's timers take (2^31 - 1 ms) in parts, not after 1 ms", () => {
    vi.useFakeTimers();
    try {
      const fired: number[] = [];
      const thirtyDays = 30 * 24 * 3_600_000;
      systemClock.setTimer(() => void fired.push(Date.now()), thirtyDays);
      const start = Date.now();
      vi.advanceTimersByTime(1000);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(thirtyDays - 1001);
      expect(fired).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(fired).toEqual([start + thirtyDays]);
    } finally {
      vi.useRealTimers();
    }
  });
});
