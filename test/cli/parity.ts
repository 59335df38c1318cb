/**
 * One scenario, two engines: the real CLI and test/engine (the harness) run the same steps of the
 * same program against two emulators of the same world, and the tests compare what each ended
 * with (outputs per URN) and what each sent (requests per step, order aside). Where they differ,
 * the CLI is right.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Emulator } from "../../src/emulator/index";
import type { ConfigValue, Stack } from "../engine/index.ts";
import { type CliConfigValue, type CliStack, comparableRequests, comparableState, dynamicResources } from "./support.ts";

/** A change of one stack config value: `pulumi config set --path` for the CLI, the whole key for the harness. */
export interface ConfigEdit {
  path: string;
  value: string;
  harnessKey: string;
  harnessValue: ConfigValue;
}

/** A step of a scenario: an operation, or a change of the program or config between two. */
export type ParityStep = "up" | "preview" | "refresh" | "destroy" | { program: string } | { config: ConfigEdit };

/** What one engine did through a scenario. */
export interface ParityRun {
  /** Per operation step, the requests the emulator received (comparable form). */
  requests: Array<{ step: string; requests: string[] }>;
  /** Outputs per URN of the dynamic resources at the end, and the stack outputs. */
  state: Record<string, unknown>;
  outputs: unknown;
}

const label = (step: ParityStep, index: number) => `${index}: ${typeof step === "string" ? step : Object.keys(step)[0]}`;

/** Extra arguments of the CLI's operations, e.g. `{ refresh: ["--expect-no-changes"] }`. */
export type CliStepArgs = Partial<Record<Extract<ParityStep, string>, string[]>>;

/**
 * The stack outputs, comparable across two emulators: an output that names the workspace's address
 * (examples/stack-per-workspace's `workspace`) names each run's own emulator.
 */
function comparableOutputs(outputs: unknown, emulator: Emulator): unknown {
  const own = JSON.stringify(outputs ?? {}).replaceAll(emulator.url, "<the emulator>");
  return comparableState([{ urn: "outputs", outputs: JSON.parse(own) }])["outputs"];
}

/** Runs the steps through the CLI (each operation with its `args`, when given). */
export async function runCli(
  stack: CliStack,
  emulator: Emulator,
  steps: readonly ParityStep[],
  program = "index.ts",
  args: CliStepArgs = {},
): Promise<ParityRun> {
  const run: ParityRun = { requests: [], state: {}, outputs: {} };
  for (const [index, step] of steps.entries()) {
    if (typeof step !== "string") {
      if ("program" in step) fs.writeFileSync(path.join(stack.projectDir, program), step.program);
      else await stack.run(["config", "set", "--path", step.config.path, step.config.value]);
      continue;
    }
    const before = emulator.requests.length;
    await stack[step](...(args[step] ?? []));
    run.requests.push({ step: label(step, index), requests: comparableRequests(emulator.requests.slice(before)) });
  }
  const exported = await stack.exportState(true);
  run.state = comparableState(dynamicResources(exported));
  run.outputs = comparableOutputs(await stack.outputs(), emulator);
  return run;
}

/** Runs the steps through the harness. */
export async function runHarness(stack: Stack, emulator: Emulator, steps: readonly ParityStep[], program = "index.ts"): Promise<ParityRun> {
  const run: ParityRun = { requests: [], state: {}, outputs: {} };
  for (const [index, step] of steps.entries()) {
    if (typeof step !== "string") {
      if ("program" in step) stack.setProgram(program, step.program);
      else stack.setConfig(step.config.harnessKey, step.config.harnessValue);
      continue;
    }
    const before = emulator.requests.length;
    await stack[step]();
    run.requests.push({ step: label(step, index), requests: comparableRequests(emulator.requests.slice(before)) });
  }
  const state = stack.state();
  run.state = comparableState(state.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/")));
  run.outputs = comparableOutputs(state.outputs, emulator);
  return run;
}

/** The harness's config for the same stack config the CLI sets. */
export function harnessConfig(config: Record<string, CliConfigValue>): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {};
  for (const [key, value] of Object.entries(config)) out[key] = typeof value === "string" ? value : { value: value.secret, secret: true };
  return out;
}
