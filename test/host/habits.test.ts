/**
 * The handlers' side of Pulumi's habits (docs/pulumi-habits.md), in process against the emulator:
 * a create given `import` adopts the named record (or fails naming both, before any write), and a
 * delete gives back what the stack adopted, or a workspace owner, unless `deleteOnDestroy`.
 * The CLI tier (test/cli/habits-*.test.ts) shows the same through the real `pulumi`.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator/index";
import { provider as entitlements } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as users } from "../../src/host/user/user-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { users: ids, integrations } = DEFAULT_IDS;
const grace = { email: "grace@example.com", firstName: "Grace", lastName: "Hopper" };
const writes = (emu: Awaited<ReturnType<typeof emulator>>) =>
  emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

async function setup() {
  const emu = await emulator({ seed: defaultSeed() });
  const warnings: string[] = [];
  const warn = (message: string) => void warnings.push(message);
  await configureFor(emu, {}, { warn });
  // A destroy is another deployment: a context that took nothing over.
  const nextDeployment = () => configureFor(emu, {}, { warn });
  return { emu, warnings, nextDeployment };
}

describe("User with import", () => {
  it("adopts the user with that id, writing nothing when the declared attributes hold; its delete leaves it, warning", async () => {
    const { emu, warnings, nextDeployment } = await setup();
    const { inputs } = await users.check!({}, { ...grace, __importId: ids.grace });
    expect(inputs).toMatchObject({ __importId: ids.grace });
    const { id, outs } = await users.create(inputs!);
    expect(id).toBe(ids.grace);
    expect(outs).toMatchObject({ adopted: true });
    expect(outs).not.toHaveProperty("__importId");
    await nextDeployment();
    await users.delete!(id, outs!);
    expect(writes(emu)).toEqual([]);
    expect(warnings.join("\n")).toContain(`User ${ids.grace} (grace@example.com) is left in the workspace as it is: the stack adopted it`);
  });

  it("removing import plans nothing", async () => {
    await setup();
    const { outs } = await users.create((await users.check!({}, { ...grace, __importId: ids.grace })).inputs!);
    const { inputs } = await users.check!({}, grace);
    expect((await users.diff!(ids.grace, outs!, inputs!)).changes).toBe(false);
  });

  it.each([
    ["another user's id", ids.ada, "has the email ada@example.com, but the resource declares grace@example.com"],
    ["an id nobody has", "0b0b0b0b-0000-4000-8000-000000000000", "no user has the id 0b0b0b0b-0000-4000-8000-000000000000"],
  ])("%s fails naming both, before any write", async (_, importId, message) => {
    const { emu } = await setup();
    const error = await rejection(users.create((await users.check!({}, { ...grace, __importId: importId })).inputs!));
    expect(error.message).toContain(message);
    expect(writes(emu)).toEqual([]);
  });
});

describe("delete gives back", () => {
  it("deletes a user the stack created, and leaves a workspace owner it created unless deleteOnDestroy", async () => {
    const { emu, warnings } = await setup();
    const made = await users.create((await users.check!({}, { ...grace, email: "new@example.com" })).inputs!);
    const owner = await users.create((await users.check!({}, { ...grace, email: "boss@example.com", role: "workspace_owner" })).inputs!);
    await users.delete!(made.id, made.outs!);
    await users.delete!(owner.id, owner.outs!);
    expect(writes(emu).filter((w) => w.startsWith("DELETE"))).toEqual([`DELETE /users/${made.id}`]);
    expect(warnings.join("\n")).toContain("it is a workspace owner");
    await users.delete!(owner.id, { ...owner.outs!, deleteOnDestroy: true });
    expect(writes(emu).filter((w) => w.startsWith("DELETE"))).toEqual([`DELETE /users/${made.id}`, `DELETE /users/${owner.id}`]);
  });

  it("an adopted membership is left on delete, and removed with deleteOnDestroy", async () => {
    const { emu, warnings, nextDeployment } = await setup();
    const declared = { integrationId: integrations.youtube, userId: ids.grace, entitlements: ["EDITOR"] };
    const { inputs } = await entitlements.check!({}, { ...declared, __importId: `${integrations.youtube}/${ids.grace}` });
    const { id, outs } = await entitlements.create(inputs!);
    expect(outs).toMatchObject({ adopted: true });
    await nextDeployment();
    await entitlements.delete!(id, outs!);
    expect(writes(emu)).toEqual([]);
    expect(warnings.join("\n")).toContain(`The membership of user ${ids.grace}`);
    await entitlements.delete!(id, { ...outs!, deleteOnDestroy: true });
    expect(writes(emu)).toEqual([`DELETE /integrations/${integrations.youtube}/users/${ids.grace}`]);
  });
});

describe("what the stack adopted stays adopted through refreshes and updates", () => {
  it("a User: refreshed, then changed, its delete still leaves it", async () => {
    const { emu, nextDeployment } = await setup();
    const declared = (await users.check!({}, { ...grace, adoptExisting: true })).inputs!;
    const { id, outs } = await users.create(declared);
    expect(outs).toMatchObject({ adopted: true });
    await nextDeployment();
    const read = (await users.read!(id, outs!)).props!;
    expect(read).toMatchObject({ adopted: true });
    const updated = (await users.update!(id, read, { ...declared, lastName: "Murray Hopper" })).outs!;
    expect(emu.users.get(id)).toMatchObject({ lastName: "Murray Hopper" });
    expect(updated).toMatchObject({ adopted: true });
    await nextDeployment();
    emu.clearRequests();
    await users.delete!(id, updated);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(id)).toBeDefined();
  });

  it("an IntegrationEntitlement: refreshed, then its set changed, its delete still leaves the membership", async () => {
    const { emu, nextDeployment } = await setup();
    const declared = { integrationId: integrations.youtube, userId: ids.grace, entitlements: ["EDITOR"], adoptExisting: true };
    const { id, outs } = await entitlements.create((await entitlements.check!({}, declared)).inputs!);
    expect(outs).toMatchObject({ adopted: true });
    await nextDeployment();
    const read = (await entitlements.read!(id, outs!)).props!;
    expect(read).toMatchObject({ adopted: true });
    const changed = (await entitlements.check!({}, { ...declared, entitlements: ["EDITOR", "VIEWER"] })).inputs!;
    const updated = (await entitlements.update!(id, read, changed)).outs!;
    expect(updated).toMatchObject({ adopted: true, entitlements: ["EDITOR", "VIEWER"] });
    await nextDeployment();
    emu.clearRequests();
    await entitlements.delete!(id, updated);
    expect(writes(emu)).toEqual([]);
    expect(emu.integrations.members(integrations.youtube).some((m) => m.userId === ids.grace)).toBe(true);
  });
});

/**
 * A `User` the stack created (`declared`), changed in the service since (`change`), then `pulumi up --replace`d in a deployment
 * of its own, as the engine runs it: the new resource's check, the old one's delete, the new one's create (its infos kept).
 */
