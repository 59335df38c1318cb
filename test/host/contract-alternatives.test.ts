/**
 * The resources under the other plausible answers of what the public document does not show, each played by
 * an emulator switch (docs/contract.md lists the assumptions): jobs that read `created`, `started`, `running`
 * and `retrying` before they end (`jobProgress: "varied"`), an integration user's entitlements answered as
 * plain ids (`memberEntitlements: "ids"`), emails answered in lower case (`lowerCaseEmails`), and a write naming an
 * entitlement outside the catalogue refused at once rather than by its job (`unknownEntitlement`), and an error's
 * `status` written as a string (`errorStatus`), optional fields null or left out (`nullFields`, `absentFields`), and a write of a
 * member removed out of band failed by its job rather than answered 404 (`nonMemberWrite`), and a create of a taken email answered
 * 400 or with the user who has it rather than 409 (`userCreateTaken`), a replace's `data.id` refused (`userReplaceId`), and a query parameter an operation does not take refused
 * (`unknownQuery`), and a service whose clock is minutes off from the client's (`clockSkew`), and a job store that lags its
 * writes (`job.readableAfterMs`). Each runs the same steps as under the emulator's defaults, with the same outcome.
 */
import { describe, expect, it } from "vitest";
import { ConflictError } from "../../src/client";
import { DEFAULT_IDS, defaultSeed, type EmulatorOptions, type EmulatorQuirks } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { changedUserProperties, provider as user } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const base = { integrationId: youtube, userId: alan, entitlements: ["VIEWER", "EDITOR"] };
const checkEntitlement = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
const checkUser = async (news: Record<string, unknown>) => (await user.check!({}, news)).inputs!;
/** The set alan holds in youtube as the emulator has it (`undefined`: not a member). */
const alansSet = (emu: Awaited<ReturnType<typeof emulator>>) =>
  emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements;

const ALTERNATIVES: ReadonlyArray<[string, EmulatorQuirks]> = [
  ["the defaults", {}],
  ["jobProgress: varied", { jobProgress: "varied" }],
  ["memberEntitlements: ids", { memberEntitlements: "ids" }],
  ["both", { jobProgress: "varied", memberEntitlements: "ids" }],
  ["unknownQuery: refuse", { unknownQuery: "refuse" }],
];

describe("IntegrationEntitlement", () => {
  it.each(ALTERNATIVES)("%s: create, read, update and delete give the same state", async (_name, quirks) => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 4 }, quirks });
    await configureFor(emu, fast);
    const { id, outs } = wire(await entitlement.create(await checkEntitlement(base)));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", pendingInvitations: [] });
    expect(alansSet(emu)?.sort()).toEqual(["EDITOR", "VIEWER"]);

    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect((await entitlement.diff!(id, read.props!, await checkEntitlement(base))).changes).toBe(false);

    const { outs: updated } = wire(await entitlement.update!(id, outs!, await checkEntitlement({ ...base, entitlements: ["MANAGER"] })));
    expect(updated).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
    expect(alansSet(emu)).toEqual(["MANAGER"]);

    await configureFor(emu, fast);
    await entitlement.delete!(id, updated!);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });
});

