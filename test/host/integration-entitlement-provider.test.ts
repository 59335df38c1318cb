import { describe, expect, it } from "vitest";
import { ServerError } from "../../src/client";
import { PRESENCE_MAX_AGE_MS } from "../../src/client/integrations";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider } from "../../src/host/entitlement/integration-entitlement-provider";
import { PROOF_MAX_AGE_MS } from "../../src/host/membership/membership-view";
import { PartialWriteError } from "../../src/host/membership/partial-write";
import { UNKNOWN } from "../../src/shared/unknown";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube, slack } = DEFAULT_IDS.integrations;
const { alan, grace, katherine } = DEFAULT_IDS.users;
const base = { integrationId: youtube, userId: alan, entitlements: ["VIEWER", "EDITOR"] };
const check = (news: Record<string, unknown>) => provider.check!({}, news);
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
/** The invitations (`POST /integrations/{id}/users`) the emulator received. */
const invites = (emu: Awaited<ReturnType<typeof emulator>>) =>
  emu.requests.filter((r) => r.method === "POST" && /^\/integrations\/[^/]+\/users$/.test(r.path));
/** Every `GET /jobs/{id}` answers 503, and the client gives up at once (no retries, no back-off). */
async function jobsUnreachable(emu: Awaited<ReturnType<typeof emulator>>) {
  await configureFor(emu, { ...fast, "workspace-access:maxRetries": "0" });
  emu.fault({ method: "GET", path: /^\/jobs\//, status: 503, times: 1000 });
}
type PartialCreate = Error & { id?: string; properties?: Record<string, unknown> };

async function setup(options: Parameters<typeof emulator>[0] = {}) {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, ...options });
  await configureFor(emu, fast);
  return emu;
}

describe("check", () => {
  it("leaves a role left out undeclared (the service's is kept) and turns the entitlements into a sorted set", async () => {
    const emu = await setup();
    const result = wire(await check({ ...base, entitlements: ["VIEWER", "EDITOR", "VIEWER"] }));
    expect(result).toEqual({
      inputs: { ...base, entitlements: ["EDITOR", "VIEWER"], adoptExisting: false },
      failures: [],
    });
    // A new entitlement set: its ids are looked up in the integration's catalogue.
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${youtube}/entitlements`]);
  });

  it.each([
    ["integrationId", { integrationId: "youtube" }],
    ["integrationId", { integrationId: "../users" }],
    ["userId", { userId: "a/b" }],
    ["userId", { userId: ".." }],
    ["userId", { userId: "x%2Fy" }],
    ["userId", { userId: "x?y" }],
    ["userId", { userId: "x#y" }],
    ["entitlements", { entitlements: "VIEWER" }],
    ["entitlements", { entitlements: [] }],
    ["entitlements[0]", { entitlements: [""] }],
    ["entitlements[1]", { entitlements: ["VIEWER", 7] }],
    ["entitlements[0]", { entitlements: ["A/B"] }],
    ["entitlements[0]", { entitlements: ["A..B"] }],
    ["entitlements[0]", { entitlements: ["%2F"] }],
    ["entitlements[0]", { entitlements: ["A?B"] }],
    ["entitlements[0]", { entitlements: ["A#B"] }],
    ["role", { role: "owner" }],
    ["entitlement", { entitlement: ["VIEWER"] }],
  ])("rejects a bad %s, naming it, with no request sent", async (property, override) => {
    const emu = await setup();
    const { failures } = wire(await check({ ...base, ...override }));
    expect(failures?.map((f) => f.property)).toContain(property);
    expect(emu.requests).toHaveLength(0);
  });

  it("refuses an import that is not a membership's id at preview, naming import and the form, with no request sent", async () => {
    const emu = await setup();
    // The integration's id alone (an IntegrationMembers' import takes one): it would fail only at the create, naming "id".
    const { failures } = wire(await check({ ...base, __importId: youtube }));
    expect(failures).toEqual([
      {
        property: "__importId",
        reason: expect.stringContaining("import must be the membership's id, <integrationId>/<userId>"),
      },
    ]);
    expect(emu.requests).toHaveLength(0);
    // Whitespace around an id is no part of it (the class trims it too).
    expect(wire(await check({ ...base, __importId: ` ${youtube}/${alan}\n` })).failures).toEqual([]);
  });

  it("lets values not known yet through (preview: userId: alice.id)", async () => {
    const result = wire(await check({ ...base, userId: UNKNOWN, entitlements: ["VIEWER", UNKNOWN] }));
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ userId: UNKNOWN, entitlements: ["VIEWER", UNKNOWN] });
  });
});

describe("diff", () => {
  const olds = {
    ...base,
    entitlements: ["EDITOR", "VIEWER"],
    role: "account_collaborator" as const,
    declaredRole: "account_collaborator" as const,
    adoptExisting: false,
    email: "alan@example.com",
    status: "live",
    lastJobId: null,
  };
  it.each([
    ["reordered entitlements", { entitlements: ["VIEWER", "EDITOR"] }, { changes: false, replaces: [], deleteBeforeReplace: false }],
    [
      "duplicated entitlements",
      { entitlements: ["EDITOR", "VIEWER", "EDITOR"] },
      { changes: false, replaces: [], deleteBeforeReplace: false },
    ],
    // The state learns it (an update that sends nothing): a destroy then treats the role as the service's.
    ["the declared role left out", { role: undefined }, { changes: true, replaces: [], deleteBeforeReplace: false }],
    ["another entitlement set", { entitlements: ["VIEWER"] }, { changes: true, replaces: [], deleteBeforeReplace: false }],
    ["entitlements not known yet", { entitlements: [UNKNOWN] }, { changes: true, replaces: [], deleteBeforeReplace: false }],
    ["another integration", { integrationId: slack }, { changes: true, replaces: ["integrationId"], deleteBeforeReplace: false }],
    ["another user", { userId: grace }, { changes: true, replaces: ["userId"], deleteBeforeReplace: false }],
    ["a user not known yet", { userId: UNKNOWN }, { changes: true, replaces: ["userId"], deleteBeforeReplace: false }],
    ["another role", { role: "account_owner" }, { changes: true, replaces: ["role"], deleteBeforeReplace: true }],
    [
      "the same ids in another case",
      { integrationId: youtube.toUpperCase(), userId: alan.toUpperCase() },
      { changes: false, replaces: [], deleteBeforeReplace: false },
    ],
    [
      "another role and user",
      { role: "account_owner", userId: grace },
      { changes: true, replaces: ["userId", "role"], deleteBeforeReplace: false },
    ],
  ])("%s", async (_what, change, expected) => {
    const news = Object.fromEntries(Object.entries({ ...olds, ...change }).filter(([, v]) => v !== undefined));
    // The engine diffs the program's inputs after its check (the same sets: no catalogue read); without it, a refresh's read.
    const program = Object.fromEntries(
      Object.entries(news).filter(([k]) => ["integrationId", "userId", "entitlements", "role"].includes(k)),
    );
    await provider.check!(program, program);
    expect(wire(await provider.diff!("id", olds, news))).toEqual(expected);
  });
});

describe("create", () => {
  it("invites a user who is not a member, waits for the job, and reads the member back", async () => {
    const emu = await setup();
    const { id, outs } = wire(await provider.create((await check(base)).inputs!));
    expect(id).toBe(`${youtube}/${alan}`);
    expect(outs).toEqual({
      integrationId: youtube,
      userId: alan,
      entitlements: ["EDITOR", "VIEWER"],
      role: "account_collaborator",
      adoptExisting: false,
      email: "alan@example.com",
      status: "pending",
      lastJobId: emu.jobs.list()[0]?.id,
      pendingInvitations: [],
      adopted: false,
      // Left out, the role is the service's: shown, never declared.
      declaredRole: null,
      __workspace: emu.url,
    });
    // check reads the catalogue; a lone create: one read before the invitation (not a member: 404, once the client's one
    // read of the integration's member list, one record, shows this key is shown integrations and users, not "not
    // disclosed"), one after it, for the member's email and status.
    expect(emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`)).toEqual([
      "GET /integrations/:id/entitlements 200",
      "GET /integrations/:id/users/:id 404",
      "GET /integrations/:id/users 200",
      "POST /integrations/:id/users 200",
      "GET /jobs/:id 200",
      "GET /integrations/:id/users/:id 200",
    ]);
  });

  it("without adoptExisting, a create over an existing membership fails before any write, naming role, entitlements and the fix", async () => {
    const emu = await setup();
    const error = await rejection(provider.create((await check({ ...base, userId: grace, entitlements: ["VIEWER"] })).inputs!));
    expect(error.message).toContain("already a member of integration");
    expect(error.message).toContain("role collaborator and entitlements EDITOR");
    expect(error.message).toContain("set adoptExisting: true");
    expect(error.message).toContain(`If this resource was renamed, give it the option aliases: [{ name: "<its old name>" }] instead`);
    expect(emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`)).toEqual([
      "GET /integrations/:id/entitlements 200",
      "GET /integrations/:id/users/:id 200",
    ]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("with adoptExisting, a membership that holds the declared set already is adopted with no write, and the up's output says so", async () => {
    const emu = await setup();
    const said: string[] = [];
    await configureFor(emu, fast, { info: (message) => void said.push(message) });
    await provider.create((await check({ ...base, userId: grace, entitlements: ["EDITOR"], adoptExisting: true })).inputs!);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(said).toEqual([
      `Adopted the membership of user ${grace} in integration ${youtube}: it holds the declared role and entitlements already; nothing was written.`,
    ]);
  });

  it("with adoptExisting, sets the entitlements of a user who is already a member (PATCH, the whole set)", async () => {
    const emu = await setup();
    const { outs } = wire(
      await provider.create((await check({ ...base, userId: grace, entitlements: ["VIEWER", "MANAGER"], adoptExisting: true })).inputs!),
    );
    expect(outs).toMatchObject({ adoptExisting: true, entitlements: ["MANAGER", "VIEWER"] });
    // Read first (a member), then replace the set; no invitation.
    expect(emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`)).toEqual([
      "GET /integrations/:id/entitlements 200",
      "GET /integrations/:id/users/:id 200",
      "PATCH /integrations/:id/users/:id 200",
      "GET /jobs/:id 200",
    ]);
    expect(emu.requests.find((r) => r.method === "PATCH")?.body).toEqual({
      data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "MANAGER" }, { id: "VIEWER" }] } },
    });
    expect(
      emu.integrations
        .members(youtube)
        .find((m) => m.userId === grace)
        ?.entitlements.sort(),
    ).toEqual(["MANAGER", "VIEWER"]);
  });

  it("invites as owner when the role says so", async () => {
    const emu = await setup();
    const { outs } = await provider.create((await check({ ...base, role: "account_owner" })).inputs!);
    expect(outs?.role).toBe("account_owner");
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.role).toBe("owner");
  });

  it("fails with the job's errorType, userRequired and job id when the job fails", async () => {
    const emu = await setup();
    emu.jobs.failNext(1, { errorType: "mfa_required", userRequired: true });
    const error = await rejection(provider.create((await check(base)).inputs!));
    expect(error.message).toMatch(/job [0-9a-f-]+ failed with mfa_required \(userRequired: true/);
    // A job that failed wrote nothing: no partial create is recorded (its state would wait for a job that will never land).
    expect(PartialWriteError.isInstance(error)).toBe(false);
    expect((error as { id?: string }).id).toBeUndefined();
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });

  it("a job that never finishes fails at the timeout and records the resource so the next up resumes", async () => {
    const emu = await setup();
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.jobs.hangNext(1);
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.create(inputs))) as Error & { id?: string; properties?: Record<string, unknown> };
    expect(error.message).toMatch(/did not finish within 1 s \(last status: running\)/);
    expect(error.id).toBe(`${youtube}/${alan}`);
    const job = emu.jobs.list()[0]?.id;
    // Pending, with the job, and the set asked (not an empty set: that would read as "no access").
    expect(error.properties).toMatchObject({
      entitlements: ["EDITOR", "VIEWER"],
      pendingInvitations: [{ userId: alan, jobId: job }],
      lastJobId: job,
      __provider: "serialized",
    });
  });
});

