import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { configure, currentContext, ProviderContext, providerOf, useContext } from "../../src/host/provider-runtime";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { integrationMembersInputs } from "../../src/shared/inputs";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

const stack = (values: Record<string, string>) => ({
  rawConfig: values,
  get: (key: string) => values[key],
  require: (key: string) => values[key] ?? "",
});
const settings = { "workspace-access:baseUrl": "https://acme.example.com/api/v1/", "workspace-access:apiKey": "wa_key_12345678" };

afterEach(() => useContext(undefined));

describe("one provider context per process", () => {
  it("is built by configure and shared by every resource type's provider configured with the same stack config", async () => {
    await configure({ config: stack(settings) });
    const first = currentContext();
    await configure({ config: stack({ ...settings }) });
    expect(currentContext()).toBe(first);
    expect(first.connection()).toBe(currentContext().connection());
    await configure({ config: stack({ ...settings, "workspace-access:maxRetries": "1" }) });
    expect(currentContext()).not.toBe(first);
  });

  it("shows no API key when logged or inspected, before and after its client is built", async () => {
    await configure({ config: stack(settings) });
    const context = currentContext();
    expect(inspect(context, { depth: Infinity })).not.toContain(settings["workspace-access:apiKey"]);
    context.connection();
    expect(inspect(context, { depth: Infinity })).not.toContain(settings["workspace-access:apiKey"]);
  });

  it("is handed to every handler by the provider object", async () => {
    const seen: ProviderContext[] = [];
    const provider = providerOf<{ n: number }, { n: number }>({
      type: "Test",
      create: async (context, inputs) => {
        seen.push(context);
        return { id: "x", outs: inputs };
      },
      delete: async (context) => {
        seen.push(context);
      },
    });
    await provider.configure?.({ config: stack(settings) });
    await provider.create({ n: 1 });
    await provider.delete?.("x", { n: 1 });
    expect(seen).toEqual([currentContext(), currentContext()]);
    expect(provider.update).toBeUndefined();
  });

  it("is built by a test with its own clock and warnings, with no global to reset", () => {
    const clock = new VirtualClock();
    const warnings: string[] = [];
    const context = new ProviderContext(stack({ ...settings, "workspace-access:colour": "blue" }), {
      clock,
      warn: (m) => warnings.push(m),
    });
    expect(context.clock).toBe(clock);
    expect(context.settingsFailures()).toEqual([
      { property: "", reason: expect.stringContaining("Unknown setting `workspace-access:colour`") },
    ]);
    context.warn("careful");
    expect(warnings).toEqual(["careful"]);
  });
});

describe("the inputs a create or update is handed back from check", () => {
  const members = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ userId: `User-${String(i).padStart(4, "0")}`, entitlements: ["VIEWER", "ADMIN", "VIEWER"] }));
  const news = { integrationId: "D538422E-B135-4EE0-8393-54EECBCB4A07", members: members(3), __provider: "p" };
  /** What `context.parseInputs` returns for `handed`, and whether it parsed them again (rather than take check's output). */
  const take = (context: ProviderContext, handed: Record<string, unknown>) => {
    const parse = vi.spyOn(integrationMembersInputs, "parse");
    try {
      return { taken: context.parseInputs(integrationMembersInputs, handed), parsed: parse.mock.calls.length > 0 };
    } finally {
      parse.mockRestore();
    }
  };

  it("are check's output, taken as they are once (keys in the engine's order), and parsed again when they differ", () => {
    const context = new ProviderContext(stack(settings));
    const { inputs, failures } = context.checkInputs(integrationMembersInputs, news);
    expect(failures).toEqual([]);
    // What the engine hands the create: check's output through protobuf, keys in another order, the provider string added.
    const handed = JSON.parse(JSON.stringify({ __provider: "p", removeUnmanaged: false, ...inputs }));
    expect(take(context, handed)).toEqual({ taken: inputs, parsed: false });
    // Once: a second create with the same inputs parses them (equal output).
    expect(take(context, handed)).toEqual({ taken: inputs, parsed: true });
  });

  it("are taken as they are after the host added __provider to the object check returned, as it does before sending it", () => {
    const context = new ProviderContext(stack(settings));
    const result = context.checkInputs(integrationMembersInputs, news);
    // The dynamic-provider host, after check: `inputs[providerKey] = news[providerKey]`, on the very object returned.
    result.inputs.__provider = news.__provider;
    const handed = JSON.parse(JSON.stringify(result.inputs));
    const { __provider: _, ...checked } = handed;
    expect(take(context, handed)).toEqual({ taken: checked, parsed: false });
  });

  it("never stand in for inputs check did not return: those are parsed, and refused when invalid", () => {
    const context = new ProviderContext(stack(settings));
    const { inputs } = context.checkInputs(integrationMembersInputs, news);
    const other = { ...(inputs as object), members: [{ userId: "user-0000", entitlements: ["VIEWER"] }] };
    expect(context.parseInputs(integrationMembersInputs, other)).toEqual({
      ...other,
      members: [{ userId: "user-0000", entitlements: ["VIEWER"] }],
    });
    expect(() =>
      context.parseInputs(integrationMembersInputs, { ...other, members: [{ userId: "a/b", entitlements: ["VIEWER"] }] }),
    ).toThrow(/userId/);
    // A check that failed (or met values not known yet) leaves nothing to take.
    const failed = context.checkInputs(integrationMembersInputs, { ...news, members: [{ userId: "a/b", entitlements: [] }] });
    expect(failed.failures.length).toBeGreaterThan(0);
    expect(take(context, JSON.parse(JSON.stringify(inputs)))).toEqual({ taken: inputs, parsed: false });
  });
});

