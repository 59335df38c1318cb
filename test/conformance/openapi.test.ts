/**
 * Self-test of the OpenAPI conformance toolkit (./openapi.ts): the document loads from outside
 * the repository, the document's own examples validate against its own schemas (or against a
 * named quirk), and wrong payloads are rejected with an error naming the field.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import * as path from "node:path";
import { OpenAPIBackend } from "openapi-backend";
import { describe, expect, it } from "vitest";
import {
  CONTRACT_OPERATIONS,
  CONTRACT_OVERLAY,
  DOCUMENT_QUIRKS,
  type DocumentExample,
  describeWithDocument,
  examplesFor,
  findOperation,
  itWithDocument,
  loadOpenApi,
  matchPath,
  OPENAPI_DOCUMENT_PATH,
  OPENAPI_DOCUMENT_PRESENT,
  openApi,
  operations,
  PATH_ALIASES,
  REPO_ROOT,
  type ValidateOptions,
  validateErrorBody,
  validateRequestBody,
  validateResponse,
} from "./openapi";

const DOC_PAGE = path.join(REPO_ROOT, "docs", "openapi-conformance.md");

/** A deep copy of `value` with the JSON pointer `at` set to `replacement` (or removed). */
function changed(value: unknown, at: string, replacement?: unknown, remove = false): unknown {
  const copy = structuredClone(value);
  const segments = at.split("/").slice(1);
  const last = segments.pop();
  let node: unknown = copy;
  for (const segment of segments) {
    node = (node as Record<string, unknown>)[segment];
    if (typeof node !== "object" || node === null) throw new Error(`test bug: nothing at ${at}`);
  }
  if (last === undefined) return replacement;
  const parent = node as Record<string, unknown>;
  if (remove) delete parent[last];
  else parent[last] = replacement;
  return copy;
}
const without = (value: unknown, at: string): unknown => changed(value, at, undefined, true);

/** The single example of a response status (fails if the document gives none or several). */
function exampleOf(method: string, template: string, status: number): unknown {
  const found = examplesFor(method, template, status);
  expect(found, `${method} ${template} ${status} examples`).toHaveLength(1);
  return found[0]!.value;
}

function requestExampleOf(method: string, template: string): unknown {
  const found = examplesFor(method, template).filter((e) => e.kind === "request");
  expect(found, `${method} ${template} request examples`).toHaveLength(1);
  return found[0]!.value;
}

describe("loading the document", () => {
  itWithDocument("reads it from ../shared/reference beside the repository, never from inside it", () => {
    // Real paths: a symlink inside the repository pointing at the document would count as a copy.
    const document = realpathSync(OPENAPI_DOCUMENT_PATH);
    if (!process.env["WA_OPENAPI_DOCUMENT"]) expect(path.basename(path.dirname(document))).toBe("reference");
    expect(document.startsWith(realpathSync(REPO_ROOT) + path.sep)).toBe(false);
    expect(existsSync(path.join(REPO_ROOT, "package.json"))).toBe(true);
    expect(openApi().file).toBe(OPENAPI_DOCUMENT_PATH);
  });

  it("has no copy of the document inside the repository", () => {
    const copies: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (["node_modules", ".git", "dist"].includes(entry.name)) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/openapi\.(ya?ml|json)$/i.test(entry.name)) copies.push(path.relative(REPO_ROOT, full));
      }
    };
    walk(REPO_ROOT);
    expect(copies).toEqual([]);
  });

  it("fails with a message naming the expected location when the file is missing", () => {
    const missing = path.join(REPO_ROOT, "..", "shared", "reference", "no-such-openapi.yaml");
    expect(() => loadOpenApi(missing)).toThrow(/OpenAPI reference document not found at .*no-such-openapi\.yaml/);
    expect(() => loadOpenApi(missing)).toThrow(/\.\.\/shared\/reference\/public-openapi\.yaml/);
  });

  itWithDocument("lists every operation of the document, once, with operationId and summary", () => {
    const ops = operations();
    expect(ops).toHaveLength(29);
    expect(new Set(ops.map((op) => op.operationId)).size).toBe(ops.length);
    for (const op of ops) {
      expect(op.summary, op.operationId).not.toBe("");
      expect(openApi().lineText(op.line).trim(), op.operationId).toBe(`${op.method.toLowerCase()}:`);
    }
    expect(ops.find((op) => op.operationId === "getIntegrationUsers")).toMatchObject({
      method: "GET",
      path: "/integrations/{id}/user",
      canonicalPath: "/integrations/{id}/users",
      summary: "List users of an integration",
    });
  });

  itWithDocument("has every operation the contract implements, at the contract's path", () => {
    for (const planned of CONTRACT_OPERATIONS) {
      const op = findOperation(planned.method, planned.path);
      expect(op?.operationId, `${planned.method} ${planned.path}`).toBe(planned.operationId);
      expect(op?.canonicalPath).toBe(planned.path);
    }
  });

  itWithDocument("applies every contract overlay rule (none is silently skipped or conflicting)", () => {
    // loadOpenApi throws on a rule whose location is missing or that redefines a document keyword;
    // here we also check that the rules name only known operations and components.
    const ids = new Set(operations().map((op) => op.operationId));
    const schemas = Object.keys((openApi().document.components as { schemas: Record<string, unknown> }).schemas);
    for (const rule of CONTRACT_OVERLAY) {
      if ("component" in rule.target) expect(schemas).toContain(rule.target.component);
      else expect(ids).toContain(rule.target.operationId);
    }
  });
});