async function replacedAfter(declared: Record<string, unknown>, change: Record<string, string>) {
  const { emu, nextDeployment } = await setup();
  const { id, outs } = await users.create((await users.check!({}, declared)).inputs!);
  emu.users.update(id, change);
  await nextDeployment();
  const infos: string[] = [];
  await configureFor(emu, {}, { info: (m) => void infos.push(m) });
  emu.clearRequests();
  const checked = (await users.check!({}, declared)).inputs!;
  await users.delete!(id, outs!);
  const again = await users.create(checked);
  return { emu, id, again, infos };
}

describe("a forced replacement of what the delete leaves", () => {
  // `pulumi up --replace` deletes first, then creates, in one deployment: the create takes back what the delete left.
  it("an imported User, without adoptExisting: taken back as adopted, nothing written", async () => {
    const { emu, warnings, nextDeployment } = await setup();
    const { outs } = await users.create((await users.check!({}, { ...grace, __importId: ids.grace })).inputs!);
    const infos: string[] = [];
    await configureFor(emu, {}, { warn: (m) => void warnings.push(m), info: (m) => void infos.push(m) });
    await users.delete!(ids.grace, outs!);
    const again = await users.create((await users.check!({}, grace)).inputs!);
    expect(again).toMatchObject({ id: ids.grace, outs: { adopted: true, email: "grace@example.com" } });
    expect(writes(emu)).toEqual([]);
    expect(infos.join("\n")).toContain(`Took back user grace@example.com (${ids.grace}) as it is`);
    // Another deployment's create is not a replacement: the email is taken, as before.
    await nextDeployment();
    expect((await rejection(users.create((await users.check!({}, grace)).inputs!))).message).toContain("set adoptExisting: true");
  });

  it("a User the stack created, made a workspace owner since, its role under ignoreChanges: the delete leaves the owner, the create takes them back writing no role", async () => {
    const declared = {
      email: "zoe@example.com",
      firstName: "Zoe",
      lastName: "King",
      role: "workspace_login_only",
      __ignoreChanges: ["role"],
    };
    const { emu, id, again, infos } = await replacedAfter(declared, { role: "workspace_owner" });
    expect(again.id).toBe(id);
    // Nothing written: not the declared role over the owner's, which ignoreChanges leaves as the record has it.
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(id)).toMatchObject({ role: "workspace_owner" });
    expect(infos.join("\n")).toContain(`Took back user zoe@example.com (${id}) as it is`);
  });

  it("the same without ignoreChanges, a name changed since: the create writes what the program declares, and says so", async () => {
    const declared = { email: "zoe@example.com", firstName: "Zoe", lastName: "King", role: "workspace_owner", adoptExisting: true };
    const { emu, id, infos } = await replacedAfter(declared, { lastName: "Lovelace" });
    expect(writes(emu)).toEqual([`PUT /users/${id}`]);
    expect(emu.users.get(id)).toMatchObject({ lastName: "King" });
    expect(infos.join("\n")).toContain(`Took back user zoe@example.com (${id}) and wrote the attributes the program declares`);
  });

  it("an imported User with deleteOnDestroy, the program still giving import: the delete removes it, the create makes it anew", async () => {
    const { emu } = await setup();
    const declared = { ...grace, __importId: ids.grace, deleteOnDestroy: true };
    const { outs } = await users.create((await users.check!({}, declared)).inputs!);
    await configureFor(emu, {});
    emu.clearRequests();
    await users.delete!(ids.grace, outs!);
    // Pulumi applies import to a resource's first create alone: the replacement's is a create, not refused as nothing to import.
    const again = await users.create((await users.check!({}, declared)).inputs!);
    expect(again.id).not.toBe(ids.grace);
    expect(again.outs).toMatchObject({ adopted: false, email: "grace@example.com" });
    expect(writes(emu)).toEqual([`DELETE /users/${ids.grace}`, "POST /users"]);
    expect(emu.users.findByEmail("grace@example.com")?.id).toBe(again.id);
  });

  it("an imported IntegrationEntitlement, without adoptExisting: taken back as adopted, its set written when changed", async () => {
    const { emu } = await setup();
    const declared = { integrationId: integrations.youtube, userId: ids.grace, entitlements: ["EDITOR"] };
    const { inputs } = await entitlements.check!({}, { ...declared, __importId: `${integrations.youtube}/${ids.grace}` });
    const { id, outs } = await entitlements.create(inputs!);
    await configureFor(emu, {});
    await entitlements.delete!(id, outs!);
    const again = await entitlements.create((await entitlements.check!({}, { ...declared, entitlements: ["VIEWER"] })).inputs!);
    expect(again).toMatchObject({ id, outs: { adopted: true, entitlements: ["VIEWER"] } });
    expect(writes(emu)).toEqual([`PATCH /integrations/${integrations.youtube}/users/${ids.grace}`]);
  });
});
