#!/usr/bin/env node
/**
 * `workspace-access-export`: writes a workspace as a Pulumi project, or with `--check` compares it
 * with an exported project. Exit status: 0 done (with `--check`: no difference), 1 differences
 * found (`--check`), 2 the export or check could not be done (the message says why and what to do).
 */
import { parseArgs } from "node:util";
import { nodeVersionProblem } from "../node-version";

const NAME = "workspace-access-export";

const USAGE = `Usage: ${NAME} --out DIR [--base-url URL] [--integration ID|LABEL ...] [--members-only] [--check]

Writes the workspace's users and integration memberships as a Pulumi TypeScript project whose
first \`pulumi up\` against the same workspace changes nothing; with --check, compares the workspace
with that project's access.yaml instead.

Options:
  --out DIR             the project directory: new or empty (nothing is overwritten); with --check, the
                        exported project
  --base-url URL        the workspace's API root, e.g. https://acme.example.com/api/v1/ (default:
                        WORKSPACE_ACCESS_BASE_URL, or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST)
  --integration X       only the memberships of this integration (id or label, exact); repeat for more
  --members-only        only the users with a membership in those integrations
  --check               print who gained or lost which access since access.yaml was written; exit 1
                        when anything differs, 0 when nothing does
  -h, --help            show this help

The API key is read from WORKSPACE_ACCESS_API_KEY only (never a flag, so it stays out of shell
history). It needs the scopes Read users and Read integrations.
`;

interface Args {
  out: string;
  baseUrl: string | undefined;
  integrations: string[] | undefined;
  membersOnly: boolean | undefined;
  check: boolean;
}

class UsageError extends Error {}

function parse(argv: string[]): Args | "help" {
  // A key given as a flag is refused without echoing it (it is in the shell's history already).
  if (argv.some((arg) => /^--?(api[-_]?key|key|token)(=|$)/i.test(arg))) {
    throw new UsageError(
      "the API key is never taken as a flag: set WORKSPACE_ACCESS_API_KEY instead (and remove it from your shell history).",
    );
  }
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" },
      "base-url": { type: "string" },
      integration: { type: "string", multiple: true },
      "members-only": { type: "boolean" },
      check: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help === true) return "help";
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.out === undefined || values.out.trim() === "") throw new UsageError("--out DIR is required");
  return {
    out: values.out,
    baseUrl: values["base-url"],
    integrations: values.integration,
    membersOnly: values["members-only"],
    check: values.check === true,
  };
}

/** Prints the progress line on stderr: in place on a terminal, else at most every 2 s, and once at the end. */
function progressPrinter(stderr: NodeJS.WriteStream) {
  const started = performance.now();
  let last = 0;
  let line = "";
  const format = (p: { pages: number; users: number; memberships: number; elapsedMs: number }) =>
    `${NAME}: ${p.pages} pages read, ${p.users.toLocaleString("en-US")} users, ${p.memberships.toLocaleString("en-US")} memberships, ${(p.elapsedMs / 1000).toFixed(1)} s`;
  return {
    update(p: { pages: number; users: number; memberships: number; elapsedMs: number }) {
      line = format(p);
      const now = performance.now();
      if (now - last < (stderr.isTTY ? 100 : 2000)) return;
      last = now;
      stderr.write(stderr.isTTY ? `\r${line}` : `${line}\n`);
    },
    done() {
      if (line === "") return;
      const elapsed = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      stderr.write(`${stderr.isTTY ? "\r" : ""}${line.replace(/[\d.]+ s$/, elapsed)}\n`);
    },
  };
}

async function main(): Promise<number> {
  const tooOld = nodeVersionProblem();
  if (tooOld !== undefined) {
    process.stderr.write(`${NAME}: ${tooOld}\n`);
    return 2;
  }
  let args: Args | "help";
  try {
    args = parse(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (args === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  // Loaded only now: on a Node.js too old, the line above is all that is printed.
  const { exportWorkspace, checkWorkspace } = require("./index") as typeof import("./index");
  const progress = progressPrinter(process.stderr);
  const options = {
    out: args.out,
    ...(args.baseUrl === undefined ? {} : { baseUrl: args.baseUrl }),
    ...(args.integrations === undefined ? {} : { integrations: args.integrations }),
    ...(args.membersOnly === undefined ? {} : { membersOnly: args.membersOnly }),
    onProgress: progress.update,
  };
  const leftOut = (records: Array<{ text: string }>, verb: string) => {
    if (records.length === 0) return;
    process.stderr.write(`${NAME}: ${verb} ${records.length} record${records.length === 1 ? "" : "s"} a project could not declare:\n`);
    for (const record of records) process.stderr.write(`  ${record.text}\n`);
  };
  if (args.check) {
    const result = await checkWorkspace(options);
    progress.done();
    for (const note of result.notes) process.stderr.write(`${NAME}: note: ${note}\n`);
    leftOut(result.leftOut, "the workspace has");
    for (const change of result.changes) process.stdout.write(`${change.text}\n`);
    const n = result.changes.length;
    process.stdout.write(
      n === 0
        ? "No access changed since access.yaml was written.\n"
        : `${n} change${n === 1 ? "" : "s"} of access since access.yaml was written.\n`,
    );
    return n === 0 ? 0 : 1;
  }
  const result = await exportWorkspace(options);
  progress.done();
  leftOut(result.leftOut, "left out");
  process.stdout.write(
    `Wrote ${result.dir}: ${result.users} users and ${result.memberships} memberships of ${result.integrations} integrations (${result.files.join(", ")}).\n` +
      `Next: cd ${result.dir} && npm install, then see its README.md (pulumi stack init, config, preview, up).\n`,
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const key = process.env.WORKSPACE_ACCESS_API_KEY?.trim();
    let message = error instanceof Error ? error.message : String(error);
    if (key) message = message.split(key).join("[redacted]");
    process.stderr.write(`\n${NAME}: ${message}\n`);
    process.exitCode = 2;
  },
);
