import { describe, expect, it } from "vitest";
import { ConfigurationError, parseBaseUrl, WorkspaceAccessClient } from "../../src/client";
import { completeSettings, NUMERIC_SETTINGS, problemsOf, readBaseUrl, refusal, settingFields, zod } from "../../src/client/settings";

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

  it("refuses a time over a day, whose milliseconds a timer would not take (it fires after 1 ms past 2^31 - 1)", () => {
    const options = { baseUrl: "https://a.example.com/", apiKey: "k-123456", cacheDir: false as const };
    expect(() => new WorkspaceAccessClient({ ...options, maxRateLimitWaitSeconds: 30 * 86_400 })).toThrow(
      "maxRateLimitWaitSeconds must be a number of at least 0 and at most 86400 (a day), got 2592000",
    );
    expect(() => new WorkspaceAccessClient({ ...options, retryMaxDelayMs: 2 ** 31 })).toThrow(
      "retryMaxDelayMs must be a number of at least 0 and at most 86400000 (a day), got 2147483648",
    );
  });
});

describe("a refused base URL as data (for a caller that names the setting its own way, as access.yaml's field)", () => {
  it("gives the URL in its one form, or the problem: the rule, and the value only where it may be shown", () => {
    expect(readBaseUrl("HTTPS://Acme.Example.com/api/v1")).toEqual({ url: new URL("https://acme.example.com/api/v1/") });
    expect(readBaseUrl("http://acme.example.com/api/v1/")).toEqual({
      problem: expect.objectContaining({ kind: "invalid", seen: "http://acme.example.com", rule: expect.stringMatching(/^uses plain/) }),
    });
    const pasted = readBaseUrl("wa_secret_pasted_here");
    expect(pasted).toEqual({ problem: expect.objectContaining({ kind: "invalid", rule: expect.stringMatching(/^is not a URL/) }) });
    expect(JSON.stringify(pasted)).not.toContain("wa_secret_pasted_here");
  });

  it.each(["http://acme.example.com/api/v1/", "ftp://acme.example.com/", "acme"])(
    "words %s as parseBaseUrl does, after whatever name the caller gives",
    (raw) => {
      const read = readBaseUrl(raw);
      if (!("problem" in read)) throw new Error("expected a problem");
      expect(() => parseBaseUrl(raw, "--base-url")).toThrow(`--base-url ${refusal(read.problem)}`);
    },
  );
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
    const build = () =>
      new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: key, settingName: (k) => `workspace-access:${k}` });
    const error = thrown(build);
    expect((error as Error).message).toMatch(/^workspace-access:apiKey is too short to be a workspace API key/);
    expect(ConfigurationError.isInstance(error) && error.setting).toBe("workspace-access:apiKey");
    expect(String(error)).not.toContain(key === "x" ? '"x"' : key);
  });

  it("refuses a key with a line break before anything is sent", () => {
    expect(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: "wa_key\nnext" })).toThrow(/control characters/);
  });

  it("refuses a key a header cannot carry (beyond Latin-1), without echoing it; a Latin-1 one is taken", () => {
    const key = "wa_secret_\u043a\u043b\u044e\u0447_ABCDEFGH";
    const error = thrown(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: key }));
    expect((error as Error).message).toMatch(/^apiKey contains characters a header cannot carry/);
    expect(String(error)).not.toContain(key);
    expect(
      () => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: "wa_secret_\u00e9t\u00e9_ABCDEFGH" }),
    ).not.toThrow();
  });
});

describe("issues as data", () => {
  it("lists an issue per setting, each naming the setting, the rule and the value seen (never the key's)", () => {
    const z = zod();
    const fields = settingFields(z);
    const schema = z.object({ apiKey: fields.apiKey, baseUrl: fields.baseUrl, ...fields.numbers });
    const input = { baseUrl: "http://acme.example.com/", apiKey: "wa key 1234", maxRetries: "1.5", maxConcurrency: 0 };
    const parsed = schema.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(problemsOf(parsed.error!, input)).toEqual([
      { kind: "invalid", key: "apiKey", rule: "contains spaces or control characters: check how it was copied" },
      { kind: "invalid", key: "baseUrl", rule: expect.stringMatching(/^uses plain http:\/\//), seen: "http://acme.example.com" },
      { kind: "range", key: "maxRetries", spec: NUMERIC_SETTINGS.maxRetries, seen: "1.5" },
      { kind: "range", key: "maxConcurrency", spec: NUMERIC_SETTINGS.maxConcurrency, seen: "0" },
    ]);
    // Text is coerced to numbers, as the stack config gives them.
    expect(schema.parse({ baseUrl: "https://a.example.com", apiKey: "wa_key_12345678", maxRetries: "3" })).toMatchObject({ maxRetries: 3 });
  });

  it("takes settings already resolved as they are: they were checked where they were read", () => {
    const resolved = completeSettings({ baseUrl: new URL("https://a.example.com/api/v1/"), apiKey: "wa_key_12345678", maxRetries: 2 });
    expect(resolved).toMatchObject({ resolved: true, maxRetries: 2, maxConcurrency: NUMERIC_SETTINGS.maxConcurrency.default });
    // A value the options' check refuses passes untouched: it is not checked a second time.
    expect(() => new WorkspaceAccessClient({ ...resolved, maxRetries: -1 })).not.toThrow();
    expect(() => new WorkspaceAccessClient({ baseUrl: "https://a.example.com/", apiKey: "wa_key_12345678", maxRetries: -1 })).toThrow(
      "maxRetries must be a whole number of at least 0, got -1",
    );
  });

  it("knows only the client's options: the provider's read cache is the provider's setting", () => {
    expect(Object.keys(NUMERIC_SETTINGS)).not.toContain("readCacheSeconds");
  });
});
