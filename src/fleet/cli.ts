#!/usr/bin/env node
/** `workspace-access-fleet preview|up|refresh|drift`: one command over every stack of the project, and a report (see USAGE). */
import { type FleetArgs, FLEET_NAME, parseFleetArgs } from "./args";
import { runCommand } from "../command-line";
import { FleetProgress, fleetSignals } from "./signals";
import type { FleetReport } from "./types";

const USAGE = `Usage: ${FLEET_NAME} preview|up|refresh|drift [--stacks a,b,c] [--parallel N] [--refresh]
                 [--continue-on-error] [--expect-no-changes] [--format text|markdown|json] [--cwd DIR]

Runs pulumi preview, up or refresh over the stacks of the Pulumi project in DIR (one stack per
workspace, each with its own stack configuration and key), through the pulumi CLI on PATH. The
backend and the passphrase come from the environment, as for pulumi itself.

Commands:
  preview, up           as pulumi preview and pulumi up, per stack
  refresh               as pulumi refresh --yes: writes what each workspace holds into its stack's state
  drift                 checks each workspace against its program (pulumi preview --refresh) and writes
                        nothing; any change makes it exit 1 (the nightly drift check)

Each refresh (refresh, drift, --refresh) runs the stack's program (pulumi's --run-program, pulumi
3.172 or later), so it reads with the key in the stack config now, even right after a key rotation.

Options:
  --stacks a,b,c        the stacks, in this order, by name or fully-qualified name (org/project/stack)
                        (default: every stack of the project, by name)
  --parallel N          at most N stacks at once (default 4)
  --refresh             preview, up: refresh each stack first, as pulumi's --refresh (an up then puts
                        back what was changed by hand)
  --continue-on-error   up: run every stack even when the canary or another stack failed
                        (up runs the first stack alone first, the canary; a failure stops the rest)
  --expect-no-changes   exit 1 when a stack plans (preview), makes (up) or finds (refresh) a change,
                        or its counts are unknown (pulumi sent no summary: ? in the table)
  --format F            the report on stdout: text (default: a table), markdown (a table for a
                        pull-request comment, kept within GitHub's 65,536 characters: 50 changed
                        resources a stack, then how many more) or json (one document, for tools,
                        with every changed resource and its URN);
                        in every format each stack's start and end (or skip) go to stderr
  --cwd DIR             the project's folder (default: the current one)
  -h, --help            show this help

Exit status: 0 every stack succeeded (with --expect-no-changes, or drift: and each had no change),
1 otherwise (or interrupted, or the stack selected before the run could not be selected again: the
report names the stack left selected; or, with no report, pulumi cannot read the project's
Pulumi.yaml), 2 a usage error, nothing run (an unknown stack or flag, no project, the pulumi CLI
missing, logged out or too old), 130 after a third Ctrl-C.

An unknown flag names the one likely meant (--stack: --stacks, --json: --format json, -C: --cwd).

Ctrl-C: no new stack starts. Again, or SIGTERM: the running stacks are cancelled (each pulumi
not already cancelling gets SIGINT) and the command waits for them to end. A third Ctrl-C prints the report so far and
exits without waiting. In CI, run it with exec from node_modules/.bin, not through npx, so a
cancelled job's signals reach it.

Documentation: node_modules/pulumi-workspace-access/docs/fleet.md, in the installed package.
`;

async function run(args: FleetArgs): Promise<number> {
  const { runFleet, renderFleetReport, exitStatus } = require("./index") as typeof import("./index");
  const { selectionWarningOnStderr, stackDoneLine } = require("./render") as typeof import("./render");
  const { expectsNoChanges } = require("./types") as typeof import("./types");
  // Progress goes to stderr in every format: stdout holds the report alone (`> comment.md`), and a CI job running the
  // markdown or json format still shows each stack as it starts and ends. In a terminal the text table is set apart from
  // the progress lines by a blank line; the other formats' stdout is the document, nothing before it.
  const blankLine = args.format === "text" ? "\n" : "";
  const print = (report: FleetReport, printed?: () => void) =>
    process.stdout.write(`${blankLine}${renderFleetReport(report, args.format)}`, printed);
  const soFar = new FleetProgress(args.command, expectsNoChanges(args.command, args.expectNoChanges), FLEET_NAME);
  const signals = fleetSignals({
    name: FLEET_NAME,
    write: (text) => process.stderr.write(text),
    progress: soFar,
    print,
    exit: (code) => process.exit(code),
  });
  // Handled, SIGTERM no longer ends node at once: the pulumi children are cancelled and awaited, never orphaned.
  process.on("SIGINT", () => signals.handle("SIGINT"));
  process.on("SIGTERM", () => signals.handle("SIGTERM"));
  const report = await runFleet({
    ...args,
    stop: signals.stop,
    cancel: signals.cancel,
    onStacks: soFar.planned,
    onStart: (stack) => {
      soFar.started(stack);
      process.stderr.write(`${stack}: ${args.command} started\n`);
    },
    onDone: (report) => {
      soFar.ended(report);
      process.stderr.write(`${stackDoneLine(report)}\n`);
    },
  });
  // Said on stderr as well when stdout goes to a file (the report saved, `> comment.md`), once in a terminal: the user's
  // next pulumi up in this folder would reach the stack named.
  process.stderr.write(selectionWarningOnStderr(report, FLEET_NAME, process.stdout.isTTY === true));
  print(report);
  return exitStatus(report);
}

// A usage error ran nothing (2); anything else stopped the run before its report (1).
runCommand({ name: FLEET_NAME, usage: USAGE, parse: parseFleetArgs, run, failureStatus: 1 });
