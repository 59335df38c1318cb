#!/usr/bin/env node
/**
 * `workspace-access-export`: a workspace as a Pulumi project, or with `--check` compared with one. Exit status: 0 done
 * (`--check`: no difference), 1 differences found, 2 the export or check could not be done (the message says why).
 */
import { formatOf, parseFlags, runCommand, UsageError } from "../command-line";
import type { CheckOptions } from "./run-check";
import type { ExportOptions } from "./run";
import type { ExportProgress } from "./snapshot";

const NAME = "workspace-access-export";

const USAGE = `Usage: ${NAME} --out DIR [--base-url URL] [--integration ID|LABEL ...] [--members-only] [--shape records|sets] [--package-spec SPEC] [--verbose]
       ${NAME} --check --out DIR [--accept] [--format text|markdown|json] [--verbose] [--base-url URL]

Writes the workspace's users and integration memberships as a Pulumi TypeScript project whose
first \`pulumi up\` against the same workspace changes nothing; with --check, compares the workspace
with that project's access.yaml instead (an access review).

Options:
  --out DIR             the project directory: new or empty (nothing is overwritten); with --check, the
                        exported project
  --base-url URL        the workspace's API root, e.g. https://acme.example.com/api/v1/ (default:
                        WORKSPACE_ACCESS_BASE_URL, or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST;
                        with --check, then the address access.yaml records if you gave it on this
                        machine before, never in CI); remembered for later checks
  --integration X       only the memberships of this integration (id or label, exact); repeat for more
  --members-only        only the users with a membership in those integrations
  --check               print each difference between access.yaml and the workspace, by which side
                        holds what; exit 1 when anything differs, 0 when nothing does
  --accept              with --check: edit access.yaml to hold the workspace's side (only the records
                        that differ change; names and comments kept); exit 0
  --format F            with --check: text (default), markdown (a table for a pull-request comment)
                        or json (for tools)
  --verbose             list the records a project cannot declare, not only their count
  --shape S             index.ts declares a resource per user and membership (records) or one WorkspaceUsers
                        and an IntegrationMembers per integration (sets); default: sets from 500 users or
                        1,000 memberships on
  --package-spec SPEC   the generated package.json's dependency on pulumi-workspace-access (default:
                        the tarball or git URL this command was installed from, else ^VERSION)
  -h, --help            show this help

The API key is read from WORKSPACE_ACCESS_API_KEY only (never a flag, so it stays out of shell
history). It needs the scopes Read users and Read integrations.

Documentation: node_modules/pulumi-workspace-access/docs/export.md (and docs/ci.md for the review
in CI), in the installed package.
`;

/** What each shape of index.ts declares, for the summary. */
const SHAPES = { records: "a resource per user and membership", sets: "one WorkspaceUsers and an IntegrationMembers per integration" };

function parse(argv: string[]) {
  // A key given as a flag is refused without echoing it (it is in the shell's history already).
  if (argv.some((arg) => /^--?(api[-_]?key|key|token)(=|$)/i.test(arg))) {
    throw new UsageError(
      "the API key is never taken as a flag: set WORKSPACE_ACCESS_API_KEY instead (and remove it from your shell history).",
    );
  }
  const { values, positionals } = parseFlags(argv, {
    out: { type: "string" },
    "base-url": { type: "string" },
    integration: { type: "string", multiple: true },
    "members-only": { type: "boolean" },
    check: { type: "boolean" },
    accept: { type: "boolean" },
    format: { type: "string" },
    verbose: { type: "boolean" },
    "package-spec": { type: "string" },
    shape: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help === true) return "help";
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.out === undefined || values.out.trim() === "") throw new UsageError("--out DIR is required");
  const format = formatOf(values.format);
  const check = values.check === true || values.accept === true;
  if (!check && values.format !== undefined) throw new UsageError("--format is for --check");
  if (check && values["package-spec"] !== undefined) throw new UsageError("--package-spec is for an export, not --check");
  if (values["package-spec"]?.trim() === "")
    throw new UsageError("--package-spec needs a spec, such as ./pulumi-workspace-access-0.1.0.tgz");
  if (values.shape !== undefined && !["records", "sets"].includes(values.shape)) {
    throw new UsageError(`--shape must be records or sets, not ${JSON.stringify(values.shape)}`);
  }
  if (check && values.shape !== undefined) throw new UsageError("--shape is for an export, not --check");
  const shape = values.shape as ExportOptions["shape"];
  const options = { out: values.out, baseUrl: values["base-url"], integrations: values.integration, membersOnly: values["members-only"] };
  return {
    check,
    format,
    verbose: values.verbose === true,
    options: { ...options, accept: values.accept === true, packageSpec: values["package-spec"], shape } satisfies CheckOptions &
      ExportOptions,
  };
}

