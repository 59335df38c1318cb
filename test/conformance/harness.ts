/**
 * Shared pieces of the conformance suites (not a test file):
 * - {@link exchange}: one request with plain `fetch` (never the package's client, so the emulator
 *   and the client are checked independently), answer parsed;
 * - {@link validateAnswer}: validates an answer against the schema the public document gives for
 *   that operation and status, or against `components.schemas.error` for an error status the
 *   operation does not list; it says which schema it used so a table can pin it;
 * - {@link StubServer}: a tiny `node:http` server on 127.0.0.1 that answers every request with one
 *   canned reply (a document example), so the client can be fed the document's own payloads
 *   without the emulator;
 * - {@link queryParametersOf}: the query parameters the document declares for an operation.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { WorkspaceAccessClient } from "../../src/client";
import type { Emulator, SeedUser } from "../../src/emulator";
import { defaultSeed } from "../../src/emulator";
import type { EmulatorSeed } from "../../src/emulator/types";
import { VirtualClock } from "../support/virtual-clock";
import { findOperation, openApi, type ValidationOutcome, validateErrorBody, validateResponse } from "./openapi";

/** One HTTP exchange, as seen on the wire. */
export interface Exchange {
  method: string;
  /** The request path as sent (`/api/v1/...`, query included). */
  path: string;
  status: number;
  headers: Headers;
  /** Parsed JSON; undefined for an empty body (and for a body that is not JSON: see `text`). */
  body: unknown;
  text: string;
}

/** Options of {@link exchange}. */
export interface ExchangeOptions {
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as-is (with a JSON content type). */
  raw?: string;
  /** The API key; `null` sends none. Default: the emulator's key. */
  key?: string | null;
}

/**
 * Sends one request to the emulator with plain `fetch`. `path` is relative to the base URL
 * (`users/<id>?mfaStatus=true`), or absolute (`/api/v1/users?...`, e.g. a `links.next`).
 */
export async function exchange(emu: Emulator, method: string, path: string, options: ExchangeOptions = {}): Promise<Exchange> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? emu.apiKey : options.key;
  if (key !== null) headers["X-API-Key"] = key;
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  const url = new URL(path, emu.url);
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { method, path: url.pathname + url.search, status: res.status, headers: res.headers, body, text };
}

/** The outcome of {@link validateAnswer}: which schema was used, and the validation. */
export interface AnswerCheck extends ValidationOutcome {
  /** `"<operationId> <status>"`, or `"error schema"` for `components.schemas.error`. */
  schema: string;
}

/**
 * Validates an answer: against the operation's own response schema when the document lists the
 * status for it, else (error statuses only) against `components.schemas.error`. A success status
 * the document does not list, or an operation it does not have, throws: the caller must say which
 * schema stands in (see {@link validateBorrowed}).
 */
export function validateAnswer(method: string, path: string, status: number, body: unknown): AnswerCheck {
  const op = findOperation(method, path);
  if (op?.statuses.includes(String(status))) {
    return { ...validateResponse(method, path, status, body), schema: `${op.operationId} ${status}` };
  }
  if (status >= 400) return { ...validateErrorBody(body), schema: "error schema" };
  throw new Error(`${method} ${path} ${status}: the document has no schema for this answer; use validateBorrowed()`);
}

/**
 * Validates the answer of an operation the document lacks (the contract's *assumed* user writes)
 * against the response schema of a documented operation with the same record shape, e.g. a
 * created user against `getUserById` 200. The schema name says it was borrowed.
 */
export function validateBorrowed(borrowFrom: { method: string; path: string; status: number }, body: unknown): AnswerCheck {
  const op = findOperation(borrowFrom.method, borrowFrom.path);
  if (op === undefined) throw new Error(`no operation ${borrowFrom.method} ${borrowFrom.path} to borrow a schema from`);
  return {
    ...validateResponse(borrowFrom.method, borrowFrom.path, borrowFrom.status, body),
    schema: `${op.operationId} ${borrowFrom.status} (borrowed)`,
  };
}

