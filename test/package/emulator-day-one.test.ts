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
import { repoRoot } from "../engine/index.ts";

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
  const child = spawn(process.execPath, [cli, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
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

describe("--seed", () => {
  it("loads the documented example file", async () => {
    const printed = await startCli("--seed", seedExample);
    expect(printed).toMatch(/integration Jira: 3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a09/);
    expect(await usersOf(printed)).toEqual(["ada@example.com", "alan@example.com", "guest@partner.example"]);
  });

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
