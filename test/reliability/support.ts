/**
 * Reliability scenarios through the real `pulumi` CLI: an emulator, a project with the package
 * installed from its packed tarball (`test/support/packed.ts`), and a stack on a file backend.
 * Every operation's result (and every failure) is kept, so a test can grep everything the CLI
 * showed and stored for the API key, and `scenarios` does that for every scenario.
 */
import { afterEach, expect } from "vitest";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator/index.ts";
import {
  type ConfigValue,
  type Deployment,
  type DeploymentError,
  type DeploymentOptions,
  type OperationResult,
  openDeployment,
  type Step,
} from "../cli/deployment.ts";
import { packedProject } from "../support/packed.ts";
import type { Project } from "../support/project.ts";

/** A distinctive key per scenario, so a leak anywhere can be grepped for. */
export function distinctiveKey(): string {
  return `wa_rel_${Math.random().toString(36).slice(2)}_${"K".repeat(8)}${Date.now().toString(36)}`;
}

export interface ScenarioOptions {
  /** The program (TypeScript source); may be changed later with `setProgram`. */
  program: string;
  emulator?: EmulatorOptions;
  /** Extra `workspace-access:*` config (unqualified keys), e.g. `{ maxRetries: "1" }`. */
  config?: Record<string, string>;
  /** `false` stores the API key in plaintext config. Default true. */
  secretKey?: boolean;
  /** `--parallel` of every operation (the CLI's default otherwise). */
  parallel?: number;
  /** Extra environment for the program and the host. */
  env?: Record<string, string>;
  /** The stack's secrets provider (test/cli/support.ts: the test tiers' key service unless `passphrase`). */
  secrets?: DeploymentOptions["secrets"];
}

/** A running scenario: emulator, project, stack, and everything observed. */
export interface Scenario {
  emu: Emulator;
  stack: Deployment;
  project: Project;
  key: string;
  /** Every operation's result, failed ones included. */
  results: OperationResult[];
  /** Every failure of an operation. */
  failures: DeploymentError[];
  up(): Promise<OperationResult>;
  preview(): Promise<OperationResult>;
  refresh(): Promise<OperationResult>;
  destroy(): Promise<OperationResult>;
  /** Runs an operation that must fail, and returns its error. */
  /** The operation, expected to fail; `extra` are CLI flags (`--continue-on-error`). */
  fails(op: "up" | "preview" | "refresh" | "destroy", ...extra: string[]): Promise<DeploymentError>;
  setProgram(source: string): void;
  setConfig(key: string, value: string | undefined): void;
  /** Everything the CLI showed and stored so far, as one text (for key greps). */
  captured(): string;
  close(): Promise<void>;
}

/** The program header every scenario program starts with. */
export const header = `import * as wa from "pulumi-workspace-access";\n`;

/** A program declaring `users` (name → attributes) and optional entitlements. */
export function userProgram(
  users: Record<string, { email: string; firstName?: string; lastName?: string; adoptExisting?: boolean }>,
  entitlements: Record<string, { integrationId: string; user: string; entitlements: string[] }> = {},
): string {
  const lines = [header];
  for (const [name, u] of Object.entries(users)) {
    const args = { firstName: "First", lastName: "Last", ...u };
    lines.push(`const ${name} = new wa.User(${JSON.stringify(name)}, ${JSON.stringify(args)});`);
    lines.push(`export const ${name}Id = ${name}.id;`);
  }
  for (const [name, e] of Object.entries(entitlements)) {
    lines.push(
      `new wa.IntegrationEntitlement(${JSON.stringify(name)}, { integrationId: ${JSON.stringify(e.integrationId)}, userId: ${e.user}.id, entitlements: ${JSON.stringify(e.entitlements)} });`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** Starts an emulator and a packed project and opens a stack on them. */
export async function scenario(options: ScenarioOptions): Promise<Scenario> {
  const key = distinctiveKey();
  // Empty unless the scenario seeds it or names a world.
  const empty = options.emulator?.world === undefined ? { seed: {} } : {};
  const emu = await startEmulator({ apiKey: key, ...empty, job: { finishAfterPolls: 1 }, ...options.emulator });
  const project = await packedProject({ files: { "index.ts": options.program } });
  const config: Record<string, ConfigValue> = {
    "workspace-access:baseUrl": emu.url,
    "workspace-access:apiKey": options.secretKey === false ? key : { value: key, secret: true },
  };
  for (const [k, v] of Object.entries(options.config ?? {})) config[`workspace-access:${k}`] = v;
  const stack = await openDeployment({
    projectDir: project.dir,
    config,
    ...(options.parallel ? { parallel: options.parallel } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
  });
  const failures: DeploymentError[] = [];
  const s: Scenario = {
    emu,
    stack,
    project,
    key,
    results: stack.results,
    failures,
    up: () => stack.up(),
    preview: () => stack.preview(),
    refresh: () => stack.refresh(),
    destroy: () => stack.destroy(),
    async fails(op, ...extra) {
      const error = await stack.fails(op, ...extra);
      failures.push(error);
      return error;
    },
    setProgram: (source) => stack.setProgram("index.ts", source),
    setConfig: (k, v) => stack.setConfig(`workspace-access:${k}`, v),
    captured: () => stack.captured(),
    async close() {
      await stack.close();
      await emu.close();
      await project.remove();
    },
  };
  return s;
}

/** Fails when the scenario's key appears in anything the CLI showed or stored. */
export function expectNoKeyLeak(s: Scenario): void {
  const text = s.captured();
  expect(text.length).toBeGreaterThan(0);
  expect(text.includes(s.key), "the API key leaked into what the CLI showed or stored").toBe(false);
}

/** Requests the emulator received that are writes (POST, PUT, PATCH, DELETE). */
export function writes(emu: Emulator) {
  return emu.requests.filter((r) => r.method !== "GET");
}

/** The single step of a resource named `name` in a result. */
export function stepOf(result: OperationResult, name: string): Step {
  const steps = result.steps.filter((st) => st.name === name);
  expect(steps, `steps of ${name}`).toHaveLength(1);
  return steps[0]!;
}

/**
 * The scenarios of one test file: each one started with the returned function is checked for key
 * leaks (`expectNoKeyLeak`) and closed after its test.
 */
export function scenarios(): (options: ScenarioOptions) => Promise<Scenario> {
  const open: Scenario[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) {
      try {
        expectNoKeyLeak(s);
      } finally {
        await s.close();
      }
    }
  });
  return async (options) => {
    const s = await scenario(options);
    open.push(s);
    return s;
  };
}
