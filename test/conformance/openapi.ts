/**
 * OpenAPI conformance toolkit: the service's public OpenAPI 3.0 document, loaded at test time
 * from `../shared/reference/` (never copied into the project; a clone alone does not have it, and the
 * tests that need it are then skipped by name: {@link needsDocument}), and small helpers to validate
 * payloads against the document's own schemas.
 *
 * Validation is done by `openapi-backend`'s `OpenAPIValidator` (ajv 8: `$ref`s, OpenAPI 3.0
 * `nullable`, per-status response schemas, request bodies by operationId). This file only
 * adds what the library does not do: loading the YAML with line numbers, resolving `$ref`s
 * (including `components.responses`), mapping concrete paths to templates (with the
 * document's `/integrations/{id}/user` quirk), collecting examples, and the contract overlay.
 *
 * Two strictness levels:
 * - `"document"`: exactly the document's schemas. They declare no `required` field in any
 *   response, so an empty object passes; useful to know what the document alone promises.
 * - `"contract"` (default): the document's schemas plus {@link CONTRACT_OVERLAY}, a named list of
 *   additions taken from the API contract (`../shared/api-contract.md`) (mostly `required` lists). An error
 *   that only the overlay produces is suffixed with `[contract overlay]`.
 *
 * Known inconsistencies of the document are listed in {@link DOCUMENT_QUIRKS}. A quirk that makes
 * one of the document's own examples fail can be excused only by passing its id explicitly in
 * `allow`; excused errors are returned in `allowed`, never dropped.
 */
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { OpenAPIValidator } from "openapi-backend";
import { describe, it } from "vitest";
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";

/** Root of this repository (the folder holding package.json). */
export const REPO_ROOT: string = path.resolve(__dirname, "..", "..");

/** Where the public OpenAPI document is kept: beside the repository, never inside it. */
export const OPENAPI_DOCUMENT_HOME = "../shared/reference/public-openapi.yaml";

/**
 * Where the document is read from: {@link OPENAPI_DOCUMENT_HOME} (relative to the repository root),
 * or the file the environment variable `WA_OPENAPI_DOCUMENT` names.
 */
export const OPENAPI_DOCUMENT_PATH: string = path.resolve(REPO_ROOT, process.env["WA_OPENAPI_DOCUMENT"] || OPENAPI_DOCUMENT_HOME);

/**
 * Whether the document is there. A clone alone does not have it (it is the service vendor's, kept
 * beside the repository; CI has it): the tests that need it are then reported as skipped, by name
 * ({@link needsDocument}), instead of failing.
 */
export const OPENAPI_DOCUMENT_PRESENT: boolean = existsSync(OPENAPI_DOCUMENT_PATH);

/** The one line that says where the document comes from, for the tests skipped without it. */
export const OPENAPI_DOCUMENT_ABSENT = `skipped: needs the service's public OpenAPI document, kept beside the repository at ${OPENAPI_DOCUMENT_HOME} (CI has it; WA_OPENAPI_DOCUMENT=<file> names a copy)`;

/** `name`, with {@link OPENAPI_DOCUMENT_ABSENT} when the document is absent (for `it.skipIf`). */
export function needsDocument(name: string): string {
  return OPENAPI_DOCUMENT_PRESENT ? name : `${name} (${OPENAPI_DOCUMENT_ABSENT})`;
}

/** A test that reads the document: skipped, saying so, when it is absent. */
export function itWithDocument(name: string, fn: () => unknown): void {
  it.skipIf(!OPENAPI_DOCUMENT_PRESENT)(needsDocument(name), fn);
}

/**
 * `it.each` for rows whose tests read the document (their tables must not): skipped when it is
 * absent. Put the suite's name through {@link needsDocument} so that the skip says why once.
 */
export const eachWithDocument: typeof it.each = ((test) => test.each.bind(test))(it.skipIf(!OPENAPI_DOCUMENT_PRESENT));

/**
 * A suite that reads the document, also to build its tables (which is why `describe.skipIf`
 * cannot do: vitest collects a skipped suite's tests by running its body). Without the document,
 * the suite is reported as skipped, by name, with one test saying where the document comes from.
 */
export function describeWithDocument(name: string, body: () => void): void {
  if (OPENAPI_DOCUMENT_PRESENT) describe(name, body);
  else describe.skip(name, () => it(OPENAPI_DOCUMENT_ABSENT, () => {}));
}

/** HTTP methods an OpenAPI path item can hold. */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Strictness of a validation: see the file header. */
export type Strictness = "document" | "contract";

/** One operation of the document. */
export interface OperationInfo {
  /** Upper-case HTTP method, e.g. `"GET"`. */
  method: string;
  /** The path exactly as the document writes it (e.g. `/integrations/{id}/user`). */
  path: string;
  /** The path as the contract and every client use it (e.g. `/integrations/{id}/users`). */
  canonicalPath: string;
  operationId: string;
  summary: string;
  tags: string[];
  /** Documented response statuses, as written (`"200"`, `"404"`, ...). */
  statuses: string[];
  hasRequestBody: boolean;
  /** 1-based line of the operation's method key in the YAML file. */
  line: number;
}

/** Result of matching a concrete request path against the document. */
export interface PathMatch {
  /** The template as the document writes it. */
  documentedPath: string;
  /** The template as the contract writes it (differs only for {@link PATH_ALIASES}). */
  canonicalPath: string;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
  /** The operation for the requested method, if the document has one. */
  operation?: OperationInfo;
}

/** Outcome of a validation. */
export interface ValidationOutcome {
  valid: boolean;
  /** One line per problem, `"<JSON pointer in the body>: <problem>"`. */
  errors: string[];
  /** Problems excused by an explicitly passed quirk id, prefixed with `[<quirk id>]`. */
  allowed: string[];
  operationId: string;
}

/** Options of a validation. */
export interface ValidateOptions {
  /** Default `"contract"`. */
  strictness?: Strictness;
  /** Quirk ids (see {@link DOCUMENT_QUIRKS}) whose known errors are excused. Default: none. */
  allow?: readonly string[];
}