describe("read, update, delete", () => {
  it("reads the current set sorted, and drift back as inputs", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    // Set by hand out of order: the service answers the set in the order it holds it.
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["VIEWER", "MANAGER"] });
    const read = wire(await provider.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["MANAGER", "VIEWER"]);
    expect(read.inputs).toEqual({
      integrationId: youtube,
      userId: alan,
      entitlements: ["MANAGER", "VIEWER"],
      adoptExisting: false,
    });
    expect((await provider.diff!(id, read.props!, (await check(base)).inputs!)).changes).toBe(true);
  });

  it("reads an empty id when the user is no longer a member", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.removeMember(youtube, alan);
    expect(wire(await provider.read!(id, outs)).id).toBe("");
  });

  it("updates the set and waits", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    const { outs: updated } = wire(await provider.update!(id, outs!, (await check({ ...base, entitlements: ["MANAGER"] })).inputs!));
    expect(updated?.entitlements).toEqual(["MANAGER"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["MANAGER"]);
  });

  it("restores a membership removed out of band on update", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.removeMember(youtube, alan);
    await provider.update!(id, outs!, (await check(base)).inputs!);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });

  it("deletes through a job, and treats 404 as done", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    // Another deployment: in the create's, the membership is claimed (a replaced resource's delete leaves it).
    await configureFor(emu, fast);
    await provider.delete!(id, outs!);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
    await provider.delete!(id, outs!);
    expect(emu.requests.at(-1)?.status).toBe(404);
  });

  it("a delete whose member read is refused the key names where the key comes from, and removes nothing", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    await configureFor(emu, { ...fast, "workspace-access:apiKey": "wa_host_not_issued_0000000000000000" });
    emu.clearRequests();
    const message = (await rejection(provider.delete!(id, outs!))).message;
    expect(message).toContain("answered 401");
    expect(message).toContain("The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).");
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("a write whose job fails still forgets the member list the reads of a refresh share", async () => {
    const emu = await setup();
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["VIEWER"] });
    emu.integrations.setMember(youtube, grace, { role: "collaborator", entitlements: ["VIEWER"] });
    const refresh = () => Promise.all([alan, grace].map((userId) => provider.read!(`${youtube}/${userId}`)));
    const lists = () => emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${youtube}/users`).length;
    await refresh();
    expect(lists()).toBe(1);
    emu.jobs.failNext(1, { errorType: "mfa_required" });
    const failed = await rejection(
      provider.update!(
        `${youtube}/${alan}`,
        { ...base, role: "account_collaborator", adoptExisting: false, email: "a", status: "live", lastJobId: null },
        (await check(base)).inputs!,
      ),
    );
    // The job's own failure: nothing left in flight, so no partial write recorded with its job.
    expect(PartialWriteError.isInstance(failed)).toBe(false);
    // A failed write may still have changed something (or a timed-out one may yet): the next
    // reads take a new list, and see what changed meanwhile.
    emu.integrations.setMember(youtube, grace, { role: "collaborator", entitlements: ["MANAGER"] });
    const [, read] = await refresh();
    expect(lists()).toBe(2);
    expect(wire(read!).props?.entitlements).toEqual(["MANAGER"]);
  });

  it("a replacement on the same membership is never undone by the old resource's delete", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    // A new resource (e.g. renamed without an alias) declares the same membership and adopts it: create-before-delete.
    await provider.create((await check({ ...base, entitlements: ["MANAGER"], adoptExisting: true })).inputs!);
    await provider.delete!(id, outs!);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["MANAGER"]);
  });

  it("a role change replaces delete-first and ends with the user a member with the new role", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check({ ...base, userId: katherine })).inputs!);
    const news = (await check({ ...base, userId: katherine, role: "account_owner" })).inputs!;
    await configureFor(emu, fast);
    expect((await provider.diff!(id, outs!, news)).deleteBeforeReplace).toBe(true);
    await provider.delete!(id, outs!);
    await provider.create(news);
    expect(emu.integrations.members(youtube).find((m) => m.userId === katherine)?.role).toBe("owner");
  });
});

describe("preview placeholders inside lists", () => {
  it("lets a list whose every element is not known yet through check", async () => {
    const result = wire(await check({ ...base, entitlements: [UNKNOWN] }));
    expect(result.failures).toEqual([]);
  });
});

/** A create whose invitation job hangs past a 1 s wait: the partial state the host records, and the job. */
async function hung() {
  const emu = await setup();
  await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
  emu.jobs.hangNext(1);
  const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
  const error = (await rejection(provider.create(inputs))) as Error & { properties: Record<string, unknown> };
  const job = emu.jobs.list().find((j) => j.status === "running")!;
  return { emu, props: error.properties as never, job };
}

describe("a partial create whose invitation is still running", () => {
  const id = `${youtube}/${alan}`;

  it("is kept by a refresh while the job runs (the next up must wait for it, not invite again), and read normally once it lands", async () => {
    const { emu, props, job } = await hung();
    const kept = wire(await provider.read!(id, props));
    expect(kept.id).toBe(id);
    expect(kept.props).toEqual(props);
    expect(kept.inputs).toMatchObject({
      integrationId: youtube,
      userId: alan,
      entitlements: ["EDITOR", "VIEWER"],
      adoptExisting: false,
    });
    expect(kept.inputs).not.toHaveProperty("role");
    // The next plan resumes it with an update (waiting for its job), although the set is the declared one.
    expect((await provider.diff!(id, kept.props!, (await check(base)).inputs!)).changes).toBe(true);
    emu.jobs.release(job.id);
    const landed = wire(await provider.read!(id, props));
    expect(landed.props).toMatchObject({
      entitlements: ["EDITOR", "VIEWER"],
      email: "alan@example.com",
      pendingInvitations: [],
    });
    expect((await provider.diff!(id, landed.props!, (await check(base)).inputs!)).changes).toBe(false);
  });

  it("is dropped by a refresh when its job has ended (here: the service no longer knows it) and the user is not a member", async () => {
    const { props } = await hung();
    const gone = "00000000-0000-4000-8000-0000000000aa";
    const ended = { ...(props as Record<string, unknown>), lastJobId: gone, pendingInvitations: [{ userId: alan, jobId: gone }] };
    expect(wire(await provider.read!(id, ended as never)).id).toBe("");
  });

  it("fails a destroy while the job runs, keeping the resource; once the job lands, the destroy removes the member", async () => {
    const { emu, props, job } = await hung();
    await configureFor(emu, fast);
    await expect(provider.delete!(id, props)).rejects.toThrow(
      `The invitation's job ${job.id} of user ${alan} to integration ${youtube} is still running`,
    );
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    emu.jobs.release(job.id);
    await provider.delete!(id, props);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });

  it("resumed after someone else made the user a member with another role: the adoption rules apply, nothing is written", async () => {
    const { emu, props } = await hung();
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["MANAGER"] });
    emu.clearRequests();
    const error = await rejection(provider.update!(id, props, (await check(base)).inputs!));
    expect(String((error as Error).message)).toContain("adoptExisting");
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner", entitlements: ["MANAGER"] });
  });
});

