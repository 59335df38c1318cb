/**
 * `IntegrationEntitlement`'s and `IntegrationMembers`' check against the integration's catalogue, in-process: unknown ids
 * fail naming them and the offered ones (closest first); an unchanged set sends nothing; one
 * catalogue request per integration serves every resource; an unreadable catalogue warns.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { closestFirst } from "../../src/host/entitlement-catalogue";
import { provider } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as membersProvider } from "../../src/host/members/integration-members-provider";
import { ProviderContext, useContext } from "../../src/host/provider-runtime";
import { UNKNOWN } from "../../src/shared/unknown";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube, slack } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const base = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] };
const prior = { ...base, entitlements: ["VIEWER"], role: "account_collaborator" };

/** The process's environment as the file found it (the unit tier's files share their worker's process). */
const environment = process.env;
const SETTINGS_VARIABLES = ["WORKSPACE_ACCESS_API_KEY", "WORKSPACE_ACCESS_BASE_URL", "WORKSPACE_ACCESS_WORKSPACE", "WORKSPACE_ACCESS_HOST"];
const settingsFound = SETTINGS_VARIABLES.map((name) => process.env[name]);
let warnings: string[] = [];
const warn = (message: string) => void warnings.push(message);
beforeEach(() => {
  warnings = [];
});

async function setup(extra: Record<string, string> = {}): Promise<Emulator> {
  const emu = await emulator({ seed: defaultSeed() });
  await configureFor(emu, extra, { warn });
  return emu;
}

const catalogueRequests = (emu: Emulator) => emu.requests.filter((r) => r.path.endsWith("/entitlements")).map((r) => r.path);

