/**
 * A stack of a project, driven like the CLI drives it: `up`, `preview`, `refresh`, `destroy`, with
 * state kept in a JSON file between them. Each operation starts the program (up, preview) and the
 * dynamic-provider host once, and ends both before it returns.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";
import { runOperation } from "./deployment.ts";
import type { ConfigValue, InvokeHandler, OperationKind, OperationResult, ResolvedConfigValue } from "./operation.ts";
import { EngineError } from "./engine-error.ts";
import { killGroup, processGroupAlive } from "./provider-host.ts";
import { emptyState, loadState, type StackState, saveState } from "./state.ts";

/** Options of {@link openStack}. */
export interface StackOptions {
  /** The project directory (with `Pulumi.yaml`, whose `name` is the project name). */
  projectDir: string;
  /** The program: a `.ts` or `.js` file, absolute or relative to the project. Needed for up/preview. */
  program?: string;
  /** `dev` by default. */
  stackName?: string;
  /**
   * Stack config, fully-qualified keys (`workspace-access:apiKey`); a key without a namespace gets the
   * project's. `{ value, secret: true }` for secrets.
   */
  config?: Record<string, ConfigValue>;
  /** The state file; `<projectDir>/.e2e-state/<stack>.json` by default. */
  statePath?: string;
  /** `organization` by default (the local backend's). */
  organization?: string;
  /** Extra environment for the program and the host (`undefined` removes a variable). */
  env?: Record<string, string | undefined>;
  /** Limit for one program run; 60 s by default. */
  timeoutMs?: number;
  /** Answers the program's invokes; by default every invoke returns `{}`. */
  invoke?: InvokeHandler;
  /**
   * At most this many resource steps at once, like `pulumi --parallel`: registrations (their
   * Check/Diff/Create/Update), refresh reads and destroy's deletes. Unset: the CLI's default, four
   * per CPU.
   */
  parallel?: number;
  /** Encrypts secrets in the state file; any fixed string does. */
  secretsPassphrase?: string;
}

function readProjectName(projectDir: string): string {
  const file = path.join(projectDir, "Pulumi.yaml");
  const project = parseYaml(fs.readFileSync(file, "utf8")) as { name?: unknown } | null;
  if (typeof project?.name !== "string" || project.name === "") throw new Error(`${file} has no name`);
  return project.name;
}

/** A stack; see {@link openStack}. */
export class Stack {
  readonly projectDir: string;
  readonly projectName: string;
  readonly stackName: string;
  readonly statePath: string;
  #programFile: string | undefined;
  readonly #config = new Map<string, ResolvedConfigValue>();
  readonly #options: StackOptions;
  #current: StackState;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  #lastPids: number[] = [];
  /** The result of the last operation, failed or not. */
  lastResult: OperationResult | undefined;

  constructor(options: StackOptions) {
    this.#options = options;
    this.projectDir = path.resolve(options.projectDir);
    this.projectName = readProjectName(this.projectDir);
    this.stackName = options.stackName ?? "dev";
    this.statePath = options.statePath ?? path.join(this.projectDir, ".e2e-state", `${this.stackName}.json`);
    if (options.program) this.setProgram(options.program);
    for (const [key, value] of Object.entries(options.config ?? {})) this.setConfig(key, value);
    this.#current = loadState(this.statePath, this.#passphrase()) ?? emptyState(this.projectName, this.stackName);
  }

  #passphrase(): string {
    return this.#options.secretsPassphrase ?? "pulumi-e2e";
  }

  /** Runs `pulumi up`: registers, creates/updates/replaces, deletes what the program dropped. */
  up(): Promise<OperationResult> {
    return this.#enqueue("up");
  }

  /** Runs `pulumi preview`: `Check` and `Diff` only; the steps say what `up` would do. State untouched. */
  preview(): Promise<OperationResult> {
    return this.#enqueue("preview");
  }

  /** Runs `pulumi refresh`: `Read` of every resource; an empty id drops it, returned inputs are stored. */
  refresh(): Promise<OperationResult> {
    return this.#enqueue("refresh");
  }

  /** Runs `pulumi destroy`: `Delete` of everything, dependents first. */
  destroy(): Promise<OperationResult> {
    return this.#enqueue("destroy");
  }

  /** The current state (a copy; secrets decrypted, wrapped). */
  state(): StackState {
    return structuredClone(this.#current);
  }

  /**
   * Switches the program for the next operations: `file` absolute or relative to the project;
   * with `source`, the file is (over)written first.
   */
  setProgram(file: string, source?: string): void {
    const programFile = path.resolve(this.projectDir, file);
    if (source !== undefined) {
      fs.mkdirSync(path.dirname(programFile), { recursive: true });
      fs.writeFileSync(programFile, source);
    }
    this.#programFile = programFile;
  }

  /** Sets (or, with `undefined`, removes) a config value for the next operations. */
  setConfig(key: string, value: ConfigValue | undefined): void {
    const fullKey = key.includes(":") ? key : `${this.projectName}:${key}`;
    if (value === undefined) {
      this.#config.delete(fullKey);
      return;
    }
    if (typeof value === "string") {
      this.#config.set(fullKey, { value, secret: false });
      return;
    }
    const text = typeof value.value === "string" ? value.value : JSON.stringify(value.value);
    this.#config.set(fullKey, { value: text, secret: value.secret === true });
  }

  /** Waits for the operation in flight and checks that none of its processes is left. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue.catch(() => undefined);
    for (const pid of this.#lastPids) {
      if (processGroupAlive(pid)) killGroup(pid, "SIGKILL");
    }
  }

  #env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!key.startsWith("PULUMI_")) env[key] = value;
    }
    // Node's on-disk compile cache halves the time the program and the plugin spend loading
    // @pulumi/pulumi; it changes nothing else.
    env["NODE_COMPILE_CACHE"] ??= path.join(os.tmpdir(), "pulumi-e2e-compile-cache");
    for (const [key, value] of Object.entries(this.#options.env ?? {})) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    return env;
  }

  #enqueue(operation: OperationKind): Promise<OperationResult> {
    if (this.#closed) return Promise.reject(new Error(`stack ${this.stackName} is closed`));
    const run = this.#queue.catch(() => undefined).then(() => this.#execute(operation));
    this.#queue = run;
    return run;
  }

  async #execute(operation: OperationKind): Promise<OperationResult> {
    const { result, state } = await runOperation({
      operation,
      projectDir: this.projectDir,
      projectName: this.projectName,
      stackName: this.stackName,
      organization: this.#options.organization ?? "organization",
      ...(this.#programFile ? { programFile: this.#programFile } : {}),
      config: Object.fromEntries(this.#config),
      prior: this.#current,
      env: this.#env(),
      timeoutMs: this.#options.timeoutMs ?? 60_000,
      ...(this.#options.invoke ? { invoke: this.#options.invoke } : {}),
      ...(this.#options.parallel !== undefined ? { parallel: this.#options.parallel } : {}),
    });
    this.lastResult = result;
    this.#lastPids = [result.hostLog.pid, result.program.pid].filter((pid): pid is number => pid !== undefined);
    if (operation !== "preview") {
      this.#current = state;
      saveState(this.statePath, state, this.#passphrase());
    }
    const [first] = result.errors;
    if (first) {
      const error = new EngineError(
        result.errors.length > 1 ? `${first.message}\n(and ${result.errors.length - 1} more errors)` : first.message,
        first,
      );
      error.result = result;
      throw error;
    }
    return result;
  }
}

/** Opens a stack of a project: its state is read from `statePath` if it exists. */
export async function openStack(options: StackOptions): Promise<Stack> {
  return new Stack(options);
}