describe("a partial create whose member someone else made meanwhile", () => {
  it("is left by a destroy, with a warning naming it, when the member holds another role than the invitation asked", async () => {
    // The service fails an invitation of someone already a member: the declared owner's invitation hangs, someone adds the user
    // as a collaborator meanwhile, and the job, once it runs, fails.
    const emu = await setup({ quirks: { inviteExisting: "fail" } });
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.jobs.hangNext(1);
    const owner = { ...base, role: "account_owner" };
    const error = (await rejection(provider.create({ ...(await check(owner)).inputs!, __provider: "serialized" }))) as PartialCreate;
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["MANAGER"] });
    emu.jobs.release(job.id);
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    const id = `${youtube}/${alan}`;
    // The refresh keeps the state as it was (someone else's membership), and the destroy then leaves that membership.
    const read = wire(await provider.read!(id, error.properties as never));
    emu.clearRequests();
    await provider.delete!(id, read.props!);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({
      role: "collaborator",
      entitlements: ["MANAGER"],
    });
    expect(warned.join("\n")).toContain(`The membership of user ${alan} (alan@example.com) in integration ${youtube} is left as it is`);
    expect(warned.join("\n")).toContain("not the role this resource's invitation asked");
  });
});

describe("resuming and roles", () => {
  it("an up after a timed-out create waits for the recorded job and, once it finished, does not invite again", async () => {
    const emu = await setup({ job: { finishAfterMs: 1500 } });
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.create(inputs))) as Error & { properties: Record<string, unknown> };
    expect(error.message).toMatch(/did not finish within 1 s/);
    // The next up updates the partially created resource: it waits for the slow invitation.
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, error.properties as never, (await check(base)).inputs!));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com" });
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("a recorded job still running after one more timeout is taken as stuck: the user is invited again", async () => {
    const { emu, props } = await hung();
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, props, (await check(base)).inputs!));
    expect(outs?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(2);
  });

  it("a recorded job still running, the program now asking another set: nothing is sent (a late landing would add what is no longer declared); once it finished, the next up writes the new set", async () => {
    const { emu, props, job } = await hung();
    const viewer = (await check({ ...base, entitlements: ["VIEWER"] })).inputs!;
    emu.clearRequests();
    const refused = await rejection(provider.update!(`${youtube}/${alan}`, props, viewer));
    expect(refused.message).toContain(
      `(job ${job.id}, entitlements [EDITOR, VIEWER]) is still running after another wait. Nothing was sent`,
    );
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    // The job lands; the next up (the state as it was) takes the member as its own and writes the set now declared.
    emu.jobs.release(job.id);
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, props, viewer));
    expect(outs).toMatchObject({ entitlements: ["VIEWER"], adopted: false, pendingInvitations: [] });
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ entitlements: ["VIEWER"] });
    expect(emu.requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("an invitation accepted whose job cannot be polled records the resource with that job, and the next up does not invite again", async () => {
    const emu = await setup();
    await jobsUnreachable(emu);
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.create(inputs))) as PartialCreate;
    // One partial-write error, with the job; the user still sees why: the polling error's message, and it as the cause.
    const jobId = emu.jobs.list()[0]?.id;
    expect(PartialWriteError.isInstance(error)).toBe(true);
    expect((error as PartialWriteError).pendingJobId).toBe(jobId);
    expect(ServerError.isInstance(error.cause)).toBe(true);
    expect(error.message).toMatch(/GET \S*\/jobs\/[0-9a-f-]+ answered 503/);
    // A partial create, recorded with the invitation's job.
    expect(jobId).toBeDefined();
    expect(error.id).toBe(`${youtube}/${alan}`);
    expect(error.properties).toMatchObject({
      entitlements: ["EDITOR", "VIEWER"],
      email: null,
      status: null,
      lastJobId: jobId,
      pendingInvitations: [{ userId: alan, jobId }],
      __provider: "serialized",
    });
    expect(invites(emu)).toHaveLength(1);

    // The next up: the recorded job is settled, then the set converges; no second invitation.
    emu.clearFaults();
    const news = (await check({ ...base, entitlements: ["MANAGER", "VIEWER"] })).inputs!;
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, error.properties as never, news));
    expect(invites(emu)).toHaveLength(1);
    expect(outs).toMatchObject({ entitlements: ["MANAGER", "VIEWER"], email: "alan@example.com" });
    expect(
      emu.integrations
        .members(youtube)
        .find((m) => m.userId === alan)
        ?.entitlements.sort(),
    ).toEqual(["MANAGER", "VIEWER"]);
  });

  it("an invitation whose job finished but whose member cannot be read back records the resource: the next up takes it as its own", async () => {
    const emu = await setup();
    await configureFor(emu, { ...fast, "workspace-access:maxRetries": "0" });
    const memberPath = `/integrations/${youtube}/users/${alan}`;
    // The read before the invitation answers as the service would (not a member); the read-back after its job fails.
    emu.fault({ method: "GET", path: memberPath, status: 404 });
    emu.fault({ method: "GET", path: memberPath, status: 503 });
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.create(inputs))) as PartialCreate;
    const jobId = emu.jobs.list()[0]?.id;
    expect(emu.jobs.list()[0]?.status).toBe("finished");
    expect(error.message).toContain("503");
    // The invitation landed: the state records the membership (a partial create), not nothing.
    expect(error.id).toBe(`${youtube}/${alan}`);
    expect(error.properties).toMatchObject({ pendingInvitations: [{ userId: alan, jobId }], adopted: false, __provider: "serialized" });

    // The next up resumes it as this resource's own: no second invitation, no refusal as someone else's membership.
    emu.clearRequests();
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, error.properties as never, (await check(base)).inputs!));
    expect(invites(emu)).toEqual([]);
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", adopted: false, pendingInvitations: [] });
  });

  it("an invitation whose job finished but whose member a direct read does not find records the resource: the next up takes it as its own", async () => {
    const emu = await setup();
    const memberPath = `/integrations/${youtube}/users/${alan}`;
    // The read before the invitation answers as the service does (not a member); the read-back after its finished job, 404 too.
    emu.fault({ method: "GET", path: memberPath, status: 404, times: 2 });
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.create(inputs))) as PartialCreate;
    const jobId = emu.jobs.list()[0]?.id;
    expect(emu.jobs.list()[0]?.status).toBe("finished");
    expect(error.message).toContain("finished, but the user is not a member");
    // Not a member to record, nor nothing: a write that may still land (a service whose read lags its jobs), with its job.
    expect(PartialWriteError.isInstance(error)).toBe(true);
    expect(error.id).toBe(`${youtube}/${alan}`);
    expect(error.properties).toMatchObject({ pendingInvitations: [{ userId: alan, jobId }], adopted: false });

    // The next up finds the member there now: this resource's own, no second invitation, no refusal as someone else's.
    emu.clearRequests();
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, error.properties as never, (await check(base)).inputs!));
    expect(invites(emu)).toEqual([]);
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], adopted: false, pendingInvitations: [] });
  });

  /** A create whose invitation's job finishes while the member read-back answers 404 (a read lagging the jobs): the partial create. */
  async function finishedNotSeen(emu: Emulator) {
    emu.fault({ method: "GET", path: `/integrations/${youtube}/users/${alan}`, status: 404, times: 2 });
    const error = (await rejection(provider.create({ ...(await check(base)).inputs!, __provider: "serialized" }))) as PartialCreate;
    const jobId = emu.jobs.list()[0]!.id;
    expect(emu.jobs.list()[0]?.status).toBe("finished");
    expect(error.properties).toMatchObject({ pendingInvitations: [{ userId: alan, jobId }], adopted: false });
    return { props: error.properties as never, jobId };
  }

  it("a refresh that still does not find the member of a finished invitation keeps the partial create, and the next up takes them as its own", async () => {
    const emu = await setup();
    const { props, jobId } = await finishedNotSeen(emu);
    const id = `${youtube}/${alan}`;
    // pulumi refresh, the member read still lagging: kept as recorded, and said.
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    emu.fault({ method: "GET", path: `/integrations/${youtube}/users/${alan}`, status: 404, times: 1 });
    const kept = wire(await provider.read!(id, props));
    expect(kept.id).toBe(id);
    expect(kept.props).toEqual(props);
    expect(warned.join("\n")).toContain(`The invitation of user ${alan} to integration ${youtube} finished (job ${jobId})`);
    expect(warned.join("\n")).toContain("not a member yet");
    // The member shows up; the next up resumes the partial create: this resource's own, not adopted, not refused, not invited again.
    await configureFor(emu, fast);
    const news = (await check(base)).inputs!;
    expect((await provider.diff!(id, kept.props!, news)).changes).toBe(true);
    const { outs } = wire(await provider.update!(id, kept.props!, news));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", adopted: false, pendingInvitations: [] });
    expect(invites(emu)).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method !== "GET" && r.method !== "POST")).toEqual([]);
  });

  it("a refresh keeps a finished invitation's partial create no longer than the next up, which invites again when the member is still not there", async () => {
    const emu = await setup();
    const { props } = await finishedNotSeen(emu);
    const id = `${youtube}/${alan}`;
    // The invitation did not make them after all (a job that applied nothing): the refresh cannot tell that from a lagging read.
    emu.integrations.removeMember(youtube, alan);
    await configureFor(emu, fast);
    const kept = wire(await provider.read!(id, props));
    expect(kept.props).toEqual(props);
    // The next up reads the member directly, finds none, and invites again: the state settles, nothing left pending.
    await configureFor(emu, fast);
    const { outs } = wire(await provider.update!(id, kept.props!, (await check(base)).inputs!));
    expect(invites(emu)).toHaveLength(2);
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], adopted: false, pendingInvitations: [] });
    await configureFor(emu, fast);
    expect(wire(await provider.read!(id, outs as never)).props).toMatchObject({ pendingInvitations: [], adopted: false });
  });

  it("a destroy of a partial create whose invitation's job finished, its member not there, warns that it may still land", async () => {
    const emu = await setup();
    const { props, jobId } = await finishedNotSeen(emu);
    // The service does not list the member yet: the DELETE answers 404.
    emu.integrations.removeMember(youtube, alan);
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    emu.clearRequests();
    await provider.delete!(`${youtube}/${alan}`, props);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
    expect(warned.join("\n")).toContain(`The invitation of user ${alan} to integration ${youtube} finished (job ${jobId})`);
    expect(warned.join("\n")).toContain("may still land after this destroy");
  });

  it("a destroy of a partial create whose invitation got no answer, its member not there, warns that it may still land", async () => {
    const emu = await setup();
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    // Recorded by a create whose invitation's answer was lost (no job known); alan is no member now.
    const olds = { ...(await check(base)).inputs!, entitlements: [], email: null, status: null, lastJobId: null };
    const props = { ...olds, pendingInvitations: [{ userId: alan, jobId: null }], adopted: false };
    await provider.delete!(`${youtube}/${alan}`, props as never);
    expect(warned.join("\n")).toContain(`The invitation of user ${alan} to integration ${youtube} got no answer`);
    expect(warned.join("\n")).toContain("may still land");
  });

  it("a destroy of a partial create whose invitation got no answer, its member there, removes them without that warning", async () => {
    const emu = await setup();
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["VIEWER"] });
    const olds = { ...(await check(base)).inputs!, entitlements: [], email: null, status: null, lastJobId: null };
    const props = { ...olds, pendingInvitations: [{ userId: alan, jobId: null }], adopted: false };
    await provider.delete!(`${youtube}/${alan}`, props as never);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
    expect(warned.join("\n")).not.toContain("got no answer");
  });

  it("an update resuming a partial create records the job of its own invitation when that job cannot be polled", async () => {
    const emu = await setup();
    await jobsUnreachable(emu);
    const inputs = { ...(await check(base)).inputs!, __provider: "serialized" };
    // Recorded by an earlier create whose invitation never got a job (nothing to wait for).
    const olds = { ...inputs, entitlements: [], email: null, status: null, lastJobId: null };
    const error = (await rejection(provider.update!(`${youtube}/${alan}`, olds as never, inputs))) as PartialCreate;
    expect(ServerError.isInstance(error.cause)).toBe(true);
    const jobId = emu.jobs.list()[0]?.id;
    expect(error.id).toBe(`${youtube}/${alan}`);
    expect(error.properties).toMatchObject({
      email: null,
      status: null,
      lastJobId: jobId,
      pendingInvitations: [{ userId: alan, jobId }],
      __provider: "serialized",
    });

    emu.clearFaults();
    const { outs } = wire(await provider.update!(`${youtube}/${alan}`, error.properties as never, inputs));
    expect(invites(emu)).toHaveLength(1);
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", lastJobId: jobId });
  });

  it("a create over an existing membership with another role says so instead of planning a replacement", async () => {
    const emu = await setup();
    // grace is a collaborator on YouTube in the seed; declare her an owner.
    const error = await rejection(
      provider.create((await check({ ...base, userId: grace, role: "account_owner", adoptExisting: true })).inputs!),
    );
    expect(error.message).toContain("already a member of integration");
    expect(error.message).toContain('declare role: "account_collaborator"');
    // Nothing was written.
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.role).toBe("collaborator");
  });
});

