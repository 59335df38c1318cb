/** A fleet report as text (a terminal, a CI log), markdown (a pull-request comment) or JSON (`docs/fleet.md`, for tools). */
import type { Format } from "../command-line";
import { CHANGE_OPS, type ChangeCounts, changeTotal, type FleetReport, type StackReport } from "./types";

const COUNTS: Array<keyof ChangeCounts> = [...CHANGE_OPS, "same"];
/** What a report says of counts it does not know (`changes: null`): never zeros, which would claim no change. */
const NO_SUMMARY = "no summary from the engine";
const UNKNOWN_COUNTS = `changes unknown: ${NO_SUMMARY} (pulumi ended mid-stream, or its event log was cut)`;
/** A table's cell of one count: `?` when the counts are unknown. */
const countCell = (stack: StackReport, count: keyof ChangeCounts) => (stack.changes === null ? "?" : String(stack.changes[count]));
/** What heads the changes a failed stack made before it stopped. */
const FAILED_MIDWAY = "changed before it failed:";
/** How the text format marks each operation, as `pulumi` does. */
const MARKS: Record<string, string> = { create: "+", update: "~", delete: "-", replace: "+-" };

/** The report in `format`, ending with a newline. */
export function renderFleetReport(report: FleetReport, format: Format): string {
  if (format === "json") return `${JSON.stringify(jsonOf(report), null, 2)}\n`;
  return format === "markdown" ? markdownOf(report) : textOf(report);
}

/**
 * The JSON document: the command, whether a change fails the run, whether the run was interrupted, and (only then) the
 * selection it could not put back (the exit status follows from these and the stacks), and per stack its result, its counts
 * (`null`: unknown), (failed only) its error, (skipped only) why, any warnings, and any changed resources, each of them (no
 * limit, as the text's): what the text report says, for a tool. A field a stack has none of is left out: a report with no
 * change reads as before resources were listed.
 */
function jsonOf(report: FleetReport) {
  return {
    command: report.command,
    expectNoChanges: report.expectNoChanges,
    interrupted: report.interrupted,
    ...(report.selectionNotRestored === undefined ? {} : { selectionNotRestored: report.selectionNotRestored }),
    stacks: report.stacks.map((s) => ({
      stack: s.stack,
      result: s.result,
      changes: s.changes,
      ...(s.result === "failed" && s.error !== undefined ? { error: s.error } : {}),
      ...(s.result === "skipped" && s.skippedBecause !== undefined ? { skippedBecause: s.skippedBecause } : {}),
      ...(s.warnings !== undefined && s.warnings.length > 0 ? { warnings: s.warnings } : {}),
      ...(s.resources.length > 0 ? { resources: s.resources.map(({ op, type, name, urn }) => ({ op, type, name, urn })) } : {}),
    })),
  };
}

/**
 * What the command adds on stderr once its report is printed (`name`, the command's): the selection it could not put back,
 * for whoever does not read stdout now (the report redirected to a file, `> comment.md`), since the next bare `pulumi`
 * in the folder would reach that stack. Nothing when stdout is a terminal: the report there says it in every format, and
 * stderr, the same terminal, would print it twice. Nothing either when the selection was put back.
 */
export function selectionWarningOnStderr(report: FleetReport, name: string, stdoutIsTerminal: boolean): string {
  return report.selectionNotRestored === undefined || stdoutIsTerminal ? "" : `${name}: ${report.selectionNotRestored}\n`;
}

/**
 * The progress line of a stack that ended (stderr, in every format): how it ended, its changes, and how many warnings it
 * gave (the report's table lists them), so that a warning is seen while the other stacks still run.
 */
export function stackDoneLine(report: StackReport): string {
  const warned = report.warnings?.length ?? 0;
  const warnings = warned === 0 ? "" : `; ${warned} warning${warned === 1 ? "" : "s"} (listed in the report)`;
  if (report.result === "failed") return `${report.stack}: failed${warnings}: ${report.error ?? ""}`;
  if (report.result === "skipped") return `${report.stack}: skipped (${report.skippedBecause ?? ""})`;
  const { changes } = report;
  if (changes === null) return `${report.stack}: succeeded, changes unknown (${NO_SUMMARY})${warnings}`;
  const changed = CHANGE_OPS.filter((op) => changes[op] > 0);
  return `${report.stack}: succeeded${changed.length === 0 ? ", no changes" : `: ${changed.map((op) => `${changes[op]} ${op}`).join(", ")}`}${warnings}`;
}

