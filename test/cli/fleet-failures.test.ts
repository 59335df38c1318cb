/**
 * How `workspace-access-fleet` reports a workspace that fails a rollout, through the real `pulumi` CLI, run from the packed
 * tarball's bin: a 503 storm (every request refused, past every retry) names each resource whose create is in doubt, each
 * sentence whole (one said already is left out, never a closing parenthesis with it); and a stack left locked by a
 * rollout that was killed (a CI runner's SIGKILL after its grace period) fails naming the stack in the command that
 * unlocks it, which the platform team then runs as written before the rollout goes through.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetFixture, fleetFixture } from "./fleet-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, skipNote } from "./support.ts";

interface FleetJson {
  stacks: Array<{ stack: string; result: string; error?: string }>;
}

/** Whether every parenthesis of `text` is closed, in order. */
function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    depth += c === "(" ? 1 : c === ")" ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

describe.skipIf(!cliAvailable)(`workspace-access-fleet: a workspace failing a rollout${skipNote}`, { timeout: 300_000 }, () => {
  let f: FleetFixture;

  beforeAll(async () => {
    f = await fleetFixture();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await f?.dispose();
  });

  it("a 503 storm: each user whose create is in doubt is named, and no sentence of the error is cut short", async () => {
    f.emu.fault({ path: /.*/, status: 503, times: 100_000 });
    const run = await f.fleet(["up", "--format", "json"]);
    f.emu.clearFaults();
    expect(run.code).toBe(1);
    const acme = (JSON.parse(run.stdout) as FleetJson).stacks[0];
    expect(acme?.result).toBe("failed");
    const error = acme?.error ?? "";
    // Both creates were sent and refused; nothing was created.
    const posts = f.emu.requests.filter((r) => r.method === "POST" && r.path === "/users");
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(posts.every((r) => r.status === 503)).toBe(true);
    expect(f.emu.users.findByEmail("alice@acme.example")).toBeUndefined();
    for (const email of ["alice@acme.example", "bob@acme.example"]) {
      expect(error).toContain(`User ${email}: POST /api/v1/users answered 503`);
      expect(error).toContain(`Whether it created ${email} is not known: looking the email up failed (GET /api/v1/users answered 503`);
    }
    expect(balanced(error), error).toBe(true);
    expect(error.includes(f.emu.apiKey.slice(-12))).toBe(false);
  });

  it("an up that fails midway lists under its error what it changed before it stopped, and nothing else", async () => {
    // The first user's create refused for good: the other user (and its entitlements, if it is alice) is created.
    f.emu.fault({ method: "POST", path: "/users", status: 400, times: 1 });
    const run = await f.fleet(["up"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^acme +failed /m);
    const created = ["alice@acme.example", "bob@acme.example"].filter((email) => f.emu.users.findByEmail(email) !== undefined);
    expect(created).toHaveLength(1);
    const row = run.stdout.slice(run.stdout.indexOf("acme "), run.stdout.indexOf("workspace-access-fleet up:"));
    expect(row).toContain("    changed before it failed:\n");
    for (const email of ["alice@acme.example", "bob@acme.example"]) {
      expect(row.includes(`    + User ${email}\n`), `${email} listed as created`).toBe(created.includes(email));
    }
  });

  it("a stack left locked by a killed rollout names pulumi cancel with the stack; run as written, the rollout goes through", async () => {
    const locks = path.join(f.acme.backendDir, ".pulumi", "locks");
    const lockHeld = () => fs.existsSync(locks) && fs.readdirSync(locks, { recursive: true }).some((p) => String(p).endsWith(".json"));
    // Held at the first request: pulumi has taken the stack's lock by then.
    f.emu.fault({ path: /.*/, delayMs: 120_000, times: 1 });
    await f.acme.run(["up", "--yes", "--skip-preview"], {
      allowFailure: true,
      onStart: (child) => {
        const poll = setInterval(() => {
          if (!lockHeld()) return;
          clearInterval(poll);
          child.kill("SIGKILL");
        }, 50);
        child.on("exit", () => clearInterval(poll));
      },
    });
    f.emu.clearFaults();
    expect(lockHeld()).toBe(true);

    const locked = await f.fleet(["up", "--format", "json"]);
    expect(locked.code).toBe(1);
    const error = (JSON.parse(locked.stdout) as FleetJson).stacks[0]?.error ?? "";
    expect(error).toContain("currently locked");
    const cancel = /pulumi cancel --yes --stack (\S+?)[,;.]? /.exec(error);
    expect(cancel, error).not.toBeNull();
    expect(cancel?.[1]).toMatch(/(^|\/)acme$/);
    expect(error).toContain("wait for it to end");

    // The command as the error gives it.
    await f.acme.run(["cancel", "--yes", "--stack", cancel?.[1] ?? ""], { stack: false });
    expect(lockHeld()).toBe(false);
    const rollout = await f.fleet(["up", "--format", "json"]);
    expect(rollout.code).toBe(0);
    expect(f.emu.users.findByEmail("alice@acme.example")).toBeDefined();
  });
});
