/**
 * The resources under a service that answers 404 ("not disclosed") to a key lacking a scope, on a collection as on one
 * record, a write as a read (the emulator's `missingScopeStatus: 404`, `--missing-scope 404`): the contract's 404 means "not
 * found or not disclosed". docs/contract.md assumes `GET /users` is never answered 404 under the API root; under this switch
 * a key without `read:users` gets 404 there too, and a key without a write's scopes gets 404 to the write. A 404 must then
 * never be read as "gone": the refresh and the destroy fail, naming the fix, and the state keeps the resource.
 */
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { provider as user } from "../../src/host/user/user-provider";
import { provider as workspaceUsers } from "../../src/host/users/workspace-users-provider";
import { IMPORT_ID, WORKSPACE } from "../../src/shared/input-constants";
import { emulator, issuedKeys, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { ann, type Outputs, setOf } from "./workspace-users-support";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
/** Every scope but `read:users`: it writes memberships, reads integrations and jobs, and cannot read a user or a member. */
const NO_READ_USERS = "wa_no_read_users_7f3k9q2m5x8v1b4n";
issuedKeys.add(NO_READ_USERS);

/** Every read scope and no write: it reads users, members, integrations and jobs, and cannot write any of them. */
const READ_ONLY = "wa_read_only_h6t2w9c4r8y3p5j1";
issuedKeys.add(READ_ONLY);

/** The default world, with the keys above; 404 for a missing scope unless `missingScopeStatus` says otherwise. */
const world = (missingScopeStatus: 403 | 404 = 404) =>
  emulator({
    seed: defaultSeed(),
    job: { finishAfterPolls: 1 },
    keys: {
      [NO_READ_USERS]: ALL_SCOPES.filter((scope) => scope !== "read:users"),
      [READ_ONLY]: ALL_SCOPES.filter((scope) => scope.startsWith("read:")),
    },
    missingScopeStatus,
  });

/** The requests since the last `clearRequests`, as `METHOD /path status`, ids as `:id`. */
const lines = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`);

/** The default world, alan a member of YouTube (made with the full key), and the key without read:users; 404 for a missing scope. */
async function setup() {
  const emu = await world();
  await configureFor(emu, fast);
  const created = wire(
    await entitlement.create((await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] })).inputs!),
  );
  return { emu, id: created.id, outs: created.outs! };
}

/** The provider's context again (a new process), with the key lacking read:users. */
const limited = (emu: Emulator) => configureFor(emu, { ...fast, "workspace-access:apiKey": NO_READ_USERS });

/** The message names both fixes: the key's read:users, and the base URL's setting. */
function namesBothFixes(error: Error) {
  expect(error.message).toContain("read:users");
  expect(error.message).toContain("workspace-access:baseUrl");
}

describe("IntegrationEntitlement, a key without read:users, a service answering 404 for a missing scope", () => {
  it("a refresh of a membership removed by hand fails, naming read:users and baseUrl, rather than drop it", async () => {
    const { emu, id, outs } = await setup();
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    emu.clearRequests();
    const error = await rejection(entitlement.read!(id, outs as never));
    // Nothing had answered, but the integrations' listing, asked for the member read's other scope, shows the address right:
    // the fix is the key's scope, and the message says the base URL is right.
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain("the service does not disclose users to this key");
    namesBothFixes(error);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users/:id 404",
      // Its member list (one record) would show both scopes at once; answered 404, each scope's listing says which is hidden.
      "GET /integrations/:id/users 404",
      "GET /integrations 200",
      "GET /users 404",
    ]);
  });

  it("a refresh, the address wrong: fails naming baseUrl and both read scopes, rather than drop it", async () => {
    const { emu, id, outs } = await setup();
    await configureFor(emu, { ...fast, "workspace-access:baseUrl": emu.url.replace("/api/v1/", "/api/v2/") });
    // A state written before the workspace was recorded: one that records it is refused first (recorded-workspace.test.ts).
    const { [WORKSPACE]: _, ...older } = outs as unknown as Record<string, unknown>;
    const error = await rejection(entitlement.read!(id, older as never));
    // Nothing answered: the base URL or the key's scopes, all named.
    expect(error).toMatchObject({ kind: "configuration", setting: "baseUrl" });
    expect(error.message).toContain("is not the workspace's API root: check workspace-access:baseUrl");
    expect(error.message).toContain("answered 404, and so did GET /api/v2/integrations and GET /api/v2/users");
    expect(error.message).toContain(
      "give the key in workspace-access:apiKey the scopes Read integrations (read:integrations) and Read users (read:users).",
    );
  });

  it("the same refresh after another request of the process answered (the catalogue's): fails too, not read as gone", async () => {
    const { emu, id, outs } = await setup();
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    // `up --refresh`: a check of a new set reads the catalogue (write:integrations) before the read.
    await entitlement.check!({}, { integrationId: youtube, userId: grace, entitlements: ["EDITOR"] });
    emu.clearRequests();
    const error = await rejection(entitlement.read!(id, outs as never));
    // The address answered: the fix is the key's scope, and the message says the base URL is right.
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain(`GET /api/v1/integrations/${youtube}/users/${alan} answered 404, and so did GET /api/v1/users`);
    expect(error.message).toContain("Give the key in workspace-access:apiKey the scope Read users (read:users)");
    namesBothFixes(error);
    // The member read (alone: no list to share), then its member list (one record: both read scopes at once), then each
    // scope's listing once.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/users/${alan} 404`,
      `GET /integrations/${youtube}/users 404`,
      "GET /integrations 200",
      "GET /users 404",
    ]);
  });

  it("a destroy of a membership already gone fails, naming read:users and baseUrl, rather than succeed on a 404", async () => {
    for (const deleteOnDestroy of [false, true]) {
      const { emu, id, outs } = await setup();
      emu.integrations.removeMember(youtube, alan);
      await limited(emu);
      const error = await rejection(entitlement.delete!(id, { ...outs, deleteOnDestroy } as never));
      expect(error).toMatchObject({ kind: "configuration" });
      namesBothFixes(error);
    }
  });

  it("a destroy of a membership still there, after another request answered: fails on the owner check it cannot make, removes nothing", async () => {
    const { emu, id, outs } = await setup();
    await limited(emu);
    await entitlement.check!({}, { integrationId: youtube, userId: grace, entitlements: ["EDITOR"] });
    // Read as "not a member", the destroy would send its DELETE without knowing whether someone made alan an owner.
    const error = await rejection(entitlement.delete!(id, outs as never));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain("the service does not disclose users to this key");
    namesBothFixes(error);
    expect(emu.requests.some((r) => r.method === "DELETE")).toBe(false);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });
});

