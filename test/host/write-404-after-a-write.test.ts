/**
 * A membership write answered 404 after a write of its kind answered this key success: the client says the key holds the
 * write's scopes (the 404 is the member's, the user's or an entitlement's), and the resource's message must not then suggest
 * the key, nor name the setting holding it. Both membership resources, create, import and update; a `PATCH` and a `POST`.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { IMPORT_ID } from "../../src/shared/input-constants";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };

/** The requests since the last `clearRequests`, as `METHOD /path status`, ids as `:id`. */
const lines = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`);

/** The default world (grace a member of YouTube, EDITOR), one process's context with a key that may write everything. */
async function world() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, missingScopeStatus: 404 });
  await configureFor(emu, fast);
  return emu;
}

/** A member write of this process answered success: alan made a member of YouTube, then his set replaced (a `PATCH`). */
async function afterAWrite() {
  const made = wire(
    await entitlement.create((await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] })).inputs!),
  );
  const news = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["EDITOR"] })).inputs!;
  const updated = wire(await entitlement.update!(made.id, made.outs as never, news));
  return { id: made.id, outs: updated.outs! };
}

/** The message says the key holds the scopes, and nowhere that the key may lack one, nor where the key is set. */
function keyNotSuspected(message: string, integrationId = youtube) {
  expect(message).toContain("a write of this kind answered this key success before, so it holds the scopes");
  expect(message).toContain(`Integration ${integrationId} answers GET /integrations/${integrationId}, so it exists`);
  expect(message).toContain("not the key's");
  expect(message).not.toContain("lacking a scope");
  expect(message).not.toContain("check the key's scopes");
  expect(message).not.toContain("The key comes from");
}

/**
 * A PATCH of a member found just before it (an adoption's, an `IntegrationMembers`' own list) answered 404, the key holding the
 * scopes: the likely cause is an entitlement the PATCH names, not the member gone, nor the key.
 */
function memberFoundBefore(message: string, userId: string, integrationId = youtube) {
  expect(message).toContain("a write of this kind answered this key success before, so it holds the scopes");
  expect(message).toContain(
    `User ${userId} was found a member of integration ${integrationId} just before the PATCH, and the integration answers ` +
      `GET /integrations/${integrationId}: the 404 is likely not for want of the member, but an entitlement the PATCH names`,
  );
  expect(message).toContain("The PATCH was not sent again.");
  expect(message).not.toContain("no longer a member");
  expect(message).not.toContain("lacking a scope");
  expect(message).not.toContain("The key comes from");
}

const patchGrace = { method: "PATCH", path: `/integrations/${youtube}/users/${grace}`, status: 404, times: 10 } as const;

describe("IntegrationEntitlement: a PATCH answered 404 after one answered this key success", () => {
  it("a create adopting a member: says the member was found and an entitlement is the likely cause, not the key; the PATCH not read back", async () => {
    const emu = await world();
    await afterAWrite();
    emu.fault(patchGrace);
    const { inputs } = await entitlement.check!(
      {},
      { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], adoptExisting: true },
    );
    emu.clearRequests();
    const error = await rejection(entitlement.create(inputs!));
    expect(error).toMatchObject({ kind: "configuration", setting: "entitlements" });
    memberFoundBefore(error.message, grace);
    // The member found (the creates' list), the PATCH, then the integration's read: no member read back, no PATCH again.
    expect(lines(emu)).toEqual(["GET /integrations/:id/users 200", "PATCH /integrations/:id/users/:id 404", "GET /integrations/:id 200"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("an import: the same, its member read before the PATCH", async () => {
    const emu = await world();
    await afterAWrite();
    emu.fault(patchGrace);
    const { inputs } = await entitlement.check!(
      {},
      { integrationId: youtube, userId: grace, entitlements: ["VIEWER"], adoptExisting: true },
    );
    emu.clearRequests();
    const error = await rejection(entitlement.create({ ...inputs!, [IMPORT_ID]: `${youtube}/${grace}` }));
    expect(error).toMatchObject({ kind: "configuration", setting: "entitlements" });
    memberFoundBefore(error.message, grace);
    expect(lines(emu)).toEqual([
      "GET /integrations/:id/users/:id 200",
      "PATCH /integrations/:id/users/:id 404",
      "GET /integrations/:id 200",
    ]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("an update whose PATCH answered 404 finds its member there: not read as removed, the PATCH not sent again", async () => {
    const emu = await world();
    const { id, outs } = await afterAWrite();
    emu.fault({ ...patchGrace, path: `/integrations/${youtube}/users/${alan}` });
    const news = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["MANAGER"] })).inputs!;
    emu.clearRequests();
    const error = await rejection(entitlement.update!(id, outs as never, news));
    expect(lines(emu)).toEqual(["PATCH /integrations/:id/users/:id 404", "GET /integrations/:id/users/:id 200"]);
    expect(error.message).toContain(`answers that user ${alan} is a member of integration ${youtube}`);
    expect(error.message).toContain("a write of this kind answered this key success before, so it holds the scopes");
    expect(error.message).not.toContain("no longer a member");
    expect(error.message).not.toContain("lacking a scope");
    expect(error.message).not.toContain("The key comes from");
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["EDITOR"]);
  });

  it("a create's invitation answered 404 after one answered success: names the user, not the key", async () => {
    const emu = await world();
    await afterAWrite();
    const newcomer = emu.users.add({ email: "newcomer@example.com", firstName: "New", lastName: "Comer" }).id;
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404, times: 10 });
    const { inputs } = await entitlement.check!({}, { integrationId: youtube, userId: newcomer, entitlements: ["VIEWER"] });
    const error = await rejection(entitlement.create(inputs!));
    keyNotSuspected(error.message);
    expect(error.message).toContain(`It may be user ${newcomer}'s (not a user of the workspace: check userId)`);
  });
});

