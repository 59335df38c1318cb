/**
 * The harness against the real dynamic-provider host, with a toy provider (fixtures/) whose
 * "service" is a JSON file the tests can read and change behind its back.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { describe, expect, it, type TestContext } from "vitest";
import { startEngineService } from "./engine-service.ts";
import {
  type ConfigValue,
  createProject,
  EngineError,
  type GrpcExchange,
  harnessDir,
  installTarball,
  isSecret,
  jsonContains,
  type OperationResult,
  openStack,
  type PropertyMap,
  processGroupAlive,
  type Stack,
  type StackState,
  unknownValue,
  unwrapSecret,
} from "./index.ts";
import { loadPulumiProtos } from "./pulumi-protos.ts";

const token = "toy-s3cr3t-7f2c9a";
const fixturesDir = path.join(harnessDir, "fixtures");
const aliceUrn = "urn:pulumi:dev::e2e::pulumi-nodejs:dynamic/toy:Toy::alice";
const bobUrn = "urn:pulumi:dev::e2e::pulumi-nodejs:dynamic/toy:Toy::bob";

interface ToyRecord {
  label: string;
  value: string;
  peer?: string;
  serial: number;
  tokenLength: number;
}

interface ToyStore {
  serial: number;
  records: Record<string, ToyRecord>;
  log: Array<{ op: string; id: string; label: string }>;
}

interface ToyStack {
  stack: Stack;
  projectDir: string;
  store(): ToyStore;
  editStore(edit: (store: ToyStore) => void): void;
  /** The provider operations logged since `from` (configure calls left out). */
  ops(from?: number): string[];
}

async function toyStack(
  context: TestContext,
  program = "program-two.ts",
  config: Record<string, ConfigValue> = {},
  timeoutMs?: number,
): Promise<ToyStack> {
  const files: Record<string, string> = {};
  for (const file of fs.readdirSync(fixturesDir)) files[file] = fs.readFileSync(path.join(fixturesDir, file), "utf8");
  const project = await createProject({ files });
  const storeFile = path.join(project.dir, "toy-store.json");
  const stack = await openStack({
    projectDir: project.dir,
    program,
    config: { "toy:storeFile": storeFile, "toy:token": { value: token, secret: true }, ...config },
    ...(timeoutMs ? { timeoutMs } : {}),
  });
  context.onTestFinished(async () => {
    await stack.close();
    await project.remove();
  });
  const store = (): ToyStore =>
    fs.existsSync(storeFile) ? (JSON.parse(fs.readFileSync(storeFile, "utf8")) as ToyStore) : { serial: 0, records: {}, log: [] };
  return {
    stack,
    projectDir: project.dir,
    store,
    editStore: (edit) => {
      const current = store();
      edit(current);
      fs.writeFileSync(storeFile, JSON.stringify(current));
    },
    ops: (from = 0) =>
      store()
        .log.slice(from)
        .filter((entry) => entry.op !== "configure")
        .map((entry) => `${entry.op} ${entry.id}`),
  };
}

function stepsOf(result: OperationResult): string[] {
  return result.steps.map((step) => `${step.op} ${step.name}`);
}

function calls(result: OperationResult, method: string, urn?: string): GrpcExchange[] {
  return result.grpc.filter((call) => call.method === method && (urn === undefined || call.urn === urn));
}

function resource(state: StackState, name: string) {
  return state.resources.find((r) => r.name === name);
}

function expectNoProcessesLeft(result: OperationResult): void {
  expect(result.hostLog.pid).toBeGreaterThan(0);
  expect(processGroupAlive(result.hostLog.pid ?? 0)).toBe(false);
  if (result.program.pid !== undefined) expect(processGroupAlive(result.program.pid)).toBe(false);
}

async function failure(operation: Promise<unknown>): Promise<EngineError> {
  const error = await operation.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(EngineError);
  return error as EngineError;
}

