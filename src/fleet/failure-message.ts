/**
 * A failed stack's message for the report: the package's own error line(s) from the engine's error
 * diagnostics, each with the resource it is about, not the CLI's whole output nor a stack trace.
 * When the engine never started (a wrong passphrase, a missing plugin), the CLI's `error:` lines.
 */
import { stripVTControlCharacters } from "node:util";
import type { EngineDiagnostic } from "./engine-events";

/** The engine's closing lines, which say only that something failed above. */
const GENERIC = /^(error: )?(update|preview|refresh|destroy) failed\.?$|^an error occurred/i;
/** A stack frame (lines are trimmed first). */
const TRACE = /^at\s/;

/** The resource of a URN as the report names it, e.g. `User alice@acme.example`. */
function resourceName(urn: string): string {
  const parts = urn.split("::");
  const type = parts[2]?.split(/[:/$]/).at(-1) ?? "";
  const name = parts.slice(3).join("::");
  return [type, name].filter((p) => p !== "").join(" ");
}

/** The meaningful lines of one message: no trace, no generic line, no blank, no `error:` prefix. */
function linesOf(message: string): string[] {
  return stripVTControlCharacters(message)
    .split("\n")
    .map((line) => line.trim().replace(/^error:\s*/i, ""))
    .filter((line) => line !== "" && !TRACE.test(line) && !GENERIC.test(line));
}

/** The report's `error` of a failed stack (not yet redacted: the caller redacts every text it reports). */
export function failureMessage(diagnostics: readonly EngineDiagnostic[], commandOutput: string): string {
  const seen = new Set<string>();
  const messages: string[] = [];
  for (const diagnostic of diagnostics) {
    const lines = linesOf(diagnostic.message);
    if (lines.length === 0) continue;
    // The first line is the error; what follows it is its detail or its trace (already dropped).
    const where = diagnostic.urn && !diagnostic.urn.includes("::pulumi:pulumi:Stack::") ? `${resourceName(diagnostic.urn)}: ` : "";
    const text = `${where}${lines.join(" ")}`;
    if (!seen.has(text)) messages.push(text);
    seen.add(text);
  }
  if (messages.length > 0) return messages.join("; ");
  // No diagnostic: the engine did not run. The CLI's own `error:` lines say why, else its last line.
  // The Automation API's message is `code: N\n stdout: ...\n stderr: ...\n err?: ...`.
  // Its `err?` part is the process library's error, which repeats the command line: left out.
  const lines = commandOutput
    .split("\n err?: ")[0]!
    .split("\n")
    .map((line) => line.trim().replace(/^(stdout|stderr|err\?):\s*/, ""))
    .filter((line) => line !== "" && !/^code: -?\d+$/.test(line));
  const errors = lines.filter((line) => /^error:/i.test(line)).map((line) => line.replace(/^error:\s*/i, ""));
  const telling = [...new Set(errors.filter((line) => !GENERIC.test(line)))];
  if (telling.length > 0) return telling.join("; ");
  const code = /^code: (-?\d+)$/m.exec(commandOutput)?.[1];
  return lines.filter((line) => !GENERIC.test(line)).at(-1) ?? `pulumi exited with code ${code ?? "?"} and no error message`;
}
