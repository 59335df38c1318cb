/**
 * Seeded randomized invariants of the two membership resources (`IntegrationMembers`, `IntegrationEntitlement`), in
 * process against the emulator on loopback, on its virtual clock. Each seed builds a workspace (integrations with their
 * catalogues, users, memberships with random roles and sets, users no program knows), turns on a random set of the
 * answers the contract allows (`src/emulator/quirks.ts`), writes a random program, and drives it as the host would:
 * check, diff, create; an edited program's check, diff and update; a refresh and a diff after each write; a destroy,
 * each in a deployment (a context) of its own. After every step, against what the emulator holds and the requests it received:
 * 1. what the program does not declare is never removed or changed (but the unmanaged members `removeUnmanaged` removes);
 * 2. after a write, every declared member holds exactly the declared set, and the declared role where declared;
 * 3. a refresh right after a write, then a diff against the same inputs, shows no change;
 * 4. a destroy removes only what the resource made (adopted members with `deleteOnDestroy` alone, never undeclared owners
 *    without it);
 * 5. no value returned to the host holds `undefined`;
 * 6. no removal takes an integration's last owner, and one is refused only where it would: owners removed together, by
 *    `IntegrationEntitlement`s and an `IntegrationMembers` beside them in one integration: the removal asking last is refused.
 * The seeds are fixed, and the generator is a small PRNG: a failure names its seed, which replays it exactly.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, EmulatorQuirks, EmulatorSeed, MemberRole } from "../../src/emulator";
import type { IntegrationEntitlementOutputs } from "../../src/host/entitlement/entitlement-state";
import { provider as entitlementProvider } from "../../src/host/entitlement/integration-entitlement-provider";
import type { IntegrationMembersOutputs } from "../../src/host/members/integration-members-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { mulberry32 } from "../support/mulberry32";

/** mulberry32: a tiny deterministic PRNG, enough to pick and shuffle. */
function prng(seed: number) {
  const next = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const chance = (p: number) => next() < p;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const shuffle = <T>(list: readonly T[]): T[] => {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  /** A non-empty subset, in random order (a duplicate now and then: the inputs take a set). */
  const subset = (list: readonly string[]): string[] => {
    const chosen = shuffle(list).slice(0, int(1, list.length));
    return chance(0.15) ? [...chosen, chosen[0]!] : chosen;
  };
  return { next, int, chance, pick, shuffle, subset };
}
type Rng = ReturnType<typeof prng>;

const CATALOGUE = ["VIEWER", "EDITOR", "MANAGER", "ADMIN", "BILLING", "AUDITOR"];
type Role = "account_owner" | "account_collaborator";
const roleOf = (role: MemberRole): Role => (role === "owner" ? "account_owner" : "account_collaborator");
const other = (role: Role): Role => (role === "account_owner" ? "account_collaborator" : "account_owner");
const uuid = (prefix: number, n: number) => `${prefix.toString(16).padStart(8, "0")}-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

interface Workspace {
  seed: EmulatorSeed;
  integrations: Array<{ id: string; catalogue: string[] }>;
  /** The users a program may declare (fillers aside). */
  users: string[];
}

/** Integrations with catalogues, 5 to 40 users, memberships with random roles (owners among them) and sets; now and then 100 more members, for a second page. */
function workspace(rng: Rng, seedNo: number): Workspace {
  const count = rng.int(5, 40);
  const users = Array.from({ length: count }, (_, i) => uuid(0xa0000000 + seedNo, i + 1));
  const fillers = rng.chance(0.3) ? Array.from({ length: rng.int(95, 130) }, (_, i) => uuid(0xf0000000 + seedNo, i + 1)) : [];
  const seedUsers = [...users, ...fillers].map((id, i) => ({
    id,
    email: `${rng.chance(0.2) ? "Mixed.Case" : "user"}${i}@example.com`,
    firstName: rng.chance(0.2) ? null : `First${i}`,
    lastName: rng.chance(0.2) ? null : `Last${i}`,
    status: rng.pick(["live", "pending", "disabled"] as const),
  }));
  const integrations = Array.from({ length: rng.int(1, 3) }, (_, i) => ({
    id: uuid(0xb0000000 + seedNo, i + 1),
    catalogue: rng.shuffle(CATALOGUE).slice(0, rng.int(2, CATALOGUE.length)),
  }));
  return {
    users,
    integrations,
    seed: {
      users: seedUsers,
      integrations: integrations.map(({ id, catalogue }, i) => ({
        id,
        application: `App${i}`,
        entitlements: catalogue.map((e) => ({ id: e })),
        users: [
          ...users
            .filter(() => rng.chance(0.45))
            .map((userId) => ({
              userId,
              role: rng.chance(0.2) ? ("owner" as const) : ("collaborator" as const),
              entitlements: rng.subset(catalogue),
            })),
          ...(i === 0 ? fillers.map((userId) => ({ userId, entitlements: [catalogue[0]!] })) : []),
        ],
      })),
    },
  };
}

/** A random subset of the answers the contract allows. */
function quirks(rng: Rng): EmulatorQuirks {
  const q: EmulatorQuirks = {};
  if (rng.chance(0.5)) q.shiftPages = rng.pick(["remove", "insert"] as const);
  if (rng.chance(0.4)) q.repeatRecords = true;
  if (rng.chance(0.6)) q.inviteExisting = rng.pick(["conflict", "merge", "fail"] as const);
  if (rng.chance(0.4)) q.upperCaseIds = true;
  if (rng.chance(0.3)) q.noContent = true;
  if (rng.chance(0.4)) q.nullFields = true;
  if (rng.chance(0.2)) q.absentFields = true;
  if (rng.chance(0.4)) q.jobProgress = "varied";
  if (rng.chance(0.4)) q.memberEntitlements = "ids";
  if (rng.chance(0.3)) q.integrationWriteAnswer = rng.pick(["job", "no-content", "empty-ok", "no-data"] as const);
  if (rng.chance(0.2)) q.errorStatus = "string";
  if (rng.chance(0.2)) q.lowerCaseEmails = true;
  return q;
}

/** What the emulator holds: integration → user → role and set (sorted, in upper case). */
type Held = Map<string, Map<string, { role: Role; entitlements: string[] }>>;
const setOf = (ids: readonly string[]) => [...new Set(ids.map((e) => e.toUpperCase()))].sort();
function held(emu: Emulator): Held {
  return new Map(
    emu.integrations
      .list()
      .map((i) => [
        i.id,
        new Map(emu.integrations.members(i.id).map((m) => [m.userId, { role: roleOf(m.role), entitlements: setOf(m.entitlements) }])),
      ]),
  );
}

/** The writes the emulator received since the last clear: each (method, integration, users). */
function writesOf(emu: Emulator): Array<{ method: string; integrationId: string; userIds: string[] }> {
  return emu.requests
    .filter((r) => r.method !== "GET")
    .map((r) => {
      const [, , integrationId = "", , userId] = r.path.toLowerCase().split("/");
      const body = r.body as { data?: { attributes?: { userIds?: string[] } } } | undefined;
      const userIds = userId ? [userId] : (body?.data?.attributes?.userIds ?? []).map((id) => id.toLowerCase());
      return { method: r.method, integrationId, userIds };
    });
}

/** The requests of a step, for the notes a run prints (INVARIANT_NOTES=1): writes by method, and pages after the first. */
function summary(emu: Emulator): string {
  const count = (f: (r: Emulator["requests"][number]) => boolean) => emu.requests.filter(f).length;
  return (
    ["POST", "PATCH", "DELETE"].map((m) => `${m} ${count((r) => r.method === m)}`).join(", ") +
    `, pages ≥ 2: ${count((r) => r.method === "GET" && Number(r.query["page[number]"] ?? 1) > 1)}`
  );
}

/** Which users a step may touch, and how: everyone else, in every integration, must hold exactly what they held. */
interface Allowed {
  integrationId: string;
  /** May be removed. */
  remove: ReadonlySet<string>;
  /** May be invited (confirmed absent before the step) or have their set replaced. */
  write: ReadonlySet<string>;
}

/** Invariant 1 (and 4 for a destroy): only what `allowed` names changed, and only what it names was written to. */
function expectOnlyAllowed(label: string, before: Held, after: Held, emu: Emulator, allowed: readonly Allowed[]) {
  const rule = (integrationId: string) => allowed.find((a) => a.integrationId === integrationId);
  for (const w of writesOf(emu)) {
    const a = rule(w.integrationId);
    for (const userId of w.userIds) {
      const ok = w.method === "DELETE" ? a?.remove.has(userId) : a?.write.has(userId);
      expect(ok, `${label}: ${w.method} of user ${userId} in integration ${w.integrationId} was not the program's to make`).toBe(true);
      // An invitation only of someone confirmed absent: inviting a member is undocumented (409, merge, or failure).
      // (A role change removes the member first.)
      if (w.method === "POST" && !a?.remove.has(userId)) {
        expect(before.get(w.integrationId)?.has(userId), `${label}: invited ${userId}, a member already`).toBe(false);
      }
    }
  }
  for (const [integrationId, members] of before) {
    const a = rule(integrationId);
    const now = after.get(integrationId)!;
    for (const [userId, was] of members) {
      if (a?.write.has(userId)) continue;
      if (a?.remove.has(userId) && !now.has(userId)) continue;
      expect(now.get(userId), `${label}: user ${userId} of integration ${integrationId} changed`).toEqual(was);
    }
    for (const userId of now.keys()) {
      if (!members.has(userId)) expect(a?.write.has(userId), `${label}: user ${userId} joined ${integrationId} unasked`).toBe(true);
    }
  }
}

