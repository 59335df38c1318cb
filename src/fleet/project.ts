/**
 * The Pulumi project in a folder, opened as a `LocalWorkspace` (backend and passphrase from the environment, as
 * for `pulumi` itself), and its stacks on the current backend, picked and ordered by `--stacks`.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace } from "@pulumi/pulumi/automation";
import { UsageError } from "../command-line";
import { failureMessage } from "./engine-events";
import { killedBySignal, secretsRedactor } from "./stack-run";

/** The project files `pulumi` reads, in its order. */
const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"];

/** What pulumi says of a project file it cannot read or that is not valid: `error: could not load current project: ...`. */
const PROJECT_UNREAD = /error:\s*could not load current project/i;

/** A stack as `pulumi stack ls --json --fully-qualify-stack-names` lists it: `organization/proj/acme`. */
interface ListedStack {
  name: string;
  current: boolean;
}

/** An opened project: what {@link openFleetProject} returns. */
export interface FleetProject {
  workspace: LocalWorkspace;
  /** The stacks to run, in order, by short name (`acme`), the name reports give them. */
  stacks: string[];
  /** Each stack's fully-qualified name, by short name: what the run selects, so that it is this stack, whatever the default organization. */
  fullNames: Map<string, string>;
  /** The fully-qualified name of the stack selected before the run, if one was. */
  current: string | undefined;
}

/** A stack's short name, the last part of its name. */
function shortName(name: string): string {
  return name.split("/").at(-1) ?? name;
}

/**
 * Whether `wanted` names the stack `full` (`org/project/stack`) as pulumi takes a name: `stack`, `org/stack` or
 * `org/project/stack`. A listing without organizations (an older pulumi) matches by its own parts.
 */
function names(wanted: string, full: string): boolean {
  const w = wanted.split("/");
  const f = full.split("/");
  if (w.length === 2 && f.length === 3) return w[0] === f[0] && w[1] === f[2];
  return w.length <= f.length && f.slice(-w.length).join("/") === wanted;
}

/**
 * The stacks to run, from the backend's list and the names asked for (every stack, by name, when none): each name
 * must match one stack, and no stack may be named twice, in either form. Reports name stacks by their short name,
 * so two stacks of that name (in two organizations) cannot run together.
 */
export function pickStacks(listed: readonly ListedStack[], wanted: readonly string[] | undefined, dir: string) {
  if (listed.length === 0) {
    throw new UsageError(`the project in ${dir} has no stack on this backend: create one per workspace with pulumi stack init NAME`);
  }
  const known = [...new Set(listed.map((s) => shortName(s.name)))].sort();
  const unknown: string[] = [];
  const picked: ListedStack[] = [];
  for (const name of wanted ?? known) {
    const matches = listed.filter((s) => names(name, s.name));
    if (matches.length === 0) unknown.push(name);
    else if (matches.length > 1) {
      throw new UsageError(`${name} names ${matches.length} stacks (${matches.map((s) => s.name).join(", ")}): name one by its full name`);
    } else picked.push(matches[0] as ListedStack);
  }
  if (unknown.length > 0) {
    throw new UsageError(`no stack named ${unknown.join(", ")} in the project in ${dir}; its stacks: ${known.join(", ")}`);
  }
  const fullNames = new Map<string, string>();
  for (const stack of picked) {
    const short = shortName(stack.name);
    const before = fullNames.get(short);
    if (before === stack.name) throw new UsageError(`the stack ${stack.name} is named twice: name each stack once`);
    if (before !== undefined) {
      throw new UsageError(`${before} and ${stack.name} are both named ${short} in the report: run them in two separate runs`);
    }
    fullNames.set(short, stack.name);
  }
  return { stacks: [...fullNames.keys()], fullNames };
}

