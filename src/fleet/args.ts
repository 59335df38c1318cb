/** The command line of `workspace-access-fleet`: each mistake is a {@link UsageError} naming the flag and what it takes. */
import { parseArgs } from "node:util";
import { type Format, formatOf, UsageError } from "../command-line";
import type { FleetOptions } from "./run";
import { FLEET_COMMANDS, type FleetCommand } from "./types";

/** The command's name, as `package.json` installs it. */
export const FLEET_NAME = "workspace-access-fleet";

/** The default of `--parallel`. */
export const DEFAULT_PARALLEL = 4;

/** What the command line asks for: the options of `runFleet` and the report's format. */
export type FleetArgs = FleetOptions & { format: Format };

const OPTIONS = {
  stacks: { type: "string", multiple: true },
  parallel: { type: "string" },
  "continue-on-error": { type: "boolean" },
  "expect-no-changes": { type: "boolean" },
  format: { type: "string" },
  cwd: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** Parses `argv` (without node and the script); `"help"` for `-h`/`--help`. An unknown flag is node:util's error, naming it. */
export function parseFleetArgs(argv: string[], cwd: string = process.cwd()): FleetArgs | "help" {
  const { values, positionals } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  if (values.help === true) return "help";
  const [command, ...rest] = positionals;
  if (command === undefined) throw new UsageError(`a command is required: ${FLEET_COMMANDS.join(", ")}`);
  if (!(FLEET_COMMANDS as readonly string[]).includes(command)) {
    throw new UsageError(`the command must be ${FLEET_COMMANDS.join(", ")}, not ${JSON.stringify(command)}`);
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  return {
    command: command as FleetCommand,
    stacks: values.stacks === undefined ? undefined : stackList(values.stacks),
    parallel: values.parallel === undefined ? DEFAULT_PARALLEL : parallelOf(values.parallel),
    continueOnError: values["continue-on-error"] === true,
    expectNoChanges: values["expect-no-changes"] === true,
    format: formatOf(values.format),
    cwd: values.cwd ?? cwd,
  };
}

/** `--stacks a,b --stacks c`: every name once, in the order given. */
function stackList(values: string[]): string[] {
  const names = values.flatMap((value) => value.split(",")).map((name) => name.trim());
  if (names.some((name) => name === "")) throw new UsageError("--stacks takes stack names separated by commas, e.g. --stacks acme,globex");
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw new UsageError(`--stacks names ${twice} twice: name each stack once`);
  return names;
}

function parallelOf(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--parallel takes a whole number of stacks run at once, 1 or more, not ${JSON.stringify(value)}`);
  }
  return n;
}
