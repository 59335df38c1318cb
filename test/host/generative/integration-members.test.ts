/**
 * `IntegrationMembers`, generated: a member set declared with ids in any case (a member declared upper case while the
 * service lists them lower case, or the other way), members and sets in any order with repeats, roles left out or declared
 * as held, `removeUnmanaged` left out, `null` or false, beside members the program does not declare: no change after a create,
 * a refresh and an update; a set, a member or the integration changed is a change, and only the integration replaces.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, EmulatorQuirks, MemberRole } from "../../../src/emulator";
import type { IntegrationMembersOutputs } from "../../../src/host/members/integration-members-provider";
import { provider } from "../../../src/host/members/integration-members-provider";
import type { Props } from "../../../src/shared/inputs";
import { emulator } from "../../support/fixtures";
import { configureFor, wire } from "../../support/provider";
import { engine, forCases, leaveOut, type Rng, shown, undefinedPaths, checkedBy } from "./gen";

const CASES = 30;
const CATALOGUE = ["VIEWER", "EDITOR", "ADMIN", "billing", "ops.read", "team:lead"];
const ROLE: Record<MemberRole, string> = { owner: "account_owner", collaborator: "account_collaborator" };
const NO_CHANGE = { changes: false, replaces: [], deleteBeforeReplace: false };

/** What the engine hands `create` or `diff` for `program`: `check`'s inputs, as JSON. */
const checked = (program: Props) => checkedBy(provider, program);

async function expectDiff(olds: Props, news: Props, expected: Props, what: Record<string, unknown>) {
  const diff = wire(await provider.diff!(String(olds.integrationId), olds as unknown as IntegrationMembersOutputs, news));
  expect(diff, shown({ ...what, olds, news })).toEqual(expected);
}

/** A state as the engine hands it back. */
const state = (value: unknown) => engine(value) as unknown as IntegrationMembersOutputs;

