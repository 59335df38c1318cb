/** What a fleet run reports: one entry per stack, in the order the stacks were named (or by name). */

/**
 * The commands a fleet runs over every stack: pulumi's `preview`, `up` and `refresh`, and `drift`, a preview with
 * refresh (`pulumi preview --refresh`): it compares each workspace with its program and writes no state.
 */
export const FLEET_COMMANDS = ["preview", "up", "refresh", "drift"] as const;
/** A command of {@link FLEET_COMMANDS}. */
export type FleetCommand = (typeof FLEET_COMMANDS)[number];

/** How one stack's run ended. */
export type StackResult = "succeeded" | "failed" | "skipped";

/** The operations that change a resource, in the order a report counts them. */
export const CHANGE_OPS = ["create", "update", "delete", "replace"] as const;

/**
 * Resource changes as the engine counted them (planned, made or found), and the resources left the same: its summary's,
 * the one proof of them (the resources its events named before a cut are no count).
 */
export type ChangeCounts = Record<(typeof CHANGE_OPS)[number] | "same", number>;

/** One resource the engine planned, made or found a change to: `create` `User` `alice@acme.example`. */
export interface ChangedResource {
  /** The engine's operation: `create`, `update`, `delete`, `replace`. */
  op: string;
  /** The resource type's last part. */
  type: string;
  name: string;
  /**
   * The engine's URN of the resource (`urn:pulumi:acme::proj::...:User::alice@acme.example`), which tells apart two of one
   * type and name and is what `pulumi up --target` takes; always there in a report `runFleet` gives.
   */
  urn?: string;
}

/** One stack's part of a fleet run. */
export interface StackReport {
  stack: string;
  result: StackResult;
  /**
   * The engine's counts: a preview's or a drift check's plan, an up's or a refresh's summary, a failed stack's count
   * before it stopped. `null` when they are unknown: no summary came from the engine (pulumi ended mid-stream, its event
   * log was cut), which is no proof of "no change". A skipped stack, which never ran, counts none.
   */
  changes: ChangeCounts | null;
  /** When `failed`: the package's own message (never the key). */
  error?: string;
  /** When `skipped`: the canary failed, another stack failed, or the run was interrupted or cancelled before pulumi started. */
  skippedBecause?: string;
  /**
   * The warnings the stack's run gave (a key stored in plain text, entitlements not checked against their catalogue), each
   * once, with the resources that gave it, never the key; absent when there were none. A warning fails no stack.
   */
  warnings?: string[];
  /**
   * The resources changed, by operation, type, name and URN (the stack itself and the providers, which the counts include,
   * are not listed): a succeeded stack's planned, made or found; a failed up's or refresh's made before it stopped (a
   * failed preview's or drift check's, none). Never the key. With counts unknown, those the events named before the cut.
   */
  resources: ChangedResource[];
}

/** A whole fleet run. */
export interface FleetReport {
  command: FleetCommand;
  /** Whether `--expect-no-changes` was given (always for `drift`): a change, or counts unknown, then makes the run fail. */
  expectNoChanges: boolean;
  /** Whether a signal (Ctrl-C, SIGTERM, or the caller's `stop` or `cancel`) stopped the run before every stack had started, or cancelled one. */
  interrupted: boolean;
  stacks: StackReport[];
  /**
   * Only when the stack selected in the project's folder before the run (or none) could not be selected again after it:
   * which stack the run left selected, where a bare `pulumi up` would reach it, and how to select the user's again. It
   * fails the run (exit 1): the next `pulumi` command in that folder would reach another workspace.
   */
  selectionNotRestored?: string;
}

/** Whether a change fails the run (and counts unknown, which prove none absent): when asked (`--expect-no-changes`), and always for `drift`. */
export function expectsNoChanges(command: FleetCommand, asked: boolean | undefined): boolean {
  return asked === true || command === "drift";
}

/** The `skippedBecause` of a stack that a Ctrl-C (or a SIGTERM, or a script's `stop`) left unstarted. */
export const INTERRUPTED_BEFORE_IT_STARTED = "interrupted before it started";

/** No change counted. */
export function noChanges(): ChangeCounts {
  return { create: 0, update: 0, delete: 0, replace: 0, same: 0 };
}

/** How many resources change (everything but `same`). */
export function changeTotal(changes: ChangeCounts): number {
  return CHANGE_OPS.reduce((total, op) => total + changes[op], 0);
}

/** Whether a stack's counts may hold a change: it had one, or its counts are unknown. */
export function mayHaveChanged(changes: ChangeCounts | null): boolean {
  return changes === null || changeTotal(changes) > 0;
}

/**
 * The exit status: 0 when every stack succeeded (and with `expectNoChanges`, each is known to have no change: counts
 * unknown fail it, a drift check above all) and the selection was put back, else 1.
 */
export function exitStatus(report: FleetReport): 0 | 1 {
  const bad = report.stacks.some((s) => s.result !== "succeeded" || (report.expectNoChanges && mayHaveChanged(s.changes)));
  return bad || report.interrupted || report.selectionNotRestored !== undefined ? 1 : 0;
}