describe("a refused key's hint", () => {
  // A refresh reads with the key in force: the hint names where that key came from, the stack config or the environment.
  const refreshRefused = async (config: Record<string, string>, env: NodeJS.ProcessEnv) => {
    const emu = await emulator();
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const values = Object.fromEntries(Object.entries(config).map(([key, value]) => [key, value.replace("<url>", emu.url)]));
    const withUrl = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value?.replace("<url>", emu.url)]));
    useContext(new ProviderContext(stack(values), { clock: clockOf(emu), env: withUrl }));
    return (await rejection(userProvider.read!(user.id, { email: "cy@example.com" } as never))).message;
  };
  const refused = "wa_host_not_issued_0000000000000000";

  it("names the stack config, not the environment variable, when the stack config gave the key", async () => {
    const message = await refreshRefused(
      { "workspace-access:baseUrl": "<url>", "workspace-access:apiKey": refused },
      { WORKSPACE_ACCESS_API_KEY: "wa_other_key_0000000000000000" },
    );
    expect(message).toContain("The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).");
    expect(message).not.toContain("WORKSPACE_ACCESS_API_KEY");
  });

  it("names the environment variable, not the stack config, when the environment gave the key", async () => {
    const message = await refreshRefused({}, { WORKSPACE_ACCESS_BASE_URL: "<url>", WORKSPACE_ACCESS_API_KEY: refused });
    expect(message).toContain("The key comes from the environment variable WORKSPACE_ACCESS_API_KEY");
    expect(message).not.toContain("pulumi config set --secret workspace-access:apiKey");
  });
});

describe("the client's messages name a setting where it was set, and only one its user can set", () => {
  const readFailing = async (fault: Parameters<Awaited<ReturnType<typeof emulator>>["fault"]>[0]) => {
    const emu = await emulator();
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    useContext(
      new ProviderContext(stack({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey }), {
        clock: clockOf(emu),
        env: {},
      }),
    );
    emu.fault(fault);
    return (await rejection(userProvider.read!(user.id, { email: "cy@example.com" } as never))).message;
  };

  // The address where this process read it: a variable left in the shell is not the stack config key, nor the reverse.
  it.each([
    ["the environment", {}, { WORKSPACE_ACCESS_BASE_URL: "<url>", WORKSPACE_ACCESS_API_KEY: "<key>" }, "WORKSPACE_ACCESS_BASE_URL"],
    ["the stack config", { "workspace-access:baseUrl": "<url>", "workspace-access:apiKey": "<key>" }, {}, "workspace-access:baseUrl"],
  ])("names the address where it was read, %s, when it is not the workspace API", async (_, config, env, named) => {
    const emu = await emulator();
    const fill = (values: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(values).map(([k, v]) => [
          k,
          v.replace("<url>", emu.url.replace("/api/v1/", "/api/v2/")).replace("<key>", emu.apiKey),
        ]),
      );
    useContext(new ProviderContext(stack(fill(config)), { clock: clockOf(emu), env: fill(env) }));
    const missing = "0b7c2d4e-0000-4000-8000-0000000000aa";
    const message = (await rejection(userProvider.read!(missing, { email: "cy@example.com" } as never))).message;
    expect(message).toContain(`is not the workspace's API root: check ${named}, it should be the API root`);
    expect(message).not.toMatch(named === "WORKSPACE_ACCESS_BASE_URL" ? /workspace-access:/ : /WORKSPACE_ACCESS_/);
    expect(message).not.toContain(emu.apiKey);
  });

  it("names workspace-access:maxRetries, a stack config key, after the retries spent", async () => {
    const message = await readFailing({ method: "GET", path: /./, status: 503, times: 50 });
    expect(message).toContain("Gave up after 5 retries (workspace-access:maxRetries).");
  });

  it("leaves retryMaxDelayMs unnamed, and does not advise raising it: no stack config key sets it", async () => {
    const message = await readFailing({ method: "GET", path: /./, status: 503, headers: { "Retry-After": "60" }, times: 50 });
    expect(message).toContain("It asked to be called again in 60 s (Retry-After), longer than a retry waits (20000 ms): run again later.");
    expect(message).not.toMatch(/retryMaxDelayMs|raise that setting/);
  });
});