// Each test has its own project and processes, so they run side by side.
describe.concurrent("the e2e harness, driving the real dynamic-provider host", { timeout: 60_000 }, () => {
  describe("up", () => {
    it("creates resources and passes the real id of one into the inputs of another", async (context) => {
      const toy = await toyStack(context);
      const result = await toy.stack.up();

      expect(stepsOf(result)).toEqual(["create e2e-dev", "create alice", "create bob"]);
      expect(result.outputs).toMatchObject({ aliceId: "alice-1", bobId: "bob-2", bobPeer: "alice-1" });
      const [createBob] = calls(result, "Create", bobUrn);
      expect(createBob?.request).toMatchObject({ properties: { peer: "alice-1", label: "bob" } });
      expect(toy.ops()).toEqual(["create alice-1", "create bob-2"]);

      const state = toy.stack.state();
      expect(resource(state, "alice")).toMatchObject({ id: "alice-1", outputs: { serial: 1 } });
      expect(resource(state, "bob")).toMatchObject({ id: "bob-2", dependencies: [aliceUrn] });
      expect(String(resource(state, "bob")?.outputs["__provider"])).toMatch(/^exports\.handler = /);
      const bob = result.registrations.find((r) => r.name === "bob");
      expect(bob?.type).toBe("pulumi-nodejs:dynamic/toy:Toy");
      expect(String(bob?.inputs["__provider"])).toMatch(/^exports\.handler = /);
    });

    it("configures the host first, once, with the whole stack config (secrets wrapped)", async (context) => {
      const toy = await toyStack(context);
      const result = await toy.stack.up();

      const methods = result.grpc.map((call) => call.method);
      expect(methods.slice(0, 4)).toEqual(["Handshake", "GetPluginInfo", "CheckConfig", "Configure"]);
      expect(methods.filter((m) => m === "Configure")).toHaveLength(1);
      const [configure] = calls(result, "Configure");
      const { args } = (configure?.request ?? {}) as { args?: PropertyMap };
      expect(args?.["toy:storeFile"]).toBe(path.join(toy.projectDir, "toy-store.json"));
      expect(isSecret(args?.["toy:token"])).toBe(true);
      expect(unwrapSecret(args?.["toy:token"] ?? null)).toBe(token);
      expect(configure?.response).toMatchObject({ acceptSecrets: false });
      // The provider's configure saw the secret: its outputs carry the length, never the value.
      expect(result.outputs["tokenLength"]).toBe(token.length);
    });

    it("keeps the secret config out of the host's output, every gRPC response and the state file", async (context) => {
      const toy = await toyStack(context);
      const up = await toy.stack.up();
      const refresh = await toy.stack.refresh();

      for (const result of [up, refresh]) {
        expect(result.hostLog.stdout + result.hostLog.stderr).not.toContain(token);
        expect(
          jsonContains(
            result.grpc.map((call) => call.response ?? call.error ?? null),
            token,
          ),
        ).toBe(false);
        expect(result.program.stdout + result.program.stderr).not.toContain(token);
      }
      expect(fs.readFileSync(toy.stack.statePath, "utf8")).not.toContain(token);
    });
  });

  describe("preview", () => {
    it("before the first up: sends the unknown placeholder to Check, creates nothing", async (context) => {
      const toy = await toyStack(context);
      const result = await toy.stack.preview();

      expect(stepsOf(result)).toEqual(["create e2e-dev", "create alice", "create bob"]);
      expect(result.steps.every((step) => !step.applied)).toBe(true);
      const [checkBob] = calls(result, "Check", bobUrn);
      expect(checkBob?.request).toMatchObject({ news: { peer: unknownValue } });
      expect(checkBob?.response).toMatchObject({ inputs: { peer: unknownValue }, failures: [] });
      expect(calls(result, "Create")).toEqual([]);
      expect(result.outputs["bobPeer"]).toBe(unknownValue);
      expect(toy.ops()).toEqual([]);
      expect(fs.existsSync(toy.stack.statePath)).toBe(false);
    });

    it("with no change: every step is `same`, and only Check and Diff reach the provider", async (context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      const logged = toy.store().log.length;
      const stateBefore = toy.stack.state();
      const result = await toy.stack.preview();

      expect(stepsOf(result)).toEqual(["same e2e-dev", "same alice", "same bob"]);
      const providerCalls = new Set(result.grpc.map((call) => call.method));
      expect([...providerCalls].sort()).toEqual(["Check", "CheckConfig", "Configure", "Diff", "GetPluginInfo", "Handshake"]);
      expect(calls(result, "Diff", aliceUrn)[0]?.response).toMatchObject({ changes: "none", replaces: [] });
      expect(toy.ops(logged)).toEqual([]);
      expect(toy.stack.state()).toEqual(stateBefore);
      expect(result.outputs).toMatchObject({ aliceId: "alice-1", bobPeer: "alice-1" });
    });
  });

  describe("changes", () => {
    it("a changed input is an update (previewed first, applied by up)", async (context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      toy.stack.setConfig("toy:bobValue", "b2");

      const preview = await toy.stack.preview();
      expect(stepsOf(preview)).toEqual(["same e2e-dev", "same alice", "update bob"]);
      expect(preview.steps[2]?.diff).toMatchObject({ changes: "some", replaces: [], source: "provider" });
      expect(toy.store().records["bob-2"]?.value).toBe("b1");

      const logged = toy.store().log.length;
      const up = await toy.stack.up();
      expect(stepsOf(up)).toEqual(["same e2e-dev", "same alice", "update bob"]);
      expect(toy.ops(logged)).toEqual(["update bob-2"]);
      const [update] = calls(up, "Update", bobUrn);
      expect(update?.request).toMatchObject({ id: "bob-2", olds: { value: "b1", serial: 2 }, news: { value: "b2" } });
      expect(resource(toy.stack.state(), "bob")).toMatchObject({ id: "bob-2", inputs: { value: "b2" }, outputs: { value: "b2" } });
    });

    it.for([
      { deleteFirst: false, order: ["create alice-3", "update bob-2", "delete alice-1"] },
      { deleteFirst: true, order: ["delete alice-1", "create alice-3", "update bob-2"] },
    ])("a `replaces` answer is a replacement (deleteBeforeReplace: $deleteFirst)", async ({ deleteFirst, order }, context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      toy.stack.setConfig("toy:aliceReplace", "true");
      toy.stack.setConfig("toy:aliceDeleteFirst", String(deleteFirst));
      toy.stack.setConfig("toy:aliceValue", "a2");
      const logged = toy.store().log.length;

      const expected = deleteFirst
        ? ["same e2e-dev", "delete-replaced alice", "replace alice", "update bob"]
        : ["same e2e-dev", "replace alice", "update bob", "delete-replaced alice"];
      const preview = await toy.stack.preview();
      expect(stepsOf(preview)).toEqual(expected);
      const replace = preview.steps.find((step) => step.op === "replace");
      expect(replace?.diff).toMatchObject({ changes: "some", replaces: ["value"], deleteBeforeReplace: deleteFirst });
      // bob's peer is alice's id, unknown until the replacement exists.
      expect(calls(preview, "Diff", bobUrn)[0]?.request).toMatchObject({ news: { peer: unknownValue } });
      expect(toy.ops(logged)).toEqual([]);

      const up = await toy.stack.up();
      expect(stepsOf(up)).toEqual(expected);
      expect(toy.ops(logged)).toEqual(order);
      expect(up.outputs).toMatchObject({ aliceId: "alice-3", bobPeer: "alice-3" });
      // The replacement was checked again with no olds, as the engine does.
      const checks = calls(up, "Check", aliceUrn).map((call) => (call.request as { olds: object }).olds);
      expect(checks).toHaveLength(2);
      expect(checks[1]).toEqual({});
      expect(resource(toy.stack.state(), "alice")).toMatchObject({ id: "alice-3", pendingDelete: false });
      expect(toy.stack.state().resources.filter((r) => r.name === "alice")).toHaveLength(1);
    });

    it("a resource dropped from the program is deleted (after a preview that says so)", async (context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      toy.stack.setProgram("program-one.ts");

      const preview = await toy.stack.preview();
      expect(stepsOf(preview)).toEqual(["same e2e-dev", "same alice", "delete bob"]);
      expect(toy.store().records["bob-2"]).toBeDefined();

      const logged = toy.store().log.length;
      const up = await toy.stack.up();
      expect(stepsOf(up)).toEqual(["same e2e-dev", "same alice", "delete bob"]);
      expect(toy.ops(logged)).toEqual(["delete bob-2"]);
      const [deleteBob] = calls(up, "Delete", bobUrn);
      expect(deleteBob?.request).toMatchObject({ id: "bob-2", properties: { serial: 2, peer: "alice-1" } });
      expect(toy.stack.state().resources.map((r) => r.name)).toEqual(["e2e-dev", "alice"]);
    });
  });

  describe("refresh", () => {
    it("drops a resource whose read returns an empty id and stores the inputs read returns", async (context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      toy.editStore((store) => {
        delete store.records["bob-2"];
        const alice = store.records["alice-1"];
        if (alice) alice.value = "drifted";
      });

      const result = await toy.stack.refresh();
      expect(stepsOf(result)).toEqual(["same e2e-dev", "update alice", "delete bob"]);
      const [readAlice] = calls(result, "Read", aliceUrn);
      expect(readAlice?.request).toMatchObject({ id: "alice-1", properties: { value: "a1", serial: 1 }, inputs: { value: "a1" } });
      const state = toy.stack.state();
      expect(resource(state, "bob")).toBeUndefined();
      expect(resource(state, "alice")).toMatchObject({ inputs: { value: "drifted" }, outputs: { value: "drifted" } });
      expect(String(resource(state, "alice")?.inputs["__provider"])).toMatch(/^exports\.handler = /);
      expectNoProcessesLeft(result);

      // The next up puts the program's value back and recreates bob.
      const up = await toy.stack.up();
      expect(stepsOf(up)).toEqual(["same e2e-dev", "update alice", "create bob"]);
    });
  });

  describe("destroy", () => {
    it("deletes everything, dependents first, and leaves no process behind", async (context) => {
      const toy = await toyStack(context);
      const up = await toy.stack.up();
      const logged = toy.store().log.length;
      const result = await toy.stack.destroy();

      expect(stepsOf(result)).toEqual(["delete bob", "delete alice", "delete e2e-dev"]);
      expect(toy.ops(logged)).toEqual(["delete bob-2", "delete alice-1"]);
      expect(toy.store().records).toEqual({});
      expect(toy.stack.state().resources).toEqual([]);
      await toy.stack.close();
      expectNoProcessesLeft(up);
      expectNoProcessesLeft(result);
    });
  });

  describe("provider errors", () => {
    it.for([
      { fail: "create", operation: "create", message: "toy create failed for carol" },
      { fail: "check-throw", operation: "check", message: "toy check threw for carol" },
    ])("a provider that throws in $operation surfaces gRPC code 2 with its message", async ({ fail, operation, message }, context) => {
      const toy = await toyStack(context, "program-fail.ts", { "toy:fail": fail });
      const error = await failure(toy.stack.up());

      expect(error).toMatchObject({ operation, resourceName: "carol", grpcCode: 2, grpcMessage: message });
      expect(error.message).toContain(`${operation} of pulumi-nodejs:dynamic/toy:Toy "carol" failed: ${message}`);
      const result = error.result;
      if (!result) throw new Error("no result on the error");
      expect(result.grpc.some((call) => call.error?.code === 2 && call.error.message === message)).toBe(true);
      expect(resource(toy.stack.state(), "carol")).toBeUndefined();
      expectNoProcessesLeft(result);
    });

    it("a program that throws fails the operation and deletes nothing", async (context) => {
      const toy = await toyStack(context);
      await toy.stack.up();
      toy.stack.setProgram(
        "program-throws.ts",
        'import { Toy } from "./toy-provider";\nnew Toy("alice", { label: "alice", value: "a1" });\nthrow new Error("program gave up");\n',
      );
      const logged = toy.store().log.length;
      const error = await failure(toy.stack.up());

      expect(error.operation).toBe("program");
      expect(error.message).toContain("program gave up");
      expect(toy.ops(logged)).toEqual([]);
      expect(toy.stack.state().resources.map((r) => r.name)).toEqual(["e2e-dev", "alice", "bob"]);
    });

    // The limit must outlast the host's start and the program's first create on a busy 2-core
    // machine (over 10 s while the other host tests run alongside), or nothing is created first.
    it("a program that never finishes times out, keeps what it created, and leaves no process", { timeout: 90_000 }, async (context) => {
      const toy = await toyStack(context, "program-two.ts", {}, 30_000);
      toy.stack.setProgram(
        "program-hangs.ts",
        'import { Toy } from "./toy-provider";\nexport const id = new Toy("alice", { label: "alice", value: "a1" }).id;\nexport const never = new Promise(() => undefined);\n',
      );
      const error = await failure(toy.stack.up());

      expect(error.operation).toBe("timeout");
      expect(resource(toy.stack.state(), "alice")).toMatchObject({ id: "alice-1" });
      if (error.result) expectNoProcessesLeft(error.result);
    });

    it("check failures name the property and the reason", async (context) => {
      const toy = await toyStack(context, "program-fail.ts", { "toy:fail": "check" });
      const error = await failure(toy.stack.preview());
      expect(error).toMatchObject({ operation: "check", resourceName: "carol" });
      expect(error.message).toContain("fail: asked to fail check");
    });

    it("refuses a duplicate URN, as the engine does, even while the first resource is being created", async (context) => {
      const toy = await toyStack(context, "program-duplicate.ts");
      for (const operation of ["preview", "up"] as const) {
        const error = await failure(toy.stack[operation]());
        expect(error).toMatchObject({ operation: "register", urn: aliceUrn, resourceName: "alice" });
        expect(error.message).toBe(`Duplicate resource URN '${aliceUrn}'; try giving it a unique name`);
      }
      expect(Object.values(toy.store().records).map((r) => r.label)).toEqual(["alice"]);
    });

    it("a partial create (an error carrying an id) is kept in state and still reported", async (context) => {
      const toy = await toyStack(context, "program-fail.ts", { "toy:fail": "create-partial" });
      const error = await failure(toy.stack.up());

      expect(error).toMatchObject({ operation: "create", resourceName: "carol", grpcCode: 2 });
      expect(error.initFailure).toMatchObject({ id: expect.stringMatching(/^carol-/), reasons: ["not ready"] });
      const carol = resource(toy.stack.state(), "carol");
      expect(carol).toMatchObject({ id: error.initFailure?.id, initErrors: ["not ready"], outputs: { label: "carol" } });

      // Fixed, the next up diffs against the partial resource instead of creating a second one.
      toy.stack.setConfig("toy:fail", "none");
      const up = await toy.stack.up();
      expect(up.steps.find((step) => step.name === "carol")?.op).toBe("update");
    });
  });

  describe("the engine service", () => {
    it("receives the program's pulumi.log calls; a logged error fails the up", async (context) => {
      const toy = await toyStack(context, "program-log.ts");
      fs.writeFileSync(
        path.join(toy.projectDir, "program-log.ts"),
        [
          'import * as pulumi from "@pulumi/pulumi";',
          'import { Toy } from "./toy-provider";',
          'const alice = new Toy("alice", { label: "alice", value: "a1" });',
          'pulumi.log.info("hello from the program", alice);',
          'const message = new pulumi.Config("toy").get("logError");',
          "if (message) pulumi.log.error(message);",
        ].join("\n"),
      );
      const result = await toy.stack.up();
      expect(result.engineLogs).toContainEqual(
        expect.objectContaining({ severity: "info", message: "hello from the program", urn: aliceUrn }),
      );
      expect(result.engineCalls).toContain("SetRootResource");

      toy.stack.setConfig("toy:logError", "something is off");
      const error = await failure(toy.stack.up());
      expect(error.operation).toBe("program");
      expect(error.message).toContain("something is off");
    });

    it("records Log calls with their severity", async () => {
      const protos = loadPulumiProtos(path.join(harnessDir, "..", ".."));
      const engine = await startEngineService(protos, "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev");
      const Client = grpc.makeGenericClientConstructor(protos.engineGrpc.EngineService as unknown as grpc.ServiceDefinition, "Engine");
      const client = new Client(engine.address, grpc.credentials.createInsecure()) as unknown as Record<
        string,
        (req: unknown, callback: (err: Error | null, res: unknown) => void) => void
      >;
      const send = (method: string, req: unknown) =>
        new Promise<unknown>((resolve, reject) => client[method]?.(req, (err, res) => (err ? reject(err) : resolve(res))));
      await send(
        "log",
        new protos.engine.LogRequest().setSeverity(protos.engine.LogSeverity.WARNING).setMessage("careful").setUrn(aliceUrn),
      );
      const root = (await send("getRootResource", new protos.engine.GetRootResourceRequest())) as { getUrn(): string };
      (client as unknown as grpc.Client).close();
      await engine.close();

      expect(engine.logs).toEqual([{ severity: "warning", message: "careful", urn: aliceUrn, streamId: 0, ephemeral: false }]);
      expect(root.getUrn()).toBe("urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev");
      expect(engine.calls).toEqual(["Log", "GetRootResource"]);
    });
  });

  describe("projects", () => {
    it("installTarball installs an `npm pack` tarball with a real npm install", async (context) => {
      const work = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-e2e-pack-"));
      context.onTestFinished(() => fs.rmSync(work, { recursive: true, force: true }));
      const pkg = path.join(work, "pkg");
      fs.mkdirSync(pkg);
      fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "e2e-tiny", version: "1.0.0", main: "index.js" }));
      fs.writeFileSync(path.join(pkg, "index.js"), "exports.answer = 42;\n");
      const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], { cwd: pkg, encoding: "utf8" }).trim();

      const linked = await createProject({ dir: path.join(work, "linked") });
      await expect(installTarball(linked.dir, path.join(work, tgz))).rejects.toThrow(/link: false/);

      const project = await createProject({ dir: path.join(work, "project"), link: false });
      await installTarball(project.dir, path.join(work, tgz));
      const installed = JSON.parse(fs.readFileSync(path.join(project.dir, "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      };
      expect(installed.dependencies["e2e-tiny"]).toMatch(/e2e-tiny-1\.0\.0\.tgz$/);
      expect(fs.readFileSync(path.join(project.dir, "node_modules", "e2e-tiny", "index.js"), "utf8")).toContain("42");
    });
  });
});
