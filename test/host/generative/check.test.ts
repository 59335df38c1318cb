/**
 * `check` of every resource, generated: inputs whose each property is valid, invalid, not known yet (a preview's placeholder),
 * left out or `null`, in any mix. `check` returns every failure naming its property (and no other), lets unknown values
 * through, and never returns `undefined` anywhere (the host cannot encode it).
 */
import { describe, expect, it } from "vitest";
import type * as pulumi from "@pulumi/pulumi";
import { KNOWN_USER_ROLES } from "../../../src/client";
import { emailKey } from "../../../src/client/models";
import { provider as entitlementProvider } from "../../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../../src/host/members/integration-members-provider";
import { provider as userProvider } from "../../../src/host/user/user-provider";
import { provider as usersProvider } from "../../../src/host/users/workspace-users-provider";
import type { Props } from "../../../src/shared/inputs";
import { containsUnknown } from "../../../src/shared/unknown";
import { emulator } from "../../support/fixtures";
import { configureFor } from "../../support/provider";
import { forCases, type Rng, shown, UNKNOWN, undefinedPaths } from "./gen";

const CASES = 80;
/** The one-line provider the engine hands `check` with the program's inputs. */
const PROVIDER = 'exports.handler = () => require("pulumi-workspace-access/provider/user").provider;\n';
const CATALOGUE = ["VIEWER", "EDITOR", "ADMIN", "ops.read"];
const INTEGRATION = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";

/** How a case gives one property: the value (absent: left out), and the failure's property it must cause (none: valid). */
interface Given {
  value?: unknown;
  absent?: true;
  fails?: string;
}

/** One property's generator: valid values, invalid ones (each with the property its failure names, `.` for the property itself). */
interface Spec {
  valid: (rng: Rng) => unknown;
  invalid: Array<[unknown, string?]>;
  required: boolean;
}

type Way = "valid" | "invalid" | "unknown" | "absent" | "null" | "undefined";
/** How a case may give a property of the inputs: every way, valid twice as often. */
const WAYS: readonly Way[] = ["valid", "valid", "invalid", "unknown", "absent", "null", "undefined"];
/** How a case may give a property of a member or of a set's user. */
const NESTED_WAYS: readonly Way[] = ["valid", "valid", "invalid", "unknown", "absent", "undefined", "null"];

/** A property given in one of `ways`: valid, invalid, unknown, left out, null or undefined. */
function give(rng: Rng, name: string, spec: Spec, ways: readonly Way[]): Given {
  const how = rng.pick(ways);
  if (how === "valid") return { value: spec.valid(rng) };
  if (how === "unknown") return { value: UNKNOWN };
  if (how === "invalid") {
    const [value, at] = rng.pick(spec.invalid);
    return { value, fails: `${name}${at ?? ""}` };
  }
  const missing = spec.required ? { fails: name } : {};
  if (how === "absent") return { absent: true, ...missing };
  return { value: how === "null" ? null : undefined, ...missing };
}

/** The inputs of a case, and the failures they must cause (by property). */
function inputsOf(rng: Rng, specs: Record<string, Spec>, prefix = ""): { inputs: Props; fails: string[] } {
  const inputs: Props = {};
  const fails: string[] = [];
  for (const [name, spec] of Object.entries(specs)) {
    const given = give(rng, `${prefix}${name}`, spec, prefix === "" ? WAYS : NESTED_WAYS);
    if (!given.absent) inputs[name] = given.value;
    if (given.fails) fails.push(given.fails);
  }
  return { inputs, fails };
}

const bool: Spec = { valid: (rng) => rng.bool(), invalid: [["yes"], [1], [[]]], required: false };
const email: Spec = {
  valid: (rng) => rng.email(),
  invalid: [["nope"], ["a@"], [" a@b.co"], [42], [""], ["a b@c.co"]],
  required: true,
};
const name: Spec = { valid: (rng) => rng.name(), invalid: [[""], ["   "], [7], ["x".repeat(101)]], required: true };
const userRole: Spec = { valid: (rng) => rng.pick([...KNOWN_USER_ROLES, "workspace_astronaut"]), invalid: [[""], [5]], required: false };
const uuid = (rng: Rng) => rng.caseOf(INTEGRATION);
const integrationId: Spec = { valid: uuid, invalid: [["youtube"], ["../users"], [5], [""]], required: true };
const userId: Spec = { valid: (rng) => rng.caseOf(rng.uuid()), invalid: [["a/b"], ["x?y"], [3], [".."]], required: true };
const entitlements: Spec = {
  valid: (rng) => rng.setOf(rng.subset(CATALOGUE)),
  invalid: [["VIEWER"], [[]], [["VIEWER", "A/B"], "[1]"], [[""], "[0]"], [["A..B", "VIEWER"], "[0]"], [[7], "[0]"]],
  required: true,
};
const memberRole: Spec = {
  valid: (rng) => rng.pick(["account_owner", "account_collaborator"]),
  invalid: [["owner"], [2]],
  required: false,
};

