/**
 * `workspace-access-fleet` through the real `pulumi` CLI, run from the packed tarball's bin (as
 * `npx workspace-access-fleet` runs it in a user's project): one project, three stacks on one
 * file backend, each pointed at its own emulator, globex's with a wrong key. docs/fleet.md's
 * workflow steps run as written (its pull request's preview comment reports the three, globex
 * failing in the package's own words); an up whose canary is globex runs nothing else; an up with
 * --continue-on-error rolls out acme and initech; the workflow's nightly drift check finds a drift
 * made in acme's workspace, there only, night after night (it writes no state), and its rollout
 * (up --refresh) puts it back. Ctrl-C starts no new stack. No output of any run holds a key. The stacks are reused
 * from step to step (the file's order is the story).
 */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { randomApiKey } from "../../src/emulator/keys";
import { parse as parseYaml } from "yaml";
import { repoRoot } from "../support/paths.ts";
import type { Project } from "../support/project.ts";
import { packedTemplate } from "../support/packed.ts";
import { SETUP_TIMEOUT_MS, stackPerWorkspaceProject, startTestEmulator } from "./scenario.ts";
import { type CliStack, cliAvailable, openCliStack, outputOf, skipNote } from "./support.ts";

const NAMES = ["acme", "globex", "initech"] as const;
type Name = (typeof NAMES)[number];

/** The third workspace: one person, no integration. */
const INITECH_YAML = `config:
  workspace-access-per-workspace:people:
    - email: dana@initech.example
      firstName: Dana
      lastName: Loe
`;

interface FleetRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface FleetJson {
  command: string;
  expectNoChanges: boolean;
  interrupted: boolean;
  stacks: Array<{ stack: string; result: string; changes: Record<string, number>; error?: string; skippedBecause?: string }>;
}

