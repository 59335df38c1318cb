/**
 * `User`, generated: inputs equivalent to a service record (the email and the id in any case, `role` and `isGuest` left out,
 * `null` or as the service has them) diff as no change after a create, an adoption, a refresh and an update; one real
 * change is reported as exactly that property, updated in place (never a replacement).
 */
import { describe, expect, it } from "vitest";
import { KNOWN_USER_ROLES } from "../../../src/client";
import type { EmulatedUser, Emulator } from "../../../src/emulator";
import { changedUserProperties, provider, type UserOutputs } from "../../../src/host/user/user-provider";
import type { Props } from "../../../src/shared/inputs";
import { emulator } from "../../support/fixtures";
import { configureFor, wire } from "../../support/provider";
import { engine, forCases, leaveOut, type Rng, shown, undefinedPaths, checkedBy } from "./gen";

const CASES = 60;
/** Roles a case may give a record or declare: the owner is left out (its destroy is not what is checked here). */
const ROLES = KNOWN_USER_ROLES.filter((role) => role !== "workspace_owner");
const GUEST_ROLES = new Set(["workspace_guest_user", "workspace_guest_admin"]);

/** What the engine hands `create` or `diff` for `program`: `check`'s inputs, as JSON. */
const checked = (program: Props) => checkedBy(provider, program);

/** A service record a case starts from. */
function recordOf(rng: Rng) {
  const role = rng.pick(ROLES);
  return { id: rng.uuid(), email: rng.email(), firstName: rng.name(), lastName: rng.name(), role, isGuest: GUEST_ROLES.has(role) };
}

/** Inputs equivalent to `user`: the email in another case, `role` and `isGuest` declared as the service has them or left out. */
function equivalent(rng: Rng, user: Pick<EmulatedUser, "email" | "firstName" | "lastName" | "role" | "isGuest">, adoptExisting = false) {
  let program: Props = {
    email: rng.caseOf(user.email),
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    isGuest: user.isGuest,
    adoptExisting,
  };
  if (rng.bool()) program = leaveOut(rng, program, "role");
  if (rng.bool()) program = leaveOut(rng, program, "isGuest");
  if (!adoptExisting && rng.bool()) program = leaveOut(rng, program, "adoptExisting");
  // The destroy opt-in not set: false, left out or null are one.
  if (rng.bool()) program = rng.bool() ? { ...program, deleteOnDestroy: false } : leaveOut(rng, program, "deleteOnDestroy");
  return program;
}

/** Asserts no change between a state and `news`, naming the case. */
async function expectNoChange(id: string, olds: Props, news: Props, what: Record<string, unknown>) {
  const diff = wire(await provider.diff!(id, olds as unknown as UserOutputs, news));
  expect(diff, shown({ ...what, olds, news, changed: changedUserProperties(olds, news) })).toEqual({
    changes: false,
    replaces: [],
    deleteBeforeReplace: true,
  });
}

/** A state as the engine hands it back. */
const state = (value: unknown) => engine(value) as unknown as UserOutputs;

const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);

/** An emulator answering ids in upper case or emails in lower case, as the case decides (the contract allows both). */
async function service(rng: Rng) {
  const quirks = { upperCaseIds: rng.bool(), lowerCaseEmails: rng.bool(0.3) };
  const emu = await emulator({ quirks });
  await configureFor(emu, {}, { info: () => {}, warn: () => {} });
  return { emu, quirks };
}

