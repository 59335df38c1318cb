// Every package.json script that runs the project (demo, the test tiers, bench) goes through this:
//
//   node scripts/with-node.cjs "<shell command>" [arguments npm passes after --]
//
// On a Node.js at least package.json's `engines.node`, it runs the command as it is. On an older
// one (Node 20, which many machines ship), it runs the command under Node.js 24 from the npm
// registry's `node` package instead, installed once into a cache
// ($WA_NODE_CACHE/24, default ~/.cache/pulumi-workspace-access/node/24, where .ci/run puts it too),
// saying so in one line on stderr. When that Node.js cannot be had (no registry), one line says what
// to install. The package itself still refuses an older Node.js (src/node-version.ts).
//
// Plain CommonJS with no dependency, to run on any Node.js.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const NEEDED = require("../package.json").engines.node.replace(/^>=\s*/, "");
const MAJOR = "24";

/** True when version `a` (e.g. `20.20.2`) is older than `b`. */
function older(a, b) {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) < (y[i] || 0);
  return false;
}

/** Quotes one argument for the shell that runs the command. */
function quote(arg) {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  return process.platform === "win32" ? `"${arg.replace(/"/g, '""')}"` : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** The version of the Node.js at `bin`, or undefined when it does not run. */
function versionOf(bin) {
  if (!fs.existsSync(bin)) return undefined;
  const run = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" });
  const version = run.status === 0 ? run.stdout.trim() : "";
  return /^\d+\.\d+\.\d+$/.test(version) ? version : undefined;
}

/** Whether process `pid` runs (signal 0 tests it; EPERM: it runs as another user). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM";
  }
}

/** Installs `node@24` into `dir` (through a temporary folder, so a broken install is never used). */
function install(dir) {
  const temp = `${dir}.partial-${process.pid}`;
  // What an install cut short left (its process gone): about 190 MB each.
  for (const name of fs.existsSync(path.dirname(dir)) ? fs.readdirSync(path.dirname(dir)) : []) {
    const pid = Number(new RegExp(`^${path.basename(dir)}\\.partial-(\\d+)$`).exec(name)?.[1]);
    if (pid && !alive(pid)) fs.rmSync(path.join(path.dirname(dir), name), { recursive: true, force: true });
  }
  fs.rmSync(temp, { recursive: true, force: true });
  fs.mkdirSync(temp, { recursive: true });
  const args = ["install", "--prefix", temp, "--no-save", "--no-audit", "--no-fund", "--loglevel=error", `node@${MAJOR}`];
  // Under `npm run`, the same npm that runs this script; otherwise the one on PATH.
  const npm = process.env.npm_execpath;
  const run =
    npm && /\.[cm]?js$/.test(npm) && fs.existsSync(npm)
      ? spawnSync(process.execPath, [npm, ...args], { encoding: "utf8" })
      : spawnSync("npm", args, { encoding: "utf8", shell: process.platform === "win32" });
  if (run.status !== 0 || !versionOf(path.join(temp, "node_modules", ".bin", "node"))) {
    fs.rmSync(temp, { recursive: true, force: true });
    const output = `${run.error ? run.error.message : ""}\n${run.stderr || ""}`;
    // npm's first telling line: past `code`, `errno` and `syscall`, e.g. `FetchError: request to ... failed`.
    const reason = output.split("\n").find((line) => /\S/.test(line) && !/^npm (warn|notice|error (code|errno|syscall)\b)/i.test(line));
    return (reason || `npm exited with ${run.status}`).replace(/^npm error\s*/i, "").trim();
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(temp, dir);
  return undefined;
}

/** Runs the command with `env`, exiting as it did. */
function run(env) {
  const [command, ...extra] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node scripts/with-node.cjs "<command>" [arguments...]\n');
    process.exit(2);
  }
  const line = [command, ...extra.map(quote)].join(" ");
  const result = spawnSync(line, { stdio: "inherit", shell: true, env });
  if (result.error) {
    process.stderr.write(`${result.error.message}\n`);
    process.exit(1);
  }
  if (result.signal) process.kill(process.pid, result.signal);
  process.exit(result.status ?? 1);
}

const found = process.versions.node;
if (!older(found, NEEDED)) run(process.env);

const dir = path.join(process.env.WA_NODE_CACHE || path.join(os.homedir(), ".cache", "pulumi-workspace-access", "node"), MAJOR);
const bin = path.join(dir, "node_modules", ".bin");
const node = path.join(bin, process.platform === "win32" ? "node.cmd" : "node");
let version = versionOf(node);
if (!version) {
  process.stderr.write(
    `Node.js ${found} is older than the ${NEEDED} this project needs: installing Node.js ${MAJOR} from the npm registry's \`node\` package into ${dir} and running under it.\n`,
  );
  const failure = install(dir);
  version = versionOf(node);
  if (failure || !version) {
    process.stderr.write(
      `Node.js ${MAJOR} could not be installed (${failure || "it does not run"}): install Node.js 22 (22.19 or later) or 24, put it first on PATH and run this again.\n`,
    );
    process.exit(1);
  }
} else {
  process.stderr.write(`Node.js ${found} is older than the ${NEEDED} this project needs: running under Node.js ${version} from ${dir}.\n`);
}
run({ ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH || ""}`, NODE: node, npm_node_execpath: node });
