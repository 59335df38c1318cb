/**
 * The language host's half of the harness, run as a child process with plain `node` (types stripped):
 * `node program-runner.ts '<RunnerArgs JSON>'`, cwd = the project, an IPC channel to the engine.
 *
 * It loads the project's own copy of `@pulumi/pulumi`, installs mocks with `setMocks`, and runs the
 * program inside `runInPulumiStack` like `pulumi-language-nodejs` does. Every registration goes to the
 * engine over IPC; the mock's answer is whatever the engine got from the real dynamic-provider host.
 * Stack config arrives the way the language host passes it: `PULUMI_CONFIG` and
 * `PULUMI_CONFIG_SECRET_KEYS` in the environment.
 */
import * as fs from "node:fs";
import * as nodeModule from "node:module";
import * as path from "node:path";
import type * as PulumiSdk from "@pulumi/pulumi";
import type { ReadResourceRequest, RegisterResourceOutputsRequest, RegisterResourceRequest } from "@pulumi/pulumi/proto/resource_pb";
import type * as TypeScript from "typescript";
import type { Json, PropertyMap } from "./properties.ts";
import {
  type EngineMessage,
  engineUrn,
  type Registration,
  type RegistrationResult,
  type RunnerArgs,
  type RunnerMessage,
  rootStackType,
} from "./runner-protocol.ts";

type Callback = (err: unknown, response: unknown) => void;

/** The parts of the SDK's `MockMonitor` the runner wraps. */
interface PatchableMonitor {
  newUrn(parent: string, type: string, name: string): string;
  registerResource(req: RegisterResourceRequest, callback: Callback): Promise<void>;
  readResource(req: ReadResourceRequest, callback: Callback): Promise<void>;
  registerResourceOutputs(req: RegisterResourceOutputsRequest, callback: Callback): void;
}

interface CompilableModule {
  _compile(code: string, filename: string): void;
}

function toJson(value: unknown): PropertyMap {
  return JSON.parse(JSON.stringify(value ?? {})) as PropertyMap;
}

function installTypeScriptHook(args: RunnerArgs): void {
  const ts = nodeModule.createRequire(args.toolsRequireBase)("typescript") as typeof TypeScript;
  const tsconfigPath = path.join(args.projectDir, "tsconfig.json");
  // Defaults of Pulumi's TypeScript templates: CommonJS, no esModuleInterop (so `import * as fs`
  // captures the module object itself, which closure serialization recognises).
  let options: TypeScript.CompilerOptions = { target: ts.ScriptTarget.ES2020, strict: true };
  if (fs.existsSync(tsconfigPath)) {
    const read = ts.readConfigFile(tsconfigPath, ts.sys.readFile);
    const raw = (read.config as { compilerOptions?: object } | undefined)?.compilerOptions ?? {};
    options = ts.convertCompilerOptionsFromJson(raw, args.projectDir).options;
  }
  options = { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, inlineSourceMap: false };
  const extensions = (
    nodeModule.Module as unknown as {
      _extensions: Record<string, (module: CompilableModule, filename: string) => void>;
    }
  )._extensions;
  extensions[".ts"] = (module, filename) => {
    const source = fs.readFileSync(filename, "utf8");
    const output = ts.transpileModule(source, { compilerOptions: options, fileName: filename });
    module._compile(output.outputText, filename);
  };
}

