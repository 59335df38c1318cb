/**
 * The export's round trip (issue 16), as a user runs it: `workspace-access-export` (the built
 * command) writes the emulator's populated world as a project into a directory outside the
 * repository; that project is installed from the packed tarball, type-checked with its own
 * tsconfig and TypeScript. Its deployment through the real `pulumi` CLI is test/cli/export.test.ts.
 * Every assertion is on what the emulator received.
 */
import { execFile, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, POPULATED_BIG_MEMBERS, POPULATED_USER_COUNT, type RecordedRequest, startEmulator } from "../../src/emulator/index";
import { projectFiles } from "../../src/export/project";
import { NO_FALLBACKS, SETUP_TIMEOUT_MS } from "../cli/scenario.ts";
import { packedTarball } from "../support/packed.ts";
import { repoRoot } from "../support/paths.ts";
import { installTarball, removeTree } from "../support/project.ts";

const CLI = path.join(repoRoot, "dist", "export", "cli.js");

/** Runs the built command; resolves with its exit code and output (the emulator keeps serving meanwhile). */
function runExportCli(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      // A user's shell: not the CI that runs these tests (in CI, --check refuses the address access.yaml records).
      { env: { ...process.env, ...NO_FALLBACKS, CI: undefined, ...env }, encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const writes = (requests: RecordedRequest[]) => requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

describe("workspace-access-export of the populated world, deployed from the packed tarball", { timeout: 300_000 }, () => {
  let emulator: Emulator;
  let tmp: string;
  let dir: string;
  let exported: { code: number; stdout: string; stderr: string };
  let exportRequests: RecordedRequest[];
  let tarball: string;
  let packageJson: string;
  let cache: string;

  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated", job: { finishAfterPolls: 1 } });
    // One member holds an entitlement the integration no longer offers (its catalogue changed):
    // the adopting resource is let through the preview's catalogue check with a warning.
    const retiredIn = emulator.integrations.list().find((i) => emulator.integrations.members(i.id).length > 0)!;
    const retiredMember = emulator.integrations.members(retiredIn.id)[0]!;
    emulator.integrations.setMember(retiredIn.id, retiredMember.userId, {
      role: retiredMember.role,
      entitlements: [...retiredMember.entitlements, "RETIRED_ACCESS"],
    });
    tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-export-"));
    dir = path.join(tmp, "access");
    tarball = await packedTarball();
    // The package as a user has it before it is published: a tarball from `npm pack`.
    // The user's cache folder, where the export remembers the address it was given (the tests' is off: vitest.config.mts).
    cache = path.join(tmp, "cache");
    exported = await runExportCli(["--out", dir, "--base-url", emulator.url, "--package-spec", `file:${tarball}`], {
      WORKSPACE_ACCESS_API_KEY: emulator.apiKey,
      WORKSPACE_ACCESS_CACHE_DIR: cache,
    });
    exportRequests = emulator.requests;
    emulator.clearRequests();
    if (exported.code === 0) {
      packageJson = fs.readFileSync(path.join(dir, "package.json"), "utf8");
      await installTarball(dir, tarball);
    }
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await emulator?.close();
    if (tmp) await removeTree(tmp);
  });

  it("exports with reads only: each list twice, 100 then 99 a page (the second proves the first)", () => {
    expect(exported.stderr).not.toContain(emulator.apiKey);
    expect(exported.code, exported.stderr).toBe(0);
    expect(writes(exportRequests)).toEqual([]);
    const pages = (prefix: string) => exportRequests.filter((r) => r.path === prefix).length;
    const twice = (records: number) => Math.ceil(records / 100) + Math.ceil(records / 99);
    expect(pages("/integrations")).toBe(2);
    expect(pages("/users")).toBe(twice(POPULATED_USER_COUNT));
    expect(pages("/integrations/5b1f0000-0000-4000-8000-000000000001/users")).toBe(twice(POPULATED_BIG_MEMBERS));
    expect(exportRequests).toHaveLength(2 + twice(POPULATED_USER_COUNT) + twice(POPULATED_BIG_MEMBERS) + 2 + 2);
    expect(exported.stderr).toMatch(/workspace-access-export: 25 pages read, 512 users, 305 memberships, [\d.]+ s\n/);
  });

  it("counts on stderr what it leaves out, and records it in access.yaml: the 30 pending users without names, and their 31 memberships", () => {
    expect(exported.stderr).toContain(
      "left out 61 records a project could not declare (recorded under leftOut in access.yaml; --verbose lists them).\n",
    );
    expect(exported.stderr.split("\n").filter((line) => line.startsWith("  "))).toEqual([]);
    const leftOut = fs.readFileSync(path.join(dir, "access.yaml"), "utf8").split("\nleftOut:\n")[1]!;
    expect(leftOut.match(/^ {4}reason: no first name$/gm)).toHaveLength(30);
    expect(leftOut.match(/^ {4}reason: "?its user is left out \(no first name\)"?$/gm)).toHaveLength(31);
    expect(exported.stdout).toContain("482 users and 274 memberships of 3 integrations");
  });

  it("depends on the package as --package-spec says, and its README says what to put there until the package is published", () => {
    expect(JSON.parse(packageJson).dependencies["pulumi-workspace-access"]).toBe(`file:${tarball}`);
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    expect(readme).toContain(`depends on pulumi-workspace-access at \`file:${tarball}\` (given with \`--package-spec\`)`);
  });

  it("runs its README's access-review commands as written, in the project, against the workspace access.yaml records (the export remembered it)", async () => {
    const readme = fs.readFileSync(path.join(dir, "README.md"), "utf8");
    const commands = readme.split("\n").filter((line) => line.includes("npx workspace-access-export"));
    expect(commands).toEqual([
      "WORKSPACE_ACCESS_API_KEY=<key> npx workspace-access-export --check --out .",
      "WORKSPACE_ACCESS_API_KEY=<key> npx workspace-access-export --check --accept --out .",
    ]);
    for (const command of commands) {
      // The user's shell, in the project; no address in the environment: access.yaml has it, and the export, given it,
      // remembered it in the user's cache folder. Not spawnSync: the emulator answers from this process's event loop.
      const shell = { ...process.env, ...NO_FALLBACKS, CI: undefined, WORKSPACE_ACCESS_CACHE_DIR: cache, npm_config_offline: "true" };
      const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          "sh",
          ["-c", command.replace("<key>", emulator.apiKey)],
          { cwd: dir, env: shell, encoding: "utf8" },
          (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
        );
      });
      expect(result.stderr).not.toContain(emulator.apiKey);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^access\.yaml and the workspace hold the same access\.\n/);
    }
  });

  it("writes a whole project: Pulumi.yaml, package.json, the template's tsconfig, index.ts, access.yaml and a README", () => {
    expect(
      fs
        .readdirSync(dir)
        .filter((f) => f !== "node_modules" && f !== "package-lock.json")
        .sort(),
    ).toEqual([".gitignore", "Pulumi.yaml", "README.md", "access.yaml", "index.ts", "package.json", "tsconfig.json"]);
    expect(fs.readFileSync(path.join(dir, "tsconfig.json"), "utf8")).toBe(
      fs.readFileSync(path.join(repoRoot, "examples", "basic", "tsconfig.json"), "utf8").trimEnd() + "\n",
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      version: string;
      dependencies: Record<string, string>;
    };
    expect(fs.readFileSync(path.join(dir, "README.md"), "utf8")).toMatch(/retainOnDelete: true[\s\S]*pulumi destroy/);
    const index = fs.readFileSync(path.join(dir, "index.ts"), "utf8");
    expect(index).toContain('from "pulumi-workspace-access/export"');
    expect(index).toContain("adoptExisting: true");
    // The project was installed from the tarball: npm rewrote this package's range to the file.
    const installed = JSON.parse(fs.readFileSync(path.join(dir, "node_modules", "pulumi-workspace-access", "package.json"), "utf8")) as {
      version: string;
    };
    expect(installed.version).toBe(pkg.version);
  });

  it("type-checks with its own tsconfig and its own TypeScript", () => {
    const tsc = path.join(dir, "node_modules", "typescript", "bin", "tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", ".", "--noEmit", "--pretty", "false"], { cwd: dir, encoding: "utf8" });
    expect(`${result.stdout}${result.stderr}`).toBe("");
    expect(result.status).toBe(0);
  });

  it("type-checks the sets shape's index.ts too, in the same project (a user's `pulumi preview` type-checks it)", () => {
    const files = projectFiles(
      "https://acme.example.com/api/v1/",
      { users: 1, memberships: 1, integrations: 1 },
      { spec: "x", why: "" },
      "sets",
    );
    fs.writeFileSync(path.join(dir, "index.sets.ts"), files["index.ts"]!);
    fs.writeFileSync(path.join(dir, "tsconfig.sets.json"), JSON.stringify({ extends: "./tsconfig.json", files: ["index.sets.ts"] }));
    try {
      const tsc = path.join(dir, "node_modules", "typescript", "bin", "tsc");
      const args = [tsc, "-p", "tsconfig.sets.json", "--noEmit", "--pretty", "false"];
      const result = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8" });
      expect(`${result.stdout}${result.stderr}`).toBe("");
      expect(result.status).toBe(0);
    } finally {
      for (const file of ["index.sets.ts", "tsconfig.sets.json"]) fs.rmSync(path.join(dir, file));
    }
  });
});

