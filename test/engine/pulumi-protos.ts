/**
 * The gRPC stubs and protobuf messages shipped in a project's copy of `@pulumi/pulumi`, loaded from
 * that copy (the same one its dynamic-provider host runs), with the repository's copy for types.
 */
import { createRequire } from "node:module";
import * as path from "node:path";

/** The proto modules the engine side needs. */
export interface PulumiProtos {
  /** The real directory of the project's `@pulumi/pulumi`. */
  packageDir: string;
  /** Its version. */
  version: string;
  /** What the CLI's `pulumi-resource-pulumi-nodejs` shim runs: `require.resolve("@pulumi/pulumi/cmd/dynamic-provider")`. */
  hostEntry: string;
  provider: typeof import("@pulumi/pulumi/proto/provider_pb");
  providerGrpc: typeof import("@pulumi/pulumi/proto/provider_grpc_pb");
  engine: typeof import("@pulumi/pulumi/proto/engine_pb");
  engineGrpc: typeof import("@pulumi/pulumi/proto/engine_grpc_pb");
  plugin: typeof import("@pulumi/pulumi/proto/plugin_pb");
  status: typeof import("@pulumi/pulumi/proto/status_pb");
  struct: typeof import("google-protobuf/google/protobuf/struct_pb");
  empty: typeof import("google-protobuf/google/protobuf/empty_pb");
}

const cache = new Map<string, PulumiProtos>();

/** Loads the protos of the `@pulumi/pulumi` that `projectDir` resolves. */
export function loadPulumiProtos(projectDir: string): PulumiProtos {
  const projectRequire = createRequire(path.join(projectDir, "package.json"));
  const packageJson = projectRequire.resolve("@pulumi/pulumi/package.json");
  const cached = cache.get(packageJson);
  if (cached) return cached;
  const pulumiRequire = createRequire(packageJson);
  const protos: PulumiProtos = {
    packageDir: path.dirname(packageJson),
    version: (pulumiRequire("./package.json") as { version: string }).version,
    hostEntry: projectRequire.resolve("@pulumi/pulumi/cmd/dynamic-provider"),
    provider: pulumiRequire("./proto/provider_pb"),
    providerGrpc: pulumiRequire("./proto/provider_grpc_pb"),
    engine: pulumiRequire("./proto/engine_pb"),
    engineGrpc: pulumiRequire("./proto/engine_grpc_pb"),
    plugin: pulumiRequire("./proto/plugin_pb"),
    status: pulumiRequire("./proto/status_pb"),
    struct: pulumiRequire("google-protobuf/google/protobuf/struct_pb"),
    empty: pulumiRequire("google-protobuf/google/protobuf/empty_pb"),
  };
  cache.set(packageJson, protos);
  return protos;
}