const USER: Record<string, Spec> = {
  email,
  firstName: name,
  lastName: name,
  role: userRole,
  isGuest: bool,
  adoptExisting: bool,
  deleteOnDestroy: bool,
};
const ENTITLEMENT: Record<string, Spec> = {
  integrationId,
  userId,
  entitlements,
  role: memberRole,
  adoptExisting: bool,
  deleteOnDestroy: bool,
};

/** Asserts what every `check` must: no `undefined`, each failure named and reasoned, exactly the expected properties. */
function expectChecked(result: pulumi.dynamic.CheckResult, fails: string[], what: Record<string, unknown>) {
  const said = shown({ ...what, expected: fails, result });
  expect(undefinedPaths(result), said).toEqual([]);
  const failures = result.failures ?? [];
  for (const f of failures) {
    expect(typeof f.property === "string" && f.property.length > 0, said).toBe(true);
    expect(typeof f.reason === "string" && f.reason.length > 0, said).toBe(true);
  }
  expect([...new Set(failures.map((f) => f.property))].sort(), said).toEqual([...new Set(fails)].sort());
  if (fails.length === 0 && !containsUnknown(what.inputs)) expect(denormalised(result.inputs), said).toEqual([]);
}

/**
 * Where valid, known inputs are not in the form `check` promises (its output is what `diff` compares and `create` sends): an
 * id not in lower case, a set not sorted or with repeats, members not sorted by user id, a `null` left.
 */
function denormalised(value: unknown, path = "inputs"): string[] {
  if (value === null) return [`${path} is null`];
  if (Array.isArray(value)) return value.flatMap((v, i) => denormalised(v, `${path}[${i}]`));
  if (typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const at = `${path}.${k}`;
    const own: string[] = [];
    if ((k === "integrationId" || k === "userId") && v !== String(v).toLowerCase()) own.push(`${at} not in lower case`);
    if (k === "entitlements" && JSON.stringify(v) !== JSON.stringify([...new Set(v as string[])].sort()))
      own.push(`${at} not a sorted set`);
    if (k === "members" && Array.isArray(v)) {
      const ids = v.map((m) => String((m as Props).userId));
      if (JSON.stringify(ids) !== JSON.stringify([...ids].sort())) own.push(`${at} not sorted by userId`);
    }
    return [...own, ...denormalised(v, at)];
  });
}

/** A key in a property path as Pulumi writes it: `.name`, or quoted where it is no name (`["ann@example.com"]`). */
const step = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);

/** Now and then a key the schema does not have, which fails naming itself. */
function maybeTypo(rng: Rng, inputs: Props, fails: string[]) {
  if (!rng.bool(0.15)) return;
  const key = rng.pick(["emial", "entitlement", "roles", "extra"]);
  inputs[key] = "x";
  fails.push(key);
}

async function world() {
  const emu = await emulator({
    seed: {
      integrations: [{ id: INTEGRATION, application: "App", entitlements: CATALOGUE.map((id) => ({ id })) }],
    },
  });
  await configureFor(emu, {}, { info: () => {}, warn: () => {} });
  return emu;
}