describe("the command's exit status and output", { timeout: 120_000 }, () => {
  let emulator: Emulator;
  let tmp: string;

  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated" });
    tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-export-cli-"));
  });

  afterAll(async () => {
    await emulator?.close();
    if (tmp) await removeTree(tmp);
  });

  // With the user's cache folder, where the export and --check remember the addresses they are given.
  const key = () => ({ WORKSPACE_ACCESS_API_KEY: emulator.apiKey, WORKSPACE_ACCESS_CACHE_DIR: path.join(tmp, "cache") });

  it("--check exits 0 when nothing changed and 1 when access changed, printing the changes on stdout", async () => {
    const dir = path.join(tmp, "check");
    expect((await runExportCli(["--out", dir, "--base-url", emulator.url], key())).code).toBe(0);
    const same = await runExportCli(["--check", "--out", dir, "--base-url", emulator.url], key());
    expect(same).toMatchObject({
      code: 0,
      stdout:
        "access.yaml and the workspace hold the same access.\n61 records of the workspace a project cannot declare are left out (--verbose lists them).\n",
    });

    emulator.integrations.setMember("5b1f0000-0000-4000-8000-000000000002", "7a5e0000-0000-4000-8000-000000000002", {
      entitlements: ["READ", "WRITE", "MAINTAIN"],
    });
    const changed = await runExportCli(["--check", "--out", dir], { ...key(), WORKSPACE_ACCESS_BASE_URL: emulator.url });
    expect(changed.code).toBe(1);
    expect(changed.stdout.split("\n").slice(0, 3)).toEqual([
      'the workspace grants user002@acme.example MAINTAIN in "GitHub acme"; access.yaml does not',
      "1 difference between access.yaml and the workspace.",
      `To take the workspace's side into access.yaml (only these records change): workspace-access-export --check --accept --out ${dir}`,
    ]);
    expect(changed.stderr).not.toContain(emulator.apiKey);

    const markdown = await runExportCli(["--check", "--out", dir, "--format", "markdown"], key());
    expect(markdown.code).toBe(1);
    expect(markdown.stdout).toContain("| user002@acme.example | GitHub acme | entitlements | — | MAINTAIN |\n");
    const json = await runExportCli(["--check", "--out", dir, "--format", "json", "--verbose"], key());
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      version: 1,
      workspace: emulator.url,
      accepted: false,
      differences: [{ kind: "entitlements", side: "workspace", user: "user002@acme.example", workspace: "MAINTAIN" }],
      leftOut: { count: 61 },
    });

    // On a machine whose user never gave that address (another cache folder), the one access.yaml records is refused
    // before any request: whoever wrote the branch chose it.
    const sent = emulator.requests.length;
    const stranger = await runExportCli(["--check", "--out", dir], { ...key(), WORKSPACE_ACCESS_CACHE_DIR: path.join(tmp, "other") });
    expect(stranger.code).toBe(2);
    expect(stranger.stderr).toContain(`access.yaml records the workspace ${emulator.url}, which you have not given this command`);
    expect(stranger.stderr).toContain(`pass --base-url ${emulator.url} once (it is then remembered, in ${path.join(tmp, "other")}`);
    expect(stranger.stderr).not.toContain(emulator.apiKey);
    expect(emulator.requests.length).toBe(sent);

    // In CI the address access.yaml records is refused before any request: a pull request could point the key elsewhere.
    const inCi = await runExportCli(["--check", "--out", dir], { ...key(), CI: "true" });
    expect(inCi.code).toBe(2);
    expect(inCi.stderr).toContain(`access.yaml records the workspace ${emulator.url}, but CI is set`);
    expect(inCi.stderr).toContain("Set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST) beside");
    expect(inCi.stderr).not.toContain(emulator.apiKey);
    expect(emulator.requests.length).toBe(sent);

    const accepted = await runExportCli(["--check", "--accept", "--out", dir], key());
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toContain("access.yaml now holds the workspace's side.");
    expect((await runExportCli(["--check", "--out", dir], key())).code).toBe(0);
  });

  it.each([
    ["without --out", [], /--out DIR is required/],
    [
      "with a key as a flag, without echoing it",
      ["--out", "x", "--api-key=wa_secret_123456"],
      /the API key is never taken as a flag: set WORKSPACE_ACCESS_API_KEY/,
    ],
    [
      "with an unknown option, listing the flags",
      ["--out", "x", "--frobnicate"],
      /unknown flag --frobnicate: the flags are --out, --base-url/,
    ],
    [
      "with a misspelt option, naming the flag meant",
      ["--out", "x", "--integrations", "Slack"],
      /unknown flag --integrations: did you mean --integration\?/,
    ],
    ["with an unknown format", ["--check", "--out", "x", "--format", "html"], /--format must be text, markdown, json, not "html"/],
  ])("exits 2 %s, with the usage", async (_what, args, message) => {
    const result = await runExportCli(args, key());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain("Usage: workspace-access-export --out DIR");
    // Said again after the usage: the terminal's last line.
    expect(result.stderr.trimEnd().split("\n").at(-1)).toMatch(message);
    expect(result.stderr).not.toContain("wa_secret_123456");
  });

  it("exits 2 on a failure, with the fix and without the key: an existing non-empty directory", async () => {
    const dir = path.join(tmp, "taken");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "notes.txt"), "mine");
    const result = await runExportCli(["--out", dir, "--base-url", emulator.url], key());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`workspace-access-export: ${dir} is not empty`);
    // Its first line: no blank line before it (stderr is no terminal here, so no progress line is left to end).
    expect(result.stderr.startsWith("workspace-access-export: ")).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(["notes.txt"]);
  });

  it("--help prints the usage and exits 0", async () => {
    const result = await runExportCli(["--help"], {});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Usage: workspace-access-export --out DIR \[--base-url URL\] \[--integration ID\|LABEL \.\.\.\] \[--members-only\] \[--shape records\|sets\] \[--package-spec SPEC\] \[--verbose\]\n {7}workspace-access-export --check --out DIR \[--accept\] \[--format text\|markdown\|json\]/,
    );
    expect(result.stdout).toContain("node_modules/pulumi-workspace-access/docs/export.md");
  });
});