describe("check against the catalogue", () => {
  it("fails on ids the integration does not offer, naming them and the offered ones, closest first", async () => {
    const emu = await setup();
    const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["EDITOR", "VEIWER", "manager"] }));
    expect(failures).toEqual([
      {
        property: "entitlements",
        reason: `integration ${youtube} offers no entitlement "VEIWER", "manager"; it offers (closest first): MANAGER, VIEWER, EDITOR. See getIntegrationEntitlements({ integrationId }).`,
      },
    ]);
    expect(catalogueRequests(emu)).toEqual([`/integrations/${youtube}/entitlements`]);
    expect(warnings).toEqual([]);
  });

  it("with adoptExisting, warns instead of failing while the user is not known yet (an exported project's first preview)", async () => {
    const emu = await setup();
    const { failures } = wire(
      await provider.check!({}, { ...base, userId: UNKNOWN, entitlements: ["RETIRED", "VIEWER"], adoptExisting: true }),
    );
    expect(failures).toEqual([]);
    expect(warnings).toEqual([
      `entitlements of a user not known yet: integration ${youtube} offers no entitlement "RETIRED"; it offers (closest first): EDITOR, VIEWER, MANAGER. See getIntegrationEntitlements({ integrationId }). Let through because adoptExisting is set: the membership may hold it already.`,
    ]);
    expect(catalogueRequests(emu)).toEqual([`/integrations/${youtube}/entitlements`]);
  });

  it("with adoptExisting and the user known, lets through only an id the member holds already: a misspelt one fails", async () => {
    const emu = await setup();
    emu.integrations.setMember(slack, alan, { entitlements: ["MEMBER", "RETIRED"] });
    const adopted = { integrationId: slack, userId: alan, role: "account_collaborator", entitlements: ["MEMBER"], adoptExisting: true };
    const offers = "it offers (closest first)";
    // An edit of access.yaml (records shape): MEMBER misspelt. The member does not hold it: the preview fails, as without adoptExisting.
    const misspelt = wire(await provider.check!(adopted, { ...adopted, entitlements: ["MEMBR"] }));
    expect(misspelt.failures).toEqual([
      {
        property: "entitlements",
        reason: `integration ${slack} offers no entitlement "MEMBR"; ${offers}: MEMBER, ADMIN, BILLING. See getIntegrationEntitlements({ integrationId }).`,
      },
    ]);
    expect(warnings).toEqual([]);
    // RETIRED, which alan holds (granted before the integration stopped offering it): let through with a warning.
    const held = wire(await provider.check!(adopted, { ...adopted, entitlements: ["ADMIN", "RETIRED"] }));
    expect(held.failures).toEqual([]);
    expect(warnings).toEqual([
      `entitlements of user ${alan}: integration ${slack} offers no entitlement "RETIRED"; ${offers}: MEMBER, ADMIN, BILLING. ` +
        "See getIntegrationEntitlements({ integrationId }). Let through: the member holds it already (granted before the integration stopped offering it).",
    ]);
    // A user who is not a member: nothing is held, the failure stands.
    const { katherine } = DEFAULT_IDS.users;
    const newMember = wire(await provider.check!({}, { ...adopted, userId: katherine, entitlements: ["RETIRED"] }));
    expect(newMember.failures?.map((f) => f.property)).toEqual(["entitlements"]);
  });

  it("passes ids the integration offers", async () => {
    await setup();
    expect(wire(await provider.check!({}, { ...base, entitlements: ["MANAGER", "VIEWER"] })).failures).toEqual([]);
  });

  it.each([
    ["the same set", { ...base }],
    ["the same set in another order, with a duplicate", { ...base, entitlements: ["VIEWER", "VIEWER"] }],
    ["only the role changed", { ...base, role: "account_owner" }],
    ["only the user changed", { ...base, userId: grace }],
  ])("sends nothing when the entitlement set does not change: %s", async (_what, news) => {
    const emu = await setup();
    expect(wire(await provider.check!(prior, news)).failures).toEqual([]);
    expect(emu.requests).toEqual([]);
  });

  it("sends nothing while the integration or an entitlement is not known yet", async () => {
    const emu = await setup();
    await provider.check!({}, { ...base, integrationId: UNKNOWN });
    await provider.check!({}, { ...base, entitlements: ["VIEWER", UNKNOWN] });
    expect(emu.requests).toEqual([]);
  });

  it("sends nothing for inputs that already fail validation", async () => {
    const emu = await setup();
    const { failures } = await provider.check!({}, { ...base, entitlements: ["A/B"] });
    expect(failures?.map((f) => f.property)).toEqual(["entitlements[0]"]);
    expect(emu.requests).toEqual([]);
  });

  it("reads a catalogue once whatever the case its integration id is written in", async () => {
    const emu = await setup();
    await provider.check!({}, { ...base, entitlements: ["EDITOR"] });
    await provider.check!({}, { ...base, integrationId: base.integrationId.toUpperCase(), entitlements: ["EDITOR"] });
    expect(emu.requests.filter((r) => r.path.endsWith("/entitlements"))).toHaveLength(1);
  });

  it("reads each integration's catalogue once for all resources, moved and changed ones included", async () => {
    const emu = await setup();
    const checks = [];
    for (let i = 0; i < 25; i++) {
      checks.push(provider.check!({}, { ...base, entitlements: [i % 2 ? "VIEWER" : "EDITOR"] }));
      checks.push(provider.check!(prior, { ...base, integrationId: slack, entitlements: ["MEMBER"] }));
    }
    const results = await Promise.all(checks);
    expect(results.flatMap((r) => r.failures)).toEqual([]);
    expect(catalogueRequests(emu).sort()).toEqual([`/integrations/${youtube}/entitlements`, `/integrations/${slack}/entitlements`].sort());
  });

  it.each([
    [
      "403 (a key without Read integrations, which the contract asks for, or Write integrations, which the document does)",
      { status: 403 },
      "needs the scopes Read integrations (read:integrations) and Write integrations (write:integrations)",
    ],
    ["503 after the client's retries", { status: 503, times: 5 }, "answered 503"],
    [
      "404 while the integration answers (its catalogue not disclosed to the key)",
      { status: 404 },
      "the integration answers, but its catalogue is not disclosed to this key",
    ],
  ])(
    "warns and lets the check pass when the catalogue answers %s",
    async (_what, fault, said) => {
      const emu = await setup({ "workspace-access:maxRetries": "1", "workspace-access:requestTimeoutSeconds": "5" });
      emu.fault({ method: "GET", path: `/integrations/${youtube}/entitlements`, ...fault });
      const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["NOPE"] }));
      expect(failures).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`The entitlements of integration ${youtube} were not checked`);
      expect(warnings[0]).toContain(said);
      expect(warnings[0]).not.toContain(emu.apiKey);
      // Once per integration: the next resource does not ask again, nor warn again.
      const asked = catalogueRequests(emu).length;
      expect(asked).toBeGreaterThan(0);
      await provider.check!({}, { ...base, entitlements: ["NOPE"] });
      expect(catalogueRequests(emu)).toHaveLength(asked);
      expect(warnings).toHaveLength(1);
    },
    30_000,
  );

  it("warns naming the id of a catalogue record it cannot read, not only its position", async () => {
    const emu = await setup();
    const entitlement = (id: string, label: unknown) => ({ id, type: "entitlement", attributes: { group: "primary", label } });
    const body = JSON.stringify({ data: [entitlement("VIEWER", "Viewer"), entitlement("EDITOR", { en: "Editor" })], links: {}, meta: {} });
    emu.fault({ method: "GET", path: `/integrations/${youtube}/entitlements`, body });
    expect(wire(await provider.check!({}, { ...base, entitlements: ["NOPE"] })).failures).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`The entitlements of integration ${youtube} were not checked`);
    expect(warnings[0]).toContain('a record (id EDITOR) that does not match the API contract: field "attributes.label"');
  });

  it("fails the check when the service refuses the key (401), naming where the key comes from, without it", async () => {
    const emu = await setup({ "workspace-access:apiKey": "wa_emu_revoked_0123456789abcdef" });
    // A failure of the check, not an error thrown: the provider host prints a thrown one with its stack.
    const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["VIEWER"] }));
    expect(failures?.map((f) => f.property)).toEqual([""]);
    const message = failures?.[0]?.reason ?? "";
    expect(message).toMatch(/^The API key was refused \(401\) reading integration .* so the preview stops/);
    expect(message).toContain("Write integrations (write:integrations)");
    expect(message).toContain("The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).");
    expect(message).not.toContain("WORKSPACE_ACCESS_API_KEY");
    expect(message).toMatch(/\(GET \S+\/entitlements answered 401: The API key is not valid or has expired.\)$/);
    expect(message).not.toContain("wa_emu_revoked_0123456789abcdef".slice(7, 15));
    expect(warnings).toEqual([]);
    // Told apart from a missing scope by one read that needs only Read integrations; refused too.
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/entitlements 401`,
      `GET /integrations/${youtube} 401`,
    ]);
  });

  it("a 401 for the missing Write integrations scope alone only warns, naming the scope (an adoption's up needs no more)", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    emu.setMissingScopeStatus(401);
    emu.addKey("wa_emu_readonly_0123456789abcdef", ["read:users", "read:integrations", "read:automations"]);
    await configureFor(emu, { "workspace-access:apiKey": "wa_emu_readonly_0123456789abcdef" }, { warn });
    const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["NOPE"] }));
    expect(failures).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`The entitlements of integration ${youtube} were not checked`);
    expect(warnings[0]).toContain("Write integrations (write:integrations)");
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /integrations/${youtube}/entitlements 401`,
      `GET /integrations/${youtube} 200`,
    ]);
  });

  it.each([
    ["document", "warns, naming Write integrations, and lets the check pass", 1],
    ["contract", "checks the entitlements against the catalogue it may now read", 0],
  ] as const)("a read-only key under the %s scope table %s", async (scopeTable, _what, warned) => {
    const emu = await emulator({ seed: defaultSeed(), scopeTable });
    emu.addKey("wa_emu_readonly_0123456789abcdef", ["read:users", "read:integrations", "read:automations"]);
    await configureFor(emu, { "workspace-access:apiKey": "wa_emu_readonly_0123456789abcdef" }, { warn });
    const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["NOPE"] }));
    expect(warnings).toHaveLength(warned);
    if (scopeTable === "document") {
      expect(failures).toEqual([]);
      expect(warnings[0]).toContain("Write integrations (write:integrations)");
    } else {
      expect(failures).toEqual([{ property: "entitlements", reason: expect.stringContaining('offers no entitlement "NOPE"') }]);
      expect(catalogueRequests(emu)).toEqual([`/integrations/${youtube}/entitlements`]);
    }
  });

  it("under the contract's scope table, a key without Read integrations (403) only warns, naming it, as under the document's", async () => {
    const emu = await emulator({ seed: defaultSeed(), scopeTable: "contract" });
    emu.addKey("wa_emu_writeonly_0123456789abcdef", ["read:users", "write:integrations", "read:automations", "write:automations"]);
    await configureFor(emu, { "workspace-access:apiKey": "wa_emu_writeonly_0123456789abcdef" }, { warn });
    const { failures } = wire(await provider.check!({}, { ...base, entitlements: ["NOPE"] }));
    expect(failures).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`The entitlements of integration ${youtube} were not checked`);
    expect(warnings[0]).toContain("needs the scopes Read integrations (read:integrations) and Write integrations (write:integrations)");
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`GET /integrations/${youtube}/entitlements 403`]);
  });

  it("warns and lets the check pass when the catalogue is empty", async () => {
    const emu = await setup();
    const empty = emu.integrations.add({ application: "Jira", entitlements: [] });
    const { failures } = await provider.check!({}, { ...base, integrationId: empty.id, entitlements: ["ANY"] });
    expect(failures).toEqual([]);
    expect(warnings[0]).toContain("its catalogue is empty");
  });

  it("warns once and lets the check pass without settings", async () => {
    for (const name of SETTINGS_VARIABLES) vi.stubEnv(name, undefined);
    try {
      // Unconfigured, as a handler called outside the host: the settings come from the environment alone.
      useContext(new ProviderContext(undefined, { warn }));
      await provider.check!({}, base);
      await provider.check!({}, { ...base, userId: grace });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain("No API key");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("leaves the process's environment as it found it: the unit tier's next files run in the same process", () => {
    expect(process.env).toBe(environment);
    expect(SETTINGS_VARIABLES.map((name) => process.env[name])).toEqual(settingsFound);
  });
});

describe("IntegrationMembers: check against the catalogue", () => {
  const members = (...list: [string, string[]][]) => ({
    integrationId: youtube,
    members: list.map(([userId, entitlements]) => ({ userId, entitlements })),
  });

  it("fails each member whose new set names an id the integration does not offer, by its place in the program's list", async () => {
    const emu = await setup();
    const { failures } = wire(
      await membersProvider.check!({}, members([grace, ["VIEWER"]], [alan, ["MANAGR", "VIEWER"]], [DEFAULT_IDS.users.ada, ["editor"]])),
    );
    expect(failures).toEqual([
      {
        property: "members[1].entitlements",
        reason: `integration ${youtube} offers no entitlement "MANAGR"; it offers (closest first): MANAGER, VIEWER, EDITOR. See getIntegrationEntitlements({ integrationId }).`,
      },
      {
        property: "members[2].entitlements",
        reason: `integration ${youtube} offers no entitlement "editor"; it offers (closest first): EDITOR, VIEWER, MANAGER. See getIntegrationEntitlements({ integrationId }).`,
      },
    ]);
    expect(catalogueRequests(emu)).toEqual([`/integrations/${youtube}/entitlements`]);
  });

  it("lets through, with a warning, a member who holds the id not offered already (retired since): an exported project's first preview", async () => {
    const emu = await setup();
    const { ada } = DEFAULT_IDS.users;
    emu.integrations.setMember(youtube, alan, { entitlements: ["RETIRED", "VIEWER"] });
    emu.integrations.setMember(youtube, ada, { entitlements: ["RETIRED"] });
    emu.clearRequests();
    // alan holds RETIRED; ada holds it but not GONE; grace does not hold it (a member or not, a misspelt id still fails).
    const news = members([alan, ["RETIRED", "VIEWER"]], [ada, ["GONE", "RETIRED"]], [grace, ["RETIRED"]]);
    const { failures } = wire(await membersProvider.check!({}, news));
    const offers = "it offers (closest first)";
    expect(failures).toEqual([
      {
        property: "members[1].entitlements",
        reason: `integration ${youtube} offers no entitlement "GONE", "RETIRED"; ${offers}: VIEWER, EDITOR, MANAGER. See getIntegrationEntitlements({ integrationId }).`,
      },
      {
        property: "members[2].entitlements",
        reason: `integration ${youtube} offers no entitlement "RETIRED"; ${offers}: EDITOR, VIEWER, MANAGER. See getIntegrationEntitlements({ integrationId }).`,
      },
    ]);
    expect(warnings).toEqual([
      `members[0].entitlements of user ${alan}: integration ${youtube} offers no entitlement "RETIRED"; ${offers}: EDITOR, VIEWER, MANAGER. ` +
        "See getIntegrationEntitlements({ integrationId }). Let through: the member holds it already (granted before the integration stopped offering it).",
    ]);
    // The catalogue, then the members named: one list (more of them than its pages; each found there, no read of a miss).
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /integrations/${youtube}/entitlements`,
      `GET /integrations/${youtube}/users`,
    ]);
    // One member named: read directly; not a member (404), so the failure stands.
    emu.clearRequests();
    const { katherine } = DEFAULT_IDS.users;
    const alone = wire(await membersProvider.check!({}, members([katherine, ["RETIRED"]])));
    expect(alone.failures?.map((f) => f.property)).toEqual(["members[0].entitlements"]);
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${youtube}/users/${katherine}`]);
  });

  it("checks only members whose set is new: an unchanged member is not checked, and an unchanged list sends nothing", async () => {
    const emu = await setup();
    // The prior set of alan is not in the catalogue (say, granted before the integration dropped it): keeping it is not a new error.
    const prior = members([alan, ["RETIRED"]], [grace, ["VIEWER"]]);
    expect(wire(await membersProvider.check!(prior, members([grace, ["VIEWER"]], [alan, ["RETIRED"]]))).failures).toEqual([]);
    expect(emu.requests).toEqual([]);
    const { failures } = wire(await membersProvider.check!(prior, members([alan, ["RETIRED"]], [grace, ["VEIWER"]])));
    expect(failures?.map((f) => f.property)).toEqual(["members[1].entitlements"]);
    // The same members in another integration are all new there.
    const moved = wire(await membersProvider.check!(prior, { ...members([alan, ["MEMBER"]]), integrationId: slack }));
    expect(moved.failures).toEqual([]);
    expect(catalogueRequests(emu).sort()).toEqual([`/integrations/${youtube}/entitlements`, `/integrations/${slack}/entitlements`].sort());
  });

  it("sends nothing while the integration or an entitlement is not known yet, and lets them through", async () => {
    const emu = await setup();
    expect(wire(await membersProvider.check!({}, { ...members([alan, ["NOPE"]]), integrationId: UNKNOWN })).failures).toEqual([]);
    expect(wire(await membersProvider.check!({}, members([alan, ["NOPE", UNKNOWN]]))).failures).toEqual([]);
    expect(emu.requests).toEqual([]);
  });

  it("checks a member whose user is created by the same program (user id not known yet at preview), naming its place", async () => {
    const emu = await setup();
    const { failures } = wire(await membersProvider.check!({}, members([grace, ["VIEWER"]], [UNKNOWN, ["VIEWER", "OWNER"]])));
    expect(failures).toEqual([
      {
        property: "members[1].entitlements",
        reason: `integration ${youtube} offers no entitlement "OWNER"; it offers (closest first): VIEWER, MANAGER, EDITOR. See getIntegrationEntitlements({ integrationId }).`,
      },
    ]);
    expect(catalogueRequests(emu)).toEqual([`/integrations/${youtube}/entitlements`]);
    // Even when the prior inputs held the same set for a known user: an unknown user is new.
    const prior = members([grace, ["VIEWER", "OWNER"]]);
    const again = wire(await membersProvider.check!(prior, members([UNKNOWN, ["VIEWER", "OWNER"]])));
    expect(again.failures?.map((f) => f.property)).toEqual(["members[0].entitlements"]);
  });

  it("warns and lets the check pass when the catalogue cannot be read", async () => {
    const emu = await setup({ "workspace-access:maxRetries": "1" });
    emu.fault({ method: "GET", path: `/integrations/${youtube}/entitlements`, status: 403 });
    expect(wire(await membersProvider.check!({}, members([alan, ["NOPE"]]))).failures).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("needs the scopes Read integrations (read:integrations) and Write integrations (write:integrations)");
  });

  it("fails the check, once for the resource, when the service refuses the key (401)", async () => {
    await setup({ "workspace-access:apiKey": "wa_emu_revoked_0123456789abcdef" });
    const { failures } = wire(await membersProvider.check!({}, members([alan, ["VIEWER"]], [grace, ["EDITOR"]])));
    expect(failures?.map((f) => [f.property, f.reason.slice(0, 30)])).toEqual([["", "The API key was refused (401) "]]);
    expect(warnings).toEqual([]);
  });
});

describe("closestFirst", () => {
  it("orders by edit distance to any unknown id, case-insensitively, then by catalogue order", () => {
    expect(closestFirst(["ADMN"], ["MEMBER", "ADMIN", "BILLING"])).toEqual(["ADMIN", "MEMBER", "BILLING"]);
    expect(closestFirst(["viewer"], ["EDITOR", "VIEWER"])).toEqual(["VIEWER", "EDITOR"]);
  });
});
