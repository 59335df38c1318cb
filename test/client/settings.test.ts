import { describe, expect, it } from "vitest";
import { ConfigurationError, parseBaseUrl, WorkspaceAccessClient } from "../../src/client";

describe("base URL", () => {
  it.each([
    ["https://acme.example.com/api/v1/", "https://acme.example.com/api/v1/"],
    ["https://acme.example.com/api/v1", "https://acme.example.com/api/v1/"],
    ["http://127.0.0.1:8080/api/v1/", "http://127.0.0.1:8080/api/v1/"],
    ["http://localhost:8080/api/v1/", "http://localhost:8080/api/v1/"],
    ["http://[::1]:8080/api/v1/", "http://[::1]:8080/api/v1/"],
  ])("accepts %s", (raw, expected) => {
    expect(parseBaseUrl(raw).href).toBe(expected);
  });

  it.each([
    ["http://acme.example.com/api/v1/", /plain http:\/\/.*use https:\/\//],
    ["http://10.0.0.5/api/v1/", /plain http:\/\//],
    ["ftp://acme.example.com/", /must be an https/],
    ["https://user:pw@acme.example.com/api/v1/", /credentials/],
    ["https://acme.example.com/api/v1/?x=1", /query/],
    ["acme", /is not a URL/],
  ])("refuses %s", (raw, reason) => {
    expect(() => parseBaseUrl(raw)).toThrow(ConfigurationError);
    expect(() => parseBaseUrl(raw)).toThrow(reason);
  });

  it("refuses an empty API key and bad numbers, naming the setting", () => {
    expect(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: " " })).toThrow(/apiKey is required/);
    expect(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: "k-123456", maxRetries: -1 })).toThrow(
      /maxRetries/,
    );
  });
});

/** What `fn` throws; fails the test when it throws nothing. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("keys in the wrong place", () => {
  it("does not echo a value that is not a URL (a key pasted into baseUrl stays out of the message)", () => {
    const error = thrown(() => parseBaseUrl("wa_secret_pasted_here"));
    expect(String(error)).toMatch(/baseUrl is not a URL/);
    expect(String(error)).not.toContain("wa_secret_pasted_here");
  });

  it.each(["x", "true", "k-12345"])("refuses %j, too short to be a key (and to redact), naming the setting as the user sets it", (key) => {
    const build = () => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: key, settingPrefix: "workspace-access:" });
    const error = thrown(build);
    expect((error as Error).message).toMatch(/^workspace-access:apiKey is too short to be a workspace API key/);
    expect(ConfigurationError.isInstance(error) && error.setting).toBe("workspace-access:apiKey");
    expect(String(error)).not.toContain(key === "x" ? '"x"' : key);
  });

  it("refuses a key with a line break before anything is sent", () => {
    expect(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: "wa_key\nnext" })).toThrow(/control characters/);
  });
});