describe.skipIf(!cliAvailable)(
  `workspace-access-fleet over three workspaces through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    const services = {} as Record<Name, Emulator>;
    const stacks = {} as Record<Name, CliStack>;
    const wrongKey = randomApiKey();
    const runs: FleetRun[] = [];
    let project: Project;
    let fleetBin: string;
    let emptyDir: string;
    /** GitHub's files for a workflow step. */
    let github: string;

    /** Runs the fleet command in the project, asynchronously (the emulators answer from this process). */
    function fleet(args: string[], onStart?: (child: ChildProcess) => void): Promise<FleetRun> {
      const child = spawn(fleetBin, args, { cwd: project.dir, env: stacks.acme.env, stdio: ["ignore", "pipe", "pipe"] });
      onStart?.(child);
      return outputOf(child).then(({ code, stdout, stderr }) => {
        const run = { code, stdout, stderr };
        runs.push(run);
        return run;
      });
    }

    /** What a step of docs/fleet.md's workflow did: its exit code, stdout, and the files GitHub gives it. */
    interface StepRun extends FleetRun {
      summary: string;
      output: string;
      file(name: string): string;
    }

    /**
     * Runs the step of docs/fleet.md's workflow so named, its `run:` text as written, in the
     * project with GitHub's shell and files (`$RUNNER_TEMP`, `$GITHUB_STEP_SUMMARY`, `$GITHUB_OUTPUT`,
     * emptied first), `npx` finding the command where npm installs it.
     */
    async function workflowStep(name: string): Promise<StepRun> {
      const doc = fs.readFileSync(path.join(repoRoot, "docs", "fleet.md"), "utf8");
      const workflow = parseYaml(/```yaml\n(name: fleet\n[\s\S]*?)```/.exec(doc)?.[1] ?? "") as {
        jobs: { fleet: { steps: Array<{ name?: string; run?: string }>; defaults: { run: { "working-directory": string } } } };
      };
      expect(workflow.jobs.fleet.defaults.run["working-directory"]).toBe("infra");
      const script = workflow.jobs.fleet.steps.find((step) => step.name === name)?.run;
      expect(script, `docs/fleet.md's step "${name}"`).toMatch(/(npx |exec node_modules\/\.bin\/)workspace-access-fleet /);
      await fs.promises.rm(github, { recursive: true, force: true });
      await fs.promises.mkdir(github);
      const files = {
        RUNNER_TEMP: github,
        GITHUB_STEP_SUMMARY: path.join(github, "summary.md"),
        GITHUB_OUTPUT: path.join(github, "output"),
      };
      const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");
      // GitHub's shell for a `run:` step on Linux; npm offline: npx must find the installed bin.
      const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script ?? ""], {
        cwd: project.dir,
        env: { ...stacks.acme.env, ...files, npm_config_offline: "true" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      return outputOf(child).then(({ code, stdout, stderr }) => {
        const run = { code, stdout, stderr, summary: read(files.GITHUB_STEP_SUMMARY), output: read(files.GITHUB_OUTPUT) };
        runs.push({ code, stdout: `${stdout}${run.summary}${run.output}`, stderr });
        return { ...run, file: (file: string) => read(path.join(github, file)) };
      });
    }

    const json = (run: FleetRun): FleetJson => JSON.parse(run.stdout) as FleetJson;
    const byStack = (run: FleetRun) => Object.fromEntries(json(run).stacks.map((s) => [s.stack, s]));
    const clearRequests = () => {
      for (const name of NAMES) services[name].clearRequests();
    };

    beforeAll(async () => {
      const [acme, globex, initech] = await Promise.all([startTestEmulator(), startTestEmulator(), startTestEmulator()]);
      Object.assign(services, { acme, globex, initech });
      project = await stackPerWorkspaceProject({ "Pulumi.initech.yaml": INITECH_YAML });
      fleetBin = path.join(await packedTemplate(), "node_modules", ".bin", "workspace-access-fleet");
      emptyDir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-fleet-empty-"));
      github = `${emptyDir}-github`;
      // As npm installs the package's bin in a project (npx finds it there).
      await fs.promises.mkdir(path.join(project.dir, "node_modules", ".bin"), { recursive: true });
      await fs.promises.symlink(fs.realpathSync(fleetBin), path.join(project.dir, "node_modules", ".bin", "workspace-access-fleet"));
      // One backend and one passphrase for the three, as a CI job has: the fleet runs with one environment.
      const key = (name: Name) => (name === "globex" ? wrongKey : services[name].apiKey);
      for (const name of NAMES) {
        stacks[name] = await openCliStack({
          secrets: "passphrase",
          projectDir: project.dir,
          stackName: name,
          ...(name === "acme"
            ? {}
            : { backendDir: stacks.acme.backendDir, env: { PULUMI_CONFIG_PASSPHRASE: stacks.acme.env["PULUMI_CONFIG_PASSPHRASE"] } }),
          config: { "workspace-access:baseUrl": services[name].url, "workspace-access:apiKey": { secret: key(name) } },
        });
      }
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      for (const name of [...NAMES].reverse()) await stacks[name]?.remove();
      await Promise.all([project?.remove(), ...NAMES.map((name) => services[name]?.close())]);
      if (emptyDir) await Promise.all([emptyDir, github].map((dir) => fs.promises.rm(dir, { recursive: true, force: true })));
    });

    it("exits 2 on a usage error, naming the fix: an unknown stack, a folder without a project", async () => {
      const unknown = await fleet(["preview", "--stacks", "acme,nope"]);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("no stack named nope in the project");
      expect(unknown.stderr).toContain("its stacks: acme, globex, initech");
      const noProject = await fleet(["up", "--cwd", emptyDir]);
      expect(noProject.code).toBe(2);
      expect(noProject.stderr).toContain(`no Pulumi project in ${emptyDir} (no Pulumi.yaml)`);
      expect(NAMES.every((name) => services[name].requests.length === 0)).toBe(true);
    });

    it("exits 1, not 2, when pulumi cannot read the project's Pulumi.yaml: the project's mistake, not the command line's", async () => {
      const broken = `${emptyDir}-broken`;
      await fs.promises.mkdir(broken, { recursive: true });
      try {
        await fs.promises.writeFile(path.join(broken, "Pulumi.yaml"), "name: proj\nruntime: nodejs\n  bad: [\n");
        const run = await fleet(["preview", "--cwd", broken]);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(
          new RegExp(
            `^workspace-access-fleet: pulumi cannot read the project in ${broken} \\(could not load current project: .*\\): fix its Pulumi\\.yaml; no stack ran\n$`,
          ),
        );
        expect(run.stdout).toBe("");
      } finally {
        await fs.promises.rm(broken, { recursive: true, force: true });
      }
    });

    it("docs/fleet.md's pull-request step, as written: one preview comment for the three workspaces, globex's refused key in it", async () => {
      const step = await workflowStep("Preview every workspace");
      // Exit 1 (globex failed) is kept for the step that fails the job after the comment is posted.
      expect(step.code).toBe(0);
      expect(step.output).toBe("status=1\n");
      const comment = step.file("fleet.md");
      expect(step.summary).toContain(comment);
      expect(comment).toContain("### workspace-access-fleet preview: 3 stacks, 2 succeeded, 1 failed, 0 skipped");
      // The engine's counts (the stack's own resource and the provider among them); the user's resources listed.
      expect(comment).toContain(
        "| acme | ✅ succeeded | 5 | 0 | 0 | 0 | 0 | `+ IntegrationEntitlement alice@acme.example/Slack`<br>" +
          "`+ IntegrationEntitlement alice@acme.example/YouTube`<br>`+ User alice@acme.example`<br>`+ User bob@acme.example` |",
      );
      expect(comment).toContain("| initech | ✅ succeeded | 2 | 0 | 0 | 0 | 0 | `+ User dana@initech.example` |");
      expect(comment).toMatch(/^\| globex \| ❌ failed \| .* \| `error: .*answered 401: .*The API key was not accepted/m);
      // A preview writes nothing; each workspace saw its own key only.
      for (const name of NAMES) expect(services[name].requests.filter((r) => r.method !== "GET")).toEqual([]);
      expect(services.globex.requests.length).toBeGreaterThan(0);
      expect(services.globex.requests.every((r) => r.status === 401)).toBe(true);
      expect(services.acme.requests.every((r) => r.status < 400)).toBe(true);
    });

    it("up whose canary fails runs no other stack", async () => {
      clearRequests();
      const run = await fleet(["up", "--stacks", "globex,acme,initech", "--format", "json"]);
      expect(run.code).toBe(1);
      expect(json(run).stacks.map((s) => [s.stack, s.result])).toEqual([
        ["globex", "failed"],
        ["acme", "skipped"],
        ["initech", "skipped"],
      ]);
      const globex = byStack(run)["globex"];
      expect(globex?.error).toMatch(/answered 401: .*The API key was not accepted/);
      expect(globex?.error).toContain("pulumi config set --secret workspace-access:apiKey <key>");
      expect(globex?.error).not.toMatch(/\n|\bat .+:\d+:\d+/);
      expect(byStack(run)["acme"]).toEqual({
        stack: "acme",
        result: "skipped",
        changes: { create: 0, update: 0, delete: 0, replace: 0, same: 0 },
        skippedBecause: "the canary globex failed",
      });
      // Each stack has its progress line on stderr, the skipped ones too (the CI log of a json or markdown run).
      expect(run.stderr).toMatch(
        /globex: failed: [^\n]*\nacme: skipped \(the canary globex failed\)\ninitech: skipped \(the canary globex failed\)\n/,
      );
      expect(services.acme.requests).toEqual([]);
      expect(services.initech.requests).toEqual([]);
      expect(services.acme.users.findByEmail("alice@acme.example")).toBeUndefined();
    });

    it("up --continue-on-error: the canary first, then the rest; globex fails, acme and initech are rolled out", async () => {
      const run = await fleet(["up", "--continue-on-error"]);
      expect(run.code).toBe(1);
      // The canary (first by name) ended before another stack started.
      expect(run.stderr.indexOf("acme: succeeded")).toBeGreaterThanOrEqual(0);
      expect(run.stderr.indexOf("acme: succeeded")).toBeLessThan(run.stderr.indexOf("globex: up started"));
      expect(run.stderr).toMatch(/globex: failed: .*answered 401/);
      expect(run.stdout).toMatch(/^acme {5}succeeded +5 +0 +0 +0 +0$/m);
      expect(run.stdout).toMatch(/^initech {2}succeeded +2 +0 +0 +0 +0$/m);
      expect(run.stdout).toContain("    + User alice@acme.example");
      expect(run.stdout).toContain("workspace-access-fleet up: 3 stacks, 2 succeeded, 1 failed, 0 skipped");
      expect(services.acme.users.findByEmail("alice@acme.example")).toBeDefined();
      expect(services.initech.users.findByEmail("dana@initech.example")).toBeDefined();
      expect(services.globex.users.findByEmail("carol@globex.example")).toBeUndefined();
    });

    it("docs/fleet.md's nightly step, as written: the drift check finds a drift in the one workspace it happened in, night after night", async () => {
      const alice = services.acme.users.findByEmail("alice@acme.example");
      services.acme.users.update(alice!.id, { lastName: "Changed-By-Hand" });
      for (const night of [1, 2]) {
        const step = await workflowStep("Drift check");
        expect(step.code, `night ${night}`).toBe(1);
        // The check runs the program: globex's refused key fails its stack, as its preview does.
        expect(step.summary).toContain("### workspace-access-fleet drift: 3 stacks, 2 succeeded, 1 failed, 0 skipped, 1 drifted");
        expect(step.summary).toMatch(/^\| acme \| ✅ succeeded \| 0 \| 1 \| 0 \| 0 \| \d+ \| `~ User alice@acme.example` \|$/m);
        expect(step.summary).toMatch(/^\| initech \| ✅ succeeded \| 0 \| 0 \| 0 \| 0 \| \d+ \| {2}\|$/m);
        expect(step.summary).toMatch(/^\| globex \| ❌ failed /m);
      }
      // Nothing was written: the workspace still differs from the program.
      expect(services.acme.users.findByEmail("alice@acme.example")?.lastName).toBe("Changed-By-Hand");
    });

    it("docs/fleet.md's main step, as written: the rollout puts acme's declared access back; globex's failure fails it", async () => {
      const step = await workflowStep("Roll out, one workspace first");
      expect(step.code).toBe(1);
      expect(services.acme.users.findByEmail("alice@acme.example")?.lastName).toBe("Doe");
      expect(step.stdout).toMatch(/^acme +succeeded +0 +1 +0 +0 +\d+$/m);
      expect(step.stdout).toMatch(/^globex +failed /m);
      expect(step.stdout).toMatch(/^initech +succeeded +0 +0 +0 +0 +\d+$/m);
    });

    it("exits 0 when every stack named succeeds with no change: acme and initech refreshed after the rollout", async () => {
      const run = await fleet(["refresh", "--stacks", "initech,acme", "--expect-no-changes", "--format", "json"]);
      expect(run.code).toBe(0);
      expect(json(run)).toEqual({
        command: "refresh",
        expectNoChanges: true,
        interrupted: false,
        stacks: [
          { stack: "initech", result: "succeeded", changes: { create: 0, update: 0, delete: 0, replace: 0, same: 2 } },
          { stack: "acme", result: "succeeded", changes: { create: 0, update: 0, delete: 0, replace: 0, same: 5 } },
        ],
      });
    });

    it("Ctrl-C starts no new stack and lets the running one finish", async () => {
      clearRequests();
      const run = await fleet(["preview", "--refresh", "--stacks", "initech,acme", "--parallel", "1"], (child) => {
        // Interrupted once the first stack's pulumi is running (its refresh's first request): the fleet's process alone
        // gets the signal (not its pulumi child), as when a CI runner cancels the job.
        const poll = setInterval(() => {
          if (services.initech.requests.length === 0) return;
          clearInterval(poll);
          child.kill("SIGINT");
        }, 20);
        child.on("exit", () => clearInterval(poll));
      });
      expect(services.initech.requests.length).toBeGreaterThan(0);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("interrupted: no new stack starts");
      expect(run.stdout).toMatch(/^initech +succeeded /m);
      expect(run.stdout).toMatch(/^acme +skipped /m);
      expect(run.stdout).toContain("    skipped: interrupted before it started");
      expect(run.stderr).not.toContain("acme: preview started");
    });

    it("no output of any run holds a key, whole or in part", () => {
      expect(runs.length).toBeGreaterThanOrEqual(9);
      for (const run of runs) {
        for (const key of [wrongKey, ...NAMES.map((name) => services[name].apiKey)]) {
          expect(`${run.stdout}${run.stderr}`.includes(key.slice(-12))).toBe(false);
        }
      }
    });
  },
);