/** What each step's outcome is: the result, or the error (with the partial state the host records, if any). */
async function outcome<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: Error & { properties?: unknown } }> {
  try {
    const value = await promise;
    // A delete returns nothing: only a value returned is the host's to serialize.
    return { ok: true, value: value === undefined ? value : wire(value) };
  } catch (error) {
    const e = error as Error & { properties?: unknown };
    if (e.properties !== undefined) wire(e.properties);
    return { ok: false, error: e };
  }
}

const FAST = { "workspace-access:jobTimeoutSeconds": "60" };
const deployment = (emu: Emulator, warnings: string[]) =>
  configureFor(emu, FAST, { warn: (m) => void warnings.push(m), info: () => undefined });

// ---------------------------------------------------------------------------------------------------------------------
// IntegrationMembers

interface Declared {
  userId: string;
  entitlements: string[];
  role?: Role;
}
interface MembersProgram {
  integrationId: string;
  members: Declared[];
  removeUnmanaged: boolean;
  deleteOnDestroy?: boolean;
}
const newsOf = (p: MembersProgram) => ({
  integrationId: p.integrationId,
  members: p.members.map((m) => ({ ...m })),
  removeUnmanaged: p.removeUnmanaged,
  ...(p.deleteOnDestroy === undefined ? {} : { deleteOnDestroy: p.deleteOnDestroy }),
  __provider: "p",
});

/** A declared member for `userId`: a random set; a role left out, the one held, or (new members) any. */
function declare(rng: Rng, userId: string, catalogue: string[], current: Role | undefined): Declared {
  const entitlements = rng.subset(catalogue);
  const role =
    current !== undefined
      ? rng.chance(0.45)
        ? current
        : undefined
      : rng.chance(0.4)
        ? rng.pick(["account_owner", "account_collaborator"] as const)
        : undefined;
  // Ids in upper case now and then: the inputs take one form.
  return { userId: rng.chance(0.2) ? userId.toUpperCase() : userId, entitlements, ...(role ? { role } : {}) };
}
const key = (id: string) => id.toLowerCase();

/** Invariant 2: each declared member holds exactly the declared set, and the declared role where declared. */
function expectDeclaredHeld(label: string, now: Map<string, { role: Role; entitlements: string[] }>, declared: readonly Declared[]) {
  for (const m of declared) {
    const h = now.get(key(m.userId));
    expect(h, `${label}: declared member ${m.userId} is not a member`).toBeDefined();
    expect(h!.entitlements, `${label}: set of ${m.userId}`).toEqual(setOf(m.entitlements));
    if (m.role) expect(h!.role, `${label}: role of ${m.userId}`).toBe(m.role);
  }
}

/**
 * Someone else acts in the service between two deployments, on what the program leaves to the service: a managed member whose
 * role the program leaves out made an owner; someone added (an owner now and then); an unmanaged member's set changed, or removed.
 */