describeWithDocument("the document's quirks", () => {
  it.each(DOCUMENT_QUIRKS.map((q) => [q.id, q] as const))("%s: the recorded line still shows it", (_id, quirk) => {
    expect(openApi().lineText(quirk.lines[0]!)).toContain(quirk.evidence);
  });

  it("names the integration users list `/integrations/{id}/user` while its description says `/users`", () => {
    const api = openApi();
    expect(api.lineOf("#/paths/~1integrations~1{id}~1user")).toBe(2452);
    expect(api.lineText(2459)).toContain("/integrations/{id}/users");
    expect(PATH_ALIASES["/integrations/{id}/users"]).toBe("/integrations/{id}/user");
  });

  it("lacks `required: true` on exactly the path parameters recorded", () => {
    const api = openApi();
    const offenders: number[] = [];
    const paths = api.document.paths as Record<string, Record<string, { parameters?: { in: string; required?: boolean }[] }>>;
    for (const [p, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        (op.parameters ?? []).forEach((param, index) => {
          if (param.in === "path" && param.required !== true) {
            offenders.push(api.lineOf(`#/paths/${p.replace(/\//g, "~1")}/${method}/parameters/${index}`) ?? -1);
          }
        });
      }
    }
    expect(offenders).toEqual(DOCUMENT_QUIRKS.find((q) => q.id === "path-parameter-not-required")!.lines);
  });

  it("breaks the OpenAPI 3.0 meta-schema only where a $ref has a sibling description", async () => {
    const backend = new OpenAPIBackend({ definition: structuredClone(openApi().document) as never, quick: true });
    await backend.loadDocument();
    let message = "";
    try {
      backend.validateDefinition();
    } catch (error) {
      message = String((error as Error).message);
    }
    const list = JSON.parse(message.slice(message.indexOf("\n") + 1)) as { instancePath: string }[];
    const places = new Set(list.map((e) => e.instancePath.split("/responses/")[0]));
    expect([...places].sort()).toEqual(["/paths/~1secrets/post", "/paths/~1secrets~1{id}~1members~1{memberType}/post"]);
  });

  it("lists every operation and every quirk in docs/openapi-conformance.md", () => {
    const page = readFileSync(DOC_PAGE, "utf8");
    for (const op of operations()) expect(page, op.operationId).toContain(`\`${op.operationId}\``);
    for (const quirk of DOCUMENT_QUIRKS) expect(page, quirk.id).toContain(quirk.id);
  });
});

