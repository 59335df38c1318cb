/**
 * `runFleet` over a fake pulumi: the Automation API's own `Stack` drives a fake workspace, whose `pulumi` records each
 * command line and ends when the test says (or, on SIGINT, as cancelled). What reaches pulumi is checked: the options a
 * script passes are checked as the command line's are, before pulumi runs; a cancel starts no pulumi and reaches
 * one started in the Automation API's gap before it listens; the drift check is a preview with refresh, writing no
 * state; counts come from the engine's summary alone (the fake's pulumi sends its engine events over the Automation
 * API's own gRPC channel, or none, as a pulumi that ended mid-stream); a stack may be named by its fully-qualified name;
 * and the selection is left as it was, none included.
 */
import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import * as eventsRpc from "@pulumi/pulumi/proto/events_grpc_pb";
import { EventRequest } from "@pulumi/pulumi/proto/events_pb";
import * as automationCmd from "@pulumi/pulumi/automation/cmd";
import * as automationErrors from "@pulumi/pulumi/automation/errors";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../src/command-line";
import { ranCommand } from "../support/run-command";
import { pickStacks } from "../../src/fleet/project";
import { renderFleetReport, selectionWarningOnStderr, stackDoneLine } from "../../src/fleet/render";
import { checkRunProgram, type FleetOptions, runFleet } from "../../src/fleet/run";
import { exitStatus } from "../../src/fleet/types";
import { RUNS_KEY, runsOf } from "../support/key-runs";

/** The fake backend: its stacks by fully-qualified name, the one selected, and what ran. */
const fake = vi.hoisted(() => ({
  stacks: ["organization/proj/acme", "organization/proj/globex"],
  selected: undefined as string | undefined,
  /** Each step, in order: `config NAME`, `select NAME`, `pulumi ARGS`, `unselect`. */
  calls: [] as string[],
  /** Runs in a step before it answers: the test's hook to cancel at that point. */
  during: {} as Record<string, (() => void) | undefined>,
  opened: 0,
  /** What the workspace says of the pulumi CLI on PATH. */
  pulumiVersion: "3.274.1",
  /** What `pulumi stack history` answers (its stdout), or how it fails. */
  history: "[]" as string | Error,
  /** What `pulumi config --show-secrets --json` answers: the stack's config, its secrets decrypted. */
  config: {} as Record<string, { value: string; secret: boolean }>,
  /** How `pulumi config --show-secrets --json` fails, if it does (the Automation API's error, or its JSON.parse's). */
  configFails: undefined as (() => Error) | undefined,
  /** The engine events each pulumi operation sends before it ends (none: a pulumi that ended mid-stream sent no summary). */
  events: [] as unknown[],
  /** How each pulumi operation fails once its events are sent, if it does (the Automation API's error). */
  exit: undefined as Error | undefined,
  /** How `pulumi stack select NAME` fails, if it does (the Automation API's error). */
  selectFails: undefined as ((name: string) => Error | undefined) | undefined,
  /** How `pulumi stack unselect` fails, if it does (node's execFile error). */
  unselectFails: undefined as Error | undefined,
  /** How `pulumi stack ls` fails, if it does (node's execFile error). */
  listFails: undefined as (() => Error) | undefined,
  /** Each pulumi operation runs until it gets SIGINT or the test ends it, instead of ending on its own. */
  hold: false,
  /** The operations held running, by stack: what each prints (on stdout or stderr), and how it ends. */
  running: new Map<string, { say(stream: "stdout" | "stderr", text: string): void; end(error: Error): void }>(),
  /** Told each time an operation starts being held. */
  onRunning: undefined as (() => void) | undefined,
  /** The stacks whose pulumi operation got SIGINT, in order. */
  sigints: [] as string[],
  /** Told each time an operation gets SIGINT. */
  onSigint: undefined as (() => void) | undefined,
}));

/** Sends `events` to the Automation API's events server at `address` (`127.0.0.1:PORT`), as pulumi does, and ends the stream. */
async function sendEvents(address: string, events: readonly unknown[]): Promise<void> {
  const client = new eventsRpc.EventsClient(address, grpc.credentials.createInsecure());
  try {
    await new Promise<void>((resolve, reject) => {
      const stream = client.streamEvents((error: grpc.ServiceError | null) => (error ? reject(error) : resolve()));
      for (const event of events) stream.write(new EventRequest().setEvent(JSON.stringify(event)));
      stream.end();
    });
  } finally {
    client.close();
  }
}

const short = (name: string) => name.split("/").at(-1) ?? name;

function fakeWorkspace() {
  const step = async (call: string) => {
    fake.calls.push(call);
    fake.during[call.split(" ")[0] ?? ""]?.();
  };
  return {
    workDir: "/proj",
    envVars: {},
    pulumiHome: undefined,
    program: undefined,
    get pulumiVersion() {
      return fake.pulumiVersion;
    },
    async getAllConfig(name: string) {
      await step(`config ${name}`);
      if (fake.configFails) throw fake.configFails();
      return fake.config;
    },
    async selectStack(name: string) {
      await step(`select ${name}`);
      const fails = fake.selectFails?.(name);
      if (fails) throw fails;
      fake.selected = fake.stacks.find((s) => s === name || short(s) === name);
    },
    // What the fleet used to list the stacks with (the file backend's short names).
    async listStacks() {
      return fake.stacks.map((name) => ({ name: short(name), current: name === fake.selected }));
    },
    async serializeArgsForOp() {
      await step("serialize");
      return [];
    },
    async postCommandCallback() {},
    async stackOutputs(name: string) {
      await step(`outputs ${name}`);
      throw new Error("code: 255\n stdout: \n stderr: error: could not decrypt the stack's outputs\n");
    },
    pulumiCommand: {
      command: "pulumi",
      /** A pulumi operation: ends on its own after a few turns, or as cancelled on SIGINT (the signal's `abort`). */
      run(
        args: string[],
        _cwd: string,
        _env: unknown,
        onOutput?: (text: string) => void,
        onError?: (text: string) => void,
        signal?: AbortSignal,
      ) {
        fake.calls.push(`pulumi ${args.filter((a) => !a.startsWith("--event-log") && !a.startsWith("tcp:")).join(" ")}`);
        if (args[0] === "stack" && args[1] === "history") {
          const history = fake.history;
          return history instanceof Error ? Promise.reject(history) : Promise.resolve({ stdout: history, stderr: "", code: 0 });
        }
        // The Automation API's events server for a pulumi newer than 3.205: `--event-log tcp://127.0.0.1:PORT`.
        const log = args[args.indexOf("--event-log") + 1] ?? "";
        const send = () => (log.startsWith("tcp://") ? sendEvents(log.slice("tcp://".length), fake.events) : Promise.resolve());
        const stack = short(args[args.indexOf("--stack") + 1] ?? "");
        return new Promise((resolve, reject) => {
          const end = () => (fake.exit ? reject(fake.exit) : resolve({ stdout: "", stderr: "", code: 0 }));
          const timer = fake.hold ? undefined : setTimeout(() => void send().then(end, reject), 20);
          if (fake.hold) {
            fake.running.set(stack, { say: (stream, text) => (stream === "stdout" ? onOutput : onError)?.(text), end: reject });
            fake.onRunning?.();
          }
          signal?.addEventListener("abort", () => {
            fake.sigints.push(stack);
            fake.onSigint?.();
            clearTimeout(timer);
            reject(new Error("code: 255\n stdout: \n stderr: error: preview cancelled\n"));
          });
        });
      },
    },
  };
}

