import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnauthorizedError,
  UnknownFailureError,
  WorkspaceAccessClient,
  WorkspaceAccessError,
} from "../../src/client";
import { makeRedactor } from "../../src/client/redact";
import { StubServer } from "../conformance/harness";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";
import { clientOf, oddServer } from "../support/odd-server";
import { VirtualClock } from "../support/virtual-clock";

describe("error statuses", () => {
  it.each([
    [400, BadRequestError, "bad_request", /rejected the request/],
    [
      401,
      UnauthorizedError,
      "unauthorized",
      /expired or revoked, or lack a scope: this operation needs the scope Read users \(read:users\)\./,
    ],
    [402, UnknownFailureError, "unknown_failure", /unknown failure/],
    [403, ForbiddenError, "forbidden", /needs the scope Read users \(read:users\)/],
    [404, NotFoundError, "not_found", /Not found, or not disclosed/],
    [409, ConflictError, "conflict", /conflicts with the current state/],
    [429, RateLimitError, "rate_limited", /maxRateLimitWaitSeconds/],
    [500, ServerError, "server_error", /The service failed/],
    [503, ServerError, "server_error", /The service failed/],
  ] as const)("%i becomes %o with a message that says what to do", async (status, Class, kind, hint) => {
    const emu = await emulator();
    const added = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    emu.fault({ method: "GET", path: `/users/${added.id}`, status, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 0, maxRateLimitWaitSeconds: 0 });
    const error = await rejection(client.users.get(added.id));
    expect(Class.isInstance(error)).toBe(true);
    expect(ApiError.isInstance(error)).toBe(true);
    expect(WorkspaceAccessError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind, status, method: "GET", path: `/api/v1/users/${added.id}` });
    expect(error.message).toMatch(hint);
    expect(error.message).toContain(`GET /api/v1/users/${added.id} answered ${status}`);
  });

  it("carries the API's own code, title, detail and request id", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    const error = await rejection(client.users.get("00000000-0000-4000-8000-000000000000"));
    expect(error).toMatchObject({ status: 404, code: expect.any(String), title: expect.any(String) });
    expect((error as NotFoundError).requestId).toBe(emu.requests[0]?.requestId);
  });

  it("a 429 given up on carries the request id too, as every other error answer", async () => {
    const emu = await emulator();
    emu.fault({ method: "GET", path: "/users", status: 429 });
    const { client } = clientFor(emu, { maxRateLimitWaitSeconds: 0 });
    const error = await rejection(client.users.list().next());
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, detail: "Injected by the emulator.", requestId: emu.requests[0]?.requestId });
    expect(emu.requests[0]?.requestId).toEqual(expect.any(String));
  });

  it("names the missing scope when the emulator answers 403 for a key without it", async () => {
    const emu = await emulator({ keys: { wa_readonly_key_0123456789abcdef: ["read:users"] } });
    issuedKeys.add("wa_readonly_key_0123456789abcdef"); // the key sent: the leak check must look for it
    const { client } = clientFor(emu, { apiKey: "wa_readonly_key_0123456789abcdef" });
    const error = await rejection(
      client.users.create({ email: "x@example.com", firstName: "X", lastName: "Y", role: "workspace_login_only" }),
    );
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Write users (write:users)");
  });

  it("does not leak the key even when the service echoes it in an error detail", async () => {
    const emu = await emulator();
    emu.fault({
      path: "/users",
      status: 400,
      body: JSON.stringify({ errors: [{ code: "bad", title: "Bad", detail: `key ${emu.apiKey} is odd`, status: 400 }] }),
    });
    const { client } = clientFor(emu);
    const error = await rejection(
      client.users.create({ email: "x@example.com", firstName: "X", lastName: "Y", role: "workspace_login_only" }),
    );
    expect(error.message).toContain("[redacted]");
  });
});

