/** The export's files on disk: a non-empty directory refused, the whole project written or nothing, files replaced in one step. */
import * as fs from "node:fs";
import * as path from "node:path";
import { ExportError } from "./errors";

/** Refuses a directory that exists and is not empty, or is not a directory. */
export function refuseNonEmpty(dir: string): void {
  const stat = fs.statSync(dir, { throwIfNoEntry: false });
  if (!stat) return;
  if (!stat.isDirectory()) throw new ExportError(`${dir} exists and is not a directory: give a new or empty directory to --out.`);
  if (fs.readdirSync(dir).length > 0) {
    throw new ExportError(
      `${dir} is not empty: the export writes a whole project and never overwrites. ` +
        "Give a new or empty directory to --out, or add --check to compare the workspace with the access.yaml there.",
    );
  }
}

/**
 * Writes the whole project or nothing (a full disk part way leaves no file nor folder): a new directory as a hidden
 * folder beside it, renamed into place; in an empty one, every file under a temporary name first, then each renamed.
 */
export function writeFiles(dir: string, files: Record<string, string>): void {
  if (fs.existsSync(dir)) {
    replaceFiles(dir, files);
    return;
  }
  const parent = path.dirname(dir);
  // The first folder it made, if any: removed again on failure.
  const made = fs.mkdirSync(parent, { recursive: true });
  const temp = path.join(parent, `.${path.basename(dir)}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`);
  try {
    fs.mkdirSync(temp);
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(temp, name), text, { flag: "wx" });
    // Fails, overwriting nothing, if a non-empty directory appeared there meanwhile.
    fs.renameSync(temp, dir);
  } catch (error) {
    fs.rmSync(made ?? temp, { recursive: true, force: true });
    throw error;
  }
}

/** Every file under a temporary name beside its target first, then each renamed over it (`--accept`'s `access.yaml` too). */
export function replaceFiles(dir: string, files: Record<string, string>): void {
  const unique = `${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  const entries = Object.entries(files).map(([name, text]) => ({ target: path.join(dir, name), text }));
  const written: string[] = [];
  try {
    for (const { target, text } of entries) {
      written.push(`${target}.${unique}`);
      fs.writeFileSync(`${target}.${unique}`, text, { flag: "wx" });
    }
    for (const { target } of entries) {
      fs.renameSync(`${target}.${unique}`, target);
      written.push(target);
    }
  } catch (error) {
    for (const file of written) fs.rmSync(file, { force: true });
    throw error;
  }
}
