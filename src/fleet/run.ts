/** `runFleet`: one command over every stack of a project, in the order `schedule.ts` gives, each run by `stack-run.ts`. */
import { DEFAULT_PARALLEL } from "./args";
import { openFleetProject } from "./project";
import { type ScheduleOptions, schedule } from "./schedule";
import { runStack } from "./stack-run";
import type { FleetCommand, FleetReport } from "./types";

/** Options of {@link runFleet}. */
export interface FleetOptions extends Pick<ScheduleOptions, "stop" | "onStart" | "onDone"> {
  command: FleetCommand;
  /** The Pulumi project's folder (default: the current one). */
  cwd?: string;
  /** The stacks to run, in order (default: every stack of the project on the current backend, by name). */
  stacks?: string[];
  /** At most this many stacks at once (default 4). */
  parallel?: number;
  /** `up`: run every stack even after the canary or another stack failed. */
  continueOnError?: boolean;
  /** A change in any stack fails the run (exit 1), the stack still `succeeded`; as with pulumi's, an up still applies it. */
  expectNoChanges?: boolean;
  /** Once aborted, the running stacks' CLIs get SIGINT and cancel cleanly (the second Ctrl-C). */
  cancel?: AbortSignal;
}

/** Runs the command over the stacks; rejects with a `UsageError` (`FleetUsageError` in the package's exports) before any stack runs, else never. */
export async function runFleet(options: FleetOptions): Promise<FleetReport> {
  const project = await openFleetProject(options.cwd ?? process.cwd(), options.stacks);
  // `pulumi stack select` writes one file per project: selects run one after another.
  let selects: Promise<unknown> = Promise.resolve();
  const serially = <T>(select: () => Promise<T>): Promise<T> => {
    const next = selects.then(select, select);
    selects = next.catch(() => undefined);
    return next;
  };
  const cancel = options.cancel ?? new AbortController().signal;
  const isUp = options.command === "up";
  const expectNoChanges = options.expectNoChanges === true;
  try {
    const { reports, interrupted } = await schedule({
      stacks: project.stacks,
      parallel: options.parallel ?? DEFAULT_PARALLEL,
      canary: isUp,
      // A preview or a refresh changes no workspace: every stack is worth its answer.
      stopOnFailure: isUp && options.continueOnError !== true,
      run: (stack) => runStack(stack, { workspace: project.workspace, command: options.command, cancel, serially }),
      stop: options.stop,
      onStart: options.onStart,
      onDone: options.onDone,
    });
    return { command: options.command, expectNoChanges, interrupted, stacks: reports };
  } finally {
    // The user's `pulumi` in this folder goes on with the stack it had selected.
    const current = project.current;
    if (current !== undefined) await serially(() => project.workspace.selectStack(current)).catch(() => undefined);
  }
}