describe("a redirect (3xx) is never followed: the error says where it leads and to check baseUrl", () => {
  it.each([
    [
      "another host, its query left out (it may carry a token)",
      "https://login.example.com/sso?next=/api/v1/users&token=t0k",
      "https://login.example.com/sso",
    ],
    ["a path on the same host", "/login?return=%2Fapi", "{origin}/login"],
    ["no Location", undefined, "nowhere it says (no Location)"],
  ])("%s", async (_, location, shown) => {
    const server = await oddServer((_req, res) => {
      res.writeHead(302, location === undefined ? {} : { location });
      res.end();
    });
    const { client } = clientOf(server);
    const error = await rejection(client.users.get("u1"));
    const to = shown.replace("{origin}", new URL(server.url).origin);
    expect(error.message).toBe(
      `GET /api/v1/users/u1 answered 302. It redirects to ${to}. The API does not redirect, and the client follows no redirect ` +
        `(the API key would go with it): check baseUrl (${server.url}): its scheme, host and path, such as https://acme.example.com/api/v1/.`,
    );
    expect(error).toMatchObject({ status: 302, retryable: false });
    expect(server.received).toEqual(["GET /api/v1/users/u1"]);
  });

  it("names an address built from a workspace and a host as built, neither a URL: both to check, or the setting giving it whole", async () => {
    const server = await oddServer((_req, res) => {
      res.writeHead(302, { location: "https://login.example.com/sso" });
      res.end();
    });
    const names = new Map([["baseUrl", "WORKSPACE_ACCESS_BASE_URL"]]);
    const { client } = clientOf(server, {
      settingName: (key) => names.get(key),
      addressBuiltFrom: { workspace: "WORKSPACE_ACCESS_WORKSPACE", host: "WORKSPACE_ACCESS_HOST" },
    });
    const error = await rejection(client.users.get("u1"));
    expect(error.message).toBe(
      "GET /api/v1/users/u1 answered 302. It redirects to https://login.example.com/sso. The API does not redirect, and the " +
        `client follows no redirect (the API key would go with it): ${server.url} is the address built from ` +
        "WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST as https://<workspace>.<host>/api/v1/: check both, or set " +
        "WORKSPACE_ACCESS_BASE_URL to the API root, should it not be of that form.",
    );
  });
});

describe("the API's error meta", () => {
  it("is redacted too when it echoes the key (validation details naming the header)", async () => {
    const emu = await emulator();
    emu.fault({
      path: "/users",
      status: 400,
      body: JSON.stringify({
        errors: [
          {
            code: "bad",
            title: "Bad",
            detail: "invalid",
            status: 400,
            meta: [{ loc: ["header", "x-api-key"], msg: "odd", input: emu.apiKey }],
          },
        ],
      }),
    });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.list().next());
    expect(JSON.stringify((error as BadRequestError).meta)).toContain("[redacted]");
  });
});

describe("an error answer listing several problems (a 400 with an entry per problem)", () => {
  it("names each, the first with its own, the others after it, redacted", async () => {
    const emu = await emulator();
    const entry = (field: string, msg: string) => ({
      code: "validation_error",
      title: "Invalid",
      detail: `Request validation failed: ${field}.`,
      status: 400,
      meta: [{ loc: ["body", "data", "attributes", field], msg, type: "value_error" }],
    });
    const errors = [
      entry("email", "value is not a valid email address"),
      entry("firstName", "ensure this value has at least 1 characters"),
      entry("role", `value is not a valid enumeration member (${emu.apiKey})`),
    ];
    emu.fault({ method: "POST", path: "/users", status: 400, body: JSON.stringify({ errors }) });
    const { client } = clientFor(emu);
    const error = await rejection(
      client.users.create({ email: "a@example.com", firstName: "A", lastName: "B", role: "workspace_login_only" }),
    );
    expect(error.message).toContain(
      "POST /api/v1/users answered 400: Request validation failed: email. It also said: body.data.attributes.firstName: ensure this value has " +
        "at least 1 characters; body.data.attributes.role: value is not a valid enumeration member ([redacted]). The service rejected " +
        "the request (body.data.attributes.email: value is not a valid email address).",
    );
    expect(error.message).not.toContain(emu.apiKey);
  });

  it("names a problem once when the entry's detail already says what its validation meta does", async () => {
    // The emulator's own 400, as a new user meets it: a role that does not exist, its detail `loc: msg` and its meta the same.
    const emu = await emulator();
    const { client } = clientFor(emu);
    const error = await rejection(
      client.users.create({ email: "a@example.com", firstName: "A", lastName: "B", role: "workspace_admin" as "workspace_owner" }),
    );
    const problem = "body.data.attributes.role: value is not a valid enumeration member";
    expect(error.message).toContain(`POST /api/v1/users answered 400: ${problem}`);
    expect(error.message.split(problem)).toHaveLength(2);
    expect(error.message).toContain("The service rejected the request.");
    expect(emu.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(["POST /users 400"]);
  });

  it("past ten, says how many more", async () => {
    const emu = await emulator();
    const errors = Array.from({ length: 13 }, (_, i) => ({ code: "bad", title: "Bad", detail: `problem ${i}`, status: 400 }));
    emu.fault({ path: "/users", status: 400, body: JSON.stringify({ errors }) });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.list().next());
    expect(error.message).toContain(
      "It also said: problem 1; problem 2; problem 3; problem 4; problem 5; problem 6; problem 7; problem 8; problem 9; problem 10; and 2 more.",
    );
  });
});