describe("IntegrationEntitlement, a member removed out of band (nonMemberWrite)", () => {
  const member = `/integrations/${youtube}/users/${alan}`;
  /** What the service was sent, reads of jobs left out: method and path, an invitation with its users and set. */
  const sent = (emu: Awaited<ReturnType<typeof emulator>>) =>
    emu.requests
      .filter((r) => !r.path.startsWith("/jobs/"))
      .map((r) => {
        const invited = (r.body as { data?: { attributes?: { userIds?: string[]; entitlements?: { id: string }[] } } })?.data?.attributes;
        return r.method === "POST"
          ? `POST ${r.path} ${invited?.userIds} ${invited?.entitlements?.map((e) => e.id)}`
          : `${r.method} ${r.path} ${r.status}`;
      });
  const created = async (emu: Awaited<ReturnType<typeof emulator>>) => {
    await configureFor(emu, fast);
    const { id, outs } = wire(await entitlement.create(await checkEntitlement(base)));
    emu.integrations.removeMember(youtube, alan);
    emu.clearRequests();
    await configureFor(emu, fast);
    return { id, outs: outs! };
  };

  it.each(["not-found", "job-error"] as const)(
    "%s: an update's PATCH of the member gone reads the member and invites them again with the declared set",
    async (nonMemberWrite) => {
      const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { nonMemberWrite } });
      const { id, outs } = await created(emu);
      const { outs: updated } = wire(await entitlement.update!(id, outs, await checkEntitlement({ ...base, entitlements: ["MANAGER"] })));
      expect(updated).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
      expect(alansSet(emu)).toEqual(["MANAGER"]);
      const patched = nonMemberWrite === "job-error" ? 200 : 404;
      const lines = sent(emu);
      expect(lines.filter((line) => !line.startsWith("GET"))).toEqual([
        `PATCH ${member} ${patched}`,
        `POST /integrations/${youtube}/users ${alan} MANAGER`,
      ]);
      // The member read between the PATCH and the invitation: a job's failure is not taken for an absence unread.
      const between = lines.slice(
        lines.indexOf(`PATCH ${member} ${patched}`),
        lines.findIndex((line) => line.startsWith("POST")),
      );
      expect(between).toContain(`GET ${member} 404`);
    },
  );

  it.each(["not-found", "job-error"] as const)("%s: a destroy of the member gone removes nothing and succeeds", async (nonMemberWrite) => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { nonMemberWrite } });
    const { id, outs } = await created(emu);
    await entitlement.delete!(id, outs);
    const deletes = sent(emu).filter((line) => line.startsWith("DELETE"));
    expect(deletes).toEqual([`DELETE ${member} ${nonMemberWrite === "job-error" ? 200 : 404}`]);
    if (nonMemberWrite === "job-error") expect(sent(emu).at(-1)).toBe(`GET ${member} 404`);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
  });

  it("a job that fails for a member who is there still fails the update and the destroy, the member read once", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { nonMemberWrite: "job-error" } });
    await configureFor(emu, fast);
    const { id, outs } = wire(await entitlement.create(await checkEntitlement(base)));
    emu.clearRequests();
    emu.jobs.failNext(1, { errorType: "provider_unavailable" });
    await configureFor(emu, fast);
    const update = await rejection(entitlement.update!(id, outs!, await checkEntitlement({ ...base, entitlements: ["MANAGER"] })));
    expect(update.message).toContain("provider_unavailable");
    expect(sent(emu).filter((line) => !line.includes("/entitlements "))).toEqual([`PATCH ${member} 200`, `GET ${member} 200`]);
    expect(alansSet(emu)?.sort()).toEqual(["EDITOR", "VIEWER"]);

    emu.clearRequests();
    emu.jobs.failNext(1, { errorType: "provider_unavailable" });
    await configureFor(emu, fast);
    expect((await rejection(entitlement.delete!(id, outs!))).message).toContain("provider_unavailable");
    expect(sent(emu).filter((line) => !line.startsWith("GET"))).toEqual([`DELETE ${member} 200`]);
    expect(sent(emu).at(-1)).toBe(`GET ${member} 200`);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });
});

describe("User, emails answered in lower case (lowerCaseEmails)", () => {
  const declared = { email: "Alice.Doe@Example.COM", firstName: "Alice", lastName: "Doe" };

  it("creates with the declared spelling kept in the state, and a read shows no change", async () => {
    const emu = await emulator({ quirks: { lowerCaseEmails: true } });
    await configureFor(emu);
    const inputs = await checkUser(declared);
    const { id, outs } = wire(await user.create(inputs));
    expect(outs).toMatchObject({ email: declared.email });
    const read = wire(await user.read!(id, outs));
    expect(read.props?.email).toBe(declared.email);
    expect((await user.diff!(id, read.props!, inputs)).changes).toBe(false);
  });

  it("adopts the existing user whose email the service folds, rather than create a second one", async () => {
    const emu = await emulator({ quirks: { lowerCaseEmails: true } });
    const existing = emu.users.add({ ...declared, email: "alice.doe@example.com" });
    await configureFor(emu, {}, { info: () => undefined });
    const { id } = wire(await user.create(await checkUser({ ...declared, adoptExisting: true })));
    expect(id).toBe(existing.id);
    expect(emu.users.list()).toHaveLength(1);
    expect(emu.requests.some((r) => r.method === "POST")).toBe(false);
  });
});

