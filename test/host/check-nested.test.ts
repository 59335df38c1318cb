/**
 * `check` of the properties inside a list or a map (a member of an `IntegrationMembers`, a user of a `WorkspaceUsers`): as the
 * inputs' own properties, a value given as `undefined` or `null` (a program's JSON or YAML config) is not set, and no `undefined`
 * comes back in the result (the host cannot encode one). Found by the generated cases (test/host/generative/check.test.ts).
 */
import { describe, expect, it } from "vitest";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { provider as usersProvider } from "../../src/host/users/workspace-users-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { UNKNOWN } from "../../src/shared/unknown";

const INTEGRATION = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
const A = "00000000-0000-4000-8000-00000000000a";

describe("check: a property inside a member or a set's user given as undefined", () => {
  it("an IntegrationMembers whose check fails returns no undefined, and names the failure, with no request", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const result = wire(
      await membersProvider.check!({}, { integrationId: INTEGRATION, members: [{ userId: A, entitlements: [], role: undefined }] }),
    );
    expect(result.failures?.map((f) => f.property)).toEqual(["members[0].entitlements"]);
    expect(result.inputs).toEqual({ integrationId: INTEGRATION, members: [{ userId: A, entitlements: [] }] });
    expect(emu.requests).toEqual([]);
  });

  it("a WorkspaceUsers whose check fails returns no undefined, and names the failure, with no request", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const users = { "ann@example.com": { email: "ann@example.com", firstName: "", lastName: "Lee", role: undefined } };
    const result = wire(await usersProvider.check!({}, { users }));
    expect(result.failures?.map((f) => f.property)).toEqual(['users["ann@example.com"].firstName']);
    expect(result.inputs).toEqual({ users: { "ann@example.com": { email: "ann@example.com", firstName: "", lastName: "Lee" } } });
    expect(emu.requests).toEqual([]);
  });
});

describe("check: a property inside a member or a set's user given as null is not set, as one left out", () => {
  it("an IntegrationMembers member's role: no failure, the role left out (the service's kept); the catalogue read as for any new set", async () => {
    const emu = await emulator({
      seed: { integrations: [{ id: INTEGRATION, application: "App", entitlements: [{ id: "VIEWER" }] }] },
    });
    await configureFor(emu);
    const result = wire(
      await membersProvider.check!({}, { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"], role: null }] }),
    );
    expect(result).toEqual({
      inputs: { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }], removeUnmanaged: false },
      failures: [],
    });
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${INTEGRATION}/entitlements`]);
  });

  it("a WorkspaceUsers user's role and isGuest: no failure, both left out (the service's kept), with no request", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const users = { "ann@example.com": { email: "Ann@example.com", firstName: "Ann", lastName: "Lee", role: null, isGuest: null } };
    const result = wire(await usersProvider.check!({}, { users }));
    expect(result).toEqual({
      inputs: { users: { "ann@example.com": { email: "Ann@example.com", firstName: "Ann", lastName: "Lee" } } },
      failures: [],
    });
    expect(emu.requests).toEqual([]);
  });
});

describe("check: a user listed twice in an IntegrationMembers is named beside the other members' failures", () => {
  const B = "00000000-0000-4000-8000-00000000000b";
  it.each([
    ["another member's entitlements not known yet (a preview)", UNKNOWN, ["members[2].userId"]],
    ["another member's entitlements not a list", "VIEWER", ["members[0].entitlements", "members[2].userId"]],
  ])("%s", async (_what, entitlements, properties) => {
    const emu = await emulator();
    await configureFor(emu);
    const members = [
      { userId: B, entitlements },
      { userId: A, entitlements: ["VIEWER"] },
      { userId: A.toUpperCase(), entitlements: ["VIEWER"] },
    ];
    const result = wire(await membersProvider.check!({}, { integrationId: INTEGRATION, members }));
    expect(result.failures?.map((f) => f.property)).toEqual(properties);
    expect(result.failures?.at(-1)?.reason).toContain("is listed twice (also members[1])");
    expect(emu.requests).toEqual([]);
  });
});
