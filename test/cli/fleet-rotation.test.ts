/**
 * `workspace-access-fleet` after a key rotation, through the real `pulumi` CLI, run from the packed tarball's bin: acme's
 * key is replaced in its stack config (`pulumi config set --secret workspace-access:apiKey <new>`) and the old one
 * revoked. The fleet's drift check, rollout (`up --refresh`) and refresh then reach the workspace with the new key at
 * once, with no plain `pulumi up` first: each runs the stack's program (`--run-program`), so the provider is configured
 * from the stack config now, not from the configuration the state recorded at the last up. A key then refused to every
 * resource's read says where the key comes from once, not once per resource.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { randomApiKey } from "../../src/emulator/keys";
import { ALL_SCOPES } from "../../src/emulator/scopes";
import { type FleetFixture, fleetFixture } from "./fleet-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type CliStack, cliAvailable, skipNote } from "./support.ts";

interface FleetJson {
  command: string;
  stacks: Array<{ stack: string; result: string; changes: Record<string, number>; error?: string }>;
}

describe.skipIf(!cliAvailable)(
  `workspace-access-fleet after a key rotation, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let f: FleetFixture;
    let emu: Emulator;
    let acme: CliStack;
    const newKey = randomApiKey();

    async function fleet(args: string[]): Promise<{ code: number | null; report: FleetJson; stderr: string }> {
      const { code, stdout, stderr } = await f.fleet([...args, "--format", "json"]);
      return { code, report: JSON.parse(stdout) as FleetJson, stderr };
    }
    const refused = () => emu.requests.filter((r) => r.status === 401 || r.status === 403);

    beforeAll(async () => {
      f = await fleetFixture();
      ({ emu, acme } = f);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await f?.dispose();
    });

    it("drift, up --refresh and refresh use the stack config's new key at once, no plain up first", async () => {
      const rollout = await fleet(["up"]);
      expect(rollout.code).toBe(0);
      // The rotation: the new key in the stack config, the old one revoked (it may do nothing: 401).
      emu.addKey(newKey, [...ALL_SCOPES]);
      emu.addKey(emu.apiKey, []);
      emu.setMissingScopeStatus(401);
      await acme.setConfig("workspace-access:apiKey", { secret: newKey });
      const alice = emu.users.findByEmail("alice@acme.example");
      emu.users.update(alice!.id, { lastName: "Changed-By-Hand" });

      emu.clearRequests();
      const drift = await fleet(["drift"]);
      expect(drift.report.stacks[0]?.error).toBeUndefined();
      expect(drift.code).toBe(1);
      expect(drift.report.stacks).toMatchObject([{ stack: "acme", result: "succeeded", changes: { update: 1 } }]);
      expect(emu.requests.length).toBeGreaterThan(0);
      expect(refused()).toEqual([]);
      expect(emu.users.findByEmail("alice@acme.example")?.lastName).toBe("Changed-By-Hand");

      emu.clearRequests();
      const up = await fleet(["up", "--refresh"]);
      expect(up.report.stacks[0]?.error).toBeUndefined();
      expect(up.code).toBe(0);
      expect(up.report.stacks).toMatchObject([{ stack: "acme", result: "succeeded", changes: { update: 1 } }]);
      expect(refused()).toEqual([]);
      expect(emu.users.findByEmail("alice@acme.example")?.lastName).toBe("Doe");

      emu.clearRequests();
      const refresh = await fleet(["refresh", "--expect-no-changes"]);
      expect(refresh.report.stacks[0]?.error).toBeUndefined();
      expect(refresh.code).toBe(0);
      expect(emu.requests.length).toBeGreaterThan(0);
      expect(refused()).toEqual([]);
    });

    it("a key refused to each resource's read: where the key comes from is said once, with no hint of --run-program", async () => {
      // The new key may now list integrations only: the program's lookups pass, every resource's read is refused.
      emu.addKey(newKey, ["read:integrations"]);
      emu.clearRequests();
      const drift = await fleet(["drift"]);
      expect(drift.code).toBe(1);
      const error = drift.report.stacks[0]?.error ?? "";
      expect(drift.report.stacks).toMatchObject([{ stack: "acme", result: "failed" }]);
      // The users' reads are refused (the entitlements' wait for them, and do not run).
      expect(refused().filter((r) => /^\/users\/./.test(r.path))).toHaveLength(2);
      expect(error).toContain("User alice@acme.example: ");
      expect(error).toContain("User bob@acme.example: ");
      expect(error.split("The key comes from workspace-access:apiKey")).toHaveLength(2);
      expect(error).not.toContain("--run-program");
    });

    it("no output of any run holds a key, whole or in part", () => {
      expect(f.outputs.length).toBeGreaterThanOrEqual(5);
      for (const output of f.outputs) for (const key of [emu.apiKey, newKey]) expect(output.includes(key.slice(-12))).toBe(false);
    });
  },
);
