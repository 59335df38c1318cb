/**
 * The CLI tier: the real `pulumi` binary (built from its Go modules by `npm run pulumi-cli`, or a
 * `pulumi` on PATH) driving projects installed from the packed tarball, on a local file backend,
 * against the emulator. Nothing here needs the network.
 *
 * The emulator runs in the test's own process, so every CLI run is an asynchronous child process:
 * a `spawnSync` would block the event loop the emulator answers on, and the CLI would wait forever.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { RecordedRequest } from "../../src/emulator/index";
import { fakeVault } from "../support/vault.ts";

/** The CLI version `npm run pulumi-cli` builds (scripts/pulumi-cli.sh, which takes the same variable). */
export const PULUMI_CLI_VERSION = process.env["PULUMI_CLI_VERSION"] ?? "v3.274.1";

function executableIn(dir: string, command: string): boolean {
  try {
    fs.accessSync(path.join(dir, command), fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the CLI is: `WA_PULUMI_CLI_BIN` (a folder), the cache `npm run pulumi-cli` fills, the folder
 * Pulumi's installer fills (`~/.pulumi/bin`, for contributors without Go), or a `pulumi` on PATH
 * (its language host and the dynamic-provider plugin then come from that folder or PATH too).
 */
export function findPulumiCli(): { binDir: string } | { missing: string } {
  const cache = path.join(
    process.env["WA_PULUMI_CLI_CACHE"] ?? path.join(os.homedir(), ".cache", "pulumi-workspace-access", "pulumi-cli"),
    PULUMI_CLI_VERSION,
    "bin",
  );
  for (const dir of [process.env["WA_PULUMI_CLI_BIN"], cache, path.join(os.homedir(), ".pulumi", "bin")]) {
    if (dir && executableIn(dir, "pulumi") && executableIn(dir, "pulumi-language-nodejs")) return { binDir: dir };
  }
  const onPath = (process.env["PATH"] ?? "").split(path.delimiter).find((dir) => dir && executableIn(dir, "pulumi"));
  if (onPath) return { binDir: onPath };
  return {
    missing:
      "no pulumi CLI: `npm run pulumi-cli` builds it (needs Go 1.26+); without Go, `curl -fsSL https://get.pulumi.com | sh -s -- --version 3.274.1` installs it",
  };
}

export const cli = findPulumiCli();
/** The CLI's default `--parallel`: four resource steps per CPU. */
export const CLI_DEFAULT_PARALLEL = 4 * os.availableParallelism();

/** Whether the CLI tier can run; its tests are skipped (never passed) otherwise. */
export const cliAvailable = "binDir" in cli;
/** A suffix for test names: why they are skipped. */
export const skipNote = "missing" in cli ? ` (skipped: ${cli.missing})` : "";

/** What a child process (started with piped stdout and stderr) printed, and how it ended. */
export function outputOf(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** What one CLI command did. */
export interface CliRun {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr together. */
  output: string;
}

/** A value of stack config: plain, or set with `--secret`. */
export type CliConfigValue = string | { secret: string };

/** Options of {@link openCliStack}. */
export interface CliStackOptions {
  projectDir: string;
  stackName?: string;
  config?: Record<string, CliConfigValue>;
  /** A backend folder shared with other stacks; a fresh one by default. */
  backendDir?: string;
  /** Extra environment (a value of `undefined` removes the variable). */
  env?: Record<string, string | undefined>;
  /**
   * The stack's secrets provider: `passphrase`, as users of a file backend have it, or `vault` (test/support/vault.ts:
   * the same encryption, without the passphrase's million PBKDF2 rounds in every command). By default `vault` where
   * `WA_TEST_STACK_SECRETS` says so (the test tiers, vitest.config.mts), else `passphrase` (the demo, the benches).
   */
  secrets?: "passphrase" | "vault";
}

/** The package's environment fallbacks: removed, so only the stack config counts. */
const FALLBACKS = ["WORKSPACE_ACCESS_API_KEY", "WORKSPACE_ACCESS_BASE_URL", "WORKSPACE_ACCESS_WORKSPACE", "WORKSPACE_ACCESS_HOST"];

/** One stack of a project, driven through the real CLI. */
export class CliStack {
  readonly projectDir: string;
  readonly stackName: string;
  readonly backendDir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Whether this stack made its backend folder (then {@link remove} removes it). */
  readonly #ownsBackend: boolean;
  /** Every command run, in order (their output is what a CI log would show). */
  readonly runs: CliRun[] = [];

  constructor(projectDir: string, stackName: string, backendDir: string, env: NodeJS.ProcessEnv, ownsBackend: boolean) {
    this.projectDir = projectDir;
    this.stackName = stackName;
    this.backendDir = backendDir;
    this.#ownsBackend = ownsBackend;
    this.env = env;
  }

  /**
   * Runs `pulumi <args> --stack <name> --non-interactive`; rejects on a non-zero exit unless
   * `allowFailure`. `onStart` gets the child (to interrupt it).
   */
  run(args: string[], options: { allowFailure?: boolean; onStart?: (child: ChildProcess) => void; stack?: boolean } = {}): Promise<CliRun> {
    if (!("binDir" in cli)) throw new Error(cli.missing);
    const full = [...args, ...(options.stack === false ? [] : ["--stack", this.stackName]), "--non-interactive", "--color", "never"];
    const child = spawn(path.join(cli.binDir, "pulumi"), full, { cwd: this.projectDir, env: this.env, stdio: ["ignore", "pipe", "pipe"] });
    options.onStart?.(child);
    return outputOf(child).then(({ code, signal, stdout, stderr }) => {
      const run: CliRun = { args: full, code, signal, stdout, stderr, output: `${stdout}${stderr}` };
      this.runs.push(run);
      if (code !== 0 && !options.allowFailure) {
        throw new Error(`pulumi ${full.join(" ")} exited with ${code ?? signal}:\n${stdout}\n${stderr}`);
      }
      return run;
    });
  }

  up(...extra: string[]): Promise<CliRun> {
    return this.run(["up", "--yes", "--skip-preview", ...extra]);
  }

  preview(...extra: string[]): Promise<CliRun> {
    return this.run(["preview", ...extra]);
  }

  refresh(...extra: string[]): Promise<CliRun> {
    return this.run(["refresh", "--yes", "--skip-preview", ...extra]);
  }

  destroy(...extra: string[]): Promise<CliRun> {
    return this.run(["destroy", "--yes", "--skip-preview", ...extra]);
  }

  /** `pulumi stack export` (secrets encrypted, as it is stored), parsed. */
  async exportState(showSecrets = false): Promise<CliDeployment> {
    const run = await this.run(["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]);
    return JSON.parse(run.stdout) as CliDeployment;
  }

  /** The stack outputs (`pulumi stack output --json --show-secrets`). */
  async outputs(): Promise<Record<string, unknown>> {
    return JSON.parse((await this.run(["stack", "output", "--json", "--show-secrets"])).stdout) as Record<string, unknown>;
  }

  async setConfig(key: string, value: CliConfigValue): Promise<void> {
    if (typeof value === "string") await this.run(["config", "set", key, value]);
    else await this.run(["config", "set", "--secret", key, value.secret]);
  }

  /**
   * Removes the stack and its backend folder (when the stack made it). A backend of its own goes with
   * its folder and the stack's config file, which is all `pulumi stack rm` removes, without a CLI run.
   */
  async remove(): Promise<void> {
    if (!this.#ownsBackend) {
      await this.run(["stack", "rm", "--yes", "--force"], { allowFailure: true });
      return;
    }
    await fs.promises.rm(path.join(this.projectDir, `Pulumi.${this.stackName}.yaml`), { force: true });
    await fs.promises.rm(this.backendDir, { recursive: true, force: true });
  }
}

/** `pulumi stack export`'s document, the parts the tests read. */
export interface CliDeployment {
  version: number;
  deployment: {
    resources?: Array<{
      urn: string;
      type: string;
      id?: string;
      custom?: boolean;
      inputs?: Record<string, unknown>;
      outputs?: Record<string, unknown>;
    }>;
    pending_operations?: unknown[];
  };
}

/**
 * Creates a stack of a project on a file backend (`pulumi stack init`, with passphrase secrets or the test key service:
 * {@link CliStackOptions.secrets}) and sets its config as a user would: `pulumi config set`, `--secret` for secrets.
 */
export async function openCliStack(options: CliStackOptions): Promise<CliStack> {
  if (!("binDir" in cli)) throw new Error(cli.missing);
  const backendDir = options.backendDir ?? (await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-cli-backend-")));
  const pulumiHome = path.join(backendDir, ".pulumi-home");
  await fs.promises.mkdir(pulumiHome, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of FALLBACKS) delete env[key];
  Object.assign(env, {
    // The CLI's folder first (pulumi, its Node.js language host, the dynamic-provider plugin),
    // then the Node.js running the tests, for the programs and the provider host.
    PATH: [cli.binDir, path.dirname(process.execPath), process.env["PATH"] ?? ""].join(path.delimiter),
    PULUMI_HOME: pulumiHome,
    PULUMI_BACKEND_URL: `file://${backendDir}`,
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
  });
  const secrets = options.secrets ?? (process.env["WA_TEST_STACK_SECRETS"] === "vault" ? "vault" : "passphrase");
  if (secrets === "vault") {
    const vault = await fakeVault();
    Object.assign(env, { VAULT_SERVER_URL: vault.url, VAULT_SERVER_TOKEN: vault.token });
  } else {
    env["PULUMI_CONFIG_PASSPHRASE"] = `passphrase-${randomBytes(8).toString("hex")}`;
  }
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const stack = new CliStack(options.projectDir, options.stackName ?? "dev", backendDir, env, options.backendDir === undefined);
  const provider = secrets === "vault" ? ["--secrets-provider", "hashivault://pulumi-workspace-access-tests"] : [];
  await stack.run(["stack", "init", stack.stackName, ...provider], { stack: false });
  // One CLI run for the whole config, as `pulumi config set` and `set --secret` would store it.
  const pairs = Object.entries(options.config ?? {}).flatMap(([key, value]) =>
    typeof value === "string" ? [`--plaintext=${key}=${value}`] : [`--secret=${key}=${value.secret}`],
  );
  if (pairs.length > 0) await stack.run(["config", "set-all", ...pairs]);
  return stack;
}

/** The key that marks a secret in a `--show-secrets` export (`rpc.specialSigKey` of the engine). */
const specialSigKey = "4dabf18193072939515e22adb298388d";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;

/**
 * Outputs per URN with what differs between two runs of the same work made alike: UUIDs numbered
 * by first appearance (URNs sorted, keys sorted), timestamps replaced, secrets unwrapped to
 * `{ secret: value }` (the CLI's `--show-secrets` form and the harness's wire form alike).
 */
export function comparableState(resources: Array<{ urn: string; outputs?: Record<string, unknown> }>): Record<string, unknown> {
  const ids = new Map<string, string>();
  const rename = (text: string) =>
    text
      .replace(UUID, (uuid) => {
        const key = uuid.toLowerCase();
        if (!ids.has(key)) ids.set(key, `<uuid-${ids.size + 1}>`);
        return ids.get(key) as string;
      })
      .replace(TIMESTAMP, "<time>");
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return rename(value);
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if (specialSigKey in record) {
        const plain = "plaintext" in record ? JSON.parse(String(record["plaintext"])) : record["value"];
        return { secret: walk(plain) };
      }
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((key) => [key, walk(record[key])]),
      );
    }
    return value;
  };
  const out: Record<string, unknown> = {};
  for (const resource of [...resources].sort((a, b) => a.urn.localeCompare(b.urn))) out[resource.urn] = walk(resource.outputs ?? {});
  return out;
}

/** The requests as a sorted list of `METHOD /path` with ids replaced: the same work, order aside. */
export function comparableRequests(requests: readonly RecordedRequest[]): string[] {
  return requests.map((r) => `${r.method} ${r.path.replace(UUID, "{id}")}`).sort();
}

/** The dynamic resources of an export (the stack and the default provider aside). */
export function dynamicResources(state: CliDeployment) {
  return (state.deployment.resources ?? []).filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/"));
}

/** The writes among requests, as `METHOD /path`, in order. */
export function writesOf(requests: readonly RecordedRequest[]): string[] {
  return requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
}
