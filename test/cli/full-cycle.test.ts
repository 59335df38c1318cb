/**
 * examples/basic through the real `pulumi` CLI, from the packed tarball: a file backend, the
 * emulator as the service. One stack goes through the whole life of a deployment, so the tests of
 * this file run in order; the API key appears in nothing the CLI showed or stored. Two more stacks
 * of the same project: one with a wrong key (a 401 naming the fix), one whose job fails.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import { repoRoot } from "../support/paths.ts";
import { changesOf, stepsOf } from "./deployment.ts";
import {
  accessConfig,
  changedInputs,
  ENTITLEMENT_TYPE,
  type ExampleStack,
  exampleFile,
  exampleStack,
  jobPolls,
  requestLines,
  resourceOf,
  SETUP_TIMEOUT_MS,
  startTestEmulator,
  USER_TYPE,
  withRequests,
} from "./scenario.ts";
import { cliAvailable, skipNote } from "./support.ts";

const { youtube, slack } = DEFAULT_IDS.integrations;
const sorted = (values: readonly string[]): string[] => [...values].sort();

/** examples/basic with alice renamed and bob given a second Slack entitlement. */
function changedProgram(): string {
  const source = exampleFile("basic", "index.ts");
  const changed = source
    .replace(`lastName: "Doe"`, `lastName: "Smith"`)
    .replace(`entitlements: ["MEMBER"]`, `entitlements: ["MEMBER", "ADMIN"]`);
  if (changed.split("\n").filter((line, i) => line !== source.split("\n")[i]).length !== 2) {
    throw new Error("examples/basic/index.ts changed: the two edits of this test no longer apply");
  }
  return changed;
}

