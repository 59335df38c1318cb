import { describe, expect, it } from "vitest";
import { WorkspaceAccessClient } from "../../src/client";
import { NUMERIC_SETTINGS, numberRule } from "../../src/client/settings";
import { configure, currentContext, useContext } from "../../src/host/provider-runtime";
import {
  allProblems,
  closestKey,
  keyProblems,
  type RawSettings,
  readRawSettings,
  renderProblem,
  resolveProviderSettings,
  type SettingProblem,
  settingName,
  settingNamesOf,
  unknownKeys,
} from "../../src/shared/settings";

/** Why an unknown key is refused, as a stack's check says it. */
const unknownKeyReason = (key: string) => renderProblem({ kind: "unknown", key, meant: closestKey(key) }, "stack");

const config = (values: Record<string, unknown>) => (key: string) => values[key];

/** The problems of the keys and values, worded for the stack config (as `check` reports them). */
const rendered = (keys: string[], raw: RawSettings, project?: string) =>
  allProblems({ configuredKeys: keys, ...(project !== undefined && { project }) }, raw).map((problem) => renderProblem(problem, "stack"));
/** The problems of the values alone. */
const valueProblems = (raw: RawSettings) => allProblems({ configuredKeys: [] }, raw);

describe("how the client's messages name each setting: where its value was read, never the value", () => {
  const key = "wa_names_key_0123456789";
  // `baseUrl`: the setting giving the address whole, where the address came from; what it was built from, only when it was.
  it.each([
    [
      "the stack config",
      { "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": key },
      {},
      ["workspace-access:baseUrl", undefined],
      "workspace-access:apiKey",
    ],
    [
      "the environment",
      {},
      { WORKSPACE_ACCESS_BASE_URL: "https://a.example.com/api/v1/", WORKSPACE_ACCESS_API_KEY: key },
      ["WORKSPACE_ACCESS_BASE_URL", undefined],
      "WORKSPACE_ACCESS_API_KEY",
    ],
    [
      "the stack config, a workspace and a host beside the base URL (not read)",
      {
        "workspace-access:baseUrl": "https://a.example.com/api/v1/",
        "workspace-access:workspace": "acme",
        "workspace-access:host": "example.com",
        "workspace-access:apiKey": key,
      },
      {},
      ["workspace-access:baseUrl", undefined],
      "workspace-access:apiKey",
    ],
    [
      "the stack config's workspace and host",
      { "workspace-access:workspace": "acme", "workspace-access:host": "example.com", "workspace-access:apiKey": key },
      {},
      ["workspace-access:baseUrl", { workspace: "workspace-access:workspace", host: "workspace-access:host" }],
      "workspace-access:apiKey",
    ],
    [
      "the environment's workspace and host",
      {},
      { WORKSPACE_ACCESS_WORKSPACE: "acme", WORKSPACE_ACCESS_HOST: "example.com", WORKSPACE_ACCESS_API_KEY: key },
      ["WORKSPACE_ACCESS_BASE_URL", { workspace: "WORKSPACE_ACCESS_WORKSPACE", host: "WORKSPACE_ACCESS_HOST" }],
      "WORKSPACE_ACCESS_API_KEY",
    ],
  ])("the address and the key from %s", (_, stack, env, address, apiKey) => {
    const { settingName: names, addressBuiltFrom } = settingNamesOf(
      readRawSettings(config({ ...stack, "workspace-access:maxRetries": "2" }), env),
    );
    expect([names("baseUrl"), addressBuiltFrom]).toEqual(address);
    expect([names("apiKey"), names("maxRetries")]).toEqual([apiKey, "workspace-access:maxRetries"]);
  });

  it("names no client option the package reads no key for: its user cannot set it", () => {
    const names = settingNamesOf(readRawSettings(config({}), { WORKSPACE_ACCESS_API_KEY: key })).settingName;
    expect([names("retryMaxDelayMs"), names("maxRateLimitRetries"), names("jobPollIntervalMs")]).toEqual([undefined, undefined, undefined]);
  });
});

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
    expect(resolveProviderSettings(raw).client.baseUrl.href).toBe("https://globex.example.com/api/v1/");
  });

  it("falls back to the environment for the address when the stack names none, and for the key", () => {
    const raw = readRawSettings(config({}), {
      WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com/api/v1/",
      WORKSPACE_ACCESS_API_KEY: "env-key-123456",
    });
    expect(resolveProviderSettings(raw).client).toMatchObject({
      baseUrl: new URL("https://acme.example.com/api/v1/"),
      apiKey: "env-key-123456",
    });
  });

  it.each([
    [{ "workspace-access:baseUrl": "https://globex.example.com/api/v1/" }],
    [{ "workspace-access:workspace": "globex", "workspace-access:host": "example.com" }],
    [{ "workspace-access:host": "example.com" }],
  ])("a stack config naming the address (%j) takes no key from the environment, and says where to set it", (values) => {
    const raw = readRawSettings(config(values), {
      WORKSPACE_ACCESS_API_KEY: "acme-key-123456",
      WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com/api/v1/",
    });
    expect(raw.apiKey).toBeUndefined();
    expect(() => resolveProviderSettings(raw)).toThrow(
      /^No API key in the stack config, which names the workspace's address: .*WORKSPACE_ACCESS_API_KEY is sent only to the address the environment gives\). Run: pulumi config set --secret workspace-access:apiKey <key>\.$/,
    );
  });

  it.each([
    [{ WORKSPACE_ACCESS_BASE_URL: "http://127.0.0.1:4010/api/v1/" }],
    [{ WORKSPACE_ACCESS_WORKSPACE: "acme", WORKSPACE_ACCESS_HOST: "example.com" }],
  ])("a stack config holding the key takes no address from the environment (%j), and says where to set it", (env) => {
    const raw = readRawSettings(config({ "workspace-access:apiKey": "globex-key-123456" }), env);
    expect([raw.baseUrl, raw.workspace, raw.host]).toEqual([undefined, undefined, undefined]);
    expect(() => resolveProviderSettings(raw)).toThrow(
      /^No workspace address in the stack config, which holds the API key: the address must come from there too .*Run: pulumi config set workspace-access:baseUrl https:\/\/<workspace>\.<host>\/api\/v1\/, or set workspace-access:workspace and workspace-access:host\.$/,
    );
  });

  it("names the environment variable, not a stack key, for a bad value the environment gave", () => {
    const raw = readRawSettings(config({}), {
      WORKSPACE_ACCESS_BASE_URL: "http://acme.example.com/api/v1/",
      WORKSPACE_ACCESS_API_KEY: "env-key-123456",
    });
    expect(() => resolveProviderSettings(raw)).toThrow(
      /^WORKSPACE_ACCESS_BASE_URL "http:\/\/acme\.example\.com.*WORKSPACE_ACCESS_BASE_URL=<value>/,
    );
    expect(() => resolveProviderSettings(raw)).not.toThrow(/pulumi config set/);
  });

  // A newcomer's first address is the workspace's origin: every request would answer 404, which reads as "gone".
  it.each([
    ["workspace-access:baseUrl", { "workspace-access:baseUrl": "http://127.0.0.1:8080" }, {}],
    ["workspace-access:baseUrl", { "workspace-access:baseUrl": "https://acme.example.com/" }, {}],
    ["WORKSPACE_ACCESS_BASE_URL", {}, { WORKSPACE_ACCESS_BASE_URL: "https://acme.example.com" }],
  ])("refuses %s with no path, naming the setting and saying the API is under /api/v1/", (name, stack, env) => {
    const raw = readRawSettings(
      config({ ...stack, ...("workspace-access:baseUrl" in stack && { "workspace-access:apiKey": "k-123456" }) }),
      {
        WORKSPACE_ACCESS_API_KEY: "k-123456",
        ...env,
      },
    );
    const fix = name === "WORKSPACE_ACCESS_BASE_URL" ? "Set WORKSPACE_ACCESS_BASE_URL=<value>" : `Run: pulumi config set ${name} <value>`;
    expect(() => resolveProviderSettings(raw)).toThrow(
      `${name} has no path: the API is under /api/v1/ at the workspace's address, e.g. https://acme.example.com/api/v1/. ${fix}`,
    );
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

  it("hands workspace-access:maxRequestsPerSecond to the client, whole numbers only; unset, no cap (0)", () => {
    const base = { "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456" };
    expect(
      resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:maxRequestsPerSecond": "20" }), {})).client,
    ).toMatchObject({
      maxRequestsPerSecond: 20,
    });
    expect(resolveProviderSettings(readRawSettings(config(base), {})).client.maxRequestsPerSecond).toBe(0);
    expect(NUMERIC_SETTINGS.maxRequestsPerSecond.default).toBe(0);
    expect(() => resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:maxRequestsPerSecond": "2.5" }), {}))).toThrow(
      /workspace-access:maxRequestsPerSecond must be a whole number of at least 0, got "2.5". Run: pulumi config set workspace-access:maxRequestsPerSecond <value>/,
    );
    expect(rendered(["workspace-access:maxRequestsPerSecond"], readRawSettings(config(base), {}))).toEqual([]);
  });

  it.each([
    ["maxRateLimitWaitSeconds", "2592000"],
    ["requestTimeoutSeconds", "86401"],
    ["jobTimeoutSeconds", "1e9"],
  ] as const)("refuses a %s over a day (%s): as a timer's milliseconds it would fire at once", (key, value) => {
    const base = { "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456" };
    const max = "86400";
    expect(() => resolveProviderSettings(readRawSettings(config({ ...base, [`workspace-access:${key}`]: value }), {}))).toThrow(
      `workspace-access:${key} must be a number of at least ${NUMERIC_SETTINGS[key].min} ` +
        `and at most ${max} (a day), got "${value}". Run: pulumi config set workspace-access:${key} <value>`,
    );
    expect(resolveProviderSettings(readRawSettings(config({ ...base, [`workspace-access:${key}`]: max }), {})).client).toMatchObject({
      [key]: Number(max),
    });
  });

  it("refuses a readCacheSeconds over a day, as the other times", () => {
    const base = { "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456" };
    expect(() => resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:readCacheSeconds": "1e9" }), {}))).toThrow(
      'workspace-access:readCacheSeconds must be a number of at least 0 and at most 86400 (a day), got "1e9". ' +
        "Run: pulumi config set workspace-access:readCacheSeconds <value>",
    );
    expect(resolveProviderSettings(readRawSettings(config({ ...base, "workspace-access:readCacheSeconds": "86400" }), {}))).toMatchObject({
      readCacheSeconds: 86400,
    });
  });

  it.each([
    [{ "workspace-access:maxRetries": "two" }, /workspace-access:maxRetries must be a whole number/],
    [{ "workspace-access:workspace": "ac me", "workspace-access:host": "example.com" }, /single DNS label/],
    [{ "workspace-access:workspace": "acme" }, /workspace-access:host missing/],
  ])("names the key at fault: %j", (values, message) => {
    const raw = readRawSettings(
      config({ "workspace-access:apiKey": "k-123456", "workspace-access:baseUrl": "https://a.example.com/api/v1/", ...values }),
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

  it.each([
    ["workspace-acces:apiKey", "apiKey"],
    ["workspace_access:baseUrl", "baseUrl"],
    ["Workspace-Access:host", "host"],
    ["workspace-accses:maxRetries", "maxRetries"],
  ])("a namespace a typo away (%s): did you mean workspace-access:%s?", (key, meant) => {
    const problems = keyProblems([key, "app:colour"], "app");
    expect(problems).toEqual([{ kind: "unknown", key, meant }]);
    expect(renderProblem(problems[0]!, "stack")).toContain(
      `Unknown setting \`${key}\`: did you mean \`workspace-access:${meant}\`? Run: pulumi config rm ${key}`,
    );
  });

  it.each([
    ["the project's own namespace", ["workspace-acces:apiKey"], "workspace-acces"],
    ["a key close to none of the package's", ["workspace-accent:colour"], "app"],
    ["another namespace", ["aws:region", "pulumi:tags"], "app"],
    ["an unknown project (the key may be its own)", ["workspace-acces:apiKey"], undefined],
  ])("leaves alone %s", (_, keys, project) => {
    expect(keyProblems(keys, project)).toEqual([]);
  });

  it("lists the settings when nothing is close", () => {
    expect(closestKey("workspace-access:colour")).toBeUndefined();
    expect(unknownKeyReason("workspace-access:colour")).toContain("the settings are apiKey, baseUrl,");
  });

  it("reports every unknown key and the first invalid setting, each with the command that fixes it", () => {
    const raw = readRawSettings(
      config({ "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "short" }),
      {},
    );
    expect(rendered(["workspace-access:apikey", "workspace-access:timeout"], raw)).toEqual([
      expect.stringContaining("Unknown setting `workspace-access:apikey`"),
      expect.stringContaining("Unknown setting `workspace-access:timeout`"),
      expect.stringMatching(/workspace-access:apiKey is too short.*Run: pulumi config set --secret workspace-access:apiKey <value>$/),
    ]);
    expect(
      rendered(
        [],
        readRawSettings(config({ "workspace-access:baseUrl": "https://a.example.com/api/v1/", "workspace-access:apiKey": "k-123456" }), {}),
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

describe("one pipeline: problems as data, worded where the setting is set", () => {
  const base = { apiKey: "wa_key_12345678", baseUrl: "https://acme.example.com/api/v1/" };

  it("finds each problem once, as the key, the rule and the value seen", () => {
    expect(valueProblems({ ...base, maxRetries: "two", readCacheSeconds: "-1" })).toEqual([
      { kind: "range", key: "maxRetries", spec: NUMERIC_SETTINGS.maxRetries },
      { kind: "range", key: "readCacheSeconds", spec: { default: 5, min: 0, max: 86_400, whole: false }, seen: "-1" },
    ]);
    expect(valueProblems({ apiKey: base.apiKey, workspace: "acme" })).toEqual([{ kind: "no-address", key: "host", missing: ["host"] }]);
    expect(valueProblems(base)).toEqual([]);
  });

  it.each<[SettingProblem, string, string, string]>([
    [
      { kind: "range", key: "maxRetries", spec: NUMERIC_SETTINGS.maxRetries, seen: "-1" },
      'workspace-access:maxRetries must be a whole number of at least 0, got "-1". Run: pulumi config set workspace-access:maxRetries <value>',
      'WORKSPACE_ACCESS_MAX_RETRIES must be a whole number of at least 0, got "-1". Set WORKSPACE_ACCESS_MAX_RETRIES=<value>',
      '--max-retries must be a whole number of at least 0, got "-1". Pass --max-retries <value>',
    ],
    [
      { kind: "missing", key: "apiKey" },
      "No API key for the workspace. Run: pulumi config set --secret workspace-access:apiKey <key> (or set WORKSPACE_ACCESS_API_KEY).",
      "No API key for the workspace. Set WORKSPACE_ACCESS_API_KEY=<key>.",
      "No API key for the workspace. Pass --api-key <key>.",
    ],
    [
      { kind: "no-address", key: "workspace", missing: ["workspace", "host"] },
      "No workspace configured (workspace-access:workspace and workspace-access:host missing). Run: pulumi config set workspace-access:workspace <workspace> and pulumi config set workspace-access:host <host>, or pulumi config set workspace-access:baseUrl https://<workspace>.<host>/api/v1/ (or set WORKSPACE_ACCESS_BASE_URL).",
      "No workspace configured (WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST missing). Set WORKSPACE_ACCESS_WORKSPACE=<workspace> and WORKSPACE_ACCESS_HOST=<host>, or WORKSPACE_ACCESS_BASE_URL=https://<workspace>.<host>/api/v1/.",
      "No workspace configured (--workspace and --host missing). Pass --workspace <workspace> and --host <host>, or --base-url https://<workspace>.<host>/api/v1/.",
    ],
  ])("renders %j for the stack config, the environment and a flag", (problem, stack, env, flag) => {
    expect([renderProblem(problem, "stack"), renderProblem(problem, "env"), renderProblem(problem, "flag")]).toEqual([stack, env, flag]);
  });

  it("names a setting in each place", () => {
    expect(
      ["baseUrl", "readCacheSeconds"].map((key) => [settingName(key, "stack"), settingName(key, "env"), settingName(key, "flag")]),
    ).toEqual([
      ["workspace-access:baseUrl", "WORKSPACE_ACCESS_BASE_URL", "--base-url"],
      ["workspace-access:readCacheSeconds", "WORKSPACE_ACCESS_READ_CACHE_SECONDS", "--read-cache-seconds"],
    ]);
  });

  it.each(["wa key 12345678", "wa_key\n12345678", "k-9x"])("never words the API key's value: %j", (apiKey) => {
    const problems = valueProblems({ ...base, apiKey });
    expect(problems).toHaveLength(1);
    for (const source of ["stack", "env", "flag"] as const) expect(renderProblem(problems[0]!, source)).not.toContain(apiKey.trim());
  });

  // A key pasted into the wrong setting must not reach pulumi preview's output or a log: a refused value is shown only when
  // it has the shape the setting expects (a number for a number, an http:// URL's origin), and never when it holds the key.
  const pasted = "walive9f8e7d6c5b4a39281706";
  it.each([
    [
      "workspace",
      { workspace: `${pasted}.x`, host: "example.com", baseUrl: undefined },
      /^workspace-access:workspace must be a single DNS label .*\. Run: pulumi config set workspace-access:workspace <value>$/,
    ],
    [
      "host",
      { workspace: "acme", host: `${pasted}/x`, baseUrl: undefined },
      /^workspace-access:host must be a host name, e\.g\. example\.com\. Run: pulumi config set workspace-access:host <value>$/,
    ],
    [
      "maxRetries",
      { maxRetries: pasted },
      /^workspace-access:maxRetries must be a whole number of at least 0 \(the value set is not shown, as it may be a secret\)\. Run: pulumi config set workspace-access:maxRetries <value>$/,
    ],
    [
      "readCacheSeconds",
      { readCacheSeconds: pasted },
      /^workspace-access:readCacheSeconds must be a number of at least 0 and at most 86400 \(a day\) \(the value set is not shown, as it may be a secret\)\. Run: pulumi config set workspace-access:readCacheSeconds <value>$/,
    ],
    [
      "baseUrl",
      { baseUrl: `${pasted}:x` },
      /^workspace-access:baseUrl must be an https:\/\/ URL.*Run: pulumi config set workspace-access:baseUrl <value>$/,
    ],
    [
      "baseUrl",
      { baseUrl: `http://${pasted}.example.com/` },
      /^workspace-access:baseUrl uses plain http:\/\/.*Run: pulumi config set workspace-access:baseUrl <value>$/,
    ],
  ])("never words a value refused for %s that could be a secret, naming the setting and the fix", (_, values, message) => {
    // The plain http:// URL's origin is shown, but not when it holds the key.
    const apiKey = (values as { baseUrl?: string }).baseUrl?.startsWith("http://") ? pasted : base.apiKey;
    const problems = valueProblems({ ...base, apiKey, ...values } as RawSettings);
    expect(problems).toHaveLength(1);
    for (const source of ["stack", "env", "flag"] as const) {
      const text = renderProblem(problems[0]!, source);
      expect(text).not.toContain(pasted.slice(0, 8));
      if (source === "stack") expect(text).toMatch(message);
    }
  });

  it("words a refused number that is a number, so the user sees what was read", () => {
    const [problem] = valueProblems({ ...base, maxRetries: "-1" });
    expect(renderProblem(problem!, "stack")).toBe(
      'workspace-access:maxRetries must be a whole number of at least 0, got "-1". Run: pulumi config set workspace-access:maxRetries <value>',
    );
  });

  it("keeps the provider's own knobs out of the client's settings", () => {
    expect(Object.keys(NUMERIC_SETTINGS)).not.toContain("readCacheSeconds");
    const { client, readCacheSeconds } = resolveProviderSettings({ ...base, readCacheSeconds: "0" });
    expect(readCacheSeconds).toBe(0);
    expect(client).not.toHaveProperty("readCacheSeconds");
    expect(client).toMatchObject({ resolved: true, apiKey: base.apiKey, baseUrl: new URL(base.baseUrl) });
  });
});

describe("a project named like the package's namespace", () => {
  const raw = { apiKey: "wa_key_12345678", baseUrl: "https://acme.example.com/api/v1/" };
  const keys = ["workspace-access:team", "workspace-access:apiKey", "workspace-access:baseUrl"];

  it("says the project must be renamed, and never advises deleting its own keys", () => {
    const problems = rendered(keys, raw, "workspace-access");
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('The project is named "workspace-access"');
    expect(problems[0]).toContain("Rename the project");
    expect(problems[0]).toContain("`workspace-access:team`");
    expect(problems[0]).not.toContain("config rm");
    expect(allProblems({ configuredKeys: keys, project: "workspace-access" }, raw)).toEqual([
      { kind: "project-name", key: "workspace-access:team", project: "workspace-access", keys: ["workspace-access:team"] },
    ]);
  });

  it("without the project's name, says a key close to none may be the project's own before any config rm", () => {
    const [reason] = rendered(["workspace-access:team"], raw);
    expect(reason).toMatch(
      /If your project is named workspace-access, this key is its own: rename the project .* Otherwise run: pulumi config rm/,
    );
    expect(rendered(["workspace-access:team"], raw, "infra")[0]).not.toContain("If your project");
  });

  it("leaves other projects' misspelt keys to the usual advice", () => {
    expect(rendered(keys, raw, "infra")).toEqual([expect.stringContaining("Unknown setting `workspace-access:team`")]);
  });

  it("is told by the provider host, which hands configure the project's name with the stack config", async () => {
    const rawConfig: Record<string, string> = {
      "workspace-access:team": "platform",
      "workspace-access:apiKey": raw.apiKey,
      "workspace-access:baseUrl": raw.baseUrl,
    };
    // The shape of the host's Config (`@pulumi/pulumi/cmd/dynamic-provider/config`): rawConfig and projectName.
    const hostConfig = {
      rawConfig,
      projectName: "workspace-access",
      get: (key: string) => rawConfig[key],
      require: (key: string) => rawConfig[key] ?? "",
    };
    try {
      await configure({ config: hostConfig });
      const [failure, ...rest] = currentContext().settingsFailures();
      expect(rest).toEqual([]);
      expect(failure?.reason).toMatch(/^The project is named "workspace-access".*Rename the project/);
      expect(failure?.reason).not.toContain("config rm");
    } finally {
      useContext(undefined);
    }
  });
});

describe("a setting set under the project's own namespace (pulumi config set apiKey, without workspace-access:)", () => {
  const keys = ["app:apiKey", "app:baseUrl"];
  const raw = readRawSettings(config({ "app:apiKey": "wa_key_12345678", "app:baseUrl": "https://acme.example.com/api/v1/" }), {});

  it("names the key set and the one the package reads, with the commands that move it", () => {
    expect(rendered(keys, raw, "app")).toEqual([
      "workspace-access:apiKey is not set, but `app:apiKey` is: a key set without a namespace is the project's own, and the " +
        "package reads its settings under workspace-access: only. Run: pulumi config set --secret workspace-access:apiKey <key> " +
        "(and, if `app:apiKey` was meant for this package, pulumi config rm apiKey)",
      "workspace-access:baseUrl is not set, but `app:baseUrl` is: a key set without a namespace is the project's own, and the " +
        "package reads its settings under workspace-access: only. Run: pulumi config set workspace-access:baseUrl <value> " +
        "(and, if `app:baseUrl` was meant for this package, pulumi config rm baseUrl)",
    ]);
  });

  it("in the program too, before any request (the lookups' and getJob's settings)", () => {
    expect(() => resolveProviderSettings(raw, "stack", { configuredKeys: keys, project: "app" })).toThrow(
      /^workspace-access:apiKey is not set, but `app:apiKey` is: .* Run: pulumi config set --secret workspace-access:apiKey <key> \(and, if/,
    );
  });

  it("leaves a project's own key of the same name alone when the package's is set", () => {
    const both = readRawSettings(
      config({
        "app:apiKey": "other",
        "workspace-access:apiKey": "wa_key_12345678",
        "workspace-access:baseUrl": "https://a.example.com/api/v1/",
      }),
      {},
    );
    expect(rendered(["app:apiKey", "workspace-access:apiKey", "workspace-access:baseUrl"], both, "app")).toEqual([]);
  });

  it("is told by the provider host from the stack config and the project's name it hands configure", async () => {
    const rawConfig: Record<string, string> = { "app:apiKey": "wa_key_12345678", "app:baseUrl": "https://acme.example.com/api/v1/" };
    const hostConfig = {
      rawConfig,
      projectName: "app",
      get: (key: string) => rawConfig[key],
      require: (key: string) => rawConfig[key] ?? "",
    };
    try {
      await configure({ config: hostConfig });
      const [failure, ...rest] = currentContext().settingsFailures();
      expect(rest).toEqual([]);
      expect(failure?.reason).toMatch(/^workspace-access:apiKey is not set, but `app:apiKey` is: .* pulumi config rm apiKey\)$/);
    } finally {
      useContext(undefined);
    }
  });
});