vi.mock("@pulumi/pulumi/automation", async (importOriginal) => {
  const real = await importOriginal<typeof import("@pulumi/pulumi/automation")>();
  return {
    ...real,
    LocalWorkspace: {
      create: async () => {
        fake.opened++;
        return fakeWorkspace();
      },
    },
  };
});

// The pulumi commands the Automation API has no method for: `stack ls -Q` and `stack unselect`.
vi.mock("node:child_process", () => ({
  execFile: (_command: string, args: string[], _options: unknown, done: (e: Error | null, out: string, err: string) => void) => {
    if (args[0] === "stack" && args[1] === "ls") {
      const fails = fake.listFails;
      if (fails) setImmediate(() => done(fails(), "", ""));
      else setImmediate(() => done(null, JSON.stringify(fake.stacks.map((name) => ({ name, current: name === fake.selected }))), ""));
    } else if (args[0] === "stack" && args[1] === "unselect") {
      fake.calls.push("unselect");
      const fails = fake.unselectFails;
      if (fails) setImmediate(() => done(fails, "", "error: could not write the workspace file: permission denied\n"));
      else {
        fake.selected = undefined;
        setImmediate(() => done(null, "", ""));
      }
    } else setImmediate(() => done(new Error(`unexpected pulumi ${args.join(" ")}`), "", ""));
  },
}));

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return { ...real, existsSync: (file: string) => file === "/proj/Pulumi.yaml" || real.existsSync(file) };
});

beforeEach(() => {
  fake.stacks = ["organization/proj/acme", "organization/proj/globex"];
  fake.selected = undefined;
  fake.calls = [];
  fake.during = {};
  fake.opened = 0;
  fake.pulumiVersion = "3.274.1";
  fake.history = "[]";
  fake.config = {};
  fake.configFails = undefined;
  fake.events = [];
  fake.exit = undefined;
  fake.listFails = undefined;
  fake.selectFails = undefined;
  fake.unselectFails = undefined;
  fake.hold = false;
  fake.running = new Map();
  fake.onRunning = undefined;
  fake.sigints = [];
  fake.onSigint = undefined;
});

const pulumiRuns = () => fake.calls.filter((c) => c.startsWith("pulumi "));

describe("runFleet: a script's options, checked as the command line's are", () => {
  it.each([
    [{ stacks: ["acme", "acme"] }, /^stacks names acme twice: name each stack once$/],
    [{ stacks: [] }, /^stacks names no stack: name one or more, or leave stacks out/],
    [{ stacks: ["acme", " "] }, /^stacks holds an empty name$/],
    [{ parallel: Number.NaN }, /^parallel takes a whole number of stacks run at once, 1 or more, not NaN$/],
    [{ parallel: 0 }, /^parallel takes a whole number .* not 0$/],
    [{ parallel: 1.5 }, /^parallel takes a whole number .* not 1.5$/],
    [{ continueOnError: true }, /^continueOnError applies to up only \(preview, refresh and drift run every stack .*\), not to preview/],
    [{ command: "drift", continueOnError: true }, /^continueOnError applies to up only .* not to drift/],
    [{ command: "refresh", continueOnError: true }, /^continueOnError applies to up only .* not to refresh/],
  ] as Array<[Partial<FleetOptions>, RegExp]>)("refuses %j before pulumi runs", async (options, message) => {
    const run = runFleet({ command: "preview", cwd: "/proj", ...options });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(message);
    expect(fake.opened).toBe(0);
    expect(fake.calls).toEqual([]);
  });

  it("refuses a stack named twice in two forms, and never runs a stack twice", async () => {
    const run = runFleet({ command: "preview", cwd: "/proj", stacks: ["acme", "organization/proj/acme"] });
    await expect(run).rejects.toThrow(/^the stack organization\/proj\/acme is named twice: name each stack once$/);
    expect(pulumiRuns()).toEqual([]);
  });
});

