import { describe, expect, it } from "vitest";
import { readRawSettings, resolveProviderSettings } from "../../src/resources/settings";

const config = (values: Record<string, unknown>) => (key: string) => values[key];

describe("stack config and environment", () => {
  it("takes the workspace's address from one source: stack config names it, the environment's URL is ignored", () => {
    const raw = readRawSettings(
      config({ "workspace-access:workspace": "globex", "workspace-access:host": "example.com", "workspace-access:apiKey": "globex-key-123" }),
      { WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com/api/v1/" },
    );
    expect(resolveProviderSettings(raw).client.baseUrl).toBe("https://globex.example.com/api/v1/");
  });

  it("falls back to the environment for the address when the stack names none, and for the key", () => {
    const raw = readRawSettings(config({}), {
      WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com/api/v1/",
      WORKSPACE_ACCESS_API_KEY: "env-key-123456",
    });
    expect(resolveProviderSettings(raw).client).toMatchObject({ baseUrl: "https://acme.example.com/api/v1/", apiKey: "env-key-123456" });
  });

  it("reads numbers and booleans the engine may hand over as such", () => {
    const raw = readRawSettings(
      config({ "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456", "workspace-access:maxRetries": 2 }),
      {},
    );
    expect(resolveProviderSettings(raw).client.maxRetries).toBe(2);
  });

  it.each([
    [{ "workspace-access:maxRetries": "two" }, /workspace-access:maxRetries must be a whole number/],
    [{ "workspace-access:workspace": "ac me", "workspace-access:host": "example.com" }, /single DNS label/],
    [{ "workspace-access:workspace": "acme" }, /workspace-access:host missing/],
  ])("names the key at fault: %j", (values, message) => {
    const raw = readRawSettings(config({ "workspace-access:apiKey": "k-123456", "workspace-access:baseUrl": "https://a.example.com/", ...values }), {});
    if (!("workspace-access:maxRetries" in values)) delete raw.baseUrl;
    expect(() => resolveProviderSettings(raw)).toThrow(message);
  });
});
