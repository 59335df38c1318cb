/**
 * `IntegrationEntitlement`, generated: inputs equivalent to a membership (the integration's and the user's ids in any case,
 * the set shuffled and repeated, `role` left out, `null`, or declared as the service holds it) diff as no change after an
 * invitation, an adoption, a refresh and an update; one real change is reported as exactly its kind: a set changes in
 * place, a role, a user or an integration replaces, and only a role deletes first.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, EmulatorQuirks, MemberRole } from "../../../src/emulator";
import type { IntegrationEntitlementOutputs } from "../../../src/host/entitlement/integration-entitlement-provider";
import { provider } from "../../../src/host/entitlement/integration-entitlement-provider";
import type { Props } from "../../../src/shared/inputs";
import { emulator } from "../../support/fixtures";
import { configureFor, wire } from "../../support/provider";
import { engine, forCases, leaveOut, type Rng, shown, undefinedPaths, checkedBy } from "./gen";

const CASES = 40;
/** A catalogue with ids of every shape an entitlement id may take. */
const CATALOGUE = ["VIEWER", "EDITOR", "ADMIN", "billing", "ops.read", "team:lead", "a@b+c", "_x-1"];
const ROLE: Record<MemberRole, string> = { owner: "account_owner", collaborator: "account_collaborator" };

/** What the engine hands `create` or `diff` for `program`: `check`'s inputs, as JSON. */
const checked = (program: Props) => checkedBy(provider, program);

async function expectDiff(olds: Props, news: Props, expected: Props, what: Record<string, unknown>) {
  const id = `${String(olds.integrationId)}/${String(olds.userId)}`;
  const diff = wire(await provider.diff!(id, olds as unknown as IntegrationEntitlementOutputs, news));
  expect(diff, shown({ ...what, olds, news })).toEqual(expected);
}
const NO_CHANGE = { changes: false, replaces: [], deleteBeforeReplace: false };

/** A state as the engine hands it back. */
const state = (value: unknown) => engine(value) as unknown as IntegrationEntitlementOutputs;