describe("runFleet: a cancel", () => {
  it.each([
    ["before the stack's config is read", "onStart", ["unselect"]],
    ["while the stack's config is read", "config", ["config organization/proj/acme", "unselect"]],
    ["while the stack is selected", "select", ["config organization/proj/acme", "select organization/proj/acme", "unselect"]],
  ])("%s: starts no pulumi, reports the stack skipped and the run interrupted", async (_when, at, calls) => {
    const cancel = new AbortController();
    if (at !== "onStart") fake.during[at] = () => cancel.abort();
    const report = await runFleet({
      command: "up",
      cwd: "/proj",
      cancel: cancel.signal,
      onStart: () => (at === "onStart" ? cancel.abort() : undefined),
    });
    expect(fake.calls).toEqual(calls);
    expect(report.interrupted).toBe(true);
    expect(exitStatus(report)).toBe(1);
    expect(report.stacks.map((s) => [s.stack, s.result, s.skippedBecause])).toEqual([
      ["acme", "skipped", "cancelled before pulumi started"],
      // The canary's run ended; the run starts no other stack after a cancel.
      ["globex", "skipped", "interrupted before it started"],
    ]);
  });

  it("a Ctrl-C that kills a stack's config read (in a terminal it reaches every pulumi): the stack is skipped, the run interrupted", async () => {
    const stop = new AbortController();
    // In a terminal the Ctrl-C reaches the fleet (its `stop`) and, at once, the `pulumi config` it was running.
    fake.during["config"] = () => {
      stop.abort();
      throw new Error(
        "Command was killed with SIGINT (User interruption with CTRL-C): pulumi config --show-secrets --json --stack organization/proj/acme",
      );
    };
    const report = await runFleet({ command: "preview", cwd: "/proj", stop: stop.signal });
    expect(pulumiRuns()).toEqual([]);
    expect(report.stacks.map((s) => [s.stack, s.result, s.skippedBecause, s.error])).toEqual([
      ["acme", "skipped", "interrupted before pulumi started", undefined],
      ["globex", "skipped", "interrupted before it started", undefined],
    ]);
    expect(report.interrupted).toBe(true);
    expect(exitStatus(report)).toBe(1);
  });

  it.each(["stop", "cancel"] as const)(
    "a real failure of a stack's config read after a %s (not the Ctrl-C's doing) is reported as the failure it is",
    async (signal) => {
      const stop = new AbortController();
      const cancel = new AbortController();
      // The Ctrl-C reached the fleet alone (a CI runner's SIGINT): the config read went on, and failed on its own.
      fake.during["config"] = () => (signal === "stop" ? stop : cancel).abort();
      fake.configFails = () => pulumiFailed("", "error: failed to decrypt config: incorrect passphrase\n");
      const report = await runFleet({ command: "up", cwd: "/proj", stop: stop.signal, cancel: cancel.signal });
      expect(pulumiRuns()).toEqual([]);
      expect(report.stacks.map((s) => [s.stack, s.result, s.skippedBecause])).toEqual([
        ["acme", "failed", undefined],
        ["globex", "skipped", "interrupted before it started"],
      ]);
      expect(report.stacks[0]?.error).toContain("failed to decrypt config: incorrect passphrase");
      // No pulumi operation was cancelled: the error is the config's own.
      expect(report.stacks[0]?.error).not.toMatch(/^cancelled/);
      expect(report.interrupted).toBe(true);
    },
  );

  it("a stack's select killed by the Ctrl-C (the Automation API's CommandError, pulumi killed by SIGINT): skipped, not failed", async () => {
    const stop = new AbortController();
    fake.during["select"] = () => {
      stop.abort();
      throw killedBySigint("pulumi stack select organization/proj/acme");
    };
    const report = await runFleet({ command: "up", cwd: "/proj", stop: stop.signal });
    expect(report.stacks.map((s) => [s.stack, s.result, s.skippedBecause])).toEqual([
      ["acme", "skipped", "interrupted before pulumi started"],
      ["globex", "skipped", "interrupted before it started"],
    ]);
  });

  it.each([
    ["while the stack's config is read", "config", ["config organization/proj/acme", "unselect"]],
    ["while the stack is selected", "select", ["config organization/proj/acme", "select organization/proj/acme", "unselect"]],
  ])("a Ctrl-C that reaches the fleet alone %s (a CI runner's SIGINT): no pulumi operation starts after it", async (_when, at, calls) => {
    const stop = new AbortController();
    // The step itself goes on: nothing killed it (exec'd in CI, or a select waiting its turn in a terminal).
    fake.during[at] = () => stop.abort();
    const report = await runFleet({ command: "up", cwd: "/proj", stop: stop.signal });
    expect(fake.calls).toEqual(calls);
    expect(report.stacks.map((s) => [s.stack, s.result, s.skippedBecause])).toEqual([
      ["acme", "skipped", "interrupted before pulumi started"],
      ["globex", "skipped", "interrupted before it started"],
    ]);
    expect(report.interrupted).toBe(true);
    expect(exitStatus(report)).toBe(1);
  });

  it.each([
    ["config read", "config", "pulumi config --show-secrets --json --stack organization/proj/acme", "preview", "preview"],
    ["select", "select", "pulumi stack select organization/proj/acme", "preview", "preview"],
    ["select, of a drift check", "select", "pulumi stack select organization/proj/acme", "drift", "preview --refresh"],
  ] as const)(
    "a stack's %s killed by a SIGINT the run did not get (someone killed that pulumi): failed, saying so, and nothing ran",
    async (_step, at, command, fleetCommand, ran) => {
      fake.during[at] = () => {
        if (!fake.calls.some((call) => call.endsWith("globex"))) throw killedBySigint(command);
      };
      const report = await runFleet({ command: fleetCommand, cwd: "/proj", parallel: 1 });
      expect(report.stacks.map((s) => [s.stack, s.result])).toEqual([
        ["acme", "failed"],
        ["globex", "succeeded"],
      ]);
      expect(report.stacks[0]?.error).toBe(
        `${command} was killed by SIGINT, which did not come from this run (it was not interrupted), before pulumi ${ran} ` +
          "started on the stack: nothing ran on it; run the fleet again for it (--stacks acme)",
      );
      expect(report.interrupted).toBe(false);
      expect(pulumiRuns().filter((run) => run.startsWith("pulumi preview"))).toHaveLength(1);
    },
  );

  // Each command as the pulumi it runs: a drift check is a pulumi preview --refresh (there is no pulumi drift).
  it.each([
    ["up", "up", "run pulumi refresh --run-program --stack organization/proj/acme to find operations left pending"],
    ["refresh", "refresh", "run pulumi refresh --run-program --stack organization/proj/acme to find operations left pending"],
    ["preview", "preview", "a preview writes nothing: run the fleet again for it (--stacks acme)"],
    ["drift", "preview --refresh", "a drift check writes nothing: run the fleet again for it (--stacks acme)"],
  ] as const)(
    "a fleet %s whose pulumi a signal the run did not get killed: failed, its outcome unknown, with what to do",
    async (command, ran, next) => {
      fake.exit = killedBySigint(`pulumi ${ran} --stack organization/proj/acme`);
      const report = await runFleet({ command, cwd: "/proj", stacks: ["acme"] });
      expect(report.stacks[0]?.result).toBe("failed");
      expect(report.stacks[0]?.error).toMatch(
        new RegExp(
          `^pulumi ${ran} was killed by SIGINT, which did not come from this run \\(it was not interrupted\\): its outcome is unknown; `,
        ),
      );
      expect(report.stacks[0]?.error).toContain(next);
      expect(report.stacks[0]?.error).not.toContain("CTRL-C");
      expect(report.interrupted).toBe(false);
    },
  );

  it("in the Automation API's gap before it listens for the cancel still reaches pulumi (SIGINT)", async () => {
    const cancel = new AbortController();
    // The Automation API prepares pulumi's arguments after the fleet's last check and before it spawns pulumi.
    fake.during["serialize"] = () => cancel.abort();
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"], cancel: cancel.signal, cancelWaitMs: 0 });
    expect(report.stacks).toMatchObject([{ stack: "acme", result: "failed", error: "cancelled: preview cancelled" }]);
    expect(report.interrupted).toBe(true);
  });

  // A SIGTERM sent to the fleet's whole process group (`timeout` without `--foreground`, `kill -- -PGID`) reaches each
  // pulumi too: one that has said it is cancelling on it would take the fleet's SIGINT as its second signal and stop at once.
  const SIGTERM_SAID = "SIGTERM received; cancelling. If you would like to terminate immediately, send SIGTERM again.\n";
  it.each([
    ["on stdout", [["stdout", SIGTERM_SAID]], false, true],
    [
      "on stderr, after a Ctrl-C",
      [["stderr", "^C received; cancelling. If you would like to terminate immediately, press ^C again.\n"]],
      false,
      true,
    ],
    [
      "cut in two chunks",
      [
        ["stdout", "Refreshing (acme):\nSIGTERM received; canc"],
        ["stdout", "elling. If you would like to terminate immediately, send SIGTERM again.\n"],
      ],
      false,
      true,
    ],
    // The fleet's own SIGTERM may come first: its SIGINT is held a while for pulumi's line.
    ["just after the fleet's cancel, within the wait", [["stdout", SIGTERM_SAID]], true, true],
    // The words quoted inside a resource's diagnostic (a service's message the provider passes on) are not pulumi's own line.
    ["only quoted in a resource's warning: not spared", [["stdout", `    warning: the service said: ${SIGTERM_SAID}`]], false, false],
  ] as const)(
    "a pulumi that says it is cancelling (%s) gets no SIGINT, and is waited for; one that does not, gets one",
    async (_how, said, afterCancel, spared) => {
      fake.hold = true;
      const bothRunning = new Promise<void>((resolve) => {
        fake.onRunning = () => (fake.running.size === 2 ? resolve() : undefined);
      });
      const cancel = new AbortController();
      const run = runFleet({ command: "refresh", cwd: "/proj", cancel: cancel.signal, cancelWaitMs: 0 });
      await bothRunning;
      // The group's signal reached acme's pulumi, which is cancelling; globex's pulumi got none (it is in no such group).
      const say = () => {
        for (const [stream, text] of said) fake.running.get("acme")?.say(stream, text);
      };
      const globexSignalled = new Promise<void>((resolve) => {
        fake.onSigint = () => (fake.sigints.includes("globex") ? resolve() : undefined);
      });
      if (!afterCancel) say();
      cancel.abort();
      if (afterCancel) say();
      // acme's pulumi ends its cancelling after the fleet has sent its SIGINTs (each held alike, acme's first).
      await globexSignalled;
      fake.running.get("acme")?.end(pulumiFailed("", "error: refresh cancelled\n"));
      const report = await run;
      expect([...fake.sigints].sort()).toEqual(spared ? ["globex"] : ["acme", "globex"]);
      expect(report.stacks.map((s) => [s.stack, s.result])).toEqual([
        ["acme", "failed"],
        ["globex", "failed"],
      ]);
      // Spared, it ends its own cancelling; signalled, the SIGINT ends it (the fake's answer to one).
      expect(report.stacks[0]?.error).toMatch(spared ? /^cancelled: .*refresh cancelled/ : /^cancelled: preview cancelled$/);
      expect(report.stacks[1]?.error).toBe("cancelled: preview cancelled");
      expect(report.interrupted).toBe(true);
    },
  );
});

