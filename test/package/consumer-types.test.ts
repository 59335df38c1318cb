/**
 * The published declarations as a Pulumi project compiles them: the packed tarball installed into
 * a consumer project per TypeScript version (the latest 5 and 6), and `tsc` run on a program that
 * uses every export of every entry point (fixtures/consumer.ts) under the tsconfig `pulumi new typescript` generates
 * (today's and the earlier CommonJS one) and under node16, all without `skipLibCheck`; and every
 * TypeScript snippet of the README and of docs/client.md, each as a file of its own, under the template's tsconfig.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PULUMI_TEMPLATE_COMPILER_OPTIONS } from "../../src/export/project";
import { repoRoot } from "../support/paths.ts";
import { createProject, installTarball, type Project } from "../support/project.ts";
import { packedTarball } from "../support/packed.ts";

/** Pulumi's `typescript` template's options today: the exported project's too. */
const TEMPLATE = PULUMI_TEMPLATE_COMPILER_OPTIONS;

/** The template's options before it moved to nodenext, still in most projects made with it. */
const TEMPLATE_COMMONJS = { ...TEMPLATE, module: "commonjs", moduleResolution: "node" };

/**
 * Each tsconfig a consumer may have. TypeScript 6 refuses `moduleResolution: node` itself unless told
 * `ignoreDeprecations: "6.0"` (TS5107, whatever the program imports), so that project says so.
 */
const TSCONFIGS: Record<string, (major: number) => object> = {
  template: () => TEMPLATE,
  "template-commonjs": (major) => (major >= 6 ? { ...TEMPLATE_COMMONJS, ignoreDeprecations: "6.0" } : TEMPLATE_COMMONJS),
  node16: () => ({ ...TEMPLATE, module: "node16", moduleResolution: "node16" }),
};

/**
 * The tsconfigs each TypeScript major compiles with. Every `tsc` run checks all of @pulumi/pulumi's
 * declarations (no skipLibCheck), about 15 s of CPU each, so the matrix is what the issue asks and
 * no more: the template's two tsconfigs on both majors, and node16 (nodenext is the template's) on
 * the latest.
 */
const MATRIX: Record<number, string[]> = {
  5: ["template", "template-commonjs"],
  6: ["template", "template-commonjs", "node16"],
};

const TYPESCRIPT_MAJORS = [5, 6];

/** The documents whose ```ts blocks are compiled, each block as a file named for its document: `readme-1.ts`, `client-1.ts`. */
const SNIPPET_DOCUMENTS = { readme: "README.md", client: "docs/client.md" } as const;

/** A document's ```ts blocks, in order. */
function snippetsOf(document: string): string[] {
  const text = fs.readFileSync(path.join(repoRoot, document), "utf8");
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
}

/** The README's ```ts blocks, in order. */
const readmeSnippets = () => snippetsOf(SNIPPET_DOCUMENTS.readme);

const consumerProgram = fs.readFileSync(path.join(repoRoot, "test", "package", "fixtures", "consumer.ts"), "utf8");

/** The package's public exports, read from the build (values) and src/index.ts (types). */
function publicExports(): string[] {
  const require = createRequire(path.join(repoRoot, "package.json"));
  const values = Object.keys(require(path.join(repoRoot, "dist", "index.js")) as object);
  const emulatorValues = Object.keys(require(path.join(repoRoot, "dist", "emulator", "index.js")) as object);
  const exportValues = Object.keys(require(path.join(repoRoot, "dist", "export", "index.js")) as object);
  const typesOf = (file: string) =>
    [...fs.readFileSync(path.join(repoRoot, "src", file), "utf8").matchAll(/\btype (\w+)(?: as (\w+))?/g)].map((m) => m[2] ?? m[1] ?? "");
  return [
    ...[...values, ...typesOf("index.ts")].map((name) => `wa.${name}`),
    ...[...emulatorValues, ...typesOf("emulator/index.ts")].map((name) => `emu.${name}`),
    ...[...exportValues, ...typesOf("export/index.ts")].map((name) => `ex.${name}`),
  ];
}

describe("the published declarations", () => {
  it("import nothing but @pulumi/pulumi and Node's own types, from every entry point", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      exports: Record<string, string | { types?: string }>;
    };
    const entries = Object.values(pkg.exports).flatMap((entry) => (typeof entry === "object" && entry.types ? [entry.types] : []));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    const seen = new Set<string>();
    const foreign: string[] = [];
    const walk = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      // Declarations without comments: a TSDoc example may well mention an import.
      const code = fs
        .readFileSync(file, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
      for (const [, specifier = ""] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|reference types=)["']([^"']+)["']/g)) {
        if (specifier.startsWith(".")) {
          const target = path.resolve(path.dirname(file), specifier);
          walk(fs.existsSync(`${target}.d.ts`) ? `${target}.d.ts` : path.join(target, "index.d.ts"));
        } else if (specifier !== "@pulumi/pulumi" && !specifier.startsWith("node:")) {
          foreign.push(`${path.relative(repoRoot, file)} imports ${specifier}`);
        }
      }
    };
    for (const entry of entries) walk(path.join(repoRoot, entry));
    expect(seen.size).toBeGreaterThan(10);
    expect(foreign).toEqual([]);
  });

  it("are all used by the consumer program", () => {
    const missing = publicExports().filter((name) => !new RegExp(`\\b${name.replace(".", "\\.")}\\b`).test(consumerProgram));
    expect(missing).toEqual([]);
  });
});

describe.each(TYPESCRIPT_MAJORS)("a Pulumi project on TypeScript %i", { timeout: 120_000 }, (major) => {
  let project: Project;

  beforeAll(async () => {
    project = await createProject({
      name: `consumer-ts${major}`,
      link: false,
      dependencies: { typescript: `^${major}.0.0`, "@types/node": "^24" },
      files: { "index.ts": consumerProgram },
    });
    // The documents' snippets compile in the same run as the program under the template's tsconfig:
    // one check of the declarations serves both.
    const snippets = Object.entries(SNIPPET_DOCUMENTS).flatMap(([prefix, document]) =>
      snippetsOf(document).map((source, i) => path.basename(project.write(`${prefix}-${i + 1}.ts`, source))),
    );
    for (const name of MATRIX[major] ?? []) {
      const files = name === "template" ? ["index.ts", ...snippets] : ["index.ts"];
      project.write(`tsconfig.${name}.json`, JSON.stringify({ compilerOptions: TSCONFIGS[name]?.(major), files }, null, 2));
    }
    await installTarball(project.dir, await packedTarball());
  }, 300_000);

  afterAll(async () => {
    await project?.remove();
  });

  it(`installs TypeScript ${major}`, () => {
    const installed = JSON.parse(fs.readFileSync(path.join(project.dir, "node_modules", "typescript", "package.json"), "utf8")) as {
      version: string;
    };
    expect(installed.version.split(".")[0]).toBe(String(major));
  });

  it.each(MATRIX[major] ?? [])(
    "compiles the program with the %s tsconfig, no skipLibCheck (with the template's: every snippet of the README and docs/client.md too)",
    (name) => {
      if (name === "template") {
        expect(readmeSnippets().length).toBeGreaterThanOrEqual(3);
        expect(snippetsOf(SNIPPET_DOCUMENTS.client).length).toBeGreaterThanOrEqual(5);
      }
      tsc(name);
    },
  );

  function tsc(name: string): void {
    const tsc = path.join(project.dir, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", `tsconfig.${name}.json`, "--noEmit", "--pretty", "false"], {
      cwd: project.dir,
      encoding: "utf8",
    });
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  }
});
