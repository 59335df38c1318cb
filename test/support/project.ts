/**
 * Temporary Pulumi projects for the real `pulumi` CLI: `Pulumi.yaml` (runtime nodejs), `package.json`, and a
 * `node_modules` where `@pulumi/pulumi` resolves, either linked to the repository's copy (fast, the
 * default) or installed for real by {@link installTarball}.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { repoRoot } from "./paths.ts";

/** Options of {@link createProject}. */
export interface ProjectOptions {
  /** Where to create it; a fresh directory under the OS temp dir by default. */
  dir?: string;
  /** The Pulumi project name (`Pulumi.yaml` `name`), `e2e` by default. */
  name?: string;
  /**
   * Packages to symlink into `node_modules` (name → directory). By default `@pulumi/pulumi` → the
   * repository's copy; `false` links nothing (for {@link installTarball}).
   */
  link?: Record<string, string> | false;
  /** Files to write, path relative to the project → content. */
  files?: Record<string, string>;
  /** `dependencies` of the project's package.json. */
  dependencies?: Record<string, string>;
}

/** A project directory. */
export interface Project {
  dir: string;
  name: string;
  /** Writes a file (relative to the project) and returns its absolute path. */
  write(relativePath: string, content: string): string;
  /** Removes the directory (links only, never their targets). */
  remove(): Promise<void>;
}

/** The repository's copy of `@pulumi/pulumi`, what projects link to by default. */
export const repoPulumiDir: string = path.join(repoRoot, "node_modules", "@pulumi", "pulumi");

/** Creates a Pulumi project. */
export async function createProject(options: ProjectOptions = {}): Promise<Project> {
  const dir = options.dir ?? (await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-e2e-")));
  const name = options.name ?? "e2e";
  await fs.promises.mkdir(dir, { recursive: true });
  await fs.promises.writeFile(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\ndescription: test project\n`);
  const packageJson = {
    name,
    version: "0.0.0",
    private: true,
    // No `main`: the CLI runs the project's folder (index.js, or index.ts through ts-node), and a
    // `main` naming a file a TypeScript project lacks makes every run warn.
    dependencies: options.dependencies ?? {},
  };
  await fs.promises.writeFile(path.join(dir, "package.json"), `${JSON.stringify(packageJson, null, 2)}\n`);
  const links = options.link === false ? {} : (options.link ?? { "@pulumi/pulumi": repoPulumiDir });
  for (const [pkg, target] of Object.entries(links)) {
    // Link each package, never a whole scope: an npm run in the project can then at worst remove
    // the link, not the files it points to.
    const at = path.join(dir, "node_modules", pkg);
    await fs.promises.mkdir(path.dirname(at), { recursive: true });
    await fs.promises.rm(at, { recursive: true, force: true });
    await fs.promises.symlink(target, at, "dir");
  }
  const write = (relativePath: string, content: string): string => {
    const file = path.join(dir, relativePath);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    return file;
  };
  for (const [file, content] of Object.entries(options.files ?? {})) write(file, content);
  return {
    dir,
    name,
    write,
    remove: () => removeTree(dir),
  };
}

/**
 * Removes a temporary tree, waiting for it at most `waitMs`: a test's clean-up never fails its file. An npm-installed tree
 * is tens of thousands of files, and on a busy machine its removal once outlasted an `afterAll`'s two minutes (a fresh
 * clone's CI, 2026-11-30, every test passed). A removal still running then finishes in the background, in the OS's
 * temporary folder.
 */
export async function removeTree(dir: string, waitMs = 60_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const removal = fs.promises
    .rm(dir, { recursive: true, force: true, maxRetries: 2 })
    .catch((error: unknown) => console.warn(`could not remove ${dir}: ${String(error)}`));
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      console.warn(`still removing ${dir} after ${waitMs / 1000} s: it finishes in the background`);
      resolve();
    }, waitMs);
  });
  try {
    await Promise.race([removal, bound]);
  } finally {
    clearTimeout(timer);
  }
}

function linkedPackages(projectDir: string): string[] {
  const nodeModules = path.join(projectDir, "node_modules");
  if (!fs.existsSync(nodeModules)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
    const at = path.join(nodeModules, entry.name);
    if (entry.isSymbolicLink()) found.push(entry.name);
    else if (entry.name.startsWith("@") && entry.isDirectory()) {
      for (const scoped of fs.readdirSync(at, { withFileTypes: true })) {
        if (scoped.isSymbolicLink()) found.push(`${entry.name}/${scoped.name}`);
      }
    }
  }
  return found;
}

/** Options of {@link installTarball}. */
export interface InstallOptions {
  /** The npm executable (`npm` from PATH by default). */
  npm?: string;
  timeoutMs?: number;
}

/**
 * Installs a package tarball (from `npm pack`) into a project with a real `npm install`, its
 * dependencies (`@pulumi/pulumi` included) coming from the npm cache (`--prefer-offline`) or the
 * registry. The project must have been created with `link: false`: npm would otherwise prune or
 * rewrite packages that are links into the repository.
 */
export async function installTarball(
  projectDir: string,
  tgzPath: string,
  options: InstallOptions = {},
): Promise<{ durationMs: number; stdout: string; stderr: string }> {
  const linked = linkedPackages(projectDir);
  if (linked.length > 0) {
    throw new Error(`installTarball needs a project without linked packages (create it with link: false); linked: ${linked.join(", ")}`);
  }
  const started = performance.now();
  const args = ["install", "--no-audit", "--no-fund", "--prefer-offline", "--no-progress", path.resolve(tgzPath)];
  let stdout = "";
  let stderr = "";
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(options.npm ?? "npm", args, { cwd: projectDir, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.once("error", reject);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  if (code !== 0) throw new Error(`npm ${args.join(" ")} exited with ${code}:\n${stderr}`);
  return { durationMs: Math.round(performance.now() - started), stdout, stderr };
}