describe("runFleet: the drift check", () => {
  it("is a preview with refresh per stack, which writes no state (no refresh, no up), and any change fails it", async () => {
    const report = await runFleet({ command: "drift", cwd: "/proj" });
    expect(pulumiRuns()).toEqual([
      "pulumi preview --refresh --run-program=true --color never --exec-kind auto.local --stack organization/proj/acme",
      "pulumi preview --refresh --run-program=true --color never --exec-kind auto.local --stack organization/proj/globex",
    ]);
    expect(report).toMatchObject({ command: "drift", expectNoChanges: true, interrupted: false });
  });

  it("--refresh reaches pulumi for preview and up only when asked, running the program as a refresh does", async () => {
    await runFleet({ command: "up", cwd: "/proj", stacks: ["acme"], refresh: true });
    await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"] });
    await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"], refresh: true });
    await runFleet({ command: "refresh", cwd: "/proj", stacks: ["acme"] });
    // Each refresh runs the program: the provider is configured from the stack config now (a rotated key), not from the state.
    expect(pulumiRuns().filter((run) => !run.startsWith("pulumi stack history"))).toEqual([
      "pulumi up --yes --skip-preview --refresh --run-program=true --color never --suppress-outputs --exec-kind auto.local --stack organization/proj/acme",
      "pulumi preview --color never --exec-kind auto.local --stack organization/proj/acme",
      "pulumi preview --refresh --run-program=true --color never --exec-kind auto.local --stack organization/proj/acme",
      "pulumi refresh --skip-preview --yes --run-program=true --color never --suppress-outputs --exec-kind auto.local --stack organization/proj/acme",
    ]);
    await expect(runFleet({ command: "refresh", cwd: "/proj", refresh: true })).rejects.toThrow(
      /^refresh applies to preview and up .* not to refresh$/,
    );
  });
});

const USER = "pulumi-nodejs:dynamic/workspace-access:User";
/** The engine's URN of acme's user `name`. */
const userUrn = (name: string) => `urn:pulumi:acme::proj::${USER}::${name}`;
let sequence = 0;
/** The engine's event that `op` starts on the user `name`, or (`done`) that it ended, its outputs recorded. */
const step = (op: string, name: string, done = false): EngineEvent => ({
  sequence: sequence++,
  timestamp: 0,
  [done ? "resOutputsEvent" : "resourcePreEvent"]: { metadata: { op, urn: userUrn(name), type: USER, provider: "" } as never },
});
const summary = (resourceChanges: Record<string, number>): EngineEvent =>
  ({ sequence: sequence++, timestamp: 0, summaryEvent: { resourceChanges } }) as never;

