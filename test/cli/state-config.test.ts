/**
 * A `pulumi refresh` or `destroy` without `--run-program` runs with the provider configuration the state recorded at the
 * last `pulumi up`, not the stack config now, through the real `pulumi` CLI: a setting fixed since is not read, and the
 * error says so and what to run; with `--run-program` the fix is read. Each step asserts on what the emulator received.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_SCOPES } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, skipNote } from "./support.ts";

const program = `${programHeader({})}
new wa.User("bob", { email: "bob@example.com", firstName: "Bob", lastName: "Stone" });
`;

describe.skipIf(!cliAvailable)(
  `a refresh or destroy runs with the state's provider configuration, through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let h: HabitsStack;

    beforeAll(async () => {
      h = await habitsStack("state-config", program);
      await h.stack.up();
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await h?.dispose();
    });

    it("a setting an up refused, fixed since: refresh still refuses it, saying to run it with --run-program, which works", async () => {
      await h.stack.setConfig("workspace-access:maxRetries", "lots");
      const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(up.run.code).not.toBe(0);
      expect(up.run.output).toContain("workspace-access:maxRetries must be a whole number");
      expect(up.run.output).not.toContain("--run-program");
      expect(up.requests).toEqual([]);
      await h.stack.setConfig("workspace-access:maxRetries", "3");
      const refused = await h.step((s) => s.run(["refresh", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(refused.run.code).not.toBe(0);
      expect(refused.run.output).toContain("workspace-access:maxRetries must be a whole number");
      expect(refused.run.output).toContain("once the stack config is fixed, run pulumi refresh --run-program (or pulumi up first)");
      expect(refused.requests).toEqual([]);
      const refresh = await h.step((s) => s.run(["refresh", "--yes", "--skip-preview", "--run-program"]));
      expect(refresh.run.code).toBe(0);
      expect(refresh.requests.map((r) => `${r.method} ${r.status}`)).toContain("GET 200");
    });

    it("a key rotation: destroy still sends the old key, saying to run it with --run-program, which sends the new one", async () => {
      await h.stack.up();
      const bob = h.emulator.users.findByEmail("bob@example.com")?.id;
      const newKey = `wa_emu_${randomBytes(16).toString("hex")}`;
      h.emulator.addKey(newKey, [...ALL_SCOPES]);
      // Revoked: the old key keeps no scope, and a missing scope answers 401 as an expired key does.
      h.emulator.addKey(h.emulator.apiKey, []);
      h.emulator.setMissingScopeStatus(401);
      await h.stack.setConfig("workspace-access:apiKey", { secret: newKey });
      const refused = await h.step((s) => s.run(["destroy", "--yes", "--skip-preview"], { allowFailure: true }));
      expect(refused.run.code).not.toBe(0);
      expect(refused.run.output).toContain("so after a key rotation it still sends the old key: run pulumi destroy --run-program");
      expect(refused.requests.map((r) => r.status)).toEqual([401]);
      expect(refused.run.output.includes(newKey) || refused.run.output.includes(h.emulator.apiKey)).toBe(false);
      const destroy = await h.step((s) => s.run(["destroy", "--yes", "--skip-preview", "--run-program"]));
      expect(destroy.run.code).toBe(0);
      expect(destroy.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toContain(`DELETE /users/${bob} 204`);
      expect(h.emulator.users.findByEmail("bob@example.com")).toBeUndefined();
    });
  },
);
