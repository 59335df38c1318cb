/**
 * The emulator as a new user meets it: `startEmulator()` and the `workspace-access-emulator` command
 * start from the same default world (`{ seed: {} }` and `--empty` start empty), the documented seed
 * file loads, and a bad seed is refused naming the field at fault.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultSeed, type Emulator, parseSeed, startEmulator } from "../../src/emulator/index";
import { repoRoot } from "../support/paths.ts";
import { packedTemplate } from "../support/packed.ts";

const cli = path.join(repoRoot, "dist", "emulator", "cli.js");
const seedExample = path.join(repoRoot, "examples", "emulator-seed.json");

const running: ChildProcess[] = [];
const started: Emulator[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) child.kill("SIGTERM");
  await Promise.all(started.splice(0).map((e) => e.close()));
});

/** Starts the command and resolves with what it printed up to "Press Ctrl+C". */
function startCli(...args: string[]): Promise<string> {
  return startCliIn({ cwd: repoRoot, cli }, ...args);
}

/** Starts the command `cli` in `cwd` (a clone, or a project that installed the package). */
function startCliIn(where: { cwd: string; cli: string }, ...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [where.cli, "--port", "0", ...args], { cwd: where.cwd, stdio: ["ignore", "pipe", "pipe"] });
  running.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("Press Ctrl+C")) resolve(out);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} before it was ready: ${out}`)));
  });
}

/** The users of the command's emulator, through its own API. */
async function usersOf(printed: string): Promise<string[]> {
  const url = /base URL: (\S+)/.exec(printed)?.[1] ?? "";
  const key = /API key: +(\S+)/.exec(printed)?.[1] ?? "";
  const answer = (await (await fetch(`${url}users`, { headers: { "X-API-Key": key } })).json()) as {
    data: Array<{ attributes: { email: string } }>;
  };
  return answer.data.map((u) => u.attributes.email).sort();
}

describe("the default world", () => {
  it("is where startEmulator() and the command both start", async () => {
    const emulator = await startEmulator();
    started.push(emulator);
    const expected = (defaultSeed().users ?? []).map((u) => u.email).sort();
    expect(
      emulator.users
        .list()
        .map((u) => u.email)
        .sort(),
    ).toEqual(expected);
    expect(emulator.integrations.list().map((i) => i.application)).toEqual(["YouTube", "Slack"]);

    const printed = await startCli();
    expect(printed).toMatch(/integration YouTube: .*\n.*integration Slack: /);
    expect(await usersOf(printed)).toEqual(expected);
  });

  it("is left out with { seed: {} } and --empty", async () => {
    const emulator = await startEmulator({ seed: {} });
    started.push(emulator);
    expect(emulator.users.list()).toEqual([]);
    expect(emulator.integrations.list()).toEqual([]);

    const printed = await startCli("--empty");
    expect(printed).not.toContain("integration ");
    expect(await usersOf(printed)).toEqual([]);
  });
});

describe("--world populated", () => {
  it("prints its two GitHub integrations told apart by label, as getIntegration({ label }) finds them; one of an application alone", async () => {
    const printed = await startCli("--world", "populated");
    const lines = printed.split("\n").filter((line) => line.startsWith("  integration "));
    expect(lines).toEqual([
      "  integration Salesforce: 5b1f0000-0000-4000-8000-000000000001",
      '  integration GitHub ("GitHub acme"): 5b1f0000-0000-4000-8000-000000000002',
      '  integration GitHub ("GitHub acme-labs"): 5b1f0000-0000-4000-8000-000000000003',
    ]);
  });
});

describe("--seed", () => {
  it("loads the documented example file", async () => {
    const printed = await startCli("--seed", seedExample);
    expect(printed).toMatch(/integration Jira: 3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a09/);
    expect(await usersOf(printed)).toEqual(["ada@example.com", "alan@example.com", "guest@partner.example"]);
  });

  it("loads it as the README writes it, from a clone (examples/emulator-seed.json)", async () => {
    expect(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8")).toContain("--seed examples/emulator-seed.json");
    const printed = await startCli("--seed", "examples/emulator-seed.json");
    expect(await usersOf(printed)).toEqual(["ada@example.com", "alan@example.com", "guest@partner.example"]);
  });

  it("loads it from a project that installed the package (node_modules/pulumi-workspace-access/examples/emulator-seed.json)", async () => {
    const project = await packedTemplate();
    const installed = path.join(project, "node_modules", "pulumi-workspace-access");
    const printed = await startCliIn(
      { cwd: project, cli: path.join(installed, "dist", "emulator", "cli.js") },
      "--seed",
      "node_modules/pulumi-workspace-access/examples/emulator-seed.json",
    );
    expect(await usersOf(printed)).toEqual(["ada@example.com", "alan@example.com", "guest@partner.example"]);
  }, 300_000);

  it.each<[string, unknown, string]>([
    ["a user without an email", { users: [{ firstName: "A", lastName: "B" }] }, "users[0].email is required"],
    ["a misspelt field", { users: [{ email: "a@b.c", firstName: "A", lastName: "B", mail: "x" }] }, "users[0].mail is not a field"],
    [
      "a wrong status",
      { users: [{ email: "a@b.c", firstName: "A", lastName: "B", status: "active" }] },
      "users[0].status must be one of live, pending, disabled",
    ],
    ["an integration without entitlements", { integrations: [{ application: "Jira" }] }, "integrations[0].entitlements is required"],
    [
      "a member's entitlements not a list",
      { integrations: [{ application: "Jira", entitlements: [{ id: "USER" }], users: [{ userId: "x", entitlements: "USER" }] }] },
      "integrations[0].users[0].entitlements must be a list of strings",
    ],
    ["users not a list", { users: { email: "a@b.c" } }, "users must be a list"],
    ["an unknown top-level field", { people: [] }, "seed.people is not a field"],
  ])("refuses %s, naming the field", (_, seed, message) => {
    expect(() => parseSeed(seed)).toThrow(message);
  });

  it("takes a user with no names yet (null), as the service serves pending and SCIM-provisioned users", async () => {
    const seed = parseSeed({ users: [{ email: "scim@example.com", firstName: null, lastName: null, status: "pending" }] });
    const emulator = await startEmulator({ seed });
    try {
      expect(emulator.users.findByEmail("scim@example.com")).toMatchObject({ firstName: null, lastName: null });
    } finally {
      await emulator.close();
    }
  });

  it("a bad file stops the command with the file and the field named", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-seed-"));
    try {
      const bad = path.join(dir, "world.json");
      fs.writeFileSync(bad, JSON.stringify({ users: [{ email: "a@example.com", firstName: "A" }] }));
      const run = spawnSync(process.execPath, [cli, "--seed", bad], { encoding: "utf8", timeout: 20_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`the seed file ${bad}: users[0].lastName is required`);

      // Fields fine one by one, but not together: a member who is no user of the seed.
      fs.writeFileSync(
        bad,
        JSON.stringify({
          integrations: [
            { application: "Jira", entitlements: [{ id: "USER" }], users: [{ userId: "nobody@example.com", entitlements: [] }] },
          ],
        }),
      );
      const unknown = spawnSync(process.execPath, [cli, "--seed", bad], { encoding: "utf8", timeout: 20_000 });
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toContain("the seed does not load: integration Jira names an unknown user nobody@example.com");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the command given a flag it does not take", () => {
  it("says the mistake first and again after the usage, where a terminal leaves it in sight, and exits 2", () => {
    const run = spawnSync(process.execPath, [cli, "--wrold", "populated"], { encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(2);
    const lines = run.stderr.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^workspace-access-emulator: .*--wrold/);
    expect(lines.at(-1)).toBe(lines[0]);
    expect(run.stderr).toContain("--world");
    expect(lines.length).toBeGreaterThan(10);
  });
});

describe("the command on a port already taken (another emulator on 8080, as the quickstart starts one)", () => {
  it("stops naming the port and the fix, not the seed", async () => {
    const other = await startEmulator();
    started.push(other);
    const port = new URL(other.url).port;
    const run = spawnSync(process.execPath, [cli, "--port", port], { encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe(
      `workspace-access-emulator: port ${port} of 127.0.0.1 is in use (another emulator still running?): give another --port, ` +
        "or leave --port out to take a free one.\n",
    );
    // The emulator already there keeps answering.
    expect((await fetch(`${other.url}users`, { headers: { "X-API-Key": other.apiKey } })).status).toBe(200);
  });
});

/** The `sh` code blocks of docs/emulator.md after `heading`, up to the next heading of that level. */
function shBlocks(heading: string): string[] {
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "emulator.md"), "utf8");
  const start = doc.indexOf(`## ${heading}`);
  const end = doc.indexOf("\n## ", start + 3);
  return [...doc.slice(start, end < 0 ? undefined : end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

const hasCurl = spawnSync("curl", ["--version"]).status === 0 && spawnSync("bash", ["--version"]).status === 0;

describe("docs/emulator.md, run as written", () => {
  it("starts every world it shows (from a clone, the seed without node_modules/pulumi-workspace-access/)", async () => {
    const help = spawnSync(process.execPath, [cli, "--help"], { encoding: "utf8" }).stdout;
    const commands = (shBlocks("Starting a world")[0] ?? "").split("\n").filter((line) => line.startsWith("npx workspace-access-emulator"));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      const args = command
        .replace(/#.*/, "")
        .trim()
        .split(/\s+/)
        .slice(2)
        .map((arg) => arg.replace("node_modules/pulumi-workspace-access/", ""));
      const world = args[args.indexOf("--world") + 1];
      // A world the command does not have yet is the one line of the docs that waits for it.
      if (args.includes("--world") && world !== undefined && !help.includes(`"${world}"`)) continue;
      const printed = await startCli(...args.filter((arg, i) => arg !== "--port" && args[i - 1] !== "--port"));
      expect(printed, command).toContain("base URL: http://127.0.0.1:");
    }
  });

  it.skipIf(!hasCurl)(`changes access by HTTP with its curl commands${hasCurl ? "" : " (skipped: no curl or bash here)"}`, async () => {
    const printed = await startCli("--api-key", "wa_emu_demo");
    const base = /base URL: (\S+)/.exec(printed)?.[1] ?? "";
    const root = base.replace(/\/$/, "");
    const script = shBlocks("Changing access by HTTP").join("\n").replaceAll("http://127.0.0.1:8080/api/v1", root);
    expect(script).toContain(`B=${root}\n`);
    // --noprofile --norc, as test/cli/fleet.test.ts: a bash whose stdin is a network socket (a remote runner) reads
    // /etc/bash.bashrc, which fails under -u.
    const run = spawnSync("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", script], { encoding: "utf8", timeout: 60_000 });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    // The invitation, the set, the add/remove and the removal each finished their job.
    expect(run.stdout.match(/^"status":"finished"$/gm)).toHaveLength(4);
    expect(run.stdout).toMatch(/"email":"alan@example.com","entitlements":\[\{"id":"EDITOR".*\{"id":"MANAGER"/);

    const get = async (route: string) => fetch(`${base}${route}`, { headers: { "X-API-Key": "wa_emu_demo" } });
    const youtube = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
    const alan = "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f03";
    expect((await get(`integrations/${youtube}/users/${alan}`)).status).toBe(404);
    expect((await get(`users/${alan}`)).status).toBe(404);
    expect(await usersOf(printed)).toContain("joan@example.com");
  });
});

describe("--log-requests", () => {
  it("prints one line per request the command answers, method, path, status and ms, without the key", async () => {
    const child = spawn(process.execPath, [cli, "--port", "0", "--log-requests"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    // Resolves once stdout matches `pattern` (each chunk is appended above first: listeners run in order).
    const printed = (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const look = () => {
          if (!pattern.test(out)) return;
          child.stdout?.off("data", look);
          resolve();
        };
        child.stdout?.on("data", look);
        child.once("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
    await printed(/Press Ctrl\+C/);
    expect(out).toContain("Requests are logged below");
    const url = /base URL: (\S+)/.exec(out)?.[1] ?? "";
    const key = /API key: +(\S+)/.exec(out)?.[1] ?? "";
    const banner = out;
    const logged = printed(/GET \/api\/v1\/users\?filter=ada 200 \d+ ms\n/);
    expect((await fetch(`${url}users?filter=ada`, { headers: { "X-API-Key": key } })).status).toBe(200);
    await logged;
    expect(out.slice(banner.length)).toMatch(/^GET \/api\/v1\/users\?filter=ada 200 \d+ ms\n$/);
    expect(out.slice(banner.length)).not.toContain(key.slice(0, 8));
  });

  it("keeps answering once its output is gone (`| head`, `| grep -m1 key`), and stops cleanly on a signal", async () => {
    const child = spawn(process.execPath, [cli, "--port", "0", "--log-requests"], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    let out = "";
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("Press Ctrl+C")) resolve();
      });
    });
    const url = /base URL: (\S+)/.exec(out)?.[1] ?? "";
    const key = /API key: +(\S+)/.exec(out)?.[1] ?? "";
    // What reads the output stops reading: each line the emulator writes from now on meets a closed pipe (EPIPE).
    child.stdout?.destroy();
    for (let i = 0; i < 3; i++) expect((await fetch(`${url}users`, { headers: { "X-API-Key": key } })).status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(err).toBe("");
  });
});