describe("IntegrationMembers, a key without read:users, a service answering 404 for a missing scope", () => {
  it("a refresh after a member was removed by hand fails, naming read:users and baseUrl, and drops nobody", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const declared = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
    const created = wire(await members.create((await members.check!({}, declared)).inputs!));
    emu.integrations.removeMember(youtube, alan);
    await limited(emu);
    const error = await rejection(members.read!(created.id, created.outs!));
    namesBothFixes(error);
  });
});

/** The message of a write the service refused with 404: the key's scopes named, and the setting that holds the key. */
function namesWriteScopes(error: Error, scopes: string[]) {
  expect(error.message).toContain("so the write was refused, not done, and nothing was read as gone");
  expect(error.message).toContain(": give the key in workspace-access:apiKey those it lacks.");
  for (const scope of scopes) expect(error.message).toContain(`(${scope})`);
}

const MEMBER_WRITE = ["write:integrations", "write:automations"];

describe("a key that reads but cannot write, a service answering 404 for a missing scope: a destroy's DELETE is not 'already gone'", () => {
  it("IntegrationEntitlement: the member is read back, found, and the destroy fails naming the write scopes; nothing removed", async () => {
    const { emu, id, outs } = await setup();
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    emu.clearRequests();
    const error = await rejection(entitlement.delete!(id, outs as never));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    namesWriteScopes(error, MEMBER_WRITE);
    expect(error.message).toContain(`DELETE /api/v1/integrations/${youtube}/users/${alan} answered 404, but GET`);
    // The owner check's read, the DELETE, and the member read back once.
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users/:id 200",
      "DELETE /integrations/:id/users/:id 404",
      "GET /integrations/:id/users/:id 200",
    ]);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });

  it("IntegrationMembers: the removal fails naming the write scopes, and the member stays", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const declared = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
    const created = wire(await members.create((await members.check!({}, declared)).inputs!));
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const error = await rejection(members.delete!(created.id, created.outs!));
    namesWriteScopes(error, MEMBER_WRITE);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(true);
  });

  it("User with deleteOnDestroy (a DELETE sent without reading first): fails naming write:users, and the user stays", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const created = wire(await user.create((await user.check!({}, { ...ann, deleteOnDestroy: true })).inputs!));
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    emu.clearRequests();
    const error = await rejection(user.delete!(created.id, created.outs!));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    namesWriteScopes(error, ["write:users"]);
    // The DELETE, first of this client: the address's one proof, then the user read back.
    expect(lines(emu)).toEqual(["DELETE /users/:id 404", "GET /users 200", "GET /users/:id 200"]);
    expect(emu.users.get(created.id)).toBeDefined();
  });

  it("User with deleteOnDestroy, a user gone indeed and a key that may delete: read back as gone, and the destroy succeeds", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const created = wire(await user.create((await user.check!({}, { ...ann, deleteOnDestroy: true })).inputs!));
    emu.users.remove(created.id);
    await configureFor(emu, fast);
    emu.clearRequests();
    await user.delete!(created.id, created.outs!);
    expect(lines(emu)).toEqual(["DELETE /users/:id 404", "GET /users 200", "GET /users/:id 404"]);
  });

  it("WorkspaceUsers: the removal of a user it created fails naming write:users, and the user stays", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const { outs } = await workspaceUsers.create({ ...setOf(ann), deleteOnDestroy: true });
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const error = await rejection(workspaceUsers.delete!("workspace-users", outs as Outputs));
    namesWriteScopes(error, ["write:users"]);
    expect(emu.users.findByEmail(ann.email)).toBeDefined();
  });
});