/** One example payload given by the document. */
export interface DocumentExample {
  operationId: string;
  kind: "request" | "response";
  /** Response status, for response examples. */
  status?: number;
  /** `"example"`, or the key under `examples`. */
  name: string;
  /**
   * Where the document put it: on the media type (`media-type`), inside the schema object
   * (`schema`, a quirk of this document), or in a `$ref`'d `components.responses` entry.
   */
  placement: "media-type" | "schema" | "component-response";
  /** 1-based line of the example's key in the YAML file. */
  line: number;
  value: unknown;
}

/**
 * Paths that everyone (the contract, the document's own descriptions and links) writes
 * differently from the document's `paths` key. Key: canonical template; value: documented one.
 */
export const PATH_ALIASES: Readonly<Record<string, string>> = {
  // The document's key (line 2452) is singular; its descriptions (2459, 2574) and its
  // example link (2559) say `/users`, as does the contract.
  "/integrations/{id}/users": "/integrations/{id}/user",
};

/** The operations this package implements (api-contract.md), by operationId as documented. */
export const CONTRACT_OPERATIONS: readonly { operationId: string; method: string; path: string }[] = [
  { operationId: "getUserList", method: "GET", path: "/users" },
  { operationId: "getUserById", method: "GET", path: "/users/{id}" },
  { operationId: "getIntegrationById", method: "GET", path: "/integrations/{id}" },
  { operationId: "getIntegrationEntitlements", method: "GET", path: "/integrations/{id}/entitlements" },
  { operationId: "getIntegrationUsers", method: "GET", path: "/integrations/{id}/users" },
  { operationId: "postInviteIntegrationUser", method: "POST", path: "/integrations/{id}/users" },
  { operationId: "getIntegrationUserById", method: "GET", path: "/integrations/{id}/users/{userId}" },
  { operationId: "patchUpdateUserEntitlement", method: "PATCH", path: "/integrations/{id}/users/{userId}" },
  { operationId: "deleteIntegrationUser", method: "DELETE", path: "/integrations/{id}/users/{userId}" },
  {
    operationId: "patchAddRemoveEntitlementUser.",
    method: "PATCH",
    path: "/integrations/{id}/users/{userId}/entitlements",
  },
  { operationId: "getJobById", method: "GET", path: "/jobs/{id}" },
];

/** Where an overlay rule applies. */
export type OverlayTarget = { component: string } | { operationId: string; response: number } | { operationId: string; request: true };

/** One addition of the contract to the document's schemas. */
interface OverlayRuleBase {
  target: OverlayTarget;
  /** JSON pointer inside the target schema ("" = the schema itself). */
  at: string;
  /** Names added to the schema's `required` list. */
  required?: readonly string[];
  /** Other keywords added; each must be absent from the document's schema (checked at load). */
  add?: Readonly<Record<string, unknown>>;
  /** Which line of api-contract.md (or of the document's prose) justifies the rule. */
  source: string;
}

/** A rule adds required names, other keywords, or both: never nothing (the type says so). */
export type OverlayRule = OverlayRuleBase & ({ required: readonly string[] } | { add: Readonly<Record<string, unknown>> });

const JOB_STATUSES = ["created", "started", "running", "retrying", "finished", "error"];
const PAGED_ENVELOPE = (operationId: string): OverlayRule[] => [
  {
    target: { operationId, response: 200 },
    at: "",
    required: ["data", "links", "meta"],
    source: "contract, Transport: envelope",
  },
  {
    target: { operationId, response: 200 },
    at: "/properties/links",
    required: ["self", "next", "previous"],
    source: "contract, Transport: envelope (next/previous may be null)",
  },
  {
    target: { operationId, response: 200 },
    at: "/properties/meta",
    required: ["page"],
    source: "contract, Transport: envelope",
  },
  {
    target: { operationId, response: 200 },
    at: "/properties/meta/properties/page",
    required: ["maxSize", "total"],
    source: "contract, Transport: envelope / paging",
  },
];
const DATA_ENVELOPE = (operationId: string): OverlayRule => ({
  target: { operationId, response: 200 },
  at: "",
  required: ["data"],
  source: "contract: every response has data",
});

/**
 * The contract's additions to the document, applied in `"contract"` strictness. They only
 * narrow (add `required`, `enum`, `format`, `items`, ...): a payload valid in contract
 * strictness is valid in document strictness.
 */
