/**
 * Both membership resources where the service answers a member's `role` in the invitation's words (`account_owner`,
 * `account_collaborator`: `memberRole: "account"`) or leaves it out of the record (`"left-out"`: the contract's "only `id` is
 * certain"), rather than `owner` or `collaborator` (`"short"`, the default). A member someone made an owner is left by a
 * removal whose program did not declare them one; where the record does not say the role, nothing tells them from an owner,
 * and no one is removed on that unknown alone.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator, type EmulatorQuirks } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, grace, alan, katherine } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const ROLES = ["short", "account", "left-out"] as const satisfies readonly NonNullable<EmulatorQuirks["memberRole"]>[];

/** An emulator answering roles as `memberRole` says, and a deployment's context on it whose warnings are kept in `warned`. */
async function world(memberRole: (typeof ROLES)[number]) {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { memberRole } });
  const warned: string[] = [];
  const deployment = () => configureFor(emu, fast, { warn: (m) => void warned.push(m) });
  return { emu, warned, deployment };
}
const writes = (emu: Emulator) =>
  emu.requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/jobs/")).map((r) => `${r.method} ${r.path}`);
const roleOf = (emu: Emulator, userId: string) => emu.integrations.members(youtube).find((m) => m.userId === userId)?.role;
const declare = async (list: { userId: string; entitlements: string[]; role?: string }[]) =>
  (await members.check!({}, { integrationId: youtube, members: list })).inputs!;

