/**
 * A command line run in process the way its bin runs it (`runCommand`), what it wrote to stderr kept: for the tests of what
 * a command says and which exit status it sets when its work rejects.
 */
import { vi } from "vitest";
import { type Command, runCommand } from "../../src/command-line";

/** Runs `command` (its `run` the work to await), and resolves once it settled and set `process.exitCode`: to what it wrote on stderr. */
export async function ranCommand<A>(command: Command<A>): Promise<string> {
  const written: string[] = [];
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
  let finished!: () => void;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  runCommand({ ...command, run: (args) => command.run(args).finally(() => setTimeout(finished, 0)) });
  await done;
  // runCommand sets the exit status in the turn after the work settled.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return written.join("");
}