describe("a key that reads but cannot write, a service answering 404 for a missing scope: an update's 404 says what is known", () => {
  it("IntegrationEntitlement: the member is read back, found, and the update fails at once naming the entitlements and the write scopes", async () => {
    const { emu, id, outs } = await setup();
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const news = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["EDITOR"] })).inputs!;
    emu.clearRequests();
    const error = await rejection(entitlement.update!(id, outs as never, news));
    expect(error).toMatchObject({ kind: "api_error", status: 404 });
    expect(error.message).toContain(
      `answers that the membership of user ${alan} in integration ${youtube} is there, so either an entitlement the body names ` +
        "is not there, or the service answers 404 (not disclosed) to a key lacking a scope: this write needs the scopes Write " +
        "integrations (write:integrations), Write automated jobs (write:automations) and Read automated jobs (read:automations).",
    );
    // The setting holding the key, as every other write's 404 names it.
    expect(error.message).toContain("The key comes from workspace-access:apiKey");
    // Read as "removed out of band", the update would converge and send its PATCH again.
    expect(lines(emu)).toEqual(["PATCH /integrations/:id/users/:id 404", "GET /integrations/:id/users/:id 200"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["VIEWER"]);
  });

  it.each([
    ["a create adopting a member", {}],
    ["an import", { [IMPORT_ID]: `${youtube}/${grace}` }],
  ])(
    "IntegrationEntitlement, %s: the PATCH's member read back, found, and the create names the write scopes and the setting holding the key",
    async (_, extra) => {
      const emu = await world();
      await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
      const declared = { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], adoptExisting: true };
      const { inputs } = await entitlement.check!({}, declared);
      emu.clearRequests();
      const error = await rejection(entitlement.create({ ...inputs!, ...extra }));
      expect(error).toMatchObject({ kind: "api_error", status: 404 });
      expect(error.message).toContain(`answers that the membership of user ${grace} in integration ${youtube} is there`);
      expect(error.message).toContain("(write:integrations)");
      expect(error.message).toContain("The key comes from workspace-access:apiKey");
      expect(lines(emu).slice(-2)).toEqual(["PATCH /integrations/:id/users/:id 404", "GET /integrations/:id/users/:id 200"]);
      expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
    },
  );

  it("User: the user is read back, found, and the update fails naming the key and every scope a user write needs", async () => {
    const emu = await world();
    await configureFor(emu, fast);
    const created = wire(await user.create((await user.check!({}, ann)).inputs!));
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const news = (await user.check!({}, { ...ann, lastName: "Smith" })).inputs!;
    const error = await rejection(user.update!(created.id, created.outs!, news));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    namesWriteScopes(error, ["write:users", "write:automations", "read:automations"]);
    expect(emu.users.get(created.id)?.lastName).toBe(ann.lastName);
  });
});

