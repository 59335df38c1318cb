/**
 * Bad input as a whole `pulumi up` through the real CLI (issue 6, "Bad input"): it fails at check
 * with the property named, sends nothing and records nothing. The table of every bad input runs
 * in-process against the providers' `Check` (test/host/bad-input.test.ts).
 */
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator/index.ts";
import { expectNoKeyLeak, header, type Scenario, scenario, stepOf, userProgram } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const youtube = DEFAULT_IDS.integrations.youtube;

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  describe("a whole up with bad input", () => {
    const open: Scenario[] = [];
    afterAll(async () => {
      for (const s of open.splice(0)) {
        try {
          expectNoKeyLeak(s);
        } finally {
          await s.close();
        }
      }
    });

    it("fails at check, names the properties, sends nothing and records nothing", async () => {
      const program = `${header}
const u = new wa.User("mallory", { email: "mallory@example.com.", firstName: " ", lastName: "M" });
new wa.IntegrationEntitlement("sneaky", { integrationId: "${youtube}", userId: "../../users", entitlements: ["ADMIN%2F..", "VIEWER"] });
`;
      const s = await scenario({ program, emulator: { seed: defaultSeed() } });
      open.push(s);
      const error = await s.fails("up");
      const reasons = error.result.errors.join("\n");
      // The CLI's form of a Check failure: "property <name> value <...> has a problem: <reason>". The
      // engine stops at the first resource whose Check fails (the two register at once): each one
      // reported names every property of its own.
      const failed = ["mallory", "sneaky"].filter((name) => reasons.includes(`resource '${name}'`));
      expect(failed.length).toBeGreaterThan(0);
      if (failed.includes("mallory")) {
        expect(reasons).toMatch(/property email value .* has a problem: email must be/);
        expect(reasons).toMatch(/property firstName value .* has a problem: firstName must not be empty/);
      }
      if (failed.includes("sneaky")) {
        expect(reasons).toMatch(/property userId value .* has a problem: userId must contain only/);
        expect(reasons).toContain("entitlements[0]");
      }
      // Whichever registration failed first, the engine started no create.
      expect(error.result.steps.filter((st) => st.op === "create" && st.type !== "pulumi:pulumi:Stack")).toHaveLength(0);
      expect(s.emu.requests).toHaveLength(0);
      expect(s.stack.state().resources.filter((r) => r.custom)).toHaveLength(0);
    });

    it("an entitlement id that would reach another endpoint fails at check", async () => {
      const program = `${header}
new wa.IntegrationEntitlement("sneaky", { integrationId: "${youtube}", userId: "${DEFAULT_IDS.users.alan}", entitlements: ["VIEWER", "../../../users?x=#"] });
`;
      const s = await scenario({ program, emulator: { seed: defaultSeed() } });
      open.push(s);
      const error = await s.fails("up");
      expect(error.message).toContain("entitlements[1]");
      expect(s.emu.requests).toHaveLength(0);
    });

    it("an unknown workspace role warns and does not fail check", async () => {
      const program = userProgram({}).concat(
        `new wa.User("wiz", { email: "wiz@example.com", firstName: "W", lastName: "Z", role: "workspace_wizard" });\n`,
      );
      const s = await scenario({ program });
      open.push(s);
      // A preview: Check passes (the service itself may still refuse the role; the emulator does).
      const preview = await s.preview();
      expect(stepOf(preview, "wiz").op).toBe("create");
      expect(preview.errors).toEqual([]);
      const warning = preview.diagnostics.find((l) => l.startsWith("warning: ") && l.includes("workspace_wizard"));
      expect(warning).toContain("not one of the known workspace roles");
      expect(s.emu.requests).toHaveLength(0);
    });
  });
});