describe("runFleet: the counts, the engine's summary's alone", () => {
  const none = { create: 0, update: 0, delete: 0, replace: 0, same: 0 };

  it("drift: a stack whose engine sent no summary (pulumi ended mid-stream, its event log cut) is not reported without drift", async () => {
    fake.events = [step("same", "bob@acme.example")];
    const report = await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    expect(report.stacks).toEqual([{ stack: "acme", result: "succeeded", changes: null, resources: [] }]);
    expect(exitStatus(report)).toBe(1);
    expect(JSON.parse(renderFleetReport(report, "json")).stacks[0].changes).toBeNull();
    const text = renderFleetReport(report, "text");
    expect(text).toMatch(/^acme\s+succeeded(\s+\?){5}$/m);
    expect(text).toContain("changes unknown: no summary from the engine");
    expect(text).toContain("0 drifted, 1 with drift unknown (no summary from the engine)");
  });

  it("drift: with the engine's summary, its counts: no change is no drift (exit 0), a change is (exit 1)", async () => {
    fake.events = [step("same", "bob@acme.example"), summary({ same: 1 })];
    const clean = await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    expect(clean.stacks).toEqual([{ stack: "acme", result: "succeeded", changes: { ...none, same: 1 }, resources: [] }]);
    expect(exitStatus(clean)).toBe(0);
    fake.events = [step("update", "bob@acme.example"), summary({ update: 1 })];
    const drifted = await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    expect(drifted.stacks[0]).toMatchObject({ changes: { ...none, update: 1 }, resources: [{ op: "update", name: "bob@acme.example" }] });
    expect(exitStatus(drifted)).toBe(1);
  });

  it("preview: no summary, counts unknown (the changes its events named still listed); the run fails only when no change is expected", async () => {
    fake.events = [step("create", "alice@acme.example")];
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"] });
    expect(report.stacks).toEqual([
      {
        stack: "acme",
        result: "succeeded",
        changes: null,
        resources: [{ op: "create", type: "User", name: "alice@acme.example", urn: userUrn("alice@acme.example") }],
      },
    ]);
    expect(exitStatus(report)).toBe(0);
    expect(exitStatus(await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"], expectNoChanges: true }))).toBe(1);
  });

  it("a failed stack: what the engine counted before it stopped when its summary came, else unknown, not none", async () => {
    fake.exit = new Error("code: 255\n stdout: \n stderr: error: the engine stopped\n");
    fake.events = [step("update", "bob@acme.example")];
    const cut = await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    expect(cut.stacks).toMatchObject([{ stack: "acme", result: "failed", changes: null, error: "the engine stopped" }]);
    fake.events = [step("update", "bob@acme.example"), summary({ update: 1, same: 2 })];
    const counted = await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    expect(counted.stacks).toMatchObject([{ stack: "acme", result: "failed", changes: { ...none, update: 1, same: 2 } }]);
  });
});

describe("runFleet: the changed resources, for the JSON report", () => {
  /** A stack whose key is in its config: a program may still name a resource after it, whole or in part. */
  const withKey = () => {
    fake.config = { "workspace-access:apiKey": { value: RUNS_KEY, secret: true } };
  };

  it("lists each with its operation, type, name and URN, the stack's key removed from every one, whole or in part", async () => {
    withKey();
    fake.events = [
      step("create", `echo-${RUNS_KEY}`),
      step("update", `part-${RUNS_KEY.slice(4, 16).toLowerCase()}`),
      step("create", "alice@acme.example"),
      summary({ create: 2, update: 1 }),
    ];
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"] });
    const json = renderFleetReport(report, "json");
    expect(runsOf(json)).toEqual([]);
    expect(JSON.parse(json).stacks[0].resources).toEqual([
      { op: "create", type: "User", name: "alice@acme.example", urn: userUrn("alice@acme.example") },
      { op: "create", type: "User", name: "echo-[redacted]", urn: userUrn("echo-[redacted]") },
      { op: "update", type: "User", name: "part-[redacted]", urn: userUrn("part-[redacted]") },
    ]);
  });

  it("a failed up: what it changed before it stopped, the key removed alike; a failed preview lists none", async () => {
    withKey();
    fake.exit = new Error("code: 255\n stdout: \n stderr: error: update failed\n");
    fake.events = [step("create", `made-${RUNS_KEY}`), step("create", `made-${RUNS_KEY}`, true), step("create", "planned@acme.example")];
    const up = await runFleet({ command: "up", cwd: "/proj", stacks: ["acme"] });
    const json = renderFleetReport(up, "json");
    expect(runsOf(json)).toEqual([]);
    expect(JSON.parse(json).stacks[0]).toMatchObject({
      result: "failed",
      resources: [{ op: "create", type: "User", name: "made-[redacted]", urn: userUrn("made-[redacted]") }],
    });
    const preview = await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"] });
    expect(JSON.parse(renderFleetReport(preview, "json")).stacks[0]).not.toHaveProperty("resources");
  });
});

describe("runFleet: what the Automation API reads after an up or a refresh succeeded", () => {
  it("takes an up's and a refresh's counts from the stack's history, read without its secrets; reads no outputs", async () => {
    fake.history = JSON.stringify([{ kind: "update", result: "succeeded", resourceChanges: { create: 2, same: 3 } }]);
    for (const command of ["up", "refresh"] as const) {
      const report = await runFleet({ command, cwd: "/proj", stacks: ["acme"] });
      expect(report.stacks).toEqual([
        { stack: "acme", result: "succeeded", changes: { create: 2, update: 0, delete: 0, replace: 0, same: 3 }, resources: [] },
      ]);
    }
    expect(pulumiRuns().filter((run) => run.startsWith("pulumi stack"))).toEqual([
      "pulumi stack history --json --page-size 1 --page 1 --stack organization/proj/acme",
      "pulumi stack history --json --page-size 1 --page 1 --stack organization/proj/acme",
    ]);
    expect(fake.calls.filter((call) => call.startsWith("outputs"))).toEqual([]);
  });

  it.each(["up", "refresh"] as const)(
    "%s: one whose history cannot be read succeeded: a warning says what was not read",
    async (command) => {
      fake.history = new Error("code: 255\n stdout: \n stderr: error: could not read the stack's history: 503 Service Unavailable\n");
      const warnings = [
        `the ${command} succeeded, but its summary could not be read from the stack's history (could not read the stack's ` +
          "history: 503 Service Unavailable): its counts are the engine's summary event's (unknown if none came); pulumi " +
          "stack history --stack organization/proj/acme shows the summary",
      ];
      const report = await runFleet({ command, cwd: "/proj", stacks: ["acme"] });
      // No summary event either (the fake's pulumi sent none): the counts are unknown, not none.
      expect(report.stacks).toEqual([{ stack: "acme", result: "succeeded", changes: null, resources: [], warnings }]);
      expect(exitStatus(report)).toBe(0);
      expect(exitStatus(await runFleet({ command, cwd: "/proj", stacks: ["acme"], expectNoChanges: true }))).toBe(1);
      fake.events = [{ sequence: 0, timestamp: 0, summaryEvent: { resourceChanges: { update: 1, same: 2 } } }];
      const summed = await runFleet({ command, cwd: "/proj", stacks: ["acme"] });
      expect(summed.stacks).toEqual([
        { stack: "acme", result: "succeeded", changes: { create: 0, update: 1, delete: 0, replace: 0, same: 2 }, resources: [], warnings },
      ]);
    },
  );
});

describe("runFleet: a stack whose config cannot be read", () => {
  // What `pulumi config --show-secrets --json` printed holds the stack's secrets decrypted, and nothing knows them yet.
  const secret = "wa_live_0123456789abcdefSECRET";
  const printed = `{"workspace-access:apiKey": {"value": "${secret}", "secret": true}}`;
  it.each([
    ["printed something that is not JSON", () => syntaxErrorOf(`${secret} ${printed}`), "printed something that is not JSON"],
    [
      "printed it, then failed",
      () => pulumiFailed(printed, "error: decryption failed midway\n"),
      "pulumi config --show-secrets --json --stack organization/proj/acme failed: decryption failed midway",
    ],
    [
      "printed it, then failed without an error line",
      () => pulumiFailed(printed, "warning: a plugin is newer\n"),
      "failed with no error line; what it printed is not shown",
    ],
    ["printed it, then failed without a word on stderr", () => pulumiFailed(`${printed}\n`, ""), "what it printed is not shown"],
  ])("fails it without quoting what pulumi printed, when pulumi %s", async (_, failure, said) => {
    fake.configFails = failure;
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["acme"] });
    const [stack] = report.stacks;
    expect(stack?.result).toBe("failed");
    expect(stack?.error).toContain(said);
    // Every place the message goes: each report format, and the stack's line on stderr.
    const shown = [...(["text", "markdown", "json"] as const).map((format) => renderFleetReport(report, format)), stackDoneLine(stack!)];
    for (const text of shown) {
      for (let i = 0; i + 8 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 8));
    }
    expect(pulumiRuns()).toEqual([]);
  });
});

