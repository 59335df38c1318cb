/**
 * Bad input through the providers' `Check` (issue 6, "Bad input"), in-process against the emulator:
 * every case is rejected with the property named, and the emulator receives no request at all.
 * Each case on a fresh provider context (a host process's) and emulator. A few
 * cases also run as a whole `pulumi up` (test/reliability/bad-input.test.ts), which must fail at
 * check with the property named.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator/index.ts";
import { provider as entitlementProvider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const USER = "User";
const youtube = DEFAULT_IDS.integrations.youtube;
const goodUser = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const goodEntitlement = { integrationId: youtube, userId: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f01", entitlements: ["VIEWER"] };

let emu: Emulator;

async function check(type: string, news: Record<string, unknown>) {
  const p = type === USER ? userProvider : entitlementProvider;
  return wire(await p.check!({}, news));
}

const badEmails: Array<[string, string]> = [
  ["missing @", "alice.example.com"],
  ["nothing after @", "alice@"],
  ["nothing before @", "@example.com"],
  ["two @", "alice@@example.com"],
  ["space inside", "al ice@example.com"],
  ["space in the domain", "alice@exa mple.com"],
  ["leading space", " alice@example.com"],
  ["trailing space", "alice@example.com "],
  ["trailing dot", "alice@example.com."],
  ["no dot in the domain", "alice@localhost"],
  ["double dot", "alice@example..com"],
  ["Cyrillic а lookalike in the local part", "\u0430lice@example.com"],
  ["Cyrillic е lookalike in the domain", "alice@\u0435xample.com"],
  ["fullwidth @", "alice\uff20example.com"],
  ["zero-width space", "ali\u200bce@example.com"],
  ["newline injection", "alice@example.com\nBcc: eve@example.com"],
  ["empty", ""],
  ["not a string", 42],
  ["over 254 characters", `${"a".repeat(250)}@example.com`],
] as unknown as Array<[string, string]>;

const userCases: Array<[string, Record<string, unknown>, string]> = [
  ...badEmails.map(([what, email]): [string, Record<string, unknown>, string] => [`email: ${what}`, { ...goodUser, email }, "email"]),
  ["empty firstName", { ...goodUser, firstName: "" }, "firstName"],
  ["whitespace firstName", { ...goodUser, firstName: " \t " }, "firstName"],
  ["whitespace lastName", { ...goodUser, lastName: "   " }, "lastName"],
  ["firstName over 100 characters", { ...goodUser, firstName: "A".repeat(101) }, "firstName"],
  ["lastName over 100 characters", { ...goodUser, lastName: "D".repeat(5_000) }, "lastName"],
  ["missing lastName", { email: goodUser.email, firstName: "Alice" }, "lastName"],
  ["non-boolean isGuest", { ...goodUser, isGuest: "yes" }, "isGuest"],
  ["empty role", { ...goodUser, role: "" }, "role"],
  ["unknown input property", { ...goodUser, password: "hunter2" }, "password"],
];

const entitlementCases: Array<[string, Record<string, unknown>, string]> = [
  ["entitlements not an array", { ...goodEntitlement, entitlements: "VIEWER" }, "entitlements"],
  ["entitlements an object", { ...goodEntitlement, entitlements: { VIEWER: true } }, "entitlements"],
  ["a number among entitlements", { ...goodEntitlement, entitlements: ["VIEWER", 7] }, "entitlements[1]"],
  ["an empty list", { ...goodEntitlement, entitlements: [] }, "entitlements"],
  ["an empty id", { ...goodEntitlement, entitlements: [""] }, "entitlements[0]"],
  ["an id with /", { ...goodEntitlement, entitlements: ["VIEWER/../ADMIN"] }, "entitlements[0]"],
  ["an id with ..", { ...goodEntitlement, entitlements: ["VIEWER..ADMIN"] }, "entitlements[0]"],
  ["an id with %2F", { ...goodEntitlement, entitlements: ["VIEWER%2FADMIN"] }, "entitlements[0]"],
  ["an id with ?", { ...goodEntitlement, entitlements: ["VIEWER?x=1"] }, "entitlements[0]"],
  ["an id with #", { ...goodEntitlement, entitlements: ["VIEWER#x"] }, "entitlements[0]"],
  ["an id with a space", { ...goodEntitlement, entitlements: ["VIEWER "] }, "entitlements[0]"],
  ["integrationId not a UUID", { ...goodEntitlement, integrationId: "youtube" }, "integrationId"],
  ["integrationId with a path", { ...goodEntitlement, integrationId: `${youtube}/users` }, "integrationId"],
  ["integrationId ..", { ...goodEntitlement, integrationId: ".." }, "integrationId"],
  ["userId with /", { ...goodEntitlement, userId: "../../users" }, "userId"],
  ["userId with %2F", { ...goodEntitlement, userId: "a%2Fb" }, "userId"],
  ["userId with ?", { ...goodEntitlement, userId: "a?b=c" }, "userId"],
  ["userId with #", { ...goodEntitlement, userId: "a#b" }, "userId"],
  ["empty userId", { ...goodEntitlement, userId: "" }, "userId"],
  ["unknown role", { ...goodEntitlement, role: "account_admin" }, "role"],
  ["unknown input property", { ...goodEntitlement, entitlement: "VIEWER" }, "entitlement"],
];

describe("Check rejects bad input, property named, zero requests", () => {
  beforeEach(async () => {
    emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
  });

  it("accepts the good inputs (the table's baseline)", async () => {
    expect((await check(USER, goodUser)).failures).toEqual([]);
    expect((await check("IntegrationEntitlement", goodEntitlement)).failures).toEqual([]);
    // Good entitlements are a new set: their ids are looked up in the integration's catalogue,
    // the one request a check may send (once per integration and host). Bad input sends none.
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${youtube}/entitlements`]);
    emu.clearRequests();
  });

  it.each(userCases)("User: %s", async (_what, news, property) => {
    const { failures } = await check(USER, news);
    expect(failures?.map((f) => f.property)).toContain(property);
    for (const f of failures ?? []) expect(f.reason.length).toBeGreaterThan(5);
    expect(emu.requests).toHaveLength(0);
  });

  it.each(entitlementCases)("IntegrationEntitlement: %s", async (_what, news, property) => {
    const { failures } = await check("IntegrationEntitlement", news);
    expect(failures?.map((f) => f.property)).toContain(property);
    expect(emu.requests).toHaveLength(0);
  });
});
