/**
 * The `customTimeouts` resource option as the package applies it: the engine hands a dynamic provider no operation timeout, so
 * the classes pass the option as a hidden input (`__customTimeouts`, `input-constants.ts`) and the host bounds the operation's
 * job waits by it (`src/host/provider-runtime.ts`). Here: what the hidden input holds, and how a duration is read and refused,
 * in the program (no zod) and in `check` alike.
 */

/**
 * The operations a custom timeout bounds. A refresh (`read`) is one too: the engine hands it no timeout either, and it is bounded
 * by the `read` the state recorded at the resource's last create or update, as a destroy is by the state's `delete`. Only a
 * `WorkspaceUsers`' refresh waits for jobs (its pending creates'); the others read a job once at most, so `read` bounds nothing there.
 */
export const TIMED_OPERATIONS = ["create", "update", "delete", "read"] as const;

/** A timed operation. */
export type TimedOperation = (typeof TIMED_OPERATIONS)[number];

/** The hidden input: each timeout the program gives, as it gives it (`"5m"`). */
export type CustomTimeouts = Partial<Record<TimedOperation, string>>;

/** Each unit of Go's `time.ParseDuration`, which the engine reads the option with, in milliseconds. */
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, μs: 1e-3, ns: 1e-6 };

/**
 * Go's duration grammar, which the engine accepts (`1h30m`, `1.5h`, `300ms`, `0`): an optional sign, then numbers each with a unit.
 * Written out rather than taken from a library: the ones on npm read other grammars ("1 hour", a bare number), which the
 * engine refuses.
 */
const DURATION = /^[-+]?(?:0|(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const TERM = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** The milliseconds of a duration as Pulumi writes one (`"1h30m"`); `undefined` for a text that is not one. */
export function durationMs(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let ms = 0;
  for (const [, value, unit] of text.matchAll(TERM)) ms += Number(value) * (UNIT_MS[unit as string] as number);
  return text.startsWith("-") ? -ms : ms;
}

/** What the accepted format is, for the messages that refuse another. */
const FORMAT = 'a number and a unit, as Pulumi reads a duration, such as "30s", "5m" or "1h30m" (units h, m, s, ms, us, ns)';

/** Why `value`, given as `customTimeouts.<operation>`, is refused; `undefined` when it is a duration this package applies. */
export function timeoutProblem(operation: TimedOperation, value: unknown): string | undefined {
  const name = `customTimeouts.${operation}`;
  if (typeof value !== "string") return `${name} must be a string: ${FORMAT}`;
  const ms = durationMs(value);
  if (ms === undefined) return `${name} ${JSON.stringify(value)} is not a duration: write ${FORMAT}`;
  if (ms < 0) return `${name} ${JSON.stringify(value)} is negative: write ${FORMAT}`;
  return undefined;
}

/**
 * Each problem of the hidden input as `check` reports it (`property`: `customTimeouts.create`); none when it is absent. A key
 * other than the four operations is not looked at (the classes never send one).
 */
export function customTimeoutsFailures(given: unknown): Array<{ property: string; reason: string }> {
  if (given === undefined || given === null) return [];
  if (typeof given !== "object" || Array.isArray(given)) {
    return [{ property: "customTimeouts", reason: `customTimeouts must be an object of durations such as { create: "5m" }` }];
  }
  return TIMED_OPERATIONS.flatMap((operation) => {
    const value = (given as Record<string, unknown>)[operation];
    // Left out, or empty (as the SDK sends one not given): none.
    const reason = value === undefined || value === null || value === "" ? undefined : timeoutProblem(operation, value);
    return reason ? [{ property: `customTimeouts.${operation}`, reason }] : [];
  });
}

/**
 * The hidden input of a resource declared with `customTimeouts` (`undefined`: none given): `create`, `update`, `delete` and
 * `read`, an empty one left out as the SDK leaves it out. A value that is not a duration throws, naming the resource (`what`)
 * and the option.
 */
export function customTimeoutsInput(what: string, given: unknown): CustomTimeouts | undefined {
  if (given === undefined || given === null) return undefined;
  const failures = customTimeoutsFailures(given);
  if (failures.length > 0) throw new Error(`${what}: ${failures.map((f) => f.reason).join("; ")}.`);
  const timeouts: CustomTimeouts = {};
  for (const operation of TIMED_OPERATIONS) {
    const value = (given as CustomTimeouts)[operation];
    if (value !== undefined && value !== "") timeouts[operation] = value;
  }
  return Object.keys(timeouts).length > 0 ? timeouts : undefined;
}