async function main(): Promise<void> {
  const args = JSON.parse(process.argv[2] ?? "{}") as RunnerArgs;
  const send = (message: RunnerMessage): void => {
    process.send?.(message);
  };

  let seq = 0;
  const waiting = new Map<number, (message: EngineMessage) => void>();
  process.on("message", (message: EngineMessage) => {
    const resolve = waiting.get(message.seq);
    waiting.delete(message.seq);
    resolve?.(message);
  });
  const ask = (message: Extract<RunnerMessage, { seq: number }>): Promise<EngineMessage> =>
    new Promise((resolve) => {
      waiting.set(message.seq, resolve);
      send(message);
    });

  const uncaught: string[] = [];
  const record = (err: unknown): void => {
    uncaught.push(err instanceof Error ? (err.stack ?? err.message) : String(err));
  };
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);

  const projectRequire = nodeModule.createRequire(path.join(args.projectDir, "package.json"));
  const pulumi = projectRequire("@pulumi/pulumi") as typeof PulumiSdk;
  const urnOf = (parent: string, type: string, name: string): string => engineUrn(args.stack, args.project, parent, type, name);

  // The raw request of the registration in flight: MockMonitor calls `mocks.newResource`
  // synchronously from `registerResource`/`readResource`, so this is always the matching one.
  let current: Registration | undefined;

  const mocks: PulumiSdk.runtime.Mocks = {
    newResource: async (mockArgs) => {
      const registration = current;
      current = undefined;
      if (!registration || registration.name !== mockArgs.name || registration.type !== mockArgs.type) {
        throw new Error(`harness out of sync with MockMonitor at ${mockArgs.type} "${mockArgs.name}"`);
      }
      seq += 1;
      const reply = await ask({ kind: "register", seq, registration });
      if (reply.kind !== "registered" || reply.error !== undefined || !reply.result) {
        throw new Error(reply.error ?? "engine gave no result");
      }
      const result: RegistrationResult = reply.result;
      return { id: result.id === "" ? undefined : result.id, state: result.state };
    },
    call: async (callArgs) => {
      seq += 1;
      const reply = await ask({ kind: "invoke", seq, token: callArgs.token, args: toJson(callArgs.inputs) });
      if (reply.kind !== "invoked" || reply.error !== undefined) {
        throw new Error(reply.error ?? "engine gave no result");
      }
      return reply.result ?? {};
    },
  };
  await pulumi.runtime.setMocks(mocks, args.project, args.stack, args.preview, args.organization);

  const monitor = pulumi.runtime.getMonitor() as unknown as PatchableMonitor;
  monitor.newUrn = urnOf;
  const registerResource = monitor.registerResource.bind(monitor);
  monitor.registerResource = (req, callback) => {
    const propertyDependencies: Record<string, string[]> = {};
    for (const [key, deps] of req.getPropertydependenciesMap().entries()) {
      propertyDependencies[key] = deps.getUrnsList();
    }
    current = {
      urn: urnOf(req.getParent(), req.getType(), req.getName()),
      type: req.getType(),
      name: req.getName(),
      custom: req.getCustom(),
      parent: req.getParent(),
      inputs: (req.getObject()?.toJavaScript() ?? {}) as PropertyMap,
      dependencies: req.getDependenciesList(),
      propertyDependencies,
      provider: req.getProvider(),
      ...(req.getImportid() ? { importId: req.getImportid() } : {}),
      options: {
        ...(req.getDeletebeforereplacedefined() ? { deleteBeforeReplace: req.getDeletebeforereplace() } : {}),
        retainOnDelete: req.getRetainondelete() ?? false,
        protect: req.getProtect() ?? false,
        ignoreChanges: req.getIgnorechangesList(),
        replaceOnChanges: req.getReplaceonchangesList(),
      },
    };
    return registerResource(req, callback);
  };
  const readResource = monitor.readResource.bind(monitor);
  monitor.readResource = (req, callback) => {
    current = {
      urn: urnOf(req.getParent(), req.getType(), req.getName()),
      type: req.getType(),
      name: req.getName(),
      custom: true,
      parent: req.getParent(),
      inputs: (req.getProperties()?.toJavaScript() ?? {}) as PropertyMap,
      dependencies: req.getDependenciesList(),
      propertyDependencies: {},
      provider: req.getProvider(),
      readId: req.getId(),
      options: {
        retainOnDelete: false,
        protect: false,
        ignoreChanges: [],
        replaceOnChanges: [],
      },
    };
    return readResource(req, callback);
  };
  const stackUrn = urnOf("", rootStackType, `${args.project}-${args.stack}`);
  let stackOutputs: PropertyMap = {};
  const registerResourceOutputs = monitor.registerResourceOutputs.bind(monitor);
  monitor.registerResourceOutputs = (req, callback) => {
    if (req.getUrn() === stackUrn) {
      stackOutputs = (req.getOutputs()?.toJavaScript() ?? {}) as { [key: string]: Json };
    }
    registerResourceOutputs(req, callback);
  };

  if (args.programFile.endsWith(".ts")) installTypeScriptHook(args);

  let error: string | undefined;
  try {
    await pulumi.runtime.runInPulumiStack(async () => {
      const exported: unknown = projectRequire(args.programFile);
      return typeof exported === "function" ? await (exported as () => unknown)() : exported;
    });
  } catch (err) {
    error = err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
  try {
    await pulumi.runtime.disconnect();
  } catch (err) {
    record(err);
  }
  process.send?.({ kind: "done", outputs: stackOutputs, error, uncaught } satisfies RunnerMessage, () => {
    process.exit(0);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(70);
});