/** Every run of 8 characters of `key` found in `text`. */
function runsOf(key: string, text: string): string[] {
  const found = new Set<string>();
  for (let i = 0; i + 8 <= key.length; i++) if (text.includes(key.slice(i, i + 8))) found.add(key.slice(i, i + 8));
  return [...found];
}

/** Every string in a value, however deep, object keys included. */
function stringsIn(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([k, v]) => [k, ...stringsIn(v)]);
  return [];
}

/** Fails when 8 or more consecutive characters of `key` appear in the error, its fields, `inspect` of it, or a log line. */
function expectNoRun(key: string, error: Error, logs: readonly string[]): void {
  const e = error as Error & { detail?: unknown; title?: unknown; meta?: unknown; field?: unknown };
  const texts = [
    error.message,
    String(error.stack),
    inspect(error, { depth: 8, showHidden: true }),
    ...stringsIn(e.meta),
    ...stringsIn([e.detail, e.title, e.field]),
    ...stringsIn((error.cause as Error | undefined)?.message),
    ...logs,
  ];
  expect(texts.flatMap((text) => runsOf(key, text))).toEqual([]);
}

const USER = "0e1d0000-0000-4000-8000-000000000001";

/** Keys of every awkward kind (each at least 8 characters; no spaces or control characters, as settings require). */
const KEYS = {
  plain: "wa_live_0123456789abcdefghijklmnopqrstuvwxyzAB",
  quote: 'wa_live_ab"cd"ef0123456789ghijklmnopqrstuvwx',
  backslash: "wa_live_ab\\cd\\ef0123456789ghijklmnopqrstuvwx",
  regex: ["wa_live_.*+?^$", "{}()|[]0123456789ghijklmnopqrst"].join(""),
  latin1: "wa_live_ñandú0123456789ghijklmnopqrstuvwxyzA",
} as const;