/** Runs the workspace's pulumi for what the Automation API has no method for, with the environment it gives its own runs. */
function pulumi(workspace: LocalWorkspace, args: string[]): Promise<string> {
  const env = { ...process.env, ...(workspace.pulumiHome ? { PULUMI_HOME: workspace.pulumiHome } : {}), ...workspace.envVars };
  return new Promise((resolve, reject) => {
    execFile(
      workspace.pulumiCommand.command,
      [...args, "--non-interactive"],
      { cwd: workspace.workDir, env, maxBuffer: 64 * 1024 * 1024 },
      // The error kept as the cause: its `signal` says whether a signal (a Ctrl-C) killed pulumi.
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${String(stderr)}`, { cause: error })) : resolve(String(stdout)),
    );
  });
}

/**
 * Opens the project in `cwd`: its workspace, the stacks to run in order, and the stack selected before the run (selected
 * again after, by {@link restoreSelection}); a {@link UsageError} when there is none to run, or an `Error` saying so when
 * a signal (a Ctrl-C) killed the pulumi listing the stacks, or when pulumi cannot read the project's file (its Pulumi.yaml).
 */
export async function openFleetProject(cwd: string, wanted: readonly string[] | undefined): Promise<FleetProject> {
  const dir = path.resolve(cwd);
  if (!PROJECT_FILES.some((file) => fs.existsSync(path.join(dir, file)))) {
    throw new UsageError(`no Pulumi project in ${dir} (no Pulumi.yaml): run the command in the project's folder, or pass --cwd DIR`);
  }
  let workspace: LocalWorkspace;
  let listed: ListedStack[];
  try {
    workspace = await LocalWorkspace.create({ workDir: dir });
    // Fully-qualified names: a stack asked for by either name is found, and each run selects exactly the stack listed.
    listed = JSON.parse(await pulumi(workspace, ["stack", "ls", "--json", "--fully-qualify-stack-names"])) as ListedStack[];
  } catch (error) {
    // In a terminal a Ctrl-C reaches the pulumi listing the stacks too, which it kills: no login is missing.
    if (killedBySignal(error)) throw new Error(`interrupted while listing the stacks of ${dir}: no stack ran`);
    const lines = (error instanceof Error ? error.message : String(error)).split("\n");
    // The project's file is the project's mistake, not the command line's (nor a login missing): no usage error.
    // No stack's config is read yet: pulumi's words go out redacted of the environment's API key alone.
    const redact = secretsRedactor({});
    const unread = lines.find((l) => PROJECT_UNREAD.test(l))?.replace(/^\s*error:\s*/i, "");
    if (unread !== undefined) {
      const file = PROJECT_FILES.find((name) => fs.existsSync(path.join(dir, name))) ?? PROJECT_FILES[0];
      throw new Error(`pulumi cannot read the project in ${dir} (${redact(unread.trim())}): fix its ${file}; no stack ran`);
    }
    const detail = lines.find((l) => /error:|ENOENT|not found/i.test(l));
    throw new UsageError(
      `could not list the stacks of ${dir} with the pulumi CLI${detail ? ` (${redact(detail.trim())})` : ""}: ` +
        "put pulumi on PATH and log in to the stacks' backend (pulumi login, or PULUMI_BACKEND_URL)",
    );
  }
  return { workspace, ...pickStacks(listed, wanted, dir), current: listed.find((s) => s.current)?.name };
}

/**
 * Leaves the project's selected stack as it was before the run: the Automation API selects each stack it runs, and
 * without this the user's next bare `pulumi up` in the folder (a later step of the same CI script) would reach the
 * last stack the fleet ran. When none was selected, none is.
 */
export async function restoreSelection(project: Pick<FleetProject, "workspace" | "current">): Promise<void> {
  if (project.current !== undefined) await project.workspace.selectStack(project.current);
  else await pulumi(project.workspace, ["stack", "unselect"]);
}

/**
 * What a {@link restoreSelection} that failed leaves (the report's `selectionNotRestored`): `selected`, the last stack the
 * run selected, stays selected in the folder, and the user's next bare `pulumi up` there would reach that workspace; how
 * to select theirs again (or none, as before the run). Pulumi's error passes through `redact`, as a stack's own errors do
 * (the redactors of the stacks whose config the run read: `secretsRedactor`, `stack-run.ts`).
 */
export function selectionNotRestored(
  project: Pick<FleetProject, "workspace" | "current">,
  selected: string,
  error: unknown,
  redact: (text: string) => string,
): string {
  const why = redact(failureMessage([], error instanceof Error ? error.message : String(error)));
  const { current } = project;
  const what = current === undefined ? "unselect the stack" : `select ${current} again`;
  const fix = current === undefined ? "pulumi stack unselect" : `pulumi stack select ${current}`;
  return (
    `could not ${what} after the run (${why}): ${selected}, the last stack the run selected, stays selected in ` +
    `${project.workspace.workDir}, where a bare pulumi up would reach it; run ${fix} there`
  );
}
