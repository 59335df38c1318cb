#!/usr/bin/env node
/** `workspace-access-fleet preview|up|refresh`: one command over every stack of the project, and a report (see USAGE). */
import { type FleetArgs, FLEET_NAME, parseFleetArgs } from "./args";
import { runCommand } from "../command-line";
import { CHANGE_OPS, type StackReport } from "./types";

const USAGE = `Usage: ${FLEET_NAME} preview|up|refresh [--stacks a,b,c] [--parallel N] [--continue-on-error]
                 [--expect-no-changes] [--format text|markdown|json] [--cwd DIR]

Runs pulumi preview, up or refresh over the stacks of the Pulumi project in DIR (one stack per
workspace, each with its own stack configuration and key), through the pulumi CLI on PATH. The
backend and the passphrase come from the environment, as for pulumi itself.

Options:
  --stacks a,b,c        the stacks, in this order (default: every stack of the project, by name)
  --parallel N          at most N stacks at once (default 4)
  --continue-on-error   up: run every stack even when the canary or another stack failed
                        (up runs the first stack alone first, the canary; a failure stops the rest)
  --expect-no-changes   exit 1 when a stack plans (preview), makes (up) or finds (refresh) a change
  --format F            text (default: progress on stderr, a table at the end), markdown (a table
                        for a pull-request comment) or json (one document, for tools)
  --cwd DIR             the project's folder (default: the current one)
  -h, --help            show this help

Exit status: 0 every stack succeeded (with --expect-no-changes: and none had a change), 1 otherwise,
2 a usage error (an unknown stack, no project). Ctrl-C: no new stack starts; again: the running
ones are cancelled.

Documentation: node_modules/pulumi-workspace-access/docs/fleet.md, in the installed package.
`;

function doneLine(report: StackReport): string {
  if (report.result === "failed") return `${report.stack}: failed: ${report.error ?? ""}`;
  if (report.result === "skipped") return `${report.stack}: skipped (${report.skippedBecause ?? ""})`;
  const changed = CHANGE_OPS.filter((op) => report.changes[op] > 0);
  return `${report.stack}: succeeded${changed.length === 0 ? ", no changes" : `: ${changed.map((op) => `${report.changes[op]} ${op}`).join(", ")}`}`;
}

/** First Ctrl-C stops new stacks; the second cancels the running ones. */
function interrupts(stderr: NodeJS.WriteStream) {
  const stop = new AbortController();
  const cancel = new AbortController();
  process.on("SIGINT", () => {
    if (!stop.signal.aborted) {
      stderr.write(`\n${FLEET_NAME}: interrupted: no new stack starts; waiting for the running ones (Ctrl-C again cancels them)\n`);
      stop.abort();
    } else if (!cancel.signal.aborted) {
      stderr.write(`\n${FLEET_NAME}: cancelling the running stacks (pulumi cancels cleanly: in-flight operations finish)\n`);
      cancel.abort();
    }
  });
  return { stop: stop.signal, cancel: cancel.signal };
}

async function run(args: FleetArgs): Promise<number> {
  const { runFleet, renderFleetReport, exitStatus } = require("./index") as typeof import("./index");
  const progress = args.format === "text";
  const report = await runFleet({
    ...args,
    ...interrupts(process.stderr),
    onStart: (stack) => progress && process.stderr.write(`${stack}: ${args.command} started\n`),
    onDone: (report) => progress && process.stderr.write(`${doneLine(report)}\n`),
  });
  process.stdout.write(`${progress ? "\n" : ""}${renderFleetReport(report, args.format)}`);
  return exitStatus(report);
}

// A usage error ran nothing (2); anything else stopped the run before its report (1).
runCommand({ name: FLEET_NAME, usage: USAGE, parse: parseFleetArgs, run, failureStatus: 1 });
