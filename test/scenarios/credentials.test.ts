/**
 * The API key through a whole deployment: it reaches the provider host only in `Configure` (as
 * `CheckConfig`, as the engine sends stack config), and never comes back out: not in any `__provider`, state file,
 * gRPC response, process output or engine log. A wrong key fails with a 401 that names the fix.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { EngineError, type OperationResult } from "../engine/index.ts";
import { accessConfig, type ExampleStack, exampleStack, rejectionOf, SETUP_TIMEOUT_MS, startTestEmulator, stepsOf } from "./support.ts";

/** Every text of a project's state directory (the state file and anything beside it). */
function stateTexts(stackFile: string): Array<[string, string]> {
  const dir = path.dirname(stackFile);
  return fs.readdirSync(dir).map((file) => [file, fs.readFileSync(path.join(dir, file), "utf8")]);
}

/** Where an operation's observable surfaces contain `text`, as `surface` names; `[]` when nowhere. */
function leaks(result: OperationResult, text: string): string[] {
  const found: string[] = [];
  const check = (surface: string, value: unknown) => {
    if ((typeof value === "string" ? value : JSON.stringify(value ?? null)).includes(text)) found.push(surface);
  };
  for (const registration of result.registrations) {
    check(`__provider of ${registration.name}`, registration.inputs["__provider"]);
    check(`registration of ${registration.name}`, registration);
  }
  for (const call of result.grpc) {
    check(`${call.method} response${call.urn ? ` for ${call.urn}` : ""}`, call.response);
    check(`${call.method} error${call.urn ? ` for ${call.urn}` : ""}`, call.error);
    // CheckConfig and Configure are how the engine hands the provider its config: the key is meant to be there.
    if (call.method !== "CheckConfig" && call.method !== "Configure")
      check(`${call.method} request${call.urn ? ` for ${call.urn}` : ""}`, call.request);
  }
  check("host stdout", result.hostLog.stdout);
  check("host stderr", result.hostLog.stderr);
  check("program stdout", result.program.stdout);
  check("program stderr", result.program.stderr);
  check("program error", result.program.error);
  check("uncaught in program", result.program.uncaught);
  check("engine logs", result.engineLogs);
  check("stack outputs", result.outputs);
  check("steps", result.steps);
  check(
    "errors",
    result.errors.map((e) => ({ message: e.message, grpcMessage: e.grpcMessage, initFailure: e.initFailure })),
  );
  return found;
}

describe("the API key", { timeout: 60_000 }, () => {
  let emulator: Emulator;
  let basic: ExampleStack;

  beforeAll(async () => {
    emulator = await startTestEmulator({ apiKey: `wa_emu_${randomBytes(16).toString("hex")}` });
    basic = await exampleStack({ example: "basic", config: accessConfig(emulator) });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await basic?.dispose();
    await emulator?.close();
  });

  it("reaches the provider host in its config and appears nowhere else through up, preview, refresh and destroy", async () => {
    const key = emulator.apiKey;
    const results: OperationResult[] = [];
    const stateLeaks: string[] = [];
    for (const operation of ["up", "preview", "refresh", "destroy"] as const) {
      const result = await basic.stack[operation]();
      results.push(result);
      for (const [file, text] of stateTexts(basic.stack.statePath)) if (text.includes(key)) stateLeaks.push(`${operation}: ${file}`);
      expect(leaks(result, key), operation).toEqual([]);
    }
    expect(stateLeaks).toEqual([]);

    const [up, preview, refresh, destroy] = results as [OperationResult, OperationResult, OperationResult, OperationResult];
    // The checks above look where the key would be: it did reach the host, as a wrapped secret.
    const configure = up.grpc.find((call) => call.method === "Configure");
    expect(JSON.stringify(configure?.request)).toContain(key);
    expect(stepsOf(up).filter((s) => s.startsWith("create "))).toHaveLength(4);
    expect(stepsOf(preview).every((s) => s.startsWith("same "))).toBe(true);
    expect(refresh.grpc.filter((c) => c.method === "Read")).toHaveLength(4);
    expect(stepsOf(destroy).filter((s) => s.startsWith("delete "))).toHaveLength(4);
    // Every provider in state is the few lines that require the package's module, no config captured.
    for (const registration of up.registrations.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"))) {
      expect(registration.inputs["__provider"]).toMatch(
        /^exports\.handler = \(\) => require\("pulumi-workspace-access\/provider\/[a-z-]+"\)\.provider;\n$/,
      );
    }
    // The service saw the key on every request (the emulator records that it was there, not its value).
    expect(emulator.requests.length).toBeGreaterThan(0);
    expect(emulator.requests.every((r) => r.hasApiKey && r.status !== 401)).toBe(true);
  });

  it("when wrong, fails the first create with a 401 naming the command that fixes it, without the wrong key", async () => {
    const wrongKey = `wa_wrong_${randomBytes(16).toString("hex")}`;
    const wrong = await exampleStack({
      example: "basic",
      project: basic.project,
      stackName: "wrong-key",
      config: accessConfig(emulator, wrongKey),
    });
    try {
      const usersBefore = emulator.users.list().length;
      const requestsBefore = emulator.requests.length;
      const error = await rejectionOf(wrong.stack.up());

      expect(error).toBeInstanceOf(EngineError);
      const failure = error as EngineError;
      expect(failure.operation).toBe("create");
      expect(failure.resourceType).toBe("pulumi-nodejs:dynamic/workspace-access:User");
      expect(failure.grpcCode).toBe(2);
      expect(failure.grpcMessage).toContain("401");
      expect(failure.grpcMessage).toContain("pulumi config set --secret workspace-access:apiKey");
      expect(failure.message).toContain("pulumi config set --secret workspace-access:apiKey");
      expect(failure.message).not.toContain(wrongKey);
      expect(failure.grpcMessage).not.toContain(wrongKey);
      expect(failure.result && leaks(failure.result, wrongKey)).toEqual([]);
      expect(stateTexts(wrong.stack.statePath).filter(([, text]) => text.includes(wrongKey))).toEqual([]);

      const received = emulator.requests.slice(requestsBefore);
      expect(received.length).toBeGreaterThan(0);
      expect(received.every((r) => r.status === 401)).toBe(true);
      expect(emulator.users.list()).toHaveLength(usersBefore);
      expect(wrong.stack.state().resources.filter((r) => r.custom)).toEqual([]);
    } finally {
      await wrong.dispose();
    }
  });
});
