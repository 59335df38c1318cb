/**
 * The engine's own gRPC service (`pulumirpc.Engine`), whose address the CLI passes to every plugin
 * as its first argument: plugins "phone home" to it with `Log` and root-resource queries.
 */
import * as grpc from "@grpc/grpc-js";
import type { PulumiProtos } from "./pulumi-protos.ts";

/** Severity names of `pulumirpc.LogSeverity`. */
export type LogSeverity = "debug" | "info" | "warning" | "error";

/** One `Engine.Log` call. */
export interface EngineLogEntry {
  severity: LogSeverity;
  message: string;
  urn: string;
  streamId: number;
  ephemeral: boolean;
}

/** A running engine service. */
export interface EngineService {
  /** `127.0.0.1:<port>`, the argument plugins are started with. */
  address: string;
  /** Every `Log` message, in arrival order. */
  logs: EngineLogEntry[];
  /** Every method called on it, in order (`Log`, `GetRootResource`, ...). */
  calls: string[];
  close(): Promise<void>;
}

const severities: LogSeverity[] = ["debug", "info", "warning", "error"];

type Unary = (call: { request: unknown }, callback: grpc.sendUnaryData<unknown>) => void;

/** Starts an engine service on a loopback port; `rootUrn` answers `GetRootResource`. */
export async function startEngineService(protos: PulumiProtos, rootUrn: string): Promise<EngineService> {
  const logs: EngineLogEntry[] = [];
  const calls: string[] = [];
  let root = rootUrn;
  const { engine, empty } = protos;
  const implementation: Record<string, Unary> = {
    log: (call, callback) => {
      calls.push("Log");
      const req = call.request as InstanceType<typeof engine.LogRequest>;
      logs.push({
        severity: severities[req.getSeverity()] ?? "info",
        message: req.getMessage(),
        urn: req.getUrn(),
        streamId: req.getStreamid(),
        ephemeral: req.getEphemeral(),
      });
      callback(null, new empty.Empty());
    },
    getRootResource: (_call, callback) => {
      calls.push("GetRootResource");
      callback(null, new engine.GetRootResourceResponse().setUrn(root));
    },
    setRootResource: (call, callback) => {
      calls.push("SetRootResource");
      root = (call.request as InstanceType<typeof engine.SetRootResourceRequest>).getUrn();
      callback(null, new engine.SetRootResourceResponse());
    },
    startDebugging: (_call, callback) => {
      calls.push("StartDebugging");
      callback(null, new empty.Empty());
    },
    requirePulumiVersion: (_call, callback) => {
      calls.push("RequirePulumiVersion");
      callback(null, new engine.RequirePulumiVersionResponse());
    },
  };
  const server = new grpc.Server();
  server.addService(
    protos.engineGrpc.EngineService as unknown as grpc.ServiceDefinition,
    implementation as unknown as grpc.UntypedServiceImplementation,
  );
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound)));
  });
  return {
    address: `127.0.0.1:${port}`,
    logs,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
