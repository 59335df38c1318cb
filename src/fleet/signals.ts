/**
 * What `workspace-access-fleet` does on SIGINT (Ctrl-C) and SIGTERM (a CI job cancelled, `timeout --foreground`, Kubernetes), in
 * steps, each signal taking the run one step further:
 * 1. the first Ctrl-C: no new stack starts; the running ones go on (in a terminal their pulumi got the Ctrl-C too);
 * 2. a second Ctrl-C, or a SIGTERM at any point: the running stacks are cancelled as well (each pulumi gets SIGINT,
 *    a moment later, unless it has said it is cancelling already); the process still waits for every pulumi to end,
 *    then prints its report;
 * 3. a third Ctrl-C: the process prints the report of the run so far (the stacks ended, those still running, those
 *    not started) and exits, without waiting; a fourth exits even while that report is printed.
 * A SIGTERM never exits at once: its sender waits for the process (and sends SIGKILL after its own grace period). One
 * sent to the whole process group (`timeout` without `--foreground`, `kill -- -PGID`) reaches each pulumi too, which
 * starts cancelling on it and says so; the SIGINT of step 2 would be its second signal, on which it stops at once, so
 * `stack-run.ts` holds each SIGINT a moment (`CANCEL_SIGINT_WAIT_MS`) and sends none to a pulumi that said so.
 */
import { type FleetCommand, type FleetReport, INTERRUPTED_BEFORE_IT_STARTED, noChanges, type StackReport } from "./types";

/**
 * Where to look after a pulumi was stopped or left running: the stack may hold pending operations, or stay locked. Each
 * command names the stack: in the project's folder a bare `pulumi refresh` reaches the stack selected there (after a third
 * Ctrl-C, the last one the run selected), not the one to check.
 */
export const stackCheck = (stack: string) =>
  `run pulumi refresh --run-program --stack ${stack} to find operations left pending (and pulumi cancel --yes --stack ${stack} if it stays locked)`;

/** {@link stackCheck} for each stack: `for acme, run ...; for globex, run ...`. */
const checkEach = (stacks: readonly string[]) => stacks.map((stack) => `for ${stack}, ${stackCheck(stack)}`).join("; ");

/**
 * A run as its `onStacks`, `onStart` and `onDone` tell it: the stacks running now, and the report of the run so far, which
 * a third Ctrl-C prints instead of the one `runFleet` would have returned.
 */
export class FleetProgress {
  #planned: readonly string[] = [];
  readonly #started: string[] = [];
  readonly #ended = new Map<string, StackReport>();

  constructor(
    readonly command: FleetCommand,
    readonly expectNoChanges: boolean,
    /** The command's name, which the report of a stack left running names. */
    readonly name: string,
  ) {}

  readonly planned = (stacks: readonly string[]): void => {
    this.#planned = [...stacks];
  };
  readonly started = (stack: string): void => {
    this.#started.push(stack);
  };
  readonly ended = (report: StackReport): void => {
    this.#ended.set(report.stack, report);
  };

  /** The stacks started and not ended, in the order they started. */
  running(): string[] {
    return this.#started.filter((stack) => !this.#ended.has(stack));
  }

  /**
   * The run so far, `interrupted`: each stack that ended as it ended; each still running `failed`, its outcome unknown
   * (its pulumi is left to end on its own, or was stopped mid-way); each not started `skipped`.
   */
  soFar(): FleetReport {
    const stacks = [...this.#planned, ...this.#started.filter((stack) => !this.#planned.includes(stack))];
    const report = (stack: string): StackReport => {
      const ended = this.#ended.get(stack);
      if (ended !== undefined) return ended;
      if (!this.#started.includes(stack)) {
        return { stack, result: "skipped", changes: noChanges(), resources: [], skippedBecause: INTERRUPTED_BEFORE_IT_STARTED };
      }
      const error = `its outcome is unknown: ${this.name} exited without waiting for its pulumi (a third Ctrl-C); ${stackCheck(stack)}`;
      return { stack, result: "failed", changes: null, resources: [], error };
    };
    return { command: this.command, expectNoChanges: this.expectNoChanges, interrupted: true, stacks: stacks.map(report) };
  }
}

/** Options of {@link fleetSignals}. */
export interface FleetSignalOptions {
  /** The command's name, the messages' prefix. */
  name: string;
  /** Writes a message (to stderr). */
  write(text: string): void;
  /** The run so far: the stacks running, and the report the third Ctrl-C prints. */
  progress: Pick<FleetProgress, "running" | "soFar">;
  /** Prints a report (to stdout), then calls `printed`. */
  print(report: FleetReport, printed: () => void): void;
  /** Ends the process (the third Ctrl-C, once its report is printed). */
  exit(code: number): void;
}

/** The exit status of the third Ctrl-C: 128 + SIGINT, as a shell reports a process it interrupted. */
export const INTERRUPTED_EXIT = 130;

/** The `stop` and `cancel` signals of `runFleet`, and `handle`, to call on each SIGINT or SIGTERM. */
export interface FleetSignals {
  stop: AbortSignal;
  cancel: AbortSignal;
  handle(signal: "SIGINT" | "SIGTERM"): void;
}

/** The {@link FleetSignals} of one run; see the top of this file. */
export function fleetSignals(options: FleetSignalOptions): FleetSignals {
  const stop = new AbortController();
  const cancel = new AbortController();
  const { name, write } = options;
  // The third Ctrl-C prints the report of the run so far, then exits; a fourth exits at once, should the printing hang.
  let exiting = false;
  const list = () => {
    const running = options.progress.running();
    return running.length === 0 ? "no stack is running" : `running: ${running.join(", ")}`;
  };
  const handle = (signal: "SIGINT" | "SIGTERM"): void => {
    if (signal === "SIGINT" && !stop.signal.aborted) {
      stop.abort();
      write(
        `\n${name}: interrupted: no new stack starts; waiting for the running ones (${list()}). In a terminal their pulumi ` +
          "got this Ctrl-C too and is cancelling: it starts no new resource operation and waits for those in flight. " +
          "Ctrl-C again cancels them; a third time prints the report so far and exits without waiting.\n",
      );
    } else if (!cancel.signal.aborted) {
      stop.abort();
      cancel.abort();
      const why = signal === "SIGTERM" ? "terminated (SIGTERM): no new stack starts; cancelling" : "cancelling";
      const running = options.progress.running();
      const stopped = running.length === 0 ? "" : ` instead: ${checkEach(running)}`;
      write(
        `\n${name}: ${why} the running stacks (${list()}): each pulumi gets SIGINT (one that says it is cancelling already, ` +
          `the signal having reached it too, gets none), and waits for its resource operations ` +
          `in flight. A pulumi that got two (in a terminal, each Ctrl-C reaches it too) stops at once${stopped}. ` +
          "Waiting for every pulumi to end; Ctrl-C again prints the report so far and exits without waiting.\n",
      );
    } else if (signal === "SIGTERM") {
      write(`\n${name}: already cancelling; waiting for every pulumi to end (${list()})\n`);
    } else if (!exiting) {
      exiting = true;
      const running = options.progress.running();
      write(
        running.length === 0
          ? `\n${name}: exiting without waiting; the report of the stacks so far follows\n`
          : `\n${name}: exiting without waiting for ${running.join(", ")}: ${checkEach(running)}; the report of the stacks so far follows\n`,
      );
      options.print(options.progress.soFar(), () => options.exit(INTERRUPTED_EXIT));
    } else options.exit(INTERRUPTED_EXIT);
  };
  return { stop: stop.signal, cancel: cancel.signal, handle };
}
