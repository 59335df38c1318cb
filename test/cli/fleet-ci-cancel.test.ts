/**
 * docs/fleet.md's rollout step, cancelled as GitHub's runner cancels a step: the step's `run:` text is a script file
 * that bash runs (`bash --noprofile --norc -eo pipefail FILE`), and the runner signals that bash only, SIGINT then
 * SIGTERM. The fleet must be the process those reach (the step `exec`s it): a command bash (or `npx`, through a shell
 * of its own) runs as a child gets neither, and runs on, orphaned, until the runner kills the process tree. Signalled,
 * it starts no new stack, cancels the running one and prints its report, the run `interrupted`.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { repoRoot } from "../support/paths.ts";
import { packedTemplate } from "../support/packed.ts";
import { type FleetFixture, fleetFixture } from "./fleet-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, outputOf, skipNote } from "./support.ts";

/** The `run:` text of docs/fleet.md's workflow step so named. */
function stepScript(name: string): string {
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "fleet.md"), "utf8");
  const workflow = parseYaml(/```yaml\n(name: fleet\n[\s\S]*?)```/.exec(doc)?.[1] ?? "") as {
    jobs: { fleet: { steps: Array<{ name?: string; run?: string }> } };
  };
  return workflow.jobs.fleet.steps.find((step) => step.name === name)?.run ?? "";
}

describe.skipIf(!cliAvailable)(
  `docs/fleet.md's rollout step, cancelled as GitHub's runner cancels it${skipNote}`,
  { timeout: 300_000 },
  () => {
    let f: FleetFixture;
    let scriptDir: string;

    beforeAll(async () => {
      f = await fleetFixture();
      // As `npm ci` installs the package's bin in the project.
      const fleetBin = path.join(await packedTemplate(), "node_modules", ".bin", "workspace-access-fleet");
      await fs.promises.mkdir(path.join(f.project.dir, "node_modules", ".bin"), { recursive: true });
      await fs.promises.symlink(fs.realpathSync(fleetBin), path.join(f.project.dir, "node_modules", ".bin", "workspace-access-fleet"));
      scriptDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-fleet-step-"));
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await f?.dispose();
      if (scriptDir) await fs.promises.rm(scriptDir, { recursive: true, force: true });
    });

    it("the fleet gets the runner's SIGINT and SIGTERM, cancels the running stack and prints its report", async () => {
      const script = path.join(scriptDir, "step.sh");
      await fs.promises.writeFile(script, `${stepScript("Roll out, one workspace first")}\n`);
      const step = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
        cwd: f.project.dir,
        env: { ...f.acme.env, npm_config_offline: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let signalled = false;
      step.stderr?.on("data", (chunk: Buffer) => {
        if (signalled || !String(chunk).includes("acme: up started")) return;
        signalled = true;
        // The runner signals the step's process, not its process group: SIGINT, then SIGTERM (7.5 s later on GitHub).
        step.kill("SIGINT");
        setTimeout(() => step.kill("SIGTERM"), 300);
      });
      const run = await outputOf(step);
      expect(signalled).toBe(true);
      expect(run.stderr).toContain("workspace-access-fleet: interrupted: no new stack starts");
      expect(run.stderr).toContain("workspace-access-fleet: terminated (SIGTERM): no new stack starts; cancelling the running stacks");
      expect(run.stdout).toMatch(/^acme +(failed|skipped) /m);
      expect(run.stdout).toContain("workspace-access-fleet up: 1 stack, 0 succeeded");
      expect(run.stdout).toContain("; interrupted\n");
      expect(run.code).toBe(1);
    });
  },
);
