/**
 * The order stacks run in, with fake stacks whose runs end when the test says (no clock, no
 * process): the canary alone first, never more than `parallel` at once, a slow stack holding one
 * slot only, a failure stopping the rest unless told not to, and a stop (Ctrl-C) starting nothing
 * new while the running stacks end normally.
 */
import { describe, expect, it } from "vitest";
import { type ScheduleOptions, schedule } from "../../src/fleet/schedule";
import { noChanges, type StackReport } from "../../src/fleet/types";

/** Fake stacks: each run waits until the test ends it; records what ran when. */
function fakeStacks() {
  const pending = new Map<string, (result: "succeeded" | "failed") => void>();
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const waiters: Array<() => void> = [];
  const run = (stack: string) =>
    new Promise<StackReport>((resolve) => {
      started.push(stack);
      running++;
      most = Math.max(most, running);
      pending.set(stack, (result) => {
        running--;
        pending.delete(stack);
        resolve({
          stack,
          result,
          changes: { ...noChanges(), create: 1 },
          resources: [],
          ...(result === "failed" ? { error: `${stack} broke` } : {}),
        });
      });
      for (const wake of waiters.splice(0)) wake();
    });
  return {
    run,
    started,
    get most() {
      return most;
    },
    running: () => [...pending.keys()],
    /** Resolves once `n` stacks have started. */
    async startedCount(n: number) {
      while (started.length < n) await new Promise<void>((wake) => waiters.push(wake));
    },
    end(stack: string, result: "succeeded" | "failed" = "succeeded") {
      const finish = pending.get(stack);
      if (!finish) throw new Error(`${stack} is not running (running: ${[...pending.keys()].join(", ")})`);
      finish(result);
    },
  };
}

function options(fake: ReturnType<typeof fakeStacks>, extra: Partial<ScheduleOptions>): ScheduleOptions {
  return { stacks: ["a", "b", "c", "d", "e"], parallel: 2, canary: false, stopOnFailure: false, run: fake.run, ...extra };
}

