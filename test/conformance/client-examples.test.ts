/**
 * The client parses every example the public OpenAPI document gives for the operations it
 * implements. A tiny `node:http` stub on 127.0.0.1 answers with the example (the emulator is not
 * involved), the real client calls the operation, and the test checks that:
 * - the client called the documented operation (path matched with the toolkit's matchPath);
 * - it raised no InvalidResponseError, and the key fields of the example come through;
 * - each error example maps to the right error class, with the example's code, title and detail.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import {
  type ApiError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  UnauthorizedError,
  type WorkspaceAccessClient,
} from "../../src/client";
import { StubServer, stubClient } from "./harness";
import {
  CONTRACT_OPERATIONS,
  type DocumentExample,
  describeWithDocument,
  examplesFor,
  matchPath,
  validateErrorBody,
  validateResponse,
} from "./openapi";

// Ids for the requests only: the stub answers with the example whatever the id.
const INTEGRATION = "d538422e-b135-4ee0-8393-54eecbcb4a07";
const USER = "a4393f7e-1234-abcd-b23b-fca770912345";
const JOB = "a2c3b0cc-abcd-a09d-abcd-e047ffe91234";

type Json = Record<string, unknown>;
const asRecord = (v: unknown): Json => v as Json;
const dataOf = (example: unknown) => asRecord(example).data;
const list = (example: unknown) => dataOf(example) as Json[];
const attrs = (record: Json) => record.attributes as Json;
const entitlementIds = (record: Json) =>
  (attrs(record).entitlements as unknown[]).map((e) => (typeof e === "string" ? e : String(asRecord(e).id)));

/**
 * The records of a list example: the stub answers its page, then (when its `links.next` is followed: the client asks the
 * next page before serving this one's records) an empty last page. An error answer is the stub's own reply, as for the rest.
 */
async function listOf<T>(items: () => AsyncGenerator<T>, example: unknown): Promise<T[]> {
  const next = asRecord(asRecord(example ?? {}).links ?? {}).next;
  if (stub.reply.status === 200 && typeof next === "string") {
    stub.queue.push({ status: 200, body: example }, { status: 200, body: { data: [], links: { next: null } } });
  }
  const out: T[] = [];
  for await (const item of items()) out.push(item);
  return out;
}

interface ClientOperation {
  operationId: string;
  /** Calls the client; `example` is the payload the stub answers with. */
  call(client: WorkspaceAccessClient, example: unknown): Promise<unknown>;
  /** What the client must return for that payload (toMatchObject). */
  expected(example: unknown): unknown;
}

