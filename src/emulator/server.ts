import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, errorBody } from "./errors";
import type { EmulatorClock } from "./clock";
import type { FaultQueue } from "./faults";
import type { KeyRing } from "./keys";
import type { RateLimiter } from "./rate-limit";
import { retryAfterHeader } from "./rate-limit";
import type { Router } from "./router";
import type { Reply, World } from "./routes/context";
import { errorStatusAsString, lowerCaseUuids, lowerCaseUuidsIn, nullOptionalFields, reshapeUserRecords, upperCaseUuids } from "./quirks";
import { API_PREFIX, type Incoming, MAX_BODY_BYTES, receive } from "./incoming";
import { missingScopes } from "./scopes";
import { refuseUnknownQuery, requireJsonContentType } from "./validation";
import { idKey } from "./store";
import type { AnsweredRequest, Fault, MissingScopeStatus, RecordedRequest } from "./types";

/** The methods whose routes read a body. */
const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);

/** The request log and counters the emulator exposes. */
export class RequestLog {
  /** Every request, in arrival order. */
  entries: RecordedRequest[] = [];
  /** Requests answered 429 by the rate limit. */
  rateLimited = 0;
  /** Requests received. */
  requests = 0;
}

/** Settings that tests may change while the server runs. */
interface LiveSettings {
  missingScopeStatus: MissingScopeStatus;
}

/** What the server works with. */
export interface ServerParts {
  world: World;
  router: Router;
  keys: KeyRing;
  faults: FaultQueue;
  limiter: RateLimiter;
  log: RequestLog;
  settings: LiveSettings;
  clock: EmulatorClock;
  /** The service's own clock (`clockSkew`): what `Date` and a dated `Retry-After` say. */
  service: EmulatorClock;
  onAnswered?: ((answer: AnsweredRequest) => void) | undefined;
}

/** The emulator's HTTP server. */
export class EmulatorServer {
  readonly #server: Server;
  /** Pending delays: each one's cancel and abort. */
  readonly #delays = new Set<{ cancel: () => void; abort: () => void }>();
  #closed = false;

  readonly #parts: ServerParts;

