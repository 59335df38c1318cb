/**
 * The real dynamic-provider host of `@pulumi/pulumi`, started the way the CLI starts the
 * `pulumi-resource-pulumi-nodejs` plugin, and a gRPC client for it that records every exchange.
 *
 * The CLI's shim is `node "$(node -e "console.log(require.resolve('@pulumi/pulumi/cmd/dynamic-provider'))")" $@`,
 * run in the program's directory with the engine's address as argument; the plugin prints its port as
 * the first line of stdout. The cwd matters: the host `require`s the serialized provider with
 * `require-from-string`, whose module paths are `<cwd>/node_modules` and up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import type { Json, PropertyMap } from "./properties.ts";
import type { PulumiProtos } from "./pulumi-protos.ts";

/** One request/response pair with the host, as plain JSON. */
export interface GrpcExchange {
  /** `ResourceProvider` method: `Configure`, `Check`, `Diff`, `Create`, `Read`, `Update`, `Delete`, ... */
  method: string;
  urn?: string;
  request: Json;
  response?: Json;
  /** Set when the call failed: the gRPC status code and message (details). */
  error?: { code: number; message: string };
  durationMs: number;
}

/** Why a host call failed: the gRPC status, and for a partial create/update the init-failure details. */
export class ProviderCallError extends Error {
  readonly method: string;
  readonly code: number;
  readonly details: string;
  readonly initFailure?: InitFailure;

  constructor(method: string, code: number, details: string, initFailure?: InitFailure) {
    super(`${method}: gRPC ${grpc.status[code] ?? code} (${code}): ${details}`);
    this.name = "ProviderCallError";
    this.method = method;
    this.code = code;
    this.details = details;
    if (initFailure) this.initFailure = initFailure;
  }
}

/** `pulumirpc.ErrorResourceInitFailed`: the resource exists, but did not initialize. */
export interface InitFailure {
  id: string;
  properties: PropertyMap;
  reasons: string[];
}

/** `DiffResponse` as plain data. */
export interface DiffResult {
  changes: "unknown" | "none" | "some";
  replaces: string[];
  deleteBeforeReplace: boolean;
  diffs: string[];
  stables: string[];
}

/** Options for {@link ProviderHost.start}. */
export interface ProviderHostOptions {
  protos: PulumiProtos;
  projectDir: string;
  projectName: string;
  engineAddress: string;
  /** The environment of the host (the CLI passes its own, plus the variables set below). */
  env: NodeJS.ProcessEnv;
  /** Stack config keys in the `pulumi-nodejs` namespace, which the CLI passes as `PULUMI_CONFIG`. */
  pluginConfig: Record<string, string>;
  /** Where exchanges are appended (shared by the operation). */
  exchanges: GrpcExchange[];
  startTimeoutMs?: number;
}

type RawCallback = (err: grpc.ServiceError | null, response: unknown) => void;
type RawClient = grpc.Client & Record<string, (req: unknown, callback: RawCallback) => void>;

const diffChanges = ["unknown", "none", "some"] as const;

/** A running host process and its client. */
export class ProviderHost {
  readonly pid: number;
  readonly port: number;
  readonly #client: RawClient;
  readonly #protos: PulumiProtos;
  readonly #exchanges: GrpcExchange[];
  #stdoutText = "";
  #stderrText = "";
  #exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  readonly #exited: Promise<void>;

