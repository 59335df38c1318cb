/**
 * Through the real `pulumi` CLI: two stacks of one project, each pointed at its own workspace
 * (two emulators, two keys), and the key set with `pulumi config set --secret`. Each key reaches
 * only its own workspace, and neither appears in `pulumi stack export`, in any output, or in the
 * CLI's own verbose log (`-v=9 --logtostderr --logflow`, which also logs the plugins). Nothing of
 * one workspace reaches the other: a config change of one stack, and its destroy, leave the other
 * workspace alone.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import type { Project } from "../support/project.ts";
import { SETUP_TIMEOUT_MS, stackPerWorkspaceProject, startTestEmulator } from "./scenario.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

/** Every file under a folder, as text. */
function filesUnder(dir: string): Array<[string, string]> {
  return fs
    .readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((file) => path.join(dir, file))
    .filter((file) => fs.statSync(file).isFile())
    .map((file) => [file, fs.readFileSync(file, "latin1")]);
}

describe.skipIf(!cliAvailable)(
  `two stacks of one project, two workspaces, through the real pulumi CLI${skipNote}`,
  { timeout: 300_000 },
  () => {
    let acmeService: Emulator;
    let globexService: Emulator;
    let project: Project;
    let acme: CliStack;
    let globex: CliStack;

    beforeAll(async () => {
      [acmeService, globexService] = await Promise.all([startTestEmulator(), startTestEmulator()]);
      expect(acmeService.apiKey).not.toBe(globexService.apiKey);
      project = await stackPerWorkspaceProject();
      acme = await openCliStack({
        secrets: "passphrase",
        projectDir: project.dir,
        stackName: "acme",
        config: { "workspace-access:baseUrl": acmeService.url, "workspace-access:apiKey": { secret: acmeService.apiKey } },
      });
      globex = await openCliStack({
        secrets: "passphrase",
        projectDir: project.dir,
        stackName: "globex",
        backendDir: acme.backendDir,
        config: { "workspace-access:baseUrl": globexService.url, "workspace-access:apiKey": { secret: globexService.apiKey } },
      });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await globex?.remove();
      await acme?.remove();
      await Promise.all([project?.remove(), acmeService?.close(), globexService?.close()]);
    });

    it("each stack's up reaches only its own workspace, with its own key", async () => {
      const verbose = ["-v=9", "--logtostderr", "--logflow"];
      await acme.up(...verbose);
      await globex.up(...verbose);
      await acme.preview("--expect-no-changes", ...verbose);
      await globex.refresh("--expect-no-changes", ...verbose);

      // acme's people are in acme's workspace only, globex's in globex's.
      expect(acmeService.users.findByEmail("alice@acme.example")).toBeDefined();
      expect(globexService.users.findByEmail("alice@acme.example")).toBeUndefined();
      const globexEmails = globexService.users.list().map((u) => u.email);
      expect(globexEmails.some((email) => email.endsWith("@globex.example"))).toBe(true);
      expect(acmeService.users.list().some((u) => u.email.endsWith("@globex.example"))).toBe(false);
      // Nothing of one workspace reached the other: not a write, not a read of the other's ids.
      const alice = acmeService.users.findByEmail("alice@acme.example");
      const carol = globexService.users.findByEmail("carol@globex.example");
      expect(JSON.stringify(acmeService.requests)).not.toContain("globex");
      expect(JSON.stringify(acmeService.requests)).not.toContain(carol?.id ?? "-");
      expect(JSON.stringify(globexService.requests)).not.toContain("acme.example");
      expect(JSON.stringify(globexService.requests)).not.toContain(alice?.id ?? "-");
      // Every request each emulator received carried a key it accepted: its own.
      for (const service of [acmeService, globexService]) {
        expect(service.requests.length).toBeGreaterThan(0);
        expect(service.requests.every((r) => r.hasApiKey && r.status !== 401 && r.status !== 403)).toBe(true);
      }
    });

    it("neither key is in a stack export, an output, the CLI's verbose log or the backend's files", async () => {
      const texts: Array<[string, string]> = [];
      for (const stack of [acme, globex]) {
        texts.push([`${stack.stackName} export`, JSON.stringify(await stack.exportState())]);
        texts.push([`${stack.stackName} outputs`, JSON.stringify(await stack.outputs())]);
        for (const run of stack.runs) texts.push([`pulumi ${run.args.join(" ")}`, run.output]);
      }
      // The backend's files: checkpoints, history, backups, and the CLI's own home (PULUMI_HOME).
      texts.push(...filesUnder(acme.backendDir));
      texts.push(
        ...["Pulumi.acme.yaml", "Pulumi.globex.yaml"].map((f): [string, string] => [f, fs.readFileSync(path.join(project.dir, f), "utf8")]),
      );
      // The verbose runs logged plugin traffic (the log is not empty), and the key is in none of it.
      expect(acme.runs.some((run) => run.stderr.includes("Provider[") && run.stderr.length > 10_000)).toBe(true);
      for (const [where, text] of texts) {
        for (const key of [acmeService.apiKey, globexService.apiKey]) {
          expect(text.includes(key), `${where} holds a key`).toBe(false);
          expect(text.includes(key.slice(-16)), `${where} holds the end of a key`).toBe(false);
        }
      }
    });

    it("a change to one stack's config touches only that workspace", async () => {
      const acmeBefore = acmeService.requests.length;
      const globexBefore = globexService.requests.length;
      await globex.run(["config", "set", "--path", "workspace-access-per-workspace:people[0].lastName", "Doe-Poe"]);
      await globex.up();
      const carol = globexService.users.findByEmail("carol@globex.example");
      expect(carol?.lastName).toBe("Doe-Poe");
      const writes = globexService.requests.slice(globexBefore).filter((r) => r.method !== "GET");
      expect(writes.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT /users/${carol?.id}`]);
      expect(acmeService.requests.length).toBe(acmeBefore);
    });

    it("destroy of each stack removes only what it created; one's destroy leaves the other workspace alone", async () => {
      const acmeBefore = acmeService.requests.length;
      await globex.destroy();
      expect(acmeService.requests.length).toBe(acmeBefore);
      expect(acmeService.users.findByEmail("alice@acme.example")).toBeDefined();
      await acme.destroy();
      expect(acmeService.users.findByEmail("alice@acme.example")).toBeUndefined();
      expect(globexService.users.list().some((u) => u.email.endsWith("@globex.example"))).toBe(false);
    });
  },
);