describe("a key that writes but cannot read jobs, a service answering 404 for a missing scope: a job's 404 is not 'ended'", () => {
  it("IntegrationEntitlement: an update's job answering 404 through the grace fails naming Read automated jobs, recorded pending", async () => {
    const { emu, id, outs } = await setup();
    const noJobReads = `wa_no_job_reads_${"0".repeat(16)}`;
    issuedKeys.add(noJobReads);
    emu.addKey(
      noJobReads,
      ALL_SCOPES.filter((scope) => scope !== "read:automations"),
    );
    await configureFor(emu, { ...fast, "workspace-access:apiKey": noJobReads });
    const news = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["EDITOR"] })).inputs!;
    emu.clearRequests();
    const error = (await rejection(entitlement.update!(id, outs as never, news))) as Error & { properties?: Record<string, unknown> };
    const job = emu.jobs.list().at(-1)!;
    expect(error.message).toContain(`GET /api/v1/jobs/${job.id} kept answering 404 for 5 s (7 reads) after PATCH`);
    expect(error.message).toContain("Give the key in workspace-access:apiKey the scope Read automated jobs (read:automations)");
    // The write was accepted: its job is recorded, for the next up to wait for.
    expect(error.properties).toMatchObject({ pendingInvitations: [{ userId: alan, jobId: job.id }] });
    // Read on the usual schedule through the grace (a job store lagging its writes would have shown the job by then).
    expect(lines(emu)).toEqual(["PATCH /integrations/:id/users/:id 200", ...Array.from({ length: 7 }, () => "GET /jobs/:id 404")]);
  });
});

describe("a key that reads but cannot write, a service answering 404 for a missing scope: a create's invitation", () => {
  it("IntegrationEntitlement: its POST's 404, the integration there, names what else it may be: the user, or the key's write scopes", async () => {
    const emu = await world();
    const newcomer = emu.users.add({ email: "newcomer@example.com", firstName: "New", lastName: "Comer" }).id;
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const { inputs } = await entitlement.check!({}, { integrationId: youtube, userId: newcomer, entitlements: ["VIEWER"] });
    emu.clearRequests();
    const error = await rejection(entitlement.create(inputs!));
    expect(error.message).toContain(`Integration ${youtube} answers GET /integrations/${youtube}, so it exists`);
    // Not the integration's 404: a user the workspace does not have, or the service's answer to a key lacking a scope.
    expect(error.message).toContain(`user ${newcomer}`);
    expect(error.message).toContain("(write:integrations)");
    expect(error.message).toContain("workspace-access:apiKey");
    expect(lines(emu)).toContain("POST /integrations/:id/users 404");
    expect(emu.integrations.members(youtube).some((m) => m.userId === newcomer)).toBe(false);
  });
});

