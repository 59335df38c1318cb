/**
 * One operation of the engine (`up`, `preview`, `refresh`, `destroy`): what `pulumi` does between
 * the language host and the `pulumi-nodejs` resource plugin, with one plugin process per operation.
 *
 * Per registration of a dynamic resource, like the engine's step generator:
 * `Check(olds = prior inputs, news)`; if the resource is in state, `Diff(id, olds = prior outputs,
 * news = checked inputs)` and then `same`, `Update`, or a replacement (re-`Check` with no olds, then
 * `Create` and a deferred `Delete` of the old one, or `Delete` first when `deleteBeforeReplace`); if
 * not, `Create`. A preview calls `Check` and `Diff` only. After the program: resources no longer
 * registered are deleted, dependents first.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as os from "node:os";
import { EngineError, type FailedOperation } from "./engine-error.ts";
import { type EngineService, startEngineService } from "./engine-service.ts";
import type { OperationContext, OperationResult, Step, StepOp } from "./operation.ts";
import { runnerFile, toolsRequireBase } from "./paths.ts";
import { annotateSecrets, type Json, jsonEqual, makeSecret, type PropertyMap, toProviderMap, toProviderWire } from "./properties.ts";
import { type DiffResult, killGroup, ProviderCallError, ProviderHost, processGroupAlive } from "./provider-host.ts";
import { loadPulumiProtos, type PulumiProtos } from "./pulumi-protos.ts";
import {
  type EngineMessage,
  engineUrn,
  type Registration,
  type RegistrationResult,
  type RunnerArgs,
  type RunnerMessage,
  rootStackType,
} from "./runner-protocol.ts";
import { deletionOrder, dependenciesOf, type ResourceState, type StackState } from "./state.ts";

const runnerNodeFlags = ["--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "--disable-warning=ExperimentalWarning"];

/** Whether `type` is a Node.js dynamic resource (`pulumi-nodejs:dynamic:Resource` or `pulumi-nodejs:dynamic/<module>:<Type>`). */
export function isDynamicType(type: string): boolean {
  return type === "pulumi-nodejs:dynamic:Resource" || type.startsWith("pulumi-nodejs:dynamic/");
}

/** Thrown to a registration that arrives after a step failed: the engine starts no new steps then. */
class SkippedError extends Error {}

