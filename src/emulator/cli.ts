#!/usr/bin/env node
/**
 * `workspace-access-emulator`: runs the emulator until SIGINT/SIGTERM. It prints the base
 * URL and the API key: the key is the emulator's own throwaway key, never a real one.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { nodeVersionProblem } from "../node-version";
import { startEmulator } from "./emulator";
import { defaultSeed, parseSeed } from "./seed";
import { parseQuirk } from "./quirks";
import type { EmulatorQuirks, EmulatorSeed } from "./types";
import { populatedSeed } from "./worlds";

const USAGE = `Usage: workspace-access-emulator [options]

Runs an in-memory emulator of the workspace access API until interrupted.

Options:
  --port N        port to listen on (default 0: an ephemeral port)
  --host H        address to listen on (default 127.0.0.1)
  --seed FILE     start with the users and integrations of a JSON file instead of the default
                  world (4 users, YouTube and Slack); see examples/emulator-seed.json
  --world NAME    start from a built-in world instead: "populated" (512 users of every kind,
                  three integrations, one with 300 members) or "adversarial" (the populated
                  world plus another admin's records, with every quirk below on)
  --quirk N=V     turn on (or, with the adversarial world, off) a behaviour the contract allows;
                  repeatable: shiftPages=remove|insert|false, repeatRecords=true|false,
                  inviteExisting=conflict|merge|fail, upperCaseIds=true|false,
                  noContent=true|false, nullFields=true|false
  --empty         start with no users and no integrations
  --api-key K     the API key to accept (default: a random wa_emu_... key)
  -h, --help      show this help
`;

/** A seed file, checked field by field; errors name the file and the field. */
function readSeed(file: string): EmulatorSeed {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read the seed file ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return parseSeed(JSON.parse(text));
  } catch (error) {
    throw new Error(`the seed file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Parses the command line; exits on --help or bad input. */
function options(argv: string[]): {
  port: number;
  host: string;
  seed?: EmulatorSeed;
  world?: "adversarial";
  quirks: EmulatorQuirks;
  apiKey?: string;
} {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      seed: { type: "string" },
      world: { type: "string" },
      quirk: { type: "string", multiple: true },
      empty: { type: "boolean" },
      "api-key": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const port = Number(values.port ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be an integer 0..65535, got ${values.port}`);
  if ([values.seed !== undefined, values.world !== undefined, values.empty === true].filter(Boolean).length > 1) {
    throw new Error("--seed, --world and --empty cannot be used together");
  }
  if (values.world !== undefined && values.world !== "populated" && values.world !== "adversarial") {
    throw new Error(`--world must be "populated" or "adversarial", got ${values.world}`);
  }
  const quirks: EmulatorQuirks = {};
  for (const quirk of values.quirk ?? []) Object.assign(quirks, parseQuirk(quirk));
  const host = values.host ?? "127.0.0.1";
  if (values.world === "adversarial") return { port, host, world: "adversarial", quirks, apiKey: values["api-key"] };
  const seed =
    values.empty === true
      ? {}
      : values.world === "populated"
        ? populatedSeed()
        : values.seed === undefined
          ? defaultSeed()
          : readSeed(values.seed);
  return { port, host, seed, quirks, apiKey: values["api-key"] };
}

async function main(): Promise<void> {
  const tooOld = nodeVersionProblem();
  if (tooOld !== undefined) {
    process.stderr.write(`workspace-access-emulator: ${tooOld}\n`);
    process.exit(1);
  }
  let parsed: ReturnType<typeof options>;
  try {
    parsed = options(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`workspace-access-emulator: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emulator = await startEmulator(parsed);
  } catch (error) {
    // A seed whose records do not fit together (an email twice, a member who is not a user).
    const message = error instanceof Error ? error.message.replace(/^emulator: /, "") : String(error);
    process.stderr.write(`workspace-access-emulator: the seed does not load: ${message}\n`);
    process.exit(2);
  }
  const lines = [
    "workspace-access-emulator is running",
    `  base URL: ${emulator.url}`,
    `  API key:  ${emulator.apiKey}`,
    ...emulator.integrations.list().map((i) => `  integration ${i.application}: ${i.id}`),
    ...Object.entries(emulator.quirks)
      .filter(([, value]) => value !== false)
      .map(([name, value]) => `  quirk ${name}=${String(value)}`),
    "Press Ctrl+C to stop.",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  const stop = (signal: string) => {
    process.stdout.write(`\nReceived ${signal}, stopping.\n`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

main().catch((error: unknown) => {
  process.stderr.write(`workspace-access-emulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
