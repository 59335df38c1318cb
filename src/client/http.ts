/**
 * One HTTP exchange, nothing more: build the URL, send the request on a keep-alive undici `Pool`,
 * read the answer, and parse a body with zod. Retries, pacing and error statuses are the
 * transport's (`transport.ts`); a failure to get an answer at all is classified here, because
 * only here are undici's errors known.
 */
import type { Pool } from "undici";
import type { z } from "zod";
import { ConfigurationError, ConnectionError, InvalidResponseError, TimeoutError, type WorkspaceAccessError } from "./errors";
import type { Scope } from "./scopes";
import type { ResolvedSettings } from "./settings";

/** undici, loaded with the first connection rather than with the package (about 40 ms). */
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

/** An answer as it arrived. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends requests to one workspace and reads the answers. @internal */
export class HttpPool {
  readonly #pool: Pool;
  readonly #settings: ResolvedSettings;
  readonly #headers: Record<string, string>;
  /** The same with the JSON body's content type: built once, not per request. */
  readonly #jsonHeaders: Record<string, string>;
  readonly #redact: (text: string) => string;
  readonly #setting: (name: string) => string;

  /** `setting` names a setting as the user sets it; `redact` removes the key from a message. */
  constructor(
    settings: ResolvedSettings,
    userAgent: string,
    words: { redact: (text: string) => string; setting: (name: string) => string },
  ) {
    this.#settings = settings;
    this.#redact = words.redact;
    this.#setting = words.setting;
    this.#headers = { "x-api-key": settings.apiKey, accept: "application/json", "user-agent": userAgent };
    this.#jsonHeaders = { ...this.#headers, "content-type": "application/json" };
    this.#pool = new (undici().Pool)(settings.baseUrl.origin, {
      connections: settings.maxConcurrency,
      keepAliveTimeout: 10_000,
      headersTimeout: settings.requestTimeoutSeconds * 1000,
      bodyTimeout: settings.requestTimeoutSeconds * 1000,
    });
  }

  /** The URL of `spec`; refuses one outside the workspace (a `links.next` must not take the key elsewhere). */
  url(spec: RequestSpec): URL {
    const base = this.#settings.baseUrl;
    const url = new URL(spec.path, base);
    if (url.origin !== base.origin) {
      throw new InvalidResponseError(`Refusing to follow a link to ${url.origin}: the API key is only sent to ${base.origin}`, {
        method: spec.method,
        path: url.pathname,
        status: 0,
        field: "links",
      });
    }
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** Sends the request and reads the whole answer; no answer raises a {@link ConnectionError} or {@link TimeoutError}. */
  async send(spec: RequestSpec, url: URL): Promise<RawResponse> {
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers = body === undefined ? this.#headers : this.#jsonHeaders;
    try {
      const res = await this.#pool.request({ method: spec.method, path: url.pathname + url.search, headers, body });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    } catch (cause) {
      throw this.#noAnswer(cause, spec.method, url.pathname);
    }
  }

  /** The body parsed with `schema`; a body that is not JSON or not of the contract's shape raises {@link InvalidResponseError}. */
  parse<S extends z.ZodType>(schema: S, raw: RawResponse, method: string, path: string): z.infer<S> {
    const invalid = (what: string, field: string) =>
      new InvalidResponseError(this.#redact(`${method} ${path} answered ${raw.status} with a body that ${what}.`), {
        method,
        path,
        status: raw.status,
        field: this.#redact(field),
      });
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      // Redacted before it is cut and escaped: a cut key, or an escaped one, is no longer the key.
      throw invalid(`is not JSON (${JSON.stringify(this.#redact(raw.text).slice(0, 80))})`, "");
    }
    const result = schema.safeParse(json);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const field = issue ? issue.path.map(String).join(".") : "";
    throw invalid(`does not match the API contract: field "${field || "(root)"}": ${issue?.message ?? "invalid"}`, field);
  }

  /** Closes the pool's connections. */
  close(): Promise<void> {
    return this.#pool.close();
  }

  #noAnswer(cause: unknown, method: string, path: string): WorkspaceAccessError {
    const { errors } = undici();
    // Refused before it was sent (e.g. a header it cannot encode): no retry helps.
    if (cause instanceof errors.InvalidArgumentError) {
      return new ConfigurationError(
        this.#redact(`${method} ${path} could not be sent: ${cause.message}. Check the API key and base URL for stray characters.`),
        "apiKey",
      );
    }
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
    const detail = this.#redact(cause instanceof Error ? cause.message : String(cause));
    // Keep a plain copy as the cause: undici errors can hold sockets and request options.
    const context = { retryable: true, method, path, cause: new Error(code ? `${code}: ${detail}` : detail) };
    const ambiguity = method === "POST" ? " A POST that fails this way may or may not have been carried out." : "";
    if (
      cause instanceof errors.HeadersTimeoutError ||
      cause instanceof errors.BodyTimeoutError ||
      cause instanceof errors.ConnectTimeoutError
    ) {
      const seconds = this.#settings.requestTimeoutSeconds;
      return new TimeoutError(
        `${method} ${path} got no answer within ${seconds} s (${this.#setting("requestTimeoutSeconds")}).${ambiguity}`,
        {
          kind: "timeout",
          ...context,
        },
      );
    }
    return new ConnectionError(
      `${method} ${path} failed before an answer arrived (${code || detail}): check that ${this.#settings.baseUrl.origin} is reachable.${ambiguity}`,
      { kind: "connection", ...context },
    );
  }
}