/**
 * Prints the progress line on stderr: in place on a terminal, else at most every 2 s, and once at the end; `interrupted` ends
 * a line left open on a terminal, so that a failure's message starts a line of its own (and no blank line comes before it).
 */
function progressPrinter(stderr: NodeJS.WriteStream) {
  const started = performance.now();
  let last = 0;
  let line = "";
  let open = false;
  return {
    update(p: ExportProgress) {
      const [users, memberships] = [p.users.toLocaleString("en-US"), p.memberships.toLocaleString("en-US")];
      line = `${NAME}: ${p.pages} pages read, ${users} users, ${memberships} memberships, ${(p.elapsedMs / 1000).toFixed(1)} s`;
      const now = performance.now();
      if (now - last < (stderr.isTTY ? 100 : 2000)) return;
      last = now;
      stderr.write(stderr.isTTY ? `\r${line}` : `${line}\n`);
      open = stderr.isTTY === true;
    },
    done() {
      if (line === "") return;
      const elapsed = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      stderr.write(`${stderr.isTTY ? "\r" : ""}${line.replace(/[\d.]+ s$/, elapsed)}\n`);
      open = false;
    },
    interrupted() {
      if (open) stderr.write("\n");
      open = false;
    },
  };
}

/** Runs the export or the check, loading them only now: on a Node.js too old, its one line is all that is printed. */
async function run(args: Exclude<ReturnType<typeof parse>, "help">): Promise<number> {
  const progress = progressPrinter(process.stderr);
  try {
    return await exportOrCheck(args, progress);
  } catch (error) {
    progress.interrupted();
    throw error;
  }
}

/** The export or the check of {@link run}, its progress on `progress`; resolves to the exit status. */
async function exportOrCheck(
  { check, format, verbose, options: given }: Exclude<ReturnType<typeof parse>, "help">,
  progress: ReturnType<typeof progressPrinter>,
): Promise<number> {
  const { checkWorkspace, exportWorkspace } = require("./index") as typeof import("./index");
  const options = { ...given, onProgress: progress.update };
  if (check) {
    const { notesText, renderReview } = require("./review/render") as typeof import("./review/render");
    const review = await checkWorkspace(options);
    progress.done();
    // The text review keeps stdout for the differences; markdown and json carry the notes themselves.
    if (format === "text") process.stderr.write(notesText(review.notes, NAME));
    process.stdout.write(renderReview(review, { format, verbose, out: options.out }));
    return review.changes.length === 0 || review.accepted ? 0 : 1;
  }
  const { printable } = require("./review/render") as typeof import("./review/render");
  const result = await exportWorkspace(options);
  progress.done();
  const n = result.leftOut.length;
  if (n > 0) {
    const records = `${n} record${n === 1 ? "" : "s"}`;
    process.stderr.write(
      verbose
        ? `${NAME}: left out ${records} a project could not declare:\n${result.leftOut.map((r) => `  ${printable(r.text)}\n`).join("")}`
        : `${NAME}: left out ${records} a project could not declare (recorded under leftOut in access.yaml; --verbose lists them).\n`,
    );
  }
  process.stdout.write(
    `Wrote ${result.dir}: ${result.users} users and ${result.memberships} memberships of ${result.integrations} integrations (${result.files.join(", ")}).\n` +
      `Its index.ts declares ${SHAPES[result.shape.shape]} (--shape ${result.shape.shape}: ${result.shape.why}).\n` +
      `Its package.json depends on pulumi-workspace-access at ${result.packageSpec.spec}: ${result.packageSpec.why}` +
      `${result.packageSpec.caution ? ` (${result.packageSpec.caution})` : ""}.\n` +
      `Next: cd ${result.dir} && npm install, then see its README.md (pulumi stack init, config, preview, up).\n`,
  );
  return 0;
}

runCommand({ name: NAME, usage: USAGE, parse, run });