/** The names of the query parameters the document declares for an operation. */
export function queryParametersOf(method: string, path: string): string[] {
  const op = findOperation(method, path);
  if (op === undefined) throw new Error(`${method} ${path} is not an operation of the document`);
  const paths = openApi().document.paths as Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
  const raw = paths[op.path]?.[op.method.toLowerCase()];
  return (raw?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
}

/** Users added to the default seed so that the users list has several pages. */
export const EXTRA_USERS: SeedUser[] = Array.from({ length: 7 }, (_, i) => ({
  id: `7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c${String(i + 10)}`,
  email: `member-${i + 1}@example.com`,
  firstName: `Member${i + 1}`,
  lastName: "Example",
  role: i % 2 === 0 ? "workspace_login_only" : "workspace_guest_admin",
  isGuest: i === 6,
  status: i === 5 ? "disabled" : "live",
  mfaEnabled: i % 3 === 0,
}));

/** The emulator's default seed (4 users, YouTube and Slack) plus {@link EXTRA_USERS}: 11 users. */
export function conformanceSeed(): EmulatorSeed {
  const seed = defaultSeed();
  return { ...seed, users: [...(seed.users ?? []), ...EXTRA_USERS] };
}

/** One request as the stub received it. */
export interface StubRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  body: unknown;
}

/** What the stub answers. */
export interface StubReply {
  status: number;
  /** A string is sent as-is, anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * A tiny HTTP server on 127.0.0.1 that answers every request with {@link StubServer.reply}
 * (a canned document example; {@link StubServer.queue} first), whatever the path: the test then checks, through
 * {@link StubServer.requests}, that the client called the documented operation.
 */
export class StubServer {
  readonly requests: StubRequest[] = [];
  /** Answered first, one each, in order; then {@link reply} for every request. */
  readonly queue: StubReply[] = [];
  reply: StubReply = { status: 500, body: { errors: [{ code: "stub", title: "stub", detail: "no reply set", status: 500, meta: null }] } };
  readonly #server: Server;
  #port = 0;

  constructor() {
    this.#server = createServer((req, res) => {
      void this.#answer(req, res);
    });
  }

  /** Starts a stub on an ephemeral port of 127.0.0.1. */
  static async start(): Promise<StubServer> {
    const stub = new StubServer();
    await new Promise<void>((resolve, reject) => {
      stub.#server.once("error", reject);
      stub.#server.listen(0, "127.0.0.1", () => resolve());
    });
    stub.#port = (stub.#server.address() as AddressInfo).port;
    return stub;
  }

  /** The base URL, ending in `/api/v1/`. */
  get url(): string {
    return `http://127.0.0.1:${this.#port}/api/v1/`;
  }

  /** Stops the server and drops keep-alive connections. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    this.requests.push({ method: req.method ?? "GET", path: req.url ?? "/", body });
    const { status, body: replyBody, headers } = this.queue.shift() ?? this.reply;
    const payload = replyBody === undefined ? undefined : typeof replyBody === "string" ? replyBody : JSON.stringify(replyBody);
    res.writeHead(status, { ...(payload === undefined ? {} : { "Content-Type": "application/json" }), ...headers });
    res.end(payload);
  }
}

/** A client of a stub: no retries, a virtual clock (no real waits), fixed jitter. */
export function stubClient(stub: StubServer): WorkspaceAccessClient {
  return new WorkspaceAccessClient({
    baseUrl: stub.url,
    apiKey: `wa_stub_${"s".repeat(24)}`,
    clock: new VirtualClock(),
    random: () => 0.5,
    maxRetries: 0,
    maxRateLimitRetries: 0,
    jobPollIntervalMs: 1,
  });
}

/** Runs `test` with a new stub and its {@link stubClient}, both closed after. */
export async function withStub<T>(test: (stub: StubServer, client: WorkspaceAccessClient) => Promise<T>): Promise<T> {
  const stub = await StubServer.start();
  const client = stubClient(stub);
  try {
    return await test(stub, client);
  } finally {
    await client.close();
    await stub.close();
  }
}

/** A one-line summary of a validation, for assertion messages. */
export function describeCheck(check: AnswerCheck): string {
  return `${check.schema}: ${check.valid ? "valid" : check.errors.join("; ")}`;
}
