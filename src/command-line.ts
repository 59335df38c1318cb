/** The frame of the package's commands: a Node.js too old, a usage mistake (exit 2), `--help`, a failure in one line without the key. */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { makeRedactor } from "./client/redact";
import { nodeVersionProblem } from "./node-version";
import { editDistance } from "./shared/edit-distance";

/** A usage mistake (a bad flag; the fleet's unknown stack or missing project): its message names the fix (exit 2). */
export class UsageError extends Error {
  /** Marks the class across copies of the package (`instanceof` fails between two copies). */
  readonly isUsageError = true;

  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }

  /** Whether `error` is a {@link UsageError}, from this copy of the package or another. */
  static isInstance(error: unknown): error is UsageError {
    return typeof error === "object" && error !== null && (error as { isUsageError?: unknown }).isUsageError === true;
  }
}

/**
 * node:util's strict parse of a command's flags (positionals allowed). An unknown flag is a {@link UsageError} naming the
 * flag it likely meant: `hint`'s words for a flag another tool's habit brings (pulumi's `--stack`), else the nearest of
 * `options` (two edits at most), else the list of them; rather than node's advice to pass it after `--`.
 */
export function parseFlags<const O extends ParseArgsOptionsConfig>(
  argv: string[],
  options: O,
  hint: (flag: string) => string | undefined = () => undefined,
) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    const unknown = (error as { code?: unknown }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION";
    const flag = unknown ? /'([^']+)'/.exec((error as Error).message)?.[1] : undefined;
    if (flag === undefined) throw error;
    const hinted = hint(flag);
    if (hinted !== undefined) throw new UsageError(`unknown flag ${flag}: ${hinted}`);
    const known = Object.keys(options).map((name) => `--${name}`);
    const [closest] = known
      .map((name) => ({ name, distance: editDistance(flag, name) }))
      .filter(({ distance }) => distance <= 2)
      .sort((a, b) => a.distance - b.distance);
    if (closest !== undefined) throw new UsageError(`unknown flag ${flag}: did you mean ${closest.name}?`);
    throw new UsageError(`unknown flag ${flag}: the flags are ${known.join(", ")}`);
  }
}

/** The formats of both commands' reports (`--format`). */
export const FORMATS = ["text", "markdown", "json"] as const;
/** A format of {@link FORMATS}. */
export type Format = (typeof FORMATS)[number];

/** `--format`'s value (default `text`), checked. */
export function formatOf(value: string | undefined): Format {
  const format = value ?? "text";
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format must be ${FORMATS.join(", ")}, not ${JSON.stringify(format)}`);
  return format as Format;
}

/** A command: its name and usage, how it parses its arguments and how it runs. */
export interface Command<A> {
  name: string;
  usage: string;
  /** The arguments, or `"help"`; throws on a usage mistake. */
  parse(argv: string[]): A | "help";
  /** Runs the command (loading what it needs only now, after the Node.js check); resolves to the exit status. */
  run(args: A): Promise<number>;
  /** The exit status of a failure `run` rejects with, a {@link UsageError} aside (2); default 2. */
  failureStatus?: number;
}

/** Runs `command` with the process's arguments and sets the exit status. */
export function runCommand<A>(command: Command<A>): void {
  const { name, usage } = command;
  const main = async (): Promise<number> => {
    const tooOld = nodeVersionProblem();
    if (tooOld !== undefined) {
      process.stderr.write(`${name}: ${tooOld}\n`);
      return 2;
    }
    let args: A | "help";
    try {
      args = command.parse(process.argv.slice(2));
    } catch (error) {
      // A refused argument is quoted: it may be the key, typed after the command or a variable expanded in the wrong place.
      // The mistake is said after the usage too, where a terminal leaves it in sight (the usage is some 40 lines).
      const mistake = `${name}: ${withoutKey(error instanceof Error ? error.message : String(error))}\n`;
      process.stderr.write(`${mistake}\n${usage}\n${mistake}`);
      return 2;
    }
    if (args === "help") {
      process.stdout.write(usage);
      return 0;
    }
    return command.run(args);
  };
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${withoutKey(error instanceof Error ? error.message : String(error))}\n`);
      process.exitCode = UsageError.isInstance(error) ? 2 : (command.failureStatus ?? 2);
    },
  );
}

/**
 * `message` without `WORKSPACE_ACCESS_API_KEY`'s key, whole or any run of it, as the client removes it from its own texts (a key
 * too short to be sent: nothing, `makeRedactor`).
 */
function withoutKey(message: string): string {
  const key = process.env.WORKSPACE_ACCESS_API_KEY?.trim();
  return key ? makeRedactor(key)(message) : message;
}