describe("an update whose own PATCH is left in flight (its job not seen to finish)", () => {
  const id = `${youtube}/${alan}`;
  /** The stack's membership of alan (`declare`), changed to `MANAGER` by an update whose PATCH's job hangs past the timeout. */
  async function hungPatch(declare: Record<string, unknown>, byHand?: (emu: Emulator) => void) {
    const emu = await setup();
    const created = (await provider.create((await check({ ...base, ...declare })).inputs!)).outs!;
    byHand?.(emu);
    const olds = byHand ? wire(await provider.read!(id, created)).props! : created;
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "1" });
    emu.jobs.hangNext(1);
    const news = { ...(await check({ ...base, ...declare, entitlements: ["MANAGER"] })).inputs!, __provider: "serialized" };
    const error = (await rejection(provider.update!(id, olds, news))) as PartialCreate;
    const job = emu.jobs.list().find((j) => j.status === "running")!;
    return { emu, error, job, news };
  }

  it("keeps the membership this resource's: a member someone made an owner is not taken for someone else's", async () => {
    const { emu, error, job, news } = await hungPatch({}, (e) =>
      e.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] }),
    );
    expect(error.message).toMatch(/did not finish within 1 s/);
    // Recorded with the set asked and its job, for the next up to wait for, with the role the member holds.
    expect(error.id).toBe(id);
    expect(error.properties).toMatchObject({
      entitlements: ["MANAGER"],
      role: "account_owner",
      declaredRole: null,
      lastJobId: job.id,
      pendingInvitations: [{ userId: alan, jobId: job.id }],
      adopted: false,
      __provider: "serialized",
    });
    emu.jobs.release(job.id);
    await configureFor(emu, fast);
    const state = error.properties as never;
    // A refresh reads the membership the PATCH landed in: no longer pending.
    expect(wire(await provider.read!(id, state)).props).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
    // The next up (no refresh) waits for the job and takes the member as its own: not refused, nobody invited or removed.
    expect((await provider.diff!(id, state, news)).changes).toBe(true);
    emu.clearRequests();
    const { outs } = wire(await provider.update!(id, state, news));
    expect(outs).toMatchObject({ entitlements: ["MANAGER"], role: "account_owner", adopted: false, pendingInvitations: [] });
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner", entitlements: ["MANAGER"] });
  });

  it("does not record a membership the stack invited as adopted (adoptExisting): destroy still removes it", async () => {
    const { emu, error, job } = await hungPatch({ adoptExisting: true });
    expect(error.properties).toMatchObject({ adopted: false, pendingInvitations: [{ userId: alan, jobId: job.id }] });
    emu.jobs.release(job.id);
    await configureFor(emu, fast);
    await provider.delete!(id, error.properties as never);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toHaveLength(1);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });
});