function someoneElse(
  rng: Rng,
  emu: Emulator,
  integrationId: string,
  catalogue: string[],
  state: IntegrationMembersOutputs,
  program: MembersProgram,
  others: string[],
) {
  const now = held(emu).get(integrationId)!;
  const declared = new Map(program.members.map((m) => [key(m.userId), m]));
  const managed = state.members.map((m) => key(m.userId)).filter((id) => now.has(id) && !declared.get(id)?.role);
  const unmanaged = [...now.keys()].filter((id) => !declared.has(id) && !managed.includes(id));
  const edits: string[] = [];
  if (managed.length > 0 && rng.chance(0.35)) {
    const id = rng.pick(managed);
    emu.integrations.setMember(integrationId, id, { role: "owner", entitlements: now.get(id)!.entitlements });
    edits.push(`made ${id} an owner`);
  }
  const outsiders = others.filter((id) => !now.has(id) && !declared.has(id));
  if (outsiders.length > 0 && rng.chance(0.35)) {
    const id = rng.pick(outsiders);
    emu.integrations.setMember(integrationId, id, {
      role: rng.chance(0.3) ? "owner" : "collaborator",
      entitlements: rng.subset(catalogue),
    });
    edits.push(`added ${id}`);
  }
  if (unmanaged.length > 0 && rng.chance(0.35)) {
    const id = rng.pick(unmanaged);
    emu.integrations.setMember(integrationId, id, { entitlements: rng.subset(catalogue) });
    edits.push(`changed the set of ${id}`);
  }
  if (unmanaged.length > 0 && rng.chance(0.2)) {
    const id = rng.pick(unmanaged);
    if (now.get(id)!.role !== "account_owner") {
      emu.integrations.removeMember(integrationId, id);
      edits.push(`removed ${id}`);
    }
  }
  return edits;
}

/** Invariant 1, owners: every owner before a step that the program does not declare one (`declaredOwners`) is an owner after it. */
function expectOwnersKept(
  label: string,
  before: Map<string, { role: Role }>,
  after: Map<string, { role: Role }>,
  declaredOwners: ReadonlySet<string>,
) {
  for (const [id, m] of before) {
    if (m.role !== "account_owner" || declaredOwners.has(id)) continue;
    expect(after.get(id)?.role, `${label}: owner ${id}, not declared one, removed or demoted`).toBe("account_owner");
  }
}

/** Every integration that had an owner `before` has one `after`: no removal takes the last. */
function expectAnOwnerStays(label: string, before: Held, after: Held): void {
  const owned = (members: ReadonlyMap<string, { role: Role }> | undefined) =>
    [...(members?.values() ?? [])].some((m) => m.role === "account_owner");
  for (const [integrationId, members] of before)
    if (owned(members)) expect(owned(after.get(integrationId)), `${label}: integration ${integrationId} keeps an owner`).toBe(true);
}

/** Whether removing `removed` leaves no owner where there was one: the plan refuses it. */
function leavesNoOwner(now: Map<string, { role: Role }>, removed: ReadonlySet<string>): boolean {
  const owners = [...now].filter(([, m]) => m.role === "account_owner").map(([id]) => id);
  return owners.length > 0 && owners.every((id) => removed.has(id));
}