describe("a key that reads but cannot write, a service answering 404 for a missing scope: an IntegrationMembers' writes", () => {
  /** The reasons of a members run's error, by the user each names. */
  const reasonOf = (error: Error, userId: string) =>
    (error as Error & { reasons: string[] }).reasons.find((r) => r.startsWith(`user ${userId}:`));

  it("an update's POST and PATCH answered 404, the integration there: each names the user or the key's write scopes and its setting", async () => {
    const emu = await world();
    const newcomer = emu.users.add({ email: "newcomer@example.com", firstName: "New", lastName: "Comer" }).id;
    await configureFor(emu, fast);
    const declared = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
    const created = wire(await members.create((await members.check!({}, declared)).inputs!));
    const changed = {
      integrationId: youtube,
      members: [
        { userId: alan, entitlements: ["EDITOR"] },
        { userId: newcomer, entitlements: ["VIEWER"] },
      ],
    };
    const { inputs } = await members.check!({}, changed);
    // The update's own process (its check read the integration already).
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    emu.clearRequests();
    const error = await rejection(members.update!(created.id, created.outs!, inputs!));
    // The invitation: not the integration's 404 (it answers), so the user's or the key's.
    const invited = reasonOf(error, newcomer)!;
    expect(invited).toContain(`Integration ${youtube} answers GET /integrations/${youtube}, so it exists`);
    expect(invited).toContain(`It may be user ${newcomer}'s (not a user of the workspace: check userId)`);
    expect(invited).toContain("(write:integrations)");
    expect(invited).toContain("The key comes from workspace-access:apiKey");
    // The PATCH: its member read answers, so an entitlement or the key's scopes; the setting holding the key named too.
    const patched = reasonOf(error, alan)!;
    expect(patched).toContain(`answers that the membership of user ${alan} in integration ${youtube} is there`);
    expect(patched).toContain("(write:integrations)");
    expect(patched).toContain("The key comes from workspace-access:apiKey");
    // The member list and its proof of the newcomer's absence; the integration read once, after the writes' 404s.
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users 200",
      "GET /integrations/:id/users 200",
      "POST /integrations/:id/users 404",
      "PATCH /integrations/:id/users/:id 404",
      "GET /integrations/:id/users/:id 200",
      "GET /integrations/:id 200",
    ]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["VIEWER"]);
    expect(emu.integrations.members(youtube).some((m) => m.userId === newcomer)).toBe(false);
  });

  it("a create's POST answered 404, the integration there: names the user or the key's write scopes and its setting, one integration read", async () => {
    const emu = await world();
    const newcomer = emu.users.add({ email: "newcomer@example.com", firstName: "New", lastName: "Comer" }).id;
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const { inputs } = await members.check!({}, { integrationId: youtube, members: [{ userId: newcomer, entitlements: ["VIEWER"] }] });
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    emu.clearRequests();
    const error = await rejection(members.create(inputs!));
    expect(error.message).toContain(`Integration ${youtube} answers GET /integrations/${youtube}, so it exists`);
    expect(error.message).toContain(`user ${newcomer}`);
    expect(error.message).toContain("(write:integrations)");
    expect(error.message).toContain("The key comes from workspace-access:apiKey");
    // The member list, its proof of the newcomer's absence (another page size), the POST, and the integration once after it.
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users 200",
      "GET /integrations/:id/users 200",
      "POST /integrations/:id/users 404",
      "GET /integrations/:id 200",
    ]);
  });
});

