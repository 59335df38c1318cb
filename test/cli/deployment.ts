/**
 * A stack driven through the real `pulumi` CLI, for tests that follow a deployment step by step:
 * each operation runs with `--json` (the engine's events, streamed), and its result holds the steps the engine reported, the
 * error diagnostics, and the CLI's output. The state is the file backend's checkpoint as the CLI
 * wrote it (secrets encrypted), read without starting the CLI again.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { type CliRun, type CliStack, type CliStackOptions, openCliStack } from "./support.ts";

/** A stack config value: a string, or a value (JSON when structured) and whether it is secret. */
export type ConfigValue = string | { value: unknown; secret?: boolean };

/** The operations. */
export type OperationKind = "up" | "preview" | "refresh" | "destroy";

/** One step the engine reported (`resourcePreEvent`): `create`, `update`, `same`, `delete`, `refresh`... */
export interface Step {
  op: string;
  urn: string;
  type: string;
  name: string;
  /** The properties the engine's diff names (update steps). */
  diffs: string[];
  /** The inputs before and after the step, as the engine reported them (secrets shown as the engine shows them). */
  oldInputs: Record<string, unknown>;
  newInputs: Record<string, unknown>;
}

/** What one operation did. */
export interface OperationResult {
  operation: OperationKind;
  steps: Step[];
  /** The steps that completed (`resOutputsEvent`): in an `up`, what was applied. */
  done: Step[];
  /** The stack outputs the engine reported (in a preview too, the ones known), secrets as the engine shows them. */
  outputs: Record<string, unknown>;
  /** The messages of the engine's error diagnostics (markup removed). */
  errors: string[];
  /** The names of the resources an error diagnostic was reported for. */
  failed: string[];
  /** Every diagnostic (any severity), as `severity: message`. */
  diagnostics: string[];
  /** The CLI's stdout and stderr. */
  output: string;
  run: CliRun;
  /** The engine's events as the CLI streamed them (one JSON document a line). */
  eventLog: string;
}

/** A failed operation: its message is the engine's error diagnostics, then the CLI's output. */
export class DeploymentError extends Error {
  readonly result: OperationResult;
  constructor(result: OperationResult) {
    super(`pulumi ${result.operation} failed:\n${result.errors.join("\n")}\n--- output\n${result.output}`);
    this.name = "DeploymentError";
    this.result = result;
  }
}

/** A resource of the checkpoint. */
export interface ResourceState {
  urn: string;
  type: string;
  name: string;
  custom: boolean;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  retainOnDelete: boolean;
  /** Reasons of a partial create or update (the resource exists, and the next up resumes it). */
  initErrors: string[];
  /** Deleted by a delete-first replacement whose create has not succeeded: the next up creates it, deleting nothing. */
  pendingReplacement: boolean;
}

/** The checkpoint: the program's resources and the stack outputs (secrets as the backend stores them, encrypted). */
export interface StackState {
  resources: ResourceState[];
  outputs: Record<string, unknown>;
}

/** Options of {@link openDeployment}. */
export interface DeploymentOptions {
  projectDir: string;
  stackName?: string;
  /** Fully-qualified keys (`workspace-access:apiKey`). */
  config?: Record<string, ConfigValue>;
  /** `--parallel` of every operation (the CLI's default otherwise). */
  parallel?: number;
  /** Extra environment (a value of `undefined` removes the variable). */
  env?: Record<string, string | undefined>;
  /** A backend folder shared with other stacks. */
  backendDir?: string;
  /** The stack's secrets provider ({@link CliStackOptions.secrets}). */
  secrets?: CliStackOptions["secrets"];
}

const MARKUP = /<\{%[^%]*%\}>/g;

interface EngineEvent {
  resourcePreEvent?: { metadata: StepMetadata };
  resOutputsEvent?: { metadata: StepMetadata };
  diagnosticEvent?: { message: string; severity: string; urn?: string };
}

type StepMetadata = {
  op: string;
  urn: string;
  type: string;
  diffs?: string[];
  old?: { inputs?: Record<string, unknown> };
  new?: { inputs?: Record<string, unknown>; outputs?: Record<string, unknown> };
};

/**
 * The input properties that differ between two sets of inputs (`__provider` aside): the engine
 * reports no property diff for dynamic resources (their host sends none), and compares the inputs
 * itself, as this does.
 */
function changedKeys(olds: Record<string, unknown> | undefined, news: Record<string, unknown> | undefined): string[] {
  if (!olds || !news) return [];
  return [...new Set([...Object.keys(olds), ...Object.keys(news)])]
    .filter((key) => key !== "__provider" && JSON.stringify(olds[key]) !== JSON.stringify(news[key]))
    .sort();
}

