/**
 * The README's quickstart as a new user follows it, through the real `pulumi` CLI: a project made
 * the way `pulumi new typescript` makes it, the package installed from the tarball beside it with
 * the README's own `npm install`, the emulator started with the README's `npx` line (from the
 * project: its installed command), the config set as written, the README's `index.ts`, `pulumi up`.
 * Then what a first day meets next: a wrong key fails `pulumi preview` with one clean line (no
 * "unhandled exception", no stack), in a lookup and in the catalogue check; the export run from the project
 * depends on the tarball it came from, installs, and its `up` right after `--check --accept`
 * writes nothing (its Pulumi.yaml refreshes first).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceAccessClient } from "../../src/client/index";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { repoRoot } from "../support/paths.ts";
import { removeTree } from "../support/project.ts";
import { packedTarball } from "../support/packed.ts";
import { NO_FALLBACKS } from "./scenario.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

/** The programs type-checked as `pulumi` does by default (the other CLI tests skip it: vitest.config.mts). */
const AS_USERS_RUN = { PULUMI_NODEJS_TRANSPILE_ONLY: undefined };

const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## A first stack in five minutes"), readme.indexOf("## Configuration"));
/** The quickstart's shell commands, comments removed, and its `index.ts`. */
const commands = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "")
  .split("\n")
  .map((line) => line.replace(/\s+#.*$/, "").trim())
  .filter(Boolean);
const indexTs = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
const tarballName = /npm install \.\.\/(\S+\.tgz)/.exec(commands.join("\n"))?.[1] ?? "";

/** `pulumi new typescript`'s files (its template of v3.274), but index.ts, which the README replaces. */
const NEW_TYPESCRIPT = {
  "Pulumi.yaml":
    "name: access\ndescription: A minimal TypeScript Pulumi program\nruntime:\n  name: nodejs\n  options:\n    packagemanager: npm\n",
  "package.json": `${JSON.stringify(
    {
      name: "access",
      main: "index.ts",
      devDependencies: { "@types/node": "^18", typescript: "^5.0.0" },
      dependencies: { "@pulumi/pulumi": "^3.113.0" },
    },
    null,
    4,
  )}\n`,
  "tsconfig.json": fs.readFileSync(path.join(repoRoot, "examples", "basic", "tsconfig.json"), "utf8"),
  "index.ts": 'import * as pulumi from "@pulumi/pulumi";\n',
};

/** The environment of the user's shell: this Node.js first on PATH, no workspace-access variables. */
const shellEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...NO_FALLBACKS,
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env["PATH"] ?? ""}`,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_prefer_offline: "true",
  ...extra,
});

/** Runs a shell command line in `cwd` (asynchronously: nothing here may block the event loop). */
function sh(command: string, cwd: string, env = shellEnv()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("sh", ["-c", command], { cwd, env, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Fails with the command's output unless it exited 0. */
async function ok(command: string, cwd: string, env?: NodeJS.ProcessEnv) {
  const run = await sh(command, cwd, env);
  if (run.code !== 0) throw new Error(`${command} exited with ${run.code}:\n${run.stdout}\n${run.stderr}`);
  return run;
}

/** What a failed `pulumi preview` printed, minus the CLI's own lines: the package's message, once, and nothing of a crash. */
/**
 * The output less @pulumi/pulumi's own race when the engine stops at a failed Check: the program's
 * stack registers its outputs after the engine shut the monitor down, and the SDK prints "failed to
 * deliver log message" with the gRPC error's stack (on a loaded machine, 2 runs in 3). That block is
 * the SDK's, not the package's; everything else must still be one clean line.
 */
function withoutSdkShutdownRace(output: string): string {
  let inBlock = false;
  return output
    .split("\n")
    .filter((line) => {
      const body = line.replace(/^\s*\+?\s*pulumi:pulumi:Stack \S+ create/, "");
      const starts = body.includes("failed to deliver log message");
      const continues = /^\s*(error: Error: Channel has been shut down|original message: Error: 14 UNAVAILABLE|at |for call at)/.test(body);
      inBlock = starts || (inBlock && continues);
      return !inBlock;
    })
    .join("\n");
}

function expectOneCleanLine(raw: string, message: string) {
  const output = withoutSdkShutdownRace(raw);
  expect(output).toContain(message);
  expect(output).not.toContain("unhandled exception");
  expect(output).not.toMatch(/^\s+at /m);
  expect(output).not.toContain("[Symbol(");
}

describe.skipIf(!cliAvailable)(
  `the README's quickstart, followed as written, through the real pulumi CLI${skipNote}`,
  { timeout: 240_000 },
  () => {
    let tmp: string;
    let project: string;
    let emulator: ChildProcess | undefined;
    let log = "";
    let url = "";
    let key = "";
    let stack: CliStack;
    const stacks: CliStack[] = [];

    beforeAll(async () => {
      expect(commands).toEqual([
        "pulumi login --local",
        "pulumi new typescript --dir access && cd access",
        `npm install ../${tarballName}`,
        "npx workspace-access-emulator --port 8080 --log-requests",
        "pulumi config set workspace-access:baseUrl http://127.0.0.1:8080/api/v1/",
        "pulumi config set --secret workspace-access:apiKey <the key it printed>",
      ]);
      tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-quickstart-"));
      // The tarball where the README's Install puts it (npm pack --pack-destination ..): beside the project.
      await fs.promises.copyFile(await packedTarball(), path.join(tmp, tarballName));
      project = path.join(tmp, "access");
      await fs.promises.mkdir(project);
      for (const [file, content] of Object.entries(NEW_TYPESCRIPT)) await fs.promises.writeFile(path.join(project, file), content);
      await ok(commands[2] ?? "", project);

      // Its own port rather than 8080, which may be taken on a shared machine; its own process group, to stop npx and the emulator.
      emulator = spawn("sh", ["-c", (commands[3] ?? "").replace("--port 8080", "--port 0")], {
        cwd: project,
        env: shellEnv(),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      emulator.stdout?.on("data", (chunk: Buffer) => {
        log += chunk.toString("utf8");
      });
      await new Promise<void>((resolve, reject) => {
        emulator?.stdout?.on("data", () => log.includes("Press Ctrl+C") && resolve());
        emulator?.once("exit", (code) => reject(new Error(`the emulator exited with ${code}: ${log}`)));
      });
      url = /base URL: (\S+)/.exec(log)?.[1] ?? "";
      key = /API key: +(\S+)/.exec(log)?.[1] ?? "";

      // `pulumi login --local` is the test's own backend folder (openCliStack); the config as the README sets it.
      stack = await openCliStack({
        secrets: "passphrase",
        projectDir: project,
        env: AS_USERS_RUN,
        config: {
          "workspace-access:baseUrl":
            (commands[4] ?? "")
              .split(" ")
              .at(-1)
              ?.replace(/^http:\/\/127\.0\.0\.1:8080\/api\/v1\/$/, url) ?? "",
        },
      });
      stacks.push(stack);
      await stack.run(["config", "set", "--secret", "workspace-access:apiKey", key]);
      await fs.promises.writeFile(path.join(project, "index.ts"), indexTs);
    }, 180_000);

    afterAll(async () => {
      for (const s of stacks) await s.remove();
      if (emulator?.pid) process.kill(-emulator.pid, "SIGTERM");
      if (tmp) await removeTree(tmp);
    });

    /** The emulator's request log lines printed since `from`. */
    const requestsSince = (from: number) =>
      log
        .slice(from)
        .split("\n")
        .filter((line) => /^[A-Z]+ \/api\/v1\//.test(line));

    it("pulumi up creates alice and her YouTube entitlement, as the emulator's request log shows", async () => {
      const from = log.length;
      const up = await stack.up();
      expect(up.output).toMatch(/\+ 3 created/);
      const { aliceId } = await stack.outputs();
      expect(aliceId).toMatch(/^[0-9a-f-]{36}$/);
      const lines = requestsSince(from);
      expect(lines).toContainEqual(expect.stringMatching(/^POST \/api\/v1\/users 201 \d+ ms$/));
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^POST /api/v1/integrations/${DEFAULT_IDS.integrations.youtube}/users 20\\d \\d+ ms$`)),
      );
      // The banner prints the key; the request lines never do.
      expect(log.slice(log.indexOf("Press Ctrl+C"))).not.toContain(key.slice(7, 15));
    });

    it("a wrong key fails pulumi preview naming where the key comes from, in one line, in a lookup and in the catalogue check", async () => {
      const wrong = await openCliStack({
        secrets: "passphrase",
        projectDir: project,
        stackName: "wrong-key",
        env: AS_USERS_RUN,
        config: { "workspace-access:baseUrl": url, "workspace-access:apiKey": { secret: "wa_emu_revoked_0123456789abcdef0123456789ab" } },
      });
      stacks.push(wrong);
      const inLookup = await wrong.run(["preview"], { allowFailure: true });
      expect(inLookup.code).not.toBe(0);
      expectOneCleanLine(inLookup.output, "answered 401");
      expect(inLookup.output).toContain("The key comes from workspace-access:apiKey");

      // A program with the integration's id pasted: the preview's one read is the entitlement catalogue.
      await fs.promises.writeFile(
        path.join(project, "index.ts"),
        indexTs.replace(/const youtube = .*\n/, "").replace("youtube.id", JSON.stringify(DEFAULT_IDS.integrations.youtube)),
      );
      try {
        const inCheck = await wrong.run(["preview"], { allowFailure: true });
        expect(inCheck.code).not.toBe(0);
        expectOneCleanLine(inCheck.output, "The API key was refused (401) reading integration");
        expect(inCheck.output).toContain("Write integrations (write:integrations)");
        expect(inCheck.output).toContain("The key comes from workspace-access:apiKey");
      } finally {
        await fs.promises.writeFile(path.join(project, "index.ts"), indexTs);
      }
    });

    it("an emulator not running fails pulumi preview in one clean line naming the address, after its retries too", async () => {
      // A port nothing listens on: the emulator stopped, or another port. The retries make the lookup fail after the program
      // has finished, when the SDK prints an error's `stack` as it is: it must hold the message alone there too.
      const closed = await new Promise<number>((resolve) => {
        const server = net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = server.address() as net.AddressInfo;
          server.close(() => resolve(port));
        });
      });
      const down = await openCliStack({
        secrets: "passphrase",
        projectDir: project,
        stackName: "emulator-down",
        env: AS_USERS_RUN,
        config: {
          "workspace-access:baseUrl": `http://127.0.0.1:${closed}/api/v1/`,
          "workspace-access:apiKey": { secret: key },
          "workspace-access:maxRetries": "2",
        },
      });
      stacks.push(down);
      const preview = await down.run(["preview"], { allowFailure: true });
      expect(preview.code).not.toBe(0);
      expectOneCleanLine(preview.output, `(ECONNREFUSED): check that http://127.0.0.1:${closed} is reachable`);
      expect(preview.output).not.toContain("ConnectionError:");
    });

    it("the export run from the project depends on the tarball, installs, and its up after --check --accept writes nothing", async () => {
      const env = shellEnv({ WORKSPACE_ACCESS_API_KEY: key, WORKSPACE_ACCESS_BASE_URL: url });
      const exported = await ok("npx workspace-access-export --out ../exported", project, env);
      expect(exported.stdout).toContain(
        `depends on pulumi-workspace-access at file:../${tarballName}: the tarball this command was installed from`,
      );
      const dir = path.join(tmp, "exported");
      await ok("npm install", dir);
      const adopted = await openCliStack({
        secrets: "passphrase",
        projectDir: dir,
        stackName: "exported",
        env: AS_USERS_RUN,
        config: { "workspace-access:baseUrl": url, "workspace-access:apiKey": { secret: key } },
      });
      stacks.push(adopted);
      let from = log.length;
      const first = await adopted.up();
      expect(requestsSince(from).filter((line) => !line.startsWith("GET "))).toEqual([]);
      // The engine says "created"; the output also says what the adoption did.
      expect(first.output).toContain("Adopted user grace@example.com");
      expect(first.output).toContain("nothing was written");

      // The workspace changes: grace is made a login-only user. The review takes the workspace's side.
      const client = new WorkspaceAccessClient({ baseUrl: url, apiKey: key });
      const grace = await client.users.get(DEFAULT_IDS.users.grace);
      expect(grace.role).toBe("workspace_super_admin");
      await client.users.replace(grace.id, {
        email: grace.email ?? "",
        firstName: grace.firstName ?? "",
        lastName: grace.lastName ?? "",
        role: "workspace_login_only",
        isGuest: false,
      });
      await client.close();
      await ok("npx workspace-access-export --check --accept --out .", dir, env);
      expect(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).toMatch(
        /email: grace@example.com\n.*\n.*\n\s+role: workspace_login_only/,
      );

      from = log.length;
      const up = await adopted.up();
      expect(up.output).not.toContain("workspace_super_admin");
      expect(requestsSince(from).filter((line) => !line.startsWith("GET "))).toEqual([]);
    });
  },
);