describeWithDocument("matchPath", () => {
  const user = "6f1c2a4e-8b1d-4c3e-9f2a-1b2c3d4e5f60";
  const integration = "d538422e-b135-4ee0-8393-54eecbcb4a07";
  it.each([
    ["GET", `/users/${user}`, "/users/{id}", "getUserById", { id: user }],
    ["GET", `/api/v1/users/${user}?mfaStatus=true`, "/users/{id}", "getUserById", { id: user }],
    ["GET", "/api/v1/users?page%5Bnumber%5D=2&page%5Bsize%5D=3", "/users", "getUserList", {}],
    ["GET", `https://acme.example.com/api/v1/jobs/${user}`, "/jobs/{id}", "getJobById", { id: user }],
    ["GET", `/integrations/${integration}/users`, "/integrations/{id}/user", "getIntegrationUsers", { id: integration }],
    ["GET", `/integrations/${integration}/user`, "/integrations/{id}/user", "getIntegrationUsers", { id: integration }],
    ["POST", `/integrations/${integration}/users/`, "/integrations/{id}/user", "postInviteIntegrationUser", { id: integration }],
    [
      "GET",
      `/integrations/${integration}/entitlements`,
      "/integrations/{id}/entitlements",
      "getIntegrationEntitlements",
      { id: integration },
    ],
    [
      "PATCH",
      `/integrations/${integration}/users/${user}`,
      "/integrations/{id}/users/{userId}",
      "patchUpdateUserEntitlement",
      { id: integration, userId: user },
    ],
    [
      "PATCH",
      `/integrations/${integration}/users/${user}/entitlements`,
      "/integrations/{id}/users/{userId}/entitlements",
      "patchAddRemoveEntitlementUser.",
      { id: integration, userId: user },
    ],
    [
      "DELETE",
      `/integrations/${integration}/users/a%2Fb`,
      "/integrations/{id}/users/{userId}",
      "deleteIntegrationUser",
      { id: integration, userId: "a/b" },
    ],
  ])("%s %s -> %s", (method, concrete, documentedPath, operationId, params) => {
    const match = matchPath(concrete, method);
    expect(match).toMatchObject({ documentedPath, params });
    expect(match?.operation?.operationId).toBe(operationId);
  });

  it("gives the canonical `/users` template for the aliased path", () => {
    expect(matchPath(`/integrations/${integration}/user`)?.canonicalPath).toBe("/integrations/{id}/users");
  });

  it("matches the template but no operation for an undocumented method (user create)", () => {
    const match = matchPath("/users", "POST");
    expect(match?.documentedPath).toBe("/users");
    expect(match?.operation).toBeUndefined();
    expect(findOperation("PUT", `/users/${user}`)).toBeUndefined();
    expect(() => validateRequestBody("POST", "/users", {})).toThrow(/POST \/users is not an operation of the public OpenAPI document/);
  });

  it("returns undefined for an unknown path", () => {
    expect(matchPath("/nope/1")).toBeUndefined();
    expect(matchPath(`/users/${user}/extra`)).toBeUndefined();
  });
});

describeWithDocument("examplesFor", () => {
  it("reads media-type examples, schema-level examples and $ref'd components.responses examples", () => {
    const users = examplesFor("GET", "/users");
    expect(users.map((e) => [e.status, e.placement, e.line])).toEqual([
      [200, "schema", 1655],
      [401, "component-response", 4001],
      [404, "component-response", 4031],
    ]);
    const invite = examplesFor("POST", "/integrations/{id}/users");
    expect(invite.map((e) => [e.kind, e.status ?? null, e.name, e.line])).toEqual([
      ["request", null, "example", 2649],
      ["response", 200, "example", 2668],
      ["response", 401, "unauthorizedExample", 4001],
      ["response", 404, "notFoundExample", 4031],
    ]);
    expect(examplesFor("GET", "/users/{id}", 404)).toEqual([
      expect.objectContaining({ name: "notFoundExample", value: expect.objectContaining({ errors: expect.any(Array) }) }),
    ]);
  });
});

const allExamples: [string, string, DocumentExample][] = (OPENAPI_DOCUMENT_PRESENT ? CONTRACT_OPERATIONS : []).flatMap((planned) =>
  examplesFor(planned.method, planned.path).map(
    (example) =>
      [`${planned.method} ${planned.path}`, `${example.kind} ${example.status ?? ""} ${example.name} (line ${example.line})`, example] as [
        string,
        string,
        DocumentExample,
      ],
  ),
);

