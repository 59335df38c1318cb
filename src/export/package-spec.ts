/**
 * The spec of this package an exported project's `package.json` gets without `--package-spec`. Until the package is
 * on a registry, `^version` answers E404, so it is where this was installed from (the tarball or git URL its lock
 * file records), or a tarball `npm pack` wrote beside a clone; `^version` from a registry or when nothing is known.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const pkg = require("../../package.json") as { name: string; version: string };

/** The spec chosen, and why (printed, and written in the project's README). */
export interface PackageSpecChoice {
  spec: string;
  why: string;
  /** What the command says of it beside `why`, and the README does not keep (a tarball older than this build). */
  caution?: string;
}

const PACKAGE_ROOT = path.resolve(__dirname, "..", "..");

/** `file:` and a path from the project written at `outDir` to `target`, in `/` form. */
function fileSpec(outDir: string, target: string): string {
  const relative = path.relative(path.resolve(outDir), target).split(path.sep).join("/");
  return `file:${relative.startsWith(".") ? relative : `./${relative}`}`;
}

/** What the lock file of the project that installed this package records of it, if anything. */
function lockedResolved(root: string): { project: string; resolved: string } | undefined {
  if (path.basename(path.dirname(root)) !== "node_modules") return undefined;
  const project = path.dirname(path.dirname(root));
  const key = `node_modules/${pkg.name}`;
  // The project's lock file, else the copy npm keeps in node_modules (npx's cache folder has both).
  for (const lock of [path.join(project, "package-lock.json"), path.join(project, "node_modules", ".package-lock.json")]) {
    try {
      const parsed = JSON.parse(fs.readFileSync(lock, "utf8")) as { packages?: Record<string, { resolved?: unknown }> };
      const resolved = parsed.packages?.[key]?.resolved;
      if (typeof resolved === "string" && resolved !== "") return { project, resolved };
    } catch {
      // No lock file there, or not one npm wrote: try the next.
    }
  }
  return undefined;
}

/** When `file` was last written (`undefined`: it is not there). */
function modifiedMs(file: string): number | undefined {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The spec for a project written at `outDir`; `root`: this package's folder (a test gives another). */
export function choosePackageSpec(outDir: string, root: string = PACKAGE_ROOT): PackageSpecChoice {
  const locked = lockedResolved(root);
  if (locked !== undefined) {
    const { project, resolved } = locked;
    if (resolved.startsWith("file:")) {
      const target = path.resolve(project, resolved.slice("file:".length));
      if (fs.existsSync(target)) return { spec: fileSpec(outDir, target), why: "the tarball this command was installed from" };
    } else if (/^(git\+|git:|github:)/.test(resolved)) {
      return { spec: resolved, why: "the git URL this command was installed from" };
    } else if (/^https?:/.test(resolved)) {
      return { spec: `^${pkg.version}`, why: "this version, installed from a registry" };
    }
  }
  const tarball = `${pkg.name}-${pkg.version}.tgz`;
  for (const dir of [path.dirname(root), root]) {
    const candidate = path.join(dir, tarball);
    if (!fs.existsSync(candidate)) continue;
    const why = "the tarball npm pack wrote beside this package";
    // A tarball older than the build running (a clone rebuilt since its last `npm pack`) installs that older code.
    const stale = (modifiedMs(candidate) ?? 0) < (modifiedMs(path.join(root, "dist", "index.js")) ?? 0);
    const caution = "it is older than this build: run npm pack again to install this code, or give --package-spec";
    return { spec: fileSpec(outDir, candidate), why, ...(stale && { caution }) };
  }
  return {
    spec: `^${pkg.version}`,
    why: "no tarball or git URL it came from is known: until the package is published, npm install cannot find this version; give --package-spec",
  };
}