const userOf = (u: Json) => {
  const a = attrs(u);
  return {
    id: u.id,
    email: a.email,
    firstName: a.firstName,
    lastName: a.lastName,
    role: a.role,
    isGuest: a.isGuest,
    status: a.status,
    mfaStatus: a.mfaStatus ?? null,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
};
const integrationUserOf = (u: Json) => ({
  id: u.id,
  email: attrs(u).email,
  role: attrs(u).role,
  isGuest: attrs(u).isGuest,
  status: attrs(u).status,
  entitlements: [...new Set(entitlementIds(u))].sort(),
  dynamicFields: asRecord(u.meta).dynamicFields,
});
const jobHandleOf = (example: unknown) => ({ id: asRecord(dataOf(example)).id, status: attrs(asRecord(dataOf(example))).status });

/** Every operation the client implements, by the document's operationId. */
const CLIENT_OPERATIONS: ClientOperation[] = [
  {
    operationId: "getUserList",
    call: (c, ex) => listOf(() => c.users.list(), ex),
    expected: (ex) => list(ex).map(userOf),
  },
  { operationId: "getUserById", call: (c) => c.users.get(USER, { mfaStatus: true }), expected: (ex) => userOf(asRecord(dataOf(ex))) },
  {
    operationId: "getIntegrationById",
    call: (c) => c.integrations.get(INTEGRATION),
    expected: (ex) => {
      const r = asRecord(dataOf(ex));
      return { id: r.id, application: attrs(r).application, label: attrs(r).label, workspace: attrs(r).workspace };
    },
  },
  {
    operationId: "getIntegrationEntitlements",
    call: (c) => c.integrations.listEntitlements(INTEGRATION),
    expected: (ex) => list(ex).map((e) => ({ id: e.id, ...attrs(e) })),
  },
  {
    operationId: "getIntegrationUsers",
    call: (c, ex) => listOf(() => c.integrations.listUsers(INTEGRATION), ex),
    expected: (ex) => list(ex).map(integrationUserOf),
  },
  {
    operationId: "getIntegrationUserById",
    call: (c) => c.integrations.getUser(INTEGRATION, USER),
    expected: (ex) => integrationUserOf(asRecord(dataOf(ex))),
  },
  {
    operationId: "postInviteIntegrationUser",
    call: (c) => c.integrations.invite(INTEGRATION, { userIds: [USER], entitlements: ["VIEWER_LIMITED"], role: "account_owner" }),
    expected: jobHandleOf,
  },
  {
    operationId: "patchUpdateUserEntitlement",
    call: (c) => c.integrations.setEntitlements(INTEGRATION, USER, ["VIEWER"]),
    expected: jobHandleOf,
  },
  {
    operationId: "patchAddRemoveEntitlementUser.",
    call: (c) => c.integrations.changeEntitlements(INTEGRATION, USER, { add: ["VIEWER"], remove: ["EDITOR"] }),
    expected: jobHandleOf,
  },
  { operationId: "deleteIntegrationUser", call: (c) => c.integrations.removeUser(INTEGRATION, USER), expected: jobHandleOf },
  {
    operationId: "getJobById",
    call: (c) => c.jobs.get(JOB),
    expected: (ex) => {
      const r = asRecord(dataOf(ex));
      const a = attrs(r);
      return {
        id: r.id,
        status: a.status,
        workflowType: a.workflowType,
        trigger: a.trigger,
        canRetry: a.canRetry,
        account: a.account,
        createdBy: a.createdBy,
        createdAt: a.createdAt,
        hasMoreDetails: a.hasMoreDetails,
      };
    },
  },
];

const operationOf = (operationId: string): ClientOperation => {
  const op = CLIENT_OPERATIONS.find((o) => o.operationId === operationId);
  if (!op) throw new Error(`test bug: no client operation ${operationId}`);
  return op;
};
const plannedOf = (operationId: string) => CONTRACT_OPERATIONS.find((p) => p.operationId === operationId)!;

/** [label, operationId, example] for every document example of the given kind. */
function examples(filter: (e: DocumentExample) => boolean): [string, string, DocumentExample][] {
  return CONTRACT_OPERATIONS.flatMap((planned) =>
    examplesFor(planned.method, planned.path)
      .filter(filter)
      .map(
        (e) =>
          [`${planned.operationId} ${e.status} ${e.name} (line ${e.line})`, planned.operationId, e] as [string, string, DocumentExample],
      ),
  );
}

let stub: StubServer;
let client: WorkspaceAccessClient;
beforeAll(async () => {
  stub = await StubServer.start();
  client = stubClient(stub);
});
afterAll(async () => {
  await client.close();
  await stub.close();
});
beforeEach(() => {
  stub.requests.splice(0);
  stub.queue.splice(0);
});

/** Every request the stub got since the test began named `operationId`. */
function expectCalled(operationId: string): void {
  expect(stub.requests.length).toBeGreaterThan(0);
  for (const r of stub.requests) expect(matchPath(r.path, r.method)?.operation?.operationId, `${r.method} ${r.path}`).toBe(operationId);
}

describeWithDocument("the client parses every 200 example of the document", () => {
  it("covers every operation the contract implements, each with at least one example", () => {
    expect(CLIENT_OPERATIONS.map((o) => o.operationId).sort()).toEqual(CONTRACT_OPERATIONS.map((p) => p.operationId).sort());
    for (const planned of CONTRACT_OPERATIONS)
      expect(examplesFor(planned.method, planned.path, 200).length, planned.operationId).toBeGreaterThan(0);
  });

  it.each(examples((e) => e.kind === "response" && e.status === 200))("%s", async (_label, operationId, example) => {
    const op = operationOf(operationId);
    stub.reply = { status: 200, body: example.value };
    const result = await op.call(client, example.value);
    expectCalled(operationId);
    expect(result).toMatchObject(op.expected(example.value) as object);
  });
});

/** The document's integration user examples, with entitlements as plain id strings (the contract's leniency). */
const stringEntitlements = (example: unknown): unknown => {
  const copy = structuredClone(example) as { data: Json | Json[] };
  const records = Array.isArray(copy.data) ? copy.data : [copy.data];
  for (const r of records) attrs(r).entitlements = entitlementIds(r);
  return copy;
};

describeWithDocument("integration user entitlements: records (the document) or id strings (the contract)", () => {
  it.each([
    ["getIntegrationUsers", "GET", "/integrations/{id}/users"],
    ["getIntegrationUserById", "GET", "/integrations/{id}/users/{userId}"],
  ])("%s with entitlements as strings: valid under the contract, and parsed to the same ids", async (operationId, method, template) => {
    const original = examplesFor(method, template, 200)[0]!.value;
    const variant = stringEntitlements(original);
    expect(validateResponse(method, template, 200, variant).errors).toEqual([]);
    const op = operationOf(operationId);
    stub.reply = { status: 200, body: original };
    const fromRecords = await op.call(client, original);
    stub.reply = { status: 200, body: variant };
    const fromStrings = await op.call(client, variant);
    expect(fromStrings).toEqual(fromRecords);
    expect(fromStrings).toMatchObject(op.expected(original) as object);
  });
});

describeWithDocument("the client follows the document's own links.next", () => {
  it("requests the users list example's next link verbatim (relative, percent-encoded) and stops at next: null", async () => {
    const first = examplesFor("GET", "/users", 200)[0]!.value as {
      links: { next: string; self: string; previous: string | null };
      data: Json[];
    };
    const second = structuredClone(first);
    second.data = [structuredClone(first.data[0]!)];
    (second.data[0]!.attributes as Json).email = "page-two@example.com";
    second.links = { self: first.links.next, previous: first.links.self, next: null as unknown as string };
    expect(validateResponse("GET", "/users", 200, second, { allow: ["user-example-id-not-uuid"] }).errors).toEqual([]);
    stub.queue.push({ status: 200, body: first }, { status: 200, body: second });
    const users = [];
    for await (const user of client.users.list({ pageSize: 3 })) users.push(user.email);
    expect(users).toEqual(["joe@doe.com", "kevin@example.com", "rose@poe.com", "page-two@example.com"]);
    expect(stub.requests.map((r) => r.path)).toEqual(["/api/v1/users?page%5Bsize%5D=3", first.links.next]);
    expectCalled("getUserList");
  });
});

const ERROR_CLASSES: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
};

