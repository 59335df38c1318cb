/**
 * One stack's preview, up, refresh or drift check through the Automation API, with that stack's own configuration:
 * its key reaches its own workspace only. Never rejects: whatever goes wrong becomes its `failed` report, redacted.
 */
import { stripVTControlCharacters } from "node:util";
import {
  type ConfigMap,
  type EngineEvent,
  type LocalWorkspace,
  Stack,
  type StackSettings,
  type UpdateSummary,
} from "@pulumi/pulumi/automation";
import { MIN_API_KEY_LENGTH, makeRedactor, makeValueRedactor } from "../client/redact";
import { countsOf, EventCollector, failureMessage, warningsOf } from "./engine-events";
import { stackCheck } from "./signals";
import { type ChangeCounts, type ChangedResource, type FleetCommand, noChanges, type StackReport } from "./types";

/** Options of {@link runStack}: `serially` runs a `select` alone (`pulumi stack select` writes the project's one file). */
export interface StackRunOptions {
  workspace: LocalWorkspace;
  command: FleetCommand;
  /** The stack's fully-qualified name, what pulumi is given (default: the name the report gives it). */
  fullName?: string | undefined;
  /** `preview` and `up`: refresh first, as `pulumi preview --refresh` and `pulumi up --refresh` do. */
  refresh?: boolean | undefined;
  /**
   * Once aborted, no pulumi starts for this stack (it is reported `skipped`), and a running pulumi gets one SIGINT,
   * on which it cancels: it starts no new resource operation and waits for those in flight. A pulumi that also
   * gets a second signal (a second Ctrl-C in a terminal reaches it directly) stops at once instead, and may leave
   * operations pending in the stack's state: so the SIGINT waits {@link CANCEL_SIGINT_WAIT_MS}, and is not sent to a
   * pulumi that said by then it is cancelling (the signal behind the cancel reached it too).
   */
  cancel: AbortSignal;
  /**
   * The run's stop (the first Ctrl-C): once aborted, this stack's pulumi operation does not start (the stack is reported
   * `skipped`); one already started goes on. A Ctrl-C that reached the fleet alone (a CI runner's SIGINT) leaves the steps
   * before the operation (the stack's config read, its select) to end, and one in a terminal also reaches a `pulumi`
   * command among them, which it kills: either way the operation, which no Ctrl-C has reached, would run whole. A step
   * that fails on its own (not killed by a signal) fails the stack, as it would have without the stop.
   */
  stop?: AbortSignal | undefined;
  serially<T>(select: () => Promise<T>): Promise<T>;
  /**
   * How long a cancel holds this stack's SIGINT, for its pulumi to say it is cancelling already (default
   * {@link CANCEL_SIGINT_WAIT_MS}; the tests' fake pulumi ends sooner).
   */
  cancelWaitMs?: number | undefined;
  /**
   * Told the stack's redactor ({@link secretsRedactor}) once its config is read: the run redacts with it what pulumi says
   * outside the stack's own run (the selection put back after the run).
   */
  onRedactor?: ((redact: (text: string) => string) => void) | undefined;
}

/** The `skippedBecause` of a stack cancelled before its pulumi started. */
export const CANCELLED_BEFORE_START = "cancelled before pulumi started";
/** The `skippedBecause` of a stack whose steps before pulumi's operation a stop (a Ctrl-C) ended or killed. */
export const INTERRUPTED_BEFORE_START = "interrupted before pulumi started";

/**
 * Whether a pulumi command failed because a signal killed it (SIGINT or SIGTERM): in a terminal a Ctrl-C reaches every
 * pulumi the fleet runs. Node's error says so (its `signal`, execa's message), and the Automation API keeps it
 * (`commandResult.err`); any other failure (a config that does not decrypt) is the command's own, whatever else happened.
 */
export function killedBySignal(error: unknown): boolean {
  return signalOf(error) !== undefined;
}