describe("a role the program leaves out is the service's", () => {
  it("a member made an owner by hand is neither replaced nor demoted: a refresh shows the role, no diff follows, an update only sets", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.role).toBe("collaborator");
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ role: "account_owner", declaredRole: null });
    expect(read.inputs).not.toHaveProperty("role");
    expect(wire(await provider.diff!(id, read.props!, (await check(base)).inputs!))).toEqual({
      changes: false,
      replaces: [],
      deleteBeforeReplace: false,
    });
    emu.clearRequests();
    const news = (await check({ ...base, entitlements: ["VIEWER"] })).inputs!;
    expect(wire(await provider.diff!(id, read.props!, news)).replaces).toEqual([]);
    const { outs: updated } = wire(await provider.update!(id, read.props!, news));
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => r.method)).toEqual(["PATCH"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner", entitlements: ["VIEWER"] });
    expect(updated).toMatchObject({ role: "account_owner", declaredRole: null });
    // Declaring a role again compares it: another one replaces (the API cannot change a role in place).
    expect(wire(await provider.diff!(id, updated!, { ...news, role: "account_collaborator" })).replaces).toEqual(["role"]);
  });

  it("a destroy leaves a member someone made an owner since, with a warning; one the program declares an owner it removes", async () => {
    const emu = await setup();
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    const { id, outs } = await provider.create((await check(base)).inputs!);
    const declared = await provider.create((await check({ ...base, userId: katherine, role: "account_owner" })).inputs!);
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    // The destroy's own deployment (what the creates took over was that one's).
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    emu.clearRequests();
    await provider.delete!(id, outs!);
    await provider.delete!(declared.id, declared.outs!);
    expect(emu.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([`/integrations/${youtube}/users/${katherine}`]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.role).toBe("owner");
    expect(warned.join("\n")).toContain(`The membership of user ${alan}`);
    expect(warned.join("\n")).toContain('declare role: "account_owner" or set deleteOnDestroy: true');
  });

  it("a refresh does not make an owner someone promoted look declared: declared collaborator, or a state from before the record", async () => {
    const emu = await setup();
    const warned: string[] = [];
    const deployment = () => configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    const alanMember = () => emu.integrations.members(youtube).find((m) => m.userId === alan);
    const katherineMember = () => emu.integrations.members(youtube).find((m) => m.userId === katherine);
    const declared = await provider.create((await check({ ...base, role: "account_collaborator" })).inputs!);
    const older = await provider.create((await check({ ...base, userId: katherine })).inputs!);
    const { declaredRole: _, ...beforeTheRecord } = older.outs!;
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    emu.integrations.setMember(youtube, katherine, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    const reads = [wire(await provider.read!(declared.id, declared.outs!)), wire(await provider.read!(older.id, beforeTheRecord))];
    expect(reads.map((r) => [r.props?.role, r.props?.declaredRole])).toEqual([
      ["account_owner", "account_collaborator"],
      ["account_owner", undefined],
    ]);
    await deployment();
    await provider.delete!(declared.id, reads[0]!.props!);
    await provider.delete!(older.id, reads[1]!.props!);
    expect([alanMember()?.role, katherineMember()?.role]).toEqual(["owner", "owner"]);
    expect(warned.filter((w) => w.includes("is an owner of the integration now"))).toHaveLength(2);
  });

  it("declaring the owner role the service holds is recorded by an update that sends nothing; the destroy then removes the member", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    const read = wire(await provider.read!(id, outs));
    const news = (await check({ ...base, role: "account_owner" })).inputs!;
    expect(wire(await provider.diff!(id, read.props!, news))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
    emu.clearRequests();
    const { outs: recorded } = wire(await provider.update!(id, read.props!, news));
    expect(emu.requests).toEqual([]);
    expect(recorded).toMatchObject({ role: "account_owner", declaredRole: "account_owner" });
    expect(wire(await provider.read!(id, recorded!)).props).toMatchObject({ declaredRole: "account_owner" });
    await configureFor(emu, fast);
    await provider.delete!(id, recorded!);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });

  it("declaring collaborator for an owner someone promoted replaces the membership, as the preview shows: the delete is the program's", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    const read = wire(await provider.read!(id, outs));
    // One deployment: its diff, then the replacement's delete and create.
    await configureFor(emu, fast);
    const news = (await check({ ...base, role: "account_collaborator" })).inputs!;
    expect(wire(await provider.diff!(id, read.props!, news))).toEqual({ changes: true, replaces: ["role"], deleteBeforeReplace: true });
    await provider.delete!(id, read.props!);
    const { outs: created } = wire(await provider.create(news));
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.role).toBe("collaborator");
    expect(created).toMatchObject({ role: "account_collaborator", declaredRole: "account_collaborator" });
  });

  it("a refresh's diff (no check in the deployment: destroy --refresh, refresh: always) neither refuses nor plans a role change", async () => {
    const emu = await setup();
    const warned: string[] = [];
    const declared = { ...base, role: "account_collaborator" };
    const created = await provider.create((await check(declared)).inputs!);
    const adopted = await provider.create(
      (await check({ ...base, userId: grace, entitlements: ["EDITOR"], role: "account_collaborator", adoptExisting: true })).inputs!,
    );
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["EDITOR", "VIEWER"] });
    emu.integrations.setMember(youtube, grace, { role: "owner", entitlements: ["EDITOR"] });
    // destroy --refresh: the reads, then the engine's diff of each against its old inputs, then the deletes.
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    const reads = [wire(await provider.read!(created.id, created.outs!)), wire(await provider.read!(adopted.id, adopted.outs!))];
    const oldInputs = [
      (await check(declared)).inputs!,
      (await check({ ...base, userId: grace, entitlements: ["EDITOR"], role: "account_collaborator", adoptExisting: true })).inputs!,
    ];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    expect(wire(await provider.diff!(created.id, reads[0]!.props!, oldInputs[0]!)).replaces).toEqual(["role"]);
    expect(wire(await provider.diff!(adopted.id, reads[1]!.props!, oldInputs[1]!)).replaces).toEqual(["role"]);
    emu.clearRequests();
    await provider.delete!(created.id, reads[0]!.props!);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    expect(warned.join("\n")).toContain(`The membership of user ${alan}`);
  });

  it("with adoptExisting, an owner is adopted as they are, where a declared collaborator role would be refused", async () => {
    const emu = await setup();
    emu.integrations.setMember(youtube, grace, { role: "owner", entitlements: ["EDITOR"] });
    const { outs } = wire(
      await provider.create((await check({ ...base, userId: grace, entitlements: ["EDITOR"], adoptExisting: true })).inputs!),
    );
    expect(outs).toMatchObject({ role: "account_owner", declaredRole: null, adopted: true });
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });
});