async function expectApiError(operationId: string, status: number, body: unknown): Promise<ApiError> {
  const op = operationOf(operationId);
  stub.reply = { status, body };
  const error = await op.call(client, body).then(
    () => {
      throw new Error(`${operationId}: expected a ${status} error`);
    },
    (e: unknown) => e,
  );
  expect(InvalidResponseError.isInstance(error), String(error)).toBe(false);
  expect(error).toBeInstanceOf(ERROR_CLASSES[status]!);
  expect(error).toMatchObject({ status, method: plannedOf(operationId).method });
  expectCalled(operationId);
  return error as ApiError;
}

const firstError = (example: unknown) => (asRecord(example).errors as Json[])[0]!;

describeWithDocument("the client maps every error example of the document to its error class, with the detail", () => {
  it.each(examples((e) => e.kind === "response" && (e.status ?? 0) >= 400))("%s", async (_label, operationId, example) => {
    const error = await expectApiError(operationId, example.status!, example.value);
    const entry = firstError(example.value);
    expect(error).toMatchObject({ code: entry.code, title: entry.title, detail: entry.detail });
    expect(error.message).toContain(String(entry.detail));
  });

  // The document gives 400, 403 and 409 examples only in components.responses (used by the teams
  // operations); the contract says any call may answer them. Each is served for every client operation.
  const componentExamples = [400, 403, 409].map((status) => {
    const found = examplesFor("PATCH", "/teams/{id}", status);
    if (found.length !== 1) throw new Error(`expected one ${status} example in components.responses, found ${found.length}`);
    return found[0]!;
  });
  const rows = CLIENT_OPERATIONS.flatMap((op) =>
    componentExamples.map((e) => [`${op.operationId} answered ${e.status} (${e.name}, line ${e.line})`, op.operationId, e] as const),
  );
  it.each(rows)("%s", async (_label, operationId, example) => {
    expect(validateErrorBody(example.value).errors).toEqual([]);
    const error = await expectApiError(operationId, example.status!, example.value);
    expect(error.detail).toBe(firstError(example.value).detail);
  });
});
