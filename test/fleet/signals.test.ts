/**
 * What SIGINT and SIGTERM do to a fleet run, step by step, with no process: the first Ctrl-C stops new stacks, the
 * second (or a SIGTERM, at once) cancels the running ones and still waits for them, a third Ctrl-C prints the report of
 * the stacks so far and exits; each message names the running stacks and says what a pulumi stopped twice may leave
 * behind.
 */
import { describe, expect, it } from "vitest";
import { renderFleetReport } from "../../src/fleet/render";
import { FleetProgress, fleetSignals, INTERRUPTED_EXIT } from "../../src/fleet/signals";
import { type FleetReport, noChanges } from "../../src/fleet/types";

/** A run of `preview` over acme, globex and initech in which `running` have started and not ended. */
function signals(running: string[] = ["acme", "globex"]) {
  const out: string[] = [];
  const exits: number[] = [];
  const printed: FleetReport[] = [];
  const progress = new FleetProgress("preview", false, "fleet");
  progress.planned(["acme", "globex", "initech"]);
  for (const stack of running) progress.started(stack);
  const s = fleetSignals({
    name: "fleet",
    write: (text) => out.push(text),
    progress,
    print: (report, done) => {
      printed.push(report);
      done();
    },
    exit: (code) => exits.push(code),
  });
  return { ...s, out, exits, printed, progress };
}

describe("fleetSignals", () => {
  it("Ctrl-C: stops new stacks; again: cancels the running ones, naming them; a third time: exits at once", () => {
    const s = signals();
    s.handle("SIGINT");
    expect([s.stop.aborted, s.cancel.aborted]).toEqual([true, false]);
    expect(s.out.at(-1)).toContain("fleet: interrupted: no new stack starts; waiting for the running ones (running: acme, globex)");
    s.handle("SIGINT");
    expect([s.stop.aborted, s.cancel.aborted]).toEqual([true, true]);
    const second = s.out.at(-1) ?? "";
    expect(second).toContain("fleet: cancelling the running stacks (running: acme, globex)");
    // Not "in-flight operations finish": a pulumi that got two SIGINTs stops at once.
    expect(second).toContain("A pulumi that got two (in a terminal, each Ctrl-C reaches it too) stops at once instead");
    // Each command names its stack: a bare pulumi refresh in the folder reaches the stack selected there, not these.
    expect(second).toContain(
      "for acme, run pulumi refresh --run-program --stack acme to find operations left pending (and pulumi cancel --yes --stack acme " +
        "if it stays locked); for globex, run pulumi refresh --run-program --stack globex",
    );
    expect(s.exits).toEqual([]);
    s.handle("SIGINT");
    expect(s.out.at(-1)).toContain(
      "fleet: exiting without waiting for acme, globex: for acme, run pulumi refresh --run-program --stack acme",
    );
    expect(s.exits).toEqual([INTERRUPTED_EXIT]);
  });

  it("a third Ctrl-C prints the report of the stacks so far before it exits: ended, still running, not started", () => {
    const s = signals(["acme", "globex"]);
    const acme = { stack: "acme", result: "succeeded" as const, changes: { ...noChanges(), create: 1 }, resources: [] };
    s.progress.ended(acme);
    for (const _ of [1, 2, 3]) s.handle("SIGINT");
    expect(s.out.at(-1)).toBe(
      "\nfleet: exiting without waiting for globex: for globex, run pulumi refresh --run-program --stack globex to find operations " +
        "left pending (and pulumi cancel --yes --stack globex if it stays locked); the report of the stacks so far follows\n",
    );
    expect(s.printed).toEqual([
      {
        command: "preview",
        expectNoChanges: false,
        interrupted: true,
        stacks: [
          acme,
          {
            stack: "globex",
            result: "failed",
            // Its pulumi still running, nothing counted its changes: unknown, not none.
            changes: null,
            resources: [],
            error:
              "its outcome is unknown: fleet exited without waiting for its pulumi (a third Ctrl-C); run pulumi refresh --run-program " +
              "--stack globex to find operations left pending (and pulumi cancel --yes --stack globex if it stays locked)",
          },
          { stack: "initech", result: "skipped", changes: noChanges(), resources: [], skippedBecause: "interrupted before it started" },
        ],
      },
    ]);
    expect(s.exits).toEqual([INTERRUPTED_EXIT]);
    expect(renderFleetReport(s.printed[0]!, "text")).toMatch(/fleet preview: 3 stacks, 1 succeeded, 1 failed, 1 skipped; interrupted\n$/);
  });

  it("the report is printed once; a fourth Ctrl-C exits at once, should the printing hang", () => {
    const printed: FleetReport[] = [];
    const exits: number[] = [];
    const progress = new FleetProgress("up", false, "fleet");
    const s = fleetSignals({
      name: "fleet",
      write: () => {},
      progress,
      print: (report) => printed.push(report),
      exit: (code) => exits.push(code),
    });
    for (const _ of [1, 2, 3]) s.handle("SIGINT");
    expect([printed.length, exits]).toEqual([1, []]);
    s.handle("SIGINT");
    expect([printed.length, exits]).toEqual([1, [INTERRUPTED_EXIT]]);
  });

  it("SIGTERM: stops new stacks and cancels the running ones at once, and never exits before they end", () => {
    const s = signals(["initech"]);
    s.handle("SIGTERM");
    expect([s.stop.aborted, s.cancel.aborted]).toEqual([true, true]);
    expect(s.out.at(-1)).toContain("fleet: terminated (SIGTERM): no new stack starts; cancelling the running stacks (running: initech)");
    expect(s.out.at(-1)).toContain("Waiting for every pulumi to end");
    s.handle("SIGTERM");
    expect(s.out.at(-1)).toContain("fleet: already cancelling; waiting for every pulumi to end (running: initech)");
    expect(s.exits).toEqual([]);
  });

  it("SIGTERM after a Ctrl-C cancels; a Ctrl-C after a SIGTERM exits", () => {
    const s = signals([]);
    s.handle("SIGINT");
    s.handle("SIGTERM");
    expect(s.cancel.aborted).toBe(true);
    expect(s.out.at(-1)).toContain("(no stack is running)");
    s.handle("SIGINT");
    expect(s.exits).toEqual([INTERRUPTED_EXIT]);
  });
});
