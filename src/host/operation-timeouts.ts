/**
 * A resource's `customTimeouts` in the host: the hidden input the classes register (`__customTimeouts`), which no handler sees.
 * `providerOf` takes it out of what it hands them (so no `diff` compares it, and no schema needs it), bounds the create, update
 * or delete by it (`ProviderContext.bounded`), and records it among the outputs, for a destroy and a refresh, which get no
 * inputs: each is bounded by the state's (`delete`, `read`).
 */
import type { JobDeadline } from "../client";
import { CUSTOM_TIMEOUTS } from "../shared/input-constants";
import { durationMs, type TimedOperation } from "../shared/custom-timeouts";
import { hiddenOf, withHidden, withHiddenRecorded } from "./hidden-inputs";

/** The hidden input of a resource's inputs or state (`undefined`: none given). */
export const timeoutsOf = (props: unknown): unknown => hiddenOf(props, CUSTOM_TIMEOUTS);

/** `props` (a handler's outputs, or inputs `check` returns) with the hidden input `timeouts`, when one was given. */
export const withTimeouts = <T>(props: T, timeouts: unknown): T => withHidden(props, CUSTOM_TIMEOUTS, timeouts);

/** A handler's error that records a state (a partial create or update: its `properties`), which keeps the hidden input too. */
export const withTimeoutsRecorded = (error: unknown, timeouts: unknown): unknown => withHiddenRecorded(error, CUSTOM_TIMEOUTS, timeouts);

/**
 * The end of the job waits of `operation`, started `now`, by the resource's `customTimeouts` (`timeouts`, the hidden input);
 * `undefined` when it gives none for the operation, or `0` (Pulumi's "none": the provider's default), or, in a state edited by
 * hand, a value that is no duration: each wait then ends at `jobTimeoutSeconds`.
 */
export function deadlineOf(timeouts: unknown, operation: TimedOperation, now: number): JobDeadline | undefined {
  const given = timeouts !== null && typeof timeouts === "object" ? (timeouts as Record<string, unknown>)[operation] : undefined;
  const ms = typeof given === "string" ? durationMs(given) : undefined;
  if (ms === undefined || ms <= 0) return undefined;
  const name = `customTimeouts.${operation}`;
  const what = operation === "read" ? "refresh" : operation;
  return { at: now + ms, within: `this resource's ${name}, ${given} from the start of its ${what}`, raise: name };
}
