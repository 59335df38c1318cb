#!/usr/bin/env node
/**
 * `workspace-access-emulator`: runs the emulator until SIGINT/SIGTERM. It prints the base
 * URL and the API key: the key is the emulator's own throwaway key, never a real one.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { nodeVersionProblem } from "../node-version";
import { startEmulator } from "./emulator";
import { defaultSeed } from "./seed";
import type { EmulatorSeed } from "./types";

const USAGE = `Usage: workspace-access-emulator [options]

Runs an in-memory emulator of the workspace access API until interrupted.

Options:
  --port N        port to listen on (default 0: an ephemeral port)
  --host H        address to listen on (default 127.0.0.1)
  --seed FILE     JSON seed ({ "users": [...], "integrations": [...] }); default: a small demo world
  --api-key K     the API key to accept (default: a random wa_emu_... key)
  -h, --help      show this help
`;

/** Parses the command line; exits on --help or bad input. */
function options(argv: string[]): { port: number; host: string; seed: EmulatorSeed; apiKey?: string } {
	const { values } = parseArgs({
		args: argv,
		options: {
			port: { type: "string" },
			host: { type: "string" },
			seed: { type: "string" },
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
	const seed = values.seed === undefined ? defaultSeed() : (JSON.parse(readFileSync(values.seed, "utf8")) as EmulatorSeed);
	return { port, host: values.host ?? "127.0.0.1", seed, apiKey: values["api-key"] };
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
	const emulator = await startEmulator(parsed);
	const lines = [
		"workspace-access-emulator is running",
		`  base URL: ${emulator.url}`,
		`  API key:  ${emulator.apiKey}`,
		...emulator.integrations.list().map((i) => `  integration ${i.application}: ${i.id}`),
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
