import { describe, expect, it } from "vitest";
import { collect, JobFailedError, JobTimeoutError, NotFoundError } from "../../src/client";
import { withStub } from "../conformance/harness";
import { JOB_READABLE_GRACE_MS, MIN_FIRST_POLL_MS, PROBE_POLL_MS } from "../../src/client/jobs";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, katherine, grace } = DEFAULT_IDS.users;

describe("integrations", () => {
  it("reads an integration, its entitlements and its members", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    expect(await client.integrations.get(youtube)).toMatchObject({ id: youtube, application: "YouTube" });
    expect((await client.integrations.listEntitlements(youtube)).map((e) => e.id)).toEqual(["VIEWER", "EDITOR", "MANAGER"]);
    const members = await collect(client.integrations.listUsers(youtube));
    expect(members.map((m) => m.id).sort()).toEqual([DEFAULT_IDS.users.ada, grace].sort());
    expect(await client.integrations.getUser(youtube, grace)).toMatchObject({ entitlements: ["EDITOR"], role: "collaborator" });
  });

  it("invites, waits for the job, and only then the member exists", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    const job = await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER", "EDITOR"] });
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
    expect(emu.requests.at(-1)?.body).toEqual({
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }], userIds: [alan] },
      },
    });
    const done = await job.wait();
    expect(done?.status).toBe("finished");
    expect(
      emu.integrations
        .members(youtube)
        .find((m) => m.userId === alan)
        ?.entitlements.sort(),
    ).toEqual(["EDITOR", "VIEWER"]);
  });

  it("sets, adds/removes and removes, each through a job", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    await (await client.integrations.setEntitlements(youtube, grace, ["VIEWER"])).wait();
    expect(emu.requests.find((r) => r.method === "PATCH")?.body).toEqual({
      data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "VIEWER" }] } },
    });
    await (await client.integrations.changeEntitlements(youtube, grace, { add: ["MANAGER"], remove: ["VIEWER"] })).wait();
    expect((await client.integrations.getUser(youtube, grace)).entitlements).toEqual(["MANAGER"]);
    await (await client.integrations.removeUser(youtube, grace)).wait();
    expect(emu.integrations.members(youtube).some((m) => m.userId === grace)).toBe(false);
  });
});

