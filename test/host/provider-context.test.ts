import { afterEach, describe, expect, it } from "vitest";
import { configure, currentContext, ProviderContext, providerOf, useContext } from "../../src/host/provider-runtime";
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

  it("is handed to every handler by the provider object", async () => {
    const seen: ProviderContext[] = [];
    const provider = providerOf<{ n: number }, { n: number }>({
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
