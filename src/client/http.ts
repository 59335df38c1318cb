import type { Pool } from "undici";
import type { z } from "zod";
import type { Clock } from "./clock";
import {
  ApiError,
  type ApiErrorBody,
  type ApiErrorContext,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnknownFailureError,
  type WorkspaceAccessError,
} from "./errors";
import { Pacer } from "./pacer";
import { makeRedactor } from "./redact";
import { backoffDelay, IDEMPOTENT_METHODS, isTransientStatus, parseRetryAfter } from "./retry-policy";
import { schemas } from "./schemas";
import { describeScopes, type Scope } from "./scopes";
import { DEFAULT_RATE_LIMIT_WAIT_SECONDS, type ResolvedSettings } from "./settings";

/**
 * undici, loaded when the first transport is built rather than with the package: a Pulumi program
 * that only declares resources sends no request itself (loading it takes about 40 ms).
 */
const undici = () => require("undici") as typeof import("undici");

/** The HTTP methods of the contract. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One exchange of the contract. */
export interface RequestSpec {
  method: Method;
  /** Relative to the base URL (`users/<id>`), or an absolute path from a `links` entry. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Scopes the operation needs; named in 401/403 messages. */
  scopes: readonly Scope[];
  /**
   * An empty body (e.g. 204) is accepted and gives `data: undefined`. Always so for a write
   * (POST, PUT, PATCH, DELETE): every 2xx is success, with or without a body.
   */
  allowEmpty?: boolean;
}

/**
 * A parsed answer. `data` is `undefined` when the answer had no body and the request allowed
 * that (a write, or `allowEmpty`): callers of writes check for it.
 */
export interface Response<T> {
  status: number;
  data: T;
}

/** Everything the transport needs besides the settings. */
export interface TransportDeps {
  clock: Clock;
  random: () => number;
  logger: ((message: string) => void) | undefined;
  userAgent: string;
  /** Prefix of setting names in messages, e.g. `workspace-access:`. */
  settingPrefix: string;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Sends the contract's requests: one keep-alive undici `Pool` per client, the retry policy,
 * shared pacing on 429s, zod parsing of every body, and errors that carry data but no secret.
 */
export class HttpTransport {
  readonly settings: ResolvedSettings;
  readonly deps: TransportDeps;
  readonly redact: (text: string) => string;
  readonly #pool: Pool;
  readonly #pacer: Pacer;
  /** Requests sent (attempts, not operations): what the benchmarks and request-count tests read. */
  requestCount = 0;

  /** 429 answers received so far. */
  get rateLimitedCount(): number {
    return this.#pacer.rateLimited;
  }

