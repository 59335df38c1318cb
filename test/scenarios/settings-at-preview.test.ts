/**
 * Settings checked at preview, through the real dynamic-provider host: a misspelt
 * `workspace-access:*` key, a missing key or address, a bad number or plain http to a remote host
 * fails `pulumi preview` in Check, naming the key and the command that fixes it, and the emulator
 * receives no request at all. `getJob`, which runs in the program, refuses the same settings before
 * its first request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { type ConfigValue, EngineError, openStack, type Project } from "../engine/index.ts";
import { packedProject } from "../engine/packed.ts";
import { accessConfig, NO_FALLBACKS, rejectionOf, SETUP_TIMEOUT_MS, startTestEmulator } from "./support.ts";

const program = `import * as wa from "pulumi-workspace-access";
export const id = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" }).id;
`;
const jobProgram = `import * as wa from "pulumi-workspace-access";
export const status = wa.getJob({ id: "6f1d2c3b-4a5e-4f60-8a71-000000000000" }).then((job) => job.status);
`;

describe("settings checked at preview, with zero requests", { timeout: 60_000 }, () => {
  let emulator: Emulator;
  let project: Project;
  let stacks = 0;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    project = await packedProject({ files: { "index.ts": program, "job.ts": jobProgram } });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await project?.remove();
    await emulator?.close();
  });

  /** A preview of `file` with this stack config (no environment fallback), and its failure. */
  async function failedPreview(config: Record<string, ConfigValue>, file = "index.ts"): Promise<EngineError> {
    stacks += 1;
    const stack = await openStack({ projectDir: project.dir, program: file, stackName: `s${stacks}`, config, env: NO_FALLBACKS });
    try {
      const error = await rejectionOf(stack.preview());
      expect(error).toBeInstanceOf(EngineError);
      return error as EngineError;
    } finally {
      await stack.close();
    }
  }

  const good = (): Record<string, ConfigValue> => accessConfig(emulator);
  const without = (key: string): Record<string, ConfigValue> => {
    const config = good();
    delete config[key];
    return config;
  };

  it.each<[string, () => Record<string, ConfigValue>, string[]]>([
    [
      "apikey for apiKey",
      () => ({ ...without("workspace-access:apiKey"), "workspace-access:apikey": { value: emulator.apiKey, secret: true } }),
      [
        "Unknown setting `workspace-access:apikey`: did you mean `workspace-access:apiKey`?",
        "pulumi config rm workspace-access:apikey and pulumi config set --secret workspace-access:apiKey <value>",
      ],
    ],
    [
      "baseurl for baseUrl",
      () => ({ ...without("workspace-access:baseUrl"), "workspace-access:baseurl": emulator.url }),
      ["Unknown setting `workspace-access:baseurl`: did you mean `workspace-access:baseUrl`?"],
    ],
    [
      "maxRetry for maxRetries",
      () => ({ ...good(), "workspace-access:maxRetry": "3" }),
      ["Unknown setting `workspace-access:maxRetry`: did you mean `workspace-access:maxRetries`?"],
    ],
    [
      "no API key",
      () => without("workspace-access:apiKey"),
      [
        "No API key in the stack config, which names the workspace's address",
        "Run: pulumi config set --secret workspace-access:apiKey <key>.",
      ],
    ],
    [
      "no workspace or base URL",
      () => without("workspace-access:baseUrl"),
      ["No workspace configured", "Run: pulumi config set workspace-access:workspace <workspace>"],
    ],
    [
      "a bad number",
      () => ({ ...good(), "workspace-access:maxRetries": "two" }),
      [
        'workspace-access:maxRetries must be a whole number of at least 0, got "two". Run: pulumi config set workspace-access:maxRetries <value>',
      ],
    ],
    [
      "plain http to a remote host",
      () => ({ ...good(), "workspace-access:baseUrl": "http://acme.example.com/api/v1/" }),
      ["uses plain http://", "Run: pulumi config set workspace-access:baseUrl <value>"],
    ],
    [
      "a key pasted with a space",
      () => ({ ...good(), "workspace-access:apiKey": { value: `${emulator.apiKey} x`, secret: true } }),
      ["workspace-access:apiKey contains spaces", "Run: pulumi config set --secret workspace-access:apiKey <value>"],
    ],
  ])("%s fails the preview in Check, naming the key and the fix", async (_, config, expected) => {
    const before = emulator.requests.length;
    const error = await failedPreview(config());
    expect(error.operation).toBe("check");
    expect(error.resourceName).toBe("alice");
    for (const text of expected) expect(error.message).toContain(text);
    // A Check failure, not an exception of the provider.
    const check = error.result?.grpc.find((call) => call.method === "Check");
    expect(check?.error).toBeUndefined();
    const reasons = (check?.response as { failures?: Array<{ reason: string }> } | undefined)?.failures?.map((f) => f.reason);
    expect(reasons?.join("\n")).toContain(expected[0]);
    expect(emulator.requests.slice(before)).toEqual([]);
  });

  it("a good config previews with no request (the control)", async () => {
    stacks += 1;
    const stack = await openStack({
      projectDir: project.dir,
      program: "index.ts",
      stackName: `s${stacks}`,
      config: good(),
      env: NO_FALLBACKS,
    });
    try {
      const before = emulator.requests.length;
      const result = await stack.preview();
      expect(result.steps.map((step) => `${step.op} ${step.name}`)).toContain("create alice");
      expect(emulator.requests.slice(before)).toEqual([]);
    } finally {
      await stack.close();
    }
  });

  it.each<[string, () => Record<string, ConfigValue>, string]>([
    [
      "a misspelt key",
      () => ({ ...good(), "workspace-access:maxretries": "3" }),
      "Unknown setting `workspace-access:maxretries`: did you mean `workspace-access:maxRetries`?",
    ],
    ["no API key", () => without("workspace-access:apiKey"), "Run: pulumi config set --secret workspace-access:apiKey <key>"],
  ])("getJob with %s fails the program before its first request", async (_, config, expected) => {
    const before = emulator.requests.length;
    const error = await failedPreview(config(), "job.ts");
    expect(error.operation).toBe("program");
    expect(error.message).toContain(expected);
    expect(emulator.requests.slice(before)).toEqual([]);
  });
});
