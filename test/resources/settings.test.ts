import { describe, expect, it } from "vitest";
import { WorkspaceAccessClient } from "../../src/client";
import { NUMERIC_SETTINGS, numberRule } from "../../src/client/settings";
import {
  closestKey,
  readRawSettings,
  resolveProviderSettings,
  settingsProblems,
  unknownKeyReason,
  unknownKeys,
} from "../../src/resources/settings";

const config = (values: Record<string, unknown>) => (key: string) => values[key];

describe("stack config and environment", () => {
  it("takes the workspace's address from one source: stack config names it, the environment's URL is ignored", () => {
    const raw = readRawSettings(
      config({
        "workspace-access:workspace": "globex",
        "workspace-access:host": "example.com",
        "workspace-access:apiKey": "globex-key-123",
      }),
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
      config({
        "workspace-access:baseUrl": "https://a.example.com/api/v1/",
        "workspace-access:apiKey": "k-123456",
        "workspace-access:maxRetries": 2,
      }),
      {},
    );
    expect(resolveProviderSettings(raw).client.maxRetries).toBe(2);
  });

  it("hands workspace-access:maxRequestsPerSecond to the client, whole numbers only; unset, no cap", () => {
    const base = { "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456" };
    expect(
      resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:maxRequestsPerSecond": "20" }), {})).client,
    ).toMatchObject({
      maxRequestsPerSecond: 20,
    });
    expect(resolveProviderSettings(readRawSettings(config(base), {})).client.maxRequestsPerSecond).toBeUndefined();
    expect(NUMERIC_SETTINGS.maxRequestsPerSecond.default).toBe(0);
    expect(() => resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:maxRequestsPerSecond": "2.5" }), {}))).toThrow(
      /workspace-access:maxRequestsPerSecond must be a whole number of at least 0, got "2.5". Run: pulumi config set workspace-access:maxRequestsPerSecond <value>/,
    );
    expect(settingsProblems(["workspace-access:maxRequestsPerSecond"], readRawSettings(config(base), {}))).toEqual([]);
  });

  it.each([
    [{ "workspace-access:maxRetries": "two" }, /workspace-access:maxRetries must be a whole number/],
    [{ "workspace-access:workspace": "ac me", "workspace-access:host": "example.com" }, /single DNS label/],
    [{ "workspace-access:workspace": "acme" }, /workspace-access:host missing/],
  ])("names the key at fault: %j", (values, message) => {
    const raw = readRawSettings(
      config({ "workspace-access:apiKey": "k-123456", "workspace-access:baseUrl": "https://a.example.com/", ...values }),
      {},
    );
    if (!("workspace-access:maxRetries" in values)) delete raw.baseUrl;
    expect(() => resolveProviderSettings(raw)).toThrow(message);
  });
});

describe("keys the package does not read", () => {
  it.each([
    ["workspace-access:apikey", "apiKey"],
    ["workspace-access:baseurl", "baseUrl"],
    ["workspace-access:maxRetry", "maxRetries"],
    ["workspace-access:maxretries", "maxRetries"],
    ["workspace-access:apiKeys", "apiKey"],
    ["workspace-access:jobTimeout", "jobTimeoutSeconds"],
    ["workspace-access:hots", "host"],
  ])("%s: did you mean %s?", (key, meant) => {
    expect(unknownKeys([key, "workspace-access:apiKey", "other:apikey"])).toEqual([key]);
    expect(closestKey(key)).toBe(meant);
    expect(unknownKeyReason(key)).toContain(`did you mean \`workspace-access:${meant}\`?`);
  });

  it("lists the settings when nothing is close", () => {
    expect(closestKey("workspace-access:colour")).toBeUndefined();
    expect(unknownKeyReason("workspace-access:colour")).toContain("the settings are apiKey, baseUrl,");
  });

  it("reports every unknown key and the first invalid setting, each with the command that fixes it", () => {
    const raw = readRawSettings(config({ "workspace-access:baseUrl": "https://a.example.com/", "workspace-access:apiKey": "short" }), {});
    expect(settingsProblems(["workspace-access:apikey", "workspace-access:timeout"], raw)).toEqual([
      expect.stringContaining("Unknown setting `workspace-access:apikey`"),
      expect.stringContaining("Unknown setting `workspace-access:timeout`"),
      expect.stringMatching(/workspace-access:apiKey is too short.*Run: pulumi config set --secret workspace-access:apiKey <value>$/),
    ]);
    expect(
      settingsProblems(
        [],
        readRawSettings(config({ "workspace-access:baseUrl": "https://a.example.com/", "workspace-access:apiKey": "k-123456" }), {}),
      ),
    ).toEqual([]);
  });
});

describe("one set of bounds", () => {
  const numeric = [
    "maxRetries",
    "maxRateLimitWaitSeconds",
    "requestTimeoutSeconds",
    "jobTimeoutSeconds",
    "maxConcurrency",
    "maxRequestsPerSecond",
  ] as const;
  const base = { baseUrl: "https://acme.example.com/api/v1/", apiKey: "wa_key_12345678" };

  it.each(numeric)("%s: the client's option and the stack config accept its least value and refuse below it, in the same words", (key) => {
    const { min } = NUMERIC_SETTINGS[key];
    const below = min >= 1 ? min - 1 : -1;
    expect(() => new WorkspaceAccessClient({ ...base, [key]: min })).not.toThrow();
    expect(() => resolveProviderSettings({ ...base, [key]: String(min) })).not.toThrow();
    const rule = `must be ${numberRule(key)}, got`;
    expect(() => new WorkspaceAccessClient({ ...base, [key]: below })).toThrow(`${key} ${rule} ${below}`);
    expect(() => resolveProviderSettings({ ...base, [key]: String(below) })).toThrow(`workspace-access:${key} ${rule} "${below}"`);
  });
});