  constructor(settings: ResolvedSettings, deps: TransportDeps) {
    this.settings = settings;
    this.deps = deps;
    this.redact = makeRedactor(settings.apiKey);
    this.#pacer = new Pacer(deps.clock, settings.maxConcurrency);
    this.#pool = new (undici().Pool)(settings.baseUrl.origin, {
      connections: settings.maxConcurrency,
      keepAliveTimeout: 10_000,
      headersTimeout: settings.requestTimeoutSeconds * 1000,
      bodyTimeout: settings.requestTimeoutSeconds * 1000,
    });
  }

  /** Closes the pool's connections. */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** Builds a setting's name as the user sets it, e.g. `workspace-access:maxRetries`. */
  setting(name: string): string {
    return `${this.deps.settingPrefix}${name}`;
  }

  /**
   * Sends `spec`, retrying what the policy allows, and parses the answer with `schema`
   * (`null` for answers without a body, such as 204).
   */
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S | null): Promise<Response<z.infer<S>>> {
    const url = this.#url(spec);
    const path = url.pathname;
    const retryTransient = IDEMPOTENT_METHODS.has(spec.method);
    let transientRetries = 0;
    let rateLimitRetries = 0;
    for (;;) {
      const ticket = await this.#pacer.acquire();
      let raw: RawResponse;
      try {
        raw = await this.#send(spec, url);
      } catch (cause) {
        this.#pacer.release(ticket);
        // undici refused the request before sending it (e.g. a header it cannot encode): no retry helps.
        if (cause instanceof undici().errors.InvalidArgumentError) {
          throw new ConfigurationError(
            this.redact(`${spec.method} ${path} could not be sent: ${cause.message}. Check the API key and base URL for stray characters.`),
            "apiKey",
          );
        }
        const error = this.#transportError(cause, spec.method, path);
        if (retryTransient && transientRetries < this.settings.maxRetries) {
          await this.backoff(transientRetries++, error.message);
          continue;
        }
        throw this.#exhausted(error, transientRetries);
      }
      this.#pacer.release(ticket);
      this.#pacer.observe(raw.status, raw.headers, ticket);
      if (raw.status === 429) {
        // Holds every request of this client for the wait; throws when this one may not wait.
        const waitMs = this.#rateLimitWait(raw, spec.method, path, rateLimitRetries++);
        this.#log(`${spec.method} ${path}: 429, waiting ${Math.ceil(waitMs / 1000)} s`);
        continue;
      }
      if (raw.status >= 400) {
        const error = this.#apiError(raw, spec, path);
        if (retryTransient && error.retryable && transientRetries < this.settings.maxRetries) {
          await this.backoff(transientRetries++, `${spec.method} ${path}: ${raw.status}`);
          continue;
        }
        throw error.retryable ? this.#exhausted(error, transientRetries) : error;
      }
      // Every success status is success: a write answered 200 or 204 without a body has landed.
      const mayBeEmpty = spec.allowEmpty === true || spec.method !== "GET";
      const empty = schema === null || (mayBeEmpty && raw.text.trim() === "");
      const data = empty ? undefined : this.#parse(schema, raw, spec.method, path);
      return { status: raw.status, data: data as z.infer<S> };
    }
  }

  #url(spec: RequestSpec): URL {
    const base = this.settings.baseUrl;
    const url = new URL(spec.path, base);
    // A `links.next` from the service must not send the key to another host.
    if (url.origin !== base.origin) {
      throw new InvalidResponseError(
        `Refusing to follow a link to ${url.origin}: the API key is only sent to ${base.origin}`,
        { method: spec.method, path: url.pathname, status: 0, field: "links" },
      );
    }
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  async #send(spec: RequestSpec, url: URL): Promise<RawResponse> {
    this.requestCount++;
    const headers: Record<string, string> = {
      "x-api-key": this.settings.apiKey,
      accept: "application/json",
      "user-agent": this.deps.userAgent,
    };
    let body: string | undefined;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers["content-type"] = "application/json";
    }
    const res = await this.#pool.request({
      method: spec.method,
      path: url.pathname + url.search,
      headers,
      body,
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  }

  #parse<S extends z.ZodType>(schema: S, raw: RawResponse, method: string, path: string): z.infer<S> {
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      throw new InvalidResponseError(
        this.redact(
          `${method} ${path} answered ${raw.status} with a body that is not JSON (${JSON.stringify(raw.text.slice(0, 80))}).`,
        ),
        { method, path, status: raw.status, field: "" },
      );
    }
    const result = schema.safeParse(json);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const field = issue ? issue.path.map(String).join(".") : "";
    throw new InvalidResponseError(
      this.redact(
        `${method} ${path} answered ${raw.status} with a body that does not match the API contract: field "${field || "(root)"}": ${issue?.message ?? "invalid"}.`,
      ),
      { method, path, status: raw.status, field },
    );
  }

  #transportError(cause: unknown, method: string, path: string): WorkspaceAccessError {
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
    const detail = this.redact(cause instanceof Error ? cause.message : String(cause));
    // Keep a plain copy as the cause: undici errors can hold sockets and request options.
    const plain = new Error(code ? `${code}: ${detail}` : detail);
    const ambiguity =
      method === "POST" ? " A POST that fails this way may or may not have been carried out." : "";
    const { errors } = undici();
    if (
      cause instanceof errors.HeadersTimeoutError ||
      cause instanceof errors.BodyTimeoutError ||
      cause instanceof errors.ConnectTimeoutError
    ) {
      return new TimeoutError(
        `${method} ${path} got no answer within ${this.settings.requestTimeoutSeconds} s (${this.setting("requestTimeoutSeconds")}).${ambiguity}`,
        { kind: "timeout", retryable: true, method, path, cause: plain },
      );
    }
    return new ConnectionError(
      `${method} ${path} failed before an answer arrived (${code || detail}): check that ${this.settings.baseUrl.origin} is reachable.${ambiguity}`,
      { kind: "connection", retryable: true, method, path, cause: plain },
    );
  }

  #exhausted<E extends WorkspaceAccessError>(error: E, retries: number): E {
    if (retries > 0) error.message += ` Gave up after ${retries} retries (${this.setting("maxRetries")}).`;
    return error;
  }

  /** Sleeps the policy's back-off before retry `attempt + 1`, saying why in the log. */
  async backoff(attempt: number, reason: string): Promise<void> {
    const ms = backoffDelay(attempt, this.settings.retryBaseDelayMs, this.settings.retryMaxDelayMs, this.deps.random);
    this.#log(`${reason}; retry ${attempt + 1} of ${this.settings.maxRetries} in ${ms} ms`);
    await this.deps.clock.sleep(ms);
  }

  /**
   * The wait a 429 asks for. Throws a {@link RateLimitError} when this request may not wait: the
   * wait is over the cap, or its 429 retries are spent (every request of the client is still held
   * back for the wait then).
   */
  #rateLimitWait(raw: RawResponse, method: string, path: string, attempt: number): number {
    const header = raw.headers["retry-after"];
    const given = parseRetryAfter(Array.isArray(header) ? header[0] : header, this.deps.clock.now());
    const waitMs = given ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS * 1000;
    const context = { method, path, status: 429, body: this.#errorBody(raw.text) };
    const capMs = this.settings.maxRateLimitWaitSeconds * 1000;
    const why =
      given === undefined
        ? `without Retry-After, so the API's rule is to wait five minutes (${DEFAULT_RATE_LIMIT_WAIT_SECONDS} s)`
        : `with Retry-After: ${Math.ceil(given / 1000)} s`;
    if (waitMs > capMs) {
      throw new RateLimitError(
        `${method} ${path} answered 429 (rate limited) ${why}, longer than ${this.setting("maxRateLimitWaitSeconds")} (${this.settings.maxRateLimitWaitSeconds} s). Raise that setting to wait it out, or run again later.`,
        context,
        waitMs,
      );
    }
    // Hold every request of the client for the service's wait before deciding whether this one
    // gives up: the others would otherwise go out during the Retry-After and collect 429s of
    // their own. (A wait over the cap holds nothing back: the others fail as fast on their own
    // 429 as this one did, instead of stalling for the cap first.)
    this.#pacer.pause(waitMs);
    if (attempt >= this.settings.maxRateLimitRetries) {
      throw new RateLimitError(
        `${method} ${path} answered 429 (rate limited) again after waiting ${attempt} times (${this.setting("maxRateLimitRetries")}). Lower the number of parallel operations or run again later.`,
        context,
        waitMs,
      );
    }
    return waitMs;
  }

  #errorBody(text: string): ApiErrorBody | undefined {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = schemas().errorBody.safeParse(json);
    const first = parsed.success ? parsed.data.errors?.[0] : undefined;
    if (!first) return undefined;
    const text_ = (v: unknown) => (v === null || v === undefined ? undefined : this.redact(String(v)));
    // `meta` can echo request parts (validation details name headers and their input): redacted too.
    const meta = first.meta === undefined ? undefined : JSON.parse(this.redact(JSON.stringify(first.meta)));
    return { code: text_(first.code), title: text_(first.title), detail: text_(first.detail), meta };
  }

  #apiError(raw: RawResponse, spec: RequestSpec, path: string): ApiError {
    const body = this.#errorBody(raw.text);
    const requestId = raw.headers["x-request-id"];
    const context: ApiErrorContext = {
      method: spec.method,
      path,
      status: raw.status,
      ...(body ? { body } : {}),
      ...(typeof requestId === "string" ? { requestId } : {}),
    };
    const said = body?.detail ?? body?.title;
    const head = `${spec.method} ${path} answered ${raw.status}${said ? `: ${said.replace(/\.?$/, ".")}` : "."}`;
    const scopes = describeScopes(spec.scopes);
    const message = (hint: string) => this.redact(`${head} ${hint}`.trim());
    switch (raw.status) {
      case 400:
        return new BadRequestError(message(`The service rejected the request${validationSummary(body?.meta)}.`), context, "bad_request");
      case 401:
        return new UnauthorizedError(
          message(
            `The API key was not accepted: it may be missing, expired or revoked, or lack the scope this operation needs: ${scopes}. Check the key and its scopes in the workspace's API settings.`,
          ),
          context,
          "unauthorized",
        );
      case 402:
        return new UnknownFailureError(message("The service reports an unknown failure; try again later, or contact its support."), context, "unknown_failure");
      case 403:
        return new ForbiddenError(
          message(`The API key may not do this: it needs the scope ${scopes}, and its owner needs permission for this item.`),
          context,
          "forbidden",
        );
      case 404:
        return new NotFoundError(message("Not found, or not disclosed to this API key."), context, "not_found");
      case 409:
        return new ConflictError(message("It conflicts with the current state of the workspace."), context, "conflict");
      default: {
        if (isTransientStatus(raw.status)) {
          const ambiguity = spec.method === "POST" ? " The request may or may not have been carried out." : "";
          return new ServerError(message(`The service failed.${ambiguity}`), context, "server_error", true);
        }
        return new ApiError(message(""), context, "api_error");
      }
    }
  }

  #log(message: string): void {
    this.deps.logger?.(this.redact(message));
  }
}

/** " (data.attributes.email: value is not a valid email)" from the API's validation `meta`. */
function validationSummary(meta: unknown): string {
  const items = Array.isArray(meta) ? meta : meta && typeof meta === "object" ? [meta] : [];
  const parts: string[] = [];
  for (const item of items) {
    if (!item || typeof item !== "object") continue;
    const { loc, msg } = item as { loc?: unknown; msg?: unknown };
    if (typeof msg !== "string") continue;
    parts.push(Array.isArray(loc) ? `${loc.join(".")}: ${msg}` : msg);
  }
  return parts.length ? ` (${parts.join("; ")})` : "";
}
