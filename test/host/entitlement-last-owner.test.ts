/**
 * An `IntegrationEntitlement`'s destroy, and the delete of a replacement, never remove the integration's last owner: the rule
 * an `IntegrationMembers`' removals keep (`guardLastOwner` in members-plan.ts), refused before anything is sent.
 */
import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/client";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, alan, katherine } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const owner = { integrationId: youtube, userId: katherine, entitlements: ["EDITOR"], role: "account_owner" };
const check = async (news: Record<string, unknown>) => (await provider.check!({}, news)).inputs!;
const deletes = (emu: Emulator) => emu.requests.filter((r) => r.method === "DELETE").map((r) => r.path);
const memberOf = (emu: Emulator, userId: string) => emu.integrations.members(youtube).find((m) => m.userId === userId);

async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  await configureFor(emu, fast);
  return emu;
}

/** The refusal's message, as `IntegrationMembers` words it. */
const lastOwner = (userId: string) =>
  `Refusing to remove user ${userId}, the last member with the owner role of integration ${youtube}: the integration would be left without an owner.`;

describe("IntegrationEntitlement: the integration's last owner", () => {
  it("a destroy of the member the program declares an owner, the last one left, is refused naming them; nothing is removed", async () => {
    const emu = await setup();
    const { id, outs } = wire(await provider.create(await check(owner)));
    // Someone removed the other owner since.
    emu.integrations.removeMember(youtube, ada);
    await configureFor(emu, fast);
    emu.clearRequests();
    const error = await rejection(provider.delete!(id, outs!));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(lastOwner(katherine));
    expect((error as Error).message).toContain('Add another member with role: "account_owner" first');
    expect(deletes(emu)).toEqual([]);
    expect(memberOf(emu, katherine)?.role).toBe("owner");
  });

  it("an adopted owner with deleteOnDestroy, the last one, is refused too", async () => {
    const emu = await setup();
    const adopting = { ...owner, userId: ada, entitlements: ["MANAGER"], adoptExisting: true, deleteOnDestroy: true };
    const { id, outs } = wire(await provider.create(await check(adopting)));
    await configureFor(emu, fast);
    emu.clearRequests();
    expect((await rejection(provider.delete!(id, outs!))).message).toContain(lastOwner(ada));
    expect(deletes(emu)).toEqual([]);
    expect(memberOf(emu, ada)?.role).toBe("owner");
  });

  it("a role change's replacement does not remove the last owner first: its delete is refused", async () => {
    const emu = await setup();
    const { id, outs } = wire(await provider.create(await check(owner)));
    emu.integrations.removeMember(youtube, ada);
    await configureFor(emu, fast);
    const news = await check({ ...owner, role: "account_collaborator" });
    expect(wire(await provider.diff!(id, outs!, news))).toMatchObject({ replaces: ["role"], deleteBeforeReplace: true });
    emu.clearRequests();
    expect((await rejection(provider.delete!(id, outs!))).message).toContain(lastOwner(katherine));
    expect(deletes(emu)).toEqual([]);
    expect(memberOf(emu, katherine)?.role).toBe("owner");
  });

  it("a destroy of the two last owners at once removes one and refuses the other: neither counts on the other staying", async () => {
    const emu = await setup();
    const made = [wire(await provider.create(await check(owner))), wire(await provider.create(await check({ ...owner, userId: alan })))];
    emu.integrations.removeMember(youtube, ada);
    await configureFor(emu, fast);
    emu.clearRequests();
    const ends = await Promise.allSettled(made.map(({ id, outs }) => provider.delete!(id, outs!)));
    expect(ends.map((end) => end.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = ends.find((end): end is PromiseRejectedResult => end.status === "rejected")!.reason as Error;
    expect(refused.message).toContain("the last member with the owner role");
    expect(deletes(emu)).toHaveLength(1);
    expect(emu.integrations.members(youtube).filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("a destroy of many collaborators with deleteOnDestroy reads no member list: the check costs non-owners nothing", async () => {
    const emu = await setup();
    const collaborator = (userId: string) => check({ ...owner, userId, role: "account_collaborator", deleteOnDestroy: true });
    const made = [wire(await provider.create(await collaborator(alan))), wire(await provider.create(await collaborator(katherine)))];
    await configureFor(emu, fast);
    emu.clearRequests();
    await Promise.all(made.map(({ id, outs }) => provider.delete!(id, outs!)));
    expect(deletes(emu).sort()).toEqual([alan, katherine].map((u) => `/integrations/${youtube}/users/${u}`).sort());
    // The DELETEs and their jobs' polls alone, as before the check.
    expect(emu.requests.filter((r) => r.method === "GET" && r.path.startsWith(`/integrations/${youtube}/users`))).toEqual([]);
  });

  it("a destroy of the last two owners, one an IntegrationEntitlement's and one an IntegrationMembers', keeps one of them", async () => {
    const emu = await setup();
    const one = wire(await provider.create(await check(owner)));
    const set = { integrationId: youtube, members: [{ userId: alan, entitlements: ["EDITOR"], role: "account_owner" }] };
    const many = wire(await membersProvider.create((await membersProvider.check!({}, set)).inputs!));
    emu.integrations.removeMember(youtube, ada);
    await configureFor(emu, fast);
    const ends = await Promise.allSettled([provider.delete!(one.id, one.outs!), membersProvider.delete!(many.id, many.outs!)]);
    expect(ends.map((end) => end.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(emu.integrations.members(youtube).filter((m) => m.role === "owner")).toHaveLength(1);
  });

  it("with another owner left, the destroy removes the declared owner", async () => {
    const emu = await setup();
    const { id, outs } = wire(await provider.create(await check(owner)));
    await configureFor(emu, fast);
    emu.clearRequests();
    await provider.delete!(id, outs!);
    expect(deletes(emu)).toEqual([`/integrations/${youtube}/users/${katherine}`]);
    expect(memberOf(emu, ada)?.role).toBe("owner");
  });
});