describe.skipIf(!cliAvailable)(
  `examples/basic through the real pulumi CLI: up, preview, change, refresh, destroy${skipNote}`,
  { timeout: 120_000 },
  () => {
    let emulator: Emulator;
    let basic: ExampleStack;
    let aliceId = "";
    let bobId = "";

    beforeAll(async () => {
      emulator = await startTestEmulator({ apiKey: `wa_emu_${randomBytes(16).toString("hex")}` });
      basic = await exampleStack({ example: "basic", config: accessConfig(emulator) });
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await basic?.dispose();
      await emulator?.close();
    });

    it("runs the package as npm installed it from the tarball, not this repository's files", () => {
      const installed = fs.realpathSync(path.join(basic.project.dir, "node_modules", "pulumi-workspace-access"));
      const pulumi = fs.realpathSync(path.join(basic.project.dir, "node_modules", "@pulumi", "pulumi"));
      expect(installed.startsWith(repoRoot)).toBe(false);
      expect(pulumi.startsWith(repoRoot)).toBe(false);
      // The module the one-line `__provider` requires (`pulumi-workspace-access/provider/user`).
      expect(fs.existsSync(path.join(installed, "dist", "provider", "user.js"))).toBe(true);
      // Only what package.json `files` publishes.
      expect(fs.existsSync(path.join(installed, "src"))).toBe(false);
      expect(fs.existsSync(path.join(installed, "test"))).toBe(false);
    });

    it("up creates both users and both memberships, and awaits each membership's job", async () => {
      const jobsBefore = emulator.jobs.list().length;
      const { result: up, requests } = await withRequests(emulator, () => basic.stack.up());

      expect(sorted(stepsOf(up))).toEqual(["create alice", "create alice-youtube", "create bob", "create bob-slack"]);
      const alice = emulator.users.findByEmail("alice@example.com");
      const bob = emulator.users.findByEmail("bob@example.com");
      expect(alice).toMatchObject({ firstName: "Alice", lastName: "Doe", role: "workspace_login_only", isGuest: false });
      expect(bob).toMatchObject({ firstName: "Bob", lastName: "Roe", role: "workspace_super_admin" });
      aliceId = alice?.id ?? "";
      bobId = bob?.id ?? "";
      const aliceMember = emulator.integrations.members(youtube).find((m) => m.userId === aliceId);
      const bobMember = emulator.integrations.members(slack).find((m) => m.userId === bobId);
      expect(sorted(aliceMember?.entitlements ?? [])).toEqual(["EDITOR", "VIEWER"]);
      expect(aliceMember?.role).toBe("collaborator");
      expect(bobMember).toMatchObject({ role: "owner", entitlements: ["MEMBER"] });

      // The writes the service received: two users, two invitations.
      const writes = requests.filter((r) => r.method !== "GET");
      expect(sorted(requestLines(writes))).toEqual(
        sorted(["POST /users", "POST /users", `POST /integrations/${youtube}/users`, `POST /integrations/${slack}/users`]),
      );
      expect(writes.every((r) => r.status >= 200 && r.status < 300 && r.hasApiKey)).toBe(true);

      // Each invitation answered with a job; the provider polled each until it was finished.
      const jobs = emulator.jobs.list().slice(jobsBefore);
      expect(jobs).toHaveLength(2);
      for (const job of jobs) {
        expect(job.status).toBe("finished");
        expect(jobPolls(requests).some((r) => r.path === `/jobs/${job.id}` && r.status === 200)).toBe(true);
      }

      const state = basic.stack.state();
      expect(resourceOf(state, "alice")).toMatchObject({ type: USER_TYPE, id: aliceId, outputs: { lastName: "Doe" } });
      expect(resourceOf(state, "bob")).toMatchObject({ type: USER_TYPE, id: bobId });
      expect(resourceOf(state, "alice-youtube")).toMatchObject({
        type: ENTITLEMENT_TYPE,
        id: `${youtube}/${aliceId}`,
        outputs: { entitlements: ["EDITOR", "VIEWER"] },
      });
      expect(resourceOf(state, "bob-slack")).toMatchObject({ id: `${slack}/${bobId}`, outputs: { entitlements: ["MEMBER"] } });
      expect(sorted(jobs.map((j) => j.id))).toEqual(
        sorted([resourceOf(state, "alice-youtube").outputs["lastJobId"], resourceOf(state, "bob-slack").outputs["lastJobId"]].map(String)),
      );
      expect(await basic.stack.outputs()).toEqual({
        aliceId,
        aliceEntitlements: ["EDITOR", "VIEWER"],
        aliceJobStatus: "finished",
        graceId: DEFAULT_IDS.users.grace,
        graceRole: "workspace_super_admin",
      });
      // The program's lookups read each list once (the two integrations share one listing, proven by a second: an
      // application must name one integration), and grace, looked up but not managed, is left as she was.
      expect(sorted(requestLines(requests).filter((line) => line === "GET /integrations" || line === "GET /users"))).toEqual([
        "GET /integrations",
        "GET /integrations",
        "GET /users",
      ]);
      // The host's one listing of one record: its first member read, a membership before its invitation, answered 404 ("not
      // a member"), which a service answering 404 ("not disclosed") to a key without read:integrations or read:users would
      // answer too; it is trusted once an integration's member list (one record) shows the key is shown both. It was one
      // GET /users?page[size]=1 (users alone; integrations were taken as shown): one request still. Once per host, only
      // where such a 404 comes first; the other create's 404 waits for the same one.
      expect(
        requests
          .filter((r) => r.query["page[size]"] === "1")
          .map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`),
      ).toEqual(["GET /integrations/:id/users 200"]);
      expect(emulator.users.get(DEFAULT_IDS.users.grace)).toMatchObject({ email: "grace@example.com", lastName: "Hopper" });
      expect(state.resources.filter((r) => r.id === DEFAULT_IDS.users.grace || r.name.includes("grace"))).toEqual([]);
    });

    it("a preview of the unchanged program finds no change; the providers send no request, only the program reads (getJob, lookups)", async () => {
      const { result: preview, requests } = await withRequests(emulator, () => basic.stack.preview());

      expect(stepsOf(preview)).toHaveLength(4);
      expect(changesOf(preview)).toEqual([]);
      for (const step of preview.steps.filter((s) => s.type !== "pulumi:pulumi:Stack")) expect(step.diffs, step.name).toEqual([]);
      // The requests are the program's own, not a provider's: data sources run in a preview (as
      // under the CLI). examples/basic reads alice's last job with getJob, and its lookups list
      // the integrations once (YouTube and Slack) and the users once (grace).
      const aliceJob = String(resourceOf(basic.stack.state(), "alice-youtube").outputs["lastJobId"]);
      expect(sorted(requestLines(requests))).toEqual(
        sorted([`GET /jobs/${aliceJob}`, "GET /integrations", "GET /integrations", "GET /users"]),
      );
    });

    it("after a name and an entitlement set change, the preview shows exactly those two updates and applies nothing", async () => {
      basic.stack.setProgram("index.ts", changedProgram());
      const { result: preview, requests } = await withRequests(emulator, () => basic.stack.preview());

      expect(sorted(changesOf(preview))).toEqual(["update alice", "update bob-slack"]);
      expect(sorted(stepsOf(preview).filter((s) => s.startsWith("same ")))).toEqual(["same alice-youtube", "same bob"]);
      expect(changedInputs(preview, "alice")).toEqual(["lastName"]);
      expect(changedInputs(preview, "bob-slack")).toEqual(["entitlements"]);
      expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
      // Besides the program's reads (getJob's, one listing of the integrations and one of the users
      // for its lookups), the one read is the check of bob's changed set against Slack's catalogue.
      expect(sorted(requestLines(requests.filter((r) => !r.path.startsWith("/jobs/"))))).toEqual(
        sorted(["GET /integrations", "GET /integrations", "GET /users", `GET /integrations/${slack}/entitlements`]),
      );
      expect(emulator.users.get(aliceId)?.lastName).toBe("Doe");
      expect(emulator.integrations.members(slack).find((m) => m.userId === bobId)?.entitlements).toEqual(["MEMBER"]);
    });

    it("up applies exactly those two changes", async () => {
      const jobsBefore = emulator.jobs.list().length;
      const { result: up, requests } = await withRequests(emulator, () => basic.stack.up());

      expect(sorted(changesOf(up))).toEqual(["update alice", "update bob-slack"]);
      const writes = requests.filter((r) => r.method !== "GET");
      expect(sorted(requestLines(writes))).toEqual(sorted([`PUT /users/${aliceId}`, `PATCH /integrations/${slack}/users/${bobId}`]));
      expect(writes.find((r) => r.method === "PUT")?.body).toMatchObject({
        data: { attributes: { firstName: "Alice", lastName: "Smith" } },
      });
      expect(writes.find((r) => r.method === "PATCH")?.body).toBeDefined();
      expect(emulator.users.get(aliceId)).toMatchObject({ firstName: "Alice", lastName: "Smith" });
      expect(emulator.users.get(bobId)).toMatchObject({ lastName: "Roe" });
      expect(sorted(emulator.integrations.members(slack).find((m) => m.userId === bobId)?.entitlements ?? [])).toEqual(["ADMIN", "MEMBER"]);
      expect(sorted(emulator.integrations.members(youtube).find((m) => m.userId === aliceId)?.entitlements ?? [])).toEqual([
        "EDITOR",
        "VIEWER",
      ]);

      const [job, ...others] = emulator.jobs.list().slice(jobsBefore);
      expect(others).toEqual([]);
      expect(job).toMatchObject({ status: "finished", integrationId: slack });
      expect(jobPolls(requests).some((r) => r.path === `/jobs/${job?.id}`)).toBe(true);
      const state = basic.stack.state();
      expect(resourceOf(state, "alice").outputs).toMatchObject({ lastName: "Smith" });
      expect(resourceOf(state, "bob-slack").outputs).toMatchObject({ entitlements: ["ADMIN", "MEMBER"], lastJobId: job?.id });
    });

    it("refresh reports a user and a membership changed out of band, and the next preview plans to set them back", async () => {
      emulator.users.update(aliceId, { lastName: "Changed-By-Hand" });
      emulator.integrations.setMember(youtube, aliceId, { role: "collaborator", entitlements: ["VIEWER", "MANAGER"] });

      const { result: refresh, requests } = await withRequests(emulator, () => basic.stack.refresh());
      expect(sorted(changesOf(refresh))).toEqual(["update alice", "update alice-youtube"]);
      expect(sorted(stepsOf(refresh).filter((s) => s.startsWith("same ")))).toEqual(["same bob", "same bob-slack"]);
      expect(requests.length).toBeGreaterThan(0);
      expect(requests.filter((r) => r.method !== "GET")).toEqual([]);
      const state = basic.stack.state();
      expect(resourceOf(state, "alice").outputs).toMatchObject({ lastName: "Changed-By-Hand" });
      expect(resourceOf(state, "alice-youtube").outputs).toMatchObject({ entitlements: ["MANAGER", "VIEWER"] });

      const preview = await basic.stack.preview();
      expect(sorted(changesOf(preview))).toEqual(["update alice", "update alice-youtube"]);
      expect(changedInputs(preview, "alice")).toEqual(["lastName"]);
      expect(changedInputs(preview, "alice-youtube")).toEqual(["entitlements"]);
    });

    it("destroy removes every user and membership it created, and nothing else", async () => {
      const { result: destroy, requests } = await withRequests(emulator, () => basic.stack.destroy());

      expect(sorted(stepsOf(destroy))).toEqual(["delete alice", "delete alice-youtube", "delete bob", "delete bob-slack"]);
      expect(sorted(requestLines(requests.filter((r) => r.method === "DELETE")))).toEqual(
        sorted([
          `DELETE /users/${aliceId}`,
          `DELETE /users/${bobId}`,
          `DELETE /integrations/${youtube}/users/${aliceId}`,
          `DELETE /integrations/${slack}/users/${bobId}`,
        ]),
      );
      expect(emulator.users.get(aliceId)).toBeUndefined();
      expect(emulator.users.get(bobId)).toBeUndefined();
      expect(emulator.integrations.members(youtube).map((m) => m.userId)).not.toContain(aliceId);
      expect(emulator.integrations.members(slack).map((m) => m.userId)).not.toContain(bobId);
      // The seeded world is untouched.
      expect(sorted(emulator.users.list().map((u) => u.id))).toEqual(sorted(Object.values(DEFAULT_IDS.users)));
      expect(emulator.integrations.members(youtube)).toHaveLength(2);
      expect(emulator.integrations.members(slack)).toHaveLength(2);
      expect(basic.stack.state().resources).toEqual([]);
    });

    it("the key reached the service on every request, and appears in nothing the CLI showed or stored; each __provider is one line", () => {
      expect(emulator.requests.length).toBeGreaterThan(0);
      expect(emulator.requests.every((r) => r.hasApiKey && r.status !== 401)).toBe(true);
      const captured = basic.stack.captured();
      expect(captured).toContain("alice@example.com");
      expect(captured.includes(emulator.apiKey), "the API key in the CLI's output, events or backend files").toBe(false);
      const providers = basic.stack.results.flatMap((r) => [...r.eventLog.matchAll(/"__provider":("(?:[^"\\]|\\.)*")/g)].map((m) => m[1]));
      expect(providers.length).toBeGreaterThan(0);
      for (const provider of new Set(providers)) {
        expect(JSON.parse(provider!)).toMatch(
          /^exports\.handler = \(\) => require\("pulumi-workspace-access\/provider\/[a-z-]+"\)\.provider;\n$/,
        );
      }
    });

    it("with a wrong key, the first create fails with a 401 naming the command that fixes it, without the wrong key", async () => {
      const wrongKey = `wa_wrong_${randomBytes(16).toString("hex")}`;
      const wrong = await exampleStack({
        example: "basic",
        project: basic.project,
        stackName: "wrong-key",
        config: accessConfig(emulator, wrongKey),
      });
      try {
        const usersBefore = emulator.users.list().length;
        const requestsBefore = emulator.requests.length;
        const failure = await wrong.stack.fails("up");
        expect(failure.result.errors.join("\n")).toContain("401");
        expect(failure.result.errors.join("\n")).toContain("pulumi config set --secret workspace-access:apiKey");
        expect(failure.result.failed.length).toBeGreaterThan(0);
        expect(wrong.stack.captured().includes(wrongKey)).toBe(false);
        const received = emulator.requests.slice(requestsBefore);
        expect(received.length).toBeGreaterThan(0);
        expect(received.every((r) => r.status === 401)).toBe(true);
        expect(emulator.users.list()).toHaveLength(usersBefore);
        expect(wrong.stack.state().resources.filter((r) => r.custom)).toEqual([]);
      } finally {
        await wrong.dispose();
      }
    });
  },
);

describe.skipIf(!cliAvailable)(`a job that fails, through the real pulumi CLI${skipNote}`, { timeout: 120_000 }, () => {
  const integrationOf: Record<string, string> = { "alice-youtube": youtube, "bob-slack": slack };
  let emulator: Emulator;
  let basic: ExampleStack;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    basic = await exampleStack({ example: "basic", config: accessConfig(emulator) });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await basic?.dispose();
    await emulator?.close();
  });

  it("fails the create with the job's errorType and id; the failed membership is not recorded", async () => {
    emulator.jobs.failNext(1, { errorType: "mfa_required", userRequired: true });
    const failure = await basic.stack.fails("up");
    // Both memberships are invited side by side; whichever job the service created first fails.
    const failedJob = emulator.jobs.list().find((job) => job.status === "error");
    expect(failedJob?.errorDetails).toMatchObject({ errorType: "mfa_required", userRequired: true });
    const name = Object.keys(integrationOf).find((n) => integrationOf[n] === failedJob?.integrationId) ?? "";
    expect(failure.result.failed).toEqual([name]);
    const message = failure.result.errors.join("\n");
    expect(message).toContain("mfa_required");
    expect(message).toContain(failedJob?.id);
    expect(message).toContain("userRequired: true");
    // The job applied nothing and the failed membership is not in state; the users are.
    const state = basic.stack.state();
    const userId = String(state.resources.find((r) => r.name === (name === "alice-youtube" ? "alice" : "bob"))?.id);
    expect(emulator.integrations.members(failedJob?.integrationId ?? "").map((m) => m.userId)).not.toContain(userId);
    expect(state.resources.map((r) => r.name)).not.toContain(name);
    expect(state.resources.map((r) => r.name)).toEqual(expect.arrayContaining(["alice", "bob"]));
  });

  it("the next up creates what is missing", async () => {
    const up = await basic.stack.up();
    expect(changesOf(up).every((step) => step.startsWith("create "))).toBe(true);
    expect(changesOf(up).length).toBeGreaterThanOrEqual(1);
    expect(
      basic.stack
        .state()
        .resources.map((r) => r.name)
        .sort(),
    ).toEqual(["alice", "alice-youtube", "bob", "bob-slack"]);
    expect(emulator.jobs.list().filter((job) => job.status === "error")).toHaveLength(1);
    await basic.stack.destroy();
    expect(emulator.users.findByEmail("alice@example.com")).toBeUndefined();
  });
});
