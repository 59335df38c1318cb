/**
 * The package as users get it: `npm pack` of the built package, installed from the tarball into a
 * template project (with its own `@pulumi/pulumi` from the tarball's dependency range). Built once
 * per content of `dist/` and `package.json`, shared by every test file and process through a lock,
 * and reused by later runs. Projects link to it: `@pulumi/pulumi` and `pulumi-workspace-access`
 * then resolve from the template's `node_modules`, never from this repository.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createProject, installTarball, type Project, type ProjectOptions } from "./project.ts";
import { repoRoot } from "./paths.ts";

function contentKey(): string {
  const hash = createHash("sha256");
  hash.update(fs.readFileSync(path.join(repoRoot, "package.json")));
  const dist = path.join(repoRoot, "dist");
  if (!fs.existsSync(dist)) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else hash.update(entry.name).update(fs.readFileSync(file));
    }
  };
  walk(dist);
  return hash.digest("hex").slice(0, 16);
}

async function lock(dir: string): Promise<() => void> {
  const lockDir = `${dir}.lock`;
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      return () => fs.rmSync(lockDir, { recursive: true, force: true });
    } catch {
      // A lock older than five minutes belongs to a run that died.
      const age = Date.now() - (fs.statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) fs.rmSync(lockDir, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockDir}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * `dir` made once by `build` (into an empty folder; it returns what `.ready` records), shared by every test file and
 * process through a lock, and reused while its `.ready` is there.
 */
async function builtOnce(dir: string, build: () => Promise<string>): Promise<void> {
  const ready = path.join(dir, ".ready");
  if (fs.existsSync(ready)) return;
  const unlock = await lock(dir);
  try {
    if (fs.existsSync(ready)) return;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(ready, await build());
  } finally {
    unlock();
  }
}

/** The template project's directory, packing and installing on first use. */
export async function packedTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `pwa-packed-${contentKey()}`);
  await builtOnce(dir, async () => {
    await createProject({ dir, name: "packed-template", link: false });
    const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir, "--silent"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
    const tgz = path.join(dir, packed.stdout.trim().split("\n").at(-1) ?? "");
    await installTarball(dir, tgz);
    return tgz;
  });
  return dir;
}

/** The installed tarball's file name, e.g. `pulumi-workspace-access-0.1.0.tgz`. */
export async function packedTarball(): Promise<string> {
  const dir = await packedTemplate();
  return fs.readFileSync(path.join(dir, ".ready"), "utf8");
}

/**
 * A fresh project whose `@pulumi/pulumi` and `pulumi-workspace-access` are the packed package's
 * (linked from the template), with the given files.
 */
export async function packedProject(options: Omit<ProjectOptions, "link"> = {}): Promise<Project> {
  const template = await packedTemplate();
  const modules = path.join(template, "node_modules");
  return createProject({
    ...options,
    link: {
      "@pulumi/pulumi": path.join(modules, "@pulumi", "pulumi"),
      "pulumi-workspace-access": path.join(modules, "pulumi-workspace-access"),
    },
  });
}

/**
 * What `npm install <the packed tarball>` gives a project the export generated (`projectDir`, its package.json naming
 * `@pulumi/pulumi`, TypeScript and `@types/node` besides the package): installed so once per content of the package and of
 * those dependencies, in a folder shared by every test file and process as the template is, and linked as the project's
 * `node_modules`. The same tree, TypeScript included (the program runs on the project's TypeScript, not the SDK's
 * vendored one, as a user's does), without an npm install of about 12,000 files for each exported project, nor their
 * removal. The install of the generated package.json as users run it is test/package/export.test.ts's and the quickstart's.
 */
export async function linkExportModules(projectDir: string): Promise<void> {
  const manifest = JSON.parse(fs.readFileSync(path.join(projectDir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const { "pulumi-workspace-access": _package, ...dependencies } = manifest.dependencies ?? {};
  const devDependencies = manifest.devDependencies ?? {};
  const key = createHash("sha256")
    .update(JSON.stringify([contentKey(), dependencies, devDependencies]))
    .digest("hex")
    .slice(0, 16);
  const dir = path.join(os.tmpdir(), `pwa-export-modules-${key}`);
  // The tarball first: its template takes its own lock, never inside this one.
  const tgz = await packedTarball();
  await builtOnce(dir, async () => {
    const packageJson = { name: "export-modules", version: "0.0.0", private: true, dependencies, devDependencies };
    fs.writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
    await installTarball(dir, tgz);
    return tgz;
  });
  await fs.promises.rm(path.join(projectDir, "node_modules"), { recursive: true, force: true });
  await fs.promises.symlink(path.join(dir, "node_modules"), path.join(projectDir, "node_modules"), "dir");
}