describe("User, a search that matches only in the case written (userFilter: case-sensitive)", () => {
  const declared = { email: "ALICE.Doe@example.com", firstName: "Alice", lastName: "Doe" };

  it("adopts the user whose email is written in another case: the 409 leads to the listing, which finds them", async () => {
    const emu = await emulator({ quirks: { userFilter: "case-sensitive" } });
    const existing = emu.users.add({ ...declared, email: "alice.doe@example.com" });
    await configureFor(emu, {}, { info: () => undefined });
    const { id } = wire(await user.create(await checkUser({ ...declared, adoptExisting: true })));
    expect(id).toBe(existing.id);
    expect(emu.users.list()).toHaveLength(1);
    // The search missed, the POST was refused; then the whole listing, and no second POST.
    expect(emu.requests.filter((r) => r.method === "POST").map((r) => r.status)).toEqual([409]);
  });

  it("without adoptExisting, the refusal names the user who has the email", async () => {
    const emu = await emulator({ quirks: { userFilter: "case-sensitive" } });
    const existing = emu.users.add({ ...declared, email: "alice.doe@example.com" });
    await configureFor(emu);
    const error = await rejection(user.create(await checkUser(declared)));
    expect(error.message).toContain(`That user's id is ${existing.id}. To manage that user with this resource, set adoptExisting: true.`);
  });

  it("a listing that fails then leaves the 409 the error, saying who has the email is not known", async () => {
    const emu = await emulator({ quirks: { userFilter: "case-sensitive" } });
    emu.users.add({ ...declared, email: "alice.doe@example.com" });
    // A second page for the listing, which fails; the searches have one page each.
    for (let i = 0; i < 100; i++) emu.users.add({ email: `user${i}@example.com`, firstName: "User", lastName: String(i) });
    emu.onPage((list) => {
      if (list.path === "/users") throw new Error("the listing is down");
    });
    await configureFor(emu, { "workspace-access:maxRetries": "0" }, { info: () => undefined });
    const error = await rejection(user.create(await checkUser({ ...declared, adoptExisting: true })));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`A user with the email ${declared.email} already exists.`);
    expect(error.message).toMatch(/Who has it is not known: looking for it failed \(GET \/api\/v1\/users answered 500/);
    expect(emu.requests.filter((r) => r.method === "POST").map((r) => r.status)).toEqual([409]);
  });
});

