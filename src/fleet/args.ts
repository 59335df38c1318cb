/** The command line of `workspace-access-fleet`: each mistake is a {@link UsageError} naming the flag and what it takes. */
import { type Format, formatOf, parseFlags, UsageError } from "../command-line";
import type { FleetOptions } from "./run";
import { FLEET_COMMANDS, type FleetCommand } from "./types";

/** The command's name, as `package.json` installs it. */
export const FLEET_NAME = "workspace-access-fleet";

/** The default of `--parallel`. */
export const DEFAULT_PARALLEL = 4;

/** What the command line asks for: the options of `runFleet` and the report's format. */
export type FleetArgs = FleetOptions & { format: Format };

/** The commands `--refresh` applies to: a `refresh` reads every workspace anyway, and `drift` always refreshes. */
export const REFRESH_COMMANDS: readonly FleetCommand[] = ["preview", "up"];

/** The flags, in the usage's order (an unknown flag's message lists them so). */
const OPTIONS = {
  stacks: { type: "string", multiple: true },
  parallel: { type: "string" },
  refresh: { type: "boolean" },
  "continue-on-error": { type: "boolean" },
  "expect-no-changes": { type: "boolean" },
  format: { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * What pulumi's own flags, typed out of habit, mean here: the flag to give instead, or `null` for one to leave out.
 * pulumi's `--stack` and `-s` would otherwise be told only that they are unknown, with node:util's advice to pass them after `--`.
 */
const PULUMI_FLAGS: Record<string, string | null> = {
  "--stack": "--stacks",
  "-s": "--stacks",
  "--json": "--format json",
  "-C": "--cwd",
  "--yes": null,
  "-y": null,
  "--skip-preview": null,
};

/** What an unknown flag is told when pulumi's habit brought it ({@link PULUMI_FLAGS}). */
function pulumiHint(flag: string): string | undefined {
  if (!(flag in PULUMI_FLAGS)) return undefined;
  const meant = PULUMI_FLAGS[flag];
  if (meant === null) return "the fleet's up and refresh never ask for a confirmation: leave it out";
  return `did you mean ${meant}?${meant === "--stacks" ? " (the fleet takes a list: --stacks a,b,c)" : ""}`;
}

/** Parses `argv` (without node and the script); `"help"` for `-h`/`--help`. An unknown flag names the flag it likely meant. */
export function parseFleetArgs(argv: string[], cwd: string = process.cwd()): FleetArgs | "help" {
  const { values, positionals } = parseFlags(argv, OPTIONS, pulumiHint);
  if (values.help === true) return "help";
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError(`a command is required: ${FLEET_COMMANDS.join(", ")}`);
  if (!(FLEET_COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`the command must be ${FLEET_COMMANDS.join(", ")}, not ${JSON.stringify(command)}`);
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  const refresh = values.refresh === true;
  checkRefresh(command as FleetCommand, refresh, "--refresh");
  const continueOnError = values["continue-on-error"] === true;
  checkContinueOnError(command as FleetCommand, continueOnError, "--continue-on-error");
  return {
    command: command as FleetCommand,
    stacks: values.stacks === undefined ? undefined : stackList(values.stacks),
    parallel: values.parallel === undefined ? DEFAULT_PARALLEL : parallelOf(values.parallel),
    refresh,
    continueOnError,
    expectNoChanges: values["expect-no-changes"] === true,
    format: formatOf(values.format),
    cwd: values.cwd ?? cwd,
  };
}

/** `--stacks a,b --stacks c`: every name once, in the order given. */
function stackList(values: string[]): string[] {
  const names = values.flatMap((value) => value.split(",")).map((name) => name.trim());
  if (names.some((name) => name === "")) throw new UsageError("--stacks takes stack names separated by commas, e.g. --stacks acme,globex");
  checkNamedOnce(names, "--stacks");
  return names;
}

function parallelOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw parallelError(JSON.stringify(value), "--parallel");
  return n;
}

/*
 * The checks below are shared with `runFleet`, which a script calls without this command line: `option` is the
 * option as its caller spells it (`--stacks` here, `stacks` for `runFleet`).
 */

/** A stack named twice would run twice at once, the second run failing on the first's lock. */
export function checkNamedOnce(names: readonly string[], option: string): void {
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new UsageError(`${option} names ${twice} twice: name each stack once`);
}

/** A whole number of stacks, 1 or more: anything else (0, 1.5, NaN) would start no stack. */
export function checkParallel(n: number, option: string): void {
  if (!Number.isSafeInteger(n) || n < 1) throw parallelError(String(n), option);
}

function parallelError(shown: string, option: string): UsageError {
  return new UsageError(`${option} takes a whole number of stacks run at once, 1 or more, not ${shown}`);
}

/** `--refresh` with a command it does not apply to would be silently ignored. */
export function checkRefresh(command: FleetCommand, refresh: boolean, option: string): void {
  if (refresh && !REFRESH_COMMANDS.includes(command)) {
    throw new UsageError(
      `${option} applies to ${REFRESH_COMMANDS.join(" and ")} (refresh reads every workspace anyway; drift always refreshes), not to ${command}`,
    );
  }
}

/** `--continue-on-error` with a command that runs every stack whatever fails would be silently ignored. */
export function checkContinueOnError(command: FleetCommand, continueOnError: boolean, option: string): void {
  if (continueOnError && command !== "up") {
    throw new UsageError(
      `${option} applies to up only (preview, refresh and drift run every stack whatever fails), not to ${command}: leave it out`,
    );
  }
}
