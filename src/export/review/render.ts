/**
 * The review as `text` (a terminal, a CI log), `markdown` (a pull-request comment) or `json` (for tools: every key
 * always present, `null` when empty). Records left out are counted; `verbose` lists them (`json` always does).
 */
import type { Format } from "../../command-line";
import type { LeftOut } from "../build-left-out";
import type { AccessDifference } from "./differences";

/** What `--check` found. */
export interface Review {
  /** The workspace's API address that was read. */
  workspace: string;
  /** Every difference between `access.yaml` and the workspace now. */
  changes: AccessDifference[];
  /** Records of the workspace now that a project cannot declare. */
  leftOut: LeftOut[];
  /** Remarks for the reader, such as `access.yaml` coming from another workspace. */
  notes: string[];
  /** Whether `access.yaml` was rewritten to hold the workspace's side (`--accept`, and differences found or ids to record). */
  accepted: boolean;
}

/** How to show it: `verbose` lists the records left out; `out`, the directory as given, for the commands suggested. */
export interface RenderOptions {
  format: Format;
  verbose: boolean;
  out: string;
}

/** The version of the `json` shape. */
const REVIEW_JSON_VERSION = 1;

/**
 * `text` with what a terminal or a CI log would act on escaped (`\u001b`): line breaks, other control characters and
 * the marks that reorder text. A value read from the workspace (a name, an email) may hold any of them, and printed
 * as it is, a line break in a name prints a line no difference holds (a CI runner takes `::` at a line's start as a command).
 */
export const printable = (text: string): string =>
  text.replace(/[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** The review in `options.format`, ending with a newline. */
export function renderReview(review: Review, options: RenderOptions): string {
  if (options.format === "json") return `${JSON.stringify(reviewJson(review), null, 2)}\n`;
  return options.format === "markdown" ? markdown(review, options) : text(review, options);
}

/** What to run to take either side, with `code` marking commands and file names. */
function advice(out: string, code: (text: string) => string, commit: string): [string, string] {
  return [
    `To take the workspace's side into ${code("access.yaml")} (only these records change): ` +
      `${code(`workspace-access-export --check --accept --out ${out}`)}${commit}`,
    `To keep ${code("access.yaml")}'s side, change the workspace; ${code("pulumi up")} applies what ${code("access.yaml")} declares.`,
  ];
}

const leftOutLine = (n: number) => `${plural(n, "record")} of the workspace a project cannot declare ${n === 1 ? "is" : "are"} left out`;

function text(review: Review, options: RenderOptions): string {
  const n = review.changes.length;
  const lines = review.changes.map((d) => printable(d.text));
  if (n === 0) lines.push("access.yaml and the workspace hold the same access.");
  else if (review.accepted)
    lines.push(`${plural(n, "difference")} between access.yaml and the workspace: access.yaml now holds the workspace's side.`);
  else lines.push(`${plural(n, "difference")} between access.yaml and the workspace.`, ...advice(options.out, (t) => t, ""));
  if (review.leftOut.length > 0) {
    lines.push(`${leftOutLine(review.leftOut.length)}${options.verbose ? ":" : " (--verbose lists them)."}`);
    if (options.verbose) for (const record of review.leftOut) lines.push(`  ${printable(record.text)}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A value in a table cell: one line, `|` escaped, and `<`, `>`, `&` as entities, so that a name holding them (`Lee <ext>`,
 * `<!--`) reads as it is rather than as markup the comment hides.
 */
const cell = (value: string | null | undefined) =>
  value === null || value === undefined || value === ""
    ? "—"
    : printable(value.replace(/\s+/g, " ")).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\|/g, "\\|");

function markdown(review: Review, options: RenderOptions): string {
  const n = review.changes.length;
  const out = [`### Access review: ${n === 0 ? "no difference" : plural(n, "difference")} between \`access.yaml\` and the workspace`, ""];
  out.push(`Workspace: \`${review.workspace}\``, "");
  if (n > 0) {
    out.push("| Who | Where | What | `access.yaml` | Workspace |", "| --- | --- | --- | --- | --- |");
    for (const d of review.changes) {
      // `user-role` as `role`, `member-role` as `member role`.
      const what = d.kind === "left-out" ? `left out: ${d.leftOut ?? ""}` : d.kind.replace(/^user-/, "").replace("-", " ");
      out.push(
        `| ${cell(d.user)} | ${cell(d.integration ?? "workspace")} | ${cell(what)} | ${cell(d.accessYaml)} | ${cell(d.workspace)} |`,
      );
    }
    const code = (t: string) => `\`${t}\``;
    out.push(
      "",
      review.accepted ? "`access.yaml` now holds the workspace's side." : advice(options.out, code, ", then commit it.").join(" "),
      "",
    );
  }
  if (review.leftOut.length > 0) {
    const line = leftOutLine(review.leftOut.length);
    if (options.verbose) {
      out.push(`<details><summary>${line}</summary>`, "", ...review.leftOut.map((r) => `- ${cell(r.text)}`), "", "</details>", "");
    } else out.push(`${line} (\`--verbose\` lists them).`, "");
  }
  // A note may list entries a line each: every line of it in the quote.
  for (const note of review.notes) out.push(`> Note: ${note.split("\n").join("\n> ")}`, "");
  return `${out.join("\n").trimEnd()}\n`;
}

/**
 * The notes of a `text` review, for stderr (stdout keeps the differences): every line prefixed `<name>: note: `, as the
 * markdown quotes every line, so a note listing entries a line each reads as one note, and no line of it as output of its own.
 */
export const notesText = (notes: readonly string[], name: string): string =>
  notes
    .map((note) =>
      note
        .split("\n")
        .map((line) => `${name}: note: ${line}\n`)
        .join(""),
    )
    .join("");

/** The `json` shape: see `docs/export.md`. */
function reviewJson(review: Review) {
  return {
    version: REVIEW_JSON_VERSION,
    workspace: review.workspace,
    accepted: review.accepted,
    differences: review.changes.map((d) => ({
      kind: d.kind,
      side: d.side,
      user: d.user,
      userId: d.userId ?? null,
      integration: d.integration ?? null,
      integrationId: d.integrationId ?? null,
      accessYaml: d.accessYaml,
      workspace: d.workspace,
      entitlements: d.entitlements ?? null,
      leftOut: d.leftOut ?? null,
      text: d.text,
    })),
    leftOut: {
      count: review.leftOut.length,
      records: review.leftOut.map((r) => ({
        kind: r.kind,
        id: r.id ?? null,
        email: r.email ?? null,
        integrationId: r.kind === "membership" ? (r.integration ?? null) : null,
        integration: r.label ?? null,
        reason: r.reason,
        text: r.text,
      })),
    },
    notes: [...review.notes],
  };
}