function keysDiffering(olds: PropertyMap, news: PropertyMap): string[] {
  const keys = new Set([...Object.keys(olds), ...Object.keys(news)]);
  return [...keys].filter((k) => !jsonEqual(olds[k], news[k])).sort();
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

/** At most `limit` tasks at once (unlimited when `limit` is undefined). */
/** `pulumi`'s default `--parallel`: four steps per CPU. */
export const CLI_DEFAULT_PARALLEL = 4 * os.availableParallelism();

class Limiter {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  readonly #limit: number | undefined;
  constructor(limit: number | undefined) {
    this.#limit = limit;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#limit === undefined) return task();
    if (this.#active >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}

/** Runs one operation; never throws for engine errors (they are in `result.errors`). */
export async function runOperation(ctx: OperationContext): Promise<{ result: OperationResult; state: StackState }> {
  const deployment = new Deployment(ctx);
  return deployment.run();
}

class Deployment {
  readonly #ctx: OperationContext;
  readonly #protos: PulumiProtos;
  readonly #preview: boolean;
  readonly #result: OperationResult;
  readonly #prior: Map<string, ResourceState>;
  /** The new state's resources, in registration order. */
  readonly #next = new Map<string, ResourceState>();
  /** Every URN the program registered in this operation, from the moment it asked (not when its step ended). */
  readonly #registered = new Set<string>();
  /** Prior resources already deleted during the run (delete-before-replace). */
  readonly #deletedEarly = new Set<ResourceState>();
  /** Old copies of replaced resources, deleted at the end (create-before-delete). */
  readonly #replacedOld: ResourceState[] = [];
  #engine: EngineService | undefined;
  #hostPromise: Promise<ProviderHost> | undefined;
  #host: ProviderHost | undefined;
  #runner: ChildProcess | undefined;
  /** Registrations still being processed. */
  readonly #inflight = new Set<Promise<RegistrationResult>>();
  /** Resource steps at once (`parallel`). */
  readonly #steps: Limiter;

  constructor(ctx: OperationContext) {
    this.#ctx = ctx;
    this.#protos = loadPulumiProtos(ctx.projectDir);
    this.#preview = ctx.operation === "preview";
    if (ctx.parallel !== undefined && !(Number.isInteger(ctx.parallel) && ctx.parallel >= 1)) {
      throw new RangeError(`parallel must be a whole number of at least 1, got ${ctx.parallel}`);
    }
    // Unset, `parallel` is the CLI's default, as `pulumi` itself: the CLI tier showed an unbounded
    // harness batching 50 invitations into 1 request where the CLI sent 31 (test/cli/scale.test.ts).
    this.#steps = new Limiter(ctx.parallel ?? CLI_DEFAULT_PARALLEL);
    this.#prior = new Map(ctx.prior.resources.filter((r) => !r.pendingDelete).map((r) => [r.urn, r]));
    this.#result = {
      operation: ctx.operation,
      steps: [],
      outputs: {},
      registrations: [],
      invokes: [],
      grpc: [],
      hostLog: { stdout: "", stderr: "" },
      engineLogs: [],
      engineCalls: [],
      program: { stdout: "", stderr: "", uncaught: [] },
      errors: [],
      timings: { totalMs: 0 },
    };
  }

  #urn(parent: string, type: string, name: string): string {
    return engineUrn(this.#ctx.stackName, this.#ctx.projectName, parent, type, name);
  }

  async run(): Promise<{ result: OperationResult; state: StackState }> {
    const started = performance.now();
    let state: StackState = this.#ctx.prior;
    try {
      this.#engine = await startEngineService(
        this.#protos,
        this.#urn("", rootStackType, `${this.#ctx.projectName}-${this.#ctx.stackName}`),
      );
      this.#result.engineLogs = this.#engine.logs;
      this.#result.engineCalls = this.#engine.calls;
      if (this.#ctx.operation === "refresh") state = await this.#refresh();
      else if (this.#ctx.operation === "destroy") state = await this.#destroy();
      else state = await this.#deploy();
    } catch (err) {
      this.#result.errors.push(
        err instanceof EngineError ? err : new EngineError(String((err as Error).message ?? err), { operation: "program" }),
      );
    } finally {
      await this.#shutdown();
      this.#result.timings.totalMs = elapsed(started);
    }
    return { result: this.#result, state };
  }

  // ---- the provider host -------------------------------------------------------------------

  #ensureHost(): Promise<ProviderHost> {
    if (!this.#hostPromise) {
      this.#hostPromise = (async () => {
        const started = performance.now();
        const engine = this.#engine;
        if (!engine) throw new Error("engine service not started");
        const pluginConfig: Record<string, string> = {};
        const args: PropertyMap = {};
        const variables: Record<string, string> = {};
        for (const [key, { value, secret }] of Object.entries(this.#ctx.config)) {
          if (key.startsWith("pulumi-nodejs:")) pluginConfig[key.slice("pulumi-nodejs:".length)] = value;
          // A dynamic provider gets the whole stack config, namespaces kept (deploy.Target.GetPackageConfig).
          args[key] = secret ? makeSecret(value) : value;
          variables[`pulumi-nodejs:config:${key}`] = value;
        }
        const host = await ProviderHost.start({
          protos: this.#protos,
          projectDir: this.#ctx.projectDir,
          projectName: this.#ctx.projectName,
          engineAddress: engine.address,
          env: this.#ctx.env,
          pluginConfig,
          exchanges: this.#result.grpc,
        });
        this.#host = host;
        this.#result.hostLog.pid = host.pid;
        const providerUrn = this.#urn("", "pulumi:providers:pulumi-nodejs", "default");
        try {
          await host.handshake(engine.address, this.#ctx.projectDir);
          await host.getPluginInfo();
          await host.checkConfig(providerUrn, toProviderMap(args));
          await host.configure(providerUrn, randomUUID(), variables, args);
        } catch (err) {
          throw this.#toEngineError("configure", { urn: providerUrn, type: "pulumi:providers:pulumi-nodejs", name: "default" }, err);
        }
        this.#result.timings.hostStartMs = elapsed(started);
        return host;
      })();
    }
    return this.#hostPromise;
  }

  #toEngineError(operation: FailedOperation, resource: { urn: string; type: string; name: string }, err: unknown): EngineError {
    if (err instanceof EngineError) return err;
    const where = { operation, urn: resource.urn, resourceType: resource.type, resourceName: resource.name };
    if (err instanceof ProviderCallError) {
      const partial = err.initFailure ? ` (partially: the resource exists with id "${err.initFailure.id}" but failed to initialize)` : "";
      return new EngineError(`${operation} of ${resource.type} "${resource.name}" failed${partial}: ${err.details}`, {
        ...where,
        grpcCode: err.code,
        grpcMessage: err.details,
        ...(err.initFailure ? { initFailure: err.initFailure } : {}),
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new EngineError(`${operation} of ${resource.type} "${resource.name}" failed: ${message}`, where);
  }

  #step(op: StepOp, resource: { urn: string; type: string; name: string }, id: string, started: number, extra?: Partial<Step>): Step {
    const step: Step = {
      op,
      urn: resource.urn,
      type: resource.type,
      name: resource.name,
      id,
      applied: !this.#preview,
      durationMs: elapsed(started),
      ...extra,
    };
    this.#result.steps.push(step);
    return step;
  }

  // ---- up / preview --------------------------------------------------------------------------

  async #deploy(): Promise<StackState> {
    const programFile = this.#ctx.programFile;
    if (!programFile) throw new EngineError("no program to run", { operation: "program" });
    const started = performance.now();
    // Start the plugin while the program boots (each spends most of a second loading the SDK);
    // a failure surfaces at the first registration that needs it.
    this.#ensureHost().catch(() => undefined);
    let done: Extract<RunnerMessage, { kind: "done" }>;
    try {
      done = await this.#runProgram(programFile);
    } catch (err) {
      // A crashed or timed-out program: what it registered so far still goes into the state.
      const error = err instanceof EngineError ? err : new EngineError(String(err), { operation: "program" });
      this.#result.errors.push(error);
      done = { kind: "done", outputs: {}, error: error.message, uncaught: [] };
    }
    await Promise.allSettled(this.#inflight);
    this.#result.timings.programMs = elapsed(started);
    this.#result.outputs = done.outputs;
    this.#result.program.uncaught = done.uncaught;
    if (done.error !== undefined) this.#result.program.error = done.error;

    const stepFailed = this.#result.errors.length > 0;
    if (!stepFailed && (done.error !== undefined || done.uncaught.length > 0)) {
      const detail = done.error ?? done.uncaught.join("\n");
      this.#result.errors.push(
        new EngineError(`Running program '${programFile}' failed with an unhandled exception:\n${detail}`, {
          operation: "program",
        }),
      );
    }
    // An error logged by the program fails the update too, once the program is done.
    const loggedErrors = this.#result.engineLogs.filter((entry) => entry.severity === "error");
    if (this.#result.errors.length === 0 && loggedErrors.length > 0) {
      const messages = loggedErrors.map((entry) => entry.message).join("\n");
      this.#result.errors.push(new EngineError(`the program logged errors:\n${messages}`, { operation: "program" }));
    }

    // The engine deletes only after a program that ran to completion without errors.
    const deleted = new Set<ResourceState>(this.#deletedEarly);
    if (this.#result.errors.length === 0) {
      const gone = this.#ctx.prior.resources.filter((r) => (r.pendingDelete || !this.#next.has(r.urn)) && !this.#deletedEarly.has(r));
      for (const old of deletionOrder([...gone, ...this.#replacedOld])) {
        const op: StepOp = this.#replacedOld.includes(old) || old.pendingDelete ? "delete-replaced" : "delete";
        try {
          await this.#deleteResource(old, op);
          deleted.add(old);
        } catch (err) {
          this.#result.errors.push(this.#toEngineError("delete", old, err));
          break;
        }
      }
    }

    if (this.#preview) return this.#ctx.prior;
    const resources = [...this.#next.values()];
    for (const old of this.#ctx.prior.resources) {
      if (deleted.has(old)) continue;
      if (this.#replacedOld.includes(old)) resources.push({ ...old, pendingDelete: true });
      else if (!this.#next.has(old.urn) || old.pendingDelete) resources.push(old);
    }
    const outputs = this.#result.errors.length === 0 ? done.outputs : this.#ctx.prior.outputs;
    return { ...this.#ctx.prior, outputs, resources };
  }

  #runProgram(programFile: string): Promise<Extract<RunnerMessage, { kind: "done" }>> {
    const args: RunnerArgs = {
      projectDir: this.#ctx.projectDir,
      programFile,
      project: this.#ctx.projectName,
      stack: this.#ctx.stackName,
      organization: this.#ctx.organization,
      preview: this.#preview,
      toolsRequireBase,
    };
    const config: Record<string, string> = {};
    const secretKeys: string[] = [];
    for (const [key, { value, secret }] of Object.entries(this.#ctx.config)) {
      config[key] = value;
      if (secret) secretKeys.push(key);
    }
    const env: NodeJS.ProcessEnv = {
      ...this.#ctx.env,
      PULUMI_CONFIG: JSON.stringify(config),
      PULUMI_CONFIG_SECRET_KEYS: JSON.stringify(secretKeys),
      PULUMI_NODEJS_PROJECT: this.#ctx.projectName,
      PULUMI_NODEJS_STACK: this.#ctx.stackName,
      PULUMI_NODEJS_ORGANIZATION: this.#ctx.organization,
      PULUMI_NODEJS_ROOT_DIRECTORY: this.#ctx.projectDir,
      PULUMI_NODEJS_DRY_RUN: String(this.#preview),
      // As the language host does: the program's `pulumi.log` goes to the engine's `Log`.
      ...(this.#engine ? { PULUMI_NODEJS_ENGINE: this.#engine.address } : {}),
    };
    const child = spawn(process.execPath, [...runnerNodeFlags, runnerFile, JSON.stringify(args)], {
      cwd: this.#ctx.projectDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env,
    });
    this.#runner = child;
    if (child.pid !== undefined) this.#result.program.pid = child.pid;
    child.stdout?.on("data", (chunk: Buffer) => {
      this.#result.program.stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#result.program.stderr += chunk.toString("utf8");
    });
    const reply = (message: EngineMessage): void => {
      if (child.connected) child.send(message);
    };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        killGroup(child.pid, "SIGKILL");
        reject(new EngineError(`the program did not finish within ${this.#ctx.timeoutMs} ms`, { operation: "timeout" }));
      }, this.#ctx.timeoutMs);
      child.on("message", (message: RunnerMessage) => {
        if (message.kind === "done") {
          clearTimeout(timer);
          resolve(message);
        } else if (message.kind === "register") {
          this.#result.registrations.push(message.registration);
          const registering = this.#steps.run(() => this.#register(message.registration));
          this.#inflight.add(registering);
          registering.finally(() => this.#inflight.delete(registering)).catch(() => undefined);
          registering.then(
            (result) => reply({ kind: "registered", seq: message.seq, result }),
            (err: unknown) => {
              const error = err instanceof Error ? err.message : String(err);
              if (!(err instanceof SkippedError) && !this.#result.errors.includes(err as EngineError)) {
                this.#result.errors.push(err instanceof EngineError ? err : this.#toEngineError("register", message.registration, err));
              }
              reply({ kind: "registered", seq: message.seq, error });
            },
          );
        } else if (message.kind === "invoke") {
          this.#result.invokes.push({ token: message.token, args: message.args });
          Promise.resolve(this.#ctx.invoke ? this.#ctx.invoke(message.token, message.args) : {}).then(
            (result) => reply({ kind: "invoked", seq: message.seq, result }),
            (err: unknown) => reply({ kind: "invoked", seq: message.seq, error: String((err as Error).message ?? err) }),
          );
        }
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(new EngineError(`could not start the program runner: ${err.message}`, { operation: "program" }));
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        // `done` always arrives before a clean exit; anything else is a crash of the runner.
        reject(
          new EngineError(`the program runner exited (code ${code}, signal ${signal}) without finishing:\n${this.#result.program.stderr}`, {
            operation: "program",
          }),
        );
      });
    });
  }

  /**
   * The engine refuses a URN registered twice in one operation (two resources of one type and
   * name), in its own words, even while the first one's step is still running.
   */
  #refuseDuplicate(reg: Registration): void {
    if (!this.#registered.has(reg.urn)) return;
    throw new EngineError(`Duplicate resource URN '${reg.urn}'; try giving it a unique name`, {
      operation: "register",
      urn: reg.urn,
      resourceType: reg.type,
      resourceName: reg.name,
    });
  }

  async #register(reg: Registration): Promise<RegistrationResult> {
    const started = performance.now();
    this.#refuseDuplicate(reg);
    this.#registered.add(reg.urn);
    if (this.#result.errors.length > 0) throw new SkippedError(`skipped ${reg.urn}: an earlier step failed`);
    const old = this.#prior.get(reg.urn);

    if (!reg.custom) {
      this.#next.set(reg.urn, this.#entry(reg, "", reg.inputs, reg.inputs));
      this.#step(old ? "same" : "create", reg, "", started);
      return { id: "", state: reg.inputs };
    }
    if (!isDynamicType(reg.type)) {
      throw new EngineError(`the harness drives only dynamic resources, not ${reg.type}`, {
        operation: "register",
        urn: reg.urn,
        resourceType: reg.type,
        resourceName: reg.name,
      });
    }
    if (reg.importId !== undefined) {
      throw new EngineError("importing resources is not supported by the harness", { operation: "register", urn: reg.urn });
    }
    if (reg.readId !== undefined) return this.#readExternal(reg, reg.readId, started);

    const host = await this.#ensureHost();
    let news = reg.inputs;
    if (old && reg.options.ignoreChanges.length > 0) {
      news = { ...news };
      for (const key of reg.options.ignoreChanges) {
        if (key in old.inputs) news[key] = old.inputs[key] as Json;
      }
    }
    const checked = await this.#check(host, reg, old ? old.inputs : {}, news);
    if (!old) return this.#create(host, reg, checked, "create", started);

    let diff: DiffResult;
    try {
      diff = await host.diff(
        reg.urn,
        reg.type,
        reg.name,
        old.id,
        toProviderMap(old.outputs),
        toProviderMap(checked),
        toProviderMap(old.inputs),
      );
    } catch (err) {
      throw this.#toEngineError("diff", reg, err);
    }
    let op: "same" | "update" | "replace";
    let source: "provider" | "engine" = "provider";
    let changed = diff.diffs;
    if (diff.changes === "unknown") {
      // The provider could not tell: the engine compares old and new inputs itself.
      source = "engine";
      changed = keysDiffering(toProviderMap(old.inputs), toProviderMap(checked));
      op = changed.length > 0 ? "update" : "same";
    } else {
      op = diff.changes === "none" ? "same" : diff.replaces.length > 0 ? "replace" : "update";
    }
    const replaceOn = reg.options.replaceOnChanges;
    if (op === "update" && (replaceOn.includes("*") || changed.some((k) => replaceOn.includes(k)))) op = "replace";
    // A resource that failed to initialize gets an update even without changes, to finish it.
    if (op === "same" && old.initErrors.length > 0) op = "update";
    const stepDiff = { ...diff, source };

    if (op === "same") {
      this.#next.set(reg.urn, this.#entry(reg, old.id, checked, old.outputs));
      this.#step("same", reg, old.id, started, { diff: stepDiff });
      return { id: old.id, state: old.outputs };
    }
    if (op === "update") return this.#update(host, reg, old, checked, stepDiff, started);

    // Replace: the engine checks again with no olds, so defaults are computed afresh.
    const fresh = await this.#check(host, reg, {}, news);
    const deleteFirst = reg.options.deleteBeforeReplace ?? diff.deleteBeforeReplace;
    if (deleteFirst) {
      try {
        await this.#deleteResource(old, "delete-replaced");
      } catch (err) {
        throw this.#toEngineError("delete", old, err);
      }
      this.#deletedEarly.add(old);
    } else {
      this.#replacedOld.push(old);
    }
    return this.#create(host, reg, fresh, "replace", started, stepDiff);
  }

  #entry(reg: Registration, id: string, inputs: PropertyMap, outputs: PropertyMap): ResourceState {
    return {
      urn: reg.urn,
      type: reg.type,
      name: reg.name,
      custom: reg.custom,
      id,
      inputs,
      outputs,
      parent: reg.parent,
      dependencies: reg.dependencies,
      propertyDependencies: reg.propertyDependencies,
      external: reg.readId !== undefined,
      retainOnDelete: reg.options.retainOnDelete,
      protect: reg.options.protect,
      pendingDelete: false,
      initErrors: [],
    };
  }

  async #check(host: ProviderHost, reg: Registration, olds: PropertyMap, news: PropertyMap): Promise<PropertyMap> {
    let response: Awaited<ReturnType<ProviderHost["check"]>>;
    try {
      response = await host.check(reg.urn, reg.type, reg.name, toProviderMap(olds), toProviderMap(news));
    } catch (err) {
      throw this.#toEngineError("check", reg, err);
    }
    if (response.failures.length > 0) {
      const reasons = response.failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason));
      throw new EngineError(`check of ${reg.type} "${reg.name}" failed: ${reasons.join("; ")}`, {
        operation: "check",
        urn: reg.urn,
        resourceType: reg.type,
        resourceName: reg.name,
      });
    }
    // The host does not accept secrets: the engine puts the secretness of the news back.
    return annotateSecrets(response.inputs, news);
  }

  async #create(
    host: ProviderHost,
    reg: Registration,
    checked: PropertyMap,
    op: "create" | "replace",
    started: number,
    diff?: Step["diff"],
  ): Promise<RegistrationResult> {
    const extra: Partial<Step> = diff ? { diff } : {};
    if (this.#preview) {
      this.#next.set(reg.urn, this.#entry(reg, "", checked, checked));
      this.#step(op, reg, "", started, extra);
      return { id: "", state: checked };
    }
    let created: { id: string; properties: PropertyMap };
    try {
      created = await host.create(reg.urn, reg.type, reg.name, toProviderMap(checked));
    } catch (err) {
      const error = this.#toEngineError("create", reg, err);
      if (error.initFailure) {
        const partial = this.#entry(reg, error.initFailure.id, checked, annotateSecrets(error.initFailure.properties, checked));
        partial.initErrors = error.initFailure.reasons;
        this.#next.set(reg.urn, partial);
      }
      this.#step(op, reg, error.initFailure?.id ?? "", started, { ...extra, error: error.message });
      throw error;
    }
    if (!created.id) {
      throw new EngineError(`plugin for package 'pulumi-nodejs' returned empty resource.ID from create '${reg.urn}'`, {
        operation: "create",
        urn: reg.urn,
        resourceType: reg.type,
        resourceName: reg.name,
      });
    }
    const outputs = annotateSecrets(created.properties, checked);
    this.#next.set(reg.urn, this.#entry(reg, created.id, checked, outputs));
    this.#step(op, reg, created.id, started, extra);
    return { id: created.id, state: outputs };
  }

  async #update(
    host: ProviderHost,
    reg: Registration,
    old: ResourceState,
    checked: PropertyMap,
    diff: NonNullable<Step["diff"]>,
    started: number,
  ): Promise<RegistrationResult> {
    if (this.#preview) {
      // A provider without preview support: the engine shows the new inputs as the outputs.
      this.#next.set(reg.urn, this.#entry(reg, old.id, checked, checked));
      this.#step("update", reg, old.id, started, { diff });
      return { id: old.id, state: checked };
    }
    let updated: { properties: PropertyMap };
    try {
      updated = await host.update(
        reg.urn,
        reg.type,
        reg.name,
        old.id,
        toProviderMap(old.outputs),
        toProviderMap(checked),
        toProviderMap(old.inputs),
      );
    } catch (err) {
      const error = this.#toEngineError("update", reg, err);
      if (error.initFailure) {
        const partial = this.#entry(reg, old.id, checked, annotateSecrets(error.initFailure.properties, checked));
        partial.initErrors = error.initFailure.reasons;
        this.#next.set(reg.urn, partial);
      } else {
        this.#next.set(reg.urn, { ...old });
      }
      this.#step("update", reg, old.id, started, { diff, error: error.message });
      throw error;
    }
    const outputs = annotateSecrets(updated.properties, checked);
    this.#next.set(reg.urn, this.#entry(reg, old.id, checked, outputs));
    this.#step("update", reg, old.id, started, { diff });
    return { id: old.id, state: outputs };
  }

  async #readExternal(reg: Registration, id: string, started: number): Promise<RegistrationResult> {
    const host = await this.#ensureHost();
    let read: Awaited<ReturnType<ProviderHost["read"]>>;
    try {
      // A `get`: no prior outputs, only the given properties as inputs.
      read = await host.read(reg.urn, reg.type, reg.name, id, undefined, toProviderMap(reg.inputs));
    } catch (err) {
      throw this.#toEngineError("read", reg, err);
    }
    if (!read.id) {
      throw new EngineError(`resource '${id}' does not exist`, {
        operation: "read",
        urn: reg.urn,
        resourceType: reg.type,
        resourceName: reg.name,
      });
    }
    const outputs = annotateSecrets(read.properties, reg.inputs);
    this.#next.set(reg.urn, this.#entry(reg, read.id, read.inputs ?? reg.inputs, outputs));
    this.#step("read", reg, read.id, started);
    return { id: read.id, state: outputs };
  }

  /** Deletes (or, in a preview, records the deletion of) a resource of the prior state. */
  async #deleteResource(old: ResourceState, op: "delete" | "delete-replaced"): Promise<void> {
    const started = performance.now();
    if (old.protect) {
      throw new EngineError(`resource ${old.urn} cannot be deleted because it is protected`, {
        operation: "delete",
        urn: old.urn,
        resourceType: old.type,
        resourceName: old.name,
      });
    }
    // Components, resources read with `get`, and retained ones leave the state without a provider call.
    if (!this.#preview && old.custom && !old.external && !old.retainOnDelete) {
      const host = await this.#ensureHost();
      try {
        await host.delete(old.urn, old.type, old.name, old.id, toProviderMap(old.outputs), toProviderMap(old.inputs));
      } catch (err) {
        const error = this.#toEngineError("delete", old, err);
        this.#step(op, old, old.id, started, { error: error.message });
        throw error;
      }
    }
    this.#step(op, old, old.id, started);
  }

  // ---- refresh / destroy ---------------------------------------------------------------------

  async #refresh(): Promise<StackState> {
    // One slot per prior resource keeps the state in creation order whatever order reads end in.
    const slots: Array<ResourceState | undefined> = [];
    const readOne = async (old: ResourceState, slot: number): Promise<void> => {
      const started = performance.now();
      if (!old.custom || !isDynamicType(old.type)) {
        slots[slot] = old;
        this.#step("same", old, old.id, started);
        return;
      }
      try {
        const host = await this.#ensureHost();
        const read = await host.read(old.urn, old.type, old.name, old.id, toProviderMap(old.outputs), toProviderMap(old.inputs));
        if (!read.id) {
          this.#step("delete", old, old.id, started);
          return;
        }
        const outputs = annotateSecrets(read.properties, old.outputs);
        const inputs = read.inputs ? annotateSecrets(read.inputs, old.inputs) : old.inputs;
        const changed =
          read.id !== old.id ||
          !jsonEqual(toProviderWire(outputs), toProviderWire(old.outputs)) ||
          !jsonEqual(toProviderWire(inputs), toProviderWire(old.inputs));
        slots[slot] = { ...old, id: read.id, outputs, inputs };
        this.#step(changed ? "update" : "same", old, read.id, started);
      } catch (err) {
        const error = this.#toEngineError("read", old, err);
        this.#result.errors.push(error);
        this.#step("same", old, old.id, started, { error: error.message, applied: false });
        slots[slot] = old;
      }
    };
    const prior = this.#ctx.prior.resources;
    // Reads run concurrently, as under the CLI: `pulumi refresh` reads up to --parallel resources at
    // once. (The harness once read one at a time; the CLI tier showed the difference: concurrent
    // reads let one list serve several, test/cli/examples.test.ts.)
    await Promise.all(prior.map((old, slot) => this.#steps.run(() => readOne(old, slot))));
    const resources = slots.filter((r): r is ResourceState => r !== undefined);
    return { ...this.#ctx.prior, resources };
  }

  async #destroy(): Promise<StackState> {
    const remaining = new Set(this.#ctx.prior.resources);
    await this.#destroyInParallel(remaining);
    const resources = this.#ctx.prior.resources.filter((r) => remaining.has(r));
    return { ...this.#ctx.prior, outputs: resources.length === 0 ? {} : this.#ctx.prior.outputs, resources };
  }

  /**
   * `destroy`: each resource is deleted once every resource that depends on it
   * is, at most `parallel` at once (as the engine does); after the first failure no delete starts.
   */
  async #destroyInParallel(remaining: Set<ResourceState>): Promise<void> {
    const prior = this.#ctx.prior.resources;
    const dependents = new Map<string, ResourceState[]>();
    for (const r of prior) {
      for (const dep of dependenciesOf(r)) if (dep !== r.urn) dependents.set(dep, [...(dependents.get(dep) ?? []), r]);
    }
    let failed = false;
    const started = new Map<ResourceState, Promise<boolean>>();
    const remove = (old: ResourceState): Promise<boolean> => {
      let done = started.get(old);
      if (!done) {
        done = (async () => {
          const before = await Promise.all((dependents.get(old.urn) ?? []).map(remove));
          if (before.includes(false)) return false;
          return this.#steps.run(async () => {
            if (failed) return false;
            try {
              await this.#deleteResource(old, old.pendingDelete ? "delete-replaced" : "delete");
              remaining.delete(old);
              return true;
            } catch (err) {
              failed = true;
              this.#result.errors.push(this.#toEngineError("delete", old, err));
              return false;
            }
          });
        })();
        started.set(old, done);
      }
      return done;
    };
    await Promise.all(deletionOrder(prior).map(remove));
  }

  // ---- teardown ------------------------------------------------------------------------------

  async #shutdown(): Promise<void> {
    const runner = this.#runner;
    if (runner?.pid !== undefined) {
      if (runner.exitCode === null && runner.signalCode === null) {
        const exited = new Promise<void>((resolve) => runner.once("exit", () => resolve()));
        const timer = setTimeout(() => killGroup(runner.pid, "SIGKILL"), 2_000);
        await exited;
        clearTimeout(timer);
      }
      if (processGroupAlive(runner.pid)) killGroup(runner.pid, "SIGKILL");
    }
    if (this.#hostPromise) {
      try {
        await this.#hostPromise;
      } catch {
        // Recorded already; the process (if any) is closed below.
      }
    }
    if (this.#host) {
      await this.#host.close();
      this.#result.hostLog.stdout = this.#host.stdout;
      this.#result.hostLog.stderr = this.#host.stderr;
      const exit = this.#host.exit;
      if (exit) this.#result.hostLog.exit = exit;
    }
    await this.#engine?.close();
  }
}
