/**
 * What the fleet reads from one stack's engine events: the engine's counts, the changed resources
 * (a refresh's drift included), and a failure's message, which is the package's own line from the
 * error diagnostics, with its resource, and never a stack trace or the engine's closing line; and its warnings, each once.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { countsOf, EventCollector } from "../../src/fleet/engine-events";
import { failureMessage, warningsOf } from "../../src/fleet/engine-events";
import { secretsRedactor } from "../../src/fleet/stack-run";
import { REFRESH_HINT } from "../../src/shared/hints";

const USER = "pulumi-nodejs:dynamic/workspace-access:User";
const urn = (name: string, type = USER) => `urn:pulumi:acme::access::${type}::${name}`;
const STACK_URN = "urn:pulumi:acme::access::pulumi:pulumi:Stack::access-acme";
let sequence = 0;
const event = (fields: Partial<EngineEvent>): EngineEvent => ({ sequence: sequence++, timestamp: 0, ...fields });
const step = (op: string, name: string, extra: Record<string, unknown> = {}) =>
  ({ op, urn: urn(name), type: USER, provider: "", ...extra }) as unknown as NonNullable<EngineEvent["resourcePreEvent"]>["metadata"];

describe("EventCollector", () => {
  it("keeps the summary's counts and the resources planned or made to change, by operation, type and name", () => {
    const events = new EventCollector();
    events.onEvent(event({ resourcePreEvent: { metadata: step("same", "bob@acme.example") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: step("create", "alice@acme.example") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: step("update", "carol@acme.example") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: step("create", "aaron@acme.example") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: step("read", "x") } }));
    events.onEvent(event({ summaryEvent: { resourceChanges: { create: 1, update: 1, same: 2 } } as never }));
    expect(events.summary).toEqual({ create: 1, update: 1, delete: 0, replace: 0, same: 2 });
    expect(events.resources()).toEqual([
      { op: "create", type: "User", name: "aaron@acme.example", urn: urn("aaron@acme.example") },
      { op: "create", type: "User", name: "alice@acme.example", urn: urn("alice@acme.example") },
      { op: "update", type: "User", name: "carol@acme.example", urn: urn("carol@acme.example") },
    ]);
  });

  it("lists neither the stack's own resource nor a provider (the engine counts them, the user declared neither)", () => {
    const events = new EventCollector();
    const at = (type: string, name: string) =>
      ({ op: "create", urn: `urn:pulumi:acme::access::${type}::${name}`, type, provider: "" }) as unknown as ReturnType<typeof step>;
    events.onEvent(event({ resourcePreEvent: { metadata: at("pulumi:pulumi:Stack", "access-acme") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: at("pulumi:providers:pulumi-nodejs", "default") } }));
    events.onEvent(event({ resOutputsEvent: { metadata: at("pulumi:pulumi:Stack", "access-acme") } }));
    events.onEvent(event({ resOutputsEvent: { metadata: at("pulumi:providers:pulumi-nodejs", "default") } }));
    events.onEvent(event({ resourcePreEvent: { metadata: step("create", "alice@acme.example") } }));
    expect(events.resources()).toEqual([{ op: "create", type: "User", name: "alice@acme.example", urn: urn("alice@acme.example") }]);
  });

  it("keeps each resource's URN, which sets apart two of one type and name (under two parents), in a fixed order", () => {
    const under = (parent: string) => `urn:pulumi:acme::access::my:index:${parent}$${USER}::alice@acme.example`;
    const listed = (parents: string[]) => {
      const events = new EventCollector();
      for (const parent of parents) {
        events.onEvent(event({ resourcePreEvent: { metadata: { ...step("create", "alice@acme.example"), urn: under(parent) } } }));
      }
      return events.resources();
    };
    const both = [
      { op: "create", type: "User", name: "alice@acme.example", urn: under("Admins") },
      { op: "create", type: "User", name: "alice@acme.example", urn: under("Editors") },
    ];
    expect(listed(["Editors", "Admins"])).toEqual(both);
    expect(listed(["Admins", "Editors"])).toEqual(both);
  });

  it("lists a refresh's drifted resource as an update and a vanished one as a delete", () => {
    const events = new EventCollector();
    const state = { type: USER, urn: urn("alice@acme.example") };
    events.onEvent(
      event({ resOutputsEvent: { metadata: step("refresh", "alice@acme.example", { old: state, new: state, diffs: ["lastName"] }) } }),
    );
    events.onEvent(event({ resOutputsEvent: { metadata: step("refresh", "bob@acme.example", { old: state, new: state, diffs: [] }) } }));
    events.onEvent(event({ resOutputsEvent: { metadata: step("refresh", "dan@acme.example", { old: state }) } }));
    expect(events.resources()).toEqual([
      { op: "update", type: "User", name: "alice@acme.example", urn: urn("alice@acme.example") },
      { op: "delete", type: "User", name: "dan@acme.example", urn: urn("dan@acme.example") },
    ]);
  });

  it("keeps the warnings, the program's and the provider host's (a line of its stderr), each once, on one line", () => {
    const events = new EventCollector();
    const diagnostic = (severity: string, message: string, at?: string) =>
      event({ diagnosticEvent: { severity, message, color: "never", ...(at ? { urn: at } : {}) } as never });
    const plaintext = "workspace-access:apiKey is stored in plaintext in the stack config. Run: pulumi config set --secret ...";
    const catalogue = "The entitlements of integration i1 were not checked against its catalogue (403).";
    events.onEvent(diagnostic("warning", `${plaintext}\n`, STACK_URN));
    events.onEvent(diagnostic("info#err", `warning: [runtime] ${catalogue}\n\n`));
    events.onEvent(diagnostic("info#err", `\u001b[33mwarning: [runtime] ${catalogue}\u001b[0m\n`));
    events.onEvent(diagnostic("warning", "alice's role\nis kept", urn("alice@acme.example")));
    events.onEvent(diagnostic("warning", "alice's role\nis kept", urn("bob@acme.example")));
    // Not warnings: the host's other stderr, the engine's debug and info lines.
    events.onEvent(diagnostic("info#err", "(node:12) ExperimentalWarning: something\n"));
    events.onEvent(diagnostic("debug", "warning: in a debug line\n"));
    events.onEvent(diagnostic("info", "warning: in an info line\n"));
    expect(warningsOf(events.warnings)).toEqual([
      plaintext,
      catalogue,
      "User alice@acme.example, User bob@acme.example: alice's role is kept",
    ]);
  });

  it("counts a replacement once, as replace, and ignores the engine's other operations", () => {
    expect(countsOf({ replace: 1, "create-replacement": 1, "delete-replaced": 1, refresh: 3 })).toEqual({
      create: 0,
      update: 0,
      delete: 0,
      replace: 1,
      same: 0,
    });
    expect(countsOf(undefined)).toEqual({ create: 0, update: 0, delete: 0, replace: 0, same: 0 });
  });
});

describe("failureMessage", () => {
  const refused =
    "GET /integrations answered 401: Unauthorized. The API key was not accepted: it may be missing, expired or revoked. " +
    "The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>) or WORKSPACE_ACCESS_API_KEY.";

  it("gives the package's line with its resource, without the trace and the engine's closing line", () => {
    const diagnostics = [
      {
        urn: urn("alice@acme.example"),
        message: `error: ${refused}\n    at errorForStatus (/x/dist/client/error-answers.js:70:14)\n    at process.tick (node:internal)\n`,
      },
      { urn: STACK_URN, message: "error: update failed\n" },
    ];
    expect(failureMessage(diagnostics, "code: 255\n stdout: lots\n stderr: more")).toBe(`User alice@acme.example: ${refused}`);
  });

  it("keeps a stack-level error (a program's own) without a resource, each message once", () => {
    const diagnostics = [
      { urn: STACK_URN, message: "Error: people lists a@b twice: list each person once\n    at Object.<anonymous> (/p/index.ts:3:9)" },
      { urn: STACK_URN, message: "Error: people lists a@b twice: list each person once\n    at Object.<anonymous> (/p/index.ts:3:9)" },
      { urn: undefined, message: "preview failed" },
    ];
    expect(failureMessage(diagnostics, "")).toBe("people lists a@b twice: list each person once");
  });

  it("says each sentence of a stack's messages once: a key refused to every resource gives its hint once, not per resource", () => {
    const ENTITLEMENT = "pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement";
    const hint = `The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>) or WORKSPACE_ACCESS_API_KEY.`;
    const checkKey = "Check the key and its scopes in the workspace's API settings.";
    const read = (path: string, scopes: string) =>
      `error: Preview failed: GET /api/v1${path} answered 401: The API key lacks the scope ${scopes}. The API key was not accepted: ` +
      `it may be missing, expired or revoked, or lack the scope this operation needs: ${scopes}. ${checkKey} ${hint} ${REFRESH_HINT.trim()}`;
    const diagnostics = [
      { urn: urn("alice@acme.example/YouTube", ENTITLEMENT), message: read("/integrations/i1/users/u1", "read:integrations") },
      { urn: urn("bob@acme.example"), message: read("/users/u2", "read:users") },
      { urn: urn("alice@acme.example/Slack", ENTITLEMENT), message: read("/integrations/i2/users/u1", "read:integrations") },
      { urn: urn("alice@acme.example"), message: read("/users/u1", "read:users") },
      // The same message twice (a retried step): its resource is named once.
      { urn: urn("alice@acme.example"), message: read("/users/u1", "read:users") },
      { urn: urn("carol@acme.example"), message: `error: POST /api/v1/users answered 403: Forbidden. ${checkKey} ${hint}` },
    ];
    const message = failureMessage(diagnostics, "");
    expect(message.split(hint)).toHaveLength(2);
    expect(message.split(checkKey)).toHaveLength(2);
    // Each fleet refresh runs the program with the stack config's key: the hint to run one that does is left out.
    expect(message).not.toContain("--run-program");
    expect(message).toBe(
      "IntegrationEntitlement alice@acme.example/YouTube: GET /api/v1/integrations/i1/users/u1 answered 401: " +
        "The API key lacks the scope read:integrations. The API key was not accepted: it may be missing, expired or revoked, or lack " +
        `the scope this operation needs: read:integrations. ${checkKey} ${hint}; ` +
        "User bob@acme.example: GET /api/v1/users/u2 answered 401: The API key lacks the scope read:users. " +
        "The API key was not accepted: it may be missing, expired or revoked, or lack the scope this operation needs: read:users.; " +
        "IntegrationEntitlement alice@acme.example/Slack: GET /api/v1/integrations/i2/users/u1 answered 401: " +
        "The API key lacks the scope read:integrations.; " +
        "User alice@acme.example: GET /api/v1/users/u1 answered 401: The API key lacks the scope read:users.; " +
        "User carol@acme.example: POST /api/v1/users answered 403: Forbidden.",
    );
    // Resources with the same message share it.
    expect(failureMessage([diagnostics[5]!, { ...diagnostics[5]!, urn: urn("dan@acme.example") }], "")).toBe(
      `User carol@acme.example, User dan@acme.example: POST /api/v1/users answered 403: Forbidden. ${checkKey} ${hint}`,
    );
  });

  it("names each resource's error once when the engine gives it both bare and as `Preview failed: ...` (a drift check)", () => {
    // As pulumi 3.274 gave them in a drift check of a workspace whose key was revoked: p1's error twice, p2's once.
    const refused = (id: string) =>
      `GET /api/v1/users/${id} answered 401: The API key lacks the scope read:users required by GET /users/:id. ` +
      "The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).";
    const diagnostics = [
      { urn: urn("p1@initech.example"), message: `error: ${refused("u1")}` },
      { urn: urn("p1@initech.example"), message: `error: Preview failed: ${refused("u1")}` },
      { urn: urn("p2@initech.example"), message: `error: Preview failed: ${refused("u2")}` },
    ];
    expect(failureMessage(diagnostics, "")).toBe(
      `User p1@initech.example: ${refused("u1")}; ` +
        "User p2@initech.example: GET /api/v1/users/u2 answered 401: The API key lacks the scope read:users required by GET /users/:id.",
    );
  });

  it("keeps a sentence within a parenthesis with the sentence around it: no parenthesis is left open", () => {
    const doubt = (email: string) =>
      `error: POST /api/v1/users answered 503: Down. The request may or may not have been carried out. Whether it created ${email} ` +
      "is not known: looking the email up failed (GET /api/v1/users answered 503: Down. Gave up after 5 retries (workspace-access:maxRetries)).";
    const diagnostics = [
      {
        urn: STACK_URN,
        message: "error: GET /api/v1/integrations answered 503: Down. Gave up after 5 retries (workspace-access:maxRetries).",
      },
      { urn: urn("bob@acme.example"), message: doubt("bob@acme.example") },
      { urn: urn("alice@acme.example"), message: doubt("alice@acme.example") },
    ];
    expect(failureMessage(diagnostics, "")).toBe(
      "GET /api/v1/integrations answered 503: Down. Gave up after 5 retries (workspace-access:maxRetries).; " +
        "User bob@acme.example: POST /api/v1/users answered 503: Down. The request may or may not have been carried out. " +
        "Whether it created bob@acme.example is not known: looking the email up failed (GET /api/v1/users answered 503: Down. " +
        "Gave up after 5 retries (workspace-access:maxRetries)).; " +
        "User alice@acme.example: POST /api/v1/users answered 503: Down. Whether it created alice@acme.example is not known: " +
        "looking the email up failed (GET /api/v1/users answered 503: Down. Gave up after 5 retries (workspace-access:maxRetries)).",
    );
  });

  it("falls back to the CLI's error lines when the engine never ran", () => {
    const output = "code: 255\n stdout: \n stderr: error: decrypting secret value: incorrect passphrase\nerror: update failed\n\n err?: \n";
    expect(failureMessage([], output)).toBe("decrypting secret value: incorrect passphrase");
    expect(failureMessage([], "code: 1\n stdout: \n stderr: something odd\n err?: \n")).toBe("something odd");
    // The process library's error repeats the command line: never the message.
    const failed = "code: 7\n stdout: \n stderr: \n err?: Error: Command failed with exit code 7: pulumi refresh --stack acme\n";
    expect(failureMessage([], failed)).toBe("pulumi exited with code 7 and no error message");
  });
});

describe("secretsRedactor", () => {
  it("removes every secret config value, whole or in part, and the environment's key, and nothing else", () => {
    const key = "wa_emu_0123456789abcdef0123456789abcdef";
    const other = "wa_emu_fedcba9876543210fedcba9876543210";
    const redact = secretsRedactor(
      {
        "workspace-access:apiKey": { value: key, secret: true },
        "workspace-access:workspace": { value: "acme", secret: false },
      },
      { WORKSPACE_ACCESS_API_KEY: other },
    );
    expect(redact(`key ${key}, a piece ${key.slice(10, 22)}, env ${other}, acme`)).toBe(
      "key [redacted], a piece [redacted], env [redacted], acme",
    );
  });

  it("removes another secret whole only, and only when it is as long as a key: a short one would wipe the report", () => {
    const key = "wa_live_5f2c9e0b7d1a4c3e";
    const redact = secretsRedactor(
      {
        "workspace-access:apiKey": { value: key, secret: true },
        "proj:replicas": { value: "1", secret: true },
        "proj:token": { value: "tok-0123456789", secret: true },
      },
      {},
    );
    const text = "User alice1@acme.example: GET /api/v1/users answered 401 (1 of 1); token tok-0123456789, part tok-01234567";
    // The key goes in any run of 8 characters; another secret whole only.
    expect(redact(`${text}; key ${key}, part ${key.slice(3, 14)}`)).toBe(
      "User alice1@acme.example: GET /api/v1/users answered 401 (1 of 1); token [redacted], part tok-01234567; key [redacted], part [redacted]",
    );
  });

  it("removes a secret object's secure leaves, not its JSON text: every other name stays", () => {
    const people = [
      { email: "alice@acme.example", firstName: "Alice", lastName: "Doe" },
      { email: "bob@acme.example", firstName: "Bob", lastName: "Roe" },
    ];
    // `pulumi config set --secret --path 'proj:people[1].email' bob@acme.example` marks the whole key secret, and its settings file
    // holds that one leaf encrypted (written without the project's namespace here, as a file may).
    const config = { "proj:people": { value: JSON.stringify(people), secret: true } };
    const settings = {
      people: [
        { email: "alice@acme.example", firstName: "Alice", lastName: "Doe" },
        { email: { secure: "v1:abc" }, firstName: "Bob", lastName: "Roe" },
      ],
    };
    const text = `User alice@acme.example, User bob@acme.example: lastName Doe; ${JSON.stringify(people)}`;
    const redacted = secretsRedactor(config, {}, settings)(text);
    expect(redacted).toContain("User alice@acme.example, User [redacted]: lastName Doe");
    expect(redacted).not.toContain("bob@acme.example");
    // Without the settings file, every leaf as long as a key goes (the emails), still not the JSON text whole.
    expect(secretsRedactor(config, {})(text)).toBe(
      'User [redacted], User [redacted]: lastName Doe; [{"email":"[redacted]","firstName":"Alice","lastName":"Doe"},' +
        '{"email":"[redacted]","firstName":"Bob","lastName":"Roe"}]',
    );
    // A whole object set secret (`secure:` at its top) loses every leaf as long as a key.
    expect(secretsRedactor(config, {}, { "proj:people": { secure: "v1:abc" } })(text)).toContain("User [redacted], User [redacted]");
  });

  it("removes a secret in any case and without its surrounding spaces: a program folds an email for a resource's name", () => {
    // The example's program names each User after `email.trim().toLowerCase()`: the secret as written must not show through that.
    const people = [{ email: "  Bob.Roe@Acme.Example ", firstName: "Bob", lastName: "Roe" }];
    const settings = { people: [{ email: { secure: "v1:abc" }, firstName: "Bob", lastName: "Roe" }] };
    const redact = secretsRedactor({ "proj:people": { value: JSON.stringify(people), secret: true } }, {}, settings);
    expect(redact("+ User bob.roe@acme.example; User BOB.ROE@ACME.EXAMPLE: answered 404; Bob.Roe@Acme.Example")).toBe(
      "+ User [redacted]; User [redacted]: answered 404; [redacted]",
    );
    // Another secret as long as a key, in another case, goes too; a short one still stays.
    const token = secretsRedactor({ "proj:token": { value: "Tok-ABCDEF0123", secret: true }, "proj:n": { value: "1", secret: true } }, {});
    expect(token("tok-abcdef0123 and 1")).toBe("[redacted] and 1");
  });

  it("removes the stack's key stored in plain text too (the package warns of it, and still runs)", () => {
    const key = "wa_emu_0123456789abcdef0123456789abcdef";
    const redact = secretsRedactor({ "workspace-access:apiKey": { value: key, secret: false } }, {});
    expect(redact(`a program echoed ${key}`)).toBe("a program echoed [redacted]");
  });
});