describe("a key that reads but cannot write, a service answering 404 for a missing scope: a batch of invitations", () => {
  /** The reasons of a members run's error, in the order of its members' ids. */
  const reasonsOf = (error: Error) => (error as Error & { reasons: string[] }).reasons;
  /** The `userIds` of each invitation the server received. */
  const invited = (emu: Emulator) =>
    emu.requests
      .filter((r) => r.method === "POST")
      .map((r) => (r.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds);
  /** `n` users of the workspace, none a member of YouTube, in the order of their ids (an IntegrationMembers invites in that order). */
  const newcomers = (emu: Emulator, n: number) =>
    Array.from({ length: n }, (_, i) => emu.users.add({ email: `n${i}@example.com`, firstName: "N", lastName: `${i}` }).id).sort();
  /** An IntegrationMembers create of `users`, VIEWER each, with `key`: its error. */
  async function createMembers(emu: Emulator, users: string[], key = READ_ONLY) {
    await configureFor(emu, { ...fast, "workspace-access:apiKey": key });
    const declared = { integrationId: youtube, members: users.map((userId) => ({ userId, entitlements: ["VIEWER"] })) };
    const { inputs } = await members.check!({}, declared);
    emu.clearRequests();
    return rejection(members.create(inputs!));
  }
  /** The message every invitation fails with: refused to the key, its scopes and the setting holding it; none sent again. */
  function refusedToKey(reason: string) {
    expect(reason).toContain("so the service refused the invitations to the key");
    expect(reason).toContain(
      "An invitation needs the scopes Write integrations (write:integrations), Read automated jobs (read:automations) and Write " +
        "automated jobs (write:automations): give the key those it lacks.",
    );
    expect(reason).toContain("Nothing was invited, and none was sent again.");
    expect(reason).toContain("The key comes from workspace-access:apiKey");
    // Not said to be a user's: the workspace has both users tried alone.
    expect(reason).not.toContain("check userId");
  }

  it("an IntegrationMembers create of 8: the batch's POST and two users' alone, not 15, each member failing naming the key", async () => {
    const emu = await world();
    const users = newcomers(emu, 8);
    const error = await createMembers(emu, users);
    expect(reasonsOf(error)).toHaveLength(8);
    for (const reason of reasonsOf(error)) refusedToKey(reason);
    expect(reasonsOf(error)[0]).toContain(`and again to user ${users[0]}'s and user ${users[1]}'s, each sent alone`);
    // The catalogue, which this key may not read (the document's scope table): an entitlement it does not offer is not ruled out.
    expect(reasonsOf(error)[0]).toContain("its catalogue did not answer");
    expect(invited(emu)).toEqual([users, [users[0]], [users[1]]]);
    // After the member list and its proof of the misses: each user's read once, the catalogue once (the integration's read, the
    // check's, reused: it answers).
    expect(lines(emu).slice(2)).toEqual([
      "POST /integrations/:id/users 404",
      "POST /integrations/:id/users 404",
      "GET /users/:id 200",
      "POST /integrations/:id/users 404",
      "GET /users/:id 200",
      "GET /integrations/:id/entitlements 404",
    ]);
    expect(emu.integrations.members(youtube).some((m) => users.includes(m.userId))).toBe(false);
  });

  it("the catalogue answering (the contract's scope table): it offers the set, so the key alone is named", async () => {
    const emu = await emulator({
      seed: defaultSeed(),
      job: { finishAfterPolls: 1 },
      keys: { [READ_ONLY]: ALL_SCOPES.filter((scope) => scope.startsWith("read:")) },
      missingScopeStatus: 404,
      scopeTable: "contract",
    });
    const error = await createMembers(emu, newcomers(emu, 4));
    for (const reason of reasonsOf(error)) refusedToKey(reason);
    expect(reasonsOf(error)[0]).toContain("and the integration offers the entitlements asked (its catalogue)");
    expect(reasonsOf(error)[0]).not.toContain("its catalogue did not answer");
    expect(invited(emu)).toHaveLength(3);
  });

  it("IntegrationEntitlement creates batched together: each fails naming the key and its setting, three POSTs", async () => {
    const emu = await world();
    const users = newcomers(emu, 4);
    await configureFor(emu, { ...fast, "workspace-access:apiKey": READ_ONLY });
    const checked = await Promise.all(
      users.map(async (userId) => (await entitlement.check!({}, { integrationId: youtube, userId, entitlements: ["VIEWER"] })).inputs!),
    );
    emu.clearRequests();
    const errors = await Promise.all(checked.map((inputs) => rejection(entitlement.create(inputs))));
    for (const error of errors) {
      expect(error).toMatchObject({ kind: "api_error", status: 404 });
      refusedToKey(error.message);
    }
    expect(invited(emu).map((ids) => ids.length)).toEqual([4, 1, 1]);
  });

  it("a user the workspace does not have, tried alone first: fails alone (a 404 maybe theirs); the others are refused to the key", async () => {
    const emu = await world();
    // The lowest id: tried alone first.
    const ghost = "00000000-0000-4000-8000-000000000001";
    const users = [ghost, ...newcomers(emu, 3)];
    const error = await createMembers(emu, users);
    const [first, ...others] = reasonsOf(error);
    expect(first).toContain(`It may be user ${ghost}'s (not a user of the workspace: check userId)`);
    for (const reason of others) refusedToKey(reason);
    // The batch of 4, the ghost alone (404; no such user), the other 3, then two of them alone.
    expect(invited(emu)).toEqual([users, [ghost], users.slice(1), [users[1]], [users[2]]]);
  });

  it.each([
    ["the first", 0],
    ["the third", 2],
  ])(
    "a key that can write, %s user refused 404 though the workspace has them: that user fails alone, the others are invited",
    async (_, bad) => {
      const emu = await world();
      const users = newcomers(emu, 4);
      emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, userId: users[bad]!, status: 404, times: 10 });
      const error = await createMembers(emu, users, emu.apiKey);
      expect(reasonsOf(error)).toHaveLength(1);
      expect(reasonsOf(error)[0]).toContain(`user ${users[bad]}`);
      expect(reasonsOf(error)[0]).not.toContain("so the service refused the invitations to the key");
      const made = emu.integrations.members(youtube).map((m) => m.userId);
      expect(users.filter((u) => made.includes(u))).toEqual(users.filter((_, i) => i !== bad));
    },
  );
});