/** One line: how many stacks ended how, and what made the run fail. */
function summaryLine(report: FleetReport): string {
  const count = (result: string) => report.stacks.filter((s) => s.result === result).length;
  const parts = [`${count("succeeded")} succeeded`, `${count("failed")} failed`, `${count("skipped")} skipped`];
  const changed = report.stacks.filter((s) => s.changes !== null && changeTotal(s.changes) > 0);
  // A drift check's changes are what would bring a workspace back to its program: that stack has drifted. A failed
  // stack's counts stop where its check stopped, and say nothing of the whole workspace: it is counted as failed only.
  if (report.command === "drift") parts.push(`${changed.filter((s) => s.result === "succeeded").length} drifted`);
  else if (report.expectNoChanges) parts.push(`${changed.length} with changes (--expect-no-changes)`);
  // A stack that succeeded without the engine's summary: neither changed nor unchanged, as far as anything proves.
  const unknown = report.stacks.filter((s) => s.result === "succeeded" && s.changes === null).length;
  if (unknown > 0) parts.push(`${unknown} with ${report.command === "drift" ? "drift" : "changes"} unknown (${NO_SUMMARY})`);
  // A warning fails no stack, yet says something is not as it should be (a key in plain text): counted when there is one.
  const warned = report.stacks.filter((s) => (s.warnings?.length ?? 0) > 0).length;
  if (warned > 0) parts.push(`${warned} with warnings`);
  const n = report.stacks.length;
  return `workspace-access-fleet ${report.command}: ${n} stack${n === 1 ? "" : "s"}, ${parts.join(", ")}${report.interrupted ? "; interrupted" : ""}`;
}

/**
 * What the last column says of a stack: its error, why it was skipped, or its changed resources (the first `resources` of
 * them, then how many more); then its warnings.
 */
function details(stack: StackReport, resources = Number.POSITIVE_INFINITY): string[] {
  const warnings = (stack.warnings ?? []).map((warning) => `warning: ${warning}`);
  const listed = stack.resources.slice(0, resources).map((r) => `${MARKS[r.op] ?? r.op} ${r.type} ${r.name}`);
  const more = stack.resources.length - listed.length;
  const rest = more === 0 ? [] : [`and ${more} more changed resource${more === 1 ? "" : "s"} (--format text lists every one)`];
  // A failed up or refresh may have changed some resources before it stopped: the workspace is half rolled out.
  const before = stack.resources.length === 0 ? [] : [FAILED_MIDWAY, ...listed, ...rest];
  if (stack.result === "failed") return [`error: ${stack.error ?? "failed"}`, ...before, ...warnings];
  if (stack.result === "skipped") return [`skipped: ${stack.skippedBecause ?? "not run"}`];
  const unknown = stack.changes === null ? [UNKNOWN_COUNTS] : [];
  return [...unknown, ...listed, ...rest, ...warnings];
}

function textOf(report: FleetReport): string {
  const head = ["STACK", "RESULT", ...COUNTS.map((c) => c.toUpperCase())];
  const rows = report.stacks.map((s) => [s.stack, s.result, ...COUNTS.map((c) => countCell(s, c))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [line(head)];
  report.stacks.forEach((stack, i) => {
    out.push(line(rows[i] ?? []));
    for (const detail of details(stack)) out.push(`    ${detail}`);
  });
  const selection = report.selectionNotRestored === undefined ? "" : `warning: ${report.selectionNotRestored}\n`;
  return `${out.join("\n")}\n\n${summaryLine(report)}\n${selection}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** GitHub refuses a comment longer than this: the markdown (a pull request's comment) stays within it. */
export const MARKDOWN_LIMIT = 65_536;
/** The changed resources a stack's row lists before "and N more": a first preview of a large workspace lists thousands. */
const ROW_RESOURCES = 50;

/**
 * The table, each row listing at most `resources` changed resources; over {@link MARKDOWN_LIMIT}, again listing none (the
 * counts stay), and if still over it (hundreds of stacks, long errors), the rows that fit and how many were left out.
 */
function markdownOf(report: FleetReport, resources = ROW_RESOURCES): string {
  const icon: Record<string, string> = { succeeded: "✅", failed: "❌", skipped: "⏭️" };
  const rows = report.stacks.map((s) => {
    const counts = COUNTS.map((c) => countCell(s, c));
    const detail = details(s, resources).map((d) => `\`${cell(d).replace(/`/g, "'")}\``);
    return `| ${cell(s.stack)} | ${icon[s.result] ?? ""} ${s.result} | ${counts.join(" | ")} | ${detail.join("<br>")} |`;
  });
  const selection = report.selectionNotRestored === undefined ? [] : [`warning: ${cell(report.selectionNotRestored)}`, ""];
  const head = [
    `### ${summaryLine(report)}`,
    "",
    ...selection,
    "| stack | result | create | update | delete | replace | same | changed resources |",
    "|---|---|--:|--:|--:|--:|--:|---|",
  ];
  const text = [...head, ...rows, ""].join("\n");
  if (text.length <= MARKDOWN_LIMIT) return text;
  if (resources > 0) return markdownOf(report, 0);
  const left = (n: number) => `\n_and ${n} more stack${n === 1 ? "" : "s"}, left out to fit a comment: --format text lists every one._\n`;
  const kept: string[] = [];
  let length = head.join("\n").length + left(rows.length).length + 1;
  for (const row of rows) {
    if (length + row.length + 1 > MARKDOWN_LIMIT) break;
    kept.push(row);
    length += row.length + 1;
  }
  return `${[...head, ...kept].join("\n")}\n${left(rows.length - kept.length)}`;
}