describeWithDocument("the document's examples for the operations we implement", () => {
  it("has a success example for each, and a request example for each write with a body", () => {
    for (const planned of CONTRACT_OPERATIONS) {
      const examples = examplesFor(planned.method, planned.path);
      expect(
        examples.some((e) => e.kind === "response" && e.status === 200),
        planned.operationId,
      ).toBe(true);
      if (findOperation(planned.method, planned.path)!.hasRequestBody) {
        expect(
          examples.some((e) => e.kind === "request"),
          planned.operationId,
        ).toBe(true);
      }
    }
    expect(allExamples.length).toBe(36);
  });

  const validate = (example: DocumentExample, method: string, template: string, options: ValidateOptions) =>
    example.kind === "request"
      ? validateRequestBody(method, template, example.value, options)
      : validateResponse(method, template, example.status!, example.value, options);

  const allowancesFor = (example: DocumentExample): string[] =>
    DOCUMENT_QUIRKS.filter((q) =>
      (q.allowances ?? []).some(
        (a) => a.operationId === example.operationId && a.status === (example.kind === "request" ? "request" : example.status),
      ),
    ).map((q) => q.id);

  it.each(allExamples)("%s: %s validates against the document's schema", (name, _label, example) => {
    const [method, template] = name.split(" ") as [string, string];
    expect(validate(example, method, template, { strictness: "document" })).toMatchObject({ valid: true, errors: [] });
  });

  it.each(allExamples)("%s: %s meets the contract (or a listed quirk)", (name, _label, example) => {
    const [method, template] = name.split(" ") as [string, string];
    const allow = allowancesFor(example);
    const outcome = validate(example, method, template, { strictness: "contract", allow });
    expect(outcome.errors).toEqual([]);
    // An allowance that no longer matches anything is stale: the quirk must be re-checked.
    expect(outcome.allowed.length > 0).toBe(allow.length > 0);
  });

  it("does not excuse the users list example's non-UUID id unless the quirk is named", () => {
    const list = exampleOf("GET", "/users", 200);
    const strict = validateResponse("GET", "/users", 200, list);
    expect(strict.valid).toBe(false);
    expect(strict.errors).toEqual(["/data/2/id: must be a uuid [contract overlay]"]);
    const excused = validateResponse("GET", "/users", 200, list, { allow: ["user-example-id-not-uuid"] });
    expect(excused).toMatchObject({
      valid: true,
      errors: [],
      allowed: ["[user-example-id-not-uuid] /data/2/id: must be a uuid [contract overlay]"],
    });
    expect(() => validateResponse("GET", "/users", 200, list, { allow: ["no-such-quirk"] })).toThrow(/unknown quirk id/);
  });

  it("validates every example in the whole document against its own schema", () => {
    for (const op of operations()) {
      for (const example of examplesFor(op.method, op.path)) {
        const outcome = validate(example, op.method, op.path, { strictness: "document" });
        expect(outcome.errors, `${op.operationId} ${example.kind} ${example.status ?? ""} line ${example.line}`).toEqual([]);
      }
    }
  });

  it.each([400, 401, 403, 404, 409])("the %i error example is a valid error body", (status) => {
    const example = examplesFor("PATCH", "/teams/{id}", status);
    expect(example).toHaveLength(1);
    expect(validateErrorBody(example[0]!.value)).toMatchObject({ valid: true, errors: [] });
  });
});

