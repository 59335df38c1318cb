/**
 * Bad input through the real dynamic-provider host's `Check` (issue 6, "Bad input"): every case is
 * rejected with the property named, and the emulator receives no request at all. The table runs
 * against one host process (Check after Check, as the engine sends them); a few cases also run as a
 * whole `up`, which must fail at check with the property named.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { serializedProvider } from "../../src/program/serialized-provider.ts";
import { startEngineService, type EngineService } from "../engine/engine-service.ts";
import type { GrpcExchange, Project } from "../engine/index.ts";
import { packedProject } from "../engine/packed.ts";
import { makeSecret, type PropertyMap } from "../engine/properties.ts";
import { ProviderHost } from "../engine/provider-host.ts";
import { loadPulumiProtos } from "../engine/pulumi-protos.ts";
import { distinctiveKey, expectNoKeyLeak, header, type Scenario, scenario, stepOf, userProgram } from "./support";

const USER = "pulumi-nodejs:dynamic/workspace-access:User";
const ENTITLEMENT = "pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement";
const youtube = DEFAULT_IDS.integrations.youtube;
const goodUser = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const goodEntitlement = { integrationId: youtube, userId: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f01", entitlements: ["VIEWER"] };

let emu: Emulator;
let project: Project;
let engine: EngineService;
let host: ProviderHost;
const key = distinctiveKey();
const exchanges: GrpcExchange[] = [];

beforeAll(async () => {
  emu = await startEmulator({ apiKey: key, seed: defaultSeed() });
  project = await packedProject({ files: { "index.ts": header } });
  const protos = loadPulumiProtos(project.dir);
  engine = await startEngineService(protos, "urn:pulumi:dev::e2e::pulumi:pulumi:Stack::e2e-dev");
  host = await ProviderHost.start({
    protos,
    projectDir: project.dir,
    projectName: "e2e",
    engineAddress: engine.address,
    env: { ...process.env },
    pluginConfig: {},
    exchanges,
  });
  const args: PropertyMap = { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": makeSecret(key) };
  const variables = { "pulumi-nodejs:config:workspace-access:baseUrl": emu.url, "pulumi-nodejs:config:workspace-access:apiKey": key };
  await host.handshake(engine.address, project.dir);
  await host.getPluginInfo();
  await host.configure("urn:pulumi:dev::e2e::pulumi:providers:pulumi-nodejs::default", randomUUID(), variables, args);
});

afterAll(async () => {
  await host?.close();
  await engine?.close();
  await emu?.close();
  await project?.remove();
});

async function check(type: string, news: Record<string, unknown>) {
  const provider = serializedProvider(type === USER ? "user" : "integration-entitlement");
  return host.check(`urn:pulumi:dev::e2e::${type}::x`, type, "x", {}, { ...(news as PropertyMap), __provider: provider });
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

describe("Check in the dynamic-provider host rejects bad input, property named, zero requests", () => {
  it("accepts the good inputs (the table's baseline)", async () => {
    expect((await check(USER, goodUser)).failures).toEqual([]);
    expect((await check(ENTITLEMENT, goodEntitlement)).failures).toEqual([]);
    // Good entitlements are a new set: their ids are looked up in the integration's catalogue,
    // the one request a check may send (once per integration and host). Bad input sends none.
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /integrations/${youtube}/entitlements`]);
    emu.clearRequests();
  });

  it.each(userCases)("User: %s", async (_what, news, property) => {
    const { failures } = await check(USER, news);
    expect(failures.map((f) => f.property)).toContain(property);
    for (const f of failures) expect(f.reason.length).toBeGreaterThan(5);
    expect(emu.requests).toHaveLength(0);
  });

  it.each(entitlementCases)("IntegrationEntitlement: %s", async (_what, news, property) => {
    const { failures } = await check(ENTITLEMENT, news);
    expect(failures.map((f) => f.property)).toContain(property);
    expect(emu.requests).toHaveLength(0);
  });

  it("kept the host alive throughout", () => {
    expect(host.exit).toBeUndefined();
    expect(exchanges.filter((x) => x.method === "Check" && x.error)).toHaveLength(0);
    expect(emu.requests).toHaveLength(0);
    expect(JSON.stringify(exchanges.filter((x) => x.method !== "Configure"))).not.toContain(key);
    expect(host.stdout + host.stderr).not.toContain(key);
  });
});

describe("a whole up with bad input", () => {
  const open: Scenario[] = [];
  afterAll(async () => {
    for (const s of open.splice(0)) {
      try {
        expectNoKeyLeak(s);
      } finally {
        await s.close();
      }
    }
  });

  it("fails at check, names the properties, sends nothing and records nothing", async () => {
    const program = `${header}
const u = new wa.User("mallory", { email: "mallory@example.com.", firstName: " ", lastName: "M" });
new wa.IntegrationEntitlement("sneaky", { integrationId: "${youtube}", userId: "../../users", entitlements: ["ADMIN%2F..", "VIEWER"] });
`;
    const s = await scenario({ program, emulator: { seed: defaultSeed() } });
    open.push(s);
    const error = await s.fails("up");
    expect(error.operation).toBe("check");
    const reasons = s.results[0]!.errors.map((e) => e.message).join("\n");
    expect(reasons).toMatch(/email: /);
    expect(reasons).toMatch(/firstName: /);
    // Whichever registration failed first, the engine started no create.
    expect(s.results[0]!.grpc.filter((x) => x.method === "Create")).toHaveLength(0);
    expect(s.emu.requests).toHaveLength(0);
    expect(s.stack.state().resources.filter((r) => r.custom)).toHaveLength(0);
  });

  it("an entitlement id that would reach another endpoint fails at check", async () => {
    const program = `${header}
new wa.IntegrationEntitlement("sneaky", { integrationId: "${youtube}", userId: "${DEFAULT_IDS.users.alan}", entitlements: ["VIEWER", "../../../users?x=#"] });
`;
    const s = await scenario({ program, emulator: { seed: defaultSeed() } });
    open.push(s);
    const error = await s.fails("up");
    expect(error.operation).toBe("check");
    expect(error.message).toContain("entitlements[1]");
    expect(s.emu.requests).toHaveLength(0);
  });

  it("an unknown workspace role warns and does not fail check", async () => {
    const program = userProgram({}).concat(
      `new wa.User("wiz", { email: "wiz@example.com", firstName: "W", lastName: "Z", role: "workspace_wizard" });\n`,
    );
    const s = await scenario({ program });
    open.push(s);
    // A preview: Check passes (the service itself may still refuse the role; the emulator does).
    const preview = await s.preview();
    expect(stepOf(preview, "wiz").op).toBe("create");
    expect(preview.grpc.find((x) => x.method === "Check")?.response).toMatchObject({ failures: [] });
    const warning = preview.engineLogs.find((l) => l.severity === "warning" && l.message.includes("workspace_wizard"));
    expect(warning?.message).toContain("not one of the known workspace roles");
    expect(s.emu.requests).toHaveLength(0);
  });
});