describe("User, generated", () => {
  it("a create, then inputs equivalent to the program's, diff as no change", async () => {
    await forCases("user create", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      const program = equivalent(rng, record);
      const { id, outs } = wire(await provider.create(await checked(program)));
      expect(writes(emu)).toEqual(["POST /users"]);
      // Another spelling of the same inputs (the email's case, the defaults left out another way).
      const again = equivalent(rng, { ...record, role: outs?.role ?? record.role, isGuest: outs?.isGuest ?? record.isGuest });
      await expectNoChange(id, engine(outs), await checked(again), { quirks, program, again });
      await expectNoChange(id, engine(outs), await checked(program), { quirks, program });
    });
  });

  it("an adoption of a record equivalent to the inputs writes nothing, and diffs as no change", async () => {
    await forCases("user adopt", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      emu.users.add({ ...record, id: rng.caseOf(record.id), email: rng.caseOf(record.email) });
      const program = equivalent(rng, record, true);
      const { id, outs } = wire(await provider.create(await checked(program)));
      expect(writes(emu), shown({ quirks, record, program })).toEqual([]);
      expect(id).toBe(record.id);
      await expectNoChange(id, engine(outs), await checked(equivalent(rng, record, true)), { quirks, record, program });
    });
  });

  it("an import naming the user's id in any case writes nothing, records the id in its one form, and diffs as no change", async () => {
    await forCases("user import", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      emu.users.add(record);
      const program = { ...equivalent(rng, record), __importId: rng.caseOf(record.id) };
      const { id, outs } = wire(await provider.create(await checked(program)));
      const what = { quirks, record, program };
      expect(writes(emu), shown(what)).toEqual([]);
      expect(id, shown(what)).toBe(record.id);
      await expectNoChange(id, engine(outs), await checked({ ...equivalent(rng, record), __importId: rng.caseOf(record.id) }), what);
    });
  });

  it("a refresh of an unchanged record hands back inputs and outputs that diff as no change, from the program's inputs too", async () => {
    await forCases("user refresh", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      emu.users.add({ ...record, email: rng.caseOf(record.email) });
      const program = equivalent(rng, record, true);
      const created = wire(await provider.create(await checked(program)));
      // The state's id in the case it was recorded in; the read may be given it in another (an older state, an import).
      const stateId = rng.bool() ? created.id : rng.caseOf(created.id);
      const read = wire(await provider.read!(stateId, state(created.outs)));
      expect(undefinedPaths(read)).toEqual([]);
      expect(read.id, shown({ quirks, stateId })).toBe(stateId);
      const what = { quirks, record, program, read };
      // `pulumi refresh` diffs the read's outputs against its inputs; the next `up` against the program's inputs.
      await expectNoChange(String(read.id), engine(read.props), engine(read.inputs), what);
      await expectNoChange(String(read.id), engine(read.props), await checked(program), what);
      await expectNoChange(String(read.id), engine(read.props), await checked(equivalent(rng, record, true)), what);
      // A second refresh changes nothing.
      const again = wire(await provider.read!(String(read.id), state(read.props)));
      expect(engine(again), shown(what)).toEqual(engine(read));
    });
  });

  it("a refresh of a record whose optional fields the service leaves out or nulls diffs as no change against its own inputs", async () => {
    await forCases("user refresh empty fields", CASES, async (rng) => {
      const { emu } = await service(rng);
      const record = recordOf(rng);
      emu.users.add(record);
      const program = equivalent(rng, record, true);
      const created = wire(await provider.create(await checked(program)));
      // From now on the service answers names, isGuest and status as null, or leaves them out.
      if (rng.bool()) emu.quirks.nullFields = true;
      else emu.quirks.absentFields = true;
      const read = wire(await provider.read!(created.id, state(created.outs)));
      expect(undefinedPaths(read)).toEqual([]);
      await expectNoChange(String(read.id), engine(read.props), engine(read.inputs), { quirks: emu.quirks, program, read });
    });
  });

  it("one real change is reported as that property alone, in place; the update's outputs then diff as no change", async () => {
    await forCases("user change", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      emu.users.add(record);
      const program = { ...equivalent(rng, record, true), role: record.role, isGuest: record.isGuest };
      const created = wire(await provider.create(await checked(program)));
      const property = rng.pick(["email", "firstName", "lastName", "role", "isGuest"] as const);
      const changed: Props = { ...program };
      if (property === "email") changed.email = rng.caseOf(`x${record.email}`);
      if (property === "firstName") changed.firstName = `${record.firstName}x`;
      if (property === "lastName") changed.lastName = rng.caseOf(`${record.lastName}y`);
      if (property === "role") changed.role = rng.pick(ROLES.filter((r) => r !== record.role));
      if (property === "isGuest") changed.isGuest = !record.isGuest;
      const news = await checked(changed);
      const what = { quirks, record, program, changed };
      const olds = state(created.outs);
      expect(wire(await provider.diff!(created.id, olds, news)), shown(what)).toEqual({
        changes: true,
        replaces: [],
        deleteBeforeReplace: true,
      });
      expect(changedUserProperties(olds, news), shown(what)).toEqual([property]);
      emu.clearRequests();
      const { outs } = wire(await provider.update!(created.id, olds, news));
      expect(writes(emu), shown(what)).toEqual([`PUT /users/${record.id}`]);
      const put = emu.requests.find((r) => r.method === "PUT")?.body as { data: { attributes: Props } } | undefined;
      expect(put?.data.attributes[property], shown(what)).toEqual(changed[property]);
      await expectNoChange(created.id, engine(outs), news, what);
      // And a refresh after it changes nothing either.
      const read = wire(await provider.read!(created.id, state(outs)));
      await expectNoChange(String(read.id), engine(read.props), news, { ...what, read });
    });
  });

  it("a change beside another attribute changed in the service: the update keeps the service's, no diff; a refresh shows it alone", async () => {
    await forCases("user change beside drift", CASES, async (rng) => {
      const { emu, quirks } = await service(rng);
      const record = recordOf(rng);
      emu.users.add(record);
      const program = { ...equivalent(rng, record, true), role: record.role, isGuest: record.isGuest };
      const created = wire(await provider.create(await checked(program)));
      const property = rng.pick(["firstName", "lastName", "role"] as const);
      const drifted = rng.pick((["email", "firstName", "lastName", "role"] as const).filter((p) => p !== property));
      const changed: Props = { ...program };
      const other = (key: "firstName" | "lastName" | "role", value: string) =>
        key === "role" ? rng.pick(ROLES.filter((r) => r !== record.role)) : `${value}${key === "firstName" ? "x" : "y"}`;
      changed[property] = other(property, record[property]);
      // Someone changes another attribute in the service after the state last read the user.
      const theirs =
        drifted === "role"
          ? rng.pick(ROLES.filter((r) => r !== record.role))
          : drifted === "email"
            ? `z${record.email}`
            : `${record[drifted]}z`;
      emu.users.update(record.id, { [drifted]: theirs });
      const news = await checked(changed);
      const what = { quirks, record, program, changed, drifted, theirs };
      emu.clearRequests();
      const { outs } = wire(await provider.update!(created.id, state(created.outs), news));
      const put = emu.requests.find((r) => r.method === "PUT")?.body as { data: { attributes: Props } } | undefined;
      expect(put?.data.attributes[property], shown(what)).toEqual(changed[property]);
      // The service's value, as it answers it (an email in lower case, under lowerCaseEmails).
      const kept = put?.data.attributes[drifted];
      expect(drifted === "email" ? String(kept).toLowerCase() : kept, shown(what)).toEqual(
        drifted === "email" ? theirs.toLowerCase() : theirs,
      );
      await expectNoChange(created.id, engine(outs), news, what);
      // The program's email in another case is the same email, beside a value left unsent.
      await expectNoChange(created.id, engine(outs), await checked({ ...changed, email: rng.caseOf(String(changed.email)) }), what);
      // A refresh reads the service's value: the program's then differs in that attribute alone, and the next up writes it.
      const read = wire(await provider.read!(created.id, state(outs)));
      const props = engine(read.props);
      expect(changedUserProperties(props, news), shown({ ...what, read })).toEqual([drifted]);
      await expectNoChange(created.id, props, engine(read.inputs), { ...what, read });
      const again = wire(await provider.update!(created.id, state(props), news));
      expect(emu.users.get(record.id)?.[drifted], shown(what)).toEqual(changed[drifted]);
      await expectNoChange(created.id, engine(again.outs), news, what);
    });
  });
});