describe("a list is not proof of absence", () => {
  /** An integration of `n` members (other admins' users) and two users who are not members, with the given quirks. */
  async function crowded(n: number, quirks: NonNullable<Parameters<typeof emulator>[0]>["quirks"] = {}) {
    const emu = await setup({ quirks });
    const integration = emu.integrations.add({ application: "Crowded", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] }).id;
    for (let i = 0; i < n; i++) {
      const u = emu.users.add({ email: `m${i}@example.com`, firstName: "M", lastName: `${i}` });
      emu.integrations.setMember(integration, u.id, { role: i === 100 ? "owner" : "collaborator", entitlements: ["EDITOR"] });
    }
    const newcomers = [0, 1].map((i) => emu.users.add({ email: `new${i}@example.com`, firstName: "N", lastName: `${i}` }).id);
    emu.clearRequests();
    return { emu, integration, newcomers };
  }
  const create = async (integrationId: string, userId: string) =>
    provider.create((await check({ integrationId, userId, entitlements: ["VIEWER"] })).inputs!);
  const memberReads = (emu: Emulator, integrationId: string) =>
    emu.requests.filter((r) => r.method === "GET" && r.path.startsWith(`/integrations/${integrationId}/users/`));
  const listPages = (emu: Emulator, integrationId: string) =>
    emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${integrationId}/users`);

  it("creates sharing a member list that a page shift made skip an owner: that create is refused, the owner keeps the role and set", async () => {
    // A merging service: inviting the owner again would make them a collaborator, silently.
    const { emu, integration, newcomers } = await crowded(150, { inviteExisting: "merge" });
    const owner = emu.integrations.members(integration)[100]!.userId;
    expect(emu.integrations.members(integration)[100]?.role).toBe("owner");
    // Someone else removes one of their members between page 1 and page 2 of the first walk: the owner, first of page 2, is skipped.
    const other = emu.integrations.members(integration)[0]!.userId;
    const unhook = emu.onPage((list) => {
      if (list.path === `/integrations/${integration}/users`) {
        emu.integrations.removeMember(integration, other);
        unhook();
      }
    });
    const [ownerCreate, newcomerCreate] = await Promise.allSettled([create(integration, owner), create(integration, newcomers[0]!)]);
    expect(ownerCreate.status).toBe("rejected");
    expect(String((ownerCreate as PromiseRejectedResult).reason.message)).toContain("already a member of integration");
    expect(newcomerCreate.status).toBe("fulfilled");
    expect(emu.integrations.members(integration).find((m) => m.userId === owner)).toMatchObject({
      role: "owner",
      entitlements: ["EDITOR"],
    });
    // Only the newcomer was invited.
    const posted = invites(emu).flatMap((r) => (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds);
    expect(posted).toEqual([newcomers[0]]);
  });

  it("in a quiet workspace, the misses of creates sharing a list cost one more listing (proving the first), not a read each", async () => {
    const { emu, integration } = await crowded(150);
    const users = Array.from({ length: 20 }, (_, i) => emu.users.add({ email: `q${i}@example.com`, firstName: "Q", lastName: `${i}` }).id);
    emu.clearRequests();
    const results = await Promise.all(users.map((u) => create(integration, u)));
    expect(results.every((r) => r.outs?.entitlements?.[0] === "VIEWER")).toBe(true);
    // Two walks of 2 pages: the shared list, and the one that agrees with it. No read per user.
    expect(listPages(emu, integration)).toHaveLength(4);
    expect(memberReads(emu, integration)).toEqual([]);
  });

  it("nothing absent: creates that all find their member in the shared list cost that one listing, no confirmation", async () => {
    const { emu, integration } = await crowded(150);
    const members = emu.integrations
      .members(integration)
      .filter((m) => m.role === "collaborator")
      .slice(0, 10)
      .map((m) => m.userId);
    emu.clearRequests();
    const adopted = await Promise.all(
      members.map(async (userId) =>
        provider.create((await check({ integrationId: integration, userId, entitlements: ["EDITOR"], adoptExisting: true })).inputs!),
      ),
    );
    expect(adopted.map((r) => r.outs?.entitlements)).toEqual(members.map(() => ["EDITOR"]));
    expect(listPages(emu, integration)).toHaveLength(2);
    expect(memberReads(emu, integration)).toEqual([]);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("a proof answers for absences only while young: a later miss takes a new listing, which finds a member someone added meanwhile", async () => {
    const { emu, integration, newcomers } = await crowded(150, { inviteExisting: "merge" });
    const clock = await configureFor(emu, fast);
    await Promise.all(newcomers.map((u) => create(integration, u)));
    const listed = listPages(emu, integration).length;
    clock.advance(PROOF_MAX_AGE_MS + 1);
    // Someone else makes a user an owner; this deployment's next create of that user must not take it over.
    const late = emu.users.add({ email: "late@example.com", firstName: "L", lastName: "Ate" }).id;
    emu.integrations.setMember(integration, late, { role: "owner", entitlements: ["EDITOR"] });
    const error = await rejection(create(integration, late));
    expect(error.message).toContain("already a member of integration");
    expect(emu.integrations.members(integration).find((m) => m.userId === late)).toMatchObject({ role: "owner" });
    // The shared list (young enough) served the lookup; two new listings (2 pages each) proved it stale and the new one right.
    expect(listPages(emu, integration).length).toBe(listed + 4);
  });

  it("fewer misses than a listing's pages are each read directly, in parallel", async () => {
    const { emu, integration, newcomers } = await crowded(250);
    const [a, b] = await Promise.all(newcomers.map((u) => create(integration, u)));
    expect([a?.outs?.userId, b?.outs?.userId]).toEqual(newcomers);
    expect(listPages(emu, integration)).toHaveLength(3);
    expect(memberReads(emu, integration).map((r) => r.status)).toEqual([404, 404]);
  });

  it("ids answered in another case: a member in the shared list is found (refused without adoptExisting), and a refresh reads from the list", async () => {
    const emu = await setup({ quirks: { upperCaseIds: true, inviteExisting: "merge" } });
    emu.clearRequests();
    // grace is a member (collaborator, EDITOR); katherine is not.
    const [graceCreate, adaCreate] = await Promise.allSettled([
      provider.create((await check({ ...base, userId: grace, entitlements: ["VIEWER"] })).inputs!),
      provider.create((await check({ ...base, userId: katherine, entitlements: ["VIEWER"] })).inputs!),
    ]);
    expect(String((graceCreate as PromiseRejectedResult).reason?.message)).toContain("already a member of integration");
    expect(adaCreate.status, String((adaCreate as PromiseRejectedResult).reason?.stack)).toBe("fulfilled");
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
    emu.clearRequests();
    const reads = await Promise.all([grace, katherine].map((userId) => provider.read!(`${youtube}/${userId}`)));
    expect(reads.map((r) => r.id)).toEqual([`${youtube}/${grace}`, `${youtube}/${katherine}`]);
    expect(memberReads(emu, youtube)).toEqual([]);
  });
});

describe("a refresh where the integration answers 404", () => {
  it("drops the resource from the state with a warning once the integration's 404 is confirmed: nothing removed", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    const warned: string[] = [];
    await configureFor(emu, fast, { warn: (message) => void warned.push(message) });
    emu.integrations.remove(youtube);
    emu.clearRequests();
    expect(wire(await provider.read!(id, outs))).toEqual({ id: "", props: {} });
    expect(warned).toEqual([
      `Integration ${youtube} no longer exists: user ${base.userId}'s membership of it and the integration itself answer 404 ` +
        `(GET /integrations/${youtube}; the 404 is confirmed: this key is shown integrations, so it is not a scope the key ` +
        "lacks). The IntegrationEntitlement is dropped from the state, removing no one; if the program still declares it, " +
        "the next up tries to create it and fails while the integration is gone: remove it from the program.",
    ]);
    // Confirmed: the listings of integrations and users (one record each) answered; nothing but reads was sent.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/users/${base.userId} 404`,
      `GET /integrations/${youtube}/users 404`,
      "GET /integrations 200",
      "GET /users 200",
      `GET /integrations/${youtube} 404`,
    ]);
  });

  it("a destroy of a membership whose integration is gone succeeds, with nothing to remove", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    await configureFor(emu, fast);
    emu.integrations.remove(youtube);
    emu.clearRequests();
    await provider.delete!(id, outs!);
    expect(emu.requests.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([404]);
  });

  /** The create's own words for an integration whose 404 is confirmed, `request` the one that answered 404 first. */
  const doesNotExist = (userId: string, request: string) =>
    `Integration ${youtube} does not exist: ${request} answered 404 to the create of user ${userId}'s membership of it, ` +
    `and so does the integration itself (GET /integrations/${youtube}; the 404 is confirmed: this key is shown integrations, ` +
    "so it is not a scope the key lacks). Nothing was created. Remove this IntegrationEntitlement from the program, or point " +
    "its integrationId at an existing integration (getIntegration looks one up by name).";

  it("an up after the drop tries the create, and fails saying the integration does not exist, read once after the 404: no member is made", async () => {
    const emu = await setup();
    emu.integrations.remove(youtube);
    const { inputs } = await check(base);
    // Later than the check's read of the integration (its catalogue answered 404) may answer for it.
    clockOf(emu).advance(PRESENCE_MAX_AGE_MS + 1);
    emu.clearRequests();
    const error = await rejection(provider.create(inputs!));
    expect(error).toMatchObject({ kind: "configuration", setting: "integrationId" });
    expect(error.message).toBe(doesNotExist(base.userId, `POST /api/v1/integrations/${youtube}/users`));
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/users/${base.userId} 404`,
      `POST /integrations/${youtube}/users 404`,
      `GET /integrations/${youtube} 404`,
    ]);
  });

  it("creates of several memberships of a gone integration each fail saying so, the integration read once for all, the check's read serving them", async () => {
    const emu = await setup();
    emu.integrations.remove(youtube);
    emu.clearRequests();
    const inputs = await Promise.all([alan, grace, katherine].map(async (userId) => (await check({ ...base, userId })).inputs!));
    const errors = await Promise.all(inputs.map((news) => rejection(provider.create(news))));
    for (const error of errors) expect(error.message).toMatch(/^Integration .* does not exist: .*getIntegration looks one up by name\)\.$/);
    expect(errors[0]!.message).toContain(`user ${alan}'s membership`);
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => `${r.method} ${r.status}`)).toEqual(["GET 404"]);
    expect(emu.requests.filter((r) => r.method !== "GET" && r.status !== 404)).toEqual([]);
  });

  it("a create whose invitation answers 404 and whose integration cannot be read says so: nothing is read as gone", async () => {
    const emu = await setup();
    emu.integrations.remove(youtube);
    const { inputs } = await check(base);
    await configureFor(emu, { ...fast, "workspace-access:maxRetries": "0" });
    emu.fault({ method: "GET", path: `/integrations/${youtube}`, status: 503 });
    emu.clearRequests();
    const error = await rejection(provider.create(inputs!));
    expect(error).toMatchObject({ status: 503 });
    expect(error.message).toMatch(
      new RegExp(
        `^POST /api/v1/integrations/${youtube}/users answered 404, and GET /integrations/${youtube}, which tells whether the ` +
          `integration is gone, did not answer it, so nothing was read as gone: GET /api/v1/integrations/${youtube} answered 503`,
      ),
    );
    expect(error.message).toContain(
      "Nothing was invited, and no invitation was sent again: run pulumi up again once the service answers. Should the 404 " +
        "come back while the integration answers its read, check the key's scopes (an invitation needs the scopes Write " +
        "integrations (write:integrations), Read automated jobs (read:automations) and Write automated jobs " +
        `(write:automations)) and the integrationId (${youtube}).`,
    );
    expect(invites(emu).map((r) => r.status)).toEqual([404]);
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => r.status)).toEqual([503]);
  });

  it("creates batched together whose invitation answers 404 and whose integration cannot be read each fail at once, as a lone one does: not halved", async () => {
    const emu = await setup();
    // Three users of the workspace, none a member of YouTube.
    const users = [1, 2, 3].map((i) => emu.users.add({ email: `n${i}@example.com`, firstName: "N", lastName: `${i}` }).id);
    const inputs = await Promise.all(users.map(async (userId) => (await check({ ...base, userId })).inputs!));
    await configureFor(emu, { ...fast, "workspace-access:maxRetries": "0" });
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404, times: 20 });
    emu.fault({ method: "GET", path: `/integrations/${youtube}`, status: 503, times: 20 });
    emu.clearRequests();
    const errors = await Promise.all(inputs.map((news) => rejection(provider.create(news))));
    // One invitation of the three, one read of the integration: not 5 invitations (halved down to each user), each read after.
    expect(invites(emu).map((r) => (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds.length)).toEqual([
      3,
    ]);
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => r.status)).toEqual([503]);
    errors.forEach((error, i) => {
      // The read's error, as a lone create's: no 404, so nothing is read as gone; no state (nothing done), so the next up invites.
      expect(error).toMatchObject({ status: 503 });
      expect((error as PartialCreate).properties).toBeUndefined();
      expect(error.message).toMatch(
        new RegExp(
          `^Inviting user ${users[i]} \\(one of 3 invited together\\): POST /api/v1/integrations/${youtube}/users answered 404, ` +
            `and GET /integrations/${youtube}, which tells whether the integration is gone, did not answer it, so nothing was ` +
            `read as gone: GET /api/v1/integrations/${youtube} answered 503`,
        ),
      );
      expect(error.message).toContain("Nothing was invited, and no invitation was sent again: run pulumi up again");
      expect(error.message).toContain(`check the key's scopes (an invitation needs the scopes Write integrations`);
    });
    expect(emu.integrations.members(youtube).filter((m) => users.includes(m.userId))).toEqual([]);
  });

  it("a create whose invitation answers 404 while the integration answers says what the 404 said: the integration is not called gone", async () => {
    const emu = await setup();
    const { inputs } = await check(base);
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.create(inputs!));
    expect(error).toMatchObject({ kind: "not_found", status: 404 });
    expect(error.message).toMatch(new RegExp(`^POST /api/v1/integrations/${youtube}/users answered 404: `));
    expect(error.message).toContain(
      `Integration ${youtube} answers GET /integrations/${youtube}, so it exists: this 404 is not for want of it.`,
    );
    expect(error.message).not.toContain("does not exist");
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/users/${base.userId} 404`,
      // The client's proof of the member read's 404 (its member list); the integration's read comes only after the POST's 404.
      `GET /integrations/${youtube}/users 200`,
      `POST /integrations/${youtube}/users 404`,
      `GET /integrations/${youtube} 200`,
    ]);
    expect(emu.integrations.members(youtube).some((m) => m.userId === base.userId)).toBe(false);
  });

  it("a create whose invitation answers 404 while the integration answers names every scope an invitation needs, as the client's words do", async () => {
    const emu = await setup();
    const { inputs } = await check(base);
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404 });
    const error = await rejection(provider.create(inputs!));
    const every =
      "Write integrations (write:integrations), Read automated jobs (read:automations) and Write automated jobs (write:automations)";
    // The client's words name the invitation's job scopes too; the resource's, after them, must not name fewer.
    const [client, resource] = error.message.split("so it exists: this 404 is not for want of it.");
    expect(client).toContain(`this write needs the scopes ${every}`);
    expect(resource).toContain(`this write needs the scopes ${every}`);
  });

  it("an integration deleted during the deployment is called gone by a later create, not present from an earlier create's answer", async () => {
    const emu = await setup();
    const clock = await configureFor(emu, fast);
    const [first, later] = await Promise.all([alan, grace].map(async (userId) => (await check({ ...base, userId })).inputs!));
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404, times: 1 });
    expect((await rejection(provider.create(first!))).message).toContain("so it exists: this 404 is not for want of it.");
    emu.integrations.remove(youtube);
    clock.advance(PRESENCE_MAX_AGE_MS + 1);
    emu.clearRequests();
    const error = await rejection(provider.create(later!));
    expect(error).toMatchObject({ kind: "configuration", setting: "integrationId" });
    expect(error.message).toMatch(new RegExp(`^Integration ${youtube} does not exist: `));
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => `${r.method} ${r.status}`)).toEqual(["GET 404"]);
    expect(invites(emu).filter((r) => r.status !== 404)).toEqual([]);
  });

  /** An update's own words for an integration whose 404 is confirmed, `request` the one whose 404 read it. */
  const doesNotExistOnUpdate = (userId: string, request: string) =>
    `Integration ${youtube} does not exist: ${request} answered 404 to the update of user ${userId}'s membership of it, ` +
    `and so does the integration itself (GET /integrations/${youtube}; the 404 is confirmed: this key is shown integrations, ` +
    "so it is not a scope the key lacks). It was deleted since the state was written: nothing was changed, and the state " +
    "keeps the resource. Remove this IntegrationEntitlement from the program (its destroy then finds the integration gone " +
    "and removes no one), or point its integrationId at an existing integration; pulumi refresh drops it from the state, " +
    "its integration confirmed gone (removing no one).";

  it("an update after the integration was deleted fails saying it does not exist, and what to do: the state kept, not read as removed", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.remove(youtube);
    const { inputs } = await check({ ...base, entitlements: ["VIEWER"] });
    clockOf(emu).advance(PRESENCE_MAX_AGE_MS + 1);
    emu.clearRequests();
    const error = (await rejection(provider.update!(id, outs!, inputs!))) as PartialCreate;
    expect(error).toMatchObject({ kind: "configuration", setting: "integrationId" });
    expect(error.message).toBe(doesNotExistOnUpdate(base.userId, `POST /api/v1/integrations/${youtube}/users`));
    // No state with the error: the engine keeps the resource as it was.
    expect(error.properties).toBeUndefined();
    // The PATCH's 404 read its member back (404: not there), as a member removed by hand; the invitation's 404 then read the
    // integration, once.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `PATCH /integrations/${youtube}/users/${base.userId} 404`,
      `GET /integrations/${youtube}/users/${base.userId} 404`,
      `GET /integrations/${youtube}/users/${base.userId} 404`,
      `POST /integrations/${youtube}/users 404`,
      `GET /integrations/${youtube} 404`,
    ]);
  });

  it("an update whose invitation answers 404 while the integration answers says what else the 404 may be: not called gone", async () => {
    const emu = await setup();
    const { id, outs } = await provider.create((await check(base)).inputs!);
    emu.integrations.removeMember(youtube, base.userId);
    const { inputs } = await check({ ...base, entitlements: ["VIEWER"] });
    clockOf(emu).advance(PRESENCE_MAX_AGE_MS + 1);
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404 });
    emu.clearRequests();
    const error = await rejection(provider.update!(id, outs!, inputs!));
    expect(error).toMatchObject({ kind: "not_found", status: 404 });
    expect(error.message).toContain(`Integration ${youtube} answers GET /integrations/${youtube}, so it exists`);
    expect(error.message).toContain(`user ${base.userId}`);
    expect(error.message).not.toContain("does not exist");
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => r.status)).toEqual([200]);
  });

  it("a membership truly gone (the integration answers) is still dropped, with one integration read for all resources", async () => {
    const emu = await setup();
    emu.integrations.removeMember(youtube, grace);
    emu.clearRequests();
    const reads = await Promise.all([grace, grace].map((userId) => provider.read!(`${youtube}/${userId}`)));
    expect(reads.map((r) => r.id)).toEqual(["", ""]);
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`)).toHaveLength(1);
  });

  it("an integration read that failed is asked again by the next read, not answered with the same failure", async () => {
    const emu = await setup();
    await configureFor(emu, { ...fast, "workspace-access:maxRetries": "0" });
    emu.integrations.removeMember(youtube, grace);
    emu.fault({ method: "GET", path: `/integrations/${youtube}`, status: 503, times: 1 });
    const error = await rejection(provider.read!(`${youtube}/${grace}`));
    expect(error.message).toContain("503");
    const again = wire(await provider.read!(`${youtube}/${grace}`));
    expect(again.id).toBe("");
    expect(emu.requests.filter((r) => r.path === `/integrations/${youtube}`).map((r) => r.status)).toEqual([503, 200]);
  });
});

describe("after an invitation's job, what it made is read back", () => {
  it("a member whose set is not the one asked (the job merged into a membership someone made meanwhile) fails with what was found, recording nothing", async () => {
    const emu = await setup({ job: { finishAfterMs: 500 } });
    const clock = await configureFor(emu, fast);
    // After the invitation is accepted and before its job runs, someone else makes alan a member.
    let posted = false;
    clock.setTimer(() => {
      posted = invites(emu).length === 1;
      emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["MANAGER"] });
    }, 100);
    const error = await rejection(provider.create((await check(base)).inputs!));
    expect(posted).toBe(true);
    expect(error.message).toContain(`After the invitation (job ${emu.jobs.list()[0]?.id}) of user ${alan}`);
    expect(error.message).toContain("entitlements EDITOR, MANAGER, VIEWER, not role account_collaborator with EDITOR, VIEWER");
    expect(PartialWriteError.isInstance(error)).toBe(false);
    expect((error as PartialCreate).id).toBeUndefined();
  });

  it("a member read back with the set asked but another role than invited (a service that merged the invitation into an owner's membership, keeping the role) fails, recording nothing", async () => {
    const emu = await setup({ job: { finishAfterMs: 500 } });
    const clock = await configureFor(emu, fast);
    const entitlement = (id: string) => ({ id, type: "entitlement", attributes: { group: "primary", key: id, label: id, value: id } });
    const record = {
      data: {
        id: alan,
        type: "user",
        attributes: {
          email: "alan@example.com",
          entitlements: [entitlement("EDITOR"), entitlement("VIEWER")],
          firstName: "Alan",
          isGuest: false,
          lastName: "Turing",
          role: "owner",
          status: "live",
        },
        meta: { dynamicFields: {} },
      },
      meta: {},
    };
    // Once the invitation is accepted, the member's read answers an owner holding exactly the set asked.
    let posted = false;
    clock.setTimer(() => {
      posted = invites(emu).length === 1;
      emu.fault({ method: "GET", path: `/integrations/${youtube}/users/${alan}`, body: JSON.stringify(record), times: 1 });
    }, 100);
    const error = await rejection(provider.create((await check(base)).inputs!));
    expect(posted).toBe(true);
    expect(
      emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${youtube}/users/${alan}`).map((r) => r.status),
    ).toEqual([404, 200]);
    expect(error.message).toContain("the user is a member with role owner and entitlements EDITOR, VIEWER, not role account_collaborator");
    expect(PartialWriteError.isInstance(error)).toBe(false);
    expect((error as PartialCreate).id).toBeUndefined();
  });

  it.each([
    ["409 at once (conflict)", "conflict" as const, "already a member of integration"],
    ["a job that fails (fail)", "fail" as const, "failed with"],
  ])(
    "a member added after the lookup, the service answering %s: the create fails and the membership is unchanged",
    async (_what, mode, said) => {
      const emu = await setup({ quirks: { inviteExisting: mode } });
      emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["MANAGER"] });
      // The lookup saw no member (a read just before someone else added alan).
      emu.fault({ method: "GET", path: `/integrations/${youtube}/users/${alan}`, status: 404 });
      const error = await rejection(provider.create((await check(base)).inputs!));
      expect(error.message).toContain(said);
      expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner", entitlements: ["MANAGER"] });
    },
  );
});

