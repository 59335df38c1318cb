/**
 * What the habits tests (test/cli/habits-*.test.ts) share: one project per file, installed from
 * the packed tarball, one stack on the emulator, and the requests each CLI run caused.
 */
import type { Emulator, EmulatorOptions, RecordedRequest } from "../../src/emulator/index";
import type { Project } from "../support/project.ts";
import { packedProject } from "../support/packed.ts";
import { startTestEmulator } from "./scenario.ts";
import { type CliRun, type CliStack, openCliStack } from "./support.ts";

/** A project of one program, its stack on a fresh emulator, and the requests of each step. */
export interface HabitsStack {
  emulator: Emulator;
  project: Project;
  stack: CliStack;
  /** Runs a CLI step and returns its run with the requests it caused, in the order they arrived. */
  step(run: (stack: CliStack) => Promise<CliRun>): Promise<{ run: CliRun; requests: RecordedRequest[] }>;
  /** The stack's URN of a resource of the package, by type (`User`) and name. */
  urn(type: string, name: string): string;
  dispose(): Promise<void>;
}

/** Opens a project of `program` (its name `name`) and a stack `dev` on a fresh emulator (`emulatorOptions` added to the test's). */
export async function habitsStack(
  name: string,
  program: string,
  config: Record<string, string> = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<HabitsStack> {
  const emulator = await startTestEmulator(emulatorOptions);
  const project = await packedProject({ name, files: { "index.ts": program } });
  const stack = await openCliStack({
    projectDir: project.dir,
    config: { "workspace-access:baseUrl": emulator.url, "workspace-access:apiKey": { secret: emulator.apiKey }, ...config },
  });
  return {
    emulator,
    project,
    stack,
    async step(run) {
      const before = emulator.requests.length;
      const result = await run(stack);
      return { run: result, requests: emulator.requests.slice(before) };
    },
    urn: (type, resource) => `urn:pulumi:${stack.stackName}::${name}::pulumi-nodejs:dynamic/workspace-access:${type}::${resource}`,
    async dispose() {
      await stack.remove();
      await Promise.all([project.remove(), emulator.close()]);
    },
  };
}

/** The program's header: the package and the emulator's ids, as constants. */
export function programHeader(ids: Record<string, string>): string {
  return [
    `import * as pulumi from "@pulumi/pulumi";`,
    `import * as wa from "pulumi-workspace-access";`,
    ...Object.entries(ids).map(([key, value]) => `const ${key} = ${JSON.stringify(value)};`),
    `const config = new pulumi.Config();`,
    `const flag = (key: string) => config.getBoolean(key) ?? false;`,
    "",
  ].join("\n");
}