/** The signal that killed a pulumi command ({@link killedBySignal}), if one did. */
function signalOf(error: unknown): "SIGINT" | "SIGTERM" | undefined {
  let inner: unknown = error;
  for (let depth = 0; typeof inner === "object" && inner !== null && depth < 4; depth++) {
    const { signal, commandResult, cause } = inner as { signal?: unknown; commandResult?: { err?: unknown }; cause?: unknown };
    if (signal === "SIGINT" || signal === "SIGTERM") return signal;
    inner = commandResult?.err ?? cause;
  }
  const named = /\bCommand was killed with (SIGINT|SIGTERM)\b/.exec(error instanceof Error ? error.message : String(error));
  return named?.[1] as "SIGINT" | "SIGTERM" | undefined;
}

/**
 * The failure of a stack whose pulumi command a signal killed that the run did not get (someone killed that one pulumi, or
 * a Ctrl-C that reached it alone): the command's error (execa's `User interruption with CTRL-C`) would tell of a Ctrl-C the
 * run never had. Killed before the operation (`step`, its config read or its select), nothing ran on the stack; killed
 * in it, its outcome is unknown: an up's or a refresh's stack may hold pending operations, or stay locked.
 */
function killedAlone(signal: string, stack: string, fullName: string, command: FleetCommand, step: string | undefined): string {
  const again = `run the fleet again for it (--stacks ${stack})`;
  const notOurs = `was killed by ${signal}, which did not come from this run (it was not interrupted)`;
  // The pulumi the command runs: a drift check is a preview with refresh (pulumi has no drift).
  const ran = `pulumi ${command === "drift" ? "preview --refresh" : command}`;
  if (step !== undefined) return `${step} ${notOurs}, before ${ran} started on the stack: nothing ran on it; ${again}`;
  const next =
    command === "up" || command === "refresh"
      ? stackCheck(fullName)
      : `a ${command === "drift" ? "drift check" : "preview"} writes nothing: ${again}`;
  return `${ran} ${notOurs}: its outcome is unknown; ${next}`;
}

/**
 * How long a cancel holds each pulumi's SIGINT. A SIGTERM sent to the fleet's whole process group (GNU `timeout` without
 * `--foreground`, a systemd unit's default `KillMode`, `kill -- -PGID`) reaches each pulumi as well, which starts
 * cancelling on it and says so at once; the fleet's SIGINT would be its second signal, on which it stops at once ("may
 * lead to orphaned resources"), leaving pending operations or a lock. The wait lets such a pulumi say so first.
 */
export const CANCEL_SIGINT_WAIT_MS = 500;

/**
 * What pulumi prints once a first signal starts its cancelling, at the start of a line: `^C received; cancelling. If you would
 * like to terminate immediately, press ^C again.`, `SIGTERM received; cancelling. ...`. The whole sentence, at a line's start:
 * the same words inside a resource's diagnostic (indented, prefixed) or a program's output must not spare that pulumi its SIGINT.
 */
const CANCELLING = /(?:^|[\r\n])(?:\^C|SIGTERM) received; cancelling\. If you would like to terminate immediately/;

/**
 * Whether the stack's pulumi has said it is cancelling ({@link CANCELLING}), told what it prints as it comes, a watcher per
 * stream (`stream()`): stdout and stderr arrive in chunks that may cut the line in two, so the end of a stream's last chunk
 * is kept with its next, never joined with another stream's.
 */
function cancellingWatch(): { said(): boolean; stream(): (text: string) => void } {
  let said = false;
  return {
    said: () => said,
    stream: () => {
      let tail = "";
      return (text) => {
        if (said) return;
        const seen = tail + text;
        said = CANCELLING.test(seen);
        tail = seen.slice(-128);
      };
    },
  };
}

/**
 * A signal for the Automation API that follows `cancel` once `hold.waitMs` has passed, unless by then `hold.cancelling()`
 * (pulumi said it is cancelling already: the fleet's SIGINT would be its second signal, on which it stops at once); and a
 * function to stop following it. The Automation API adds its `abort` listener (the one that sends SIGINT) only once
 * pulumi is spawned, after a few awaits of its own; a listener added to an already aborted signal never runs, so a cancel
 * in that gap would let pulumi run to its end. This signal runs such a late listener at once.
 */