describe("a membership this deployment removed, created again (a replacement's delete, then its create)", () => {
  it("is read directly, not taken from the creates' member list listed before the removal: the user is invited again", async () => {
    const emu = await setup();
    const [y1, y2] = ["y1", "y2"].map((n) => emu.users.add({ email: `${n}@example.com`, firstName: n, lastName: "Y" }).id);
    const listPath = `/integrations/${youtube}/users`;
    // The second create of the deployment takes the creates' member list: grace is in it.
    await provider.create((await check({ ...base, userId: y1! })).inputs!);
    await provider.create((await check({ ...base, userId: y2! })).inputs!);
    const listed = emu.requests.filter((r) => r.method === "GET" && r.path === listPath);
    // The first create, alone, read y1 directly: its 404 proven by the list, one record (the key is shown integrations and
    // users). Then the list, and the listing at another page size that proved y2's miss.
    expect(listed.map((r) => r.query["page[size]"])).toEqual(["1", "100", "99"]);
    expect(emu.integrations.members(youtube).some((m) => m.userId === grace)).toBe(true);
    await provider.delete!(`${youtube}/${grace}`, undefined as never);
    expect(emu.integrations.members(youtube).some((m) => m.userId === grace)).toBe(false);
    emu.clearRequests();
    const { outs } = await provider.create((await check({ ...base, userId: grace })).inputs!);
    expect(outs).toMatchObject({ userId: grace, entitlements: ["EDITOR", "VIEWER"], adopted: false });
    const lines = emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`);
    expect(lines).toContain(`GET ${listPath}/${grace} 404`);
    expect(lines).toContain(`POST ${listPath} 200`);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)).toMatchObject({ entitlements: ["EDITOR", "VIEWER"] });
  });
});

describe("a replacement of an imported membership the program still gives `import`", () => {
  // grace is a collaborator on YouTube in the seed. The resource imported her membership, with the opt-in that lets a
  // replacement remove it first (docs/adoption.md: a role change of an adopted membership).
  const imported = { ...base, userId: grace, __importId: `${youtube}/${grace}`, deleteOnDestroy: true };
  const id = `${youtube}/${grace}`;
  it.each([
    ["a declared role change", { role: "account_owner" }, "owner"],
    ["a forced --replace (no diff)", {}, "collaborator"],
  ])(
    "%s: the delete removes the member, and the create invites them again, not refused as nothing to import",
    async (_what, change, role) => {
      const emu = await setup();
      const { outs } = await provider.create((await check(imported)).inputs!);
      expect(outs).toMatchObject({ adopted: true });
      await configureFor(emu, fast);
      const news = (await check({ ...imported, ...change })).inputs!;
      if (Object.keys(change).length > 0) expect(await provider.diff!(id, outs!, news)).toMatchObject({ deleteBeforeReplace: true });
      emu.clearRequests();
      await provider.delete!(id, outs!);
      const created = wire(await provider.create(news));
      // Made anew by the stack: no longer adopted.
      expect(created.outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], adopted: false });
      expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)).toEqual([
        `DELETE /integrations/${youtube}/users/${grace}`,
        `POST /integrations/${youtube}/users`,
      ]);
      expect(emu.integrations.members(youtube).find((m) => m.userId === grace)).toMatchObject({ role, entitlements: ["EDITOR", "VIEWER"] });
    },
  );
});
