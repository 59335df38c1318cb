import type { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  checkInputs,
  integrationEntitlementInputs,
  integrationMembersInputs,
  sameJson,
  sameSet,
  userInputs,
} from "../../src/shared/inputs";
import { UNKNOWN } from "../../src/shared/unknown";
import { workspaceUsersInputs } from "../../src/shared/workspace-users-inputs";

const INTEGRATION = "D538422E-B135-4EE0-8393-54EECBCB4A07";

describe("the input schemas' outputs: the types of the inputs after check", () => {
  it("an IntegrationEntitlement: ids in their one form, entitlements a sorted set, adoptExisting defaulted, a role only where declared", () => {
    const parsed = integrationEntitlementInputs.parse({ integrationId: INTEGRATION, userId: "User-1", entitlements: ["b", "a", "b"] });
    expect(parsed).toEqual({
      integrationId: INTEGRATION.toLowerCase(),
      userId: "user-1",
      entitlements: ["a", "b"],
      adoptExisting: false,
    });
  });

  it("an IntegrationMembers: members sorted by user id, each set sorted, a role only where declared, removeUnmanaged defaulted", () => {
    const parsed = integrationMembersInputs.parse({
      integrationId: INTEGRATION,
      members: [
        { userId: "zed", entitlements: ["VIEWER"] },
        { userId: "Ann", entitlements: ["EDITOR", "ADMIN"], role: "account_owner" },
      ],
    });
    expect(parsed).toEqual({
      integrationId: INTEGRATION.toLowerCase(),
      members: [
        { userId: "ann", entitlements: ["ADMIN", "EDITOR"], role: "account_owner" },
        { userId: "zed", entitlements: ["VIEWER"] },
      ],
      removeUnmanaged: false,
    });
  });

  it("a User: role and isGuest stay absent when left out (the service's value is kept), adoptExisting defaulted", () => {
    const parsed = userInputs.parse({ email: "ann@example.com", firstName: "Ann", lastName: "Lee" });
    expect(parsed).toEqual({ email: "ann@example.com", firstName: "Ann", lastName: "Lee", adoptExisting: false });
  });

  it("defaults and normalising add no failure and hide none: check still names each property", () => {
    expect(checkInputs(integrationEntitlementInputs, { integrationId: INTEGRATION, userId: "u", entitlements: [] }).failures).toEqual([
      { property: "entitlements", reason: "entitlements must name at least one entitlement (to remove access, delete the resource)" },
    ]);
    expect(
      checkInputs(integrationMembersInputs, { integrationId: INTEGRATION, members: [{ userId: "u", entitlements: ["A"], role: "boss" }] })
        .failures,
    ).toEqual([{ property: "members[0].role", reason: "role must be one of account_owner, account_collaborator" }]);
  });
});

describe("check during a preview: a value not known yet hides no failure of the others", () => {
  it("an IntegrationMembers: one member's userId unknown, another's bad, a third's role bad: both named", () => {
    const { failures, parsed } = checkInputs(integrationMembersInputs, {
      integrationId: INTEGRATION,
      members: [
        { userId: UNKNOWN, entitlements: ["VIEWER"] },
        { userId: "bad/id", entitlements: [] },
        { userId: "ok", entitlements: ["VIEWER"], role: "owner" },
        { userId: UNKNOWN, entitlements: [UNKNOWN] },
      ],
    });
    expect(failures.map((f) => f.property)).toEqual(["members[1].userId", "members[1].entitlements", "members[2].role"]);
    expect(parsed).toBe(false);
  });

  it("a WorkspaceUsers: one user's email unknown, another's firstName empty: named", () => {
    const { failures } = checkInputs(workspaceUsersInputs, {
      users: {
        "ann@example.com": { email: UNKNOWN, firstName: "Ann", lastName: "Lee" },
        "bob@example.com": { email: "bob@example.com", firstName: "", lastName: "Ray" },
      },
    });
    expect(failures.map((f) => f.property)).toEqual(['users["bob@example.com"].firstName']);
  });

  it("an IntegrationEntitlement: an unknown entitlement beside a bad one; a whole list unknown; an unknown input still named", () => {
    const check = (news: Record<string, unknown>) =>
      checkInputs(integrationEntitlementInputs, { integrationId: INTEGRATION, userId: "u", entitlements: ["VIEWER"], ...news }).failures;
    expect(check({ entitlements: ["VIEWER", UNKNOWN, "a/b"] }).map((f) => f.property)).toEqual(["entitlements[2]"]);
    expect(check({ entitlements: UNKNOWN, userId: UNKNOWN, integrationId: UNKNOWN })).toEqual([]);
    expect(check({ entitlements: UNKNOWN, extra: UNKNOWN }).map((f) => f.property)).toEqual(["extra"]);
  });
});