describe("the key is redacted before anything else", () => {
  const cases: Array<[name: string, key: string, status: number, body: (key: string) => string]> = [
    [
      "a 200 proxy page echoing request headers, the key straddling the 80-character cut",
      KEYS.plain,
      200,
      // The key starts at character 60 and ends past 100: a cut to 80 characters before redaction keeps 20 of them.
      (key) => `<html><body>Proxy. Request headers: accept: */*; x-api-key: ${key}; host: x</body></html>`,
    ],
    [
      "the same page with a key holding quotes (JSON-escaped when quoted)",
      KEYS.quote,
      200,
      (key) => `<pre>GET /users x-api-key=${key}</pre>`,
    ],
    ["the same page with a key holding backslashes", KEYS.backslash, 200, (key) => `<pre>x-api-key: ${key.repeat(2)}</pre>`],
    [
      "a JSON error whose meta echoes a key holding quotes",
      KEYS.quote,
      400,
      (key) =>
        JSON.stringify({
          errors: [{ code: "bad", title: "Bad", detail: "invalid", status: 400, meta: [{ loc: ["header", "x-api-key"], input: key }] }],
        }),
    ],
    [
      "a JSON error whose meta echoes a key holding backslashes, as an object key too",
      KEYS.backslash,
      422,
      (key) => JSON.stringify({ errors: [{ code: "bad", title: "Bad", detail: "invalid", status: 422, meta: { [key]: { input: key } } }] }),
    ],
    [
      "a detail echoing the key partially (its first 30 characters)",
      KEYS.plain,
      403,
      (key) => JSON.stringify({ errors: [{ code: "no", title: "No", detail: `key ${key.slice(0, 30)}... has no scope`, status: 403 }] }),
    ],
    [
      "a detail echoing the key without its last character, and its middle",
      KEYS.regex,
      404,
      (key) => JSON.stringify({ errors: [{ code: "no", title: "No", detail: `${key.slice(0, -1)} / ${key.slice(5, 20)}`, status: 404 }] }),
    ],
    [
      "a 429 whose meta echoes a latin-1 key, escaped as \\u00XX",
      KEYS.latin1,
      429,
      (key) =>
        JSON.stringify({ errors: [{ code: "slow", title: "Slow", detail: "later", status: 429, meta: { key } }] }).replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
        ),
    ],
    [
      "a 500 page that is not JSON, echoing the key in upper and original case",
      KEYS.regex,
      500,
      (key) => `Internal error for ${key} (${key.toUpperCase()})`,
    ],
  ];

  it.each(cases)("%s", async (_name, key, status, body) => {
    const emu = await emulator({ apiKey: key });
    emu.fault({ method: "GET", path: `/users/${USER}`, status, body: body(key), times: 5 });
    const logs: string[] = [];
    const { client } = clientFor(emu, { maxRetries: 1, maxRateLimitWaitSeconds: 0, logger: (m) => logs.push(m) });
    const error = await rejection(client.users.get(USER));
    // The request did carry the key: the service saw it, so the answer could echo it.
    expect(emu.requests[0]?.hasApiKey).toBe(true);
    expectNoRun(key, error, logs);
    // Where the answer's text reaches the error, the key's place says so (a 5xx page is not quoted).
    if (status !== 500) expect(`${error.message} ${inspect(error, { depth: 8 })}`).toContain("[redacted]");
  });

  it.each(Object.entries({ ...KEYS, unicode: "wa_live_ключ🔑0123456789ghijklmnopqrstuvwxyz" }))(
    "removes every piece of a %s key from any text: whole, JSON-escaped, ASCII-escaped, URL-encoded, cut",
    (_kind, key) => {
      const redact = makeRedactor(key);
      const texts = [
        key,
        `a${key}b`,
        JSON.stringify({ key }),
        JSON.stringify({ key }).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
        encodeURIComponent(key),
        key.slice(0, 8),
        key.slice(3, 17),
        key.slice(-9),
        `${key.slice(0, 12)}…${key.slice(20)}`,
      ];
      for (const text of texts) expect(runsOf(key, redact(text))).toEqual([]);
      // Text without 8 characters of the key in a row is left alone.
      expect(redact("GET /api/v1/users answered 200.")).toBe("GET /api/v1/users answered 200.");
    },
  );
});

describe("a failed job's texts", () => {
  it("are redacted too: errorType and screenshotUrl echoing the key", async () => {
    const key = KEYS.quote;
    const emu = await emulator({ apiKey: key });
    const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }] });
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    emu.jobs.failNext(1, {
      errorType: `bad_key_${key.slice(0, 20)}`,
      screenshotUrl: `https://shots.example/?k=${encodeURIComponent(key)}`,
    });
    const { client } = clientFor(emu);
    const handle = await client.integrations.invite(integration.id, { userIds: [user.id], entitlements: ["VIEWER"] });
    const error = await rejection(handle.wait());
    expect(error.message).toContain("bad_key_");
    expectNoRun(key, error, []);
    expect(runsOf(key, JSON.stringify((error as Error & { errorDetails: unknown }).errorDetails))).toEqual([]);
  });
});

describe("a job that cannot be waited for", () => {
  it("is named redacted: a job id a gateway made of the key, in part, stays out of the error (as in a JobTimeoutError)", async () => {
    const key = KEYS.plain;
    const emu = await emulator({ apiKey: key });
    const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }] });
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const id = `job_${key.slice(0, 20)}`;
    emu.fault({ method: "POST", path: /\/users$/, body: JSON.stringify({ data: { id, type: "job", attributes: { status: "created" } } }) });
    emu.fault({ method: "GET", path: /^\/jobs\//, body: JSON.stringify({ data: { id, type: "job", attributes: {} } }) });
    const { client } = clientFor(emu);
    const handle = await client.integrations.invite(integration.id, { userIds: [user.id], entitlements: ["VIEWER"] });
    const error = await rejection(handle.wait());
    expect(error).toMatchObject({ kind: "invalid_response", field: "data.attributes.status" });
    expectNoRun(key, error, []);
  });
});

