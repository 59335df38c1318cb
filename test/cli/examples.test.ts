/**
 * The examples through the real `pulumi` CLI, as a user runs them: a project installed from the
 * packed tarball, a file backend, the key set with `pulumi config set --secret`, the emulator as
 * the service. Each whole life (preview, up, no-change preview and refresh, one edit shown by
 * `preview --diff`, up, destroy).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { packedProject } from "../support/packed.ts";
import { repoRoot } from "../support/paths.ts";
import type { Project } from "../support/project.ts";
import { exampleFile, SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { type CliConfigValue, type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

/** What the emulator's world holds, to compare before the first up and after destroy. */
function world(emulator: Emulator) {
  return {
    users: emulator.users
      .list()
      .map((u) => `${u.id} ${u.email} ${u.firstName} ${u.lastName} ${u.role} ${u.isGuest}`)
      .sort(),
    members: emulator.integrations
      .list()
      .flatMap((i) =>
        emulator.integrations.members(i.id).map((m) => `${i.id} ${m.userId} ${m.role} ${[...m.entitlements].sort().join(",")}`),
      )
      .sort(),
  };
}

/** The resource blocks of `pulumi preview --diff` (ids and URNs kept out: they change run to run). */
function diffBlocks(output: string): string {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => /^\s+[~+-] pulumi-nodejs:dynamic/.test(line));
  const end = lines.findIndex((line, i) => i > start && /^Resources:/.test(line));
  return `${lines
    .slice(start, end)
    .filter((line) => !/^\s+\[(id|urn)=/.test(line))
    .map((line) => line.trimEnd())
    .join("\n")}\n`;
}

const GOLDEN = path.join(repoRoot, "test", "cli", "golden");

function expectGolden(name: string, text: string): void {
  const file = path.join(GOLDEN, name);
  if (process.env["UPDATE_GOLDEN"] === "1") fs.writeFileSync(file, text);
  expect(text).toBe(fs.readFileSync(file, "utf8"));
}

interface ExampleCase {
  example: "basic" | "stack-per-workspace";
  stackName: string;
  /** Whether the example ships a `Pulumi.<stack>.yaml` the user copies beside the program. */
  stackFile: boolean;
  /** The one edit after the first up (the program, or a config value), shown by `preview --diff`. */
  edit: (source: string) => Edit;
  golden: string;
}

/** The stack file's config. */
function stackFileConfig(example: string, stackName: string): Record<string, unknown> {
  return (parseYaml(exampleFile(example, `Pulumi.${stackName}.yaml`)) as { config: Record<string, unknown> }).config;
}

function oneEdit(source: string, from: string, to: string): string {
  const changed = source.replace(from, to);
  if (changed === source) throw new Error(`the example no longer contains ${from}: update this test's edit`);
  return changed;
}

/** A change between two operations. */
type Edit = { program: string } | { config: { path: string; value: string } };

/** bob's last name changed in the acme stack's people (its second person). */
function acmeRename(): Edit {
  const people = stackFileConfig("stack-per-workspace", "acme")["workspace-access-per-workspace:people"] as unknown[];
  const bob = people[1] as Record<string, unknown>;
  if (bob["email"] !== "bob@acme.example") throw new Error("Pulumi.acme.yaml changed: bob is no longer its second person");
  return { config: { path: "workspace-access-per-workspace:people[1].lastName", value: "Smith" } };
}

const CASES: ExampleCase[] = [
  {
    example: "basic",
    stackName: "dev",
    stackFile: false,
    edit: (source) => ({ program: oneEdit(source, `lastName: "Doe"`, `lastName: "Smith"`) }),
    golden: "basic-preview-diff.txt",
  },
  { example: "stack-per-workspace", stackName: "acme", stackFile: true, edit: acmeRename, golden: "stack-per-workspace-preview-diff.txt" },
];

/** A project of the example, installed from the packed tarball, with the stack file a user copies. */
async function exampleProject(example: ExampleCase): Promise<Project> {
  const pulumiYaml = exampleFile(example.example, "Pulumi.yaml");
  const name = /^name:\s*(\S+)/m.exec(pulumiYaml)?.[1] ?? "";
  const files: Record<string, string> = { "index.ts": exampleFile(example.example, "index.ts"), "Pulumi.yaml": pulumiYaml };
  if (example.stackFile) files[`Pulumi.${example.stackName}.yaml`] = exampleFile(example.example, `Pulumi.${example.stackName}.yaml`);
  return packedProject({ name, files });
}

/** Points a stack at an emulator: its address, and its key as a secret. */
const access = (emulator: Emulator): Record<string, CliConfigValue> => ({
  "workspace-access:baseUrl": emulator.url,
  "workspace-access:apiKey": { secret: emulator.apiKey },
});

describe.skipIf(!cliAvailable)(`the examples through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  for (const example of CASES) {
    describe(`examples/${example.example}`, () => {
      let service: Emulator;
      let project: Project;
      let stack: CliStack;
      let before: ReturnType<typeof world>;

      beforeAll(async () => {
        service = await startTestEmulator();
        project = await exampleProject(example);
        before = world(service);
        stack = await openCliStack({
          secrets: "passphrase",
          projectDir: project.dir,
          stackName: example.stackName,
          config: access(service),
        });
      }, SETUP_TIMEOUT_MS);

      afterAll(async () => {
        await stack?.remove();
        await Promise.all([project?.remove(), service?.close()]);
      });

      it("the first preview plans the creates and writes nothing", async () => {
        const preview = await stack.preview();
        expect(preview.output).toMatch(/\+ \d+ to create/);
        expect(service.requests.filter((r) => r.method !== "GET")).toEqual([]);
      });

      it("up; preview and refresh expect no changes; one edit: preview --diff shows exactly that property (golden); up", async () => {
        await stack.up();
        await stack.preview("--expect-no-changes");
        await stack.refresh("--expect-no-changes");
        const edit = example.edit(exampleFile(example.example, "index.ts"));
        if ("program" in edit) fs.writeFileSync(path.join(project.dir, "index.ts"), edit.program);
        else if ("config" in edit) await stack.run(["config", "set", "--path", edit.config.path, edit.config.value]);
        const writes = service.requests.filter((r) => r.method !== "GET").length;
        const diff = await stack.preview("--diff");
        expect(diff.output).toMatch(/~ 1 to update/);
        expectGolden(example.golden, diffBlocks(diff.output));
        expect(service.requests.filter((r) => r.method !== "GET").length).toBe(writes);
        await stack.up();
        await stack.preview("--expect-no-changes");
      });

      it("destroy leaves the emulator's world as it was before the first up", async () => {
        await stack.destroy();
        expect(world(service)).toEqual(before);
      });
    });
  }
});
