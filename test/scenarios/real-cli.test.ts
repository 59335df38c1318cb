/**
 * examples/basic with the real Pulumi CLI, where one is installed: a local file backend, the key
 * set with `pulumi config set --secret`, up, a preview expecting no change, destroy, all against
 * the emulator. Without `pulumi` on PATH the test is reported as skipped, by name.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { packedProject } from "../engine/packed.ts";
import { exampleFile, NO_FALLBACKS, startTestEmulator } from "./support.ts";

function onPath(command: string): boolean {
  return (process.env["PATH"] ?? "")
    .split(path.delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        fs.accessSync(path.join(dir, command), fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

const pulumiOnPath = onPath("pulumi");

describe("the real pulumi CLI", () => {
  it.skipIf(!pulumiOnPath)(
    `runs examples/basic with the real pulumi CLI${pulumiOnPath ? "" : " (skipped: pulumi is not on PATH)"}`,
    { timeout: 300_000 },
    async () => {
      const emulator = await startTestEmulator();
      const project = await packedProject({
        name: "workspace-access-basic",
        files: { "index.ts": exampleFile("basic", "index.ts"), "Pulumi.yaml": exampleFile("basic", "Pulumi.yaml") },
      });
      const backend = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-backend-"));
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const key of Object.keys(NO_FALLBACKS)) delete env[key];
      Object.assign(env, {
        PULUMI_BACKEND_URL: `file://${backend}`,
        PULUMI_CONFIG_PASSPHRASE: `passphrase-${randomBytes(8).toString("hex")}`,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      });
      const pulumi = (...args: string[]): string => {
        const run = spawnSync("pulumi", [...args, "--non-interactive"], { cwd: project.dir, env, encoding: "utf8", timeout: 240_000 });
        if (run.status !== 0) throw new Error(`pulumi ${args.join(" ")} exited with ${run.status}:\n${run.stdout}\n${run.stderr}`);
        return `${run.stdout}${run.stderr}`;
      };
      try {
        pulumi("stack", "init", "dev");
        pulumi("config", "set", "workspace-access:baseUrl", emulator.url);
        pulumi("config", "set", "--secret", "workspace-access:apiKey", emulator.apiKey);

        const up = pulumi("up", "--yes", "--skip-preview");
        const alice = emulator.users.findByEmail("alice@example.com");
        expect(alice).toMatchObject({ firstName: "Alice", lastName: "Doe" });
        expect(emulator.users.findByEmail("bob@example.com")).toMatchObject({ role: "workspace_super_admin" });
        const outputs = JSON.parse(pulumi("stack", "output", "--json")) as Record<string, unknown>;
        expect(outputs).toMatchObject({ aliceId: alice?.id, aliceEntitlements: ["EDITOR", "VIEWER"], aliceJobStatus: "finished" });

        // No change planned: the CLI exits non-zero otherwise.
        const preview = pulumi("preview", "--expect-no-changes");
        const state = pulumi("stack", "export");
        const config = fs.readFileSync(path.join(project.dir, "Pulumi.dev.yaml"), "utf8");
        for (const text of [up, preview, state, config]) expect(text).not.toContain(emulator.apiKey);
        for (const file of fs.readdirSync(backend, { recursive: true, encoding: "utf8" })) {
          const full = path.join(backend, file);
          if (fs.statSync(full).isFile()) expect(fs.readFileSync(full, "utf8"), file).not.toContain(emulator.apiKey);
        }

        pulumi("destroy", "--yes");
        expect(emulator.users.findByEmail("alice@example.com")).toBeUndefined();
        expect(emulator.users.findByEmail("bob@example.com")).toBeUndefined();
        pulumi("stack", "rm", "--yes");
      } finally {
        await project.remove();
        await fs.promises.rm(backend, { recursive: true, force: true });
        await emulator.close();
      }
    },
  );
});
