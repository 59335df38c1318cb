/**
 * A `WorkspaceUsers` holding `pulumi.secret` emails, through the real `pulumi` CLI: the provider cannot tell a secret from a
 * plain value, so the program tells it (the hidden `__secretUsers`), and no message of the set prints a secret email. Seen in
 * every run's output: a user create whose job outlives `jobTimeoutSeconds` (recorded), the next `up` while it still runs,
 * the `up` that settles it, and an email edit's preview warning and `up`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import type { Project } from "../support/project.ts";
import { packedProject } from "../support/packed.ts";
import { SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { programHeader } from "./habits-support.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote } from "./support.ts";

const OLD = "old.secret@example.com";
const NEW = "new.secret@example.com";

const program = `${programHeader({})}
const users = [{ email: pulumi.secret(config.get("email") ?? "${OLD}"), firstName: "Ann", lastName: "Lee" }];
// As docs/pulumi-habits.md advises for a set whose emails are secrets.
new wa.WorkspaceUsers("crew", { users }, { additionalSecretOutputs: ["userIds", "users"] });
`;

describe.skipIf(!cliAvailable)(`a WorkspaceUsers of secret emails: no message prints one${skipNote}`, { timeout: 300_000 }, () => {
  let emulator: Emulator;
  let project: Project;
  let stack: CliStack;

  beforeAll(async () => {
    emulator = await startTestEmulator({ userWritesAsJobs: true });
    project = await packedProject({ name: "secret-set-messages", files: { "index.ts": program } });
    stack = await openCliStack({
      projectDir: project.dir,
      config: {
        "workspace-access:baseUrl": emulator.url,
        "workspace-access:apiKey": { secret: emulator.apiKey },
        "workspace-access:jobTimeoutSeconds": "1",
      },
    });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.remove();
    await Promise.all([project?.remove(), emulator?.close()]);
  });

  const failingUp = () => stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
  const hung = () => emulator.jobs.list().find((j) => j.status !== "finished" && j.status !== "error")!;

  it("a create left running, the up while it runs and the up that settles it name the job, not the email", async () => {
    emulator.jobs.hangNext(1);
    const recorded = await failingUp();
    const job = hung();
    expect(recorded.code).not.toBe(0);
    expect(recorded.output).toContain(`[secret]: `);
    expect(recorded.output).toContain(`the state records it (pendingCreates, job ${job.id})`);
    // The record of the create keeps its email, encrypted: the state a CI job uploads names no secret email.
    const state = await stack.exportState();
    expect(JSON.stringify(state).toLowerCase()).not.toContain(OLD);
    const crew = state.deployment.resources?.find((r) => r.urn.endsWith("::crew"));
    expect(crew?.outputs?.["pendingCreates"]).toHaveProperty(["4dabf18193072939515e22adb298388d"], "1b47061264138c4ac30d75fd1eb44270");
    const running = await failingUp();
    expect(running.code).not.toBe(0);
    expect(running.output).toContain(`the create of [secret] is still running (job ${job.id}`);
    emulator.jobs.release(job.id);
    await stack.up();
    expect(emulator.users.findByEmail(OLD)).toBeDefined();
  });

  it("the preview and the up of an email edit warn without either email or the name", async () => {
    await stack.setConfig("secret-set-messages:email", NEW);
    const { output } = await stack.preview();
    expect(output).toContain("1 user(s) this set created leave it while as many of the same names join it");
    expect(output).toContain("The set keys its users by email");
    expect(output).not.toContain("Ann Lee");
    await stack.up();
    expect(emulator.users.findByEmail(OLD)).toBeUndefined();
    expect(emulator.users.findByEmail(NEW)).toBeDefined();
  });

  it("no run printed a secret email", () => {
    expect(stack.runs.length).toBeGreaterThanOrEqual(5);
    for (const run of stack.runs) {
      expect(run.output.toLowerCase()).not.toContain(OLD);
      expect(run.output.toLowerCase()).not.toContain(NEW);
    }
  });
});