async function membersScenario(seedNo: number): Promise<string[]> {
  const rng = prng(seedNo * 7919 + 1);
  const world = workspace(rng, seedNo);
  const q = quirks(rng);
  const emu = await emulator({ seed: world.seed, quirks: q, job: { finishAfterPolls: rng.int(0, 3) } });
  const warnings: string[] = [];
  const notes: string[] = [`quirks ${JSON.stringify(q)}`];
  const { id: integrationId, catalogue } = world.integrations[0]!;
  const label = (step: string) => `seed ${seedNo} ${step} (${JSON.stringify(q)})`;
  const heldHere = () => held(emu).get(integrationId)!;
  const { check, diff, create, read, update } = membersProvider;

  // The program: a random part of the users (members or not), never the fillers.
  const start = heldHere();
  const declared = world.users
    .filter(() => rng.chance(rng.next() < 0.5 ? 0.25 : 0.6))
    .map((u) => declare(rng, u, catalogue, start.get(u)?.role));
  let program: MembersProgram = {
    integrationId,
    members: declared,
    removeUnmanaged: rng.chance(0.35),
    ...(rng.chance(0.4) ? { deleteOnDestroy: rng.chance(0.6) } : {}),
  };
  // Now and then, a role declared that differs from an existing member's: the create fails, writing nothing; the program is then fixed.
  const existing = declared.filter((m) => start.has(key(m.userId)));
  const mismatch = existing.length > 0 && rng.chance(0.15) ? rng.pick(existing) : undefined;

  // ---- create
  await deployment(emu, warnings);
  if (mismatch) {
    const wrong = {
      ...program,
      members: program.members.map((m) => (m === mismatch ? { ...m, role: other(start.get(key(m.userId))!.role) } : m)),
    };
    const checked = await outcome(check!({}, newsOf(wrong)));
    expect(checked.ok && checked.value.failures, label("check")).toEqual([]);
    emu.clearRequests();
    const before = held(emu);
    const made = await outcome(create({ ...(checked.ok && checked.value.inputs), __provider: "p" }));
    expect(made.ok, label("create with a mismatched role fails")).toBe(false);
    expect(made.ok || made.error.message, label("create with a mismatched role")).toContain(mismatch.userId.toLowerCase());
    expect(writesOf(emu), label("create with a mismatched role writes nothing")).toEqual([]);
    expect(held(emu)).toEqual(before);
    notes.push("create refused a mismatched role");
    await deployment(emu, warnings);
  }
  const checked = await outcome(check!({}, newsOf(program)));
  if (!checked.ok) throw checked.error;
  expect(checked.value.failures, label("check")).toEqual([]);
  const inputs = checked.value.inputs!;
  emu.clearRequests();
  const before = held(emu);
  const created = await outcome(create({ ...inputs, __provider: "p" }));
  const after = held(emu);
  const declaredKeys = new Set(program.members.map((m) => key(m.userId)));
  expectOnlyAllowed(label("create"), before, after, emu, [{ integrationId, remove: new Set(), write: declaredKeys }]);
  notes.push(`create: ${summary(emu)}`);
  if (!created.ok) throw Object.assign(created.error, { message: `${label("create")}: ${created.error.message}` });
  const createdOuts = created.value.outs as IntegrationMembersOutputs;
  expectDeclaredHeld(label("create"), after.get(integrationId)!, program.members);
  for (const m of program.members) {
    if (!m.role && !start.has(key(m.userId))) expect(after.get(integrationId)!.get(key(m.userId))!.role).toBe("account_collaborator");
  }
  // Adopted: those declared who were members before (the model's own record, against the state's).
  let adopted = new Set(program.members.map((m) => key(m.userId)).filter((id) => start.has(id)));
  expect(new Set(createdOuts.adoptedMembers?.map(key)), label("adoptedMembers after create")).toEqual(adopted);
  expect(new Set(createdOuts.members.map((m) => key(m.userId)))).toEqual(declaredKeys);

  // Invariant 3: a refresh right after the write, then a diff against the same inputs: no change.
  const settled = async (step: string, state: IntegrationMembersOutputs, p: MembersProgram) => {
    await deployment(emu, warnings);
    emu.clearRequests();
    const r = await outcome(read!(integrationId, state));
    if (!r.ok) throw Object.assign(r.error, { message: `${label(`${step} refresh`)}: ${r.error.message}` });
    expect(writesOf(emu), label(`${step} refresh writes nothing`)).toEqual([]);
    const props = r.value.props!;
    expect(new Set(props.members.map((m) => key(m.userId))), label(`${step} refresh keeps the managed`)).toEqual(
      new Set(state.members.map((m) => key(m.userId))),
    );
    const c = await outcome(check!(r.value.inputs as never, newsOf(p)));
    if (!c.ok) throw c.error;
    const d = await outcome(diff!(integrationId, props, c.value.inputs!));
    const removals = p.removeUnmanaged && props.unmanagedMembers.length > 0;
    // The removals still to come would remove every owner: the plan refuses them (the program must declare one).
    const refusal = removals && leavesNoOwner(heldHere(), new Set(props.unmanagedMembers.map((m) => key(m.userId))));
    if (!d.ok) {
      if (!refusal) throw Object.assign(d.error, { message: `${label(`${step} diff after refresh`)}: ${d.error.message}` });
      expect(d.error.message).toContain("Refusing to remove");
      notes.push(`${step}: the removal of unmanaged owners refused`);
      return props;
    }
    expect(refusal, label(`${step}: diff after refresh refuses removing every owner`)).toBe(false);
    expect(d.value.changes, label(`${step}: diff after refresh (removals pending: ${removals})`)).toBe(removals);
    return props;
  };
  const edits = someoneElse(rng, emu, integrationId, catalogue, createdOuts, program, world.users);
  if (edits.length > 0) notes.push(`someone else ${edits.join(", ")}`);
  let state = await settled("create", createdOuts, program);
  // Without a refresh, the update plans from the create's outputs (only when nobody acted since: a stale state is its own case).
  if (edits.length === 0 && rng.chance(0.5)) state = createdOuts;

  // ---- update: a random edit of the program.
  const now = heldHere();
  const priorKeys = new Set(state.members.map((m) => key(m.userId)));
  const edited: Declared[] = [];
  for (const m of program.members) {
    if (rng.chance(0.2)) continue;
    let next = m;
    if (rng.chance(0.3)) next = { ...next, entitlements: rng.subset(catalogue) };
    // A role changed now and then (removed and invited again), or declared as held (the state learns it).
    const roll = rng.next();
    if (roll < 0.1) next = { ...next, role: other(now.get(key(m.userId))!.role) };
    else if (!next.role && roll < 0.2) next = { ...next, role: now.get(key(m.userId))!.role };
    edited.push(next);
  }
  for (const u of world.users) {
    if (!declaredKeys.has(u) && rng.chance(0.15)) edited.push(declare(rng, u, catalogue, now.get(u)?.role));
  }
  const next: MembersProgram = {
    integrationId,
    members: rng.shuffle(edited),
    removeUnmanaged: rng.chance(0.3) ? !program.removeUnmanaged : program.removeUnmanaged,
    ...(rng.chance(0.3)
      ? { deleteOnDestroy: !program.deleteOnDestroy }
      : program.deleteOnDestroy === undefined
        ? {}
        : { deleteOnDestroy: program.deleteOnDestroy }),
  };
  const nextKeys = new Set(next.members.map((m) => key(m.userId)));
  // The model: who goes. Dropped managed members (but owners the program never declared so, without an opt-in or removeUnmanaged);
  // with removeUnmanaged, the unmanaged members the state lists; members whose declared role changes (invited again).
  const declaredOwners = new Set((state.declaredOwners ?? []).map(key));
  const keepOwners = next.deleteOnDestroy !== true && !next.removeUnmanaged;
  const dropped = [...priorKeys].filter(
    (id) => now.has(id) && !nextKeys.has(id) && !(keepOwners && now.get(id)!.role === "account_owner" && !declaredOwners.has(id)),
  );
  const unmanaged = next.removeUnmanaged
    ? state.unmanagedMembers.map((m) => key(m.userId)).filter((id) => now.has(id) && !nextKeys.has(id) && !priorKeys.has(id))
    : [];
  const roleChanges = next.members
    .filter((m) => priorKeys.has(key(m.userId)) && m.role && now.get(key(m.userId))?.role !== m.role)
    .map((m) => key(m.userId));
  const removed = new Set([...dropped, ...unmanaged, ...roleChanges]);
  const refused = leavesNoOwner(now, removed);

  await deployment(emu, warnings);
  const c2 = await outcome(check!(state as never, newsOf(next)));
  if (!c2.ok) throw c2.error;
  expect(c2.value.failures, label("update check")).toEqual([]);
  const nextInputs = c2.value.inputs!;
  emu.clearRequests();
  const beforeUpdate = held(emu);
  const d2 = await outcome(diff!(integrationId, state, nextInputs));
  let updated: IntegrationMembersOutputs | undefined;
  if (!d2.ok) {
    expect(refused, `${label("update diff")}: refused unexpectedly: ${d2.error.message}`).toBe(true);
    expect(d2.error.message).toContain("Refusing to remove");
    notes.push("update refused: it would remove the last owner");
  } else {
    expect(refused, label("update diff: a change that removes the last owner is refused")).toBe(false);
    if (d2.value.changes) {
      const u = await outcome(update!(integrationId, state, { ...nextInputs, __provider: "p" }));
      const afterUpdate = held(emu);
      expectOnlyAllowed(label("update"), beforeUpdate, afterUpdate, emu, [{ integrationId, remove: removed, write: nextKeys }]);
      notes.push(`update: ${summary(emu)}`);
      if (!u.ok) throw Object.assign(u.error, { message: `${label("update")}: ${u.error.message}` });
      updated = u.value.outs!;
      const here = afterUpdate.get(integrationId)!;
      expectDeclaredHeld(label("update"), here, next.members);
      for (const id of removed) if (!nextKeys.has(id)) expect(here.has(id), label(`update removes ${id}`)).toBe(false);
      for (const id of nextKeys) if (!priorKeys.has(id) && now.has(id)) adopted.add(id);
      adopted = new Set([...adopted].filter((id) => nextKeys.has(id)));
      expect(new Set(updated.adoptedMembers?.map(key)), label("adoptedMembers after update")).toEqual(adopted);
      // Owners the program does not declare (before or now; a role declared now is the program's), without removeUnmanaged or the
      // opt-in, stay owners.
      if (keepOwners) {
        const owners = new Set([...declaredOwners, ...next.members.filter((m) => m.role !== undefined).map((m) => key(m.userId))]);
        expectOwnersKept(label("update"), beforeUpdate.get(integrationId)!, here, owners);
      }
      program = next;
      const later = someoneElse(rng, emu, integrationId, catalogue, updated, program, world.users);
      if (later.length > 0) notes.push(`then someone else ${later.join(", ")}`);
      state = await settled("update", updated, program);
      if (later.length === 0 && rng.chance(0.5)) state = updated;
    } else {
      // No change: the inputs say what the state holds (no member, set or flag differs).
      expect(writesOf(emu)).toEqual([]);
      notes.push("update: no change");
      program = next;
    }
  }

  // ---- destroy, a deployment of its own.
  await deployment(emu, warnings);
  const last = heldHere();
  const optIn = state.deleteOnDestroy === true;
  const owners = new Set((state.declaredOwners ?? []).map(key));
  const stateAdopted = new Set((state.adoptedMembers ?? []).map(key));
  const goes = new Set(
    state.members
      .map((m) => key(m.userId))
      .filter((id) => last.has(id))
      .filter((id) => optIn || (!stateAdopted.has(id) && !(last.get(id)!.role === "account_owner" && !owners.has(id)))),
  );
  const destroyRefused = leavesNoOwner(last, goes);
  emu.clearRequests();
  const beforeDelete = held(emu);
  const deleted = await outcome(membersProvider.delete!(integrationId, state));
  const afterDelete = held(emu);
  expectOnlyAllowed(label("delete"), beforeDelete, afterDelete, emu, [{ integrationId, remove: goes, write: new Set() }]);
  notes.push(`delete: ${summary(emu)}`);
  if (destroyRefused) {
    expect(deleted.ok, label("delete that would remove the last owner is refused")).toBe(false);
    expect(writesOf(emu)).toEqual([]);
    notes.push("delete refused: it would remove the last owner");
  } else {
    if (!deleted.ok) throw Object.assign(deleted.error, { message: `${label("delete")}: ${deleted.error.message}` });
    for (const id of goes) expect(afterDelete.get(integrationId)!.has(id), label(`delete removes ${id}`)).toBe(false);
  }
  if (!optIn) expectOwnersKept(label("delete"), last, afterDelete.get(integrationId)!, owners);
  return notes;
}

