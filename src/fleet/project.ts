/**
 * The Pulumi project in a folder, opened as a `LocalWorkspace` (backend and passphrase from the environment, as
 * for `pulumi` itself), and its stacks on the current backend, picked and ordered by `--stacks`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { LocalWorkspace, type StackSummary } from "@pulumi/pulumi/automation";
import { UsageError } from "../command-line";

/** The project files `pulumi` reads, in its order. */
const PROJECT_FILES = ["Pulumi.yaml", "Pulumi.yml", "Pulumi.json"];

/** A stack's short name: the file backend lists `acme`, Pulumi Cloud may list `org/project/acme`. */
function shortName(summary: StackSummary): string {
  return summary.name.split("/").at(-1) ?? summary.name;
}

/**
 * Opens the project in `cwd`: its workspace, the stacks to run in order, and the stack selected before the run (selected
 * again after); a {@link UsageError} when there is none to run.
 */
export async function openFleetProject(cwd: string, wanted: readonly string[] | undefined) {
  const dir = path.resolve(cwd);
  if (!PROJECT_FILES.some((file) => fs.existsSync(path.join(dir, file)))) {
    throw new UsageError(`no Pulumi project in ${dir} (no Pulumi.yaml): run the command in the project's folder, or pass --cwd DIR`);
  }
  let workspace: LocalWorkspace;
  let summaries: StackSummary[];
  try {
    workspace = await LocalWorkspace.create({ workDir: dir });
    summaries = await workspace.listStacks();
  } catch (error) {
    const detail = (error instanceof Error ? error.message : String(error)).split("\n").find((l) => /error:|ENOENT|not found/i.test(l));
    throw new UsageError(
      `could not list the stacks of ${dir} with the pulumi CLI${detail ? ` (${detail.trim()})` : ""}: ` +
        "put pulumi on PATH and log in to the stacks' backend (pulumi login, or PULUMI_BACKEND_URL)",
    );
  }
  const byName = new Map(summaries.map((s) => [shortName(s), s]));
  const current = summaries.find((s) => s.current);
  if (byName.size === 0)
    throw new UsageError(`the project in ${dir} has no stack on this backend: create one per workspace with pulumi stack init NAME`);
  const known = [...byName.keys()].sort();
  const unknown = (wanted ?? []).filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    throw new UsageError(`no stack named ${unknown.join(", ")} in the project in ${dir}; its stacks: ${known.join(", ")}`);
  }
  return { workspace, stacks: wanted ? [...wanted] : known, current: current ? shortName(current) : undefined };
}