export const CONTRACT_OVERLAY: readonly OverlayRule[] = [
  // Users
  { target: { component: "users" }, at: "", required: ["id", "type", "attributes"], source: "contract, Users: User record" },
  { target: { component: "users" }, at: "/properties/id", add: { format: "uuid" }, source: "contract, Users: id: uuid" },
  { target: { component: "users" }, at: "/properties/type", add: { enum: ["user"] }, source: 'contract, Users: type: "user"' },
  {
    target: { component: "users" },
    at: "/properties/attributes",
    required: ["email", "firstName", "lastName", "role", "isGuest", "status", "mfaStatus", "createdAt", "updatedAt"],
    source: "contract, Users: User record attributes (mfaStatus is null unless ?mfaStatus=true)",
  },
  // Integration
  {
    target: { component: "integration" },
    at: "",
    required: ["id", "type", "attributes"],
    source: "contract, Integration users: integration record",
  },
  { target: { component: "integration" }, at: "/properties/type", add: { enum: ["account"] }, source: "contract: record type `account`" },
  {
    target: { component: "integration" },
    at: "/properties/attributes",
    required: ["application", "label"],
    source: "contract: attributes `application`, `label`, ...",
  },
  // Entitlement
  { target: { component: "entitlement" }, at: "", required: ["id", "type", "attributes"], source: "contract: Entitlement record" },
  { target: { component: "entitlement" }, at: "/properties/type", add: { enum: ["entitlement"] }, source: 'contract: type "entitlement"' },
  {
    target: { component: "entitlement" },
    at: "/properties/attributes",
    required: ["group", "key", "label", "value"],
    source: "contract: Entitlement record attributes",
  },
  // Integration user
  {
    target: { component: "integrationUser" },
    at: "",
    required: ["id", "type", "attributes", "meta"],
    source: "contract: Integration user record",
  },
  { target: { component: "integrationUser" }, at: "/properties/id", add: { format: "uuid" }, source: "contract: id: <user uuid>" },
  { target: { component: "integrationUser" }, at: "/properties/type", add: { enum: ["user"] }, source: 'contract: type: "user"' },
  {
    target: { component: "integrationUser" },
    at: "/properties/attributes",
    required: ["email", "firstName", "lastName", "isGuest", "status", "role", "entitlements"],
    source: "contract: Integration user record attributes",
  },
  {
    target: { component: "integrationUser" },
    at: "/properties/attributes/properties/entitlements",
    add: { items: { anyOf: [{ $ref: "#/components/schemas/entitlement" }, { type: "string" }] } },
    source: "contract: entitlements are entitlement records or plain id strings",
  },
  {
    target: { component: "integrationUser" },
    at: "/properties/meta",
    required: ["dynamicFields"],
    source: "contract: meta: { dynamicFields }",
  },
  // Jobs
  {
    target: { component: "integrationJob" },
    at: "",
    required: ["id", "type", "attributes"],
    source: "contract: 200 job { id, type, attributes }",
  },
  { target: { component: "integrationJob" }, at: "/properties/type", add: { enum: ["job"] }, source: 'contract: type: "job"' },
  {
    target: { component: "integrationJob" },
    at: "/properties/attributes",
    required: ["status"],
    source: "contract: attributes: { status }",
  },
  {
    target: { component: "integrationJob" },
    at: "/properties/attributes/properties/status",
    add: { enum: JOB_STATUSES },
    source: "contract, Jobs: status values",
  },
  { target: { component: "job" }, at: "", required: ["id", "type", "attributes"], source: "contract, Jobs: job record" },
  { target: { component: "job" }, at: "/properties/type", add: { enum: ["job"] }, source: "contract, Jobs" },
  {
    target: { component: "job" },
    at: "/properties/attributes",
    required: [
      "account",
      "canRetry",
      "createdAt",
      "createdBy",
      "errorDetails",
      "hasMoreDetails",
      "response",
      "status",
      "trigger",
      "updatedAt",
      "workflowType",
    ],
    source: "contract, Jobs: the seed's job fields (payload and workspacePolicyEnforcementId stay optional)",
  },
  // Errors
  { target: { component: "error" }, at: "", required: ["errors"], source: "contract, Transport: errors" },
  { target: { component: "error" }, at: "/properties/errors", add: { minItems: 1 }, source: "contract, Transport: errors" },
  {
    target: { component: "error" },
    at: "/properties/errors/items",
    required: ["code", "title", "detail", "status", "meta"],
    source: "contract, Transport: errors [{ code, title, detail, status, meta }]",
  },
  // Envelopes of the implemented operations
  ...PAGED_ENVELOPE("getUserList"),
  ...PAGED_ENVELOPE("getIntegrationUsers"),
  DATA_ENVELOPE("getUserById"),
  DATA_ENVELOPE("getIntegrationById"),
  DATA_ENVELOPE("getIntegrationEntitlements"),
  DATA_ENVELOPE("getIntegrationUserById"),
  DATA_ENVELOPE("postInviteIntegrationUser"),
  DATA_ENVELOPE("patchUpdateUserEntitlement"),
  DATA_ENVELOPE("patchAddRemoveEntitlementUser."),
  DATA_ENVELOPE("deleteIntegrationUser"),
  {
    target: { operationId: "getJobById", response: 200 },
    at: "",
    required: ["data", "links", "meta"],
    source: "contract: single job envelope",
  },
  {
    target: { operationId: "getJobById", response: 200 },
    at: "/properties/links",
    required: ["self"],
    source: "contract: single job envelope",
  },
  // Request bodies
  {
    target: { operationId: "postInviteIntegrationUser", request: true },
    at: "/properties/data/properties/attributes/properties/userIds",
    add: { items: { type: "string", format: "uuid" } },
    source: "contract: userIds: [uuid] (the document gives the array no items schema)",
  },
  {
    target: { operationId: "patchAddRemoveEntitlementUser.", request: true },
    at: "/properties/data",
    add: { anyOf: [{ required: ["add"] }, { required: ["remove"] }] },
    source: "document prose, line 3024: data must contain either `add`, `remove`, or both",
  },
  {
    target: { operationId: "patchAddRemoveEntitlementUser.", request: true },
    at: "/properties/data/properties/add",
    required: ["entitlements"],
    source: "contract: add: { entitlements: [{ id }] }",
  },
  {
    target: { operationId: "patchAddRemoveEntitlementUser.", request: true },
    at: "/properties/data/properties/remove",
    required: ["entitlements"],
    source: "contract: remove: { entitlements: [{ id }] }",
  },
];

/** An error of one of the document's own examples that a quirk explains. */
export interface QuirkAllowance {
  operationId: string;
  /** Response status, or `"request"` for the request body. */
  status: number | "request";
  /** JSON pointer of the offending value in the payload. */
  instancePath: string;
  /** ajv keyword of the error (`format`, `required`, `type`, ...). */
  keyword: string;
  /** Strictness in which the error appears. */
  strictness: Strictness;
}

/** A known inconsistency of the document, with its line numbers. */
export interface DocumentQuirk {
  id: string;
  /** 1-based line numbers in public-openapi.yaml; the first is checked by the self-test. */
  lines: readonly number[];
  /** Text expected on `lines[0]` (keeps the line numbers honest when the document changes). */
  evidence: string;
  summary: string;
  /** What this toolkit does about it. */
  handling: string;
  allowances?: readonly QuirkAllowance[];
}

