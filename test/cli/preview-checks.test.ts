/**
 * What the package checks at preview, through the real `pulumi` CLI: a misspelt
 * `workspace-access:*` key (this rests on the dynamic-provider host's private `rawConfig`, which
 * only the real engine pins), a missing key, and an entitlement the integration does not offer
 * each fail `pulumi preview` with the package's own message in the CLI's output, and no write
 * reaches the emulator; a setting refused fails before any request at all. `getJob`, which runs in
 * the program, refuses the same settings before its first request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import type { Project } from "../support/project.ts";
import { packedProject } from "../support/packed.ts";
import { NO_FALLBACKS, SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { type CliConfigValue, cliAvailable, openCliStack, skipNote } from "./support.ts";

// The CLI type-checks a TypeScript program (ts-node): no
// `process` here (the project has no @types/node); the entitlement comes from the project's config.
const program = `import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";
const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
new wa.IntegrationEntitlement("alice-youtube", {
  integrationId: "${DEFAULT_IDS.integrations.youtube}",
  userId: alice.id,
  entitlements: [new pulumi.Config().get("entitlement") ?? "VIEWER"],
});
export const id = alice.id;
`;

const jobProgram = `import * as wa from "pulumi-workspace-access";
export const status = wa.getJob({ id: "6f1d2c3b-4a5e-4f60-8a71-000000000000" }).then((job) => job.status);
`;

describe.skipIf(!cliAvailable)(
  `settings and entitlements checked at preview, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let emulator: Emulator;
    let project: Project;
    let jobProject: Project;
    let stacks = 0;

    beforeAll(async () => {
      emulator = await startTestEmulator();
      project = await packedProject({ name: "preview-checks", files: { "index.ts": program } });
      jobProject = await packedProject({ name: "preview-checks-job", files: { "index.ts": jobProgram } });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await Promise.all([project?.remove(), jobProject?.remove(), emulator?.close()]);
    });

    const good = (): Record<string, CliConfigValue> => ({
      "workspace-access:baseUrl": emulator.url,
      "workspace-access:apiKey": { secret: emulator.apiKey },
    });

    const without = (key: string): Record<string, CliConfigValue> => {
      const config = good();
      delete config[key];
      return config;
    };

    /** `pulumi preview` of a fresh stack with this config: its output, and the writes it caused. */
    async function preview(config: Record<string, CliConfigValue>, env: Record<string, string> = {}, of: Project = project) {
      stacks += 1;
      const stack = await openCliStack({ projectDir: of.dir, stackName: `s${stacks}`, config, env: { ...NO_FALLBACKS, ...env } });
      try {
        const before = emulator.requests.length;
        const run = await stack.run(["preview"], { allowFailure: true });
        return { run, requests: emulator.requests.slice(before) };
      } finally {
        await stack.remove();
      }
    }

    it("a good config previews (the control)", async () => {
      const { run, requests } = await preview(good());
      expect(run.code).toBe(0);
      expect(run.output).toMatch(/\+ 3 to create/);
      expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
    });

    it.each<[string, () => Record<string, CliConfigValue>, string[]]>([
      [
        "a misspelt key (maxretries)",
        () => ({ ...good(), "workspace-access:maxretries": "3" }),
        ["Unknown setting `workspace-access:maxretries`: did you mean `workspace-access:maxRetries`?"],
      ],
      [
        "a misspelt secret key (apikey)",
        () => {
          const { "workspace-access:apiKey": _, ...rest } = good();
          return { ...rest, "workspace-access:apikey": { secret: emulator.apiKey } };
        },
        ["Unknown setting `workspace-access:apikey`: did you mean `workspace-access:apiKey`?"],
      ],
      [
        "a misspelt namespace (workspace-acces:apiKey)",
        () => {
          const { "workspace-access:apiKey": _, ...rest } = good();
          return { ...rest, "workspace-acces:apiKey": { secret: emulator.apiKey } };
        },
        ["Unknown setting `workspace-acces:apiKey`: did you mean `workspace-access:apiKey`?"],
      ],
      [
        "no API key",
        () => without("workspace-access:apiKey"),
        ["No API key in the stack config, which names the workspace's address", "pulumi config set --secret workspace-access:apiKey <key>"],
      ],
      [
        "the key set without the namespace (pulumi config set --secret apiKey: the project's own key)",
        () => ({ ...without("workspace-access:apiKey"), "preview-checks:apiKey": { secret: emulator.apiKey } }),
        [
          "workspace-access:apiKey is not set, but `preview-checks:apiKey` is",
          "Run: pulumi config set --secret workspace-access:apiKey <key> (and, if `preview-checks:apiKey` was meant for this package, pulumi config rm apiKey)",
        ],
      ],
      [
        "baseurl for baseUrl",
        () => ({ ...without("workspace-access:baseUrl"), "workspace-access:baseurl": emulator.url }),
        ["Unknown setting `workspace-access:baseurl`: did you mean `workspace-access:baseUrl`?"],
      ],
      [
        "no workspace or base URL (the stack holding the key)",
        () => without("workspace-access:baseUrl"),
        [
          "No workspace address in the stack config, which holds the API key",
          "Run: pulumi config set workspace-access:baseUrl https://<workspace>.<host>/api/v1/, or set workspace-access:workspace and workspace-access:host",
        ],
      ],
      [
        "a bad number",
        () => ({ ...good(), "workspace-access:maxRetries": "two" }),
        [
          "workspace-access:maxRetries must be a whole number of at least 0 (the value set is not shown, as it may be a secret). Run: pulumi config set workspace-access:maxRetries <value>",
        ],
      ],
      [
        "plain http to a remote host",
        () => ({ ...good(), "workspace-access:baseUrl": "http://acme.example.com/api/v1/" }),
        ["uses plain http://", "Run: pulumi config set workspace-access:baseUrl <value>"],
      ],
      [
        "a key pasted with a space",
        () => ({ ...good(), "workspace-access:apiKey": { secret: `${emulator.apiKey} x` } }),
        ["workspace-access:apiKey contains spaces", "Run: pulumi config set --secret workspace-access:apiKey <value>"],
      ],
    ])("%s fails pulumi preview with the package's message, nothing sent", async (_, config, expected) => {
      const { run, requests } = await preview(config());
      expect(run.code).not.toBe(0);
      for (const text of expected) expect(run.output).toContain(text);
      expect(requests).toEqual([]);
      expect(run.output.includes(emulator.apiKey)).toBe(false);
    });

    it.each<[string, () => Record<string, CliConfigValue>, string]>([
      [
        "a misspelt key",
        () => ({ ...good(), "workspace-access:maxretries": "3" }),
        "Unknown setting `workspace-access:maxretries`: did you mean `workspace-access:maxRetries`?",
      ],
      ["no API key", () => without("workspace-access:apiKey"), "Run: pulumi config set --secret workspace-access:apiKey <key>"],
    ])("getJob with %s fails the program before its first request", async (_, config, expected) => {
      const { run, requests } = await preview(config(), {}, jobProject);
      expect(run.code).not.toBe(0);
      expect(run.output).toContain(expected);
      expect(requests).toEqual([]);
    });

    it("a stack naming the address takes no key from the shell: preview fails naming the secret to set, nothing sent", async () => {
      // The shell's key is this very workspace's: were it sent, the preview would pass (today's fault).
      const { "workspace-access:apiKey": _, ...stackAddressOnly } = good();
      const { run, requests } = await preview(stackAddressOnly, { WORKSPACE_ACCESS_API_KEY: emulator.apiKey });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain("No API key in the stack config, which names the workspace's address");
      expect(run.output).toContain("pulumi config set --secret workspace-access:apiKey <key>");
      expect(requests).toEqual([]);
      expect(run.output.includes(emulator.apiKey)).toBe(false);
    });

    it("an entitlement the integration does not offer fails pulumi preview naming it, nothing written", async () => {
      const { run, requests } = await preview({ ...good(), "preview-checks:entitlement": "VEIWER" });
      expect(run.code).not.toBe(0);
      expect(run.output).toContain(`integration ${DEFAULT_IDS.integrations.youtube} offers no entitlement`);
      expect(run.output).toContain("VEIWER");
      expect(run.output).toContain("VIEWER");
      // The check reads the catalogue; it writes nothing.
      expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${DEFAULT_IDS.integrations.youtube}/entitlements`]);
    });
  },
);