// ---------------------------------------------------------------------------------------------------------------------
// IntegrationEntitlement

interface OneMembership {
  integrationId: string;
  userId: string;
  entitlements: string[];
  role?: Role;
  adoptExisting?: boolean;
  deleteOnDestroy?: boolean;
}
const entitlementNews = (m: OneMembership) => ({ ...m, __provider: "p" });

async function entitlementScenario(seedNo: number): Promise<string[]> {
  const rng = prng(seedNo * 104729 + 7);
  const world = workspace(rng, seedNo);
  const q = quirks(rng);
  const emu = await emulator({ seed: world.seed, quirks: q, job: { finishAfterPolls: rng.int(0, 3) } });
  const warnings: string[] = [];
  const notes: string[] = [`quirks ${JSON.stringify(q)}`];
  const label = (step: string) => `seed ${seedNo} ${step} (${JSON.stringify(q)})`;
  const { check, diff, create, read, update } = entitlementProvider;
  const start = held(emu);

  // Distinct memberships across the integrations, members already or not; now and then the owners first (their destroy may
  // take an integration's last owner).
  const ownerFirst = rng.chance(0.4);
  const isOwner = (p: { integration: { id: string }; userId: string }) =>
    start.get(p.integration.id)!.get(p.userId)?.role === "account_owner";
  const pairs = rng
    .shuffle(world.integrations.flatMap((i) => world.users.map((userId) => ({ integration: i, userId }))))
    .sort((a, b) => (ownerFirst ? Number(isOwner(b)) - Number(isOwner(a)) : 0))
    .slice(0, rng.int(2, 7));
  const program: OneMembership[] = pairs.map(({ integration, userId }) => {
    const current = start.get(integration.id)!.get(userId)?.role;
    const role = current
      ? rng.chance(0.45)
        ? current
        : rng.chance(0.1)
          ? other(current)
          : undefined
      : rng.chance(0.4)
        ? rng.pick(["account_owner", "account_collaborator"] as const)
        : undefined;
    return {
      integrationId: integration.id,
      userId: rng.chance(0.2) ? userId.toUpperCase() : userId,
      entitlements: rng.subset(integration.catalogue),
      ...(role ? { role } : {}),
      ...(rng.chance(current ? 0.75 : 0.3) ? { adoptExisting: true } : {}),
      ...(rng.chance(current === "account_owner" ? 0.6 : 0.3) ? { deleteOnDestroy: true } : {}),
    };
  });
  const catalogueOf = (integrationId: string) => world.integrations.find((i) => i.id === integrationId)!.catalogue;
  // Now and then an IntegrationMembers beside them, in an integration one of them is in: other users (a membership is one
  // resource's), owners among them, without removeUnmanaged (it would remove the others' members).
  const beside = rng.chance(0.5) ? rng.pick(program).integrationId : undefined;
  const taken = new Set(program.filter((m) => m.integrationId === beside).map((m) => key(m.userId)));
  const setMembers =
    beside === undefined
      ? []
      : rng
          .shuffle(world.users.filter((u) => !taken.has(u)))
          .slice(0, rng.int(1, 3))
          .map((u) => {
            const current = start.get(beside)!.get(u)?.role;
            const m = declare(rng, u, catalogueOf(beside), current);
            return current === undefined && rng.chance(0.5) ? { ...m, role: "account_owner" as const } : m;
          });
  const set: MembersProgram | undefined =
    beside === undefined || setMembers.length === 0
      ? undefined
      : { integrationId: beside, members: setMembers, removeUnmanaged: false, ...(rng.chance(0.5) ? { deleteOnDestroy: true } : {}) };
  /** `allowed`, and the members of the IntegrationMembers beside written (or removed) where `also` names them. */
  const withSet = (allowed: Allowed[], also: { write?: ReadonlySet<string>; remove?: ReadonlySet<string> }): Allowed[] =>
    allowed.map((a) =>
      a.integrationId === set?.integrationId
        ? { ...a, write: new Set([...a.write, ...(also.write ?? [])]), remove: new Set([...a.remove, ...(also.remove ?? [])]) }
        : a,
    );
  const setKeys = new Set(set?.members.map((m) => key(m.userId)));
  const heldOf = (h: Held, m: { integrationId: string; userId: string }) => h.get(m.integrationId)!.get(key(m.userId));
  const allowedFor = (list: readonly OneMembership[], remove: (m: OneMembership) => boolean): Allowed[] =>
    world.integrations.map(({ id }) => ({
      integrationId: id,
      remove: new Set(list.filter((m) => m.integrationId === id && remove(m)).map((m) => key(m.userId))),
      write: new Set(list.filter((m) => m.integrationId === id).map((m) => key(m.userId))),
    }));

  // ---- create: every resource at once, as the engine runs them.
  await deployment(emu, warnings);
  const checked = await Promise.all(program.map((m) => outcome(check!({}, entitlementNews(m)))));
  for (const c of checked) expect(c.ok && c.value.failures, label("check")).toEqual([]);
  const setChecked = set && (await outcome(membersProvider.check!({}, newsOf(set))));
  if (setChecked && !setChecked.ok) throw setChecked.error;
  if (setChecked) expect(setChecked.value.failures, label("check of the IntegrationMembers")).toEqual([]);
  emu.clearRequests();
  const before = held(emu);
  const [created, setCreated] = await Promise.all([
    Promise.all(checked.map((c) => outcome(create({ ...(c.ok ? c.value.inputs : {}), __provider: "p" })))),
    setChecked && outcome(membersProvider.create({ ...setChecked.value.inputs, __provider: "p" })),
  ]);
  const after = held(emu);
  expectOnlyAllowed(
    label("create"),
    before,
    after,
    emu,
    withSet(
      allowedFor(program, () => false),
      { write: setKeys },
    ),
  );
  if (setCreated && !setCreated.ok)
    throw Object.assign(setCreated.error, { message: `${label("create of the IntegrationMembers")}: ${setCreated.error.message}` });
  const setState = setCreated?.value.outs as IntegrationMembersOutputs | undefined;
  if (set) expectDeclaredHeld(label("create of the IntegrationMembers"), after.get(set.integrationId)!, set.members);
  type Live = { m: OneMembership; id: string; state: IntegrationEntitlementOutputs };
  let live: Live[] = [];
  program.forEach((m, i) => {
    const r = created[i]!;
    const was = heldOf(before, m);
    // Refused: a member already, without adoptExisting, or holding another role than declared. Nothing written for them.
    const refusal = was !== undefined && (!m.adoptExisting || (m.role !== undefined && m.role !== was.role));
    if (refusal) {
      expect(r.ok, label(`create of ${m.userId} in ${m.integrationId} is refused`)).toBe(false);
      expect(heldOf(after, m)).toEqual(was);
      notes.push("a create refused an existing membership");
      return;
    }
    if (!r.ok) throw Object.assign(r.error, { message: `${label(`create of ${m.userId}`)}: ${r.error.message}` });
    const state = r.value.outs as IntegrationEntitlementOutputs;
    expect(state.adopted === true, label(`adopted of ${m.userId}`)).toBe(was !== undefined);
    live.push({ m, id: r.value.id, state });
  });
  const expectHeld = (step: string, h: Held, list: readonly Live[]) => {
    for (const { m } of list) {
      const now = heldOf(h, m);
      expect(now, label(`${step}: ${m.userId} is a member of ${m.integrationId}`)).toBeDefined();
      expect(now!.entitlements, label(`${step}: set of ${m.userId}`)).toEqual(setOf(m.entitlements));
      if (m.role) expect(now!.role, label(`${step}: role of ${m.userId}`)).toBe(m.role);
    }
  };
  expectHeld("create", after, live);

  const settled = async (step: string, list: Live[]) => {
    await deployment(emu, warnings);
    emu.clearRequests();
    const out: Live[] = [];
    for (const l of list) {
      const r = await outcome(read!(l.id, l.state));
      if (!r.ok) throw Object.assign(r.error, { message: `${label(`${step} refresh`)}: ${r.error.message}` });
      expect(r.value.id, label(`${step} refresh keeps ${l.id}`)).toBe(l.id);
      const c = await outcome(check!(r.value.inputs as never, entitlementNews(l.m)));
      if (!c.ok) throw c.error;
      const d = await outcome(diff!(l.id, r.value.props!, c.value.inputs!));
      if (!d.ok) throw d.error;
      expect(d.value, label(`${step}: diff of ${l.id} after refresh`)).toMatchObject({ changes: false, replaces: [] });
      out.push({ ...l, state: r.value.props! });
    }
    expect(writesOf(emu), label(`${step} refresh writes nothing`)).toEqual([]);
    return out;
  };
  const refreshed = await settled("create", live);
  if (rng.chance(0.5)) live = refreshed;

  // ---- update: random edits; a role change replaces the resource (delete first), which an adopted one refuses without the opt-in.
  await deployment(emu, warnings);
  const edits = live.map((l) => {
    let m = l.m;
    if (rng.chance(0.5)) m = { ...m, entitlements: rng.subset(catalogueOf(m.integrationId)) };
    if (rng.chance(0.25)) m = { ...m, deleteOnDestroy: !m.deleteOnDestroy };
    if (rng.chance(0.15)) m = { ...m, role: other(heldOf(held(emu), m)!.role) };
    return { l, m };
  });
  const checks = await Promise.all(edits.map(({ l, m }) => outcome(check!(l.state as never, entitlementNews(m)))));
  emu.clearRequests();
  const beforeUpdate = held(emu);
  const next: Live[] = [];
  const removable: OneMembership[] = [];
  const refusedReplacements: OneMembership[] = [];
  await Promise.all(
    edits.map(async ({ l, m }, i) => {
      const c = checks[i]!;
      if (!c.ok) throw c.error;
      expect(c.value.failures, label("update check")).toEqual([]);
      const inputs = c.value.inputs!;
      const d = await outcome(diff!(l.id, l.state, inputs));
      const roleChange = m.role !== undefined && m.role !== (l.state.role ?? "account_collaborator");
      if (!d.ok) {
        // Refused: a role change of an adopted membership, without the opt-in.
        expect(
          roleChange && l.state.adopted === true && l.state.deleteOnDestroy !== true,
          `${label("update diff")}: ${d.error.message}`,
        ).toBe(true);
        notes.push("a role change of an adopted membership refused");
        next.push(l);
        return;
      }
      if (d.value.replaces?.length) {
        expect(d.value.replaces, label("replace")).toEqual(["role"]);
        const gone = await outcome(entitlementProvider.delete!(l.id, l.state));
        // The last owner is not removed first: the replacement stops there, the membership kept (which one of two removed
        // together is refused depends on their order: the invariant is that an owner stays).
        if (!gone.ok && gone.error.message.includes("Refusing to remove") && heldOf(beforeUpdate, l.m)?.role === "account_owner") {
          notes.push("a role change refused: it would remove the last owner");
          refusedReplacements.push(l.m);
          next.push(l);
          return;
        }
        if (!gone.ok) throw gone.error;
        removable.push(m);
        notes.push("a role change replaced a membership");
        const made = await outcome(create({ ...inputs, __provider: "p" }));
        if (!made.ok) throw Object.assign(made.error, { message: `${label("replacement create")}: ${made.error.message}` });
        next.push({ m, id: made.value.id, state: made.value.outs as IntegrationEntitlementOutputs });
        return;
      }
      if (!d.value.changes) {
        next.push({ ...l, m });
        return;
      }
      const u = await outcome(update!(l.id, l.state, { ...inputs, __provider: "p" }));
      if (!u.ok) throw Object.assign(u.error, { message: `${label("update")}: ${u.error.message}` });
      next.push({ ...l, m, state: u.value.outs as IntegrationEntitlementOutputs });
    }),
  );
  const afterUpdate = held(emu);
  expectOnlyAllowed(
    label("update"),
    beforeUpdate,
    afterUpdate,
    emu,
    allowedFor(removable, () => true).map((a, i) => ({
      ...a,
      write: new Set([
        ...a.write,
        ...allowedFor(
          next.map((n) => n.m),
          () => false,
        )[i]!.write,
      ]),
    })),
  );
  expectHeld("update", afterUpdate, next);
  expectAnOwnerStays(label("update"), beforeUpdate, afterUpdate);
  // A replacement refused only where its delete would take the last owner: an owner before and after the update (never
  // removed: a replacement changes the role) is one whose replacement was refused.
  for (const { integrationId } of refusedReplacements) {
    const kept = new Set(refusedReplacements.filter((m) => m.integrationId === integrationId).map((m) => key(m.userId)));
    for (const [id, m] of afterUpdate.get(integrationId)!)
      if (m.role === "account_owner" && beforeUpdate.get(integrationId)!.get(id)?.role === "account_owner")
        expect(kept.has(id), label(`replacement refused in ${integrationId} though owner ${id} stays`)).toBe(true);
  }
  live = await settled("update", next);

  // ---- destroy: a deployment of its own, every resource at once.
  // Now and then someone else removed the owners no resource manages since: those the resources remove may be the last.
  if (rng.chance(0.4)) {
    const managed = new Set(
      [...live.map((l) => l.m), ...(set?.members ?? []).map((m) => ({ ...m, integrationId: set!.integrationId }))].map(
        (m) => `${m.integrationId}/${key(m.userId)}`,
      ),
    );
    for (const [integrationId, members] of held(emu))
      for (const [id, m] of members)
        if (m.role === "account_owner" && !managed.has(`${integrationId}/${id}`)) emu.integrations.removeMember(integrationId, id);
    notes.push("someone else removed the unmanaged owners");
  }
  await deployment(emu, warnings);
  const last = held(emu);
  const goes = (l: Live) => {
    if (l.state.deleteOnDestroy === true) return true;
    if (l.state.adopted === true) return false;
    return !(heldOf(last, l.m)?.role === "account_owner" && l.state.declaredRole !== "account_owner");
  };
  // The IntegrationMembers' removals, as its own scenario models them: adopted members with the opt-in alone, never owners it was
  // not declaring so without it.
  const lastBeside = set ? last.get(set.integrationId)! : new Map<string, { role: Role }>();
  const setGoes = new Set(
    (setState?.members ?? [])
      .map((m) => key(m.userId))
      .filter((id) => lastBeside.has(id))
      .filter(
        (id) =>
          setState!.deleteOnDestroy === true ||
          (!(setState!.adoptedMembers ?? []).map(key).includes(id) &&
            !(lastBeside.get(id)!.role === "account_owner" && !(setState!.declaredOwners ?? []).map(key).includes(id))),
      ),
  );
  emu.clearRequests();
  // Started in a random order (the IntegrationMembers' among them): which of the owners removed together asks last varies.
  const started = new Map<number, Promise<Awaited<ReturnType<typeof outcome>>>>();
  for (const i of rng.shuffle([...live.keys(), ...(setState ? [-1] : [])]))
    started.set(
      i,
      i === -1
        ? outcome(membersProvider.delete!(set!.integrationId, setState!))
        : outcome(entitlementProvider.delete!(live[i]!.id, live[i]!.state)),
    );
  const results = await Promise.all(live.map((_, i) => started.get(i)!));
  const setDeleted = setState && (await started.get(-1)!);
  // The last owner of an integration is not removed: of the owners removed together, the last to ask is refused.
  const refused = new Set<Live>();
  results.forEach((r, i) => {
    const l = live[i]!;
    if (!r.ok && r.error.message.includes("Refusing to remove") && heldOf(last, l.m)?.role === "account_owner") refused.add(l);
    else if (!r.ok) throw Object.assign(r.error, { message: `${label(`delete of ${l.id}`)}: ${r.error.message}` });
  });
  if (refused.size > 0) notes.push("a delete refused: it would remove the last owner");
  // The IntegrationMembers' destroy refused as a whole: its removals would take the last owner.
  const setOwnersGo = [...setGoes].some((id) => lastBeside.get(id)?.role === "account_owner");
  const setRefused = setDeleted !== undefined && !setDeleted.ok;
  if (setDeleted && !setDeleted.ok) {
    if (!(setDeleted.error.message.includes("Refusing to remove") && setOwnersGo))
      throw Object.assign(setDeleted.error, { message: `${label("delete of the IntegrationMembers")}: ${setDeleted.error.message}` });
    notes.push("the IntegrationMembers' delete refused: it would remove the last owner");
  }
  // Owners of one integration removed together by both resources: one of them is refused, whichever asks last.
  if (
    set &&
    setOwnersGo &&
    live.some((l) => l.m.integrationId === set.integrationId && goes(l) && heldOf(last, l.m)?.role === "account_owner")
  ) {
    const refusedHere = setRefused || [...refused].some((l) => l.m.integrationId === set.integrationId);
    notes.push(`owners removed by both resources together${refusedHere ? ": one refused" : ""}`);
  }
  const afterDelete = held(emu);
  expectAnOwnerStays(label("delete"), last, afterDelete);
  for (const l of refused) expect(heldOf(afterDelete, l.m)?.role, label(`delete refused keeps ${l.id}`)).toBe("account_owner");
  // A refusal only where the removal would take the last owner: every owner left is one whose removal was refused.
  const refusedIn = (integrationId: string) =>
    new Set([
      ...[...refused].filter((l) => l.m.integrationId === integrationId).map((l) => key(l.m.userId)),
      ...(setRefused && integrationId === set?.integrationId ? setGoes : []),
    ]);
  for (const [integrationId, members] of afterDelete) {
    const kept = refusedIn(integrationId);
    if (kept.size === 0) continue;
    for (const [id, m] of members)
      if (m.role === "account_owner") expect(kept.has(id), label(`delete refused in ${integrationId} though owner ${id} stays`)).toBe(true);
  }
  const going = live.filter((l) => goes(l) && !refused.has(l));
  expectOnlyAllowed(
    label("delete"),
    last,
    afterDelete,
    emu,
    withSet(
      allowedFor(
        going.map((l) => l.m),
        () => true,
      ).map((a) => ({ ...a, write: new Set() })),
      { remove: setRefused ? new Set() : setGoes },
    ),
  );
  for (const l of going) expect(heldOf(afterDelete, l.m), label(`delete removes ${l.id}`)).toBeUndefined();
  if (set && !setRefused)
    for (const id of setGoes) expect(afterDelete.get(set.integrationId)!.has(id), label(`delete removes ${id}`)).toBe(false);
  return notes;
}

