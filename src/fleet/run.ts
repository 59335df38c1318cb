/** `runFleet`: one command over every stack of a project, in the order `schedule.ts` gives, each run by `stack-run.ts`. */
import { UsageError } from "../command-line";
import { checkNamedOnce, checkParallel, checkRefresh, DEFAULT_PARALLEL } from "./args";
import { openFleetProject, restoreSelection } from "./project";
import { type ScheduleOptions, schedule } from "./schedule";
import { runStack } from "./stack-run";
import { FLEET_COMMANDS, type FleetCommand, type FleetReport } from "./types";

/** Options of {@link runFleet}. */
export interface FleetOptions extends Pick<ScheduleOptions, "stop" | "onStart" | "onDone"> {
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
  /** `up`: run every stack even after the canary or another stack failed. */
  continueOnError?: boolean;
  /**
   * A change in any stack fails the run (exit 1), the stack still `succeeded`; as with pulumi's, an up still applies it.
   * Always on for `drift`.
   */
  expectNoChanges?: boolean;
  /**
   * Once aborted, no new stack starts, a stack whose pulumi has not started yet is reported `skipped`, and each running
   * pulumi gets SIGINT, on which it cancels (the second Ctrl-C, or SIGTERM). The report is then `interrupted`.
   */
  cancel?: AbortSignal;
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
}

/** Runs the command over the stacks; rejects with a `UsageError` (`FleetUsageError` in the package's exports) before any stack runs, else never. */
export async function runFleet(options: FleetOptions): Promise<FleetReport> {
  checkOptions(options);
  const project = await openFleetProject(options.cwd ?? process.cwd(), options.stacks);
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
  const expectNoChanges = options.expectNoChanges === true || options.command === "drift";
  try {
    const { reports, interrupted } = await schedule({
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
          serially,
        }),
      stop,
      onStart: options.onStart,
      onDone: options.onDone,
    });
    // A cancel that reached a running stack leaves every stack reported, yet the run did not end as asked.
    return { command: options.command, expectNoChanges, interrupted: interrupted || cancel.aborted, stacks: reports };
  } finally {
    // The user's `pulumi` in this folder goes on with the stack it had selected, or with none, as before the run.
    await serially(() => restoreSelection(project)).catch(() => undefined);
  }
}
