/**
 * A state records the workspace it was written in (`__workspace`): a stack whose config is pointed at another workspace since
 * (a copied stack file, staging for prod) would read every id there as gone, drop it from the state and create it anew. Its
 * diff, refresh, update and delete fail before any request, naming both addresses and the fixes; a state written before the
 * workspace was recorded is taken as it is and records it at its next write or refresh. Each against two emulators, asserting
 * that the second received nothing.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { ProviderContext, type providerOf, useContext } from "../../src/host/provider-runtime";
import { workspaceAddress } from "../../src/host/recorded-workspace";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import { GET_READ, WORKSPACE } from "../../src/shared/input-constants";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

type Provider = ReturnType<typeof providerOf<Record<string, unknown>, Record<string, unknown>>>;
const user = userProvider as unknown as Provider;
const { integrations, users } = DEFAULT_IDS;
/** Each resource, declared to be deleted on a destroy: a delete let through would send a DELETE. */
const resources: Array<[string, Provider, Record<string, unknown>]> = [
  ["User", user, { email: "cy@example.com", firstName: "Cy", lastName: "Young", deleteOnDestroy: true }],
  [
    "IntegrationEntitlement",
    entitlement as unknown as Provider,
    { integrationId: integrations.slack, userId: users.grace, entitlements: ["MEMBER"], deleteOnDestroy: true },
  ],
  [
    "IntegrationMembers",
    members as unknown as Provider,
    { integrationId: integrations.youtube, members: [{ userId: users.alan, entitlements: ["VIEWER"] }], deleteOnDestroy: true },
  ],
  [
    "WorkspaceUsers",
    set as unknown as Provider,
    { users: { "dee@example.com": { email: "dee@example.com", firstName: "Dee", lastName: "Dean" } }, deleteOnDestroy: true },
  ],
];

/** `provider`'s resource created on a first emulator, its host then configured for a second one (the stack config re-pointed). */
async function createdThenRepointed(provider: Provider, declared: Record<string, unknown>) {
  const first = await emulator({ seed: defaultSeed() });
  await configureFor(first);
  const { inputs } = await provider.check!({}, declared);
  const { id, outs } = await provider.create(inputs!);
  const second = await emulator({ seed: defaultSeed() });
  await configureFor(second);
  const sentToFirst = first.requests.length;
  return { first, second, inputs: inputs!, id, outs: outs!, sentToFirst };
}

/** The refusal's message: both addresses, the resource, and each fix. */
function expectRefusal(message: string, type: string, id: string, first: Emulator, second: Emulator) {
  expect(message).toContain(`The ${type} ${id} was written in the workspace at ${first.url}`);
  expect(message).toContain(`the settings (workspace-access:baseUrl) now name ${second.url}. Nothing was sent`);
  expect(message).toContain(`point the stack back: pulumi config set workspace-access:baseUrl ${first.url}.`);
  expect(message).toContain("pulumi state delete <urn>");
  expect(message).toContain("pulumi stack init");
}

describe("a state records the workspace it was written in", () => {
  it.each(resources)("%s: its create records the base URL in force, and a diff shows no change for it", async (_, provider, declared) => {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { inputs } = await provider.check!({}, declared);
    const { id, outs } = wire(await provider.create(inputs!));
    expect(outs?.[WORKSPACE]).toBe(emu.url);
    expect((await provider.diff!(id, outs!, inputs!)).changes).toBe(false);
  });

  it.each([
    ["HTTP://LOCALHOST:80/api/v1", "http://localhost/api/v1/"],
    ["https://Acme.Example.com:443/api/v1//", "https://acme.example.com/api/v1/"],
    ["https://acme.example.com:8443/API/v1/", "https://acme.example.com:8443/API/v1/"],
  ])("in one form: %s is recorded as %s", (given, recorded) => {
    expect(workspaceAddress(given)).toBe(recorded);
  });

  it("a base URL written otherwise for the same workspace is the same workspace: nothing refused", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { inputs } = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const { id, outs } = await user.create(inputs!);
    await configureFor(emu, { "workspace-access:baseUrl": emu.url.replace("http://", "HTTP://").replace(/\/$/, "") });
    expect((await user.diff!(id, outs!, inputs!)).changes).toBe(false);
    expect((await user.read!(id, outs!)).props?.[WORKSPACE]).toBe(emu.url);
  });

  it("a class's static get (a read with no state) records the workspace it read in", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { props } = wire(await user.read!(users.grace, { [GET_READ]: users.grace } as never));
    expect(props?.[WORKSPACE]).toBe(emu.url);
  });
});