  constructor(parts: ServerParts) {
    this.#parts = parts;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => this.#crash(res, error));
    });
  }

  /** Starts listening; resolves with the bound port. */
  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => {
        this.#server.off("error", reject);
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
  }

  /** Stops accepting, drops every connection (keep-alive ones included) and pending delays. */
  close(): Promise<void> {
    this.#closed = true;
    for (const delay of this.#delays) {
      delay.cancel();
      delay.abort();
    }
    this.#delays.clear();
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const incoming = await receive(req, this.#parts);
    const { record } = incoming;
    // Ids compare case-insensitively (the contract): faults, like the routes, match them in lower case (the body lowered once).
    const lowered = lowerIds(incoming);
    const fault = this.#parts.faults.take(incoming.method, lowerCaseUuids(record.path), lowered.body);
    if (fault?.delayMs !== undefined && fault.delayMs > 0) {
      if (!(await this.#delay(fault.delayMs))) return;
    }
    if (fault?.reset === true && fault.afterHandling !== true) {
      this.#reset(req, record);
      return;
    }
    if (fault?.body !== undefined) {
      // With `afterHandling`, the work is done first: a write that landed, its answer unreadable.
      if (fault.afterHandling === true) this.#answer(this.#process(lowered), incoming);
      this.#send(res, record, { status: fault.status ?? 200, headers: fault.headers }, fault.body);
      return;
    }
    if (fault?.status !== undefined) {
      const reply: Reply = { status: fault.status, body: errorBody(fault.status, "Injected by the emulator.") };
      this.#send(res, record, withHeaders(reply, fault));
      return;
    }
    const reply = this.#answer(this.#process(lowered), incoming);
    if (fault?.reset === true) {
      // The ambiguous failure: the work is done, the answer never arrives.
      this.#reset(req, record);
      return;
    }
    this.#send(res, record, fault === undefined ? reply : withHeaders(reply, fault));
  }

  /** What the quirks do to an answer, and the page shifts a write arms again. */
  #answer(reply: Reply, incoming: Incoming): Reply {
    const { quirks, walks } = this.#parts.world;
    if (incoming.method !== "GET" && reply.status >= 200 && reply.status < 300) walks.rearm();
    if (reply.body === undefined || reply.status === 204) return reply;
    let body: unknown = reply.body;
    if (quirks.nullFields === true || quirks.absentFields === true) body = nullOptionalFields(body, quirks.absentFields === true);
    if (
      quirks.lowerCaseEmails === true ||
      (quirks.memberEntitlements ?? "records") !== "records" ||
      (quirks.memberRole ?? "short") !== "short"
    ) {
      body = reshapeUserRecords(body, quirks);
    }
    if (quirks.errorStatus === "string" && reply.status >= 400) body = errorStatusAsString(body);
    if (quirks.upperCaseIds === true) body = JSON.parse(upperCaseUuids(JSON.stringify(body)));
    return body === reply.body ? reply : { ...reply, body };
  }

  /** Auth, rate limit, routing, scopes and the handler; always answers something. */
  #process(incoming: Incoming): Reply {
    const { method, apiPath, apiKey } = incoming;
    const { keys, limiter, log } = this.#parts;
    if (apiPath === undefined) return fail(404, `No route for ${method} ${incoming.record.path}: the API lives under ${API_PREFIX}/.`);
    if (apiKey === undefined) return fail(401, "The X-API-Key header is missing.");
    const scopes = keys.scopes(apiKey);
    if (scopes === undefined) return fail(401, "The API key is not valid or has expired.");

    const admission = limiter.admit(apiKey);
    if (!admission.ok) {
      log.rateLimited += 1;
      const retryAfter = retryAfterHeader(limiter.current?.retryAfter, admission.retryAfterMs, this.#parts.service.now());
      const headers: Record<string, string> = retryAfter === undefined ? {} : { "Retry-After": retryAfter };
      return { ...fail(429, "Too many requests for this API key; retry later."), headers };
    }
    const reply = this.#dispatch(incoming, apiPath, scopes);
    if (!limiter.current?.headers) return reply;
    // IETF draft RateLimit headers, when asked for: what a client may pace from.
    const limitHeaders = {
      "RateLimit-Limit": String(limiter.current.requests),
      "RateLimit-Remaining": String(admission.remaining),
      "RateLimit-Reset": String(Math.max(1, Math.ceil(admission.resetMs / 1000))),
    };
    return { ...reply, headers: { ...reply.headers, ...limitHeaders } };
  }

  /** Routing, scopes and the handler, for a request already admitted. */
  #dispatch(incoming: Incoming, apiPath: string, scopes: ReadonlySet<string>): Reply {
    const { method } = incoming;
    const { router, settings, world } = this.#parts;
    const match = router.match(method, apiPath);
    if (
      match.kind === "none" ||
      (world.quirks.memberListPath === "singular" && match.kind === "route" && match.route.pattern === "/integrations/:id/users")
    ) {
      return fail(404, `No route for ${method} ${incoming.record.path}.`);
    }
    if (match.kind === "method") {
      return { ...fail(405, `${method} is not allowed on ${incoming.record.path}.`), headers: { Allow: match.allowed.join(", ") } };
    }
    const missing = missingScopes(scopes, match.route.scopes(world));
    if (missing.length > 0) {
      const status = settings.missingScopeStatus;
      // A service that does not disclose answers as for what is not there: nothing in the answer names a scope.
      if (status === 404) return fail(404, `Not found: ${method} ${incoming.record.path}.`);
      const detail = `The API key lacks the scope${missing.length > 1 ? "s" : ""} ${missing.join(", ")} required by ${method} ${match.route.pattern}.`;
      return fail(status, detail, { missingScopes: missing });
    }
    if (incoming.tooLarge) return fail(413, `The body exceeds ${MAX_BODY_BYTES} bytes.`);

    try {
      // A write's body is JSON, said so by its Content-Type (the contract); a write without a body fails in its route.
      if (incoming.hasBody && BODY_METHODS.has(method)) requireJsonContentType(incoming.contentType);
      if (world.quirks.unknownQuery === "refuse") refuseUnknownQuery(incoming.query, match.route.query);
      return match.route.handle({
        world,
        // Every path parameter is an id, and the store keeps ids in lower case: any id matches in any case, UUID-shaped or not.
        params: Object.fromEntries(Object.entries(match.params).map(([name, value]) => [name, idKey(value)])),
        query: incoming.query,
        body: "body" in incoming ? incoming.body : incoming.record.body,
        invalidJson: incoming.invalidJson,
      });
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: error.body, headers: error.headers };
      // An emulator bug, not a simulated failure: say so in the answer rather than hang the client.
      return fail(500, `Emulator error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #send(res: ServerResponse, record: RecordedRequest, reply: Reply, raw?: string): void {
    if (res.destroyed) return;
    // Node's own `Date` would read the machine's clock: the service's is the emulator's (virtual in tests), skewed or not.
    const headers: Record<string, string> = { Date: this.#date(), "X-Request-Id": record.requestId };
    let payload: string | undefined = raw;
    if (payload === undefined && reply.body !== undefined && reply.status !== 204) payload = JSON.stringify(reply.body);
    if (payload !== undefined) headers["Content-Type"] = "application/json";
    for (const [name, value] of Object.entries(reply.headers ?? {})) {
      if (value !== null) headers[name] = value;
      else for (const sent of Object.keys(headers)) if (sent.toLowerCase() === name.toLowerCase()) delete headers[sent];
    }
    // Node adds a `Date` of the machine's clock to an answer without one: a `Date` left out is not sent at all.
    res.sendDate = "Date" in headers;
    record.status = reply.status;
    res.writeHead(reply.status, headers);
    res.end(payload);
    this.#answered(record);
  }

  /** An answer's `Date` (RFC 9110's IMF-fixdate, to the second) on the service's clock. */
  #date(): string {
    return new Date(this.#parts.service.now()).toUTCString();
  }

  #answered(record: RecordedRequest): void {
    this.#parts.onAnswered?.({
      method: record.method,
      rawPath: record.rawPath,
      status: record.status,
      ms: this.#parts.clock.now() - record.at,
    });
  }

  #reset(req: IncomingMessage, record: RecordedRequest): void {
    record.status = 0;
    // RST rather than FIN: the client sees ECONNRESET, as with a dropped connection.
    req.socket.resetAndDestroy();
    this.#answered(record);
  }

  /** Waits `ms`; resolves false when the server closed first. */
  #delay(ms: number): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const delay = {
        cancel: this.#parts.clock.setTimer(() => {
          this.#delays.delete(delay);
          resolve(!this.#closed);
        }, ms),
        abort: () => resolve(false),
      };
      this.#delays.add(delay);
    });
  }

  #crash(res: ServerResponse, error: unknown): void {
    // Reached only when reading the request itself failed (e.g. the client went away mid-body).
    const detail = `Emulator error: ${error instanceof Error ? error.message : String(error)}`;
    if (!res.headersSent && !res.destroyed) {
      res.writeHead(500, { Date: this.#date(), "Content-Type": "application/json" });
      res.end(JSON.stringify(errorBody(500, detail)));
    } else {
      res.destroy();
    }
  }
}

function fail(status: number, detail: string, meta: Record<string, unknown> | null = null): Reply {
  return { status, body: errorBody(status, detail, meta) };
}

function withHeaders(reply: Reply, fault: Fault): Reply {
  return { ...reply, headers: { ...reply.headers, ...fault.headers } };
}

/** The request as a service matching ids case-insensitively reads it: every UUID in lower case. */
function lowerIds(incoming: Incoming): Incoming {
  return {
    ...incoming,
    apiPath: incoming.apiPath === undefined ? undefined : lowerCaseUuids(incoming.apiPath),
    body: lowerCaseUuidsIn(incoming.record.body),
  };
}
