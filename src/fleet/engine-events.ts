/**
 * One stack's engine events as they arrive: the engine's counts (its summary event, the one count left when the
 * command fails), the resources it changed, and its error diagnostics, a failed stack's message.
 */
import { stripVTControlCharacters } from "node:util";
import type { EngineEvent, OpMap } from "@pulumi/pulumi/automation";
import { REFRESH_HINT } from "../shared/hints";
import { type ChangeCounts, type ChangedResource, noChanges } from "./types";

/** The operations a report lists as changes, in its order; `same`, `read` and the replacement's halves are not. */
const OP_ORDER = ["create", "update", "replace", "delete"];
/** The engine's closing lines, which say only that something failed above. */
const GENERIC = /^(error: )?(update|preview|refresh|destroy) failed\.?$|^an error occurred/i;

/** The engine's opening of a resource step's error: `Preview failed: GET ... answered 401: ...`. */
const STEP_FAILED = /^(preview|update|refresh|destroy|import) failed:\s*/i;

type EngineDiagnostic = { urn: string | undefined; message: string };

/** The engine's counts in the report's shape (a replacement counts once, as `replace`). */
export function countsOf(map: OpMap | undefined): ChangeCounts {
  const counts = noChanges();
  for (const key of Object.keys(counts) as Array<keyof ChangeCounts>) counts[key] = map?.[key] ?? 0;
  return counts;
}

/** `urn:pulumi:stack::project::type::name`: its type's last part and its name. */
function resourceOf(urn: string): { type: string; name: string } {
  const parts = urn.split("::");
  return { type: parts[2]?.split(/[:/$]/).at(-1) ?? "", name: parts.slice(3).join("::") };
}

/**
 * A warning of the program (`warning`) or of the provider host: the host's `log.warn` reaches the engine as a line of its
 * stderr (`info#err`), `warning: [runtime] ...`.
 */
function isWarning(diagnostic: NonNullable<EngineEvent["diagnosticEvent"]>): boolean {
  if (diagnostic.severity === "warning") return true;
  return diagnostic.severity === "info#err" && /^warning:/i.test(stripVTControlCharacters(diagnostic.message).trimStart());
}

/** Collects one stack's events; hand {@link EventCollector.onEvent} to the Automation API. */
export class EventCollector {
  summary: ChangeCounts | undefined;
  readonly diagnostics: EngineDiagnostic[] = [];
  /** The warning diagnostics, as they came: {@link warningsOf} gives them to the report. */
  readonly warnings: EngineDiagnostic[] = [];
  readonly #resources = new Map<string, ChangedResource>();
  /** The changes the engine reports done (an outputs event): what a failed up or refresh changed before it stopped. */
  readonly #applied = new Map<string, ChangedResource>();

  readonly onEvent = (event: EngineEvent): void => {
    const diagnostic = event.diagnosticEvent;
    if (diagnostic?.severity === "error") this.diagnostics.push({ urn: diagnostic.urn, message: diagnostic.message });
    if (diagnostic && isWarning(diagnostic)) this.warnings.push({ urn: diagnostic.urn, message: diagnostic.message });
    if (event.summaryEvent) this.summary = countsOf(event.summaryEvent.resourceChanges);
    const step = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
    // The stack itself and the providers: counted by the engine, but no resource of the user's.
    if (!step || step.type === "pulumi:pulumi:Stack" || step.type.startsWith("pulumi:providers:")) return;
    const changed = (op: string) => {
      const { name } = resourceOf(step.urn);
      const resource = { op, type: step.type.split(/[:/]/).at(-1) ?? step.type, name: name || step.urn, urn: step.urn };
      this.#resources.set(step.urn, resource);
      if (event.resOutputsEvent) this.#applied.set(step.urn, resource);
    };
    if (OP_ORDER.includes(step.op)) changed(step.op);
    // A refresh's steps are `refresh`: its outputs event says whether the resource drifted or is gone.
    if (step.op === "refresh" && event.resOutputsEvent) {
      const gone = step.new === undefined && step.old !== undefined;
      const drifted = (step.diffs?.length ?? 0) > 0 || Object.keys(step.detailedDiff ?? {}).length > 0;
      if (gone || drifted) changed(gone ? "delete" : "update");
    }
  };