describe("IntegrationMembers: a write answered 404 after one of its kind answered this key success", () => {
  /** The reasons of a members run's error, by the user each names. */
  const reasonOf = (error: Error, userId: string) =>
    (error as Error & { reasons: string[] }).reasons.find((r) => r.startsWith(`user ${userId}:`));

  it("an update's PATCH and POST: the PATCH's member found in the list before it, an entitlement the likely cause; the POST names the user, not the key", async () => {
    const emu = await world();
    const newcomer = emu.users.add({ email: "newcomer@example.com", firstName: "New", lastName: "Comer" }).id;
    await afterAWrite();
    const declared = { integrationId: youtube, members: [{ userId: grace, entitlements: ["EDITOR"], role: "account_collaborator" }] };
    const created = wire(await members.create((await members.check!({}, declared)).inputs!));
    emu.fault(patchGrace);
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 404, times: 10 });
    const changed = {
      integrationId: youtube,
      members: [
        { userId: grace, entitlements: ["VIEWER"], role: "account_collaborator" },
        { userId: newcomer, entitlements: ["VIEWER"] },
      ],
    };
    const { inputs } = await members.check!({}, changed);
    emu.clearRequests();
    const error = await rejection(members.update!(created.id, created.outs!, inputs!));
    memberFoundBefore(reasonOf(error, grace)!, grace);
    keyNotSuspected(reasonOf(error, newcomer)!);
    expect(reasonOf(error, newcomer)).toContain(`It may be user ${newcomer}'s (not a user of the workspace: check userId)`);
    // Neither read back (the key holds the scopes), the integration read once after both.
    const writes = lines(emu).filter((l) => !l.startsWith("GET /integrations/:id/users "));
    expect(writes.slice(0, 2).sort()).toEqual(["PATCH /integrations/:id/users/:id 404", "POST /integrations/:id/users 404"]);
    expect(writes.slice(2)).toEqual(["GET /integrations/:id 200"]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });

  it("a create adopting a listed member whose PATCH answered 404: an entitlement of members the likely cause, the PATCH not read back nor sent again", async () => {
    const emu = await world();
    await afterAWrite();
    emu.fault(patchGrace);
    const declared = { integrationId: youtube, members: [{ userId: grace, entitlements: ["VIEWER"], role: "account_collaborator" }] };
    const { inputs } = await members.check!({}, declared);
    emu.clearRequests();
    const error = await rejection(members.create(inputs!));
    memberFoundBefore(reasonOf(error, grace)!, grace);
    expect(error.cause).toMatchObject({ kind: "configuration", setting: "members" });
    // The member list found grace, the PATCH, then the integration's read: no member read back, no PATCH again.
    expect(lines(emu).filter((l) => !l.startsWith("GET /integrations/:id/users 200"))).toEqual([
      "PATCH /integrations/:id/users/:id 404",
      "GET /integrations/:id 200",
    ]);
    expect(lines(emu)[0]).toBe("GET /integrations/:id/users 200");
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["EDITOR"]);
  });
});