describe("waiting for jobs", () => {
  it("polls with back-off: quick at first, growing to the cap", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 6 } });
    const { client, clock } = clientFor(emu, { jobPollIntervalMs: 250, jobPollMaxIntervalMs: 1000 });
    const job = await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] });
    await job.wait();
    // Two quick probes first (nothing learnt yet), then the setting's schedule from its second step, a probe later:
    // polls at 5, 10, 450 and 1,050 ms (where they were after probes at 25 and 50 ms), then 1,950, 2,950.
    expect(clock.sleeps).toEqual([PROBE_POLL_MS, PROBE_POLL_MS, 440, 600, 900, 1000]);
  });

  it("learns the first poll's delay: a quarter while jobs are done within two polls, the setting again once one takes three", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    const { client, clock } = clientFor(emu, { jobPollIntervalMs: 250, jobPollMaxIntervalMs: 1000 });
    const waitForOne = async (userId: string) => {
      const before = clock.sleeps.length;
      await (await client.integrations.invite(youtube, { userIds: [userId], entitlements: ["VIEWER"] })).wait();
      await (await client.integrations.removeUser(youtube, userId)).wait();
      return clock.sleeps.slice(before);
    };
    // Each job (an invitation, then a removal) is done at its first poll: the next one is polled sooner, to the floor.
    expect(await waitForOne(alan)).toEqual([PROBE_POLL_MS, MIN_FIRST_POLL_MS]);
    expect(await waitForOne(alan)).toEqual([MIN_FIRST_POLL_MS, MIN_FIRST_POLL_MS]);
    expect(await waitForOne(alan)).toEqual([MIN_FIRST_POLL_MS, MIN_FIRST_POLL_MS]);
    // A slow service again: a job that needs three polls or more sets the delay back to the setting, no probe (4 polls each).
    emu.jobs.setTiming({ finishAfterPolls: 4 });
    expect(await waitForOne(alan)).toEqual([2, 3, 5, 8, 250, 375, 563, 845]);
    expect(await waitForOne(alan)).toEqual([250, 375, 563, 845, 250, 375, 563, 845]);
    // Quick again: from the setting, a quarter at each job done at its first poll (250, 63, 16, 4, then the floor).
    emu.jobs.setTiming({ finishAfterPolls: 1 });
    expect(await waitForOne(alan)).toEqual([250, 63]);
    expect(await waitForOne(alan)).toEqual([16, 4]);
    expect(await waitForOne(alan)).toEqual([MIN_FIRST_POLL_MS, MIN_FIRST_POLL_MS]);
    // Polls per job: the requests the server saw.
    expect(emu.requests.filter((r) => r.path.startsWith("/jobs/"))).toHaveLength(6 + 8 + 8 + 6);
  });

  it("jobs done at their second poll (the emulator's default) are polled within a few ms once learnt, two polls each", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 2 } });
    const { client, clock } = clientFor(emu, { jobPollIntervalMs: 250, jobPollMaxIntervalMs: 1000 });
    const waits: number[][] = [];
    for (let i = 0; i < 5; i++) {
      const before = clock.sleeps.length;
      await (await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] })).wait();
      await (await client.integrations.removeUser(youtube, alan)).wait();
      waits.push(clock.sleeps.slice(before));
    }
    expect(waits).toEqual([
      [PROBE_POLL_MS, PROBE_POLL_MS, MIN_FIRST_POLL_MS, 3],
      [2, 3, 2, 3],
      [2, 3, 2, 3],
      [2, 3, 2, 3],
      [2, 3, 2, 3],
    ]);
    expect(emu.requests.filter((r) => r.path.startsWith("/jobs/"))).toHaveLength(2 * 10);
  });

  it("does not poll a job the write's answer says has finished; one that failed, once for its details", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterMs: 0 } });
    const { client } = clientFor(emu);
    const job = await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] });
    expect(job.status).toBe("finished");
    expect((await job.wait())?.status).toBe("finished");
    expect(emu.requests.filter((r) => r.path.includes("/jobs/"))).toEqual([]);
    emu.jobs.failNext(1, { errorType: "login_failed", userRequired: false });
    const failing = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    expect(failing.status).toBe("error");
    const error = await rejection(failing.wait());
    expect(JobFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ jobId: failing.id, errorDetails: { errorType: "login_failed" } });
    expect(emu.requests.filter((r) => r.path.includes("/jobs/")).map((r) => r.path)).toEqual([`/jobs/${failing.id}`]);
  });

  it("raises JobFailedError with errorType, userRequired and the job id", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.failNext(1, { errorType: "login_failed", userRequired: true, screenshotUrl: "https://example.com/s.png" });
    const { client } = clientFor(emu);
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const error = await rejection(job.wait());
    expect(JobFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ jobId: job.id, errorDetails: { errorType: "login_failed", userRequired: true } });
    expect(error.message).toContain(job.id);
    expect(error.message).toContain("login_failed");
    expect(error.message).toContain("a person must act");
  });

  it("fails when an entitlement is not in the catalogue", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu);
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["NOPE"] });
    const error = await rejection(job.wait());
    expect(JobFailedError.isInstance(error)).toBe(true);
    expect(emu.integrations.members(youtube).some((m) => m.userId === katherine)).toBe(false);
  });

  it("raises JobTimeoutError naming the job and its last status", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client, clock } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const error = await rejection(job.wait());
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ jobId: job.id, lastStatus: "running" });
    expect(error.message).toMatch(/within 30 s \(last status: running\).*jobTimeoutSeconds/);
    expect(clock.slept).toBe(30_000);
  });

  it("names no setting to raise when the caller gave the timeout: raising jobTimeoutSeconds would not lengthen it", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const error = await rejection(job.wait({ timeoutMs: 10_000 }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(/within 10 s \(last status: running\)\. It may still finish: check it with getJob\.$/);
    expect(error.message).not.toContain("jobTimeoutSeconds");
  });

  it("a poll answered 429 asking to wait past the wait's end ends the wait at its end, not after the 429's five minutes", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client, clock } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const began = clock.now();
    // The second poll meets a 429 without Retry-After: the contract's 300 s, well past the wait's 30 s.
    const onPoll = () => emu.fault({ method: "GET", path: `/jobs/${job.id}`, status: 429, times: 10 });
    const error = await rejection(job.wait({ onPoll }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ jobId: job.id, lastStatus: "running" });
    expect(error.message).toMatch(/within 30 s \(last status: running\)/);
    expect(error.message).toContain("answered 429 (rate limited) without Retry-After");
    expect(clock.now() - began).toBeLessThanOrEqual(30_000);
    const polls = emu.requests.filter((r) => r.method === "GET" && r.path === `/jobs/${job.id}`).map((r) => r.status);
    expect(polls).toEqual([200, 429]);
    // The 429 still holds the client's next request for its wait: the service asked for it.
    const resumed = clock.now();
    await client.jobs.get(job.id!);
    expect(clock.now() - resumed).toBeGreaterThanOrEqual(300_000 - (resumed - began));
  });

  it("a poll answered 5xx whose retry would wait past the wait's end ends the wait then, not after its retries' back-off", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client, clock } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const began = clock.now();
    // From the second poll on, 503s asking 15 s each: five retries would end 75 s on, and fail as a ServerError.
    const onPoll = () => emu.fault({ method: "GET", path: `/jobs/${job.id}`, status: 503, headers: { "Retry-After": "15" }, times: 10 });
    const error = await rejection(job.wait({ onPoll }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ jobId: job.id, lastStatus: "running" });
    expect(error.message).toContain("Its last poll answered 503");
    expect(error.message).toMatch(/A retry waits 15 s, longer than the wait it was sent for may still last \(1[45] s\)\.$/);
    expect(clock.now() - began).toBeLessThanOrEqual(30_000);
    const polls = emu.requests.filter((r) => r.path === `/jobs/${job.id}`).map((r) => r.status);
    expect(polls).toEqual([200, 503, 503]);
  });

  it("a poll the client holds past the wait's end, for another request's 429, is not sent: the wait ends at once, saying why", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client, clock } = clientFor(emu, { jobTimeoutSeconds: 30, maxRateLimitRetries: 0 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    // Another request's 429 asks for two minutes: it gives up (no retries), and the client holds every request that long.
    emu.fault({ method: "GET", path: "/users", status: 429, headers: { "Retry-After": "120" } });
    await rejection(client.users.list().next());
    const began = clock.now();
    const error = await rejection(job.wait());
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("did not finish within 30 s");
    expect(error.message).toContain("Its last poll was not sent: the client holds its requests 120 s more after a 429 (rate limited)");
    expect(clock.now() - began).toBeLessThanOrEqual(30_000);
    expect(emu.requests.filter((r) => r.path === `/jobs/${job.id}`)).toEqual([]);
  });

  it("a poll held past the wait's end by maxRequestsPerSecond says so: no limit was learnt, and no 429 came", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client } = clientFor(emu, { maxRequestsPerSecond: 1 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const error = await rejection(job.wait({ timeoutMs: 5 }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Its last poll was not sent: the client holds its requests 2 s more to keep to its pace");
    expect(error.message).toContain("maxRequestsPerSecond");
    // A 429 as a status: not digits of the job's random id ("…-4290-…").
    expect(error.message).not.toMatch(/\b429\b/);
  });

  it("a poll held past the wait's end by a spent RateLimit-Remaining says so, not a 429", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    // The service says none are left for the next two minutes.
    emu.fault({
      method: "GET",
      path: "/users",
      status: 200,
      body: JSON.stringify({ data: [], links: {}, meta: {} }),
      headers: { "RateLimit-Remaining": "0", "RateLimit-Reset": "120" },
    });
    await client.users.list().next();
    const error = await rejection(job.wait());
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Its last poll was not sent: the client holds its requests 120 s more");
    expect(error.message).toContain("RateLimit-Remaining");
    // A 429 as a status: not digits of the job's random id ("…-4290-…").
    expect(error.message).not.toMatch(/\b429\b/);
  });

  describe("a poll waiting for a free connection (maxConcurrency's, every one busy with another request)", () => {
    /** A client of one connection, and a request holding it whose answer the emulator gives `answerAfterMs` on (virtual). */
    async function oneBusyConnection(answerAfterMs: number, finishAfterPolls?: number) {
      // The client's timers (each exchange's requestTimeoutSeconds, a poll's wait for a connection) run on the virtual clock.
      const clock = new VirtualClock({ requestTimers: true });
      const emu = await emulator({ seed: defaultSeed(), clock, ...(finishAfterPolls && { job: { finishAfterPolls } }) });
      const settingName = (name: string) => `workspace-access:${name}`;
      const { client } = clientFor(emu, { jobTimeoutSeconds: 30, maxConcurrency: 1, settingName });
      const hold = async () => {
        const timers = clock.pendingTimers;
        emu.fault({ method: "GET", path: "/users", delayMs: answerAfterMs });
        const busy = client.users.list().next();
        // Its exchange's timer and the emulator's delay: the request holds the one connection.
        while (clock.pendingTimers < timers + 2) await new Promise((resolve) => setImmediate(resolve));
        // Wrapped: an async function's promise would wait for the one returned.
        return { busy };
      };
      return { clock, emu, client, hold };
    }

    /** Settles `promise` while time passes 500 ms a step (nothing else moves the virtual clock), and when it settled. */
    async function passing<T>(clock: VirtualClock, promise: Promise<T>) {
      let at: number | undefined;
      const settled = promise.finally(() => {
        at = clock.now();
      });
      settled.catch(() => {});
      while (at === undefined) {
        clock.advance(500);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return { settled, at };
    }

    it("ends the wait at its end, not sent, naming maxConcurrency: not when the connection frees, up to requestTimeoutSeconds on", async () => {
      const { clock, emu, client, hold } = await oneBusyConnection(50_000);
      emu.jobs.hangNext(1);
      const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
      const { busy } = await hold();
      const began = clock.now();
      const { settled, at } = await passing(clock, job.wait());
      const error = await rejection(settled);
      expect(JobTimeoutError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`The job ${job.id} did not finish within 30 s`);
      expect(error.message).toContain(
        "Its last poll was not sent: the client held it 30 s while every one of its 1 connections (workspace-access:maxConcurrency) " +
          "was busy with its other requests, until the wait it was sent for ended: raise workspace-access:maxConcurrency",
      );
      expect(at - began).toBeLessThanOrEqual(30_500);
      expect(emu.requests.filter((r) => r.path === `/jobs/${job.id}`)).toEqual([]);
      // The request that held the connection is answered as ever.
      await passing(clock, busy);
      await expect(busy).resolves.toMatchObject({ done: false });
    });

    it("a poll due at the wait's very end, every connection busy, says it had no place, not that it was held 0 s", async () => {
      const { clock, emu, client, hold } = await oneBusyConnection(50_000);
      emu.jobs.hangNext(1);
      const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
      const { busy } = await hold();
      // The wait's one sleep ends at its end (10 ms, before the first probe's 25), when the one connection is still busy.
      const { settled } = await passing(clock, job.wait({ timeoutMs: 10 }));
      const error = await rejection(settled);
      expect(error.message).toContain(
        "Its last poll was not sent: the client had no place for it while every one of its 1 connections " +
          "(workspace-access:maxConcurrency) was busy with its other requests, and the wait it was sent for had ended",
      );
      expect(error.message).not.toContain("held it 0 s");
      // The request that held the connection is answered as ever (not left to fail when the emulator closes).
      await passing(clock, busy);
      await expect(busy).resolves.toMatchObject({ done: false });
    });

    it("a poll sent before the wait's end, answered after it, is read: a job done then is done, not late", async () => {
      const { clock, emu, client } = await oneBusyConnection(0, 1);
      const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
      // The first poll is answered 40 s on, past the wait's 30 s (within requestTimeoutSeconds' 60), with the job finished.
      emu.fault({ method: "GET", path: `/jobs/${job.id}`, delayMs: 40_000 });
      const began = clock.now();
      const { settled, at } = await passing(clock, job.wait());
      expect((await settled)?.status).toBe("finished");
      expect(at - began).toBeGreaterThanOrEqual(40_000);
      expect(emu.requests.filter((r) => r.path === `/jobs/${job.id}`).map((r) => r.status)).toEqual([200]);
    });
  });

  it("a wait that ends before any poll was sent reports the status the write answered with, not 'created'", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const { client } = clientFor(emu, { jobTimeoutSeconds: 30, maxRateLimitRetries: 0 });
    const id = "0b7c2d4e-0000-4000-8000-0000000000d1";
    const started = { data: { id, type: "job", attributes: { status: "started" } }, links: {}, meta: {} };
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, afterHandling: true, body: JSON.stringify(started) });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    expect(job.status).toBe("started");
    emu.fault({ method: "GET", path: "/users", status: 429, headers: { "Retry-After": "120" } });
    await rejection(client.users.list().next());
    const error = await rejection(job.wait());
    expect(error).toMatchObject({ jobId: id, lastStatus: "started" });
    expect(error.message).toContain("(last status: started)");
    expect(emu.requests.filter((r) => r.path === `/jobs/${id}`)).toEqual([]);
  });

  it.each([
    { case: "a wait of 0 s, its one read answered 429 asking two minutes", timeoutMs: 0, options: {}, tooMany: true },
    {
      case: "a wait shorter than its first poll, that poll held by maxRequestsPerSecond",
      timeoutMs: 5,
      options: { maxRequestsPerSecond: 1 },
    },
  ])("a wait called by the job's id, ended before any poll read the job, says its status is not known: $case", async (given) => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client } = clientFor(emu, given.options);
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    if (given.tooMany) emu.fault({ method: "GET", path: `/jobs/${job.id}`, status: 429, headers: { "Retry-After": "120" } });
    const error = await rejection(client.jobs.wait(job.id!, { timeoutMs: given.timeoutMs }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    // "created" would be a status nobody read: the job may be running, or done, by now.
    expect(error).toMatchObject({ jobId: job.id, lastStatus: null });
    expect(error.message).toContain(
      "(its status is not known: no poll read it). It may still finish, or be done already: check it with getJob.",
    );
    expect(error.message).not.toContain("created");
    expect(emu.requests.filter((r) => r.path === `/jobs/${job.id}` && r.status === 200)).toEqual([]);
  });

  it("a poll's 429 asking for no wait, backed off past the wait's end, says what the service asked, then the back-off", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.jobs.hangNext(1);
    const { client, clock } = clientFor(emu, { jobTimeoutSeconds: 30 });
    const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    const began = clock.now();
    // Backed off 375 ms, doubling to 15 s (retryMaxDelayMs' 20 s, half jittered): the seventh would end past the 30 s.
    const onPoll = () => emu.fault({ method: "GET", path: `/jobs/${job.id}`, status: 429, headers: { "Retry-After": "0" }, times: 20 });
    const error = await rejection(job.wait({ onPoll }));
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("answered 429 (rate limited) with Retry-After: 0 s, after which the client backs off 15 s");
    expect(clock.now() - began).toBeLessThanOrEqual(30_000);
  });

  it("a wait whose end has passed reads the job once: done is done, and a late one's status is one it saw", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    const { client, clock } = clientFor(emu);
    const done = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    expect((await done.wait({ timeoutMs: 0 }))?.status).toBe("finished");
    emu.jobs.hangNext(1);
    const late = await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] });
    const error = await rejection(late.wait({ timeoutMs: 0 }));
    expect(error).toMatchObject({ jobId: late.id, lastStatus: "running" });
    expect(emu.requests.filter((r) => r.method === "GET" && r.path.includes("/jobs/")).length).toBe(2);
    expect(clock.slept).toBe(0);
  });

  it("a wait whose end has passed still reads the job once when the client's pace holds that read: done is not called late", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    // One request a second: the read comes right after the write, so the pace holds it about a second.
    const { client, clock } = clientFor(emu, { maxRequestsPerSecond: 1 });
    const done = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    expect((await done.wait({ timeoutMs: 0 }))?.status).toBe("finished");
    expect(emu.requests.filter((r) => r.method === "GET" && r.path.includes("/jobs/")).length).toBe(1);
    expect(clock.slept).toBeGreaterThan(0);
  });

  it("a wait whose end has passed retries its one read after a 5xx, as any read: done is not called late", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    const { client, clock } = clientFor(emu);
    const done = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
    emu.fault({ method: "GET", path: `/jobs/${done.id}`, status: 503 });
    expect((await done.wait({ timeoutMs: 0 }))?.status).toBe("finished");
    expect(emu.requests.filter((r) => r.path === `/jobs/${done.id}`).map((r) => r.status)).toEqual([503, 200]);
    expect(clock.sleeps).toEqual([375]);
  });

  it.each([Number.NaN, -1])(
    "refuses a timeoutMs of %s before any poll (NaN would never end the wait, polling at once)",
    async (timeoutMs) => {
      const emu = await emulator({ seed: defaultSeed() });
      const { client } = clientFor(emu);
      const job = await client.integrations.invite(youtube, { userIds: [katherine], entitlements: ["VIEWER"] });
      const error = await rejection(job.wait({ timeoutMs }));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe(`timeoutMs must be a number of at least 0, got ${timeoutMs}`);
      expect(emu.requests.map((r) => r.method)).toEqual(["POST"]);
    },
  );

  it("a job whose fields nothing decides by are of another type (createdBy as text, canRetry as text) is waited for as any: finished", async () => {
    await withStub(async (stub, client) => {
      const id = "0b7c2d4e-0000-4000-8000-0000000000c2";
      const attributes = {
        status: "finished",
        createdBy: "ops@example.com",
        account: "acme",
        canRetry: "no",
        hasMoreDetails: 1,
        trigger: 7,
        workflowType: { name: "invite" },
      };
      stub.reply = { status: 200, body: { data: { id, type: "job", attributes }, links: {}, meta: {} } };
      const job = await client.jobs.wait(id, { timeoutMs: 2000 });
      expect(job).toMatchObject({
        id,
        status: "finished",
        createdBy: null,
        account: null,
        canRetry: null,
        trigger: null,
        workflowType: null,
      });
    });
  });

  it("a status in another case (Finished) is the contract's: the wait ends", async () => {
    await withStub(async (stub, client) => {
      const id = "0b7c2d4e-0000-4000-8000-0000000000c3";
      stub.reply = { status: 200, body: { data: { id, type: "job", attributes: { status: "Finished" } }, links: {}, meta: {} } };
      expect(await client.jobs.wait(id, { timeoutMs: 2000 })).toMatchObject({ id, status: "finished" });
    });
  });

  it("says so when the last status is one the contract does not list, instead of promising the job may finish", async () => {
    await withStub(async (stub, client) => {
      const id = "0b7c2d4e-0000-4000-8000-0000000000c1";
      stub.reply = { status: 200, body: { data: { id, type: "job", attributes: { status: "cancelled" } }, links: {}, meta: {} } };
      const error = await rejection(client.jobs.wait(id, { timeoutMs: 2000 }));
      expect(JobTimeoutError.isInstance(error)).toBe(true);
      expect(error.message).toContain("(last status: cancelled). That status is not one the contract lists");
      expect(error.message).not.toContain("It may still finish");
    });
  });
});