  /** By operation, type, name and URN: the engine reaches them in no fixed order, and a comment should change only with them. */
  resources(): ChangedResource[] {
    return sorted(this.#resources);
  }

  /** The changes made, in the order of {@link resources}: a failed up's or refresh's, which the report lists under its error. */
  applied(): ChangedResource[] {
    return sorted(this.#applied);
  }
}

/** By operation, type and name, then URN (two of one type and name, under two parents). */
function sorted(resources: ReadonlyMap<string, ChangedResource>): ChangedResource[] {
  const rank = (op: string) => OP_ORDER.indexOf(op);
  return [...resources.values()].sort(
    (a, b) =>
      rank(a.op) - rank(b.op) || a.type.localeCompare(b.type) || a.name.localeCompare(b.name) || (a.urn ?? "").localeCompare(b.urn ?? ""),
  );
}

/** A diagnostic's text on one line: no colours, no trace, no `error:`/`warning:` or `[runtime]` prefix, no engine's closing line. */
function lineOf(message: string): string {
  return stripVTControlCharacters(message)
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/^(error|warning):\s*/i, "")
        .replace(/^\[runtime\]\s*/, ""),
    )
    .filter((line) => line !== "" && !/^at\s/.test(line) && !GENERIC.test(line))
    .join(" ");
}

/** The resource a diagnostic names, `User alice@acme.example`; "" for the stack itself or none. */
function resourceNamed(urn: string | undefined): string {
  if (!urn || urn.includes("::pulumi:pulumi:Stack::")) return "";
  return Object.values(resourceOf(urn))
    .filter((p) => p !== "")
    .join(" ");
}

/**
 * A stack's warnings (redacted by the caller), each once, with the resources that gave it: `User a, User b: ...`. The
 * package warns of what pulumi lets succeed (a key in plain text, entitlements not checked): a report that dropped them
 * would show the stack as if all were well.
 */
export function warningsOf(diagnostics: readonly EngineDiagnostic[]): string[] {
  const messages = diagnostics.map(({ urn, message }) => ({ resource: resourceNamed(urn), text: lineOf(message) }));
  return [...byText(messages.filter((m) => m.text !== ""))].map(([text, resources]) => named(resources, text));
}

/** Each text once, in the order first given, with the resources that gave it (none for the stack's own). */
function byText(messages: ReadonlyArray<{ resource: string; text: string }>): Map<string, string[]> {
  const texts = new Map<string, string[]>();
  for (const { resource, text } of messages) {
    const resources = texts.get(text) ?? [];
    if (resource !== "" && !resources.includes(resource)) resources.push(resource);
    texts.set(text, resources);
  }
  return texts;
}

/** `User a, User b: text`, or the text alone. */
const named = (resources: readonly string[], text: string) => `${resources.length > 0 ? `${resources.join(", ")}: ` : ""}${text}`;

/**
 * A failed stack's message (redacted by the caller): the engine's error diagnostics, each with its resource, not
 * the CLI's whole output nor a trace; when the engine never started (a wrong passphrase), the CLI's `error:` lines.
 */
export function failureMessage(diagnostics: readonly EngineDiagnostic[], commandOutput: string): string {
  const messages: Array<{ resource: string; text: string }> = [];
  for (const { urn, message } of diagnostics) {
    // The fleet's refreshes run the program (with the stack config's key): the hint to run one that does is moot.
    // The engine gives a step's error as `Preview failed: ...`, at times beside the same error without it (a drift
    // check's refresh of a resource): one error, said once, without the engine's words for which command it was.
    const text = lineOf(message).replace(REFRESH_HINT.trim(), "").trim().replace(STEP_FAILED, "");
    if (text !== "") messages.push({ resource: resourceNamed(urn), text });
  }
  if (messages.length > 0) return saidOnce(messages);
  // The Automation API's message is `code: N\n stdout: ...\n stderr: ...\n err?: ...`; `err?` repeats the command line.
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

/**
 * The sentences of a message, split after a full stop outside parentheses: a sentence within a parenthesis (the reason a
 * lookup failed, `(GET ... answered 503: ... Gave up after 5 retries (...)).`) belongs to the sentence around it, and
 * dropping it as said already would leave that parenthesis open and the sentence cut short.
 */
function sentencesOf(text: string): string[] {
  const sentences: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0 && c === "." && /\s/.test(text[i + 1] ?? "")) {
      sentences.push(text.slice(start, i + 1));
      start = i + 1;
      while (/\s/.test(text[start] ?? "")) start++;
      i = start - 1;
    }
  }
  if (start < text.length) sentences.push(text.slice(start));
  return sentences;
}

/**
 * A stack's messages with each hint once: a key refused to every resource of a stack would otherwise repeat the same
 * sentences (where the key comes from, how to check it) resource after resource. Each message keeps its first sentence
 * (its own error) and the sentences no earlier message said; resources with the same message share it: `User a, User b: ...`.
 */
function saidOnce(messages: ReadonlyArray<{ resource: string; text: string }>): string {
  const said = new Set<string>();
  return [...byText(messages)]
    .map(([text, resources]) => {
      const sentences = sentencesOf(text);
      const kept = sentences.filter((sentence, i) => i === 0 || !said.has(sentence));
      for (const sentence of sentences) said.add(sentence);
      return named(resources, kept.join(" "));
    })
    .join("; ");
}
