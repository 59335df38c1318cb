/** `runFleet`: one command over every stack of a project, in the order `schedule.ts` gives, each run by `stack-run.ts`. */
import { UsageError } from "../command-line";
import { checkContinueOnError, checkNamedOnce, checkParallel, checkRefresh, DEFAULT_PARALLEL } from "./args";
import { openFleetProject, restoreSelection, selectionNotRestored } from "./project";
import { type ScheduleOptions, schedule } from "./schedule";
import { runStack, secretsRedactor } from "./stack-run";
import { expectsNoChanges, FLEET_COMMANDS, type FleetCommand, type FleetReport } from "./types";

/** Options of {@link runFleet}. */
export interface FleetOptions extends Pick<ScheduleOptions, "stop" | "onStart" | "onDone"> {
  /** Told the stacks to run, in order, once the project is read and before any starts; should it throw, none runs. */
  onStacks?: ((stacks: readonly string[]) => void) | undefined;
  command: FleetCommand;
  /** The Pulumi project's folder (default: the current one). */
  cwd?: string;
  /**
   * The stacks to run, in order, each named once, by its name (`acme`) or its fully-qualified name
   * (`organization/proj/acme`); default: every stack of the project on the current backend, by name.
   */
  stacks?: string[];
  /** At most this many stacks at once: a whole number, 1 or more (default 4). */
  parallel?: number;
  /** `preview` and `up`: refresh each stack first (`pulumi preview --refresh`, `pulumi up --refresh`). */
  refresh?: boolean;
  /** `up` only (the other commands run every stack anyway): run every stack even after the canary or another stack failed. */
  continueOnError?: boolean;
  /**
   * A change in any stack fails the run (exit 1), the stack still `succeeded`; as with pulumi's, an up still applies it.
   * Always on for `drift`.
   */
  expectNoChanges?: boolean;
  /**
   * Once aborted, no new stack starts, a stack whose pulumi has not started yet is reported `skipped`, and each running
   * pulumi gets SIGINT, on which it cancels (the second Ctrl-C, or SIGTERM); not one that has said it is cancelling
   * already (the signal reached it too), to which a SIGINT would be a second signal. The report is then `interrupted`.
   */
  cancel?: AbortSignal;
  /** How long a cancel holds each pulumi's SIGINT (`CANCEL_SIGINT_WAIT_MS`; the tests' fake pulumi ends sooner). @internal */
  cancelWaitMs?: number;
}

/**
 * The checks `args.ts` makes of the command line, made of a script's options, which reach `runFleet` unchecked: a
 * {@link UsageError} naming the option, before any pulumi runs.
 */
function checkOptions(options: FleetOptions): void {
  if (!(FLEET_COMMANDS as readonly unknown[]).includes(options.command)) {
    throw new UsageError(`command must be ${FLEET_COMMANDS.join(", ")}, not ${JSON.stringify(options.command)}`);
  }
  const { stacks, parallel } = options;
  if (stacks !== undefined) {
    // An empty list would run nothing and report success: leaving `stacks` out is how to mean every stack.
    if (!Array.isArray(stacks) || stacks.length === 0) {
      throw new UsageError("stacks names no stack: name one or more, or leave stacks out to run every stack of the project");
    }
    if (stacks.some((name) => typeof name !== "string" || name.trim() === "")) throw new UsageError("stacks holds an empty name");
    checkNamedOnce(stacks, "stacks");
  }
  if (parallel !== undefined) checkParallel(parallel, "parallel");
  checkRefresh(options.command, options.refresh === true, "refresh");
  checkContinueOnError(options.command, options.continueOnError === true, "continueOnError");
}

/**
 * The oldest pulumi CLI whose refreshes can run the program as the fleet's do (`--run-program`): `refresh` took it
 * before, `preview` and `up` took it in 3.169, and `up --refresh` used it from 3.172 on. The package's `@pulumi/pulumi`
 * range (3.216 and later) passes it through the Automation API (3.180 and later).
 */
export const RUN_PROGRAM_PULUMI = [3, 172, 0] as const;

/**
 * A pulumi CLI older than {@link RUN_PROGRAM_PULUMI} would refuse the flag the fleet's refreshes need (every stack
 * failing on an unknown flag): refused before any stack runs. A CLI whose version is unknown is left to say so itself.
 */
export function checkRunProgram(pulumiVersion: () => string, command: FleetCommand, refresh: boolean): void {
  if (command !== "drift" && command !== "refresh" && !refresh) return;
  let version: string;
  try {
    version = pulumiVersion();
  } catch {
    return;
  }
  const parts = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version)?.slice(1).map(Number);
  if (!parts) return;
  const older = RUN_PROGRAM_PULUMI.findIndex((n, i) => parts[i] !== n);
  if (older < 0 || (parts[older] ?? 0) > RUN_PROGRAM_PULUMI[older]!) return;
  const minimum = RUN_PROGRAM_PULUMI.join(".");
  throw new UsageError(
    `${command}${refresh ? " --refresh" : ""} refreshes each stack by running its program (pulumi's --run-program, so that a key rotated ` +
      `in the stack config is used), which needs pulumi ${minimum} or later; the pulumi on PATH is ${version}: install pulumi ${minimum} or later`,
  );
}

