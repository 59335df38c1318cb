/**
 * What a refused write says, over real HTTP to the emulator: every scope the write needs (its own, and those of the job it
 * answers with: Write automated jobs to start it, Read automated jobs to wait for it), whichever the service lacks.
 */
import { describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError } from "../../src/client";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Scope } from "../../src/emulator";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const JOB_SCOPES = "Write automated jobs (write:automations) and Read automated jobs (read:automations)";

/** A key holding every scope but `lacking`, issued by the fixtures' leak checks. */
function keyWithout(lacking: Scope, name: string): [string, string[]] {
  const key = `wa_${name}_${"7".repeat(16)}`;
  issuedKeys.add(key);
  return [key, ALL_SCOPES.filter((s) => s !== lacking)];
}

describe("a write refused 403 names every scope it needs", () => {
  it("a user replace whose service answers user writes with jobs names Write automated jobs and Read automated jobs, as assumed", async () => {
    const [key, scopes] = keyWithout("write:automations", "no_job_writes");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, userWritesAsJobs: true });
    const { client } = clientFor(emu, { apiKey: key });
    const attributes = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", isGuest: false };
    const error = await rejection(client.users.replace(alan, { ...attributes, lastName: "Mathison" }));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      `this operation needs the scope Write users (write:users), and, should the service answer it with a job (assumed), ${JOB_SCOPES} too`,
    );
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT /users/${alan}`]);
    expect(emu.users.get(alan)?.lastName).toBe("Turing");
  });

  it("an invitation under the contract's scope table names Write automated jobs, which that table asks for", async () => {
    const [key, scopes] = keyWithout("write:automations", "contract_invite");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, scopeTable: "contract" });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] }));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "this operation needs the scopes Write integrations (write:integrations), Read automated jobs (read:automations) and " +
        "Write automated jobs (write:automations)",
    );
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /integrations/${youtube}/users`]);
  });

  it("a member's entitlement change names Read automated jobs too: waiting for its job needs it", async () => {
    const [key, scopes] = keyWithout("write:integrations", "no_member_writes");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes } });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.setEntitlements(youtube, grace, ["VIEWER"]));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "this operation needs the scopes Write integrations (write:integrations), Write automated jobs (write:automations) and " +
        "Read automated jobs (read:automations)",
    );
  });
});

