/**
 * What `npm pack` ships (the build, README, CHANGELOG, LICENSE, the docs every README link points to,
 * the emulator's seed example; no sources, tests or source maps), and what
 * every entry point does on a Node.js older than package.json's `engines.node`: stop with one line
 * naming the version found and the version needed. The old Node.js is the machine's own (`node` on
 * PATH or /usr/bin/node, Node 20 where this package is developed); without one those tests say so.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { HOW_TO_GET_NODE, isOlder, MINIMUM_NODE, nodeVersionProblem } from "../../src/node-version";
import { repoRoot } from "../support/paths.ts";

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  license: string;
  engines: { node: string };
  bin: Record<string, string>;
  scripts: Record<string, string>;
};

/** The relative links of a Markdown text (`[text](target)`), without their `#fragment`. */
function relativeLinks(text: string): string[] {
  return [...text.matchAll(/\]\((?!https?:|#|mailto:)([^)\s#]+)/g)].map((m) => m[1] ?? "");
}

describe("npm pack", () => {
  const packed = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repoRoot, encoding: "utf8" });
  const files = (JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>)[0]?.files.map((f) => f.path) ?? [];
  /** Every document of docs/, its design notes included. */
  const docs = fs
    .readdirSync(path.join(repoRoot, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file.split(path.sep).join("/")}`);

  it("ships the build, README, CHANGELOG, LICENSE, the docs and the seed example", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "package.json",
        "dist/index.js",
        "dist/index.d.ts",
        "dist/emulator/index.d.ts",
        "dist/provider/user.js",
        "dist/provider/integration-entitlement.js",
        "dist/provider/integration-members.js",
        "examples/emulator-seed.json",
        ...docs,
        ...Object.values(pkg.bin),
      ]),
    );
  });

  it("ships no sources, tests, example projects or source maps", () => {
    const shipped = (file: string) =>
      file.startsWith("dist/") ||
      /^docs\/.+\.md$/.test(file) ||
      ["LICENSE", "README.md", "CHANGELOG.md", "package.json", "examples/emulator-seed.json"].includes(file);
    expect(files.filter((file) => !shipped(file))).toEqual([]);
    expect(files.filter((file) => file.endsWith(".map") || /(^|\/)test(s)?\//.test(file) || /\.test\./.test(file))).toEqual([]);
  });

  it("holds every file the README and the docs link to, so that their links work in node_modules", () => {
    const dead: string[] = [];
    for (const document of ["README.md", ...docs]) {
      for (const link of relativeLinks(fs.readFileSync(path.join(repoRoot, document), "utf8"))) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(document), link));
        if (!files.includes(target) && !files.some((file) => file.startsWith(`${target.replace(/\/$/, "")}/`)))
          dead.push(`${document}: ${link}`);
      }
    }
    expect(dead).toEqual([]);
    expect(relativeLinks(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8"))).toEqual(
      expect.arrayContaining(["docs/adoption.md", "docs/lookups.md", "examples/emulator-seed.json"]),
    );
  });

  it("the emulator's --help names files the package holds", () => {
    const help = spawnSync(process.execPath, [path.join(repoRoot, pkg.bin["workspace-access-emulator"] ?? ""), "--help"], {
      encoding: "utf8",
    });
    const named = [...help.stdout.matchAll(/\b((?:docs|examples)\/[\w./-]+\.(?:md|json))\b/g)].map((m) => m[1] ?? "");
    expect(named).toEqual(expect.arrayContaining(["docs/emulator.md", "examples/emulator-seed.json"]));
    expect(named.filter((file) => !files.includes(file))).toEqual([]);
  });

  it("ships the Apache-2.0 text package.json names", () => {
    expect(pkg.license).toBe("Apache-2.0");
    const license = fs.readFileSync(path.join(repoRoot, "LICENSE"), "utf8");
    expect(license).toContain("Apache License");
    expect(license).toContain("Version 2.0, January 2004");
    expect(license).toContain("END OF TERMS AND CONDITIONS");
  });

  it("builds on install from git (prepare), so the bin and main exist", () => {
    expect(pkg.scripts["prepare"]).toBe("npm run build");
  });
});

/** A Node.js on this machine older than the package supports, if any. */
function oldNode(): { bin: string; version: string } | undefined {
  const candidates = new Set(["/usr/bin/node", "/bin/node", "/usr/local/bin/node"]);
  const which = spawnSync("which", ["-a", "node"], { encoding: "utf8" });
  for (const line of (which.stdout ?? "").split("\n")) if (line.trim()) candidates.add(line.trim());
  for (const bin of candidates) {
    if (!fs.existsSync(bin)) continue;
    const version = spawnSync(bin, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (version && isOlder(version, MINIMUM_NODE)) return { bin, version };
  }
  return undefined;
}

describe("on an older Node.js", () => {
  const old = oldNode();
  const tooOld = (version: string) => `needs Node.js ${MINIMUM_NODE} or later, and this is Node.js ${version}`;

  it("the check reads the version needed from package.json", () => {
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE}`);
    expect(nodeVersionProblem("20.20.2")).toContain(tooOld("20.20.2"));
    expect(nodeVersionProblem("22.18.9")).toContain(tooOld("22.18.9"));
    expect(nodeVersionProblem(MINIMUM_NODE)).toBeUndefined();
    expect(nodeVersionProblem("24.0.0")).toBeUndefined();
  });

  it("the line says how to get a recent enough Node.js, where pulumi finds it", () => {
    const line = nodeVersionProblem("20.20.2") ?? "";
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toContain("`npm install --prefix ~/.node24 node@24 && export PATH=~/.node24/node_modules/.bin:$PATH`");
    expect(line).toContain("nvm install 24");
    expect(line).toContain("the one pulumi runs with");
  });

  it.skipIf(!old)(
    `the program's and the provider host's entry points throw one line${old ? ` (Node ${old.version})` : " (skipped: no older Node.js here)"}`,
    () => {
      for (const entry of [
        "dist/index.js",
        "dist/provider/user.js",
        "dist/provider/integration-entitlement.js",
        "dist/provider/integration-members.js",
        "dist/emulator/index.js",
        "dist/export/index.js",
      ]) {
        const script = `try { require(${JSON.stringify(path.join(repoRoot, entry))}); console.log("loaded") } catch (e) { console.log(e.stack) }`;
        const run = spawnSync(old?.bin ?? "node", ["-e", script], { encoding: "utf8" });
        expect(run.stdout.trim(), entry).toBe(`Error: pulumi-workspace-access ${tooOld(old?.version ?? "")}: ${HOW_TO_GET_NODE}`);
      }
    },
  );

  it.skipIf(!old)(`the export's command stops with one line${old ? "" : " (skipped: no older Node.js here)"}`, () => {
    const exporter = spawnSync(old?.bin ?? "node", [path.join(repoRoot, pkg.bin["workspace-access-export"] ?? ""), "--help"], {
      encoding: "utf8",
    });
    expect(exporter.status).toBe(2);
    expect(exporter.stdout).toBe("");
    expect(exporter.stderr.trimEnd().split("\n")).toEqual([
      `workspace-access-export: pulumi-workspace-access ${tooOld(old?.version ?? "")}: ${HOW_TO_GET_NODE}`,
    ]);
  });

  it.skipIf(!old)(`the emulator's command stops with one line${old ? "" : " (skipped: no older Node.js here)"}`, () => {
    const emulator = spawnSync(old?.bin ?? "node", [path.join(repoRoot, pkg.bin["workspace-access-emulator"] ?? "")], { encoding: "utf8" });
    expect(emulator.status).toBe(1);
    expect(emulator.stdout).toBe("");
    expect(emulator.stderr.trimEnd().split("\n")).toEqual([
      `workspace-access-emulator: pulumi-workspace-access ${tooOld(old?.version ?? "")}: ${HOW_TO_GET_NODE}`,
    ]);
  });
});