/** Lets every settled promise's continuations run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("schedule", () => {
  it("runs the canary alone, then at most `parallel` at once, a slow stack holding one slot only", async () => {
    const fake = fakeStacks();
    const done = schedule(options(fake, { canary: true, stopOnFailure: true }));
    await fake.startedCount(1);
    await settle();
    expect(fake.running()).toEqual(["a"]);
    fake.end("a");
    await fake.startedCount(3);
    expect(fake.running()).toEqual(["b", "c"]);
    // b is slow: c's slot goes on to d, then to e, while b still runs.
    fake.end("c");
    await fake.startedCount(4);
    fake.end("d");
    await fake.startedCount(5);
    expect(fake.running()).toEqual(["b", "e"]);
    fake.end("e");
    fake.end("b");
    const { reports, interrupted } = await done;
    expect(interrupted).toBe(false);
    expect(fake.most).toBe(2);
    expect(fake.started).toEqual(["a", "b", "c", "d", "e"]);
    expect(reports.map((r) => [r.stack, r.result])).toEqual(["a", "b", "c", "d", "e"].map((s) => [s, "succeeded"]));
  });

  it("skips every other stack when the canary fails", async () => {
    const fake = fakeStacks();
    const done = schedule(options(fake, { canary: true, stopOnFailure: true }));
    await fake.startedCount(1);
    fake.end("a", "failed");
    const { reports } = await done;
    expect(fake.started).toEqual(["a"]);
    expect(reports.map((r) => r.result)).toEqual(["failed", "skipped", "skipped", "skipped", "skipped"]);
    expect(reports[1]).toMatchObject({ skippedBecause: "the canary a failed", changes: noChanges() });
  });

  it("tells onDone of every stack once, each skipped one too, with the report the schedule returns; onStart of those that start", async () => {
    const fake = fakeStacks();
    const told: string[] = [];
    const done: StackReport[] = [];
    const run = schedule(
      options(fake, {
        canary: true,
        stopOnFailure: true,
        onStart: (stack) => told.push(`start ${stack}`),
        onDone: (report) => {
          told.push(`done ${report.stack} ${report.result}`);
          done.push(report);
        },
      }),
    );
    await fake.startedCount(1);
    fake.end("a", "failed");
    const { reports } = await run;
    expect(told).toEqual(["start a", "done a failed", ...["b", "c", "d", "e"].map((s) => `done ${s} skipped`)]);
    expect(done).toEqual(reports);
  });

  it("an onDone that throws for a skipped stack: the schedule rejects with its error, once", async () => {
    const fake = fakeStacks();
    const boom = new Error("the caller's onDone broke on a skipped stack");
    let calls = 0;
    const run = schedule(
      options(fake, {
        canary: true,
        stopOnFailure: true,
        onDone: (report) => {
          calls++;
          if (report.result === "skipped") throw boom;
        },
      }),
    );
    await fake.startedCount(1);
    fake.end("a", "failed");
    await expect(run).rejects.toBe(boom);
    // a's end, then b's skip, which threw: no other hook call after it.
    expect(calls).toBe(2);
  });

  it("runs the rest after a failed canary with continue-on-error (stopOnFailure off)", async () => {
    const fake = fakeStacks();
    const done = schedule(options(fake, { canary: true, stopOnFailure: false, parallel: 4 }));
    await fake.startedCount(1);
    fake.end("a", "failed");
    await fake.startedCount(5);
    for (const s of ["b", "c", "d", "e"]) fake.end(s, s === "c" ? "failed" : "succeeded");
    const { reports } = await done;
    expect(reports.map((r) => r.result)).toEqual(["failed", "succeeded", "failed", "succeeded", "succeeded"]);
    expect(reports[2]?.error).toBe("c broke");
  });

  it("after a failure starts nothing new, lets the running stacks end, and skips the rest", async () => {
    const fake = fakeStacks();
    const done = schedule(options(fake, { canary: true, stopOnFailure: true }));
    await fake.startedCount(1);
    fake.end("a");
    await fake.startedCount(3);
    fake.end("b", "failed");
    await settle();
    expect(fake.running()).toEqual(["c"]);
    fake.end("c");
    const { reports } = await done;
    expect(fake.started).toEqual(["a", "b", "c"]);
    expect(reports.map((r) => r.result)).toEqual(["succeeded", "failed", "succeeded", "skipped", "skipped"]);
    expect(reports[3]?.skippedBecause).toBe("b failed (--continue-on-error runs the rest)");
  });

  it("a stop after a failure had already stopped the rest: each is skipped for that failure, not for the stop", async () => {
    const fake = fakeStacks();
    const stop = new AbortController();
    const done = schedule(options(fake, { canary: true, stopOnFailure: true, stop: stop.signal }));
    await fake.startedCount(1);
    fake.end("a");
    await fake.startedCount(3);
    fake.end("b", "failed");
    await settle();
    // The operator, seeing b fail, presses Ctrl-C while c still runs.
    stop.abort();
    fake.end("c");
    const { reports, interrupted } = await done;
    expect(fake.started).toEqual(["a", "b", "c"]);
    expect(reports.slice(3).map((r) => [r.stack, r.skippedBecause])).toEqual([
      ["d", "b failed (--continue-on-error runs the rest)"],
      ["e", "b failed (--continue-on-error runs the rest)"],
    ]);
    // The Ctrl-C still reached the run (in a terminal, c's pulumi too).
    expect(interrupted).toBe(true);
  });

  it("a failure after a stop: the rest are skipped for the stop", async () => {
    const fake = fakeStacks();
    const stop = new AbortController();
    const done = schedule(options(fake, { stopOnFailure: true, stop: stop.signal }));
    await fake.startedCount(2);
    stop.abort();
    fake.end("a", "failed");
    fake.end("b");
    const { reports } = await done;
    expect(reports.slice(2).map((r) => r.skippedBecause)).toEqual(Array(3).fill("interrupted before it started"));
  });

  it("runs every stack of a preview or refresh within `parallel`, failures or not", async () => {
    const fake = fakeStacks();
    const done = schedule(options(fake, { parallel: 3 }));
    await fake.startedCount(3);
    expect(fake.running()).toEqual(["a", "b", "c"]);
    fake.end("a", "failed");
    await fake.startedCount(4);
    fake.end("b", "failed");
    await fake.startedCount(5);
    for (const s of ["c", "d", "e"]) fake.end(s);
    const { reports } = await done;
    expect(fake.most).toBe(3);
    expect(reports.map((r) => r.result)).toEqual(["failed", "failed", "succeeded", "succeeded", "succeeded"]);
  });

  it("on stop (Ctrl-C) starts no new stack, awaits the running ones and reports the rest skipped", async () => {
    const fake = fakeStacks();
    const stop = new AbortController();
    const done = schedule(options(fake, { stop: stop.signal }));
    await fake.startedCount(2);
    stop.abort();
    fake.end("a");
    await settle();
    expect(fake.running()).toEqual(["b"]);
    fake.end("b");
    const { reports, interrupted } = await done;
    expect(interrupted).toBe(true);
    expect(fake.started).toEqual(["a", "b"]);
    expect(reports.map((r) => r.result)).toEqual(["succeeded", "succeeded", "skipped", "skipped", "skipped"]);
    expect(reports[2]?.skippedBecause).toBe("interrupted before it started");
  });

  it("reports a run that rejects as that stack's failure, and goes on", async () => {
    const { reports } = await schedule({
      stacks: ["a", "b"],
      parallel: 1,
      canary: false,
      stopOnFailure: false,
      run: async (stack) => {
        if (stack === "a") throw new Error("boom");
        return { stack, result: "succeeded", changes: noChanges(), resources: [] };
      },
    });
    expect(reports).toEqual([
      // Nothing counted it: its counts are unknown, not none.
      { stack: "a", result: "failed", changes: null, resources: [], error: "boom" },
      { stack: "b", result: "succeeded", changes: noChanges(), resources: [] },
    ]);
  });

  it("an onDone that throws starts no new stack, lets the running one end, then rejects with its error", async () => {
    const fake = fakeStacks();
    const boom = new Error("the caller's onDone broke");
    let settled = false;
    const done = schedule(
      options(fake, {
        onDone: (report) => {
          if (report.stack === "a") throw boom;
        },
      }),
    );
    done.then(
      () => (settled = true),
      () => (settled = true),
    );
    await fake.startedCount(2);
    fake.end("a");
    await settle();
    // b still runs; nothing new started; the schedule has not given up on b.
    expect(fake.running()).toEqual(["b"]);
    expect(settled).toBe(false);
    fake.end("b");
    await expect(done).rejects.toBe(boom);
    expect(fake.started).toEqual(["a", "b"]);
  });

  it("an onStart that throws leaves that stack and the rest unrun, and rejects once the running ones end", async () => {
    const fake = fakeStacks();
    const done = schedule(
      options(fake, {
        onStart: (stack) => {
          if (stack === "b") throw new Error("onStart broke");
        },
      }),
    );
    await fake.startedCount(1);
    await settle();
    expect(fake.running()).toEqual(["a"]);
    fake.end("a");
    await expect(done).rejects.toThrow("onStart broke");
    expect(fake.started).toEqual(["a"]);
  });

  it("refuses a stack named twice before running any: one run's report would hide the other's", async () => {
    const fake = fakeStacks();
    await expect(schedule(options(fake, { stacks: ["a", "b", "a"] }))).rejects.toThrow("schedule: the stack a is named twice");
    expect(fake.started).toEqual([]);
  });
});