/** The caller's hooks of {@link FleetOptions}. */
type Hook = "onStacks" | "onStart" | "onDone";

/**
 * A caller's hook that threw: its name (and the stack it was told of) before its message, its `cause` the hook's error.
 * Never a `UsageError`, whatever the hook threw: the run's options were right, and stacks may have run (exit 1, not 2).
 */
class HookFailed extends Error {
  constructor(hook: Hook, stack: string | undefined, error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    super(`the ${hook} hook failed${stack === undefined ? "" : ` for ${stack}`}: ${message}`, { cause: error });
  }
}

/** `call` (a caller's hook, if given), its errors as {@link HookFailed}. */
function guarded<A>(hook: Hook, call: ((arg: A) => void) | undefined, stackOf: (arg: A) => string | undefined) {
  if (call === undefined) return undefined;
  return (arg: A): void => {
    try {
      call(arg);
    } catch (error) {
      throw new HookFailed(hook, stackOf(arg), error);
    }
  };
}

/**
 * Runs the command over the stacks; rejects only before any stack runs: with a `UsageError` (`FleetUsageError` in the
 * package's exports), or, when a Ctrl-C (or SIGTERM) killed the pulumi listing the stacks, with an `Error` saying so; and,
 * once the running stacks end, when a caller's hook threw: an `Error` naming the hook (and the stack it was told of), its
 * `cause` the hook's error, and saying the selection left behind when it could not be put back.
 */
export async function runFleet(options: FleetOptions): Promise<FleetReport> {
  checkOptions(options);
  const project = await openFleetProject(options.cwd ?? process.cwd(), options.stacks);
  checkRunProgram(() => project.workspace.pulumiVersion, options.command, options.refresh === true);
  guarded("onStacks", options.onStacks, () => undefined)?.(project.stacks);
  // `pulumi stack select` writes one file per project: selects run one after another.
  let selects: Promise<unknown> = Promise.resolve();
  const serially = <T>(select: () => Promise<T>): Promise<T> => {
    const next = selects.then(select, select);
    selects = next.catch(() => undefined);
    return next;
  };
  const cancel = options.cancel ?? new AbortController().signal;
  // A cancel stops the run as well: no stack starts after it.
  const stop = options.stop === undefined ? cancel : AbortSignal.any([options.stop, cancel]);
  const isUp = options.command === "up";
  const expectNoChanges = expectsNoChanges(options.command, options.expectNoChanges);
  // The last stack a select of the run selected: the one selected in the folder until the selection is put back.
  let lastSelected: string | undefined;
  let notRestored: string | undefined;
  let scheduled: Awaited<ReturnType<typeof schedule>>;
  // A caller's hook that threw (its {@link HookFailed}, kept while the selection is put back).
  let hook: { error: unknown } | undefined;
  // The secrets of every stack whose config the run read (and the environment's key): pulumi's error when the selection
  // cannot be put back is redacted of them, as each stack's own messages are of its own.
  const redactors = [secretsRedactor({})];
  const redact = (text: string) => redactors.reduce((out, redactor) => redactor(out), text);
  try {
    scheduled = await schedule({
      stacks: project.stacks,
      parallel: options.parallel ?? DEFAULT_PARALLEL,
      canary: isUp,
      // A preview, a refresh or a drift check changes no workspace: every stack is worth its answer.
      stopOnFailure: isUp && options.continueOnError !== true,
      run: (stack) =>
        runStack(stack, {
          workspace: project.workspace,
          command: options.command,
          fullName: project.fullNames.get(stack),
          refresh: options.refresh,
          cancel,
          cancelWaitMs: options.cancelWaitMs,
          stop,
          onRedactor: (redactor) => redactors.push(redactor),
          serially: (select) =>
            serially(async () => {
              const selected = await select();
              lastSelected = project.fullNames.get(stack) ?? stack;
              return selected;
            }),
        }),
      stop,
      onStart: guarded("onStart", options.onStart, (stack) => stack),
      onDone: guarded("onDone", options.onDone, (report) => report.stack),
    });
  } catch (error) {
    hook = { error };
  }
  // The user's `pulumi` in this folder goes on with the stack it had selected, or with none, as before the run. Should
  // that fail after the run selected a stack, the report says which stays selected (a run that selected none changed
  // nothing).
  await serially(() => restoreSelection(project)).catch((error: unknown) => {
    if (lastSelected !== undefined) notRestored = selectionNotRestored(project, lastSelected, error, redact);
  });
  if (hook !== undefined) {
    // A rejection of the schedule (a caller's hook threw) has no report to carry the selection left behind: its error says it.
    const { error } = hook;
    if (notRestored === undefined) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}; and ${notRestored}`, { cause: error instanceof HookFailed ? error.cause : error });
  }
  const { reports, interrupted } = scheduled!;
  // A cancel that reached a running stack, or a stop that a stack's own steps met before its operation, leaves every
  // stack reported, yet the run did not end as asked.
  const stopped = stop.aborted && reports.some((report) => report.result === "skipped");
  return {
    command: options.command,
    expectNoChanges,
    interrupted: interrupted || stopped || cancel.aborted,
    stacks: reports,
    ...(notRestored === undefined ? {} : { selectionNotRestored: notRestored }),
  };
}
