/**
 * The membership views and the users' writes of the same deployment: a `User` or `WorkspaceUsers` that deletes a user drops
 * their memberships in the service, so a member list the creates kept from before no longer answers for that user.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as user } from "../../src/host/user/user-provider";
import { provider as users } from "../../src/host/users/workspace-users-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, katherine } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };

async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  const said: string[] = [];
  await configureFor(emu, fast, { info: (message) => void said.push(message), warn: () => {} });
  // Dora, whom a User of the program created (its delete deletes her), a member of youtube.
  const dora = await user.create((await user.check!({}, { email: "dora@example.com", firstName: "Dora", lastName: "Doe" })).inputs!);
  emu.integrations.setMember(youtube, dora.id, { role: "collaborator", entitlements: ["VIEWER"] });
  return { emu, dora: dora.id, doraState: dora.outs!, said };
}

const create = async (inputs: Record<string, unknown>) =>
  entitlement.create((await entitlement.check!({}, { integrationId: youtube, entitlements: ["VIEWER"], ...inputs })).inputs!);

/** Two creates arriving together: the creates of youtube now share its member list, Dora in it. */
async function shareTheList() {
  await Promise.all([create({ userId: alan }), create({ userId: katherine })]);
}

describe("a member list the creates share, after a user's delete", () => {
  it("a create for the deleted user is not answered by the list: it adopts nothing and records no membership", async () => {
    const { emu, dora, doraState, said } = await setup();
    await shareTheList();
    await user.delete!(dora, doraState);
    expect(emu.integrations.members(youtube).some((m) => m.userId === dora)).toBe(false);
    said.length = 0;
    emu.clearRequests();
    // Before: the list said Dora was a member holding VIEWER, and the create recorded her membership, writing nothing.
    const error = await rejection(create({ userId: dora, adoptExisting: true }));
    expect(said).toEqual([]);
    expect(error.message).toContain(dora);
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toContain(`GET /integrations/${youtube}/users/${dora}`);
  });

  it("without adoptExisting, the create does not say the deleted user is already a member", async () => {
    const { emu, dora, doraState } = await setup();
    await shareTheList();
    await user.delete!(dora, { ...doraState, deleteOnDestroy: true });
    const error = await rejection(create({ userId: dora }));
    // The service's own answer: no such user.
    expect(error.message).toContain(`No user with id ${dora}`);
    expect(error.message).not.toContain("already a member");
    expect(emu.integrations.members(youtube).some((m) => m.userId === dora)).toBe(false);
  });

  it("a WorkspaceUsers update dropping the user it created: a create for that user is not answered by the list either", async () => {
    const { emu, said } = await setup();
    const erin = { email: "erin@example.com", firstName: "Erin", lastName: "Poe" };
    const set = { users: { [erin.email]: erin } };
    const created = await users.create(set);
    const id = Object.values(created.outs!.userIds)[0]!;
    emu.integrations.setMember(youtube, id, { role: "collaborator", entitlements: ["VIEWER"] });
    await shareTheList();
    await users.update!(created.id, created.outs!, { users: {} });
    expect(emu.users.get(id)).toBeUndefined();
    said.length = 0;
    const error = await rejection(create({ userId: id, adoptExisting: true }));
    expect(error.message).toContain(`No user with id ${id}`);
    expect(said).toEqual([]);
  });

  it("a create for a user the deployment created still shares the list and its proof (no read of its own)", async () => {
    const { emu } = await setup();
    await shareTheList();
    const { id } = await user.create((await user.check!({}, { email: "eve@example.com", firstName: "Eve", lastName: "Roe" })).inputs!);
    emu.clearRequests();
    const { outs } = await create({ userId: id });
    expect(outs).toMatchObject({ userId: id, entitlements: ["VIEWER"], adopted: false });
    // The list and its proof (young) still answer for Eve, absent from both: no listing, no read, only her invitation and its job.
    expect(emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")}`)).toEqual([
      "POST /integrations/:id/users",
      "GET /jobs/:id",
    ]);
  });
});