export function forwardedCancel(
  cancel: AbortSignal,
  hold: { waitMs: number; cancelling(): boolean } = { waitMs: 0, cancelling: () => false },
): { signal: AbortSignal; release(): void } {
  const forward = new AbortController();
  const signal = forward.signal;
  const add = signal.addEventListener.bind(signal);
  signal.addEventListener = (...args: Parameters<typeof add>) => {
    add(...args);
    const [type, listener] = args;
    if (type !== "abort" || !signal.aborted || !listener) return;
    const event = new Event("abort");
    if (typeof listener === "function") listener.call(signal, event);
    else listener.handleEvent(event);
  };
  let held: NodeJS.Timeout | undefined;
  const abort = () => {
    held = setTimeout(() => {
      if (!hold.cancelling()) forward.abort(cancel.reason);
    }, hold.waitMs);
  };
  if (cancel.aborted) abort();
  else cancel.addEventListener("abort", abort, { once: true });
  return {
    signal,
    release: () => {
      cancel.removeEventListener("abort", abort);
      clearTimeout(held);
    },
  };
}

/** The stack config's key, whether stored as a secret or (with a warning) in plain text. */
const API_KEY_CONFIG = "workspace-access:apiKey";

/**
 * A redactor of the stack's secrets: the package's messages never hold them, but the CLI may echo config or a program's
 * error. The API key (`workspace-access:apiKey` however stored, and `WORKSPACE_ACCESS_API_KEY`) goes whole or in any run
 * of {@link MIN_API_KEY_LENGTH} characters, as the client redacts it. Any other secret goes whole only (in any case,
 * without its surrounding spaces), and only when it has that many characters: a short secret (`1`, `true`) removed
 * wherever it appears would wipe the report, not protect anything. A secret object (`pulumi config set --secret --path
 * 'proj:people[1].email' ...` marks the whole key secret) goes leaf by leaf: its secure leaves as `settings` (the
 * stack's settings file, `secure:` where a leaf is encrypted) shows them, else every leaf; never its JSON text whole,
 * which would take the object's every name with it.
 */
export function secretsRedactor(
  config: ConfigMap,
  env: NodeJS.ProcessEnv = process.env,
  settings?: StackSettings["config"],
): (text: string) => string {
  const keys = [config[API_KEY_CONFIG]?.value, env["WORKSPACE_ACCESS_API_KEY"]?.trim()].filter((key): key is string => !!key);
  const others = Object.entries(config).flatMap(([key, entry]) =>
    key !== API_KEY_CONFIG && entry.secret ? secretValues(entry.value, settingOf(settings, key)) : [],
  );
  const whole = others.map((s) => s.trim()).filter((s) => s.length >= MIN_API_KEY_LENGTH);
  const byLength = [...new Set(whole)].sort((a, b) => b.length - a.length);
  const redactors = [...[...new Set(keys.filter((s) => s.trim() !== ""))].map(makeRedactor), ...byLength.map(anyCaseRedactor)];
  return (text) => redactors.reduce((out, redact) => redact(out), text);
}

/**
 * A secret removed whole in any case: a program may fold it before it shows (the example names each `User` after
 * `email.trim().toLowerCase()`), and the report must not give away a secret email so folded.
 */
function anyCaseRedactor(secret: string): (text: string) => string {
  const exact = makeValueRedactor(secret);
  const folded = new RegExp(secret.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"), "giu");
  return (text) => exact(text).replace(folded, "[redacted]");
}

/** The settings file's entry of `key` (`proj:people`), which the file may write without its project's namespace (`people`). */
function settingOf(settings: StackSettings["config"] | undefined, key: string): unknown {
  if (settings === undefined) return undefined;
  return settings[key] ?? settings[key.slice(key.indexOf(":") + 1)];
}

/** The secret texts of a secret config value: the value, or an object's secure leaves (every leaf when `setting` cannot tell). */
function secretValues(value: string, setting: unknown): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [value];
  }
  if (typeof parsed !== "object" || parsed === null) return [value];
  const known = typeof setting === "object" && setting !== null && !isSecure(setting);
  return known ? secureLeaves(setting, parsed) : leaves(parsed);
}