/**
 * What the Automation API throws for a pulumi that printed `stdout` and `stderr` and exited 1, built as its `exec` builds
 * it: execa's error (execa's own `makeError`, execa found as the Automation API finds it), wrapped by `createCommandError`
 * in a `CommandResult` whose stderr is execa's message, which holds stdout as well.
 */
function pulumiFailed(stdout: string, stderr: string): Error {
  const automation = createRequire(require.resolve("@pulumi/pulumi/automation/cmd"));
  const makeError = automation("execa/lib/error") as (result: Record<string, unknown>) => Error;
  const command = "pulumi config --show-secrets --json --stack organization/proj/acme --non-interactive";
  // execa strips the final newline of each (its `stripFinalNewline`).
  const [out, err] = [stdout, stderr].map((text) => text.replace(/\n$/, ""));
  const failed = makeError({ stdout: out, stderr: err, exitCode: 1, command, escapedCommand: command, parsed: { options: {} } });
  const { CommandResult } = automationCmd as unknown as { CommandResult: new (...args: unknown[]) => unknown };
  const { createCommandError } = automationErrors as unknown as { createCommandError(result: unknown): Error };
  return createCommandError(new CommandResult("", failed.message, -2, failed));
}

/**
 * What the Automation API throws for a pulumi command that a Ctrl-C in a terminal killed: execa's error, wrapped by its own
 * (internal) `createCommandError`, as its `exec` does.
 */
function killedBySigint(command: string): Error {
  const { CommandResult } = automationCmd as unknown as { CommandResult: new (...args: unknown[]) => unknown };
  const { createCommandError } = automationErrors as unknown as { createCommandError(result: unknown): Error };
  const killed = Object.assign(new Error(`Command was killed with SIGINT (User interruption with CTRL-C): ${command}`), {
    signal: "SIGINT",
  });
  return createCommandError(new CommandResult("", killed.message, -2, killed));
}

/** The error JSON.parse throws for `text`: its message quotes the text. */
function syntaxErrorOf(text: string): Error {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as Error;
  }
  throw new Error("parsed");
}

describe("runFleet: a pulumi CLI too old to run the program in a refresh", () => {
  it.each([
    [
      "drift",
      false,
      /^drift refreshes each stack by running its program .* needs pulumi 3\.172\.0 or later; the pulumi on PATH is 3\.168\.0: install/,
    ],
    ["refresh", false, /^refresh refreshes each stack/],
    ["up", true, /^up --refresh refreshes each stack/],
    ["preview", true, /^preview --refresh refreshes each stack/],
  ] as const)("refuses %s (--refresh: %s) before any stack runs, naming the version needed", async (command, refresh, message) => {
    fake.pulumiVersion = "3.168.0";
    const run = runFleet({ command, cwd: "/proj", refresh });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(message);
    expect(fake.calls).toEqual([]);
  });

  it("runs what needs no refresh, and every command on 3.172.0 or later", async () => {
    fake.pulumiVersion = "3.168.0";
    await runFleet({ command: "up", cwd: "/proj", stacks: ["acme"] });
    for (const version of ["3.172.0", "v3.180.1", "4.0.0"]) {
      fake.pulumiVersion = version;
      await runFleet({ command: "drift", cwd: "/proj", stacks: ["acme"] });
    }
    expect(pulumiRuns().map((run) => run.split(" ").slice(0, 2).join(" "))).toEqual([
      "pulumi up",
      "pulumi stack",
      "pulumi preview",
      "pulumi preview",
      "pulumi preview",
    ]);
    expect(() => checkRunProgram(() => "3.171.9", "refresh", false)).toThrow(/3\.171\.9/);
    // A CLI whose version cannot be read is left to answer for itself.
    expect(() =>
      checkRunProgram(
        () => {
          throw new Error("Failed to get Pulumi version");
        },
        "drift",
        false,
      ),
    ).not.toThrow();
  });
});