  constructor(child: ChildProcess, port: number, options: ProviderHostOptions, firstOutput: string) {
    this.pid = child.pid ?? -1;
    this.port = port;
    this.#protos = options.protos;
    this.#exchanges = options.exchanges;
    this.#stdoutText = firstOutput;
    child.stdout?.on("data", (chunk: Buffer) => {
      this.#stdoutText += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#stderrText += chunk.toString("utf8");
    });
    this.#exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.#exitInfo = { code: child.exitCode, signal: child.signalCode };
        resolve();
        return;
      }
      child.once("exit", (code, signal) => {
        this.#exitInfo = { code, signal };
        resolve();
      });
    });
    const Client = grpc.makeGenericClientConstructor(
      options.protos.providerGrpc.ResourceProviderService as unknown as grpc.ServiceDefinition,
      "ResourceProvider",
    );
    this.#client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 400 * 1024 * 1024,
      "grpc.max_send_message_length": 400 * 1024 * 1024,
    }) as unknown as RawClient;
  }

  /** Spawns the host detached (its own process group) and waits for its port. */
  static async start(options: ProviderHostOptions): Promise<ProviderHost> {
    const env: NodeJS.ProcessEnv = {
      ...options.env,
      PULUMI_NODEJS_PROJECT: options.projectName,
      PULUMI_PROJECT: options.projectName,
      PULUMI_CONFIG: JSON.stringify(options.pluginConfig),
    };
    const child = spawn(process.execPath, [options.protos.hostEntry, options.engineAddress], {
      cwd: options.projectDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    let stdout = "";
    let stderr = "";
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        fail(new Error(`dynamic-provider host printed no port within ${options.startTimeoutMs ?? 20_000} ms`));
      }, options.startTimeoutMs ?? 20_000);
      const cleanup = (): void => {
        clearTimeout(timer);
        child.stdout?.off("data", onStdout);
        child.stderr?.off("data", onStderr);
        child.off("exit", onExit);
        child.off("error", fail);
      };
      const fail = (err: Error): void => {
        cleanup();
        killGroup(child.pid, "SIGKILL");
        reject(new Error(`${err.message}\nhost stderr:\n${stderr}`));
      };
      const onStdout = (chunk: Buffer): void => {
        stdout += chunk.toString("utf8");
        const newline = stdout.indexOf("\n");
        if (newline < 0) return;
        const first = stdout.slice(0, newline).trim();
        const parsed = Number.parseInt(first, 10);
        cleanup();
        if (!/^\d+$/.test(first) || parsed <= 0) {
          killGroup(child.pid, "SIGKILL");
          reject(new Error(`dynamic-provider host's first line is not a port: ${JSON.stringify(first)}`));
          return;
        }
        resolve(parsed);
      };
      const onStderr = (chunk: Buffer): void => {
        stderr += chunk.toString("utf8");
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
        fail(new Error(`dynamic-provider host exited before printing its port (code ${code}, signal ${signal})`));
      };
      child.stdout?.on("data", onStdout);
      child.stderr?.on("data", onStderr);
      child.once("exit", onExit);
      child.once("error", fail);
    });
    const host = new ProviderHost(child, port, options, stdout);
    host.#stderrText = stderr;
    return host;
  }

  /** Everything the host wrote to stdout (the port line first). */
  get stdout(): string {
    return this.#stdoutText;
  }

  /** Everything the host wrote to stderr (the host `console.error`s provider exceptions of most calls). */
  get stderr(): string {
    return this.#stderrText;
  }

  /** How the process ended, once it has. */
  get exit(): { code: number | null; signal: NodeJS.Signals | null } | undefined {
    return this.#exitInfo;
  }

  #struct(value: PropertyMap): InstanceType<PulumiProtos["struct"]["Struct"]> {
    return this.#protos.struct.Struct.fromJavaScript(value as Parameters<PulumiProtos["struct"]["Struct"]["fromJavaScript"]>[0]);
  }

  #call<T>(
    method: string,
    rpcName: string,
    request: unknown,
    requestJson: Json,
    urn: string | undefined,
    toJson: (response: T) => Json,
  ): Promise<T> {
    const started = performance.now();
    const exchange: GrpcExchange = { method, request: requestJson, durationMs: 0 };
    if (urn !== undefined) exchange.urn = urn;
    this.#exchanges.push(exchange);
    return new Promise<T>((resolve, reject) => {
      const fn = this.#client[rpcName];
      if (!fn) {
        reject(new Error(`no ${rpcName} on ResourceProvider client`));
        return;
      }
      fn.call(this.#client, request, (err, response) => {
        exchange.durationMs = Math.round(performance.now() - started);
        if (err) {
          exchange.error = { code: err.code, message: err.details };
          reject(new ProviderCallError(method, err.code, err.details, this.#initFailureOf(err)));
          return;
        }
        exchange.response = toJson(response as T);
        resolve(response as T);
      });
    });
  }

  #initFailureOf(err: grpc.ServiceError): InitFailure | undefined {
    const raw = err.metadata?.get("grpc-status-details-bin")[0];
    if (!raw || typeof raw === "string") return undefined;
    const status = this.#protos.status.Status.deserializeBinary(new Uint8Array(raw));
    for (const detail of status.getDetailsList()) {
      if (!detail.getTypeUrl().endsWith("pulumirpc.ErrorResourceInitFailed")) continue;
      const failed = this.#protos.provider.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
      return {
        id: failed.getId(),
        properties: (failed.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
        reasons: failed.getReasonsList(),
      };
    }
    return undefined;
  }

  /** `Handshake` (the host answers UNIMPLEMENTED, and the engine falls back to `Configure`). */
  async handshake(engineAddress: string, projectDir: string): Promise<boolean> {
    const req = new this.#protos.provider.ProviderHandshakeRequest()
      .setEngineAddress(engineAddress)
      .setRootDirectory(projectDir)
      .setProgramDirectory(projectDir)
      .setConfigureWithUrn(true)
      .setSupportsViews(true)
      .setSupportsRefreshBeforeUpdate(true);
    try {
      await this.#call("Handshake", "handshake", req, { engineAddress, rootDirectory: projectDir }, undefined, () => ({}));
      return true;
    } catch (err) {
      if (err instanceof ProviderCallError && err.code === grpc.status.UNIMPLEMENTED) return false;
      throw err;
    }
  }

  /** `GetPluginInfo`: the SDK version. */
  async getPluginInfo(): Promise<string> {
    const resp = await this.#call<InstanceType<PulumiProtos["plugin"]["PluginInfo"]>>(
      "GetPluginInfo",
      "getPluginInfo",
      new this.#protos.empty.Empty(),
      {},
      undefined,
      (r) => ({ version: r.getVersion() }),
    );
    return resp.getVersion();
  }

  /** `Configure` as the engine sends it to a dynamic provider: every stack config key, namespace kept. */
  async configure(
    providerUrn: string,
    providerId: string,
    variables: Record<string, string>,
    args: PropertyMap,
  ): Promise<{ acceptSecrets: boolean; acceptResources: boolean; supportsPreview: boolean }> {
    const req = new this.#protos.provider.ConfigureRequest()
      .setArgs(this.#struct(args))
      .setAcceptsecrets(true)
      .setAcceptresources(true)
      .setSendsOldInputs(true)
      .setSendsOldInputsToDelete(true)
      .setUrn(providerUrn)
      .setId(providerId)
      .setName("default")
      .setType("pulumi:providers:pulumi-nodejs");
    for (const [k, v] of Object.entries(variables)) req.getVariablesMap().set(k, v);
    const resp = await this.#call<InstanceType<PulumiProtos["provider"]["ConfigureResponse"]>>(
      "Configure",
      "configure",
      req,
      { urn: providerUrn, id: providerId, variables, args, acceptSecrets: true, acceptResources: true },
      providerUrn,
      (r) => ({
        acceptSecrets: r.getAcceptsecrets(),
        acceptResources: r.getAcceptresources(),
        supportsPreview: r.getSupportspreview(),
        acceptOutputs: r.getAcceptoutputs(),
      }),
    );
    return {
      acceptSecrets: resp.getAcceptsecrets(),
      acceptResources: resp.getAcceptresources(),
      supportsPreview: resp.getSupportspreview(),
    };
  }

  /** `CheckConfig` for the default provider (the host answers UNIMPLEMENTED; the engine keeps the news). */
  async checkConfig(providerUrn: string, news: PropertyMap): Promise<void> {
    const req = new this.#protos.provider.CheckRequest()
      .setUrn(providerUrn)
      .setName("default")
      .setType("pulumi:providers:pulumi-nodejs")
      .setOlds(this.#struct({}))
      .setNews(this.#struct(news));
    try {
      await this.#call("CheckConfig", "checkConfig", req, { urn: providerUrn, olds: {}, news }, providerUrn, () => ({}));
    } catch (err) {
      if (err instanceof ProviderCallError && err.code === grpc.status.UNIMPLEMENTED) return;
      throw err;
    }
  }

  /** `Check(olds, news)`: the provider's validated inputs and failures. */
  async check(
    urn: string,
    type: string,
    name: string,
    olds: PropertyMap,
    news: PropertyMap,
  ): Promise<{ inputs: PropertyMap; failures: Array<{ property: string; reason: string }> }> {
    const seed = randomBytes(32);
    const req = new this.#protos.provider.CheckRequest()
      .setUrn(urn)
      .setName(name)
      .setType(type)
      .setOlds(this.#struct(olds))
      .setNews(this.#struct(news))
      .setRandomseed(new Uint8Array(seed));
    const toResult = (r: InstanceType<PulumiProtos["provider"]["CheckResponse"]>) => ({
      inputs: (r.getInputs()?.toJavaScript() ?? {}) as PropertyMap,
      failures: r.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    });
    const resp = await this.#call(
      "Check",
      "check",
      req,
      { urn, name, type, olds, news, randomSeed: seed.toString("base64") },
      urn,
      toResult,
    );
    return toResult(resp);
  }

  /** `Diff(id, olds = old outputs, news = checked inputs, oldInputs)`. */
  async diff(
    urn: string,
    type: string,
    name: string,
    id: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap,
  ): Promise<DiffResult> {
    const req = new this.#protos.provider.DiffRequest()
      .setId(id)
      .setUrn(urn)
      .setName(name)
      .setType(type)
      .setOlds(this.#struct(olds))
      .setNews(this.#struct(news))
      .setOldInputs(this.#struct(oldInputs));
    const toResult = (r: InstanceType<PulumiProtos["provider"]["DiffResponse"]>): DiffResult => ({
      changes: diffChanges[r.getChanges()] ?? "unknown",
      replaces: r.getReplacesList(),
      deleteBeforeReplace: r.getDeletebeforereplace(),
      diffs: r.getDiffsList(),
      stables: r.getStablesList(),
    });
    const resp = await this.#call(
      "Diff",
      "diff",
      req,
      { urn, name, type, id, olds, news, oldInputs },
      urn,
      (r: InstanceType<PulumiProtos["provider"]["DiffResponse"]>) => ({ ...toResult(r) }),
    );
    return toResult(resp);
  }

  /** `Create(properties = checked inputs)`: the id and outputs. */
  async create(urn: string, type: string, name: string, properties: PropertyMap): Promise<{ id: string; properties: PropertyMap }> {
    const req = new this.#protos.provider.CreateRequest()
      .setUrn(urn)
      .setName(name)
      .setType(type)
      .setProperties(this.#struct(properties))
      .setPreview(false);
    const toResult = (r: InstanceType<PulumiProtos["provider"]["CreateResponse"]>) => ({
      id: r.getId(),
      properties: (r.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
    });
    const resp = await this.#call("Create", "create", req, { urn, name, type, properties, preview: false }, urn, toResult);
    return toResult(resp);
  }

  /** `Read(id, properties = prior outputs, inputs = prior inputs)`; an empty id means the resource is gone. */
  async read(
    urn: string,
    type: string,
    name: string,
    id: string,
    properties: PropertyMap | undefined,
    inputs: PropertyMap,
  ): Promise<{ id: string; properties: PropertyMap; inputs?: PropertyMap }> {
    const req = new this.#protos.provider.ReadRequest().setId(id).setUrn(urn).setName(name).setType(type).setInputs(this.#struct(inputs));
    if (properties) req.setProperties(this.#struct(properties));
    const toResult = (r: InstanceType<PulumiProtos["provider"]["ReadResponse"]>) => {
      const result: { id: string; properties: PropertyMap; inputs?: PropertyMap } = {
        id: r.getId(),
        properties: (r.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
      };
      const ins = r.getInputs();
      if (ins) result.inputs = ins.toJavaScript() as PropertyMap;
      return result;
    };
    const resp = await this.#call("Read", "read", req, { urn, name, type, id, properties: properties ?? null, inputs }, urn, toResult);
    return toResult(resp);
  }

  /** `Update(id, olds = old outputs, news = checked inputs, oldInputs)`: the new outputs. */
  async update(
    urn: string,
    type: string,
    name: string,
    id: string,
    olds: PropertyMap,
    news: PropertyMap,
    oldInputs: PropertyMap,
  ): Promise<{ properties: PropertyMap }> {
    const req = new this.#protos.provider.UpdateRequest()
      .setId(id)
      .setUrn(urn)
      .setName(name)
      .setType(type)
      .setOlds(this.#struct(olds))
      .setNews(this.#struct(news))
      .setOldInputs(this.#struct(oldInputs))
      .setPreview(false);
    const toResult = (r: InstanceType<PulumiProtos["provider"]["UpdateResponse"]>) => ({
      properties: (r.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
    });
    const resp = await this.#call("Update", "update", req, { urn, name, type, id, olds, news, oldInputs, preview: false }, urn, toResult);
    return toResult(resp);
  }

  /** `Delete(id, properties = old outputs, oldInputs)`. */
  async delete(urn: string, type: string, name: string, id: string, properties: PropertyMap, oldInputs: PropertyMap): Promise<void> {
    const req = new this.#protos.provider.DeleteRequest()
      .setId(id)
      .setUrn(urn)
      .setName(name)
      .setType(type)
      .setProperties(this.#struct(properties))
      .setOldInputs(this.#struct(oldInputs));
    await this.#call("Delete", "delete", req, { urn, name, type, id, properties, oldInputs }, urn, () => ({}));
  }

  /** Closes the client and ends the host's whole process group (SIGTERM, then SIGKILL after `graceMs`). */
  async close(graceMs = 2_000): Promise<void> {
    this.#client.close();
    if (!this.#exitInfo) {
      killGroup(this.pid, "SIGTERM");
      const timer = setTimeout(() => killGroup(this.pid, "SIGKILL"), graceMs);
      await this.#exited;
      clearTimeout(timer);
    }
    // The leader is gone; make sure nothing else of its group lingers.
    if (processGroupAlive(this.pid)) killGroup(this.pid, "SIGKILL");
  }
}

/** Signals every process of group `pgid` (ignores a group that is already gone). */
export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (pgid === undefined || pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Whether any process of group `pgid` is still alive (zombies of our own children count until reaped). */
export function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