const isSecure = (setting: object) => "secure" in setting && Object.keys(setting).length === 1;

/** The leaves of `value` that `setting` (the settings file's tree beside it) marks `secure:`. */
function secureLeaves(setting: unknown, value: unknown): string[] {
  if (typeof setting !== "object" || setting === null) return [];
  if (isSecure(setting)) return leaves(value);
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(setting).flatMap(([k, inner]) => secureLeaves(inner, (value as Record<string, unknown>)[k]));
}

/** Every leaf of a parsed JSON value, as text. */
function leaves(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "object") return Object.values(value).flatMap(leaves);
  return [String(value)];
}

/**
 * The options of a preview or an up that refreshes (or not). A refresh runs the program (`--run-program`): without it,
 * pulumi reads each resource with the provider configuration the state recorded at the last up, so after a key rotation
 * (the new key in the stack config, the old one revoked) every read would be refused until a plain up.
 */
function refreshing(refresh: boolean): { refresh: boolean; runProgram?: true } {
  return refresh ? { refresh, runProgram: true } : { refresh };
}

/** The stack's settings file's config, or nothing when there is none to read (a stack whose config lives elsewhere). */
async function settingsOf(workspace: LocalWorkspace, stack: string): Promise<StackSettings["config"]> {
  try {
    return (await workspace.stackSettings(stack)).config;
  } catch {
    return undefined;
  }
}

/**
 * Makes what the Automation API reads after an up or a refresh has succeeded unable to fail the stack, which would
 * report a stack whose changes were made as `failed` (and its up would be run again). Its outputs, which the report does
 * not use and whose reading decrypts every secret output, are not read. Its history's last entry (the summary, whose
 * counts the report gives) is read without decrypting the config's secrets; should the read fail, `unread` is told why
 * and the summary is missing, the counts then the engine's own.
 */
function guardReadsAfterSuccess(stack: Stack, unread: (reason: string) => void): void {
  stack.outputs = async () => ({});
  const info = stack.info.bind(stack);
  stack.info = async () => {
    try {
      return await info(false);
    } catch (error) {
      unread(failureMessage([], error instanceof Error ? error.message : String(error)));
      return undefined;
    }
  };
}

/**
 * The stack's config with every secret decrypted (`pulumi config --show-secrets --json`), which the redactor learns the
 * secrets from. A failure says nothing of what pulumi printed on stdout: that holds decrypted values no redactor knows
 * yet, and JSON.parse's error quotes the text it refused. Only pulumi's `error:` lines on stderr are said.
 */
async function decryptedConfig(workspace: LocalWorkspace, stack: string): Promise<ConfigMap> {
  try {
    return await workspace.getAllConfig(stack);
  } catch (error) {
    const command = `pulumi config --show-secrets --json --stack ${stack}`;
    if (error instanceof SyntaxError)
      throw new Error(`${command} printed something that is not JSON (not shown: it holds the stack's secrets); run it to see why`);
    const errors = (pulumiStderr(error) ?? "")
      .split("\n")
      .map((line) => stripVTControlCharacters(line).trim())
      .filter((line) => /^error:/i.test(line));
    const said =
      errors.length > 0
        ? `${command} failed: ${errors.map((line) => line.replace(/^error:\s*/i, "")).join("; ")}`
        : `${command} failed with no error line; what it printed is not shown (it holds the stack's secrets): run it to see why`;
    // Not its error as the cause (its message holds what pulumi printed): only the signal that killed it, if one did.
    const signal = signalOf(error);
    throw Object.assign(new Error(said), signal === undefined ? {} : { signal });
  }
}