function stepOf(metadata: StepMetadata): Step {
  return {
    op: metadata.op,
    urn: metadata.urn,
    type: metadata.type,
    name: metadata.urn.split("::").at(-1) ?? "",
    diffs: metadata.diffs ?? changedKeys(metadata.old?.inputs, metadata.new?.inputs),
    oldInputs: metadata.old?.inputs ?? {},
    newInputs: metadata.new?.inputs ?? {},
  };
}

/** A stack of a project driven through the CLI; see the file's comment. */
export class Deployment {
  readonly cli: CliStack;
  readonly projectName: string;
  readonly #options: DeploymentOptions;
  readonly #config = new Map<string, ConfigValue>();
  #configDirty = true;
  /** Every operation's result, failed ones included. */
  readonly results: OperationResult[] = [];

  constructor(cli: CliStack, options: DeploymentOptions) {
    this.cli = cli;
    this.#options = options;
    const project = parseYaml(fs.readFileSync(path.join(options.projectDir, "Pulumi.yaml"), "utf8")) as { name: string };
    this.projectName = project.name;
    for (const [key, value] of Object.entries(options.config ?? {})) this.#config.set(key, value);
  }

  get stackName(): string {
    return this.cli.stackName;
  }

  /** The checkpoint file of the file backend. */
  get statePath(): string {
    return path.join(this.cli.backendDir, ".pulumi", "stacks", this.projectName, `${this.stackName}.json`);
  }

  up(...extra: string[]): Promise<OperationResult> {
    return this.#operation("up", extra);
  }

  preview(...extra: string[]): Promise<OperationResult> {
    return this.#operation("preview", extra);
  }

  refresh(...extra: string[]): Promise<OperationResult> {
    return this.#operation("refresh", extra);
  }

  destroy(...extra: string[]): Promise<OperationResult> {
    return this.#operation("destroy", extra);
  }

  /** Runs an operation that must fail, and returns its error. */
  async fails(operation: OperationKind, ...extra: string[]): Promise<DeploymentError> {
    const error = await this.#operation(operation, extra).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(error instanceof DeploymentError)) throw new Error(`expected pulumi ${operation} to fail, got ${String(error)}`);
    return error;
  }

