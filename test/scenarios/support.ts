/**
 * What the scenarios share: an emulator whose jobs finish on the first poll, the example programs
 * read from `examples/`, a stack of the packed package pointed at an emulator, and small readers
 * of what an operation did and what the emulator received.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect } from "vitest";
import { defaultSeed, type Emulator, type EmulatorOptions, type RecordedRequest, startEmulator } from "../../src/emulator/index";
import {
  type ConfigValue,
  type OperationResult,
  openStack,
  type Project,
  processGroupAlive,
  repoRoot,
  type Stack,
  type StackState,
} from "../engine/index.ts";
import { packedProject } from "../engine/packed.ts";

/** The resource types of the package, as the engine names dynamic resources. */
export const USER_TYPE = "pulumi-nodejs:dynamic/workspace-access:User";
export const ENTITLEMENT_TYPE = "pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement";

/** A file of an example, as users copy it. */
export function exampleFile(example: string, file: string): string {
  return fs.readFileSync(path.join(repoRoot, "examples", example, file), "utf8");
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

/** A project of an example, its packages installed from the packed tarball, and a stack of it. */
export interface ExampleStack {
  project: Project;
  stack: Stack;
  /** Closes the stack and removes the project. */
  dispose(): Promise<void>;
}

/** Options of {@link exampleStack}. */
export interface ExampleStackOptions {
  example: "basic" | "stack-per-workspace";
  config: Record<string, ConfigValue>;
  stackName?: string;
  /** An existing project (one project, several stacks). */
  project?: Project;
}

/** Copies an example (its `Pulumi.yaml` and `index.ts`) into a packed project and opens a stack of it. */
export async function exampleStack(options: ExampleStackOptions): Promise<ExampleStack> {
  const pulumiYaml = exampleFile(options.example, "Pulumi.yaml");
  const name = /^name:\s*(\S+)/m.exec(pulumiYaml)?.[1];
  if (!name) throw new Error(`examples/${options.example}/Pulumi.yaml has no name`);
  const project =
    options.project ??
    (await packedProject({ name, files: { "index.ts": exampleFile(options.example, "index.ts"), "Pulumi.yaml": pulumiYaml } }));
  const stack = await openStack({
    projectDir: project.dir,
    program: "index.ts",
    config: options.config,
    env: NO_FALLBACKS,
    ...(options.stackName ? { stackName: options.stackName } : {}),
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

/** `op name` of every step but the root stack's, e.g. `create alice`. */
export function stepsOf(result: OperationResult): string[] {
  return result.steps.filter((step) => step.type !== "pulumi:pulumi:Stack").map((step) => `${step.op} ${step.name}`);
}

/** The steps that were not `same`. */
export function changesOf(result: OperationResult): string[] {
  return stepsOf(result).filter((step) => !step.startsWith("same "));
}

/**
 * The input properties a planned update changes, as the CLI displays them: the dynamic-provider
 * host never sends property-level diffs, so the engine compares the old inputs with the checked
 * new ones (`__provider` aside). Read from the resource's `Diff` call.
 */
export function changedInputs(result: OperationResult, name: string): string[] {
  const call = result.grpc.find((c) => c.method === "Diff" && c.urn?.endsWith(`::${name}`));
  if (!call) throw new Error(`no Diff call for ${name}`);
  const request = call.request as { news?: Record<string, unknown>; oldInputs?: Record<string, unknown> };
  const news = request.news ?? {};
  const olds = request.oldInputs ?? {};
  return [...new Set([...Object.keys(news), ...Object.keys(olds)])]
    .filter((key) => key !== "__provider" && JSON.stringify(news[key]) !== JSON.stringify(olds[key]))
    .sort();
}

/** A resource of the state by name. */
export function resourceOf(state: StackState, name: string) {
  const found = state.resources.find((r) => r.name === name);
  if (!found) throw new Error(`no resource ${name} in state (${state.resources.map((r) => r.name).join(", ")})`);
  return found;
}

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

/** Every process the operation started has ended. */
export function expectNoProcessesLeft(result: OperationResult): void {
  expect(result.hostLog.pid).toBeGreaterThan(0);
  expect(processGroupAlive(result.hostLog.pid ?? 0)).toBe(false);
  if (result.program.pid !== undefined) expect(processGroupAlive(result.program.pid)).toBe(false);
}

/** The rejection of an operation (fails the test when it resolves). */
export async function rejectionOf(operation: Promise<unknown>): Promise<unknown> {
  return operation.then(
    () => expect.unreachable("the operation should have failed"),
    (error: unknown) => error,
  );
}

/** Budget for a test file's setup: the first file to need the packed tarball builds it (`npm pack` + install). */
export const SETUP_TIMEOUT_MS = 240_000;
