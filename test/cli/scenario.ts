/**
 * What the deployment tests share: an emulator whose jobs finish on the first poll, the example
 * programs read from `examples/`, the stack config that points the package at an emulator, and
 * small readers of what the emulator received.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { defaultSeed, type Emulator, type EmulatorOptions, type RecordedRequest, startEmulator } from "../../src/emulator/index";
import { packedProject } from "../support/packed.ts";
import { repoRoot } from "../support/paths.ts";
import type { Project } from "../support/project.ts";
import {
  type ConfigValue,
  type Deployment,
  type OperationResult,
  openDeployment,
  type ResourceState,
  type StackState,
} from "./deployment.ts";

/** The resource types of the package, as the engine names dynamic resources. */
export const USER_TYPE = "pulumi-nodejs:dynamic/workspace-access:User";
export const ENTITLEMENT_TYPE = "pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement";

/** A file of an example, as users copy it. */
export function exampleFile(example: string, file: string): string {
  return fs.readFileSync(path.join(repoRoot, "examples", example, file), "utf8");
}

/**
 * The packed project of examples/stack-per-workspace: its program, Pulumi.yaml and its two stacks'
 * config files, plus `extraFiles` (another stack's config).
 */
export function stackPerWorkspaceProject(extraFiles: Record<string, string> = {}): Promise<Project> {
  const example = (file: string) => exampleFile("stack-per-workspace", file);
  const pulumiYaml = example("Pulumi.yaml");
  return packedProject({
    name: /^name:\s*(\S+)/m.exec(pulumiYaml)?.[1] ?? "",
    files: {
      "index.ts": example("index.ts"),
      "Pulumi.yaml": pulumiYaml,
      "Pulumi.acme.yaml": example("Pulumi.acme.yaml"),
      "Pulumi.globex.yaml": example("Pulumi.globex.yaml"),
      ...extraFiles,
    },
  });
}

/** An emulator with the default world whose jobs are done at their first poll (fast, still awaited). */
export function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, ...options });
}

/** The stack config that points the package at an emulator, the key a secret as `--secret` stores it. */
export function accessConfig(emulator: Emulator, apiKey: string = emulator.apiKey): Record<string, ConfigValue> {
  return {
    "workspace-access:baseUrl": emulator.url,
    "workspace-access:apiKey": { value: apiKey, secret: true },
  };
}

/** The package's environment fallbacks, removed so only the stack config counts. */
export const NO_FALLBACKS: Record<string, undefined> = {
  WORKSPACE_ACCESS_API_KEY: undefined,
  WORKSPACE_ACCESS_BASE_URL: undefined,
  WORKSPACE_ACCESS_WORKSPACE: undefined,
  WORKSPACE_ACCESS_HOST: undefined,
};

/** `METHOD /path` of requests, e.g. `POST /users`. */
export function requestLines(requests: RecordedRequest[]): string[] {
  return requests.map((r) => `${r.method} ${r.path}`);
}

/** Runs an operation and returns it with the requests the emulator received meanwhile. */
export async function withRequests<T>(
  emulator: Emulator,
  operation: () => Promise<T>,
): Promise<{ result: T; requests: RecordedRequest[] }> {
  const before = emulator.requests.length;
  const result = await operation();
  return { result, requests: emulator.requests.slice(before) };
}

/** Polls of jobs among requests: each `GET /jobs/{id}` is one wait step on a job. */
export function jobPolls(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/"));
}

/** Requests the emulator received that are writes (POST, PUT, PATCH, DELETE). */
export function writes(emu: Emulator): RecordedRequest[] {
  return emu.requests.filter((r) => r.method !== "GET");
}

/** Budget for a test file's setup: the first file to need the packed tarball builds it (`npm pack` + install). */
export const SETUP_TIMEOUT_MS = 240_000;

/** A project of an example, its packages installed from the packed tarball, and a stack of it. */
export interface ExampleStack {
  project: Project;
  stack: Deployment;
  /** Removes the stack and, unless it was given, the project. */
  dispose(): Promise<void>;
}

/** Copies an example (its `Pulumi.yaml` and `index.ts`) into a packed project and opens a stack of it. */
export async function exampleStack(options: {
  example: "basic" | "stack-per-workspace";
  config: Record<string, ConfigValue>;
  stackName?: string;
  project?: Project;
  backendDir?: string;
}): Promise<ExampleStack> {
  const pulumiYaml = exampleFile(options.example, "Pulumi.yaml");
  const name = /^name:\s*(\S+)/m.exec(pulumiYaml)?.[1];
  if (!name) throw new Error(`examples/${options.example}/Pulumi.yaml has no name`);
  const project =
    options.project ??
    (await packedProject({ name, files: { "index.ts": exampleFile(options.example, "index.ts"), "Pulumi.yaml": pulumiYaml } }));
  const stack = await openDeployment({
    projectDir: project.dir,
    config: options.config,
    env: NO_FALLBACKS,
    ...(options.stackName ? { stackName: options.stackName } : {}),
    ...(options.backendDir ? { backendDir: options.backendDir } : {}),
  });
  return {
    project,
    stack,
    dispose: async () => {
      await stack.close();
      if (!options.project) await project.remove();
    },
  };
}

/** A resource of the state by name. */
export function resourceOf(state: StackState, name: string): ResourceState {
  const found = state.resources.find((r) => r.name === name);
  if (!found) throw new Error(`no resource ${name} in state (${state.resources.map((r) => r.name).join(", ")})`);
  return found;
}

/** The input properties the engine's diff names for a resource's step (as `preview --diff` shows them). */
export function changedInputs(result: OperationResult, name: string): string[] {
  const step = result.steps.find((s) => s.name === name);
  if (!step) throw new Error(`no step for ${name}`);
  return step.diffs.filter((key) => key !== "__provider").sort();
}