describe("a job a write just answered with, answered 404 through the grace (a service answering 404 for a missing scope)", () => {
  const noJobReads = `wa_no_job_reads_${"3".repeat(16)}`;
  issuedKeys.add(noJobReads);
  const keys = { [noJobReads]: ALL_SCOPES.filter((s) => s !== "read:automations") };

  it("is no job ended: read again on the usual schedule, it fails at the grace's end naming Read automated jobs and the key, the write accepted", async () => {
    const emu = await emulator({ seed: defaultSeed(), keys, missingScopeStatus: 404 });
    const settingName = (name: string) => (name === "apiKey" ? "workspace-access:apiKey" : undefined);
    const { client, clock } = clientFor(emu, { apiKey: noJobReads, settingName });
    const job = await client.integrations.setEntitlements(youtube, grace, ["VIEWER"]);
    const start = clock.now();
    const error = await rejection(job.wait());
    // It fails at the grace's end, not a poll interval after it; the last sleep is cut to end there.
    expect(clock.now() - start).toBe(JOB_READABLE_GRACE_MS);
    expect(clock.sleeps).toEqual([5, 5, 35, 38, 57, 86, 129, 194, 291, 437, 656, 984, 1476, 607]);
    expect(NotFoundError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toBe(
      `GET /api/v1/jobs/${job.id} kept answering 404 for 5 s (14 reads) after PATCH /api/v1/integrations/${youtube}/users/${grace} ` +
        "answered with it, before any job answered this key: a job just started has not ended and been forgotten, and a service " +
        "slow to show its jobs shows them sooner, so most likely the service does not disclose jobs to this key (it answers 404, " +
        "not disclosed, to a key lacking a scope). Give the key in workspace-access:apiKey the scope Read automated jobs " +
        "(read:automations), which waiting for a job needs. The write was accepted: its job may still finish. (If the key holds " +
        "that scope already, the service is slower than 5 s to show its jobs: read the job later with getJob.)",
    );
    // A read per sleep of the usual schedule: no request more than a wait's.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `PATCH /integrations/${youtube}/users/${grace} 200`,
      ...Array.from({ length: 14 }, () => `GET /jobs/${job.id} 404`),
    ]);
  });

  it("a user write's job too (user writes answered with jobs)", async () => {
    const emu = await emulator({ seed: defaultSeed(), keys, missingScopeStatus: 404, userWritesAsJobs: true });
    const { client } = clientFor(emu, { apiKey: noJobReads });
    const attributes = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", isGuest: false };
    const error = await rejection(client.users.replace(alan, attributes));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toMatch(/^GET \/api\/v1\/jobs\/\S+ kept answering 404 for 5 s \(\d+ reads\) after PUT \/api\/v1\/users\//);
  });

  it("a wait whose end comes before the grace's times out at its end, saying its reads answered 404: no verdict on the key", async () => {
    // Every scope, and a job store 300 ms behind: a wait of 100 ms ends before it shows the job, which is no missing scope.
    const emu = await emulator({ seed: defaultSeed(), job: { readableAfterMs: 300 } });
    const { client, clock } = clientFor(emu);
    const job = await client.integrations.setEntitlements(youtube, grace, ["VIEWER"]);
    const start = clock.now();
    const error = await rejection(job.wait({ timeoutMs: 100 }));
    expect(clock.now() - start).toBe(100);
    expect(JobTimeoutError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Over those 0.1 s all 5 of its reads answered 404 (the job not shown yet");
    expect(error.message).not.toContain("Read automated jobs (read:automations),");
  });

  it("a schedule whose first poll comes after the grace's end is not cut short by it while no read answered 404", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 3 } });
    const { client, clock } = clientFor(emu, { jobPollIntervalMs: 8_000, jobPollMaxIntervalMs: 60_000 });
    // A job done at its third poll: the next wait's first poll comes after the setting's 8 s, past the grace's 5.
    await (await client.integrations.setEntitlements(youtube, grace, ["VIEWER"])).wait();
    const before = clock.sleeps.length;
    await (await client.integrations.setEntitlements(youtube, grace, ["EDITOR"])).wait();
    expect(clock.sleeps.slice(before)).toEqual([8_000, 12_000, 18_000]);
  });

  it("a job read by its id alone (an earlier run's), or after a job answered this key, stays the contract's 404: the job unknown", async () => {
    const emu = await emulator({ seed: defaultSeed(), missingScopeStatus: 404, job: { finishAfterPolls: 1 } });
    const { client, clock } = clientFor(emu);
    const alone = await rejection(client.jobs.wait("00000000-0000-4000-8000-00000000beef"));
    expect(NotFoundError.isInstance(alone)).toBe(true);
    // Either cause: no such job, or a key the service hides jobs from; nothing cheap tells them apart.
    expect(alone.message).toContain("is unknown to this key, for one of two reasons the service does not tell apart.");
    expect(alone.message).toContain("Or the key in apiKey lacks Read automated jobs (read:automations)");
    // Read once: no grace for a job no write answered with just now.
    expect(emu.requests.filter((r) => r.path.startsWith("/jobs/"))).toHaveLength(1);
    await (await client.integrations.setEntitlements(youtube, grace, ["VIEWER"])).wait();
    emu.fault({ method: "GET", path: /^\/jobs\//, status: 404, times: 1000 });
    const job = await client.integrations.setEntitlements(youtube, grace, ["EDITOR"]);
    const start = clock.now();
    const after = await rejection(job.wait());
    expect(NotFoundError.isInstance(after)).toBe(true);
    // A job read answered this key: it reads jobs, and the 404 is the job's alone, once the grace is through.
    expect(clock.now() - start).toBe(JOB_READABLE_GRACE_MS);
    expect(after.message).toContain(`has no job ${job.id} (this key reads jobs: a job read answered it): a wrong id`);
    expect(after.message).toMatch(
      /It kept answering 404 for 5 s \(\d+ reads\) after PATCH \/api\/v1\/integrations\/\S+ answered with it\.$/,
    );
    expect(after.message).not.toContain("Read automated jobs");
  });

  it("a job's 404 keeps the whole answer, as every other 404 does: its further entries (It also said) and its fields", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    const { client } = clientFor(emu);
    const errors = [
      { status: "404", code: "Not found", title: "Job not found", detail: "No job with this id" },
      { status: "404", title: "Jobs are kept for 24 hours" },
    ];
    emu.fault({ method: "GET", path: /^\/jobs\//, status: 404, body: JSON.stringify({ errors }) });
    const error = await rejection(client.jobs.get("00000000-0000-4000-8000-00000000beef"));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toMatch(
      /^GET \/[^ ]*jobs\/00000000-0000-4000-8000-00000000beef answered 404: No job with this id\. It also said: Jobs are kept for 24 hours\. The job 00000000-0000-4000-8000-00000000beef is unknown to this key/,
    );
    expect(error).toMatchObject({ status: 404, method: "GET", code: "Not found", title: "Job not found", detail: "No job with this id" });
    expect(emu.requests.filter((r) => r.path.includes("/jobs/"))).toHaveLength(1);
  });
});
