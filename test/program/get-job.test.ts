import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { type GetJobArgs, NotFoundError } from "../../src";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { getJob as getJobAsExported, readJob } from "../../src/program/get-job";
import type { VirtualClock } from "../support/virtual-clock";
import { clockOf, emulator, issuedKeys, rejection } from "../support/fixtures";

/** Job polls and timeouts on the emulator's virtual clock: no real waiting. */
let clock: VirtualClock;
const getJob = (args: GetJobArgs) => readJob(args, clock);

async function jobOf(emu: Awaited<ReturnType<typeof emulator>>): Promise<string> {
  const res = await fetch(`${emu.url}integrations/${DEFAULT_IDS.integrations.youtube}/users`, {
    method: "POST",
    headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
    body: JSON.stringify({
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds: [DEFAULT_IDS.users.alan] },
      },
    }),
  });
  return ((await res.json()) as { data: { id: string } }).data.id;
}

async function program(emu: Awaited<ReturnType<typeof emulator>>, preview: boolean): Promise<void> {
  clock = clockOf(emu);
  pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey }, ["workspace-access:apiKey"]);
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", preview);
}

describe("getJob", () => {
  it("reads a job, and with waitForCompletion waits until it ends and says so", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 3 } });
    await program(emu, false);
    const id = await jobOf(emu);
    expect(await getJob({ id })).toMatchObject({ id, status: "running", waitOutcome: "not_waited" });
    // Pulumi's InvokeOptions, as every lookup takes them (docs/lookups.md): the same read.
    expect(await getJobAsExported({ id }, { async: true })).toMatchObject({ id, waitOutcome: "not_waited" });
    const job = await getJob({ id, waitForCompletion: true, timeoutSeconds: 30 });
    expect(job).toMatchObject({ id, status: "finished", waitOutcome: "finished", workflowType: "provide_access" });
  });

  it("says error for a job that failed, with its details", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await program(emu, false);
    emu.jobs.failNext(1, { errorType: "mfa_required", userRequired: true });
    const id = await jobOf(emu);
    expect(await getJob({ id, waitForCompletion: true })).toMatchObject({
      waitOutcome: "error",
      errorDetails: { errorType: "mfa_required" },
    });
  });

  it("says timeout for a job still running at timeoutSeconds, waiting that long and no longer, with its last polled state", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await program(emu, false);
    emu.jobs.hangNext(1);
    const id = await jobOf(emu);
    const began = clock.now();
    const job = await getJob({ id, waitForCompletion: true, timeoutSeconds: 3 });
    expect(job).toMatchObject({ id, status: "running", waitOutcome: "timeout" });
    // On the virtual clock: the 3 s asked, not the default 900 s (jobTimeoutSeconds).
    const waited = clock.now() - began;
    expect(waited).toBeGreaterThanOrEqual(3_000);
    expect(waited).toBeLessThan(10_000);
    expect(emu.requests.filter((r) => r.path === `/jobs/${id}`).length).toBeGreaterThan(1);
  });

  it("does not wait during a preview: one read, not_waited", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 5 } });
    await program(emu, true);
    const id = await jobOf(emu);
    emu.clearRequests();
    expect(await getJob({ id, waitForCompletion: true })).toMatchObject({ status: "running", waitOutcome: "not_waited" });
    expect(emu.requests).toHaveLength(1);
  });
});

describe("getJob asked wrongly", () => {
  // A timeout of NaN never ends the wait (the deadline is never passed): refused with the others, before any request.
  it.each([
    [{ id: "", waitForCompletion: true }, 'getJob: id must be a non-empty string, got "".'],
    [
      { id: "j", waitForCompletion: true, timeoutSeconds: Number.NaN },
      "getJob: timeoutSeconds must be a number of seconds above 0, got number NaN.",
    ],
    [
      { id: "j", waitForCompletion: true, timeoutSeconds: -1 },
      "getJob: timeoutSeconds must be a number of seconds above 0, got number -1.",
    ],
    [{ id: "j", waitForCompletion: "false" }, 'getJob: waitForCompletion must be true or false, got "false".'],
    [{ id: "j", timeout: 30 }, 'getJob: unknown argument "timeout": the arguments are id, waitForCompletion, timeoutSeconds.'],
    // It would be ignored: the job read once, not_waited.
    [
      { id: "j", timeoutSeconds: 600 },
      "getJob: timeoutSeconds applies only with waitForCompletion: true: add waitForCompletion: true, or leave timeoutSeconds out.",
    ],
    [
      { id: "j", waitForCompletion: false, timeoutSeconds: 600 },
      "getJob: timeoutSeconds applies only with waitForCompletion: true: add waitForCompletion: true, or leave timeoutSeconds out.",
    ],
  ])("%j: says which argument and sends nothing", async (args, message) => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await program(emu, false);
    const id = await jobOf(emu);
    emu.clearRequests();
    await expect(getJob({ ...args, id: args.id === "j" ? id : args.id } as unknown as GetJobArgs)).rejects.toThrow(message);
    expect(emu.requests).toHaveLength(0);
  });
});

describe("getJob refused the key", () => {
  it("says where the key comes from, as the lookups do", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    const id = await jobOf(emu);
    clock = clockOf(emu);
    const revoked = "wa_emu_revoked_key_abcdefghijklmn";
    pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": revoked }, ["workspace-access:apiKey"]);
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
    emu.clearRequests();
    // The entry's getJob (a 401 is not retried: no wait on the real clock).
    const failure = getJobAsExported({ id });
    await expect(failure).rejects.toThrow(
      /answered 401: .*The key comes from workspace-access:apiKey \(pulumi config set --secret workspace-access:apiKey <key>\)/,
    );
    await expect(failure).rejects.not.toThrow(revoked);
    expect(emu.requests.map((r) => [r.method, r.path, r.status, r.hasApiKey])).toEqual([["GET", `/jobs/${id}`, 401, true]]);
  });
});