describe("a state written in another workspace than the settings name", () => {
  it.each(resources)("%s: its diff fails naming both addresses and the fixes, before any request", async (type, provider, declared) => {
    const { first, second, inputs, id, outs, sentToFirst } = await createdThenRepointed(provider, declared);
    const { message } = await rejection(provider.diff!(id, outs, inputs));
    expectRefusal(message, type, id, first, second);
    expect(second.requests).toEqual([]);
    expect(first.requests).toHaveLength(sentToFirst);
  });

  it.each(resources)("%s: its refresh fails the same way and drops nothing, before any request", async (type, provider, declared) => {
    const { first, second, id, outs, sentToFirst } = await createdThenRepointed(provider, declared);
    const { message } = await rejection(provider.read!(id, outs));
    expectRefusal(message, type, id, first, second);
    // A refresh's host checked nothing: the configuration may be the state's, which a fix of the stack config does not reach.
    expect(message).toContain("once the stack config is fixed, run pulumi refresh --run-program (or pulumi up first).");
    expect(second.requests).toEqual([]);
    expect(first.requests).toHaveLength(sentToFirst);
  });

  it.each(resources)("%s: its update fails the same way, before any request", async (type, provider, declared) => {
    const { first, second, inputs, id, outs, sentToFirst } = await createdThenRepointed(provider, declared);
    const { message } = await rejection(provider.update!(id, outs, inputs));
    expectRefusal(message, type, id, first, second);
    expect(second.requests).toEqual([]);
    expect(first.requests).toHaveLength(sentToFirst);
  });

  it.each(resources)("%s: its delete fails the same way, deleting nothing in either", async (type, provider, declared) => {
    const { first, second, id, outs, sentToFirst } = await createdThenRepointed(provider, declared);
    const { message } = await rejection(provider.delete!(id, outs));
    expectRefusal(message, type, id, first, second);
    expect(message).toContain("run pulumi destroy --run-program (or pulumi up first).");
    expect(second.requests).toEqual([]);
    expect(first.requests).toHaveLength(sentToFirst);
  });

  it("pointed back, the same state is read again", async () => {
    const { first, id, outs } = await createdThenRepointed(user, resources[0]![2]);
    await configureFor(first);
    const { id: read, props } = await user.read!(id, outs);
    expect(read).toBe(id);
    expect(props?.[WORKSPACE]).toBe(first.url);
  });

  it("an address built from a workspace and a host is pointed back by the one of the two that changed", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { inputs } = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const { id, outs } = await user.create(inputs!);
    const recorded = { ...outs, [WORKSPACE]: "https://acme-staging.example.com/api/v1/" };
    const config = { "workspace-access:workspace": "acme", "workspace-access:host": "example.com", "workspace-access:apiKey": emu.apiKey };
    useContext(new ProviderContext({ get: (key: string) => config[key as keyof typeof config], require: () => "" }));
    const { message } = await rejection(user.diff!(id, recorded, inputs!));
    expect(message).toContain(
      "the settings (workspace-access:workspace and workspace-access:host) now name https://acme.example.com/api/v1/.",
    );
    expect(message).toContain("point the stack back: pulumi config set workspace-access:workspace acme-staging.");
    expect(message).not.toContain("pulumi config set workspace-access:host");
  });

  it("an address the environment gives is pointed back there", async () => {
    const { first, second, inputs, id, outs } = await createdThenRepointed(user, resources[0]![2]);
    const env = { WORKSPACE_ACCESS_BASE_URL: second.url, WORKSPACE_ACCESS_API_KEY: second.apiKey };
    useContext(new ProviderContext({ get: () => undefined, require: () => "" }, { env }));
    const { message } = await rejection(user.diff!(id, outs, inputs));
    expect(message).toContain(`the settings (WORKSPACE_ACCESS_BASE_URL) now name ${second.url}`);
    expect(message).toContain(`point the stack back: set the environment variable WORKSPACE_ACCESS_BASE_URL=${first.url}.`);
  });
});

describe("a state written before the workspace was recorded", () => {
  /** A resource created on a fresh emulator, its state as the package wrote it before: no `__workspace`. */
  async function olderState(provider: Provider, declared: Record<string, unknown>) {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { inputs } = await provider.check!({}, declared);
    const { id, outs } = await provider.create(inputs!);
    const { [WORKSPACE]: _, ...state } = outs!;
    // The next command's host: what this one's create learnt is not known there.
    await configureFor(emu);
    return { emu, id, inputs: inputs!, state, sent: emu.requests.length };
  }

  it.each(resources)("%s: its diff shows no change, and its refresh is sent and records the workspace", async (_, provider, declared) => {
    const { emu, id, inputs, state, sent } = await olderState(provider, declared);
    expect((await provider.diff!(id, state, inputs)).changes).toBe(false);
    const { props } = wire(await provider.read!(id, state));
    expect(emu.requests.length).toBeGreaterThan(sent);
    expect(props?.[WORKSPACE]).toBe(emu.url);
  });

  it.each(resources)("%s: its update is sent and records the workspace", async (_, provider, declared) => {
    const { emu, id, inputs, state } = await olderState(provider, declared);
    const { outs } = wire(await provider.update!(id, state, inputs));
    expect(outs?.[WORKSPACE]).toBe(emu.url);
  });

  it.each(resources)("%s: its delete is sent", async (_, provider, declared) => {
    const { emu, id, state, sent } = await olderState(provider, declared);
    await provider.delete!(id, state);
    expect(emu.requests.slice(sent).map((r) => `${r.method} ${r.status}`)).toContainEqual(expect.stringMatching(/^DELETE 20\d$/));
  });
});