describe("records that echo the key", () => {
  it.each(Object.entries(KEYS))("are redacted before they are parsed, in a read and in a list (%s key)", async (_kind, key) => {
    const emu = await emulator({ apiKey: key });
    // A key pasted into a name, and a gateway's copy in a member's entitlement id.
    const user = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: key });
    const other = emu.users.add({ email: "di@example.com", firstName: "Di", lastName: "Ode" });
    const integration = emu.integrations.add({ application: "Slack", label: "acme", entitlements: [{ id: "VIEWER" }] });
    emu.integrations.setMember(integration.id, user.id, { role: "collaborator", entitlements: [`x${key}`] });
    const { client } = clientFor(emu);
    const read = await client.users.get(user.id);
    const listed = [];
    for await (const u of client.users.list()) listed.push(u);
    const members = [];
    for await (const m of client.integrations.listUsers(integration.id)) members.push(m);
    expect(read.lastName).toBe("[redacted]");
    expect(listed.find((u) => u.id === user.id)?.lastName).toBe("[redacted]");
    // Records without it are as the service sent them.
    expect(listed.find((u) => u.id === other.id)?.lastName).toBe("Ode");
    expect(members[0]?.entitlements).toEqual(["x[redacted]"]);
    expect(runsOf(key, JSON.stringify([read, listed, members]))).toEqual([]);
  });
});

describe("records that echo the key in another case", () => {
  it.each(Object.entries(KEYS))("are redacted once parsed, in upper and lower case (%s key)", async (_kind, key) => {
    const emu = await emulator({ apiKey: key });
    const upper = emu.users.add({ email: "cy@example.com", firstName: "Cy", lastName: key.toUpperCase() });
    const lower = emu.users.add({ email: "di@example.com", firstName: "Di", lastName: `x${key.toLowerCase()}` });
    const { client } = clientFor(emu);
    expect((await client.users.get(upper.id)).lastName).toBe("[redacted]");
    expect((await client.users.get(lower.id)).lastName).toBe("x[redacted]");
  });
});

describe("records that echo the key in a serializer's own escapes", () => {
  // Serializers spell strings their own way: PHP writes "/" as "\/", Jackson and .NET write "\u00F1" in capitals, Go
  // writes "&", "<" and ">" as "\u0026", "\u003c" and "\u003e", and any may escape a character it need not.
  const keys = { ...KEYS, slash: "wa_live_ab/cd+ef&gh<ij>0123456789klmnopqrstuv" };
  const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(4, "0");
  const spellings: Record<string, (key: string) => string> = {
    "every character \\u-escaped, in capitals": (key) => `"${[...key].map((c) => `\\u${hex(c).toUpperCase()}`).join("")}"`,
    "the first character \\u-escaped": (key) => `"\\u${hex(key[0]!)}${JSON.stringify(key.slice(1)).slice(1)}`,
    '"/" as "\\/"': (key) => JSON.stringify(key).replaceAll("/", "\\/"),
    '"&", "<" and ">" as Go writes them': (key) => JSON.stringify(key).replace(/[&<>]/g, (c) => `\\u${hex(c)}`),
    "URL-encoded, lower-case hex": (key) => JSON.stringify(encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())),
  };
  const record = (firstName: string, lastName: string) =>
    `{"data":{"id":"${USER}","type":"user","attributes":{"email":"cy@example.com","firstName":${firstName},"lastName":${lastName}}}}`;
  const clientOf = (stub: StubServer, key: string) =>
    new WorkspaceAccessClient({ baseUrl: stub.url, apiKey: key, clock: new VirtualClock(), random: () => 0.5, maxRetries: 0 });

  it.each(Object.entries(keys))("are found once parsed, whatever the spelling (%s key)", async (_kind, key) => {
    const stub = await StubServer.start();
    const client = clientOf(stub, key);
    try {
      for (const [spelling, spell] of Object.entries(spellings)) {
        stub.reply = { status: 200, body: record('"Cy"', spell(key)) };
        const read = await client.users.get(USER);
        expect(read.lastName, spelling).toBe("[redacted]");
        expect(runsOf(key, JSON.stringify(read)), spelling).toEqual([]);
      }
    } finally {
      await client.close();
      await stub.close();
    }
  });

  it.each(Object.entries(keys))("leave the rest of the answer as the service sent it (%s key)", async (_kind, key) => {
    const stub = await StubServer.start();
    const client = clientOf(stub, key);
    try {
      // Another value holding a piece of the key, next to one holding the whole key: that piece is data, and the answer stays JSON.
      stub.reply = { status: 200, body: record(JSON.stringify(key.slice(0, 10)), JSON.stringify(key)) };
      const read = await client.users.get(USER);
      expect(read.firstName).toBe(key.slice(0, 10));
      expect(read.lastName).toBe("[redacted]");
      // An error answer's body likewise stays readable (its texts are redacted as every error text is).
      const error = `{"errors":[{"code":"not_found","title":${JSON.stringify(key.slice(0, 10))},"detail":${JSON.stringify(`no user ${key}`)},"status":404,"meta":null}]}`;
      stub.reply = { status: 404, body: error };
      const refused = await rejection(client.users.get(USER));
      expect((refused as Error & { code?: string }).code).toBe("not_found");
      expect((refused as Error & { detail?: string }).detail).toBe("no user [redacted]");
      expectNoRun(key, refused, []);
    } finally {
      await client.close();
      await stub.close();
    }
  });
});