  /** Writes the program file (relative to the project) for the next operations. */
  setProgram(file: string, source: string): void {
    fs.writeFileSync(path.resolve(this.#options.projectDir, file), source);
  }

  /** Sets (or, with `undefined`, removes) a config value for the next operations. */
  setConfig(key: string, value: ConfigValue | undefined): void {
    if (value === undefined) this.#config.delete(key);
    else this.#config.set(key, value);
    this.#configDirty = true;
  }

  /** The checkpoint as the CLI left it (empty before the first up). */
  state(): StackState {
    if (!fs.existsSync(this.statePath)) return { resources: [], outputs: {} };
    const file = JSON.parse(fs.readFileSync(this.statePath, "utf8")) as {
      checkpoint: { latest?: { resources?: Array<Record<string, unknown>> } };
    };
    const resources = (file.checkpoint.latest?.resources ?? []).map(
      (r): ResourceState => ({
        urn: String(r["urn"]),
        type: String(r["type"]),
        name: String(r["urn"]).split("::").at(-1) ?? "",
        custom: r["custom"] === true,
        id: typeof r["id"] === "string" ? r["id"] : "",
        inputs: (r["inputs"] ?? {}) as Record<string, unknown>,
        outputs: (r["outputs"] ?? {}) as Record<string, unknown>,
        retainOnDelete: r["retainOnDelete"] === true,
        initErrors: (r["initErrors"] ?? []) as string[],
        pendingReplacement: r["pendingReplacement"] === true,
      }),
    );
    const root = resources.find((r) => r.type === "pulumi:pulumi:Stack");
    // The stack and the default providers are the engine's, not the program's.
    const declared = resources.filter((r) => r !== root && !r.type.startsWith("pulumi:providers:"));
    return { resources: declared, outputs: root?.outputs ?? {} };
  }

  /** The stack outputs with secrets shown (`pulumi stack output --json --show-secrets`). */
  outputs(): Promise<Record<string, unknown>> {
    return this.cli.outputs();
  }

  /**
   * Everything the CLI showed and stored: each run's output, each event log, and every file of the
   * backend (checkpoints, history, backups). A key must appear in none of it.
   */
  captured(): string {
    // The prelude event is the CLI echoing the stack config as the user set it (a key set without
    // --secret is there in plain text, as `pulumi config` shows it): the user's doing, not the package's.
    const prelude = (text: string) =>
      text
        .split("\n")
        .filter((line) => !line.includes('"preludeEvent"'))
        .join("\n");
    const parts = this.cli.runs.map((r) => prelude(r.output));
    const walk = (dir: string): void => {
      if (!fs.existsSync(dir)) return;
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (entry.isFile()) parts.push(fs.readFileSync(file, "latin1"));
      }
    };
    walk(path.join(this.cli.backendDir, ".pulumi"));
    return parts.join("\n");
  }

  /** Removes the stack (and its backend folder when it made it). */
  close(): Promise<void> {
    return this.cli.remove();
  }

  /** Writes the stack's config file: plain values as YAML, secrets through `pulumi config set-all --secret`. */
  async #writeConfig(): Promise<void> {
    const file = path.join(this.#options.projectDir, `Pulumi.${this.stackName}.yaml`);
    const current = fs.existsSync(file) ? ((parseYaml(fs.readFileSync(file, "utf8")) ?? {}) as Record<string, unknown>) : {};
    const config: Record<string, unknown> = {};
    const secrets: string[] = [];
    for (const [key, value] of this.#config) {
      if (typeof value === "string") config[key] = value;
      else if (value.secret)
        secrets.push("--secret", `${key}=${typeof value.value === "string" ? value.value : JSON.stringify(value.value)}`);
      else config[key] = value.value;
    }
    fs.writeFileSync(file, stringifyYaml({ ...current, config }));
    if (secrets.length > 0) await this.cli.run(["config", "set-all", ...secrets]);
    this.#configDirty = false;
  }

  async #operation(operation: OperationKind, extra: string[]): Promise<OperationResult> {
    // With `--json`, this CLI's `up --refresh` refreshes nothing (no read reaches the service): a test of it would prove nothing.
    if (operation !== "refresh" && extra.some((arg) => arg === "--refresh" || arg === "-r" || arg.startsWith("--refresh="))) {
      throw new Error(
        `${operation} --refresh through Deployment (which adds --json) does not refresh: run it through the CliStack instead`,
      );
    }
    if (this.#configDirty) await this.#writeConfig();
    const args: string[] = [operation];
    if (operation !== "preview") args.push("--yes", "--skip-preview");
    if (this.#options.parallel !== undefined) args.push("--parallel", String(this.#options.parallel));
    // `--json` streams the engine's events, one JSON document a line (a preview with the variable below).
    args.push("--json", ...extra);
    const run = await this.cli.run(args, { allowFailure: true });
    const text = run.stdout;
    const result: OperationResult = {
      operation,
      steps: [],
      done: [],
      outputs: {},
      errors: [],
      failed: [],
      diagnostics: [],
      output: run.output,
      run,
      eventLog: text,
    };
    for (const line of text.split("\n")) {
      if (!line.startsWith("{")) continue;
      const event = JSON.parse(line) as EngineEvent;
      // The default providers' own steps are the engine's, not the program's resources.
      const type = (event.resourcePreEvent ?? event.resOutputsEvent)?.metadata.type ?? "";
      if (type.startsWith("pulumi:providers:")) continue;
      if (event.resourcePreEvent) result.steps.push(stepOf(event.resourcePreEvent.metadata));
      if (event.resOutputsEvent) {
        const metadata = event.resOutputsEvent.metadata;
        if (metadata.type === "pulumi:pulumi:Stack") result.outputs = metadata.new?.outputs ?? {};
        else result.done.push(stepOf(metadata));
      }
      if (event.diagnosticEvent) {
        const message = event.diagnosticEvent.message.replace(MARKUP, "").trim();
        result.diagnostics.push(`${event.diagnosticEvent.severity}: ${message}`);
        if (event.diagnosticEvent.severity === "error") {
          result.errors.push(message);
          const urn = event.diagnosticEvent.urn;
          const name = urn?.split("::").at(-1) ?? "";
          // One diagnostic per failure (a Check names each property): each resource once.
          if (urn && !urn.endsWith(`::${this.projectName}-${this.stackName}`) && !result.failed.includes(name)) result.failed.push(name);
        }
      }
    }
    // A refresh announces every resource as `refresh`; what it found is in the completed steps.
    if (operation === "refresh") result.steps = result.done;
    this.results.push(result);
    if (run.code !== 0) throw new DeploymentError(result);
    return result;
  }
}

/** Creates a stack on a file backend (`pulumi stack init`) with its config, for {@link Deployment}. */
export async function openDeployment(options: DeploymentOptions): Promise<Deployment> {
  const cli = await openCliStack({
    projectDir: options.projectDir,
    ...(options.stackName ? { stackName: options.stackName } : {}),
    ...(options.backendDir ? { backendDir: options.backendDir } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    env: { PULUMI_ENABLE_STREAMING_JSON_PREVIEW: "true", ...options.env },
  });
  return new Deployment(cli, options);
}

/** `op name` of every step but the root stack's, e.g. `create alice`. */
export function stepsOf(result: OperationResult): string[] {
  return result.steps.filter((step) => step.type !== "pulumi:pulumi:Stack").map((step) => `${step.op} ${step.name}`);
}

/** The steps that were not `same` (nor a refresh that found nothing). */
export function changesOf(result: OperationResult): string[] {
  return stepsOf(result).filter((step) => !step.startsWith("same ") && !step.startsWith("refresh "));
}