/** Every quirk of the document found so far. docs/openapi-conformance.md describes each. */
export const DOCUMENT_QUIRKS: readonly DocumentQuirk[] = [
  {
    id: "integration-users-path-singular",
    lines: [2452, 2459, 2559, 2568, 2574],
    evidence: "/integrations/{id}/user:",
    summary:
      "The path key of the integration users list and of the invite is `/integrations/{id}/user`; both descriptions and the example's self link say `/integrations/{id}/users`.",
    handling: "PATH_ALIASES maps `/integrations/{id}/users` (and concrete `/users` paths) to the documented operations.",
  },
  {
    id: "example-inside-schema",
    lines: [1655, 1750, 971, 1211, 1490, 1575, 1818],
    evidence: "example:",
    summary:
      "Some response examples (users list and user by id among them) are written as the Schema Object's `example` instead of the Media Type Object's, one level deeper than the others.",
    handling: 'examplesFor() reads both places and says which (`placement: "schema"`).',
  },
  {
    id: "entitlements-items-unspecified",
    lines: [3868, 3869, 3870],
    evidence: "entitlements:",
    summary:
      "`integrationUser.attributes.entitlements` is `type: array` with no `items`, described as entitlement objects. No schema says strings (the reference README's note does not hold for this copy): every example (2513, 2535, 2786) shows entitlement records, and they validate.",
    handling:
      "Document strictness accepts any items; contract strictness requires entitlement records or id strings (CONTRACT_OVERLAY). No allowance needed.",
  },
  {
    id: "user-example-id-not-uuid",
    lines: [1693],
    evidence: "aab12343fbc-1234-1234-1234-3fb6573fabcd",
    summary:
      "The third user of the users list example has id `aab12343fbc-1234-1234-1234-3fb6573fabcd` (11 hex digits in the first group): not a UUID, while `/users/{id}` takes `format: uuid` (line 1727) and the contract says `id: uuid`.",
    handling:
      'Valid in document strictness (the schema gives `id` no format); excused in contract strictness only with allow: ["user-example-id-not-uuid"].',
    allowances: [{ operationId: "getUserList", status: 200, instancePath: "/data/2/id", keyword: "format", strictness: "contract" }],
  },
  {
    id: "user-example-duplicate-ids",
    lines: [1669, 1681],
    evidence: "1234c85b-1234-1234-1234-7c886800abcd",
    summary: "The first two users of the users list example (Joe Doe, Kevin Example) share the id `1234c85b-1234-1234-1234-7c886800abcd`.",
    handling: "Nothing to validate (uniqueness is not a schema property); do not use the example as emulator seed data as is.",
  },
  {
    id: "page-total-inconsistent",
    lines: [2563, 2556, 2402, 2330],
    evidence: "total: 4",
    summary:
      "The integration users list example has 2 items, `next: null`, page size 20 and `meta.page.total: 4`; the integrations list (total 1 but a `next` link, 2396-2402) and vaults list (3 items of 51 at page size 100, `next: null`, 2323-2330) are inconsistent the same way. The contract says `total` counts items.",
    handling: "Nothing in the schemas; paging tests must not derive expectations from these examples.",
  },
  {
    id: "operation-id-trailing-dot",
    lines: [2974],
    evidence: "patchAddRemoveEntitlementUser.",
    summary: "The add/remove entitlements operationId ends with a dot: `patchAddRemoveEntitlementUser.`.",
    handling: "Used verbatim (CONTRACT_OPERATIONS); code generators would choke on it.",
  },
  {
    id: "path-parameter-not-required",
    lines: [1722, 1939],
    evidence: "- name: id",
    summary:
      "The `id` path parameters of `GET /users/{id}` (1722-1727) and `GET /teams/{id}` (1939-1944) lack `required: true`, which OpenAPI 3.0 demands for path parameters.",
    handling: "None needed: path parameters are matched by matchPath(), not validated.",
  },
  {
    id: "ref-with-sibling-description",
    lines: [1148, 1430],
    evidence: "$ref: '#/components/schemas/secret'",
    summary:
      "Two response schemas put `description` beside `$ref` (1148-1149 createSecret, 1430-1431 shareSecretWithMember); OpenAPI 3.0 ignores siblings of `$ref`, and the OpenAPI 3.0 meta-schema rejects them (the only meta-schema errors of the document).",
    handling: "Siblings of `$ref` are ignored when resolving.",
  },
  {
    id: "no-required-in-responses",
    lines: [3110],
    evidence: "schemas:",
    summary:
      "No response schema (components.schemas 3110-3971, nor the inline envelopes) has a `required` list, and the `type` properties have no `enum`: in the document alone, `{}` is a valid user, job or error body.",
    handling: "Contract strictness (default) adds CONTRACT_OVERLAY; document strictness keeps the document as is.",
  },
  {
    id: "error-400-example-name",
    lines: [3983],
    evidence: "unauthorizedExample:",
    summary: "The 400 response's only example is named `unauthorizedExample` (copied from 401).",
    handling: "Reported by examplesFor() under that name.",
  },
  {
    id: "scopes-inconsistent",
    lines: [2692, 2580, 71, 1606, 1783],
    evidence: "The API scope required to use this endpoint is: **Write",
    summary:
      "Listing entitlements asks for **Write integrations** (2692-2693) while the scope list says Read integrations enables reading entitlement data (71); the invite asks for Write integrations and **Read** automated jobs (2580-2581) while set/remove (2823-2824, 2929-2930) ask for Write automated jobs; users and teams name scopes `User data`/`Users data` (1606, 1720, 1783, 1937) that are not in the scope list (61-77).",
    handling: "Not checkable by schemas; recorded for the emulator's scope rules.",
  },
  {
    id: "user-timestamps-formats",
    lines: [3512, 3579],
    evidence: "createdAt:",
    summary:
      "`users.attributes.createdAt` has no `format` while `updatedAt` is `format: date-time`; user and integration examples carry whole seconds (`2024-01-04T15:36:54+00:00`) where job examples carry microseconds.",
    handling: "date-time is checked as RFC 3339 (fractional seconds optional, offset required).",
  },
];

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function decodePointerSegment(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

function pointerSegments(pointer: string): string[] {
  if (pointer === "" || pointer === "#") return [];
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (!body.startsWith("/")) throw new Error(`not a JSON pointer: ${pointer}`);
  return body.slice(1).split("/").map(decodePointerSegment);
}

function getAt(root: unknown, segments: readonly string[], what: string): unknown {
  let node = root;
  for (const segment of segments) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObject(node)) node = node[segment];
    else node = undefined;
    if (node === undefined) throw new Error(`${what}: nothing at /${segments.join("/")}`);
  }
  return node;
}