describe("the key echoed base64-encoded or as hex", () => {
  /** Runs of 8 characters of `key` that decoding a base64 (either alphabet, at any of its 4 offsets) or hex token of `text` gives back. */
  function decodedRuns(key: string, text: string): string[] {
    const found = new Set<string>();
    const look = (decoded: string) => {
      for (const run of runsOf(key, decoded)) found.add(run);
    };
    for (const token of text.match(/[A-Za-z0-9+/_-]{8,}/g) ?? []) {
      for (let at = 0; at < 4; at++) {
        const standard = token.slice(at).replace(/[^A-Za-z0-9+/]/g, "");
        const url = token.slice(at).replace(/[^A-Za-z0-9_-]/g, "");
        look(Buffer.from(standard, "base64").toString("utf8"));
        look(Buffer.from(standard, "base64").toString("latin1"));
        look(Buffer.from(url, "base64url").toString("utf8"));
      }
    }
    for (const token of text.match(/[0-9a-fA-F]{16,}/g) ?? []) {
      for (let at = 0; at < 2; at++) look(Buffer.from(token.slice(at), "hex").toString("utf8"));
    }
    return [...found];
  }
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  const b64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
  // A gateway's copy of what it was sent: as HTTP Basic credentials, inside a token it minted (the key at each of the
  // three alignments a base64 text can give it), or as hex.
  const echoes: Record<string, (key: string) => string> = {
    "whole, base64": (key) => `invalid key ${b64(key)}`,
    "as Basic credentials": (key) => `Authorization: Basic ${b64(`${key}:`)}`,
    "inside a token, at offset 0 mod 3": (key) => `token ${b64url(`{"k":"${key}"}`)}`,
    "inside a token, at offset 1 mod 3": (key) => `token ${b64url(`{"ky":"${key}"}`)}`,
    "inside a token, at offset 2 mod 3": (key) => `token ${b64url(`{"key":"${key}"}`)}`,
    "as hex, in capitals": (key) => `key=${Buffer.from(key, "utf8").toString("hex").toUpperCase()}`,
  };

  it.each(Object.entries(KEYS))("is redacted from an error answer (%s key)", async (_kind, key) => {
    const emu = await emulator({ apiKey: key });
    const { client } = clientFor(emu, { maxRetries: 0 });
    for (const [how, echo] of Object.entries(echoes)) {
      const meta = { authorization: echo(key) };
      const body = JSON.stringify({ errors: [{ code: "denied", title: "Denied", detail: echo(key), status: 401, meta }] });
      emu.fault({ method: "GET", path: `/users/${USER}`, status: 401, body });
      const error = await rejection(client.users.get(USER));
      const texts = [error.message, String(error.stack), inspect(error, { depth: 8, showHidden: true })].join("\n");
      expect(decodedRuns(key, body), how).not.toEqual([]);
      expect(decodedRuns(key, texts), how).toEqual([]);
      expect(error.message, how).toContain("[redacted]");
    }
  });

  it.each(Object.entries(KEYS))("is redacted from a record that echoes it (%s key)", async (_kind, key) => {
    const emu = await emulator({ apiKey: key });
    const user = emu.users.add({ email: "cy@example.com", firstName: b64(key), lastName: `x${b64url(`{"key":"${key}"}`)}` });
    const { client } = clientFor(emu);
    const read = await client.users.get(user.id);
    expect(decodedRuns(key, JSON.stringify(read))).toEqual([]);
    expect(read.firstName).toBe("[redacted]");
  });
});
