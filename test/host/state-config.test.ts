/**
 * A `pulumi refresh` or `destroy` runs no program: without `--run-program`, the host is configured with the provider
 * configuration the state recorded at the last `pulumi up` (test/cli/state-config.test.ts shows the engine doing so). A fix of
 * the stack config does not reach it: a setting it refuses says so, and what to run. A preview or an up checks each resource
 * first, with the stack config now, and says nothing of the kind.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { ProviderContext, type providerOf, useContext } from "../../src/host/provider-runtime";
import { provider as user } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import { GET_READ } from "../../src/shared/input-constants";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const stack = (values: Record<string, string>) => ({
  rawConfig: values,
  get: (key: string) => values[key],
  require: (key: string) => values[key] ?? "",
});
/** A stack config holding a value the package refuses (as a failed `up` records it in the state). */
const refused = {
  "workspace-access:baseUrl": "https://acme.example.com/api/v1/",
  "workspace-access:apiKey": "wa_key_12345678",
  "workspace-access:maxRetries": "lots",
};
const ID = "5D0C4A3B-6B8E-4B55-9C53-6C1D3E0D1A10";
const state = { email: "cy@example.com", firstName: "Cy", lastName: "Young", role: "workspace_user", adopted: false };
const RULE = "workspace-access:maxRetries must be a whole number";

describe("a setting refused in a refresh or a destroy", () => {
  it("a refresh says it runs with the state's configuration, and to run it with --run-program (or up first)", async () => {
    useContext(new ProviderContext(stack(refused)));
    const { message } = await rejection(user.read!(ID, state as never));
    expect(message).toContain(RULE);
    expect(message).toContain(
      "Without --run-program, pulumi refresh uses the provider configuration recorded in the state at the last pulumi up, not " +
        "the stack config now: once the stack config is fixed, run pulumi refresh --run-program (or pulumi up first).",
    );
  });

  it("a destroy says so too, naming pulumi destroy --run-program", async () => {
    useContext(new ProviderContext(stack(refused)));
    const { message } = await rejection(user.delete!(ID, state as never));
    expect(message).toContain(RULE);
    expect(message).toContain("Without --run-program, pulumi destroy uses the provider configuration recorded in the state");
    expect(message).toContain("run pulumi destroy --run-program (or pulumi up first).");
  });

  it("a process that checked a resource (a preview or an up, with the stack config now) says nothing of the state", async () => {
    useContext(new ProviderContext(stack(refused)));
    const checked = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    expect(checked.failures?.map((failure) => failure.reason)).toEqual([expect.stringContaining(RULE)]);
    for (const operation of [user.read!(ID, state as never), user.delete!(ID, state as never)]) {
      const { message } = await rejection(operation);
      expect(message).toContain(RULE);
      expect(message).not.toContain("--run-program");
    }
  });

  it("a class's static get, read in a preview or an up with the stack config now, says nothing of the state", async () => {
    useContext(new ProviderContext(stack(refused)));
    const { message } = await rejection(user.read!(ID, { [GET_READ]: ID } as never));
    expect(message).toContain(RULE);
    expect(message).not.toContain("--run-program");
  });

  it("a value the environment gave is read now: its message says nothing of the state", async () => {
    const env = { WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com/", WORKSPACE_ACCESS_API_KEY: "wa_key_12345678" };
    useContext(new ProviderContext(stack({}), { env }));
    const { message } = await rejection(user.read!(ID, state as never));
    expect(message).toContain("WORKSPACE_ACCESS_BASE_URL");
    expect(message).not.toContain("--run-program");
  });
});

describe("a destroy refused the stack's key", () => {
  const { integrations, users } = DEFAULT_IDS;
  const HINT =
    "Without --run-program, pulumi destroy uses the provider configuration recorded in the state at the last pulumi up, so " +
    "after a key rotation it still sends the old key: run pulumi destroy --run-program (or pulumi up first).";
  type Provider = ReturnType<typeof providerOf<Record<string, unknown>, Record<string, unknown>>>;
  const resources: Array<[string, Provider, Record<string, unknown>]> = [
    ["User", user as unknown as Provider, { email: "cy@example.com", firstName: "Cy", lastName: "Young" }],
    [
      "IntegrationEntitlement",
      entitlement as unknown as Provider,
      { integrationId: integrations.slack, userId: users.grace, entitlements: ["MEMBER"] },
    ],
    [
      "IntegrationMembers",
      members as unknown as Provider,
      { integrationId: integrations.youtube, members: [{ userId: users.alan, entitlements: ["VIEWER"] }] },
    ],
    [
      "WorkspaceUsers",
      set as unknown as Provider,
      { users: { "dee@example.com": { email: "dee@example.com", firstName: "Dee", lastName: "Dean" } } },
    ],
  ];

  /** A resource created with the old key, which is then revoked (a missing scope answers 401, as an expired key does). */
  async function revokedAfterCreate(provider: Provider, inputs: Record<string, unknown>) {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu);
    const { inputs: checked } = await provider.check!({}, inputs);
    const { id, outs } = await provider.create(checked!);
    emu.addKey(emu.apiKey, []);
    emu.setMissingScopeStatus(401);
    return { emu, id, outs: outs! };
  }

  it.each(resources)("%s: its delete says the key sent may be the state's old one, and what to run", async (_, provider, inputs) => {
    const { emu, id, outs } = await revokedAfterCreate(provider, inputs);
    // A destroy's host: configured, never asked to check.
    await configureFor(emu);
    const { message } = await rejection(provider.delete!(id, outs));
    expect(message).toContain("answered 401");
    expect(message).toContain(HINT);
  });

  it("an up's delete (a resource checked in the process, with the stack config now) says nothing of the state", async () => {
    const { emu, id, outs } = await revokedAfterCreate(user as unknown as Provider, resources[0]![2]);
    await configureFor(emu);
    await user.check!({}, { email: "eve@example.com", firstName: "Eve", lastName: "Hart" });
    const { message } = await rejection(user.delete!(id, outs as never));
    expect(message).toContain("The key comes from workspace-access:apiKey");
    expect(message).not.toContain("--run-program");
  });

  it("a key the environment gave is read now: the delete says nothing of the state", async () => {
    const { emu, id, outs } = await revokedAfterCreate(user as unknown as Provider, resources[0]![2]);
    const env = { WORKSPACE_ACCESS_BASE_URL: emu.url, WORKSPACE_ACCESS_API_KEY: emu.apiKey };
    useContext(new ProviderContext(stack({}), { clock: clockOf(emu), env }));
    const { message } = await rejection(user.delete!(id, outs as never));
    expect(message).toContain("The key comes from the environment variable WORKSPACE_ACCESS_API_KEY");
    expect(message).not.toContain("--run-program");
  });
});