describe("User, a create of an email someone has answered otherwise than 409 (userCreateTaken)", () => {
  const declared = { email: "ALICE.Doe@example.com", firstName: "Alice", lastName: "Doe" };
  /** A search that misses the email declared in another case, so the POST is sent; the user made well before it. */
  async function taken(userCreateTaken: "existing" | "bad-request", options: Partial<EmulatorOptions> = {}) {
    const emu = await emulator({ quirks: { userFilter: "case-sensitive", userCreateTaken }, ...options });
    const existing = emu.users.add({ ...declared, email: "alice.doe@example.com", role: "workspace_super_admin" });
    (await configureFor(emu, fast, { info: () => undefined })).advance(3_600_000);
    return { emu, existing };
  }

  it.each([
    ["201 with their record", {}],
    ["204", { userWriteAnswer: "no-content" as const }],
    ["a job that finishes", { userWritesAsJobs: true }],
  ])("existing, answered %s: the user made before is not taken for this create's; adoptExisting adopts them", async (_how, options) => {
    const { emu, existing } = await taken("existing", options);
    const error = await rejection(user.create(await checkUser(declared)));
    expect(ConflictError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`(id ${existing.id}). To manage that user with this resource, set adoptExisting: true.`);
    const { id, outs } = wire(await user.create(await checkUser({ ...declared, adoptExisting: true })));
    expect([id, outs?.adopted]).toEqual([existing.id, true]);
    expect(emu.users.list()).toEqual([existing]);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
  });

  it("bad-request: the create fails with the service's refusal, one POST, nothing adopted or written", async () => {
    const { emu, existing } = await taken("bad-request");
    const error = await rejection(user.create(await checkUser({ ...declared, adoptExisting: true })));
    expect(error.message).toContain("data.attributes.email");
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.status}`)).toEqual(["POST 400"]);
    expect(emu.users.list()).toEqual([existing]);
  });
});

describe("User, a service whose clock is off from the client's (clockSkew)", () => {
  const declared = { email: "ALICE.Doe@example.com", firstName: "Alice", lastName: "Doe" };
  const SKEWS = [
    ["10 minutes behind", -600],
    ["10 minutes ahead", 600],
  ] as const;
  const ANSWERS = [
    ["201 with the record", {}],
    ["a job, then read back", { userWritesAsJobs: true }],
  ] as const;

  it.each(SKEWS.flatMap(([skew, seconds]) => ANSWERS.map(([how, options]) => [skew, how, seconds, options] as const)))(
    "%s, a create answered %s is the stack's own: not adopted, and its destroy deletes it",
    async (_skew, _how, clockSkew, options) => {
      const emu = await emulator({ quirks: { clockSkew }, ...options });
      (await configureFor(emu, fast, { info: () => undefined })).advance(3_600_000);
      const { id, outs } = wire(await user.create(await checkUser(declared)));
      expect([emu.users.get(id)?.email, outs?.adopted]).toEqual([declared.email, false]);
      // The record was stamped on the service's clock, off from the client's by the skew.
      expect(Date.parse(emu.users.get(id)!.createdAt) - clockOf(emu).now()).toBe(clockSkew * 1000);
      await configureFor(emu, fast);
      await user.delete!(id, outs!);
      expect(emu.users.list()).toEqual([]);
    },
  );

  it.each(SKEWS.flatMap(([skew, seconds]) => ANSWERS.map(([how, options]) => [skew, how, seconds, options] as const)))(
    "%s, a user made two minutes before the POST and answered as made by it (%s) is still refused as a 409",
    async (_skew, _how, clockSkew, options) => {
      const emu = await emulator({ quirks: { clockSkew, userFilter: "case-sensitive", userCreateTaken: "existing" }, ...options });
      const clock = clockOf(emu);
      clock.advance(3_600_000);
      const existing = emu.users.add({ ...declared, email: "alice.doe@example.com", role: "workspace_super_admin" });
      clock.advance(120_000);
      await configureFor(emu, fast, { info: () => undefined });
      const error = await rejection(user.create(await checkUser(declared)));
      expect(ConflictError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`(id ${existing.id}). To manage that user with this resource, set adoptExisting: true.`);
      expect(emu.users.list()).toEqual([existing]);
      expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users"]);
    },
  );
});

describe("User, a replace whose data.id the service refuses (userReplaceId)", () => {
  const declared = { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" };
  const puts = (emu: Awaited<ReturnType<typeof emulator>>) => emu.requests.filter((r) => r.method === "PUT");
  const dataIdOf = (body: unknown) => (body as { data: { id?: unknown } }).data.id;

  it.each([
    ["accept", [200, 200], [DEFAULT_IDS.users.ada, DEFAULT_IDS.users.ada]],
    // Refused once: sent again without it, and left out of every later replace of the client.
    ["refuse", [400, 200, 200], [DEFAULT_IDS.users.ada, undefined, undefined]],
  ] as const)("%s: an adoption and an update write the user, each PUT answered %j", async (userReplaceId, statuses, ids) => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { userReplaceId } });
    await configureFor(emu, fast, { info: () => undefined, warn: () => undefined });
    const inputs = await checkUser({ ...declared, lastName: "King", adoptExisting: true });
    const { id, outs } = wire(await user.create(inputs));
    expect([id, emu.users.get(id)?.lastName]).toEqual([DEFAULT_IDS.users.ada, "King"]);
    const { outs: updated } = wire(await user.update!(id, outs!, await checkUser({ ...inputs, firstName: "Augusta" })));
    expect([updated?.firstName, emu.users.get(id)?.firstName, emu.users.get(id)?.lastName]).toEqual(["Augusta", "Augusta", "King"]);
    expect(puts(emu).map((r) => r.status)).toEqual(statuses);
    expect(puts(emu).map((r) => dataIdOf(r.body))).toEqual(ids);
  });
});

describe("User, POST /users not served (userCreate: false)", () => {
  const declared = { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" };

  it("an adoption reads and writes with the documented endpoints alone, and a destroy leaves the adopted user", async () => {
    const emu = await emulator({ seed: defaultSeed(), userCreate: false });
    await configureFor(emu, fast, { info: () => undefined, warn: () => undefined });
    const { id, outs } = wire(await user.create(await checkUser({ ...declared, lastName: "King", adoptExisting: true })));
    expect([id, outs?.adopted, emu.users.get(id)?.lastName]).toEqual([DEFAULT_IDS.users.ada, true, "King"]);
    await user.delete!(id, outs!);
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `PUT /users/${id} 200`,
    ]);
  });

  it("a create of a user nobody has fails with the 405, saying to create the user in the service and adopt them; nothing else is written", async () => {
    const emu = await emulator({ seed: defaultSeed(), userCreate: false });
    await configureFor(emu, fast);
    const error = await rejection(user.create(await checkUser({ email: "joan@example.com", firstName: "Joan", lastName: "Clarke" })));
    expect(error.message).toMatch(/POST \S*users/);
    expect(error.message).toContain("405");
    expect(error.message).toContain(
      "create joan@example.com in the service (an invitation), then manage that user with adoptExisting: true.",
    );
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.status}`)).toEqual(["POST 405"]);
  });

  it("a WorkspaceUsers' create of a user nobody has names the fix a set takes: the next up adopts them (a set has no adoptExisting)", async () => {
    const emu = await emulator({ seed: defaultSeed(), userCreate: false });
    await configureFor(emu, fast, { info: () => undefined, warn: () => undefined });
    const joan = { email: "joan@example.com", firstName: "Joan", lastName: "Clarke" };
    const { inputs } = await set.check!({}, { users: { [joan.email]: joan } });
    const error = await rejection(set.create(inputs!));
    expect(error.message).toContain("405");
    expect(error.message).toContain("create joan@example.com in the service (an invitation); the next pulumi up adopts them.");
    expect(error.message).not.toContain("adoptExisting");
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.status}`)).toEqual(["POST 405"]);
  });
});

describe("IntegrationEntitlement, an entitlement the service does not offer (unknownEntitlement)", () => {
  it.each(["job-error", "bad-request", "not-found"] as const)(
    "%s: an update to it fails saying so, and the membership is left as it was, nobody invited again",
    async (unknownEntitlement) => {
      const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { unknownEntitlement } });
      await configureFor(emu, fast, { warn: () => undefined });
      const { id, outs } = wire(await entitlement.create(await checkEntitlement({ ...base, entitlements: ["VIEWER"] })));
      // The catalogue cannot be read at this preview (it is warned about, not failed): the id reaches the service.
      emu.fault({ method: "GET", path: `/integrations/${youtube}/entitlements`, status: 403 });
      await configureFor(emu, fast, { warn: () => undefined });
      const news = await checkEntitlement({ ...base, entitlements: ["NOPE"] });
      const error = await rejection(entitlement.update!(id, outs!, news));
      // Refused at once, the service's message names it; a job's failure names its errorType.
      expect(error.message).toMatch(unknownEntitlement === "job-error" ? /entitlement_not_found/ : /NOPE/);
      expect(alansSet(emu)).toEqual(["VIEWER"]);
      expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    },
  );
});

describe("User, error statuses written as strings (errorStatus: string)", () => {
  it.each(["number", "string"] as const)(
    "%s: a create refused 409 fails suggesting adoptExisting; a delete of a user gone is done",
    async (errorStatus) => {
      const emu = await emulator({ quirks: { errorStatus } });
      emu.users.add({ email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
      await configureFor(emu);
      const inputs = await checkUser({ email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
      const error = await rejection(user.create(inputs));
      expect(error.message).toMatch(/adoptExisting/);
      const bob = wire(await user.create(await checkUser({ email: "bob@example.com", firstName: "Bob", lastName: "Roe" })));
      emu.users.remove(bob.id);
      await user.delete!(bob.id, bob.outs!);
      expect(emu.requests.at(-1)?.status).toBe(404);
    },
  );
});

describe("User, optional fields answered null or left out (nullFields, absentFields)", () => {
  it.each([
    ["present", {}],
    ["null", { nullFields: true }],
    ["absent", { absentFields: true }],
  ] as const)("%s: a create, a read and an update give the same state and send the same PUT", async (_name, quirks) => {
    const emu = await emulator({ quirks });
    await configureFor(emu);
    const inputs = await checkUser({ email: "alice@example.com", firstName: "Alice", lastName: "Doe" });
    const { id, outs } = wire(await user.create(inputs));
    const read = wire(await user.read!(id, outs));
    expect((await user.diff!(id, read.props!, inputs)).changes).toBe(false);
    const { outs: updated } = wire(await user.update!(id, read.props!, await checkUser({ ...inputs, firstName: "Alicia" })));
    expect(updated).toMatchObject({ firstName: "Alicia", role: "workspace_login_only" });
    expect(emu.requests.at(-1)).toMatchObject({
      method: "PUT",
      body: { data: { attributes: { firstName: "Alicia", role: "workspace_login_only", isGuest: false } } },
    });
    expect(emu.users.get(id)).toMatchObject({ firstName: "Alicia", isGuest: false });
  });

  // A record that keeps no names (empty, or none: pending and SCIM-provisioned users), adopted or imported by a program that
  // declares them (it must: an empty or missing name fails `check`). One PUT writes them; then every read shows them, and
  // neither a refresh nor the next up finds a change or writes again. A service that does not keep them is drift, shown as such.
  it.each([
    ["empty names answered null (nullFields), adopted", { nullFields: true }, "", "adoptExisting"],
    ["no names answered null (nullFields), imported", { nullFields: true }, null, "import"],
    ["empty names left out (absentFields), imported", { absentFields: true }, "", "import"],
    ["no names left out (absentFields), adopted", { absentFields: true }, null, "adoptExisting"],
  ] as const)("%s: the declared names are written once, and then no change", async (_name, quirks, names, how) => {
    const emu = await emulator({ quirks });
    await configureFor(emu, {}, { info: () => {} });
    const sam = emu.users.add({ email: "sam@example.com", firstName: names, lastName: names, status: "pending" });
    const declared = { email: "sam@example.com", firstName: "Sam", lastName: "Lee" };
    const inputs = await checkUser(how === "import" ? { ...declared, __importId: sam.id } : { ...declared, adoptExisting: true });
    const writes = () => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
    const { id, outs } = wire(await user.create(inputs));
    expect(writes()).toEqual([`PUT /users/${sam.id}`]);
    expect(outs).toMatchObject({ firstName: "Sam", lastName: "Lee" });
    let state = outs;
    for (let run = 0; run < 2; run++) {
      emu.clearRequests();
      const read = wire(await user.read!(id, state));
      expect(read.props).toMatchObject({ firstName: "Sam", lastName: "Lee" });
      expect((await user.diff!(id, read.props!, { ...read.inputs })).changes).toBe(false);
      expect((await user.diff!(id, read.props!, inputs)).changes).toBe(false);
      expect(writes()).toEqual([]);
      state = read.props!;
    }
    // The names emptied in the service: the read shows none, and the next up's diff names exactly them.
    emu.users.update(sam.id, { firstName: "", lastName: "" });
    const drifted = wire(await user.read!(id, state));
    expect(drifted.props).toMatchObject({ firstName: null, lastName: null });
    expect((await user.diff!(id, drifted.props!, { ...drifted.inputs })).changes).toBe(false);
    expect(changedUserProperties(drifted.props!, inputs)).toEqual(["firstName", "lastName"]);
  });
});

describe("a job store that lags its writes: a job answers 404 until 300 ms after its write (job.readableAfterMs)", () => {
  const lagging = { finishAfterPolls: 2, readableAfterMs: 300 };
  /** The statuses of the job reads since the last `clearRequests`. */
  const jobReads = (emu: Awaited<ReturnType<typeof emulator>>) =>
    emu.requests.filter((r) => r.path.startsWith("/jobs/")).map((r) => r.status);

  it("IntegrationEntitlement: a create waits through the job's 404s and records the member; an update after it, too", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: lagging });
    await configureFor(emu, fast);
    const { id, outs } = wire(await entitlement.create(await checkEntitlement(base)));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], pendingInvitations: [] });
    expect(alansSet(emu)?.sort()).toEqual(["EDITOR", "VIEWER"]);
    // The 404s (at 25 and 50 ms), then the job's two reads; one invitation.
    expect(jobReads(emu)).toEqual([404, 404, 200, 200]);
    expect(emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
    // A job read has answered this key by now: a 404 of the next write's job is still read again, not taken as the job gone.
    emu.clearRequests();
    const { outs: updated } = wire(await entitlement.update!(id, outs!, await checkEntitlement({ ...base, entitlements: ["MANAGER"] })));
    expect(updated).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
    expect(alansSet(emu)).toEqual(["MANAGER"]);
    expect(jobReads(emu)).toEqual([404, 200, 200]);
  });

  it("IntegrationMembers: a create waits through the 404s of both its jobs (an invitation, a PATCH of a member there)", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: lagging });
    const { grace } = DEFAULT_IDS.users;
    await configureFor(emu, fast);
    const declared = {
      integrationId: youtube,
      members: [
        { userId: alan, entitlements: ["VIEWER"] },
        { userId: grace, entitlements: ["EDITOR", "MANAGER"] },
      ],
    };
    const { outs } = wire(await members.create((await members.check!({}, declared)).inputs!));
    expect(outs).toMatchObject({ pendingInvitations: [] });
    expect(alansSet(emu)).toEqual(["VIEWER"]);
    expect(
      emu.integrations
        .members(youtube)
        .find((m) => m.userId === grace)
        ?.entitlements.sort(),
    ).toEqual(["EDITOR", "MANAGER"]);
    expect(emu.jobs.list().map((job) => job.status)).toEqual(["finished", "finished"]);
    // Each job: 404 first (how many depends on how the two waits share the clock), then its two reads.
    for (const job of emu.jobs.list()) {
      const reads = emu.requests.filter((r) => r.path === `/jobs/${job.id}`).map((r) => r.status);
      expect(reads.join(" ")).toMatch(/^(404 )+200 200$/);
    }
  });

  it("User: a create answered with a job (userWritesAsJobs) waits through its 404s and records the user", async () => {
    const emu = await emulator({ job: lagging, userWritesAsJobs: true });
    await configureFor(emu, fast);
    const { id } = wire(await user.create(await checkUser({ email: "joan@example.com", firstName: "Joan", lastName: "Clarke" })));
    expect(emu.users.get(id)?.email).toBe("joan@example.com");
    expect(jobReads(emu)).toEqual([404, 404, 200, 200]);
  });

  it("User: an update whose job a store hides through the grace, after a job read answered the key, does not say the user is gone", async () => {
    const emu = await emulator({ job: lagging, userWritesAsJobs: true });
    await configureFor(emu, fast);
    const inputs = await checkUser({ email: "joan@example.com", firstName: "Joan", lastName: "Clarke" });
    const { id, outs } = wire(await user.create(inputs));
    emu.jobs.setTiming({ ...lagging, readableAfterMs: 60_000 });
    const error = await rejection(user.update!(id, outs!, await checkUser({ ...inputs, lastName: "Murray" })));
    expect(error.message).toContain("It kept answering 404 for 5 s");
    expect(error.message).not.toContain("no longer exists");
    // The user is there, and the write was accepted once (its job, unread, progresses by polls in the emulator).
    expect(emu.users.get(id)).toBeDefined();
    expect(emu.requests.filter((r) => r.method === "PUT").map((r) => r.status)).toEqual([200]);
  });
});