/**
 * What a failed pulumi command printed on stderr alone, from the Automation API's error; `undefined` when it cannot be
 * told apart from stdout. Its message cannot be used: a failed command's is `code: -2\n stdout: \n stderr: ...`, the
 * `stderr:` part execa's message, which holds the command's stdout too (for `pulumi config --show-secrets`, the decrypted
 * config). execa's error (`commandResult.err`) keeps the two apart; a `commandResult` without one (pulumi ran and exited
 * non-zero, without execa's rejection) holds stderr alone; any other error is not pulumi's output, and not said.
 */
function pulumiStderr(error: unknown): string | undefined {
  let inner: unknown = error;
  for (let depth = 0; typeof inner === "object" && inner !== null && depth < 4; depth++) {
    const result = (inner as { commandResult?: { stderr?: unknown; err?: unknown } }).commandResult;
    if (result === undefined) return undefined;
    const err = result.err as { stderr?: unknown } | undefined;
    if (err === undefined) return typeof result.stderr === "string" ? result.stderr : undefined;
    if (typeof err.stderr === "string") return err.stderr;
    inner = err;
  }
  return undefined;
}

/** What pulumi says of a stack another update holds: a file backend's lock, Pulumi Cloud's 409. */
const LOCKED = /currently locked by \d+ lock|another update is currently in progress/i;

/**
 * A locked stack's message with the fix for this stack: pulumi's own says `pulumi cancel` without a stack, which in the
 * project's folder reaches the selected stack (the one before the run, or none), not this one; and a lock is more often
 * another run still going (a second rollout, someone's `pulumi up`) than one left behind, which `pulumi cancel` would
 * break in its middle.
 */
export function withLockHint(message: string, stack: string): string {
  if (!LOCKED.test(message)) return message;
  return (
    `${message} Another pulumi holds ${stack} (another fleet run, or a pulumi up of it): wait for it to end, then run the fleet ` +
    `again. If none is running (a run killed in its middle left the lock), unlock it with pulumi cancel --yes --stack ${stack}, ` +
    `then check it with pulumi refresh --run-program --stack ${stack}.`
  );
}

