/**
 * A declared role changed in the service, then `pulumi refresh`: the engine diffs what the refresh read against the inputs the
 * state holds (the program's at the first refresh, the first refresh's at the next). Each refresh is a deployment of its own,
 * which checks no program. The first shows the role drifted; the next, the service unchanged since, shows no change; the next
 * `up` of the unchanged program changes the role back. Found by the generated cases (test/host/generative/).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlementProvider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const NO_CHANGE = { changes: false, replaces: [], deleteBeforeReplace: false };
/** A read's inputs, which the engine hands `diff` and `check` as inputs (Pulumi types them as the outputs). */
const inputsOf = (read: { inputs?: unknown }) => read.inputs as Record<string, unknown>;
/** A deployment of its own: a new provider host's context. */
const deployment = (emu: Emulator) => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: () => {} });

async function setup() {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  await deployment(emu);
  return emu;
}

describe("a declared role changed in the service, then refreshed twice", () => {
  it("IntegrationEntitlement: the second refresh shows no change; the next up replaces the membership with the declared role", async () => {
    const emu = await setup();
    const program = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"], role: "account_owner" };
    const news = (await entitlementProvider.check!({}, program)).inputs!;
    const { id, outs } = wire(await entitlementProvider.create(news));
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["VIEWER"] });
    await deployment(emu);
    const first = wire(await entitlementProvider.read!(id, outs));
    // The first refresh: against the program's inputs, the role drifted.
    expect(wire(await entitlementProvider.diff!(id, first.props!, news))).toEqual({
      changes: true,
      replaces: ["role"],
      deleteBeforeReplace: true,
    });
    await deployment(emu);
    const second = wire(await entitlementProvider.read!(id, first.props!));
    expect(wire(await entitlementProvider.diff!(id, second.props!, inputsOf(first)))).toEqual(NO_CHANGE);
    // The next up: the program still declares an owner.
    await deployment(emu);
    const again = (await entitlementProvider.check!(inputsOf(first), program)).inputs!;
    expect(wire(await entitlementProvider.diff!(id, second.props!, again))).toEqual({
      changes: true,
      replaces: ["role"],
      deleteBeforeReplace: true,
    });
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => r.method)).toEqual(["POST"]);
  });

  it("IntegrationMembers: the second refresh shows no change; the next up changes the member's role back", async () => {
    const emu = await setup();
    const program = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"], role: "account_owner" }] };
    const news = (await membersProvider.check!({}, program)).inputs!;
    const { id, outs } = wire(await membersProvider.create(news));
    emu.integrations.setMember(youtube, alan, { role: "collaborator", entitlements: ["VIEWER"] });
    await deployment(emu);
    const first = wire(await membersProvider.read!(id, outs));
    expect(wire(await membersProvider.diff!(id, first.props!, news)).changes).toBe(true);
    await deployment(emu);
    const second = wire(await membersProvider.read!(id, first.props!));
    expect(wire(await membersProvider.diff!(id, second.props!, inputsOf(first)))).toEqual(NO_CHANGE);
    await deployment(emu);
    const again = (await membersProvider.check!(inputsOf(first), program)).inputs!;
    expect(wire(await membersProvider.diff!(id, second.props!, again))).toEqual({
      changes: true,
      replaces: [],
      deleteBeforeReplace: false,
    });
    emu.clearRequests();
    wire(await membersProvider.update!(id, second.props!, again));
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)).toMatchObject({ role: "owner" });
  });
});