describe("runFleet: stack names and the selection", () => {
  it("takes a stack's fully-qualified name, runs that stack by it and reports it by its short name", async () => {
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["organization/proj/globex"] });
    expect(report.stacks.map((s) => [s.stack, s.result])).toEqual([["globex", "succeeded"]]);
    expect(fake.calls.slice(0, 2)).toEqual(["config organization/proj/globex", "select organization/proj/globex"]);
  });

  it("tells onStacks the stacks to run, by short name and in order, before any starts", async () => {
    const told: string[] = [];
    await runFleet({
      command: "preview",
      cwd: "/proj",
      stacks: ["organization/proj/globex", "acme"],
      onStacks: (stacks) => told.push(`stacks ${stacks.join(",")}`),
      onStart: (stack) => told.push(`start ${stack}`),
    });
    expect(told).toEqual(["stacks globex,acme", "start globex", "start acme"]);
  });

  it("leaves no stack selected when none was before the run", async () => {
    await runFleet({ command: "preview", cwd: "/proj" });
    expect(fake.calls.at(-1)).toBe("unselect");
    expect(fake.selected).toBeUndefined();
  });

  it("selects again the stack selected before the run, by its fully-qualified name", async () => {
    fake.selected = "organization/proj/acme";
    await runFleet({ command: "preview", cwd: "/proj", stacks: ["globex"] });
    expect(fake.calls.at(-1)).toBe("select organization/proj/acme");
    expect(fake.selected).toBe("organization/proj/acme");
  });
});

describe("runFleet: the stack listing", () => {
  it("killed by a Ctrl-C (in a terminal it reaches pulumi stack ls): rejects saying it was interrupted and nothing ran, no login advice", async () => {
    const stop = new AbortController();
    fake.listFails = () => {
      stop.abort();
      // Node's execFile error for a child a signal killed.
      return Object.assign(new Error("Command failed: pulumi stack ls --json --fully-qualify-stack-names --non-interactive\n"), {
        killed: false,
        code: null,
        signal: "SIGINT",
      });
    };
    const run = runFleet({ command: "up", cwd: "/proj", stop: stop.signal });
    await expect(run).rejects.toThrow(/^interrupted while listing the stacks of \/proj: no stack ran$/);
    await expect(run).rejects.not.toThrow(UsageError);
    expect(fake.calls).toEqual([]);
  });

  it("that fails on the project's Pulumi.yaml: not a usage error (the command line was right), pulumi's error, no login advice", async () => {
    fake.listFails = () =>
      Object.assign(
        new Error(
          "Command failed: pulumi stack ls --json --fully-qualify-stack-names --non-interactive\n" +
            "error: could not load current project: could not unmarshal '/proj/Pulumi.yaml': invalid YAML file: " +
            "yaml: line 3: mapping values are not allowed in this context\n",
        ),
        { code: 1 },
      );
    const error = await runFleet({ command: "up", cwd: "/proj" }).catch((e: unknown) => e);
    expect(UsageError.isInstance(error)).toBe(false);
    expect((error as Error).message).toBe(
      "pulumi cannot read the project in /proj (could not load current project: could not unmarshal '/proj/Pulumi.yaml': " +
        "invalid YAML file: yaml: line 3: mapping values are not allowed in this context): fix its Pulumi.yaml; no stack ran",
    );
    expect(fake.calls).toEqual([]);
  });

  it("that fails naming the environment's API key: pulumi's words go out without it", async () => {
    const key = "wa-key-0123456789abcdef";
    const before = process.env["WORKSPACE_ACCESS_API_KEY"];
    process.env["WORKSPACE_ACCESS_API_KEY"] = key;
    try {
      for (const line of [`error: could not load current project: bad value ${key}`, `error: cannot reach ${key}.example.com`]) {
        fake.listFails = () => Object.assign(new Error(`Command failed: pulumi stack ls\n${line}\n`), { code: 1 });
        const error = (await runFleet({ command: "up", cwd: "/proj" }).catch((e: unknown) => e)) as Error;
        expect(error.message).toContain("pulumi");
        expect(error.message).not.toContain(key.slice(0, 12));
      }
    } finally {
      if (before === undefined) delete process.env["WORKSPACE_ACCESS_API_KEY"];
      else process.env["WORKSPACE_ACCESS_API_KEY"] = before;
    }
  });

  it("that fails on its own: a usage error naming pulumi's error, and how to log in", async () => {
    fake.listFails = () =>
      Object.assign(new Error("Command failed: pulumi stack ls\nerror: PULUMI_ACCESS_TOKEN must be set for login\n"), { code: 255 });
    const run = runFleet({ command: "up", cwd: "/proj" });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(/\(error: PULUMI_ACCESS_TOKEN must be set for login\): put pulumi on PATH and log in/);
  });
});

