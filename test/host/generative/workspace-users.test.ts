/**
 * `WorkspaceUsers`, generated: sets of users adopted and created, each email in any case (the key in lower case, as the
 * program's class writes it), `role` and `isGuest` left out or declared as held, users in any order: no change after a
 * create, a refresh and an update; one real change is reported as exactly that user's property (or that user), in place.
 */
import { describe, expect, it } from "vitest";
import { KNOWN_USER_ROLES } from "../../../src/client";
import type { Emulator } from "../../../src/emulator";
import { changedPaths, provider, type WorkspaceUsersOutputs } from "../../../src/host/users/workspace-users-provider";
import type { Props } from "../../../src/shared/inputs";
import { emulator } from "../../support/fixtures";
import { configureFor, wire } from "../../support/provider";
import { engine, forCases, type Rng, shown, undefinedPaths, checkedBy } from "./gen";

const CASES = 30;
const ROLES = KNOWN_USER_ROLES.filter((role) => role !== "workspace_owner");
const GUEST_ROLES = new Set(["workspace_guest_user", "workspace_guest_admin"]);
const NO_CHANGE = { changes: false, replaces: [], deleteBeforeReplace: false };

interface Person {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  isGuest: boolean;
}

/** What the engine hands `create` or `diff` for `program`: `check`'s inputs, as JSON. */
const checked = (program: Props) => checkedBy(provider, program);

async function expectDiff(olds: Props, news: Props, expected: Props, what: Record<string, unknown>) {
  const diff = wire(await provider.diff!("workspace-users", olds as unknown as WorkspaceUsersOutputs, news));
  expect(diff, shown({ ...what, olds, news, paths: changedPaths(olds as unknown as WorkspaceUsersOutputs, news) })).toEqual(expected);
}

/** A state as the engine hands it back. */
const state = (value: unknown) => engine(value) as unknown as WorkspaceUsersOutputs;