describe("getJob of an id answered 404", () => {
  const noJobReads = `wa_no_job_reads_${"7".repeat(16)}`;
  issuedKeys.add(noJobReads);
  const unknown = "00000000-0000-4000-8000-00000000beef";
  // After the service's own words, which differ (the emulator's: "No job with id …", "Not found: GET /jobs/…").
  const said = (id: string, emu: { url: string }) =>
    `The job ${id} is unknown to this key, for one of two reasons the service does not tell apart. Either the workspace at ` +
    `${new URL(emu.url).host} has no such job: a wrong id (check it against the ` +
    "write that answered with it, such as a resource's lastJobId), a job of another workspace (read it with that workspace's " +
    "address and key), or one the service no longer keeps after it ended (no read brings it back). Or the key in " +
    "workspace-access:apiKey lacks Read automated jobs (read:automations), and the service answers 404 (not disclosed), not 401 " +
    "or 403, to a key lacking a scope: give the key that scope.";

  // A key that reads jobs asking for an id the workspace does not have, and one the service hides jobs from (404 for a missing
  // scope) asking for a job it has: the same answer, so the same words, naming both causes and the fix of each.
  it.each([
    ["no such job, a key that reads jobs", "unknown", false, false],
    ["no such job, a key that reads jobs, waited for", "unknown", false, true],
    ["a job there, a key without read:automations (404 for a missing scope)", "there", true, false],
    ["a job there, a key without read:automations, waited for", "there", true, true],
  ] as const)("%s: names the id, both causes and their fixes, never the key", async (_case, job, hidden, waitForCompletion) => {
    const keys = { [noJobReads]: ALL_SCOPES.filter((s) => s !== "read:automations") };
    const emu = await emulator({ seed: defaultSeed(), keys, missingScopeStatus: 404 });
    const id = job === "unknown" ? unknown : await jobOf(emu);
    const apiKey = hidden ? noJobReads : emu.apiKey;
    pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": apiKey }, ["workspace-access:apiKey"]);
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
    emu.clearRequests();
    // The entry's getJob, as a program gets its failure (a 404 is not retried, the wait ends at its first poll: no real waiting).
    const error = (await rejection(getJobAsExported({ id, waitForCompletion }))) as NotFoundError;
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: "not_found", status: 404, __pulumiRunError: true });
    expect(error.message).toBe(`GET /api/v1/jobs/${id} answered 404: ${error.detail?.replace(/\.$/, "")}. ${said(id, emu)}`);
    expect(error.message).not.toContain(apiKey);
    // The job's read, and the address's proof that a first 404 asks for: no request more.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /jobs/${id} 404`, "GET /users 200"]);
  });
});

describe("getJob at an address that is not the workspace API", () => {
  it("names the variable the address came from, not a stack config key the stack does not set", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    clock = clockOf(emu);
    pulumi.runtime.setAllConfig({}, []);
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
    process.env.WORKSPACE_ACCESS_BASE_URL = emu.url.replace("/api/v1/", "/api/v2/");
    process.env.WORKSPACE_ACCESS_API_KEY = emu.apiKey;
    try {
      const error = await getJob({ id: "0b7c2d4e-0000-4000-8000-0000000000aa" }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(error?.message).toContain("is not the workspace's API root: check WORKSPACE_ACCESS_BASE_URL, it should be");
      expect(error?.message).not.toContain("workspace-access:");
      expect(error?.message).not.toContain(emu.apiKey);
    } finally {
      delete process.env.WORKSPACE_ACCESS_BASE_URL;
      delete process.env.WORKSPACE_ACCESS_API_KEY;
    }
  });
});

describe("getJob in a project named like the settings' namespace", () => {
  it("says the project must be renamed, not that its own key be deleted, and sends nothing", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    clock = clockOf(emu);
    pulumi.runtime.setAllConfig(
      { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey, "workspace-access:team": "platform" },
      ["workspace-access:apiKey"],
    );
    await pulumi.runtime.setMocks(
      { newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs },
      "workspace-access",
      "s",
      false,
    );
    const failure = getJob({ id: "job-1" });
    await expect(failure).rejects.toThrow(/The project is named "workspace-access".*Rename the project/);
    await expect(failure).rejects.not.toThrow(/config rm/);
    expect(emu.requests).toHaveLength(0);
  });
});

describe("getJob in a stack that names the address but not the key", () => {
  it("takes no key from WORKSPACE_ACCESS_API_KEY, says which secret to set, and sends nothing", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    clock = clockOf(emu);
    pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url }, []);
    await pulumi.runtime.setMocks({ newResource: (a) => ({ id: "id", state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
    // The shell's key is this very workspace's: sent, the read would succeed.
    process.env.WORKSPACE_ACCESS_API_KEY = emu.apiKey;
    try {
      const failure = getJob({ id: "job-1" });
      await expect(failure).rejects.toThrow(
        /No API key in the stack config.*Run: pulumi config set --secret workspace-access:apiKey <key>\./,
      );
      await expect(failure).rejects.not.toThrow(emu.apiKey);
      expect(emu.requests).toHaveLength(0);
    } finally {
      delete process.env.WORKSPACE_ACCESS_API_KEY;
    }
  });
});
