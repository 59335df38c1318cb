/**
 * Both membership resources where the service serves an integration's member list and its invitation at the public
 * document's path key alone, `/integrations/{id}/user`, and answers 404 at `/users`, the spelling the contract, the
 * document's descriptions and its example links use and the client sends (`memberListPath: "singular"`). The package does
 * not follow it there (docs/contract.md, deviation 1): each operation that needs the list or an invitation fails, and none
 * writes, removes anyone or drops anything from the state on that 404. Under `"both"` (the default) the same steps succeed.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { ada, grace, alan, katherine } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };

const writes = (emu: Emulator) =>
  emu.requests.filter((r) => r.method !== "GET" && !r.path.startsWith("/jobs/")).map((r) => `${r.method} ${r.path} ${r.status}`);
const memberIds = (emu: Emulator) =>
  emu.integrations
    .members(youtube)
    .map((m) => m.userId)
    .sort();
const declare = async (list: { userId: string; entitlements: string[] }[]) =>
  (await members.check!({}, { integrationId: youtube, members: list })).inputs!;

describe("the member list and invitation at /integrations/{id}/user alone (memberListPath: singular)", () => {
  it("an IntegrationEntitlement's create fails on the invitation's 404, and nobody is made a member", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { memberListPath: "singular" } });
    await configureFor(emu, fast);
    const inputs = (await entitlement.check!({}, { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] })).inputs!;
    const error = await rejection(entitlement.create(inputs));
    expect(error.message).toContain("answered 404");
    expect(writes(emu)).toEqual([`POST /integrations/${youtube}/users 404`]);
    expect(memberIds(emu)).toEqual([ada, grace].sort());
  });

  it("an IntegrationMembers' create fails saying the list was withheld, writing nothing", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { memberListPath: "singular" } });
    await configureFor(emu, fast);
    const error = await rejection(members.create(await declare([{ userId: alan, entitlements: ["VIEWER"] }])));
    expect(error.message).toContain("its member list answered 404");
    expect(writes(emu)).toEqual([]);
  });

  it("an IntegrationMembers made before: its refresh, update and destroy fail, nobody removed or dropped", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await configureFor(emu, fast);
    const { id, outs } = wire(
      await members.create(
        await declare([
          { userId: alan, entitlements: ["VIEWER"] },
          { userId: katherine, entitlements: ["VIEWER"] },
        ]),
      ),
    );
    expect(memberIds(emu)).toEqual([ada, grace, alan, katherine].sort());
    emu.quirks.memberListPath = "singular";
    emu.clearRequests();

    await configureFor(emu, fast);
    await expect(members.read!(id, outs)).rejects.toThrow(/its member list answered 404/);
    await expect(members.update!(id, outs!, await declare([{ userId: alan, entitlements: ["EDITOR"] }]))).rejects.toThrow(
      /its member list answered 404/,
    );
    await expect(members.delete!(id, outs!)).rejects.toThrow(/its member list answered 404/);
    expect(writes(emu)).toEqual([]);
    expect(memberIds(emu)).toEqual([ada, grace, alan, katherine].sort());
  });

  it("both (the default): the same create, update and destroy succeed", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { memberListPath: "both" } });
    await configureFor(emu, fast);
    const { id, outs } = wire(await members.create(await declare([{ userId: alan, entitlements: ["VIEWER"] }])));
    const updated = wire(await members.update!(id, outs!, await declare([{ userId: alan, entitlements: ["EDITOR"] }])));
    await configureFor(emu, fast);
    await members.delete!(id, updated.outs!);
    expect(writes(emu).map((w) => w.split(" ")[0])).toEqual(["POST", "PATCH", "DELETE"]);
    expect(memberIds(emu)).toEqual([ada, grace].sort());
  });
});
