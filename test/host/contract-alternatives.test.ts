/**
 * The resources under the other plausible answers of what the public document does not show, each played by
 * an emulator switch (docs/contract.md lists the assumptions): jobs that read `created`, `started`, `running`
 * and `retrying` before they end (`jobProgress: "varied"`), an integration user's entitlements answered as
 * plain ids (`memberEntitlements: "ids"`), and emails answered in lower case (`lowerCaseEmails`). Each runs the
 * same steps as under the emulator's defaults, with the same outcome.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type EmulatorQuirks } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as user } from "../../src/host/user/user-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const base = { integrationId: youtube, userId: alan, entitlements: ["VIEWER", "EDITOR"] };
const checkEntitlement = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
const checkUser = async (news: Record<string, unknown>) => (await user.check!({}, news)).inputs!;

const ALTERNATIVES: ReadonlyArray<[string, EmulatorQuirks]> = [
  ["the defaults", {}],
  ["jobProgress: varied", { jobProgress: "varied" }],
  ["memberEntitlements: ids", { memberEntitlements: "ids" }],
  ["both", { jobProgress: "varied", memberEntitlements: "ids" }],
];

describe("IntegrationEntitlement", () => {
  it.each(ALTERNATIVES)("%s: create, read, update and delete give the same state", async (_name, quirks) => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 4 }, quirks });
    await configureFor(emu, fast);
    const { id, outs } = wire(await entitlement.create(await checkEntitlement(base)));
    expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", pendingInvitations: [] });
    expect(
      emu.integrations
        .members(youtube)
        .find((m) => m.userId === alan)
        ?.entitlements.sort(),
    ).toEqual(["EDITOR", "VIEWER"]);

    const read = wire(await entitlement.read!(id, outs));
    expect(read.props?.entitlements).toEqual(["EDITOR", "VIEWER"]);
    expect((await entitlement.diff!(id, read.props!, await checkEntitlement(base))).changes).toBe(false);

    const { outs: updated } = wire(await entitlement.update!(id, outs!, await checkEntitlement({ ...base, entitlements: ["MANAGER"] })));
    expect(updated).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["MANAGER"]);

    await configureFor(emu, fast);
    await entitlement.delete!(id, updated!);
    expect(emu.integrations.members(youtube).some((m) => m.userId === alan)).toBe(false);
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