const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.toLowerCase()}`);

interface Declared {
  userId: string;
  set: string[];
  /** The role declared, or undefined: left out. */
  role?: string;
}

/** A deployment of its own (a `pulumi refresh`, the next `up`): a new context, as a new provider host has. */
const deployment = (emu: Emulator) => configureFor(emu, { "workspace-access:jobTimeoutSeconds": "30" }, { info: () => {}, warn: () => {} });

/** The program's inputs for `declared`: members shuffled, each id in any case, each set shuffled with repeats. */
function programOf(rng: Rng, integrationId: string, declared: readonly Declared[]): Props {
  const members = rng.shuffle(declared).map((d) => ({
    userId: rng.caseOf(d.userId),
    entitlements: rng.setOf(d.set),
    ...(d.role === undefined ? {} : { role: d.role }),
  }));
  let program: Props = { integrationId: rng.caseOf(integrationId), members, removeUnmanaged: false };
  if (rng.bool()) program = leaveOut(rng, program, "removeUnmanaged");
  // The destroy opt-in not set: false, left out or null are one.
  if (rng.bool()) program = rng.bool() ? { ...program, deleteOnDestroy: false } : leaveOut(rng, program, "deleteOnDestroy");
  return program;
}

/** An integration with some members (an owner among them), and a program declaring some of them and some newcomers. */
async function made(rng: Rng) {
  const quirks: EmulatorQuirks = { upperCaseIds: rng.bool(), memberEntitlements: rng.pick(["records", "ids"] as const) };
  const users = Array.from({ length: rng.int(3, 7) }, () => ({
    id: rng.uuid(),
    email: rng.email(),
    firstName: rng.name(),
    lastName: rng.name(),
  }));
  const integrationId = rng.uuid();
  const otherId = rng.uuid();
  const members = rng.subset(users).map((u, i) => ({
    userId: rng.caseOf(u.id),
    role: (i === 0 ? "owner" : rng.pick(["owner", "collaborator"])) as MemberRole,
    entitlements: rng.subset(CATALOGUE),
  }));
  const emu = await emulator({
    seed: {
      users: users.map((u) => ({ ...u, id: rng.caseOf(u.id) })),
      integrations: [
        { id: rng.caseOf(integrationId), application: "App", entitlements: CATALOGUE.map((id) => ({ id })), users: members },
        { id: otherId, application: "Other", entitlements: CATALOGUE.map((id) => ({ id })) },
      ],
    },
    job: { finishAfterPolls: rng.int(0, 2) },
    quirks,
  });
  await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "30" }, { info: () => {}, warn: () => {} });
  const memberOf = new Map(members.map((m) => [m.userId.toLowerCase(), m]));
  // Declared: members taken over (as held, or with another set), and newcomers invited.
  const declared: Declared[] = rng.subset(users, 0).map((u) => {
    const held = memberOf.get(u.id);
    const set = held && rng.bool(0.7) ? held.entitlements : rng.subset(CATALOGUE);
    const role = rng.bool() ? undefined : held ? ROLE[held.role] : rng.pick(Object.values(ROLE));
    return { userId: u.id, set, ...(role === undefined ? {} : { role }) };
  });
  const program = programOf(rng, integrationId, declared);
  // Now and then an import, naming the integration in any case: the same create.
  if (rng.bool(0.3)) program.__importId = rng.caseOf(integrationId);
  const { id, outs } = wire(await provider.create(await checked(program)));
  const what = { quirks, members, program };
  expect(id.toLowerCase(), shown(what)).toBe(integrationId);
  expect(undefinedPaths(outs)).toEqual([]);
  return { emu, quirks, users, integrationId, otherId, members, declared, program, id, outs: engine(outs), what };
}

describe("IntegrationMembers, generated", () => {
  it("a create, then inputs equivalent to the program's, diff as no change", async () => {
    await forCases("members create", CASES, async (rng) => {
      const m = await made(rng);
      await expectDiff(m.outs, await checked(m.program), NO_CHANGE, m.what);
      const again = programOf(rng, m.integrationId, m.declared);
      await expectDiff(m.outs, await checked(again), NO_CHANGE, { ...m.what, again });
    });
  });

  it("a refresh of unchanged members hands back inputs and outputs that diff as no change, from the program's inputs too", async () => {
    await forCases("members refresh", CASES, async (rng) => {
      const m = await made(rng);
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
      await expectDiff(props, await checked(programOf(rng, m.integrationId, m.declared)), NO_CHANGE, what);
      const second = wire(await provider.read!(String(read.id), state(props)));
      expect(engine(second), shown(what)).toEqual(engine(read));
    });
  });

  it("a member's set changed in the service: the refresh's own inputs diff as no change, the program's as a change in place", async () => {
    await forCases("members drift", CASES, async (rng) => {
      const m = await made(rng);
      if (m.declared.length === 0) return;
      const target = rng.pick(m.declared);
      const held = m.emu.integrations.members(m.integrationId).find((s) => s.userId === target.userId)!;
      let set = held.entitlements;
      while ([...new Set(set)].sort().join() === [...new Set(held.entitlements)].sort().join()) set = rng.subset(CATALOGUE);
      m.emu.integrations.setMember(m.integrationId, target.userId, { role: held.role, entitlements: rng.setOf(set) });
      const read = wire(await provider.read!(m.id, state(m.outs)));
      const props = engine(read.props);
      const what = { ...m.what, target, set, read };
      await expectDiff(props, engine(read.inputs), NO_CHANGE, what);
      await expectDiff(props, await checked(m.program), { changes: true, replaces: [], deleteBeforeReplace: false }, what);
    });
  });

  it("a declared member's role changed in the service: the refresh's own inputs diff as no change", async () => {
    await forCases("members role drift", CASES, async (rng) => {
      const m = await made(rng);
      const declared = m.declared.filter((d) => d.role !== undefined);
      if (declared.length === 0) return;
      const target = rng.pick(declared);
      const held = m.emu.integrations.members(m.integrationId).find((s) => s.userId === target.userId)!;
      m.emu.integrations.setMember(m.integrationId, target.userId, {
        role: held.role === "owner" ? "collaborator" : "owner",
        entitlements: held.entitlements,
      });
      // `pulumi refresh` is a deployment of its own, which checks no program: the engine diffs the read against the state's inputs.
      await deployment(m.emu);
      const read = wire(await provider.read!(m.id, state(m.outs)));
      const props = engine(read.props);
      const what = { ...m.what, target, read };
      await expectDiff(props, engine(read.inputs), NO_CHANGE, what);
      // The next refresh of the members, unchanged since, against the inputs the first one recorded.
      await deployment(m.emu);
      const second = wire(await provider.read!(m.id, state(props)));
      await expectDiff(engine(second.props), engine(read.inputs), NO_CHANGE, { ...what, second });
      // The next up, the program unchanged: the declared role differs from the service's, a change (a removal and an invitation).
      await expectDiff(props, await checked(m.program), { changes: true, replaces: [], deleteBeforeReplace: false }, what);
    });
  });

  it("a set changed, a member added, or another integration: a change, a replacement only for the integration", async () => {
    await forCases("members change", CASES, async (rng) => {
      const m = await made(rng);
      const newcomers = m.users.filter((u) => !m.declared.some((d) => d.userId === u.id));
      const kind = rng.pick(["entitlements", "member", "integrationId", "role"] as const);
      if (kind === "entitlements" && m.declared.length === 0) return;
      if (kind === "member" && newcomers.length === 0) return;
      // A declared role changed: the member removed and invited again, never the last owner (refused: a case of its own).
      const present = m.emu.integrations.members(m.integrationId);
      const owners = present.filter((s) => s.role === "owner").map((s) => s.userId);
      const flippable = m.declared.filter((d) => d.role !== undefined && !(d.role === "account_owner" && owners.length === 1));
      if (kind === "role" && flippable.length === 0) return;
      let declared = m.declared;
      let integrationId = m.integrationId;
      if (kind === "entitlements") {
        const i = rng.int(0, declared.length - 1);
        let set = rng.subset(CATALOGUE);
        while (set.join() === declared[i]!.set.join()) set = rng.subset(CATALOGUE);
        declared = declared.map((d, j) => (j === i ? { ...d, set } : d));
      }
      if (kind === "member") declared = [...declared, { userId: rng.pick(newcomers).id, set: rng.subset(CATALOGUE) }];
      if (kind === "integrationId") integrationId = m.otherId;
      if (kind === "role") {
        const target = rng.pick(flippable);
        const role = target.role === "account_owner" ? "account_collaborator" : "account_owner";
        declared = declared.map((d) => (d === target ? { ...d, role } : d));
      }
      const program = programOf(rng, integrationId, declared);
      const news = await checked(program);
      const what = { ...m.what, kind, changed: program };
      await expectDiff(
        m.outs,
        news,
        { changes: true, replaces: kind === "integrationId" ? ["integrationId"] : [], deleteBeforeReplace: false },
        what,
      );
      if (kind === "integrationId") return;
      m.emu.clearRequests();
      const { outs } = wire(await provider.update!(m.id, state(m.outs), news));
      // The service holds every declared member with the declared set (a newcomer who was a member already may need no write).
      const held = new Map(m.emu.integrations.members(m.integrationId).map((s) => [s.userId, [...new Set(s.entitlements)].sort()]));
      for (const d of declared) expect(held.get(d.userId), shown({ ...what, writes: writes(m.emu) })).toEqual([...new Set(d.set)].sort());
      const roles = new Map(m.emu.integrations.members(m.integrationId).map((s) => [s.userId, `account_${s.role}`]));
      for (const d of declared.filter((d) => d.role !== undefined)) expect(roles.get(d.userId), shown(what)).toBe(d.role);
      await expectDiff(engine(outs), news, NO_CHANGE, what);
      const read = wire(await provider.read!(m.id, state(outs)));
      await expectDiff(engine(read.props), news, NO_CHANGE, { ...what, read });
      await expectDiff(engine(read.props), engine(read.inputs), NO_CHANGE, { ...what, read });
    });
  });
});
