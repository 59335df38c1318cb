/**
 * What a provider host finishes before a method returns (src/host/host-end.ts): the engine ends the host right after its
 * last answer, with SIGINT (`plugin.Close`), which node dies of before any exit handler, timer or pending write runs. A
 * child `node` loads `@pulumi/pulumi` and the built IntegrationMembers entry as the host does, configures it against the
 * emulator (which answers RateLimit headers, so the first answer teaches the client a limit to remember), runs one `check`
 * (its catalogue read), says so the moment it returns, and sends itself SIGINT then. What must outlive it is on disk: the
 * remembered limit, and the compile cache the next host reads the provider and undici from.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_LIMITS_DIR } from "../../src/client/rate-memory";
import { DEFAULT_IDS, defaultSeed, startEmulator } from "../../src/emulator";
import { repoRoot } from "../support/paths.ts";

const HOST = `
require("@pulumi/pulumi");
const { provider } = require("./dist/provider/integration-members.js");
(async () => {
  const [baseUrl, apiKey, integrationId] = process.argv.slice(1);
  const config = { "workspace-access:baseUrl": baseUrl, "workspace-access:apiKey": apiKey };
  await provider.configure({ config: { get: (key) => config[key], require: (key) => config[key] } });
  const members = [{ userId: "9b2f4a6e-1c3d-4e5f-8a7b-6c5d4e3f2a1b", entitlements: ["VIEWER"] }];
  const { failures } = await provider.check({}, { integrationId, members });
  // Said, then ended at once (stdout to a pipe is written before the call returns): nothing after the return runs.
  process.stdout.write("returned " + failures.length + "\\n");
  process.kill(process.pid, "SIGINT");
  setInterval(() => {}, 1000); // the host's gRPC server keeps it up until the engine ends it
})();
`;

describe("a provider host ended by the engine right after a method returns", () => {
  const emulatorStarting = startEmulator({ seed: defaultSeed(), rateLimit: { requests: 50, windowMs: 1000, headers: true } });
  const youtube = DEFAULT_IDS.integrations.youtube;
  let tmp = "";
  let env: NodeJS.ProcessEnv = {};
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wa-host-end-"));
    const { NODE_COMPILE_CACHE: _, NODE_DISABLE_COMPILE_CACHE: __, ...rest } = process.env;
    // As users run it: node's compile cache in the temporary folder, the package's cache folder its own.
    env = { ...rest, TMPDIR: tmp, WORKSPACE_ACCESS_CACHE_DIR: path.join(tmp, "wa-cache") };
  });
  afterAll(async () => {
    await (await emulatorStarting).close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs one host to its check's return, then SIGINT at once, as the engine ends it: the signal it died of, and what it printed to stderr. */
  const hostEndedAfterCheck = async (more: NodeJS.ProcessEnv = {}) => {
    const emu = await emulatorStarting;
    const args = ["-e", HOST, emu.url, emu.apiKey, youtube];
    const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...env, ...more } });
    let stderr = "";
    child.stderr.on("data", (data: Buffer) => {
      stderr += String(data);
    });
    const ended = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    const said = await new Promise<string>((resolve) => child.stdout.on("data", (data: Buffer) => resolve(String(data))));
    expect(said).toBe("returned 0\n");
    return { signal: await ended, stderr };
  };

  it("has written the rate limit it learnt, and the compile cache; the next host reads the provider and undici from it", async () => {
    expect((await hostEndedAfterCheck()).signal).toBe("SIGINT");
    const remembered = fs.readdirSync(path.join(tmp, "wa-cache", RATE_LIMITS_DIR)).filter((file) => file.endsWith(".json"));
    expect(remembered).toHaveLength(1);
    // The next host, as the next pulumi up starts it: what it compiles comes from the cache the first one wrote (spawned,
    // not run synchronously: the emulator answers from this process).
    const next = await hostEndedAfterCheck({ NODE_DEBUG_NATIVE: "COMPILE_CACHE" });
    const accepted = next.stderr.split("\n").filter((line) => line.includes("was accepted"));
    expect(accepted.filter((line) => line.includes("/dist/host/members/integration-members-provider.js"))).toHaveLength(1);
    // undici's client, loaded for the check's first request after the provider itself.
    expect(accepted.filter((line) => line.includes("/undici/lib/dispatcher/client-h1.js"))).toHaveLength(1);
  });
});