describeWithDocument("rejections: each wrong payload names the field (and its fix is accepted)", () => {
  const user = () => exampleOf("GET", "/users/{id}", 200);
  const users = () => exampleOf("GET", "/users", 200);
  const job = () => exampleOf("GET", "/jobs/{id}", 200);
  const inviteJob = () => exampleOf("POST", "/integrations/{id}/users", 200);
  const integrationUser = () => exampleOf("GET", "/integrations/{id}/users/{userId}", 200);
  const integrationUsers = () => exampleOf("GET", "/integrations/{id}/users", 200);
  const entitlements = () => exampleOf("GET", "/integrations/{id}/entitlements", 200);
  const integration = () => exampleOf("GET", "/integrations/{id}", 200);
  const notFound = () => exampleOf("GET", "/users/{id}", 404);
  const listAllow: ValidateOptions = { allow: ["user-example-id-not-uuid"] };

  type Row = [
    label: string,
    method: string,
    template: string,
    status: number,
    good: () => unknown,
    bad: (good: unknown) => unknown,
    expected: RegExp,
    options?: ValidateOptions,
  ];
  const rows: Row[] = [
    [
      'user with isGuest: "no"',
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => changed(u, "/data/attributes/isGuest", "no"),
      /^\/data\/attributes\/isGuest: must be boolean$/,
    ],
    [
      'users list item with isGuest: "no"',
      "GET",
      "/users",
      200,
      users,
      (u) => changed(u, "/data/1/attributes/isGuest", "no"),
      /^\/data\/1\/attributes\/isGuest: must be boolean$/,
      listAllow,
    ],
    [
      "user with an unknown role",
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => changed(u, "/data/attributes/role", "workspace_admin"),
      /^\/data\/attributes\/role: must be one of "workspace_owner", .*"workspace_guest_user"$/,
    ],
    [
      'user with mfaStatus: "yes"',
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => changed(u, "/data/attributes/mfaStatus", "yes"),
      /^\/data\/attributes\/mfaStatus: must be object$/,
    ],
    [
      "user with a non-RFC 3339 updatedAt",
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => changed(u, "/data/attributes/updatedAt", "2024-07-08 19:30"),
      /^\/data\/attributes\/updatedAt: must be a date-time$/,
    ],
    [
      "user without email",
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => without(u, "/data/attributes/email"),
      /^\/data\/attributes\/email: required property is missing \[contract overlay\]$/,
    ],
    [
      'user of type "users"',
      "GET",
      "/users/{id}",
      200,
      user,
      (u) => changed(u, "/data/type", "users"),
      /^\/data\/type: must be one of "user" \[contract overlay\]$/,
    ],
    [
      "list whose links.self is null",
      "GET",
      "/users",
      200,
      users,
      (u) => changed(u, "/links/self", null),
      /^\/links\/self: must be string$/,
      listAllow,
    ],
    [
      "list without links.previous",
      "GET",
      "/users",
      200,
      users,
      (u) => without(u, "/links/previous"),
      /^\/links\/previous: required property is missing \[contract overlay\]$/,
      listAllow,
    ],
    [
      'list with meta.page.total: "202"',
      "GET",
      "/users",
      200,
      users,
      (u) => changed(u, "/meta/page/total", "202"),
      /^\/meta\/page\/total: must be number$/,
      listAllow,
    ],
    [
      "job without status",
      "GET",
      "/jobs/{id}",
      200,
      job,
      (j) => without(j, "/data/attributes/status"),
      /^\/data\/attributes\/status: required property is missing \[contract overlay\]$/,
    ],
    [
      'job with status "done"',
      "GET",
      "/jobs/{id}",
      200,
      job,
      (j) => changed(j, "/data/attributes/status", "done"),
      /^\/data\/attributes\/status: must be one of "started", "created", "finished", "error", "running", "retrying"$/,
    ],
    [
      'job with canRetry: "false"',
      "GET",
      "/jobs/{id}",
      200,
      job,
      (j) => changed(j, "/data/attributes/canRetry", "false"),
      /^\/data\/attributes\/canRetry: must be boolean$/,
    ],
    [
      'job with createdAt: "yesterday"',
      "GET",
      "/jobs/{id}",
      200,
      job,
      (j) => changed(j, "/data/attributes/createdAt", "yesterday"),
      /^\/data\/attributes\/createdAt: must be a date-time$/,
    ],
    [
      "job without links.self",
      "GET",
      "/jobs/{id}",
      200,
      job,
      (j) => without(j, "/links/self"),
      /^\/links\/self: required property is missing \[contract overlay\]$/,
    ],
    [
      "invite answer without status",
      "POST",
      "/integrations/{id}/users",
      200,
      inviteJob,
      (j) => without(j, "/data/attributes/status"),
      /^\/data\/attributes\/status: required property is missing \[contract overlay\]$/,
    ],
    [
      "invite answer with status 1",
      "POST",
      "/integrations/{id}/users",
      200,
      inviteJob,
      (j) => changed(j, "/data/attributes/status", 1),
      /^\/data\/attributes\/status: must be string$/,
    ],
    [
      "set-entitlements answer without id",
      "PATCH",
      "/integrations/{id}/users/{userId}",
      200,
      () => exampleOf("PATCH", "/integrations/{id}/users/{userId}", 200),
      (j) => without(j, "/data/id"),
      /^\/data\/id: required property is missing \[contract overlay\]$/,
    ],
    [
      'integration user with role "admin"',
      "GET",
      "/integrations/{id}/users/{userId}",
      200,
      integrationUser,
      (u) => changed(u, "/data/attributes/role", "admin"),
      /^\/data\/attributes\/role: must be one of "owner", "collaborator"$/,
    ],
    [
      "integration user whose entitlements is an object",
      "GET",
      "/integrations/{id}/users/{userId}",
      200,
      integrationUser,
      (u) => changed(u, "/data/attributes/entitlements", { id: "EMPLOYEE" }),
      /^\/data\/attributes\/entitlements: must be array$/,
    ],
    [
      "integration user with entitlements [42]",
      "GET",
      "/integrations/{id}/users/{userId}",
      200,
      integrationUser,
      (u) => changed(u, "/data/attributes/entitlements", [42]),
      /^\/data\/attributes\/entitlements\/0: must be (string|object)/,
    ],
    [
      'integration user entitlement of group "tertiary"',
      "GET",
      "/integrations/{id}/users",
      200,
      integrationUsers,
      (u) => changed(u, "/data/0/attributes/entitlements/0/attributes/group", "tertiary"),
      /^\/data\/0\/attributes\/entitlements\/0\/attributes\/group: must be one of "primary", "secondary" \[contract overlay\]$/,
    ],
    [
      "integration users list item without meta",
      "GET",
      "/integrations/{id}/users",
      200,
      integrationUsers,
      (u) => without(u, "/data/1/meta"),
      /^\/data\/1\/meta: required property is missing \[contract overlay\]$/,
    ],
    [
      'entitlement of group "tertiary"',
      "GET",
      "/integrations/{id}/entitlements",
      200,
      entitlements,
      (e) => changed(e, "/data/2/attributes/group", "tertiary"),
      /^\/data\/2\/attributes\/group: must be one of "primary", "secondary"$/,
    ],
    [
      "entitlements list that is not an array",
      "GET",
      "/integrations/{id}/entitlements",
      200,
      entitlements,
      (e) => changed(e, "/data", { id: "MANAGER" }),
      /^\/data: must be array$/,
    ],
    [
      "integration without label",
      "GET",
      "/integrations/{id}",
      200,
      integration,
      (i) => without(i, "/data/attributes/label"),
      /^\/data\/attributes\/label: required property is missing \[contract overlay\]$/,
    ],
    [
      "error body without errors",
      "GET",
      "/users/{id}",
      404,
      notFound,
      () => ({}),
      /^\/errors: required property is missing \[contract overlay\]$/,
    ],
    [
      "error body with an empty errors list",
      "GET",
      "/users/{id}",
      404,
      notFound,
      () => ({ errors: [] }),
      /^\/errors: must NOT have fewer than 1 items \[contract overlay\]$/,
    ],
    [
      "error body whose status is a string",
      "GET",
      "/users/{id}",
      404,
      notFound,
      (e) => changed(e, "/errors/0/status", "404"),
      /^\/errors\/0\/status: must be number$/,
    ],
    [
      "error body without detail",
      "GET",
      "/users/{id}",
      404,
      notFound,
      (e) => without(e, "/errors/0/detail"),
      /^\/errors\/0\/detail: required property is missing \[contract overlay\]$/,
    ],
    [
      "error body whose meta is a string",
      "GET",
      "/users/{id}",
      404,
      notFound,
      (e) => changed(e, "/errors/0/meta", "x"),
      /^\/errors\/0\/meta: must be object$/,
    ],
  ];

  it.each(rows)("%s", (_label, method, template, status, good, bad, expected, options) => {
    const base = good();
    expect(validateResponse(method, template, status, base, options)).toMatchObject({ valid: true, errors: [] });
    const outcome = validateResponse(method, template, status, bad(base), options);
    expect(outcome.valid).toBe(false);
    expect(
      outcome.errors.some((e) => expected.test(e)),
      outcome.errors.join("\n"),
    ).toBe(true);
  });

  it("accepts null where the document says nullable, and plain id strings as entitlements in contract mode", () => {
    const u = changed(user(), "/data/attributes/mfaStatus", null);
    expect(validateResponse("GET", "/users/{id}", 200, u).errors).toEqual([]);
    const page = changed(changed(users(), "/links/next", null), "/links/previous", null);
    expect(validateResponse("GET", "/users", 200, page, listAllow).errors).toEqual([]);
    const ids = changed(integrationUser(), "/data/attributes/entitlements", ["EMPLOYEE", "VIEWER"]);
    expect(validateResponse("GET", "/integrations/{id}/users/{userId}", 200, ids).errors).toEqual([]);
    expect(
      validateResponse("GET", "/integrations/{id}/users/{userId}", 200, changed(ids, "/data/attributes/entitlements/0", 42), {
        strictness: "document",
      }).errors,
    ).toEqual([]);
  });

  it("shows what the document alone does not promise: without the overlay, {} is a job and an error body", () => {
    expect(validateResponse("GET", "/jobs/{id}", 200, { data: {} }, { strictness: "document" }).valid).toBe(true);
    expect(validateResponse("GET", "/jobs/{id}", 200, { data: {} }).valid).toBe(false);
    expect(validateErrorBody({}, { strictness: "document" }).valid).toBe(true);
    expect(validateErrorBody({}).errors).toEqual(["/errors: required property is missing [contract overlay]"]);
  });

  it("rejects a status the operation does not document, and points at validateErrorBody", () => {
    const outcome = validateResponse("POST", "/integrations/{id}/users", 409, exampleOf("PATCH", "/teams/{id}", 409));
    expect(outcome.valid).toBe(false);
    expect(outcome.errors[0]).toMatch(/409 is not documented for POST \/integrations\/\{id\}\/user \(documented: 200, 401, 404\)/);
    expect(validateErrorBody(exampleOf("PATCH", "/teams/{id}", 409)).valid).toBe(true);
    expect(
      validateErrorBody({ errors: [{ code: "Too many requests", title: "Too many requests", detail: "x", status: "429", meta: null }] })
        .errors,
    ).toEqual(["/errors/0/status: must be number"]);
  });

  it("accepts a concrete path in place of the template", () => {
    const concrete = "/api/v1/integrations/d538422e-b135-4ee0-8393-54eecbcb4a07/users?page%5Bnumber%5D=1";
    expect(validateResponse("GET", concrete, 200, integrationUsers())).toMatchObject({ valid: true, operationId: "getIntegrationUsers" });
    expect(validateResponse("GET", concrete, 200, changed(integrationUsers(), "/data/0/attributes/isGuest", "no")).valid).toBe(false);
  });
});

