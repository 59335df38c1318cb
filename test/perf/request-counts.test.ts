/**
 * Request counts, not times (times belong to `npm run bench`): a preview sends nothing, a refresh
 * of 250 users is served from paged list calls, 100 `getUser` lookups in a program share one paged
 * listing, and a job that finishes after 1 s is polled at most 4 times. Preview and refresh go
 * through the real `pulumi` CLI (`--parallel 16`; skipped, by name, where there is none); the job
 * through the client in-process, on a virtual clock shared with the emulator.
 * Needs `npm run build` (the package is packed from `dist/`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkspaceAccessClient } from "../../src/client";
import { PROBE_POLL_MS } from "../../src/client/jobs";
import type { Emulator } from "../../src/emulator/index";
import {
  benchEmulator,
  INTEGRATION_ID,
  LOOKUP_PROGRAM,
  LOOKUPS,
  seedLookupUsers,
  writeWorkload,
  workloadStack,
} from "../../bench/workload.ts";
import type { Deployment } from "../cli/deployment.ts";
import { cliAvailable, skipNote } from "../cli/support.ts";
import { packedProject } from "../support/packed.ts";
import type { Project } from "../support/project.ts";
import { VirtualClock } from "../support/virtual-clock.ts";

const USERS = 250;
const USER_TYPE = "pulumi-nodejs:dynamic/workspace-access:User";
const users = <S extends { op: string; type: string }>(steps: S[], op: string) => steps.filter((s) => s.type === USER_TYPE && s.op === op);

describe.skipIf(!cliAvailable)(`a stack of ${USERS} users, through the real pulumi CLI${skipNote}`, () => {
  let emu: Emulator;
  let project: Project;
  let stack: Deployment;

  beforeAll(async () => {
    emu = await benchEmulator();
    project = await packedProject({ name: "perf" });
    writeWorkload(project);
    stack = await workloadStack(project, emu, { stackName: "perf", n: USERS, parallel: 16 });
    const up = await stack.up();
    expect(users(up.steps, "create")).toHaveLength(USERS);
    expect(emu.requests).toHaveLength(USERS);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    await project?.remove();
    await emu?.close();
  });

  it("preview of the unchanged stack sends no request", async () => {
    emu.clearRequests();
    const preview = await stack.preview();
    expect(users(preview.steps, "same")).toHaveLength(USERS);
    expect(emu.requests).toEqual([]);
  }, 60_000);

  it(`refresh of ${USERS} users sends at most ${Math.ceil(USERS / 100) + 5} requests`, async () => {
    emu.clearRequests();
    const refresh = await stack.refresh();
    expect(users(refresh.steps, "same")).toHaveLength(USERS);
    const sent = emu.requests.map((r) => `${r.method} ${r.rawPath}`);
    expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(Math.ceil(USERS / 100) + 5);
  }, 60_000);

  it("refresh notices a user deleted outside Pulumi, confirming it with a GET", async () => {
    const gone = stack.state().resources.find((r) => r.type === USER_TYPE);
    emu.users.remove(gone!.id);
    emu.clearRequests();
    const refresh = await stack.refresh();
    expect(users(refresh.done, "delete").map((s) => s.name)).toEqual([gone!.name]);
    expect(emu.requests.filter((r) => r.method === "GET" && r.path === `/users/${gone!.id}`)).toHaveLength(1);
    expect(emu.requests.length).toBeLessThanOrEqual(Math.ceil(USERS / 100) + 5);
  }, 60_000);
});

describe.skipIf(!cliAvailable)(`${LOOKUPS} getUser calls in one program, ${USERS} users in the workspace${skipNote}`, () => {
  it(`send at most ${Math.ceil(USERS / 100) + 1} requests: one paged listing serves them all`, async () => {
    const emu = await benchEmulator();
    seedLookupUsers(emu, USERS);
    const project = await packedProject({ name: "perf-lookups" });
    writeWorkload(project, LOOKUP_PROGRAM);
    const stack = await workloadStack(project, emu, { stackName: "lookups", n: USERS });
    try {
      await stack.up();
      expect(await stack.outputs()).toEqual({ found: LOOKUPS });
      const sent = emu.requests.map((r) => `${r.method} ${r.rawPath}`);
      expect(sent.length, sent.join("\n")).toBeLessThanOrEqual(Math.ceil(USERS / 100) + 1);
    } finally {
      await stack.close();
      await project.remove();
      await emu.close();
    }
  }, 60_000);
});

describe("job polling", () => {
  it("a job that finishes after 1 s is polled at most 4 times, with the default settings", async () => {
    // One virtual clock for both sides: the job's second and the polls' schedule are exact, whatever the machine's load.
    const clock = new VirtualClock();
    const emu = await benchEmulator({ job: { finishAfterMs: 1000 }, clock });
    const user = emu.users.add({ email: "job@bench.example", firstName: "Job", lastName: "Poll" });
    const client = new WorkspaceAccessClient({ baseUrl: emu.url, apiKey: emu.apiKey, clock });
    try {
      const job = await client.integrations.invite(INTEGRATION_ID, { userIds: [user.id], entitlements: ["VIEWER"] });
      expect((await job.wait())?.status).toBe("finished");
      const polls = emu.requests.filter((r) => r.method === "GET" && r.path.startsWith("/jobs/"));
      // Two quick probes (nothing learnt yet), then the setting's back-off: polls at 5, 10, 450 and 1,050 ms.
      expect(clock.sleeps).toEqual([PROBE_POLL_MS, PROBE_POLL_MS, 440, 600]);
      expect(polls).toHaveLength(4);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