describe("check, generated", () => {
  it("User: every failure by its property, unknowns let through, no undefined", async () => {
    await world();
    await forCases("check user", CASES, async (rng) => {
      const { inputs, fails } = inputsOf(rng, USER);
      maybeTypo(rng, inputs, fails);
      expectChecked(await userProvider.check!({}, { ...inputs, __provider: PROVIDER }), fails, { inputs });
    });
  });

  it("IntegrationEntitlement: every failure by its property, unknowns let through, no undefined", async () => {
    await world();
    await forCases("check entitlement", CASES, async (rng) => {
      const { inputs, fails } = inputsOf(rng, ENTITLEMENT);
      // An unknown after the entitlement ids given, valid or not (an empty list stays empty: its failure is its own).
      if (rng.bool(0.3) && Array.isArray(inputs.entitlements) && inputs.entitlements.length > 0)
        inputs.entitlements = [...(inputs.entitlements as unknown[]), UNKNOWN];
      maybeTypo(rng, inputs, fails);
      expectChecked(await entitlementProvider.check!({}, { ...inputs, __provider: PROVIDER }), fails, { inputs });
    });
  });

  it("IntegrationMembers: every failure by its property (members[i].userId, members[i].entitlements[j]), no undefined", async () => {
    await world();
    await forCases("check members", CASES, async (rng) => {
      const top = inputsOf(rng, { integrationId, removeUnmanaged: bool, deleteOnDestroy: bool });
      const inputs = top.inputs;
      const fails = [...top.fails];
      const how = rng.pick(["list", "list", "list", "unknown", "invalid", "absent"] as const);
      if (how === "unknown") inputs.members = UNKNOWN;
      if (how === "invalid") {
        inputs.members = rng.pick(["alice", 3, { userId: "x" }]);
        fails.push("members");
      }
      if (how === "absent") fails.push("members");
      if (how === "list") {
        const seen = new Map<string, number>();
        const listed = Array.from({ length: rng.int(0, 4) }, (_, i) => {
          const member = inputsOf(rng, { userId, entitlements, role: memberRole }, `members[${i}].`);
          // Now and then a user listed twice, in another case: the later one fails, whatever the other members hold.
          if (rng.bool(0.2) && seen.size > 0 && member.fails.length === 0 && typeof member.inputs.userId === "string") {
            const earlier = rng.pick([...seen.keys()]);
            member.inputs.userId = rng.caseOf(earlier);
            member.fails.push(`members[${i}].userId`);
            return member;
          }
          const id = member.inputs.userId;
          if (typeof id === "string" && id !== UNKNOWN && !member.fails.includes(`members[${i}].userId`) && /^[\w-]+$/.test(id)) {
            if (seen.has(id.toLowerCase())) {
              member.fails.push(`members[${i}].userId`);
              return member;
            }
            seen.set(id.toLowerCase(), i);
          }
          return member;
        });
        inputs.members = listed.map((m) => m.inputs);
        // A whole member not known yet (a preview) after the others: no failure of its own.
        if (rng.bool(0.15)) (inputs.members as unknown[]).push(UNKNOWN);
        for (const m of listed) fails.push(...m.fails);
      }
      maybeTypo(rng, inputs, fails);
      expectChecked(await membersProvider.check!({}, { ...inputs, __provider: PROVIDER }), fails, { inputs });
    });
  });

  it('WorkspaceUsers: every failure by its user\'s path (users["ann@example.com"].firstName), no undefined', async () => {
    await world();
    await forCases("check workspace users", CASES, async (rng) => {
      const fails: string[] = [];
      const users: Props = {};
      for (let i = rng.int(0, 3); i > 0; i--) {
        // The key is the email in lower case, as the program's class keys the users (a valid email given in any case).
        const given = give(rng, "email", email, NESTED_WAYS);
        const known = typeof given.value === "string" && given.value !== UNKNOWN;
        const key = known ? emailKey(given.value as string) : rng.email().toLowerCase();
        const user = inputsOf(rng, { firstName: name, lastName: name, role: userRole, isGuest: bool }, `users${step(key)}.`);
        if (!given.absent) user.inputs.email = known && !given.fails ? rng.caseOf(given.value as string) : given.value;
        if (given.fails) user.fails.push(`users${step(key)}.email`);
        // Two invalid emails with one key: one user (the program's class fails a user listed twice).
        if (key in users) continue;
        users[key] = user.inputs;
        fails.push(...user.fails);
      }
      // A user not known yet (a preview) beside the others, or the whole set: no failure of its own.
      if (rng.bool(0.1)) users[rng.email().toLowerCase()] = UNKNOWN;
      const inputs: Props = { users: rng.bool(0.05) ? UNKNOWN : users };
      if (inputs.users === UNKNOWN) fails.splice(0);
      if (rng.bool(0.2)) inputs.deleteOnDestroy = rng.bool();
      expectChecked(await usersProvider.check!({}, { ...inputs, __provider: PROVIDER }), fails, { inputs });
    });
  });
});
