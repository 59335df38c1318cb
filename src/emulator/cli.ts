#!/usr/bin/env node
/**
 * `workspace-access-emulator`: runs the emulator until SIGINT/SIGTERM. It prints the base
 * URL and the API key: the key is the emulator's own throwaway key, never a real one.
 */
import { nodeVersionProblem } from "../node-version";
import { type CommandLine, parseCommandLine, requestLogLine, USAGE } from "./cli-options";
import { startEmulator } from "./emulator";
import { DEFAULT_FINISH_AFTER_POLLS } from "./jobs";
import type { AnsweredRequest, EmulatedIntegration, JobTiming } from "./types";

/** Why the emulator did not start: its port taken (another emulator still running?), else a seed that does not load. */
function startFailure(error: unknown): string {
  const { code, address, port } = (error ?? {}) as { code?: unknown; address?: unknown; port?: unknown };
  if (code === "EADDRINUSE") {
    return (
      `port ${String(port)} of ${String(address)} is in use (another emulator still running?): give another --port, ` +
      "or leave --port out to take a free one."
    );
  }
  // A seed whose records do not fit together (an email twice, a member who is not a user).
  const message = error instanceof Error ? error.message.replace(/^emulator: /, "") : String(error);
  return `the seed does not load: ${message}`;
}

/**
 * Writes to stdout while someone reads it. Once what read it is gone (`| head`, `| grep -m1 key`, a closed terminal), the
 * writes fail (EPIPE) and are dropped: the emulator keeps answering, and stops on a signal as usual, rather than dying with
 * Node's unhandled `error` event at the next request line or at Ctrl+C.
 */
let stdoutGone = false;
process.stdout.on("error", () => {
  stdoutGone = true;
});
function print(text: string): void {
  if (!stdoutGone) process.stdout.write(text);
}

async function main(): Promise<void> {
  const tooOld = nodeVersionProblem();
  if (tooOld !== undefined) {
    process.stderr.write(`workspace-access-emulator: ${tooOld}\n`);
    process.exit(1);
  }
  let parsed: CommandLine;
  try {
    const line = parseCommandLine(process.argv.slice(2));
    if (line === "help") {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    parsed = line;
  } catch (error) {
    // Said again after the usage, where a terminal leaves it in sight (the usage is some 60 lines).
    const mistake = `workspace-access-emulator: ${error instanceof Error ? error.message : String(error)}\n`;
    process.stderr.write(`${mistake}\n${USAGE}\n${mistake}`);
    process.exit(2);
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  const { logRequests, ...options } = parsed;
  // Set once started: the lines need the key to keep it out of them.
  let key = "";
  const onAnswered = logRequests ? (answer: AnsweredRequest) => print(`${requestLogLine(answer, key)}\n`) : undefined;
  try {
    emulator = await startEmulator({ ...options, onAnswered });
    key = emulator.apiKey;
  } catch (error) {
    process.stderr.write(`workspace-access-emulator: ${startFailure(error)}\n`);
    process.exit(2);
  }
  const lines = [
    "workspace-access-emulator is running",
    `  base URL: ${emulator.url}`,
    `  API key:  ${emulator.apiKey}`,
    ...integrationLines(emulator.integrations.list()),
    `  jobs: ${jobTiming(options.job)}`,
    ...(options.scopeTable === "contract"
      ? ["  scopes: the contract's table (the entitlement catalogue needs read:integrations, an invitation write:automations)"]
      : []),
    ...(options.userWritesAsJobs === true ? ["  user writes: answered with a job (--user-writes job)"] : []),
    ...(options.userWriteAnswer === "no-content" ? ["  user writes: answered 204 without a body (--user-writes no-content)"] : []),
    ...(options.userCreate === false ? ["  POST /users: answered 405 (--no-user-create)"] : []),
    ...(options.missingScopeStatus === 401 || options.missingScopeStatus === 404
      ? [`  a key lacking a scope: answered ${options.missingScopeStatus} (--missing-scope ${options.missingScopeStatus})`]
      : []),
    ...(options.batchInviteFailure === "partial"
      ? ["  a failing invitation job: adds the other users it names (--batch-invite-failure partial)"]
      : []),
    ...(options.rateLimit === undefined
      ? []
      : [
          `  rate limit: ${options.rateLimit.requests} requests per key in any ${options.rateLimit.windowMs / 1000} s, ` +
            `Retry-After ${options.rateLimit.retryAfter ?? "seconds"}`,
        ]),
    ...Object.entries(emulator.quirks)
      .filter(([, value]) => value !== false)
      .map(([name, value]) => `  quirk ${name}=${String(value)}`),
    ...(logRequests ? ["Requests are logged below, one line each: method, path, status, milliseconds."] : []),
    "Press Ctrl+C to stop.",
  ];
  print(`${lines.join("\n")}\n`);
  const stop = (signal: string) => {
    print(`\nReceived ${signal}, stopping.\n`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

/**
 * The banner's line per integration: `integration YouTube: <id>`, with its label where another integration has the same
 * application (`integration GitHub ("GitHub acme"): <id>`), so that the two ids can be told apart.
 */
function integrationLines(integrations: readonly EmulatedIntegration[]): string[] {
  const shared = (application: string) => integrations.filter((i) => i.application === application).length > 1;
  return integrations.map((i) => `  integration ${i.application}${shared(i.application) ? ` (${JSON.stringify(i.label)})` : ""}: ${i.id}`);
}

/**
 * How jobs end, for the banner: `done on read 2 of GET /jobs/{id}, or by themselves 30 s after they start`, and when their
 * reads find them (`; answering 404 until 0.3 s after they start`).
 */
function jobTiming(job: JobTiming): string {
  const polls = job.finishAfterPolls ?? DEFAULT_FINISH_AFTER_POLLS;
  const byReads = polls === 0 ? "done before the write answers" : `done on read ${polls} of GET /jobs/{id}`;
  const ending =
    job.settleAfterMs === undefined || polls === 0
      ? byReads
      : `${byReads}, or by themselves ${job.settleAfterMs / 1000} s after they start`;
  const lag = job.readableAfterMs ?? 0;
  return lag > 0 ? `${ending}; answering 404 until ${lag / 1000} s after they start (--job-readable-after)` : ending;
}

main().catch((error: unknown) => {
  process.stderr.write(`workspace-access-emulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