// ---------------------------------------------------------------------------------------------------------------------

const SEEDS = Array.from({ length: Number(process.env.INVARIANT_SEEDS ?? 40) }, (_, i) => i + 1);
/**
 * Seeds past the first 40 that reach the model's rarest branches, which none of those does: a diff after a refresh refusing
 * to remove every owner (49), and an update the program does not change (295). The last test checks that they still do.
 */
const RARE_SEEDS = [49, 295];
/** Past the first 40 as well, for `IntegrationEntitlement`: a role change's replacement refused, its delete taking the last owner (59). */
const RARE_ENTITLEMENT_SEEDS = [59];

describe("IntegrationMembers: seeded invariants (create, update, refresh, diff, destroy)", () => {
  const seen: string[] = [];
  it.each([...SEEDS, ...RARE_SEEDS.filter((seed) => !SEEDS.includes(seed))])(
    "seed %i",
    async (seed) => {
      const notes = await membersScenario(seed);
      seen.push(...notes);
      if (process.env.INVARIANT_NOTES) console.log(`members ${seed}: ${notes.join("; ")}`);
    },
    20_000,
  );

  // Without it, a branch no seed reaches (the generator changed) would leave its assertions unrun, silently.
  const otherSeeds = process.env.INVARIANT_SEEDS !== undefined;
  it.skipIf(otherSeeds)(
    `reaches every branch of the model, the refusals and an unchanged update included${
      otherSeeds ? " (skipped: INVARIANT_SEEDS runs another set of seeds)" : ""
    }`,
    () => {
      const reached = (note: string) => seen.some((n) => n.includes(note));
      for (const note of [
        "create refused a mismatched role",
        "the removal of unmanaged owners refused",
        "update refused: it would remove the last owner",
        "update: no change",
        "update: POST",
        "then someone else",
        "delete refused: it would remove the last owner",
      ]) {
        expect(reached(note), note).toBe(true);
      }
    },
  );
});