const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path.toLowerCase()}`);

/** One user as the program declares them: the email in any case, `role` and `isGuest` as held or left out (the class drops `undefined`). */
function declaredOf(rng: Rng, p: Person, keepOptional = false): Props {
  return {
    email: rng.caseOf(p.email),
    firstName: p.firstName,
    lastName: p.lastName,
    ...(keepOptional || rng.bool() ? { role: p.role } : {}),
    ...(keepOptional || rng.bool() ? { isGuest: p.isGuest } : {}),
  };
}

/** The set's inputs as the program's class gives them: keyed by email in lower case, in any order. */
function programOf(rng: Rng, people: readonly Person[], keepOptional = false, deleteOnDestroy?: boolean | null): Props {
  const users = Object.fromEntries(rng.shuffle(people).map((p) => [p.email.toLowerCase(), declaredOf(rng, p, keepOptional)]));
  // The destroy opt-in not set: false, left out or null are one.
  const optIn = deleteOnDestroy ?? rng.pick([undefined, false, null]);
  return { users, ...(optIn === undefined ? {} : { deleteOnDestroy: optIn }) };
}

function person(rng: Rng): Person {
  const role = rng.pick(ROLES);
  return { id: rng.uuid(), email: rng.email(), firstName: rng.name(), lastName: rng.name(), role, isGuest: GUEST_ROLES.has(role) };
}

/** Some users in the workspace, some of whom the set adopts, and newcomers it creates. */
async function made(rng: Rng, keepOptional = false) {
  const quirks = { upperCaseIds: rng.bool(), lowerCaseEmails: rng.bool(0.3) };
  const existing = Array.from({ length: rng.int(1, 4) }, () => person(rng));
  const emu = await emulator({
    seed: { users: existing.map((p) => ({ ...p, id: rng.caseOf(p.id), email: rng.caseOf(p.email) })) },
    quirks,
  });
  await configureFor(emu, {}, { info: () => {}, warn: () => {} });
  // Newcomers are created with the defaults: declared so, or left out.
  const newcomers = Array.from({ length: rng.int(0, 2) }, () => ({ ...person(rng), role: "workspace_login_only", isGuest: false }));
  const people = [...rng.subset(existing, 0), ...newcomers];
  const program = programOf(rng, people, keepOptional);
  const { outs } = wire(await provider.create(await checked(program)));
  const what = { quirks, existing, people, program };
  expect(undefinedPaths(outs)).toEqual([]);
  return { emu, quirks, people, program, outs: engine(outs), what };
}

describe("WorkspaceUsers, generated", () => {
  it("a create (adopting and creating), then inputs equivalent to the program's, diff as no change", async () => {
    await forCases("workspace users create", CASES, async (rng) => {
      const m = await made(rng);
      await expectDiff(m.outs, await checked(m.program), NO_CHANGE, m.what);
      await expectDiff(m.outs, await checked(programOf(rng, m.people)), NO_CHANGE, m.what);
    });
  });

  it("a refresh of unchanged users hands back inputs and outputs that diff as no change, from the program's inputs too", async () => {
    await forCases("workspace users refresh", CASES, async (rng) => {
      const m = await made(rng);
      const read = wire(await provider.read!("workspace-users", state(m.outs)));
      const what = { ...m.what, read };
      expect(undefinedPaths(read)).toEqual([]);
      const props = engine(read.props);
      await expectDiff(props, engine(read.inputs), NO_CHANGE, what);
      await expectDiff(props, await checked(m.program), NO_CHANGE, what);
      await expectDiff(props, await checked(programOf(rng, m.people)), NO_CHANGE, what);
      const second = wire(await provider.read!("workspace-users", state(props)));
      expect(engine(second), shown(what)).toEqual(engine(read));
    });
  });

  it("a user changed in the service, or answered with fields null or left out: each refresh's own inputs diff as no change", async () => {
    await forCases("workspace users drift", CASES, async (rng) => {
      const m = await made(rng, rng.bool());
      const olds = m.outs as unknown as WorkspaceUsersOutputs;
      const keys = Object.keys(olds.users);
      if (keys.length === 0) return;
      const key = rng.pick(keys);
      const id = olds.userIds[key]!;
      const drift = rng.pick(["firstName", "lastName", "role", "nullFields", "absentFields"] as const);
      if (drift === "nullFields" || drift === "absentFields") m.emu.quirks[drift] = true;
      else if (drift === "role") m.emu.users.update(id, { role: rng.pick(ROLES.filter((r) => r !== olds.users[key]!.role)) });
      else m.emu.users.update(id, { [drift]: `${olds.users[key]![drift]}z` });
      // `pulumi refresh`, twice: a deployment of its own each, diffing the read against the state's inputs.
      await configureFor(m.emu, {}, { info: () => {}, warn: () => {} });
      const read = wire(await provider.read!("workspace-users", state(m.outs)));
      const what = { ...m.what, key, drift, read };
      expect(undefinedPaths(read)).toEqual([]);
      await expectDiff(engine(read.props), engine(read.inputs), NO_CHANGE, what);
      await configureFor(m.emu, {}, { info: () => {}, warn: () => {} });
      const second = wire(await provider.read!("workspace-users", state(read.props)));
      await expectDiff(engine(second.props), engine(read.inputs), NO_CHANGE, { ...what, second });
      // A name or role changed in the service is that user's property alone against the program (a role only where declared).
      if (drift === "firstName" || drift === "lastName" || (drift === "role" && olds.users[key]!.managedAttributes.includes("role"))) {
        const news = await checked(m.program);
        expect(changedPaths(engine(read.props) as unknown as WorkspaceUsersOutputs, news), shown(what)).toEqual([`users[${key}].${drift}`]);
      }
    });
  });

  it("one user's property changed is reported as that path alone, in place; the update's outputs then diff as no change", async () => {
    await forCases("workspace users change", CASES, async (rng) => {
      const m = await made(rng, true);
      if (m.people.length === 0) return;
      const target = rng.pick(m.people);
      const key = target.email.toLowerCase();
      const property = rng.pick(["firstName", "lastName", "role", "isGuest"] as const);
      const changed: Person = { ...target };
      if (property === "firstName") changed.firstName = `${target.firstName}x`;
      if (property === "lastName") changed.lastName = `${target.lastName}y`;
      if (property === "role") changed.role = rng.pick(ROLES.filter((r) => r !== target.role));
      if (property === "isGuest") changed.isGuest = !target.isGuest;
      const program = programOf(
        rng,
        m.people.map((p) => (p === target ? changed : p)),
        true,
      );
      const news = await checked(program);
      const what = { ...m.what, key, property, changed: program };
      const olds = state(m.outs);
      expect(changedPaths(olds, news), shown(what)).toEqual([`users[${key}].${property}`]);
      await expectDiff(m.outs, news, { changes: true, replaces: [], deleteBeforeReplace: false }, what);
      m.emu.clearRequests();
      const { outs } = wire(await provider.update!("workspace-users", olds, news));
      // A newcomer's id is the service's: the state records it.
      expect(writes(m.emu), shown(what)).toEqual([`PUT /users/${olds.userIds[key]!.toLowerCase()}`]);
      await expectDiff(engine(outs), news, NO_CHANGE, what);
      const read = wire(await provider.read!("workspace-users", state(outs)));
      await expectDiff(engine(read.props), news, NO_CHANGE, { ...what, read });
      await expectDiff(engine(read.props), engine(read.inputs), NO_CHANGE, { ...what, read });
    });
  });
});