/**
 * The repository's own scripts (the README's `npm run demo` and `npm test`) run on any Node.js:
 * scripts/with-node.cjs runs them under Node.js 24 from the npm registry's `node` package when the
 * running one is too old.
 */
describe("npm run demo, test and bench on any Node.js (scripts/with-node.cjs)", () => {
  const old = oldNode();
  const withNode = path.join(repoRoot, "scripts", "with-node.cjs");

  it("every script that runs the project goes through it; those that deploy find or build the CLI first", () => {
    const deploying = ["demo", "test", "test:host", "test:load", "test:cli", "bench", "bench:export-scale"];
    for (const script of [...deploying, "test:unit", "lint", "typecheck"]) {
      expect(pkg.scripts[script], script).toMatch(/^node scripts\/with-node\.cjs "[^"]+"$/);
    }
    // On a fresh machine with Go and no CLI yet (the README's demo), the CLI is built before it is needed.
    for (const script of deploying) expect(pkg.scripts[script], script).toContain("bash scripts/pulumi-cli.sh --if-possible");
  });

  it("on a recent Node.js, runs the command as it is, with npm's extra arguments quoted, and says nothing", () => {
    const run = spawnSync(
      process.execPath,
      [withNode, "node -p 'process.versions.node + process.argv.slice(1).join(\"|\")'", "a b", "it's"],
      {
        encoding: "utf8",
        env: { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env["PATH"] ?? ""}` },
      },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toBe(`${process.versions.node}a b|it's`);
    expect(run.status).toBe(0);
    expect(spawnSync(process.execPath, [withNode, "exit 3"]).status).toBe(3);
  });

  it.skipIf(!old)(
    `on an older Node.js, runs the command under Node.js 24 from the cache, saying so in one line${old ? ` (Node ${old.version})` : " (skipped: no older Node.js here)"}`,
    () => {
      const run = spawnSync(old?.bin ?? "node", [withNode, "node -p process.versions.node"], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${path.dirname(old?.bin ?? "")}${path.delimiter}${process.env["PATH"] ?? ""}` },
        timeout: 300_000,
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout.trim()).toMatch(/^24\./);
      expect(isOlder(run.stdout.trim(), MINIMUM_NODE)).toBe(false);
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^Node\\.js ${old?.version} is older than the ${MINIMUM_NODE} this project needs: (running|installing)`),
      );
    },
    300_000,
  );

  it.skipIf(!old)(
    `on an older Node.js with no registry, one line says what to install${old ? "" : " (skipped: no older Node.js here)"}`,
    () => {
      const cache = fs.mkdtempSync(path.join(os.tmpdir(), "wa-node-cache-"));
      // What an install cut short left, its process gone: removed before the next install.
      const gone = spawnSync(process.execPath, ["-e", ""]).pid;
      fs.mkdirSync(path.join(cache, `24.partial-${gone}`, "node_modules"), { recursive: true });
      try {
        const run = spawnSync(old?.bin ?? "node", [withNode, "node -p process.versions.node"], {
          encoding: "utf8",
          env: {
            ...process.env,
            PATH: `${path.dirname(old?.bin ?? "")}${path.delimiter}${process.env["PATH"] ?? ""}`,
            WA_NODE_CACHE: cache,
            // A loopback port nothing listens on: the registry cannot be reached.
            npm_config_registry: "http://127.0.0.1:9/",
            npm_config_fetch_retries: "0",
          },
        });
        expect(run.status).toBe(1);
        expect(run.stdout).toBe("");
        const lines = run.stderr.trimEnd().split("\n");
        expect(lines[0]).toContain("installing Node.js 24 from the npm registry's `node` package");
        expect(lines[1]).toMatch(
          /^Node\.js 24 could not be installed \(.*ECONNREFUSED.*\): install Node\.js 22 \(22\.19 or later\) or 24, /,
        );
        expect(lines).toHaveLength(2);
        expect(fs.readdirSync(cache)).toEqual([]); // nothing half-installed is left to be used
      } finally {
        fs.rmSync(cache, { recursive: true, force: true });
      }
    },
  );
});