describe("runFleet: a selection that cannot be put back", () => {
  const denied = () => new Error("code: 255\n stdout: \n stderr: error: could not write the workspace file: permission denied\n");

  it("says which stack the run left selected and how to select the user's again, and fails the run (exit 1)", async () => {
    fake.selected = "organization/proj/acme";
    fake.selectFails = (name) => (name === "organization/proj/acme" ? denied() : undefined);
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["globex"] });
    expect(report.stacks.map((s) => s.result)).toEqual(["succeeded"]);
    expect(fake.selected).toBe("organization/proj/globex");
    expect(report.selectionNotRestored).toBe(
      "could not select organization/proj/acme again after the run (could not write the workspace file: permission denied): " +
        "organization/proj/globex, the last stack the run selected, stays selected in /proj, where a bare pulumi up would " +
        "reach it; run pulumi stack select organization/proj/acme there",
    );
    expect(exitStatus(report)).toBe(1);
    expect(JSON.parse(renderFleetReport(report, "json")).selectionNotRestored).toBe(report.selectionNotRestored);
    for (const format of ["text", "markdown"] as const) {
      expect(renderFleetReport(report, format)).toContain(`warning: ${report.selectionNotRestored}`);
    }
  });

  it("none selected before the run, the unselect failing: names the stack left selected and pulumi stack unselect", async () => {
    fake.unselectFails = Object.assign(new Error("Command failed: pulumi stack unselect --non-interactive\n"), { code: 1 });
    const report = await runFleet({ command: "preview", cwd: "/proj", parallel: 1 });
    expect(report.selectionNotRestored).toBe(
      "could not unselect the stack after the run (could not write the workspace file: permission denied): " +
        "organization/proj/globex, the last stack the run selected, stays selected in /proj, where a bare pulumi up would " +
        "reach it; run pulumi stack unselect there",
    );
    expect(exitStatus(report)).toBe(1);
  });

  it("redacts pulumi's error of the failed select: a secret config value and the key reach no format of the report, nor stderr", async () => {
    const email = "ceo.private@acme.example";
    fake.config = {
      "workspace-access:apiKey": { value: RUNS_KEY, secret: true },
      "proj:owner": { value: email, secret: true },
      "proj:region": { value: "eu-west-1-region", secret: false },
    };
    fake.selected = "organization/proj/acme";
    fake.selectFails = (name) =>
      name === "organization/proj/acme"
        ? new Error(
            "code: 255\n stdout: \n stderr: error: could not save the workspace file: " +
              `proj:owner ${email.toUpperCase()}, workspace-access:apiKey ${RUNS_KEY.slice(3, 20)}, proj:region eu-west-1-region\n`,
          )
        : undefined;
    const report = await runFleet({ command: "preview", cwd: "/proj", stacks: ["globex"] });
    expect(report.selectionNotRestored).toBe(
      "could not select organization/proj/acme again after the run (could not save the workspace file: proj:owner [redacted], " +
        "workspace-access:apiKey [redacted], proj:region eu-west-1-region): organization/proj/globex, the last stack the run " +
        "selected, stays selected in /proj, where a bare pulumi up would reach it; run pulumi stack select organization/proj/acme there",
    );
    const printed = [
      ...(["text", "markdown", "json"] as const).map((format) => renderFleetReport(report, format)),
      selectionWarningOnStderr(report, "workspace-access-fleet", false),
    ];
    expect(printed[3]).toContain("[redacted]");
    for (const text of printed) {
      expect(runsOf(text)).toEqual([]);
      expect(text.toLowerCase()).not.toContain(email);
    }
    expect(exitStatus(report)).toBe(1);
  });

  it("a hook that throws does not hide it: the rejection says both, the hook's error its cause, and the command exits 1", async () => {
    fake.selected = "organization/proj/acme";
    fake.selectFails = (name) => (name === "organization/proj/acme" ? denied() : undefined);
    const broke = new UsageError("the hook broke");
    const run = runFleet({
      command: "preview",
      cwd: "/proj",
      stacks: ["globex"],
      onDone: () => {
        throw broke;
      },
    });
    await expect(run).rejects.toThrow(
      "the onDone hook failed for globex: the hook broke; and could not select organization/proj/acme again after the run (could not write the workspace file: " +
        "permission denied): organization/proj/globex, the last stack the run selected, stays selected in /proj, where a bare " +
        "pulumi up would reach it; run pulumi stack select organization/proj/acme there",
    );
    const error = await run.catch((e: unknown) => e);
    expect((error as Error).cause).toBe(broke);
    // Not a usage error (exit 2, "nothing ran"): the command's other failures exit 1.
    expect(UsageError.isInstance(error)).toBe(false);
    expect(fake.selected).toBe("organization/proj/globex");
  });

  it("a hook that throws, the selection put back: rejects naming the hook, the hook's error its cause", async () => {
    fake.selected = "organization/proj/acme";
    const broke = new Error("the hook broke");
    const run = runFleet({
      command: "preview",
      cwd: "/proj",
      onStart: () => {
        throw broke;
      },
    });
    await expect(run).rejects.toThrow(/^the onStart hook failed for acme: the hook broke$/);
    expect(((await run.catch((e: unknown) => e)) as Error).cause).toBe(broke);
    expect(fake.selected).toBe("organization/proj/acme");
  });

  it("is no matter when the run selected no stack (the selection is as it was), nor when it is put back", async () => {
    const cancel = new AbortController();
    fake.unselectFails = new Error("Command failed: pulumi stack unselect --non-interactive\n");
    const cancelled = await runFleet({ command: "up", cwd: "/proj", cancel: cancel.signal, onStart: () => cancel.abort() });
    expect(cancelled.selectionNotRestored).toBeUndefined();
    fake.unselectFails = undefined;
    const report = await runFleet({ command: "preview", cwd: "/proj" });
    expect(report).not.toHaveProperty("selectionNotRestored");
    expect(JSON.parse(renderFleetReport(report, "json"))).not.toHaveProperty("selectionNotRestored");
    expect(exitStatus(report)).toBe(0);
  });
});

describe("runFleet: a hook that throws a UsageError (the caller's code, not the command line)", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  const throwing = (hook: "onStacks" | "onStart" | "onDone", error: unknown): Partial<FleetOptions> => ({
    [hook]: () => {
      throw error;
    },
  });

  it.each([
    ["onStacks", /^the onStacks hook failed: --stacks is wrong somewhere else$/, []],
    ["onStart", /^the onStart hook failed for acme: --stacks is wrong somewhere else$/, []],
    ["onDone", /^the onDone hook failed for acme: --stacks is wrong somewhere else$/, ["acme"]],
  ] as const)("%s: rejects with an Error naming the hook, not a usage error, its cause the hook's", async (hook, message, ran) => {
    fake.selected = "organization/proj/acme";
    const broke = new UsageError("--stacks is wrong somewhere else");
    const run = runFleet({ command: "up", cwd: "/proj", ...throwing(hook, broke) });
    const error = await run.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    expect(UsageError.isInstance(error)).toBe(false);
    expect((error as Error).cause).toBe(broke);
    expect(
      pulumiRuns()
        .filter((r) => r.startsWith("pulumi up"))
        .map((r) => r.split(" --stack ")[1]?.split(" ")[0]),
    ).toEqual(ran.map((stack) => `organization/proj/${stack}`));
    expect(fake.selected).toBe("organization/proj/acme");
  });

  it("the command exits 1, as for any failure after its stacks ran (2 says nothing ran), the hook named on stderr", async () => {
    const written = await ranCommand({
      name: "workspace-access-fleet",
      usage: "",
      parse: () => ({}),
      run: () => runFleet({ command: "preview", cwd: "/proj", ...throwing("onDone", new UsageError("the hook broke")) }).then(exitStatus),
      failureStatus: 1,
    });
    expect(written).toBe("workspace-access-fleet: the onDone hook failed for acme: the hook broke\n");
    expect(process.exitCode).toBe(1);
  });
});

describe("pickStacks", () => {
  const listed = ["organization/proj/acme", "other/proj/acme", "organization/proj/globex"].map((name) => ({ name, current: false }));

  it("takes a name as pulumi does (stack, org/stack, org/project/stack)", () => {
    expect(pickStacks(listed, ["globex", "other/acme"], "/proj")).toEqual({
      stacks: ["globex", "acme"],
      fullNames: new Map([
        ["globex", "organization/proj/globex"],
        ["acme", "other/proj/acme"],
      ]),
    });
  });

  it.each([
    [["acme"], /^acme names 2 stacks \(organization\/proj\/acme, other\/proj\/acme\): name one by its full name$/],
    [["organization/acme", "other/proj/acme"], /^organization\/proj\/acme and other\/proj\/acme are both named acme in the report/],
    [["nope", "proj/acme"], /^no stack named nope, proj\/acme in the project in \/proj; its stacks: acme, globex$/],
  ])("refuses %j", (wanted, message) => {
    expect(() => pickStacks(listed, wanted, "/proj")).toThrow(message);
  });
});