describe("IntegrationEntitlement: seeded invariants (create, update or replace, refresh, diff, destroy)", () => {
  const seen: string[][] = [];
  it.each([...SEEDS, ...RARE_ENTITLEMENT_SEEDS.filter((seed) => !SEEDS.includes(seed))])(
    "seed %i",
    async (seed) => {
      const notes = await entitlementScenario(seed);
      seen.push(notes);
      if (process.env.INVARIANT_NOTES) console.log(`entitlement ${seed}: ${notes.join("; ")}`);
    },
    20_000,
  );

  // Without it, a refusal of the last owner's removal that no seed reaches (the generator changed) would leave its assertions unrun, silently.
  const otherSeeds = process.env.INVARIANT_SEEDS !== undefined;
  it.skipIf(otherSeeds)(
    `reaches the refusals of the last owner's removal: a replacement's, a destroy's, of owners removed by both resources together${
      otherSeeds ? " (skipped: INVARIANT_SEEDS runs another set of seeds)" : ""
    }`,
    () => {
      const seeds = (note: string) => seen.filter((notes) => notes.some((n) => n.includes(note))).length;
      for (const note of [
        "a role change refused: it would remove the last owner",
        "a delete refused: it would remove the last owner",
        "the IntegrationMembers' delete refused: it would remove the last owner",
        "owners removed by both resources together: one refused",
      ]) {
        expect(seeds(note), `seeds of ${seen.length} reaching "${note}"`).toBeGreaterThan(0);
      }
    },
  );
});