/** The requests since the last `clearRequests`, as `METHOD /path status`, ids as `:id`. */
const lines = (emu: Awaited<ReturnType<typeof emulator>>) =>
  emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`);

describe("a write answered 404 by a service answering 404 for a missing scope says what is known", () => {
  const attributes = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", isGuest: false };

  it("a user replace whose user is there: read back, and failed as refused, naming the key and every scope it needs", async () => {
    const [key, scopes] = keyWithout("write:users", "no_user_writes");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, missingScopeStatus: 404 });
    const { client } = clientFor(emu, { apiKey: key, settingName: (name) => (name === "apiKey" ? "workspace-access:apiKey" : undefined) });
    const error = await rejection(client.users.replace(alan, { ...attributes, lastName: "Mathison" }));
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain(`PUT /api/v1/users/${alan} answered 404, but GET /api/v1/users/${alan} answers that it is there`);
    expect(error.message).toContain(
      `This write needs the scope Write users (write:users), and, should the service answer it with a job (assumed), ${JOB_SCOPES} ` +
        "too: give the key in workspace-access:apiKey those it lacks.",
    );
    // The PUT, the address's proof (nothing had answered), and the user read back.
    expect(lines(emu)).toEqual(["PUT /users/:id 404", "GET /users 200", "GET /users/:id 200"]);
    expect(emu.users.get(alan)?.lastName).toBe("Turing");
  });

  it("a user replace whose user is gone: read back, and a 404 that says the user is not there", async () => {
    const emu = await emulator({ seed: defaultSeed(), missingScopeStatus: 404 });
    emu.users.remove(alan);
    const { client } = clientFor(emu);
    const error = await rejection(client.users.replace(alan, attributes));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain(`GET /api/v1/users/${alan} answered 404 too: user ${alan} is not there. The write was not done.`);
    expect(lines(emu)).toEqual(["PUT /users/:id 404", "GET /users 200", "GET /users/:id 404"]);
  });

  it("a member's entitlement change whose member is there: the entitlement or the key's scopes, each named, and how to tell; no 'not found'", async () => {
    const [key, scopes] = keyWithout("write:integrations", "no_member_writes_404");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, missingScopeStatus: 404 });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.setEntitlements(youtube, grace, ["VIEWER"]));
    // The member is there: no "not found", which a caller would read as gone.
    expect(NotFoundError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ kind: "api_error", status: 404 });
    expect(error.message).toContain(
      `GET /api/v1/integrations/${youtube}/users/${grace} answers that the membership of user ${grace} in integration ${youtube} ` +
        "is there, so either an entitlement the body names is not there, or the service answers 404 (not disclosed) to a key " +
        "lacking a scope: this write needs the scopes Write integrations (write:integrations), Write automated jobs " +
        "(write:automations) and Read automated jobs (read:automations). The write was not done. To tell which, compare what " +
        "the body names with what the service has, and check the key's scopes in the workspace's API settings.",
    );
    expect(lines(emu)).toEqual(["PATCH /integrations/:id/users/:id 404", "GET /users 200", "GET /integrations/:id/users/:id 200"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("a member's entitlement change whose member is gone: a 404 that says the membership is not there", async () => {
    const emu = await emulator({ seed: defaultSeed(), missingScopeStatus: 404 });
    emu.integrations.removeMember(youtube, grace);
    const { client } = clientFor(emu);
    const error = await rejection(client.integrations.changeEntitlements(youtube, grace, { add: ["VIEWER"] }));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      `GET /api/v1/integrations/${youtube}/users/${grace} answered 404 too: the membership of user ${grace} in integration ` +
        `${youtube} is not there.`,
    );
  });

  it("an invitation: the integration, what it names, or the key's scopes, each named; nothing read back", async () => {
    const [key, scopes] = keyWithout("write:integrations", "no_invites_404");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, missingScopeStatus: 404 });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] }));
    expect(NotFoundError.isInstance(error)).toBe(true);
    // No write of its kind answered this key: the key is not known to hold the scopes.
    expect(error).toMatchObject({ scopesHeld: false });
    expect(error.message).toContain(
      `Either integration ${youtube} or a user or an entitlement the invitation names is not there, or the service answers 404 (not ` +
        "disclosed) to a key lacking a scope: this write needs the scopes Write integrations (write:integrations), Read automated " +
        "jobs (read:automations) and Write automated jobs (write:automations). The write was not done. To tell which, check the " +
        "key's scopes in the workspace's API settings.",
    );
    expect(lines(emu)).toEqual(["POST /integrations/:id/users 404", "GET /users 200"]);
  });

  it("a user create: the endpoint (assumed) or the key's Write users", async () => {
    const [key, scopes] = keyWithout("write:users", "no_user_create_404");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, missingScopeStatus: 404 });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(
      client.users.create({ email: "ann@example.com", firstName: "Ann", lastName: "Lee", role: "workspace_login_only" }),
    );
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "Either the endpoint POST /users (assumed: no public document shows it; adopting users needs none) is not there, or the " +
        "service answers 404 (not disclosed) to a key lacking a scope: this write needs the scope Write users (write:users), and, " +
        `should the service answer it with a job (assumed), ${JOB_SCOPES} too.`,
    );
    expect(emu.users.list()).toHaveLength(4);
  });

  it("once a write of its kind answered success, its 404 is the record's: not read back, and said so", async () => {
    const emu = await emulator({ seed: defaultSeed(), missingScopeStatus: 404, job: { finishAfterPolls: 1 } });
    const { client } = clientFor(emu);
    await (await client.integrations.setEntitlements(youtube, grace, ["VIEWER"])).wait();
    emu.integrations.removeMember(youtube, grace);
    emu.clearRequests();
    const error = await rejection(client.integrations.setEntitlements(youtube, grace, ["EDITOR"]));
    expect(NotFoundError.isInstance(error)).toBe(true);
    // Kept as data: a resource's message then suggests no key (its scopes are held).
    expect(error).toMatchObject({ scopesHeld: true });
    expect(error.message).toContain(
      `${youtube}. The membership of user ${grace} in integration ${youtube} or an entitlement the body names is not there: a write of ` +
        "this kind answered this key success before, so it holds the scopes.",
    );
    expect(lines(emu)).toEqual(["PATCH /integrations/:id/users/:id 404"]);
  });
});