const writes = (emu: Emulator) =>
  emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.replace(/\/[0-9a-f-]{36}/gi, (p) => p.toLowerCase())}`);

/** A world of a few users and one integration whose catalogue is {@link CATALOGUE}; ids answered in the case the case picks. */
async function world(rng: Rng) {
  const quirks: EmulatorQuirks = {
    upperCaseIds: rng.bool(),
    memberEntitlements: rng.pick(["records", "ids"] as const),
    lowerCaseEmails: rng.bool(0.3),
  };
  const users = Array.from({ length: rng.int(2, 4) }, () => ({
    id: rng.uuid(),
    email: rng.email(),
    firstName: rng.name(),
    lastName: rng.name(),
  }));
  const integration = { id: rng.uuid(), application: "App", entitlements: CATALOGUE.map((id) => ({ id })) };
  const other = { id: rng.uuid(), application: "Other", entitlements: CATALOGUE.map((id) => ({ id })) };
  // Seeds name ids in any case: the emulator keeps them in lower case, as the service may not.
  const emu = await emulator({
    seed: {
      users: users.map((u) => ({ ...u, id: rng.caseOf(u.id) })),
      integrations: [
        { ...integration, id: rng.caseOf(integration.id) },
        { ...other, id: rng.caseOf(other.id) },
      ],
    },
    job: { finishAfterPolls: rng.int(0, 2) },
    quirks,
  });
  await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "30" }, { info: () => {}, warn: () => {} });
  return { emu, quirks, users, integrationId: integration.id, otherIntegrationId: other.id };
}

/** A deployment of its own (a `pulumi refresh`, the next `up`): a new context, as a new provider host has. */
const deployment = (emu: Emulator) => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "30" }, { info: () => {}, warn: () => {} });

/** The program's inputs for a membership of `set` and `role` (undefined: left out), ids and set written another way each time. */
function programOf(rng: Rng, integrationId: string, userId: string, set: string[], role: string | undefined, adoptExisting: boolean) {
  let program: Props = {
    integrationId: rng.caseOf(integrationId),
    userId: rng.caseOf(userId),
    entitlements: rng.setOf(set),
    role,
    adoptExisting,
  };
  if (role === undefined) program = leaveOut(rng, program, "role");
  if (!adoptExisting && rng.bool()) program = leaveOut(rng, program, "adoptExisting");
  // The destroy opt-in not set: false, left out or null are one.
  if (rng.bool()) program = rng.bool() ? { ...program, deleteOnDestroy: false } : leaveOut(rng, program, "deleteOnDestroy");
  return program;
}

/** A membership made by an invitation or taken over by an adoption, as a case picks. */
async function made(rng: Rng) {
  const w = await world(rng);
  const user = rng.pick(w.users);
  const adopt = rng.bool();
  // An adopted member may hold an id the integration no longer offers (retired since): declared, it only warns while they hold it.
  const set = [...rng.subset(CATALOGUE), ...(adopt && rng.bool(0.3) ? ["RETIRED"] : [])];
  const memberRole = rng.pick(["owner", "collaborator"] as const);
  if (adopt) w.emu.integrations.setMember(w.integrationId, user.id, { role: memberRole, entitlements: rng.setOf(set) });
  // Left out, or declared as the service holds it (an invitation: as it is invited).
  const role = rng.bool() ? undefined : adopt ? ROLE[memberRole] : rng.pick(Object.values(ROLE));
  const program = programOf(rng, w.integrationId, user.id, set, role, adopt);
  const { id, outs } = wire(await provider.create(await checked(program)));
  const what = { quirks: w.quirks, adopt, memberRole, program };
  // An adoption of what is held already writes nothing; an invitation is one POST.
  expect(writes(w.emu), shown(what)).toEqual(adopt ? [] : [`POST /integrations/${w.integrationId}/users`]);
  expect(id, shown(what)).toBe(`${w.integrationId}/${user.id}`);
  return { ...w, user, set, role, program, id, outs: engine(outs), what };
}

/**
 * `program` checked, where its member (`program`'s user in its integration, in `emu` now) holds every id it declares that the
 * integration no longer offers (`RETIRED`): the catalogue lets such an id through only while the member holds it. Otherwise
 * the check must fail naming it (the up could not apply it), and the case ends there: `undefined`.
 */
async function checkedWhileHeld(emu: Emulator, program: Props, what: Record<string, unknown>): Promise<Props | undefined> {
  const declared = (program.entitlements as string[]).includes("RETIRED");
  const member = emu.integrations
    .members(String(program.integrationId).toLowerCase())
    .find((s) => s.userId.toLowerCase() === String(program.userId).toLowerCase());
  if (!declared || member?.entitlements.includes("RETIRED")) return checked(program);
  const result = await provider.check!({}, engine(program));
  expect(result.failures, shown({ ...what, program })).toEqual([
    { property: "entitlements", reason: expect.stringContaining('offers no entitlement "RETIRED"') },
  ]);
  return undefined;
}

describe("IntegrationEntitlement, generated", () => {
  it("a create (invitation or adoption), then inputs equivalent to the program's, diff as no change", async () => {
    await forCases("entitlement create", CASES, async (rng) => {
      const m = await made(rng);
      await expectDiff(m.outs, await checked(m.program), NO_CHANGE, m.what);
      const again = programOf(rng, m.integrationId, m.user.id, m.set, m.role, m.program.adoptExisting === true);
      await expectDiff(m.outs, await checked(again), NO_CHANGE, { ...m.what, again });
    });
  });

  it("an import naming the membership's ids in any case writes nothing, records them in their one form, and diffs as no change", async () => {
    await forCases("entitlement import", CASES, async (rng) => {
      const w = await world(rng);
      const user = rng.pick(w.users);
      const set = rng.subset(CATALOGUE);
      const memberRole = rng.pick(["owner", "collaborator"] as const);
      w.emu.integrations.setMember(w.integrationId, user.id, { role: memberRole, entitlements: rng.setOf(set) });
      const role = rng.bool() ? undefined : ROLE[memberRole];
      const importId = () => `${rng.caseOf(w.integrationId)}/${rng.caseOf(user.id)}`;
      const program = { ...programOf(rng, w.integrationId, user.id, set, role, false), __importId: importId() };
      const { id, outs } = wire(await provider.create(await checked(program)));
      const what = { quirks: w.quirks, memberRole, program };
      expect(writes(w.emu), shown(what)).toEqual([]);
      expect(id, shown(what)).toBe(`${w.integrationId}/${user.id}`);
      const again = { ...programOf(rng, w.integrationId, user.id, set, role, false), __importId: importId() };
      await expectDiff(engine(outs), await checked(again), NO_CHANGE, { ...what, again });
    });
  });

  it("a refresh of an unchanged membership hands back inputs and outputs that diff as no change, from the program's inputs too", async () => {
    await forCases("entitlement refresh", CASES, async (rng) => {
      const m = await made(rng);
      // The state's id as recorded, or in another case (ids name one record in any case).
      // Now and then the service answers the member's optional fields (role, email, status) as null, or leaves them out.
      const empty = rng.pick(["none", "none", "nullFields", "absentFields"] as const);
      if (empty !== "none") m.emu.quirks[empty] = true;
      const stateId = rng.bool() ? m.id : rng.caseOf(m.id);
      const read = wire(await provider.read!(stateId, state(m.outs)));
      const what = { ...m.what, empty, stateId, read };
      expect(undefinedPaths(read)).toEqual([]);
      expect(read.id, shown(what)).toBe(stateId);
      const props = engine(read.props);
      await expectDiff(props, engine(read.inputs), NO_CHANGE, what);
      await expectDiff(props, await checked(m.program), NO_CHANGE, what);
      const again = programOf(rng, m.integrationId, m.user.id, m.set, m.role, m.program.adoptExisting === true);
      await expectDiff(props, await checked(again), NO_CHANGE, { ...what, again });
      // A second refresh reads the same.
      const second = wire(await provider.read!(String(read.id), state(props)));
      expect(engine(second), shown(what)).toEqual(engine(read));
    });
  });

  it("a set or role changed in the service: the refresh's own inputs diff as no change, the program's as exactly that change", async () => {
    await forCases("entitlement drift", CASES, async (rng) => {
      const m = await made(rng);
      const held = m.emu.integrations.members(m.integrationId).find((s) => s.userId === m.user.id)!;
      const drift = rng.pick(["entitlements", "role"] as const);
      let set = held.entitlements;
      if (drift === "entitlements")
        while ([...new Set(set)].sort().join() === [...new Set(held.entitlements)].sort().join()) set = rng.subset(CATALOGUE);
      const role = drift === "role" ? (held.role === "owner" ? "collaborator" : "owner") : held.role;
      m.emu.integrations.setMember(m.integrationId, m.user.id, { role, entitlements: rng.setOf(set) });
      // `pulumi refresh` is a deployment of its own, which checks no program: the engine diffs the read against the state's inputs.
      await deployment(m.emu);
      const read = wire(await provider.read!(m.id, state(m.outs)));
      const props = engine(read.props);
      const what = { ...m.what, drift, set, role, read };
      await expectDiff(props, engine(read.inputs), NO_CHANGE, what);
      // The next refresh of the record, unchanged since, against the inputs the first one recorded.
      await deployment(m.emu);
      const second = wire(await provider.read!(m.id, state(props)));
      await expectDiff(engine(second.props), engine(read.inputs), NO_CHANGE, { ...what, second });
      // The next up: the program's inputs.
      if (drift === "role" && m.role !== undefined && m.what.adopt) {
        // Documented: an adopted membership's role never changes by a replacement (it would remove the member).
        await expect(provider.diff!(m.id, state(props), await checked(m.program))).rejects.toThrow(/^role: .* cannot change from/);
        return;
      }
      // A role the program leaves out is the service's: no change. A declared one replaces, deleting first.
      const expected =
        drift === "entitlements"
          ? { changes: true, replaces: [], deleteBeforeReplace: false }
          : m.role === undefined
            ? NO_CHANGE
            : { changes: true, replaces: ["role"], deleteBeforeReplace: true };
      // A drift that took the retired id away: the program declaring it is refused at preview (it could not be applied).
      const news = await checkedWhileHeld(m.emu, m.program, what);
      if (news) await expectDiff(props, news, expected, what);
    });
  });

  it("one real change is reported with exactly its kind: a set in place, a user, an integration or a role by replacement", async () => {
    await forCases("entitlement change", CASES, async (rng) => {
      const m = await made(rng);
      const kind = rng.pick(["entitlements", "userId", "integrationId", "role"] as const);
      const changed: Props = { ...m.program };
      if (kind === "entitlements") {
        let other = rng.subset(CATALOGUE);
        while (other.join() === m.set.join()) other = rng.subset(CATALOGUE);
        changed.entitlements = rng.setOf(other);
      }
      if (kind === "userId") changed.userId = rng.caseOf(rng.pick(m.users.filter((u) => u.id !== m.user.id)).id);
      if (kind === "integrationId") changed.integrationId = rng.caseOf(m.otherIntegrationId);
      const held = String(m.outs.role);
      if (kind === "role") changed.role = held === "account_owner" ? "account_collaborator" : "account_owner";
      const what = { ...m.what, kind, changed };
      // Another user or integration does not hold the retired id the program declares: refused at preview.
      const news = await checkedWhileHeld(m.emu, changed, what);
      if (!news) return;
      const expected =
        kind === "entitlements"
          ? { changes: true, replaces: [], deleteBeforeReplace: false }
          : { changes: true, replaces: [kind], deleteBeforeReplace: kind === "role" };
      if (kind === "role" && m.what.adopt) {
        // Documented: an adopted membership's role never changes by a replacement (it would remove the member); refused, naming role.
        await expect(provider.diff!(m.id, state(m.outs), news), shown(what)).rejects.toThrow(
          /^role: .* cannot change from account_\w+ to account_\w+ in place/,
        );
        return;
      }
      await expectDiff(m.outs, news, expected, what);
      if (kind !== "entitlements") return;
      // The set's update: one PATCH of the whole set, then no change, before and after a refresh.
      m.emu.clearRequests();
      const { outs } = wire(await provider.update!(m.id, state(m.outs), news));
      expect(writes(m.emu), shown(what)).toEqual([`PATCH /integrations/${m.integrationId}/users/${m.user.id}`]);
      const sent = m.emu.requests.find((r) => r.method === "PATCH")?.body as {
        data: { attributes: { entitlements: Array<{ id: string }> } };
      };
      expect(sent.data.attributes.entitlements.map((e) => e.id).sort(), shown(what)).toEqual(
        [...new Set(changed.entitlements as string[])].sort(),
      );
      await expectDiff(engine(outs), news, NO_CHANGE, what);
      const read = wire(await provider.read!(m.id, state(outs)));
      await expectDiff(engine(read.props), news, NO_CHANGE, { ...what, read });
      await expectDiff(engine(read.props), engine(read.inputs), NO_CHANGE, { ...what, read });
    });
  });
});