describe("a member's role answered otherwise (memberRole)", () => {
  it.each(ROLES)("%s: an IntegrationMembers' update leaves a member someone made an owner, removing no one", async (memberRole) => {
    const { emu, warned, deployment } = await world(memberRole);
    await deployment();
    const both = await declare([
      { userId: alan, entitlements: ["VIEWER"] },
      { userId: grace, entitlements: ["EDITOR"] },
    ]);
    const { id, outs } = wire(await members.create(both));
    expect(outs?.members.map((m) => m.userId).sort()).toEqual([grace, alan].sort());
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    emu.clearRequests();

    await deployment();
    const update = members.update!(id, outs!, await declare([{ userId: grace, entitlements: ["EDITOR"] }]));
    if (memberRole === "left-out") {
      // No role known: alan may be the owner the guard keeps, and no one known to be an owner would stay.
      expect((await rejection(update)).message).toContain(alan);
    } else {
      const updated = wire(await update);
      expect(updated.outs?.members.map((m) => m.userId)).toEqual([grace]);
      expect(warned.join("\n")).toContain(alan);
    }
    expect(writes(emu)).toEqual([]);
    expect(roleOf(emu, alan)).toBe("owner");
    expect(roleOf(emu, ada)).toBe("owner");
  });

  it.each(ROLES)("%s: an IntegrationEntitlement's destroy leaves a member someone made an owner", async (memberRole) => {
    const { emu, warned, deployment } = await world(memberRole);
    await deployment();
    const inputs = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] })).inputs!;
    const { id, outs } = wire(await entitlement.create(inputs));
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    emu.clearRequests();

    await deployment();
    const destroyed = entitlement.delete!(id, outs!);
    if (memberRole === "left-out") {
      // Nothing tells the role: alan may be the owner a destroy leaves, so it fails for him, naming the field.
      expect((await rejection(destroyed)).message).toContain('field "data.attributes.role"');
    } else {
      await destroyed;
      expect(warned.join("\n")).toContain("is an owner of the integration now");
    }
    expect(writes(emu)).toEqual([]);
    expect(roleOf(emu, alan)).toBe("owner");
  });

  it("an IntegrationEntitlement's destroy of a member whose role is not known fails, sending nothing, though a known owner stays", async () => {
    const { emu, deployment } = await world("short");
    await deployment();
    const declare = async (userId: string, deleteOnDestroy?: boolean) =>
      (await entitlement.check!({}, { integrationId: youtube, userId, entitlements: ["VIEWER"], deleteOnDestroy })).inputs!;
    const alans = wire(await entitlement.create(await declare(alan)));
    const katherines = wire(await entitlement.create(await declare(katherine, true)));
    // A role this package does not know (ada stays a known owner, so no last-owner guard is reached).
    emu.integrations.setMember(youtube, alan, { role: "admin" as never, entitlements: ["VIEWER"] });
    emu.integrations.setMember(youtube, katherine, { role: "admin" as never, entitlements: ["VIEWER"] });
    emu.clearRequests();

    await deployment();
    const refused = await rejection(entitlement.delete!(alans.id, alans.outs!));
    expect(refused.message).toContain(`user ${alan}`);
    expect(refused.message).toContain("deleteOnDestroy: true");
    expect(writes(emu)).toEqual([]);
    expect(roleOf(emu, alan)).toBe("admin");
    // Under deleteOnDestroy the program asked for the removal whatever the role: removed.
    await entitlement.delete!(katherines.id, katherines.outs!);
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${katherine}`]);
  });

  it.each(ROLES)(
    "%s: an IntegrationMembers' create takes over the owner it declares and the collaborators, writing no role",
    async (memberRole) => {
      const { emu, deployment } = await world(memberRole);
      await deployment();
      const declared = await declare([
        { userId: ada, entitlements: ["MANAGER"], role: "account_owner" },
        { userId: grace, entitlements: ["EDITOR"], role: "account_collaborator" },
      ]);
      const { outs } = wire(await members.create(declared));
      expect(writes(emu)).toEqual([]);
      const expected = memberRole === "left-out" ? [null, null] : ["account_owner", "account_collaborator"];
      expect(outs?.members.map((m) => m.role)).toEqual(ada < grace ? expected : [...expected].reverse());
    },
  );

  it.each(ROLES)(
    "%s: an IntegrationMembers' create declaring a collaborator an owner changes no role it cannot see",
    async (memberRole) => {
      const { emu, warned, deployment } = await world(memberRole);
      await deployment();
      const declared = await declare([{ userId: grace, entitlements: ["EDITOR"], role: "account_owner" }]);
      const created = await members.create(declared).then(wire, (error: unknown) => error as Error);
      expect(writes(emu)).toEqual([]);
      expect(roleOf(emu, grace)).toBe("collaborator");
      if (memberRole === "left-out") {
        // Nothing tells the role: taken over as declared, as a role the program leaves out is (a refresh cannot show it either).
        expect(created).not.toBeInstanceOf(Error);
        expect(warned).toEqual([]);
      } else expect((created as Error).message).toContain(`${grace} is already a member of integration ${youtube} as account_collaborator`);
    },
  );
});

describe("one member's record that leaves the role out, beside an owner it names", () => {
  /** Alan, made an owner since the program managed him, listed and read with no role; Ada, the owner, as ever. */
  async function promotedUnsaid() {
    const { emu, warned, deployment } = await world("short");
    await deployment();
    const declared = await declare([
      { userId: alan, entitlements: ["VIEWER"] },
      { userId: katherine, entitlements: ["EDITOR"] },
    ]);
    const { id, outs } = wire(await members.create(declared));
    emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    const get = async (path: string) =>
      (await (await fetch(new URL(path, emu.url), { headers: { "X-API-Key": emu.apiKey } })).json()) as {
        data: { id: string; attributes: Record<string, unknown> } | Array<{ id: string; attributes: Record<string, unknown> }>;
      };
    const page = await get(`integrations/${youtube}/users?page[size]=100`);
    for (const record of [page.data].flat()) if (record.id === alan) delete record.attributes.role;
    const own = await get(`integrations/${youtube}/users/${alan}`);
    for (const record of [own.data].flat()) delete record.attributes.role;
    emu.fault({ method: "GET", path: `/integrations/${youtube}/users`, body: JSON.stringify(page), times: 20 });
    emu.fault({ method: "GET", path: `/integrations/${youtube}/users/${alan}`, body: JSON.stringify(own), times: 20 });
    emu.clearRequests();
    return { emu, warned, deployment, id, outs: outs! };
  }

  it("an IntegrationMembers' update that drops him fails for him, naming the field, and removes no one", async () => {
    const { emu, deployment, id, outs } = await promotedUnsaid();
    await deployment();
    const error = await rejection(members.update!(id, outs, await declare([{ userId: katherine, entitlements: ["EDITOR"] }])));
    expect(error.message).toContain(`user ${alan} was not removed from integration ${youtube}`);
    expect(error.message).toContain('"data.attributes.role"');
    expect(writes(emu)).toEqual([]);
    expect(roleOf(emu, alan)).toBe("owner");
  });

  it("an IntegrationMembers' destroy removes the collaborator and fails for him, the resource kept", async () => {
    const { emu, deployment, id, outs } = await promotedUnsaid();
    await deployment();
    const error = await rejection(members.delete!(id, outs));
    expect(error.message).toContain(
      `1 of 2 members of integration ${youtube} could not be removed (the others were removed, 1, whom the state keeps until \`pulumi refresh\``,
    );
    expect(error.message).toContain(`user ${alan} was not removed from integration ${youtube}`);
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${katherine}`]);
    expect(roleOf(emu, alan)).toBe("owner");
  });

  it("with deleteOnDestroy, the program's opt-in, the update removes him as declared", async () => {
    const { emu, deployment, id, outs } = await promotedUnsaid();
    await deployment();
    const inputs = (
      await members.check!(
        {},
        { integrationId: youtube, members: [{ userId: katherine, entitlements: ["EDITOR"] }], deleteOnDestroy: true },
      )
    ).inputs!;
    await members.update!(id, outs, inputs);
    expect(writes(emu)).toEqual([`DELETE /integrations/${youtube}/users/${alan}`]);
  });
});