describeWithDocument("request bodies: each wrong body names the field (and the document's example is accepted)", () => {
  const invite = () => requestExampleOf("POST", "/integrations/{id}/users");
  const setEntitlements = () => requestExampleOf("PATCH", "/integrations/{id}/users/{userId}");
  const addRemove = () => requestExampleOf("PATCH", "/integrations/{id}/users/{userId}/entitlements");

  type Row = [
    label: string,
    method: string,
    template: string,
    good: () => unknown,
    bad: (good: unknown) => unknown,
    expected: RegExp,
    documentAlso: boolean,
  ];
  const rows: Row[] = [
    [
      "invite without userIds",
      "POST",
      "/integrations/{id}/users",
      invite,
      (b) => without(b, "/data/attributes/userIds"),
      /^\/data\/attributes\/userIds: required property is missing$/,
      true,
    ],
    [
      'invite of type "invite"',
      "POST",
      "/integrations/{id}/users",
      invite,
      (b) => changed(b, "/data/type", "invite"),
      /^\/data\/type: must be one of "invite_tenant_users"$/,
      true,
    ],
    [
      'invite with role "owner"',
      "POST",
      "/integrations/{id}/users",
      invite,
      (b) => changed(b, "/data/attributes/role", "owner"),
      /^\/data\/attributes\/role: must be one of "account_owner", "account_collaborator"$/,
      true,
    ],
    [
      "invite with entitlements as strings",
      "POST",
      "/integrations/{id}/users",
      invite,
      (b) => changed(b, "/data/attributes/entitlements", ["VIEWER"]),
      /^\/data\/attributes\/entitlements\/0: must be object$/,
      true,
    ],
    [
      "invite with a userId that is not a UUID",
      "POST",
      "/integrations/{id}/users",
      invite,
      (b) => changed(b, "/data/attributes/userIds", ["joe@doe.com"]),
      /^\/data\/attributes\/userIds\/0: must be a uuid \[contract overlay\]$/,
      false,
    ],
    [
      "set entitlements with an entitlement without id",
      "PATCH",
      "/integrations/{id}/users/{userId}",
      setEntitlements,
      (b) => changed(b, "/data/attributes/entitlements", [{}]),
      /^\/data\/attributes\/entitlements\/0\/id: required property is missing$/,
      true,
    ],
    [
      'set entitlements of type "update"',
      "PATCH",
      "/integrations/{id}/users/{userId}",
      setEntitlements,
      (b) => changed(b, "/data/type", "update"),
      /^\/data\/type: must be one of "update_user_entitlement"$/,
      true,
    ],
    [
      "set entitlements without data",
      "PATCH",
      "/integrations/{id}/users/{userId}",
      setEntitlements,
      () => ({}),
      /^\/data: required property is missing$/,
      true,
    ],
    [
      "add/remove with neither add nor remove",
      "PATCH",
      "/integrations/{id}/users/{userId}/entitlements",
      addRemove,
      () => ({ data: {} }),
      /^\/data\/add: required property is missing \[contract overlay\]$/,
      false,
    ],
    [
      "add/remove whose add has no entitlements",
      "PATCH",
      "/integrations/{id}/users/{userId}/entitlements",
      addRemove,
      (b) => changed(b, "/data/add", {}),
      /^\/data\/add\/entitlements: required property is missing \[contract overlay\]$/,
      false,
    ],
    [
      "add/remove with a non-array remove list",
      "PATCH",
      "/integrations/{id}/users/{userId}/entitlements",
      addRemove,
      (b) => changed(b, "/data/remove/entitlements", "EDITOR"),
      /^\/data\/remove\/entitlements: must be array$/,
      true,
    ],
    [
      "a missing request body",
      "POST",
      "/integrations/{id}/users",
      invite,
      () => undefined,
      /^\(body\): the request body is required$/,
      true,
    ],
  ];

  it.each(rows)("%s", (_label, method, template, good, bad, expected, documentAlso) => {
    const base = good();
    expect(validateRequestBody(method, template, base)).toMatchObject({ valid: true, errors: [] });
    const outcome = validateRequestBody(method, template, bad(base));
    expect(outcome.valid).toBe(false);
    expect(
      outcome.errors.some((e) => expected.test(e)),
      outcome.errors.join("\n"),
    ).toBe(true);
    expect(validateRequestBody(method, template, bad(base), { strictness: "document" }).valid).toBe(!documentAlso);
  });

  it("accepts add only and remove only", () => {
    const body = addRemove();
    expect(validateRequestBody("PATCH", "/integrations/{id}/users/{userId}/entitlements", without(body, "/data/remove")).valid).toBe(true);
    expect(validateRequestBody("PATCH", "/integrations/{id}/users/{userId}/entitlements", without(body, "/data/add")).valid).toBe(true);
  });

  it("rejects a body on an operation that takes none", () => {
    expect(validateRequestBody("DELETE", "/integrations/{id}/users/{userId}", { data: {} }).errors).toEqual([
      "(body): DELETE /integrations/{id}/users/{userId} takes no request body",
    ]);
    expect(validateRequestBody("DELETE", "/integrations/{id}/users/{userId}", undefined).valid).toBe(true);
  });
});
