/**
 * Every example as a user copies it: its own files in a temporary directory outside the repository,
 * its own package.json installed with the packed tarball in place of the registry's package, type
 * checked with its own tsconfig and TypeScript, then deployed through the real `pulumi` CLI against
 * the emulator (up, a preview planning no change, destroy), one stack per `Pulumi.<stack>.yaml`
 * (skipped, by name, where there is no CLI).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { Emulator } from "../../src/emulator/index";
import { type ConfigValue, openDeployment } from "../cli/deployment.ts";
import { accessConfig, NO_FALLBACKS, startTestEmulator } from "../cli/scenario.ts";
import { cliAvailable, skipNote } from "../cli/support.ts";
import { packedTarball } from "../support/packed.ts";
import { repoRoot } from "../support/paths.ts";
import { installTarball, removeTree } from "../support/project.ts";

const examplesDir = path.join(repoRoot, "examples");
const EXAMPLES = fs.readdirSync(examplesDir).filter((name) => fs.statSync(path.join(examplesDir, name)).isDirectory());

/** The stacks an example ships config for (`Pulumi.<stack>.yaml`), or one `dev` stack. */
function stacksOf(dir: string): Array<{ name: string; config: Record<string, ConfigValue> }> {
  const files = fs.readdirSync(dir).filter((file) => /^Pulumi\.[^.]+\.yaml$/.test(file));
  if (files.length === 0) return [{ name: "dev", config: {} }];
  return files.map((file) => {
    const parsed = parseYaml(fs.readFileSync(path.join(dir, file), "utf8")) as { config?: Record<string, unknown> };
    const config: Record<string, ConfigValue> = {};
    for (const [key, value] of Object.entries(parsed.config ?? {})) config[key] = typeof value === "string" ? value : { value };
    return { name: file.split(".")[1] ?? "dev", config };
  });
}

describe("examples", () => {
  it("are at least the two the README names", () => {
    expect(EXAMPLES).toEqual(expect.arrayContaining(["basic", "stack-per-workspace"]));
  });

  // A project's own settings are `<project>:<key>`: a project named `workspace-access` would have
  // its settings taken for the package's (`workspace-access:apiKey`), and refused as unknown ones.
  it("and Pulumi.yaml.example name their project anything but workspace-access, the package's config namespace", () => {
    const projects = [
      ...EXAMPLES.map((example) => path.join(examplesDir, example, "Pulumi.yaml")),
      path.join(repoRoot, "Pulumi.yaml.example"),
    ].map((file) => [path.relative(repoRoot, file), (parseYaml(fs.readFileSync(file, "utf8")) as { name: string }).name] as const);
    expect(projects).toHaveLength(EXAMPLES.length + 1);
    for (const [file, name] of projects) {
      expect(name, file).toMatch(/^[A-Za-z0-9_.-]+$/);
      expect(name, file).not.toBe("workspace-access");
    }
  });
});

describe.each(EXAMPLES)("examples/%s, copied out of the repository", { timeout: 120_000 }, (example) => {
  const source = path.join(examplesDir, example);
  let dir: string;

  beforeAll(async () => {
    dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), `pwa-example-${example}-`));
    const files = fs.readdirSync(source).filter((file) => file !== "node_modules" && file !== "bin");
    for (const file of files) await fs.promises.cp(path.join(source, file), path.join(dir, file), { recursive: true });
    await installTarball(dir, await packedTarball());
  }, 300_000);

  afterAll(async () => {
    if (dir) await removeTree(dir);
  });

  it("is a Pulumi project of its own: package.json, Pulumi.yaml, the template's tsconfig and a README", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(source, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    const declared = { ...pkg["dependencies"], ...pkg["devDependencies"] };
    expect(Object.keys(declared).sort()).toEqual(["@pulumi/pulumi", "@types/node", "pulumi-workspace-access", "typescript"]);
    expect(parseYaml(fs.readFileSync(path.join(source, "Pulumi.yaml"), "utf8"))).toMatchObject({ runtime: "nodejs" });
    const tsconfig = fs.readFileSync(path.join(source, "tsconfig.json"), "utf8");
    for (const repoOnly of ["paths", "typeRoots", "skipLibCheck", "../"]) expect(tsconfig).not.toContain(repoOnly);
    expect(fs.readFileSync(path.join(source, "README.md"), "utf8")).toMatch(/pulumi login --local[\s\S]*pulumi up/);
  });

  it("type-checks with its own tsconfig and its own TypeScript", () => {
    const tsc = path.join(dir, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", ".", "--noEmit", "--pretty", "false"], { cwd: dir, encoding: "utf8" });
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  });

  describe.each(stacksOf(source))("stack $name, against the emulator through the real pulumi CLI", ({ name, config }) => {
    let emulator: Emulator;

    beforeAll(async () => {
      emulator = await startTestEmulator();
    });

    afterAll(async () => {
      await emulator?.close();
    });

    it.skipIf(!cliAvailable)(`comes up, previews no change, and is destroyed${skipNote}`, async () => {
      const stack = await openDeployment({
        projectDir: dir,
        stackName: name,
        // The emulator is not at https://<workspace>.<host>/: baseUrl, which takes precedence, points at it.
        config: { ...config, ...accessConfig(emulator) },
        env: NO_FALLBACKS,
        secrets: "passphrase",
      });
      try {
        const usersBefore = emulator.users.list().length;
        const up = await stack.up();
        const created = up.steps.filter((step) => step.op === "create" && step.type !== "pulumi:pulumi:Stack");
        expect(created.length).toBeGreaterThan(0);
        expect(emulator.users.list().length).toBeGreaterThan(usersBefore);

        const preview = await stack.preview();
        expect(preview.steps.filter((step) => step.op !== "same").map((step) => `${step.op} ${step.name}`)).toEqual([]);

        const destroy = await stack.destroy();
        expect(destroy.steps.filter((step) => step.op === "delete" && step.type !== "pulumi:pulumi:Stack")).toHaveLength(created.length);
        expect(emulator.users.list().length).toBe(usersBefore);
      } finally {
        await stack.close();
      }
    });
  });
});
