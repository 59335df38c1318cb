/**
 * The order stacks run in, with no Pulumi in it: for `up`, the canary alone first; then at most `parallel` at
 * once, each slot taking the next stack as its last one ends, so one slow workspace holds up one slot. A failure
 * (with `stopOnFailure`) or `stop` (Ctrl-C) starts no new stack: those left are `skipped`, with the reason, and
 * the running ones are awaited, never abandoned, and each stack left is told to `onDone` as `skipped`. So does an
 * `onStart` or `onDone` that throws (the caller's code): the running stacks end, then the schedule rejects with that error.
 */
import { INTERRUPTED_BEFORE_IT_STARTED, noChanges, type StackReport } from "./types";

/** Options of {@link schedule}. */
export interface ScheduleOptions {
  /** The stacks, in the order they start. */
  stacks: readonly string[];
  parallel: number;
  /** Run the first stack alone, before any other (`up`'s canary). */
  canary: boolean;
  /** After a stack fails, start no other (`up` without `--continue-on-error`). */
  stopOnFailure: boolean;
  /** Runs one stack; a rejection is reported as that stack's failure. */
  run(stack: string): Promise<StackReport>;
  /** Once aborted, no new stack starts (the first Ctrl-C). */
  stop?: AbortSignal | undefined;
  /** Told before a stack starts; should it throw, that stack and every other not yet started is left unrun. */
  onStart?: ((stack: string) => void) | undefined;
  /**
   * Told of each stack's report, once: as a started stack ends, and, for each stack left unstarted (`skipped`), once the
   * running ones have ended.
   */
  onDone?: ((report: StackReport) => void) | undefined;
}

/**
 * Runs the stacks as the module's comment says: a report per stack in the order of `stacks`, and whether `stop` left
 * some unstarted. Rejects, running nothing, when a stack is named twice: it would run twice at once, and one report
 * would hide the other; and, once every running stack has ended, when `onStart` or `onDone` threw (its first error).
 */
export async function schedule(options: ScheduleOptions): Promise<{ reports: StackReport[]; interrupted: boolean }> {
  const twice = options.stacks.find((stack, i) => options.stacks.indexOf(stack) !== i);
  if (twice !== undefined) throw new Error(`schedule: the stack ${twice} is named twice`);
  const reports = new Map<string, StackReport>();
  const queue = [...options.stacks];
  let firstFailure: string | undefined;
  let canaryFailed = false;
  // The first error of the caller's onStart or onDone: no stack starts after it, and it is thrown once the running ones end.
  let told: { error: unknown } | undefined;
  const tell = (call: () => void): boolean => {
    try {
      call();
      return true;
    } catch (error) {
      told ??= { error };
      return false;
    }
  };

  // What first kept the next stack from starting, a stop or a failure: every stack left unstarted is skipped for it (a
  // Ctrl-C pressed on seeing a failure did not stop the stacks that failure had stopped already).
  let blockedBy: "stop" | "failure" | undefined;
  const blocked = () => {
    if (options.stop?.aborted === true) blockedBy ??= "stop";
    else if (options.stopOnFailure && firstFailure !== undefined) blockedBy ??= "failure";
    return told !== undefined || blockedBy !== undefined;
  };
  const runOne = async (stack: string) => {
    if (!tell(() => options.onStart?.(stack))) return;
    const report = await options.run(stack).catch(
      (error: unknown): StackReport => ({
        stack,
        result: "failed",
        changes: null,
        resources: [],
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    if (report.result === "failed" && firstFailure === undefined) firstFailure = stack;
    reports.set(stack, report);
    tell(() => options.onDone?.(report));
  };

  if (options.canary && queue.length > 0 && !blocked()) {
    await runOne(queue.shift() as string);
    canaryFailed = firstFailure !== undefined;
  }
  const slot = async () => {
    for (let stack = queue.shift(); stack !== undefined && !blocked(); stack = queue.shift()) await runOne(stack);
  };
  // A slot that finds the run blocked has taken a stack off the queue unrun: every stack without a report is reported below.
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.parallel, queue.length)) }, slot));

  const interrupted = options.stop?.aborted === true && options.stacks.some((s) => !reports.has(s));
  const why =
    blockedBy !== "failure"
      ? INTERRUPTED_BEFORE_IT_STARTED
      : canaryFailed
        ? `the canary ${firstFailure} failed`
        : `${firstFailure} failed (--continue-on-error runs the rest)`;
  // Each stack left unstarted is told to onDone too, in order, once the running ones have ended: every stack gets its one
  // report there (its progress line), as a stack skipped in its own steps does; once a hook has thrown, none is told.
  for (const stack of options.stacks) {
    if (reports.has(stack)) continue;
    const report: StackReport = { stack, result: "skipped", changes: noChanges(), resources: [], skippedBecause: why };
    reports.set(stack, report);
    if (told === undefined) tell(() => options.onDone?.(report));
  }
  if (told !== undefined) throw told.error;
  return { interrupted, reports: options.stacks.map((stack) => reports.get(stack) as StackReport) };
}