/** Returns a copy of `node` with every local `$ref` replaced by a fresh copy of its target. */
function dereference(node: unknown, root: unknown, chain: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => dereference(item, root, chain));
  if (!isObject(node)) return node;
  const ref = node.$ref;
  if (typeof ref === "string") {
    if (!ref.startsWith("#/")) throw new Error(`only local $refs are supported, got ${ref}`);
    if (chain.includes(ref)) throw new Error(`circular $ref: ${[...chain, ref].join(" -> ")}`);
    // OpenAPI 3.0: siblings of $ref are ignored (quirk ref-with-sibling-description).
    return dereference(getAt(root, pointerSegments(ref), `$ref ${ref}`), root, [...chain, ref]);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = dereference(value, root, chain);
  return out;
}

function mergeRule(schema: unknown, rule: OverlayRule, where: string): void {
  if (!isObject(schema)) throw new Error(`overlay rule at ${where}: not a schema object`);
  if (rule.required) {
    const existing = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    schema.required = [...new Set([...existing, ...rule.required])];
  }
  for (const [key, value] of Object.entries(rule.add ?? {})) {
    if (key in schema) {
      throw new Error(`overlay rule at ${where}: the document already sets "${key}"; review CONTRACT_OVERLAY`);
    }
    schema[key] = structuredClone(value);
  }
}

function mediaSchemaSegments(operation: OperationInfo, target: OverlayTarget): string[] {
  const base = ["paths", operation.path, operation.method.toLowerCase()];
  if ("request" in target) return [...base, "requestBody", "content", "application/json", "schema"];
  if ("response" in target) return [...base, "responses", String(target.response), "content", "application/json", "schema"];
  throw new Error("unreachable");
}

interface LoadedValidator {
  validator: OpenAPIValidator;
}

type ValidatorDefinition = ConstructorParameters<typeof OpenAPIValidator>[0]["definition"];

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isDateTime(value: string): boolean {
  const match = RFC3339.exec(value);
  return match !== null && !Number.isNaN(Date.parse(value));
}

function buildValidator(definition: unknown): LoadedValidator {
  const validator = new OpenAPIValidator({
    definition: definition as ValidatorDefinition,
    ajvOpts: { allErrors: true, strict: false },
    lazyCompileValidators: true,
    customizeAjv: (ajv) => {
      // The two formats the document uses; openapi-backend registers only the OAS numeric/byte ones.
      ajv.addFormat("date-time", { type: "string", validate: isDateTime });
      ajv.addFormat("uuid", { type: "string", validate: UUID });
      return ajv;
    },
  });
  return { validator };
}

interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