describe("the contract's 403 for a missing scope: what telling a DELETE's 404 apart costs", () => {
  it("a DELETE answered 404 reads its record back once, until one of its kind answered success; then none", async () => {
    const emu = await world(403);
    await configureFor(emu, fast);
    const made = [];
    for (const email of ["a@example.com", "b@example.com", "c@example.com"]) {
      made.push(wire(await user.create((await user.check!({}, { email, firstName: "A", lastName: "B", deleteOnDestroy: true })).inputs!)));
    }
    const [a, b, c] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0]];
    emu.users.remove(a.id);
    emu.users.remove(c.id);
    // The destroy's process: the creates' POSTs, which showed this key may write users, were another's.
    await configureFor(emu, fast);
    emu.clearRequests();
    await user.delete!(a.id, a.outs!);
    await user.delete!(b.id, b.outs!);
    await user.delete!(c.id, c.outs!);
    expect(lines(emu)).toEqual([
      // The first answer of this client is a 404: the address's one proof (which also shows the key users), as before.
      "DELETE /users/:id 404",
      "GET /users 200",
      // No user write has answered success yet: the 404 may be a refusal, and the user is read back.
      "GET /users/:id 404",
      "DELETE /users/:id 204",
      // One did (a POST /users would have done as well): this key may write users, and the 404 is the user's.
      "DELETE /users/:id 404",
    ]);
  });
});
