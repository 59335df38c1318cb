/**
 * Interrupted deployments through the real `pulumi` CLI, on a file backend, against the emulator:
 * - a job that ends in `error` mid-`up`: `pulumi up` fails with the package's own message, and a
 *   second `up` converges (state and emulator agree, `preview --expect-no-changes` passes).
 * - `pulumi up` interrupted with SIGINT while invitations are in flight (their jobs held by the
 *   emulator): a first ^C waits for the steps in flight, a second terminates the CLI, leaving
 *   pending creates. Then what the CLI tells a user (the next `up` warns and points to
 *   `pulumi refresh`; `--clear-pending-creates` is its non-interactive "clear"), and what the
 *   package tells them (a membership that landed: `adoptExisting: true`), then another `up`: it
 *   converges and nobody is invited twice, counted over the emulator's whole request log. No
 *   `pulumi cancel` is needed on a file backend.
 */
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator, startEmulator } from "../../src/emulator/index";
import { appliedPerUser } from "../support/invitations.ts";
import { packedProject } from "../support/packed.ts";
import type { Project } from "../support/project.ts";
import { SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { type CliConfigValue, type CliStack, cliAvailable, dynamicResources, openCliStack, skipNote } from "./support.ts";

const access = (emulator: Emulator): Record<string, CliConfigValue> => ({
  "workspace-access:baseUrl": emulator.url,
  "workspace-access:apiKey": { secret: emulator.apiKey },
});

/** Every membership of the emulator's world as `integration user role:set`, sorted. */
function memberships(emulator: Emulator): string[] {
  return emulator.integrations
    .list()
    .flatMap((i) => emulator.integrations.members(i.id).map((m) => `${i.id} ${m.userId} ${m.role}:${[...m.entitlements].sort().join(",")}`))
    .sort();
}

/** The memberships the stack's state records, in the same form. */
function recorded(resources: Array<{ type: string; outputs?: Record<string, unknown> }>): string[] {
  return resources
    .filter((r) => r.type.endsWith(":IntegrationEntitlement"))
    .map((r) => {
      const o = r.outputs ?? {};
      const set = [...((o["entitlements"] as string[] | undefined) ?? [])].sort().join(",");
      return `${String(o["integrationId"])} ${String(o["userId"])} ${String(o["role"]).replace(/^account_/, "")}:${set}`;
    })
    .sort();
}

/**
 * A new user entitled to YouTube and an existing user (Katherine, a member of nothing) entitled to
 * Slack: one invitation per integration, so which job fails is chosen by the test, not by timing.
 */
const JOB_PROGRAM = `import * as wa from "pulumi-workspace-access";
const alice = new wa.User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
new wa.IntegrationEntitlement("alice-youtube", { integrationId: "${DEFAULT_IDS.integrations.youtube}", userId: alice.id, entitlements: ["VIEWER"] });
new wa.IntegrationEntitlement("katherine-slack", { integrationId: "${DEFAULT_IDS.integrations.slack}", userId: "${DEFAULT_IDS.users.katherine}", entitlements: ["MEMBER"] });
export const aliceId = alice.id;
`;
const KATHERINE = DEFAULT_IDS.users.katherine;

describe.skipIf(!cliAvailable)(`interrupted deployments through the real pulumi CLI${skipNote}`, { timeout: 600_000 }, () => {
  describe("a job that ends in error mid-up", () => {
    let cliService: Emulator;
    let project: Project;
    let stack: CliStack;

    beforeAll(async () => {
      cliService = await startTestEmulator();
      project = await packedProject({ name: "job-error", files: { "index.ts": JOB_PROGRAM } });
      stack = await openCliStack({ projectDir: project.dir, config: access(cliService) });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.remove();
      await Promise.all([project?.remove(), cliService?.close()]);
    });

    it("pulumi up fails with the package's message naming the job; the failed membership is neither recorded nor applied", async () => {
      // Katherine's invitation job ends in error (the service names her in the job's response).
      cliService.jobs.failInvitesOf([KATHERINE]);
      // --continue-on-error: the engine starts no step after a failure, and alice-youtube waits for alice's create, so a
      // job failing quickly may come before it starts (its create is asserted below).
      const up = await stack.run(["up", "--yes", "--skip-preview", "--continue-on-error"], { allowFailure: true });
      expect(up.code).not.toBe(0);
      const failed = cliService.jobs.list().filter((job) => job.status === "error");
      expect(failed).toHaveLength(1);
      // The package's own message, as the CLI shows it under the resource.
      expect(up.output).toMatch(
        new RegExp(`IntegrationEntitlement \\(katherine-slack\\):\\n\\s+error: .*job ${failed[0]!.id} failed with invite_failed`),
      );
      const state = dynamicResources(await stack.exportState(true));
      expect(state.map((r) => r.urn.split("::").at(-1)).sort()).toEqual(["alice", "alice-youtube"]);
      expect(memberships(cliService)).toEqual(expect.arrayContaining(recorded(state)));
      expect(cliService.integrations.members(DEFAULT_IDS.integrations.slack).map((m) => m.userId)).not.toContain(KATHERINE);
    });

    it("a second pulumi up converges: the emulator holds what the state records, and preview --expect-no-changes passes", async () => {
      cliService.jobs.clearInviteFailures();
      await stack.up();
      const state = dynamicResources(await stack.exportState(true));
      expect(state).toHaveLength(3);
      const held = recorded(state);
      expect(held).toHaveLength(2);
      expect(memberships(cliService)).toEqual(expect.arrayContaining(held));
      const writes = cliService.requests.filter((r) => r.method !== "GET").length;
      await stack.preview("--expect-no-changes");
      await stack.refresh("--expect-no-changes");
      expect(cliService.requests.filter((r) => r.method !== "GET")).toHaveLength(writes);
    });
  });

  describe("pulumi up interrupted with SIGINT while invitations are in flight", () => {
    const N = 12;
    const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";
    const userId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
    const program = `import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";
const adoptExisting = new pulumi.Config().getBoolean("adopt") ?? false;
${Array.from({ length: N }, (_, i) => `new wa.IntegrationEntitlement("m${i}", { integrationId: "${INTEGRATION}", userId: "${userId(i)}", entitlements: ["VIEWER"], adoptExisting });`).join("\n")}
`;
    let service: Emulator;
    let project: Project;
    let stack: CliStack;

    beforeAll(async () => {
      service = await startEmulator({
        seed: {
          users: Array.from({ length: N }, (_, i) => ({ id: userId(i), email: `u${i}@example.com`, firstName: "U", lastName: `${i}` })),
          integrations: [{ id: INTEGRATION, application: "app", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] }],
        },
        job: { finishAfterPolls: 1 },
      });
      project = await packedProject({ name: "interrupted", files: { "index.ts": program } });
      // The checkpoints after each step, as users have them: a second ^C ends the CLI at once.
      stack = await openCliStack({ projectDir: project.dir, config: access(service), env: { PULUMI_SKIP_CHECKPOINTS: undefined } });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.remove();
      await Promise.all([project?.remove(), service?.close()]);
    });

    /** How many invitation POSTs named each user, over the whole request log. */
    const invitedPerUser = () => {
      const count = new Map<string, number>();
      for (const r of service.requests) {
        if (r.method !== "POST" || r.path !== `/integrations/${INTEGRATION}/users`) continue;
        for (const id of (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds) {
          count.set(id, (count.get(id) ?? 0) + 1);
        }
      }
      return count;
    };

    it("^C while the invitations' jobs run, ^C again to terminate; the jobs then finish; the CLI's advice; up converges, nobody invited twice", async () => {
      // The service takes its time: every invitation job stays running until the test lets it finish.
      service.jobs.hangNext(1000);
      const invitePosted = () => service.requests.some((r) => r.method === "POST" && r.status === 200);
      const interrupt = (child: ChildProcess) => {
        const timer = setInterval(() => {
          if (!invitePosted()) return;
          clearInterval(timer);
          // A user's ^C: the CLI stops starting steps and waits for those in flight, whose jobs do
          // not end; a second ^C terminates it at once.
          child.kill("SIGINT");
          // The second once the CLI says it is cancelling (it then waits for them), not a fixed while after the first.
          let said = "";
          const second = (chunk: Buffer | string) => {
            said += String(chunk);
            if (!said.includes("^C received; cancelling")) return;
            child.stdout?.off("data", second);
            child.stderr?.off("data", second);
            child.kill("SIGINT");
          };
          child.stdout?.on("data", second);
          child.stderr?.on("data", second);
        }, 20);
        child.once("close", () => clearInterval(timer));
      };
      const interrupted = await stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true, onStart: interrupt });
      expect(interrupted.code).not.toBe(0);
      expect(interrupted.output).toContain("^C received; cancelling");
      expect(interrupted.output).toContain("^C received; terminating");
      expect(interrupted.output).toMatch(/creating \(interrupted\)/);
      // The operations in flight are recorded as pending creates.
      const pending = ((await stack.exportState()).deployment.pending_operations ?? []) as Array<{
        resource: { urn: string };
        type: string;
      }>;
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.every((op) => op.type === "creating")).toBe(true);

      // The service carries out the invitations it accepted, after the CLI is gone.
      const held = service.jobs.list().filter((job) => job.status !== "finished" && job.status !== "error");
      expect(held.length).toBeGreaterThan(0);
      service.jobs.hangNext(0);
      for (const job of held) service.jobs.release(job.id);

      // No `pulumi cancel`: on a file backend the terminated CLI left no lock, and the next command
      // runs. The next up warns about the pending creates and says what to do; the creates that
      // never started invite their users now; those whose invitation landed meanwhile fail with
      // the package's refusal to take over an existing member, which says what to do.
      const advised = await stack.run(["up", "--yes", "--skip-preview"], { allowFailure: true });
      expect(advised.code).not.toBe(0);
      expect(advised.output).toContain("pending operations from previous deployment");
      expect(advised.output).toContain("you can repair your stack using `pulumi refresh`");
      expect(advised.output).toContain("`pulumi refresh` will need to be run interactively to clear pending CREATE operations");
      expect(advised.output).toMatch(
        /is already a member of integration [\s\S]*To manage the existing membership with this resource, set adoptExisting: true/,
      );

      // What the CLI advises, non-interactively: the interactive prompt's "clear" is
      // `--clear-pending-creates`. (Its "import", `--import-pending-creates URN ID`, cleared the
      // pending creates of these dynamic resources without reading them into the state.)
      await stack.refresh("--clear-pending-creates");
      expect((await stack.exportState()).deployment.pending_operations ?? []).toEqual([]);
      // What the package advises: the memberships are the interrupted up's own, take them over.
      await stack.run(["config", "set", "interrupted:adopt", "true"]);
      const writesBefore = service.requests.length;
      await stack.up();
      // The members are adopted as they are; what this up writes is only the invitations of the
      // creates the failed up did not get to start (the engine starts no step after an error).
      for (const r of service.requests.slice(writesBefore).filter((r) => r.method !== "GET")) {
        expect(`${r.method} ${r.path}`).toBe(`POST /integrations/${INTEGRATION}/users`);
      }
      const state = dynamicResources(await stack.exportState(true));
      expect(state).toHaveLength(N);
      expect(recorded(state)).toEqual(memberships(service));
      expect(memberships(service)).toHaveLength(N);
      const writes = service.requests.filter((r) => r.method !== "GET").length;
      await stack.preview("--expect-no-changes");
      await stack.refresh("--expect-no-changes");
      expect(service.requests.filter((r) => r.method !== "GET")).toHaveLength(writes);

      // Nobody invited twice: each user in exactly one invitation POST and applied by one job.
      const invited = invitedPerUser();
      expect(invited.size).toBe(N);
      expect([...invited.entries()].filter(([, count]) => count !== 1)).toEqual([]);
      const applied = appliedPerUser(service);
      expect([...applied.values()].every((count) => count === 1)).toBe(true);
    });
  });
});