describe("check during an up: an id another resource has not made is left out by the engine", () => {
  // `pulumi up --target <membership>` leaving its User out: the engine drops the unknown `userId: user.id` from check's inputs.
  it.each<[string, z.ZodObject, Record<string, unknown>, string]>([
    ["an IntegrationEntitlement's userId", integrationEntitlementInputs, { integrationId: INTEGRATION, entitlements: ["A"] }, "userId"],
    ["an IntegrationEntitlement's integrationId", integrationEntitlementInputs, { userId: "u", entitlements: ["A"] }, "integrationId"],
    ["an IntegrationMembers' integrationId", integrationMembersInputs, { members: [] }, "integrationId"],
    [
      "an IntegrationMembers member's userId",
      integrationMembersInputs,
      { integrationId: INTEGRATION, members: [{ userId: "u", entitlements: ["A"] }, { entitlements: ["A"] }] },
      "members[1].userId",
    ],
  ])("%s: named as not set, with the --target that leaves its resource out and the fix", (_, schema, news, property) => {
    const { failures } = checkInputs(schema, news);
    expect(failures).toHaveLength(1);
    expect(failures[0]?.property).toBe(property);
    expect(failures[0]?.reason).toMatch(/^(userId|integrationId) is not set: /);
    expect(failures[0]?.reason).toContain("pulumi up --target");
    expect(failures[0]?.reason).toContain("target that resource too");
  });

  it("a value of the wrong type still says what it must be", () => {
    const { failures } = checkInputs(integrationEntitlementInputs, { integrationId: 7, userId: 7, entitlements: ["A"] });
    expect(failures.map((f) => f.reason)).toEqual([
      "integrationId must be a UUID such as d538422e-b135-4ee0-8393-54eecbcb4a07",
      "userId must be a string",
    ]);
  });

  it("an integration named where its id goes (a label, an application) says how to look the id up", () => {
    const { failures } = checkInputs(integrationEntitlementInputs, { integrationId: "youtube", userId: "u1", entitlements: ["A"] });
    expect(failures.map((f) => f.reason)).toEqual([
      "integrationId must be a UUID such as d538422e-b135-4ee0-8393-54eecbcb4a07 (to name an integration by its application " +
        'or label: integrationId: wa.getIntegrationOutput({ application: "YouTube" }).id)',
    ]);
    const members = checkInputs(integrationMembersInputs, { integrationId: "YouTube acme", members: [] });
    expect(members.failures.map((f) => f.reason)).toEqual([expect.stringContaining("wa.getIntegrationOutput({ application: ")]);
  });

  it("an email where a userId goes says how to look the id up, without echoing the email", () => {
    const hint =
      'userId must contain only letters, digits, "_" and "-" (an email: userId: wa.getUserOutput({ email: "<the email>" }).id, or a User\'s id: userId: <user>.id)';
    const one = checkInputs(integrationEntitlementInputs, { integrationId: INTEGRATION, userId: "alan@example.com", entitlements: ["A"] });
    expect(one.failures).toEqual([{ property: "userId", reason: hint }]);
    const members = checkInputs(integrationMembersInputs, {
      integrationId: INTEGRATION,
      members: [
        { userId: "u1", entitlements: ["A"] },
        { userId: "Alan@Example.com", entitlements: ["A"] },
      ],
    });
    expect(members.failures).toEqual([{ property: "members[1].userId", reason: hint }]);
    // Another character refused is no email: the message alone.
    const other = checkInputs(integrationEntitlementInputs, { integrationId: INTEGRATION, userId: "a/b", entitlements: ["A"] });
    expect(other.failures.map((f) => f.reason)).toEqual(['userId must contain only letters, digits, "_" and "-"']);
  });
});

describe("check: a property given as null is not set, as one left out", () => {
  it.each<[string, z.ZodObject, Record<string, unknown>]>([
    ["a User's role and isGuest", userInputs, { email: "ann@example.com", firstName: "Ann", lastName: "Lee", role: null, isGuest: null }],
    [
      "an IntegrationEntitlement's role",
      integrationEntitlementInputs,
      { integrationId: INTEGRATION, userId: "u", entitlements: ["A"], role: null },
    ],
    [
      "an IntegrationMembers' removeUnmanaged",
      integrationMembersInputs,
      { integrationId: INTEGRATION, members: [], removeUnmanaged: null },
    ],
  ])("%s: no failure, and the inputs are the schema's output without it", (_, schema, news) => {
    const { failures, inputs, parsed } = checkInputs(schema, news);
    expect(failures).toEqual([]);
    expect(parsed).toBe(true);
    expect(Object.values(inputs)).not.toContain(null);
    expect(inputs).toEqual(schema.parse(Object.fromEntries(Object.entries(news).filter(([, v]) => v !== null))));
  });
});

describe("sameSet", () => {
  it.each([
    [["a", "b"], ["b", "a", "a"], true],
    [["a"], ["a", "b"], false],
    [[], [], true],
    [["a"], undefined, false],
    [["a", 1], ["a", 1], false],
    ["a", "a", false],
  ])("%j and %j: %s", (a, b, same) => {
    expect(sameSet(a, b)).toBe(same);
  });
});

describe("sameJson: check's output against the inputs a create is handed (keys in another order, no undefined)", () => {
  it.each([
    [{ a: 1, b: [{ x: "1", y: ["p"] }] }, { b: [{ y: ["p"], x: "1" }], a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, b: null }, false],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: [] }, { a: {} }, false],
    [{ a: { b: 1 } }, { a: { b: "1" } }, false],
    [{ a: 1 }, { a: 1, c: 2 }, false],
  ])("%j and %j: %s", (a, b, same) => {
    expect(sameJson(a, b)).toBe(same);
    expect(sameJson(b, a)).toBe(same);
  });
});
