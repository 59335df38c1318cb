/**
 * `workspace-access-fleet` keeps the warnings a stack's run gave, through the real `pulumi` CLI, run from the packed
 * tarball's bin: acme's key is in its stack config in plain text, and it may not read entitlement catalogues. pulumi
 * itself shows the warnings and succeeds; the fleet's report gives each once, in every format, with the stack still
 * `succeeded` and the summary counting the stacks that warned; the JSON document lists the resources the preview would
 * change. Every format tells the stack's progress on stderr (a CI job running the markdown comment is not silent), stdout
 * holding the report alone. No output holds the key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetFixture, fleetFixture } from "./fleet-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type CliStack, cliAvailable, skipNote } from "./support.ts";

/** A key that reads users and integrations, but not an integration's entitlement catalogue (that needs write:integrations). */
const KEY = "wa_emu_5f2c9e0b7d1a4c3e8b6a0f9d2e7c1b4a";
const PLAINTEXT = "workspace-access:apiKey is stored in plaintext in the stack config";
const CATALOGUE = /[Ee]ntitlements .*were not checked against .*catalogue/;
/** What every format writes on stderr while the preview runs: the stack's start, and its end with its counts and warnings. */
const PROGRESS = "acme: preview started\nacme: succeeded: 5 create; 3 warnings (listed in the report)\n";

describe.skipIf(!cliAvailable)(
  `workspace-access-fleet reports each stack's warnings, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let f: FleetFixture;
    let acme: CliStack;
    const fleet = (args: string[]) => f.fleet(args);

    beforeAll(async () => {
      f = await fleetFixture({
        emulator: { keys: { [KEY]: ["read:users", "write:users", "read:integrations", "read:automations", "write:automations"] } },
        apiKey: () => KEY,
      });
      ({ acme } = f);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await f?.dispose();
    });

    it("pulumi preview warns and succeeds; the fleet's preview reports each warning once, in every format", async () => {
      const direct = await acme.preview();
      expect(direct.output).toContain(PLAINTEXT);
      expect(direct.output).toMatch(CATALOGUE);

      const json = await fleet(["preview", "--format", "json"]);
      expect(json.code).toBe(0);
      const [stack] = (JSON.parse(json.stdout) as { stacks: Array<{ result: string; warnings?: string[]; resources?: unknown[] }> }).stacks;
      expect(stack?.result).toBe("succeeded");
      // For a tool, each resource the preview would change, with the engine's URN (counted, the stack itself is not listed).
      const created = (type: string, name: string) => ({
        op: "create",
        type,
        name,
        urn: expect.stringMatching(new RegExp(`^urn:pulumi:acme::[^:]+::[^$]*:${type}::${name.replace(/\./g, "\\.")}$`)),
      });
      expect(stack?.resources).toEqual([
        created("IntegrationEntitlement", "alice@acme.example/Slack"),
        created("IntegrationEntitlement", "alice@acme.example/YouTube"),
        created("User", "alice@acme.example"),
        created("User", "bob@acme.example"),
      ]);
      const warnings = stack?.warnings ?? [];
      expect(warnings.filter((w) => w.includes(PLAINTEXT))).toHaveLength(1);
      // One per integration the program grants entitlements of (YouTube, Slack), each once.
      expect(warnings.filter((w) => CATALOGUE.test(w))).toHaveLength(2);
      expect(new Set(warnings).size).toBe(warnings.length);
      expect(warnings.every((w) => !w.includes("[runtime]") && !w.startsWith("warning:"))).toBe(true);
      expect(json.stderr).toBe(PROGRESS);

      const text = await fleet(["preview"]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain(`    warning: ${PLAINTEXT}`);
      expect(text.stdout).toMatch(/^workspace-access-fleet preview: 1 stack, 1 succeeded, 0 failed, 0 skipped, 1 with warnings$/m);

      const markdown = await fleet(["preview", "--format", "markdown"]);
      expect(markdown.stdout).toContain(`\`warning: ${PLAINTEXT}`);
      expect(markdown.stdout).toMatch(CATALOGUE);
      expect(markdown.stdout).toContain("1 with warnings");
      // The comment alone on stdout (`> comment.md`), the progress on stderr as the text format's.
      expect(markdown.stdout).toMatch(/^### workspace-access-fleet preview: /);
      expect(markdown.stderr).toBe(PROGRESS);
      expect(text.stderr).toBe(PROGRESS);
    });

    it("no output of any run holds the key, whole or in part", () => {
      expect(f.outputs).toHaveLength(3);
      for (const output of f.outputs) expect(output.includes(KEY.slice(-12))).toBe(false);
    });
  },
);