function formatError(error: AjvLikeError, prefix = ""): string {
  const at = error.instancePath.startsWith(prefix) ? error.instancePath.slice(prefix.length) : error.instancePath;
  const where = at === "" ? "(body)" : at;
  const p = error.params;
  if (error.keyword === "required" && p.missingProperty === "requestBody" && error.instancePath === "") {
    return "(body): the request body is required";
  }
  switch (error.keyword) {
    case "required":
      return `${at}/${String(p.missingProperty)}: required property is missing`;
    case "enum":
      return `${where}: must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "additionalProperties":
      return `${where}: unexpected property "${String(p.additionalProperty)}"`;
    case "format":
      return `${where}: must be a ${String(p.format)}`;
    default:
      return `${where}: ${error.message ?? error.keyword}`;
  }
}

function errorKey(error: AjvLikeError): string {
  return `${error.instancePath}|${error.keyword}|${JSON.stringify(error.params)}`;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function statusKeyMatches(statuses: readonly string[], status: number): string | undefined {
  if (statuses.includes(String(status))) return String(status);
  const family = `${Math.floor(status / 100)}XX`;
  if (statuses.includes(family)) return family;
  if (statuses.includes("default")) return "default";
  return undefined;
}

/** Everything the toolkit offers, bound to one loaded document. */
export interface OpenApiToolkit {
  /** Absolute path of the loaded file. */
  file: string;
  /** The document as parsed (not dereferenced). */
  document: JsonObject;
  operations(): OperationInfo[];
  findOperation(method: string, pathOrTemplate: string): OperationInfo | undefined;
  getOperation(method: string, pathOrTemplate: string): OperationInfo;
  matchPath(concretePath: string, method?: string): PathMatch | undefined;
  validateResponse(method: string, pathOrTemplate: string, status: number, body: unknown, options?: ValidateOptions): ValidationOutcome;
  validateRequestBody(method: string, pathOrTemplate: string, body: unknown, options?: ValidateOptions): ValidationOutcome;
  validateErrorBody(body: unknown, options?: ValidateOptions): ValidationOutcome;
  examplesFor(method: string, pathOrTemplate: string, status?: number): DocumentExample[];
  lineOf(pointer: string): number | undefined;
  lineText(line: number): string;
}

/**
 * Loads and indexes the document. Throws a descriptive error if the file is missing or is
 * not a parseable OpenAPI 3.0 document.
 */
export function loadOpenApi(file: string = OPENAPI_DOCUMENT_PATH): OpenApiToolkit {
  if (!existsSync(file)) {
    throw new Error(
      `OpenAPI reference document not found at ${file}. The conformance suite reads the service's public ` +
        `OpenAPI document at test time from ${OPENAPI_DOCUMENT_HOME} (relative to the repository root), or ` +
        `from the file WA_OPENAPI_DOCUMENT names; it is not part of this repository and must not be copied into it.`,
    );
  }
  const text = readFileSync(file, "utf8");
  const sourceLines = text.split(/\r?\n/);
  const lineCounter = new LineCounter();
  const yamlDocument = parseDocument(text, { lineCounter });
  if (yamlDocument.errors.length > 0) {
    throw new Error(`${file} is not valid YAML: ${yamlDocument.errors.map((e) => e.message).join("; ")}`);
  }
  const document = yamlDocument.toJS() as unknown;
  if (!isObject(document) || typeof document.openapi !== "string" || !document.openapi.startsWith("3.0")) {
    throw new Error(`${file} is not an OpenAPI 3.0 document (openapi: ${isObject(document) ? String(document.openapi) : "?"})`);
  }
  if (!isObject(document.paths)) throw new Error(`${file} has no paths`);
  const paths = document.paths;

  /** Line of the last key of a path of keys/indices, walking the YAML syntax tree. */
  function lineOfSegments(segments: readonly string[]): number | undefined {
    let node: unknown = yamlDocument.contents;
    let line: number | undefined;
    for (const segment of segments) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment);
        if (!pair || !isScalar(pair.key) || !pair.key.range) return undefined;
        line = lineCounter.linePos(pair.key.range[0]).line;
        node = pair.value;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)];
        if (!isMap(item) && !isScalar(item) && !isSeq(item)) return undefined;
        if (!item.range) return undefined;
        line = lineCounter.linePos(item.range[0]).line;
        node = item;
      } else {
        return undefined;
      }
    }
    return line;
  }

  const canonicalOf = new Map<string, string>();
  for (const [canonical, documented] of Object.entries(PATH_ALIASES)) canonicalOf.set(documented, canonical);

  const operationList: OperationInfo[] = [];
  for (const [pathKey, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const [methodKey, op] of Object.entries(item)) {
      if (!(HTTP_METHODS as readonly string[]).includes(methodKey) || !isObject(op)) continue;
      operationList.push({
        method: methodKey.toUpperCase(),
        path: pathKey,
        canonicalPath: canonicalOf.get(pathKey) ?? pathKey,
        operationId: typeof op.operationId === "string" ? op.operationId : `${methodKey.toUpperCase()} ${pathKey}`,
        summary: typeof op.summary === "string" ? op.summary : "",
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        statuses: isObject(op.responses) ? Object.keys(op.responses) : [],
        hasRequestBody: op.requestBody !== undefined,
        line: lineOfSegments(["paths", pathKey, methodKey]) ?? 0,
      });
    }
  }
  const byId = new Map(operationList.map((op) => [op.operationId, op]));

  function operationById(operationId: string): OperationInfo {
    const op = byId.get(operationId);
    if (!op) throw new Error(`no operation ${operationId} in ${file}`);
    return op;
  }

  // Document strictness: the document, dereferenced.
  const documentDefinition = dereference(document, document);
  // Contract strictness: component rules before dereferencing (every use inherits them),
  // operation rules after (each use site is its own copy).
  const overlaid = structuredClone(document);
  for (const rule of CONTRACT_OVERLAY) {
    if ("component" in rule.target) {
      const where = `#/components/schemas/${rule.target.component}${rule.at}`;
      const schema = getAt(overlaid, ["components", "schemas", rule.target.component, ...pointerSegments(rule.at)], where);
      mergeRule(schema, rule, where);
    }
  }
  const contractDefinition = dereference(overlaid, overlaid);
  for (const rule of CONTRACT_OVERLAY) {
    if ("component" in rule.target) continue;
    const op = operationById(rule.target.operationId);
    const segments = [...mediaSchemaSegments(op, rule.target), ...pointerSegments(rule.at)];
    mergeRule(getAt(contractDefinition, segments, rule.target.operationId), rule, `${op.operationId} /${segments.join("/")}`);
  }

  let validators: Record<Strictness, LoadedValidator> | undefined;
  function validatorFor(strictness: Strictness): OpenAPIValidator {
    validators ??= { document: buildValidator(documentDefinition), contract: buildValidator(contractDefinition) };
    return validators[strictness].validator;
  }

  function splitPath(concretePath: string): string[] {
    let p = concretePath;
    if (/^https?:\/\//i.test(p)) p = new URL(p).pathname;
    p = p.replace(/[?#].*$/, "");
    p = p.replace(/^\/api\/v1(?=\/|$)/, "");
    if (!p.startsWith("/")) p = `/${p}`;
    if (p.length > 1) p = p.replace(/\/+$/, "");
    return p.split("/").slice(1);
  }

  function matchPath(concretePath: string, method?: string): PathMatch | undefined {
    const segments = splitPath(concretePath);
    const candidates = [
      ...Object.keys(paths).map((documented) => ({ template: documented, documented })),
      ...Object.entries(PATH_ALIASES).map(([canonical, documented]) => ({ template: canonical, documented })),
    ];
    let best: { documented: string; params: Record<string, string>; literals: number } | undefined;
    for (const candidate of candidates) {
      const parts = candidate.template.split("/").slice(1);
      if (parts.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      parts.forEach((part, index) => {
        const actual = segments[index] ?? "";
        const param = /^\{(.+)\}$/.exec(part);
        if (param) {
          if (actual === "") ok = false;
          else params[param[1]!] = safeDecode(actual);
        } else if (part === actual) {
          literals += 1;
        } else {
          ok = false;
        }
      });
      if (ok && (!best || literals > best.literals)) best = { documented: candidate.documented, params, literals };
    }
    if (!best) return undefined;
    const documented = best.documented;
    const operation = method ? operationList.find((op) => op.path === documented && op.method === method.toUpperCase()) : undefined;
    return {
      documentedPath: documented,
      canonicalPath: canonicalOf.get(documented) ?? documented,
      params: best.params,
      ...(operation ? { operation } : {}),
    };
  }

  function findOperation(method: string, pathOrTemplate: string): OperationInfo | undefined {
    const upper = method.toUpperCase();
    const documented = PATH_ALIASES[pathOrTemplate] ?? pathOrTemplate;
    const exact = operationList.find((op) => op.method === upper && op.path === documented);
    if (exact) return exact;
    return matchPath(pathOrTemplate, upper)?.operation;
  }

  function getOperation(method: string, pathOrTemplate: string): OperationInfo {
    const op = findOperation(method, pathOrTemplate);
    if (!op) {
      throw new Error(
        `${method.toUpperCase()} ${pathOrTemplate} is not an operation of the public OpenAPI document (${file}); ` +
          `see operations() for the list`,
      );
    }
    return op;
  }

  function rawOperation(op: OperationInfo): JsonObject {
    return getAt(document, ["paths", op.path, op.method.toLowerCase()], op.operationId) as JsonObject;
  }

  function applyAllowances(
    op: OperationInfo,
    status: number | "request",
    strictness: Strictness,
    errors: AjvLikeError[],
    allow: readonly string[],
  ): { kept: AjvLikeError[]; excused: { quirk: string; error: AjvLikeError }[] } {
    for (const id of allow) {
      if (!DOCUMENT_QUIRKS.some((q) => q.id === id)) throw new Error(`unknown quirk id in allow: ${id}`);
    }
    const kept: AjvLikeError[] = [];
    const excused: { quirk: string; error: AjvLikeError }[] = [];
    for (const error of errors) {
      const quirk = DOCUMENT_QUIRKS.find(
        (q) =>
          allow.includes(q.id) &&
          (q.allowances ?? []).some(
            (a) =>
              a.operationId === op.operationId &&
              a.status === status &&
              a.strictness === strictness &&
              a.keyword === error.keyword &&
              a.instancePath === error.instancePath,
          ),
      );
      if (quirk) excused.push({ quirk: quirk.id, error });
      else kept.push(error);
    }
    return { kept, excused };
  }

  /** Runs `run` in the requested strictness; in contract strictness, tags overlay-only errors. */
  function runValidation(
    op: OperationInfo,
    status: number | "request",
    options: ValidateOptions | undefined,
    run: (validator: OpenAPIValidator) => AjvLikeError[],
    prefix = "",
  ): ValidationOutcome {
    const strictness = options?.strictness ?? "contract";
    const errors = run(validatorFor(strictness));
    const documentKeys =
      strictness === "contract" && errors.length > 0 ? new Set(run(validatorFor("document")).map(errorKey)) : new Set<string>();
    const { kept, excused } = applyAllowances(op, status, strictness, errors, options?.allow ?? []);
    const describe = (error: AjvLikeError): string =>
      formatError(error, prefix) + (strictness === "contract" && !documentKeys.has(errorKey(error)) ? " [contract overlay]" : "");
    return {
      valid: kept.length === 0,
      errors: kept.map(describe),
      allowed: excused.map(({ quirk, error }) => `[${quirk}] ${describe(error)}`),
      operationId: op.operationId,
    };
  }

  function validateResponse(
    method: string,
    pathOrTemplate: string,
    status: number,
    body: unknown,
    options?: ValidateOptions,
  ): ValidationOutcome {
    const op = getOperation(method, pathOrTemplate);
    const statusKey = statusKeyMatches(op.statuses, status);
    if (statusKey === undefined) {
      return {
        valid: false,
        errors: [
          `(status): ${status} is not documented for ${op.method} ${op.path} (documented: ${op.statuses.join(", ")}); ` +
            `use validateErrorBody() for undocumented error statuses`,
        ],
        allowed: [],
        operationId: op.operationId,
      };
    }
    const response = getAt(documentDefinition, ["paths", op.path, op.method.toLowerCase(), "responses", statusKey], op.operationId);
    const content = isObject(response) ? response.content : undefined;
    if (!isObject(content) || !isObject(content["application/json"])) {
      const empty = body === undefined || body === null || body === "";
      return {
        valid: empty,
        errors: empty ? [] : [`(body): ${status} is documented without a JSON body`],
        allowed: [],
        operationId: op.operationId,
      };
    }
    return runValidation(op, status, options, (validator) => {
      const result = validator.validateResponse(structuredClone(body), op.operationId, status);
      return (result.errors ?? []) as AjvLikeError[];
    });
  }

  function validateRequestBody(method: string, pathOrTemplate: string, body: unknown, options?: ValidateOptions): ValidationOutcome {
    const op = getOperation(method, pathOrTemplate);
    if (!op.hasRequestBody) {
      const empty = body === undefined || body === null;
      return {
        valid: empty,
        errors: empty ? [] : [`(body): ${op.method} ${op.path} takes no request body`],
        allowed: [],
        operationId: op.operationId,
      };
    }
    return runValidation(
      op,
      "request",
      options,
      (validator) => {
        const result = validator.validateRequest(
          {
            method: op.method.toLowerCase(),
            path: op.path,
            headers: { "content-type": "application/json" },
            query: {},
            body: structuredClone(body),
          },
          op.operationId,
        );
        // Only the body: the template's `{id}` placeholders are not valid path parameters.
        return ((result.errors ?? []) as AjvLikeError[]).filter(
          (e) =>
            e.instancePath === "/requestBody" ||
            e.instancePath.startsWith("/requestBody/") ||
            (e.keyword === "required" && e.params.missingProperty === "requestBody"),
        );
      },
      "/requestBody",
    );
  }

  const errorSchemaOperation: OperationInfo = {
    method: "-",
    path: "#/components/schemas/error",
    canonicalPath: "#/components/schemas/error",
    operationId: "#/components/schemas/error",
    summary: "error body",
    tags: [],
    statuses: [],
    hasRequestBody: false,
    line: lineOfSegments(["components", "schemas", "error"]) ?? 0,
  };
  // A synthetic operation whose 200 response is the error schema, so that error bodies of
  // statuses the document does not list per operation (400/403/409/429/5xx) can be checked.
  const errorProbe = (definition: unknown): unknown => ({
    openapi: "3.0.0",
    info: { title: "error body", version: "0" },
    paths: {
      "/error": {
        get: {
          operationId: "errorBody",
          responses: {
            "200": {
              description: "error",
              content: {
                "application/json": { schema: getAt(definition, ["components", "schemas", "error"], "error schema") },
              },
            },
          },
        },
      },
    },
  });
  let errorValidators: Record<Strictness, LoadedValidator> | undefined;
  function validateErrorBody(body: unknown, options?: ValidateOptions): ValidationOutcome {
    errorValidators ??= {
      document: buildValidator(errorProbe(documentDefinition)),
      contract: buildValidator(errorProbe(contractDefinition)),
    };
    const strictness = options?.strictness ?? "contract";
    const run = (s: Strictness): AjvLikeError[] =>
      (errorValidators![s].validator.validateResponse(structuredClone(body), "errorBody", 200).errors ?? []) as AjvLikeError[];
    const errors = run(strictness);
    const documentKeys = strictness === "contract" && errors.length > 0 ? new Set(run("document").map(errorKey)) : new Set<string>();
    return {
      valid: errors.length === 0,
      errors: errors.map(
        (e) => formatError(e) + (strictness === "contract" && !documentKeys.has(errorKey(e)) ? " [contract overlay]" : ""),
      ),
      allowed: [],
      operationId: errorSchemaOperation.operationId,
    };
  }

  function examplesOfMedia(
    op: OperationInfo,
    kind: "request" | "response",
    status: number | undefined,
    media: unknown,
    segments: string[],
    componentResponse: boolean,
  ): DocumentExample[] {
    if (!isObject(media)) return [];
    const out: DocumentExample[] = [];
    const base = { operationId: op.operationId, kind, ...(status === undefined ? {} : { status }) };
    const mediaPlacement = componentResponse ? "component-response" : "media-type";
    if (media.example !== undefined) {
      out.push({
        ...base,
        name: "example",
        placement: mediaPlacement,
        line: lineOfSegments([...segments, "example"]) ?? 0,
        value: media.example,
      });
    }
    if (isObject(media.examples)) {
      for (const [name, entry] of Object.entries(media.examples)) {
        let resolved: unknown = entry;
        let entrySegments = [...segments, "examples", name];
        if (isObject(entry) && typeof entry.$ref === "string") {
          entrySegments = pointerSegments(entry.$ref);
          resolved = getAt(document, entrySegments, entry.$ref);
        }
        if (isObject(resolved) && resolved.value !== undefined) {
          out.push({ ...base, name, placement: mediaPlacement, line: lineOfSegments(entrySegments) ?? 0, value: resolved.value });
        }
      }
    }
    if (isObject(media.schema) && media.schema.example !== undefined) {
      out.push({
        ...base,
        name: "example",
        placement: "schema",
        line: lineOfSegments([...segments, "schema", "example"]) ?? 0,
        value: media.schema.example,
      });
    }
    return out;
  }

  function examplesFor(method: string, pathOrTemplate: string, status?: number): DocumentExample[] {
    const op = getOperation(method, pathOrTemplate);
    const raw = rawOperation(op);
    const opSegments = ["paths", op.path, op.method.toLowerCase()];
    const out: DocumentExample[] = [];
    if (status === undefined && isObject(raw.requestBody) && isObject(raw.requestBody.content)) {
      out.push(
        ...examplesOfMedia(
          op,
          "request",
          undefined,
          raw.requestBody.content["application/json"],
          [...opSegments, "requestBody", "content", "application/json"],
          false,
        ),
      );
    }
    if (isObject(raw.responses)) {
      for (const [statusKey, entry] of Object.entries(raw.responses)) {
        const code = Number(statusKey);
        if (status !== undefined && code !== status) continue;
        let response: unknown = entry;
        let segments = [...opSegments, "responses", statusKey];
        let fromComponent = false;
        if (isObject(entry) && typeof entry.$ref === "string") {
          segments = pointerSegments(entry.$ref);
          response = getAt(document, segments, entry.$ref);
          fromComponent = true;
        }
        if (!isObject(response) || !isObject(response.content)) continue;
        out.push(
          ...examplesOfMedia(
            op,
            "response",
            Number.isNaN(code) ? undefined : code,
            response.content["application/json"],
            [...segments, "content", "application/json"],
            fromComponent,
          ),
        );
      }
    }
    return out;
  }

  return {
    file,
    document,
    operations: () => operationList.map((op) => ({ ...op, tags: [...op.tags], statuses: [...op.statuses] })),
    findOperation,
    getOperation,
    matchPath,
    validateResponse,
    validateRequestBody,
    validateErrorBody,
    examplesFor,
    lineOf: (pointer: string) => lineOfSegments(pointerSegments(pointer)),
    lineText: (line: number) => sourceLines[line - 1] ?? "",
  };
}

let defaultToolkit: OpenApiToolkit | undefined;

/** The toolkit for {@link OPENAPI_DOCUMENT_PATH}, loaded once per test worker. */
export function openApi(): OpenApiToolkit {
  defaultToolkit ??= loadOpenApi();
  return defaultToolkit;
}

/** Every operation of the document, in document order. */
export function operations(): OperationInfo[] {
  return openApi().operations();
}

/** The operation for a method and a template or concrete path (aliases honoured), or undefined. */
export function findOperation(method: string, pathOrTemplate: string): OperationInfo | undefined {
  return openApi().findOperation(method, pathOrTemplate);
}

/**
 * Maps a concrete request path (`/users/6f1c...`, `/api/v1/integrations/x/users?page%5Bnumber%5D=2`,
 * or a full URL) to its template. Literal segments win over parameters.
 */
export function matchPath(concretePath: string, method?: string): PathMatch | undefined {
  return openApi().matchPath(concretePath, method);
}

/** Validates a response body against the schema the document gives for that status. */
export function validateResponse(
  method: string,
  pathOrTemplate: string,
  status: number,
  body: unknown,
  options?: ValidateOptions,
): ValidationOutcome {
  return openApi().validateResponse(method, pathOrTemplate, status, body, options);
}

/** Validates a request body against the operation's `requestBody` schema. */
export function validateRequestBody(method: string, pathOrTemplate: string, body: unknown, options?: ValidateOptions): ValidationOutcome {
  return openApi().validateRequestBody(method, pathOrTemplate, body, options);
}

/** Validates an error body against `components.schemas.error`, whatever the status. */
export function validateErrorBody(body: unknown, options?: ValidateOptions): ValidationOutcome {
  return openApi().validateErrorBody(body, options);
}

/**
 * Every example the document gives for an operation: request-body examples (only when no
 * status is asked for) and response examples (all statuses, or the one asked for), whether
 * written as `example`, `examples.<name>.value`, inside the schema, or in a `$ref`'d
 * `components.responses` entry.
 */
export function examplesFor(method: string, pathOrTemplate: string, status?: number): DocumentExample[] {
  return openApi().examplesFor(method, pathOrTemplate, status);
}