/** Runs `options.command` on one stack; see the top of this file. */
export async function runStack(name: string, options: StackRunOptions): Promise<StackReport> {
  const events = new EventCollector();
  let redact = secretsRedactor({});
  // Each text of a resource redacted: a program may name one after a secret, and its URN holds that name.
  const redacted = (resources: ChangedResource[]): ChangedResource[] =>
    resources.map((r) => ({ ...r, type: redact(r.type), name: redact(r.name), ...(r.urn === undefined ? {} : { urn: redact(r.urn) }) }));
  // What could not be read after pulumi's operation succeeded: a warning, not a failure (see guardReadsAfterSuccess).
  const afterwards: string[] = [];
  // Redacted one by one, then each once again: two warnings may differ only by what redaction removes.
  const warnings = () => {
    const found = [...new Set([...warningsOf(events.warnings), ...afterwards].map(redact))];
    return found.length > 0 ? { warnings: found } : {};
  };
  const skipped = (because = CANCELLED_BEFORE_START): StackReport => ({
    stack: name,
    result: "skipped",
    changes: noChanges(),
    resources: [],
    skippedBecause: because,
  });
  // Checked before each step that precedes pulumi's operation: a cancel or a stop there reports the stack as never run.
  const halted = (): StackReport | undefined => {
    if (options.cancel.aborted) return skipped();
    return options.stop?.aborted === true ? skipped(INTERRUPTED_BEFORE_START) : undefined;
  };
  const cancelling = cancellingWatch();
  const { signal, release } = forwardedCancel(options.cancel, {
    waitMs: options.cancelWaitMs ?? CANCEL_SIGINT_WAIT_MS,
    cancelling: cancelling.said,
  });
  let operating = false;
  const fullName = options.fullName ?? name;
  // The pulumi command of a step before the operation, while it runs: what a signal that killed it killed.
  let step: string | undefined;
  try {
    const before = halted();
    if (before) return before;
    step = `pulumi config --show-secrets --json --stack ${fullName}`;
    // The settings file says which leaves of a secret object are secret; without it (another config source), every leaf is.
    redact = secretsRedactor(
      await decryptedConfig(options.workspace, fullName),
      process.env,
      await settingsOf(options.workspace, fullName),
    );
    options.onRedactor?.(redact);
    const afterConfig = halted();
    if (afterConfig) return afterConfig;
    step = `pulumi stack select ${fullName}`;
    const stack = await options.serially(() => Stack.select(fullName, options.workspace));
    step = undefined;
    const afterSelect = halted();
    if (afterSelect) return afterSelect;
    guardReadsAfterSuccess(stack, (reason) =>
      afterwards.push(
        `the ${options.command} succeeded, but its summary could not be read from the stack's history (${reason}): its ` +
          `counts are the engine's summary event's (unknown if none came); pulumi stack history --stack ${fullName} shows the summary`,
      ),
    );
    // The counts of an up's or a refresh's summary, or, when it could not be read, of the engine's summary event, else unknown.
    const summaryCounts = (summary: UpdateSummary | undefined) =>
      summary === undefined ? (events.summary ?? null) : countsOf(summary.resourceChanges);
    // No `expectNoChanges` for pulumi: it checks only after the operation (an up or a refresh has
    // applied its changes by then) and fails the stack, losing its counts; the report checks the counts.
    // Pulumi says it is cancelling on its display (stdout) and in its engine events (a stdout event): either one will do.
    const [fromEvents, fromStdout, fromStderr] = [cancelling.stream(), cancelling.stream(), cancelling.stream()];
    const common = {
      onEvent: (event: EngineEvent) => {
        if (event.stdoutEvent !== undefined) fromEvents(event.stdoutEvent.message);
        events.onEvent(event);
      },
      onOutput: fromStdout,
      onError: fromStderr,
      color: "never" as const,
      signal,
    };
    const refresh = options.refresh === true;
    operating = true;
    let changes: ChangeCounts | null;
    if (options.command === "preview" || options.command === "drift") {
      // A drift check is a preview with refresh: it reads each resource from the workspace into a copy of the state, then
      // plans the program against that copy: what it plans is how the workspace differs from the program. It writes no state.
      await stack.preview({ ...common, ...refreshing(options.command === "drift" || refresh) });
      // Its summary event's counts: without it (pulumi ended mid-stream, its event log was cut) the Automation API's
      // `changeSummary` is empty, which would say "no change", for a drift check "no drift", with nothing to prove it.
      changes = events.summary ?? null;
    } else if (options.command === "up")
      changes = summaryCounts((await stack.up({ ...common, ...refreshing(refresh), suppressOutputs: true })).summary);
    else changes = summaryCounts((await stack.refresh({ ...common, runProgram: true, suppressOutputs: true })).summary);
    return { stack: name, result: "succeeded", changes, resources: redacted(events.resources()), ...warnings() };
  } catch (error) {
    // A step before the operation that the Ctrl-C killed (in a terminal it reaches every pulumi), once the run was stopped
    // or cancelled: nothing ran. A step that failed on its own (a config that does not decrypt) is the stack's failure.
    if (!operating && killedBySignal(error)) {
      if (options.cancel.aborted) return skipped();
      if (options.stop?.aborted === true) return skipped(INTERRUPTED_BEFORE_START);
    }
    const writes = options.command === "up" || options.command === "refresh";
    const killedBy = signalOf(error);
    const stopped = options.cancel.aborted || options.stop?.aborted === true;
    const message =
      killedBy !== undefined && !stopped
        ? killedAlone(killedBy, name, fullName, options.command, operating ? undefined : step)
        : withLockHint(failureMessage(events.diagnostics, error instanceof Error ? error.message : String(error)), fullName);
    return {
      stack: name,
      result: "failed",
      // What the engine counted before it stopped, when its summary came; else unknown, not none.
      changes: events.summary ?? null,
      // What a failed up or refresh changed before it stopped (a preview's or a drift check's plan changed nothing).
      resources: writes ? redacted(events.applied()) : [],
      error: redact(operating && options.cancel.aborted ? `cancelled: ${message}` : message),
      ...warnings(),
    };
  } finally {
    release();
  }
}
