/**
 * The contract's requests as the resources see them: each one paced (`pacer.ts`), sent
 * (`http.ts`), judged by the retry policy (`retry-policy.ts`) and, when it fails, raised as the
 * error its status maps to (`errors.ts`), with no secret in it.
 */
import type { z } from "zod";
import type { Clock } from "./clock";
import { errorForStatus, readErrorBody } from "./error-answers";
import { RateLimitError, type WorkspaceAccessError } from "./errors";
import { HttpPool, type RawResponse, type RequestSpec } from "./http";
import { Pacer } from "./pacer";
import { memoryKey, RateLimitMemory } from "./rate-memory";
import { makeRedactor, redactError } from "./redact";
import { backoffDelay, type Decision, decide, type RetryLimits } from "./retry-policy";
import { describeScopes } from "./scopes";
import { DEFAULT_RATE_LIMIT_WAIT_SECONDS, type ResolvedSettings } from "./settings";

export type { Method, RequestSpec } from "./http";

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

/** Sends the contract's requests for one client: pacing, retries, parsing and errors. @internal */
export class HttpTransport {
  readonly settings: ResolvedSettings;
  readonly deps: TransportDeps;
  readonly redact: (text: string) => string;
  readonly #http: HttpPool;
  readonly #pacer: Pacer;
  readonly #limits: RetryLimits;
  /** Learnt rate limits kept for the next process (`rate-memory.ts`); undefined when turned off. */
  readonly #memory: RateLimitMemory | undefined;
  /** Reading the remembered limit, which the first request waits for; undefined once done. */
  #recalling: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Requests sent (attempts, not operations): what the benchmarks and request-count tests read. */
  requestCount = 0;

  constructor(settings: ResolvedSettings, deps: TransportDeps) {
    this.settings = settings;
    this.deps = deps;
    this.redact = makeRedactor(settings.apiKey);
    this.#http = new HttpPool(settings, deps.userAgent, { redact: this.redact, setting: (name) => this.setting(name) });
    const memory = settings.cacheDir === undefined ? undefined : new RateLimitMemory(settings.cacheDir, deps.clock, (m) => this.#log(m));
    const key = memoryKey(settings.baseUrl);
    this.#pacer = new Pacer(deps.clock, settings.maxConcurrency, settings.maxRequestsPerSecond, (limit) => memory?.remember(key, limit));
    this.#memory = memory;
    // Read now, while the caller gets ready: the first request waits for it (a file of a few lines).
    this.#recalling = memory && this.#recall(memory, key).catch(() => {});
    this.#limits = { ...settings, maxRateLimitWaitMs: settings.maxRateLimitWaitSeconds * 1000 };
  }

  /** 429 answers received so far. */
  get rateLimitedCount(): number {
    return this.#pacer.rateLimited;
  }

  /** Writes any learnt limit not written yet, and closes the connections (once, however often called). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#memory?.flush();
      await this.#http.close();
    })();
    return this.#closing;
  }

  /** Paces from the limit an earlier process learnt for this workspace, if one is remembered. */
  async #recall(memory: RateLimitMemory, key: string): Promise<void> {
    const limit = await memory.recall(key);
    if (limit) {
      this.#pacer.seed(limit);
      this.#log(`rate limit remembered for ${key}: ${limit.count} requests per ${limit.windowMs} ms (from ${memory.dir})`);
    }
  }

  /** Builds a setting's name as the user sets it, e.g. `workspace-access:maxRetries`. */
  setting(name: string): string {
    return `${this.deps.settingPrefix}${name}`;
  }

  /**
   * Sends `spec`, as often as the retry policy allows, and parses the answer with `schema`
   * (`null` for answers without a body, such as 204). Every error it raises is redacted whole
   * (message, stack, every field: `redactError`), whichever code built it: a link's host or path,
   * a header or an answer may carry the key.
   */
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S | null): Promise<Response<z.infer<S>>> {
    try {
      return await this.#exchange(spec, schema);
    } catch (error) {
      throw redactError(error, this.redact);
    }
  }

  /** {@link request}, before its errors are redacted. */
  async #exchange<S extends z.ZodType>(spec: RequestSpec, schema: S | null): Promise<Response<z.infer<S>>> {
    const url = this.#http.url(spec);
    const { method } = spec;
    const path = url.pathname;
    const attempt = { method, transientRetries: 0, rateLimitRetries: 0 };
    if (this.#recalling) {
      await this.#recalling;
      this.#recalling = undefined;
    }
    for (;;) {
      const ticket = await this.#pacer.acquire();
      this.requestCount++;
      let raw: RawResponse | undefined;
      let noAnswer: WorkspaceAccessError | undefined;
      try {
        raw = await this.#http.send(spec, url);
      } catch (error) {
        if (!(error as WorkspaceAccessError).retryable) throw error;
        noAnswer = error as WorkspaceAccessError;
      } finally {
        this.#pacer.release(ticket);
      }
      if (raw) this.#pacer.observe(raw.status, raw.headers, ticket);
      const retryAfter = raw?.headers["retry-after"];
      const outcome = raw
        ? {
            kind: "answer" as const,
            status: raw.status,
            retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
            now: this.deps.clock.now(),
          }
        : { kind: "no-answer" as const };
      const decision = decide(attempt, outcome, this.#limits, this.deps.random);
      switch (decision.action) {
        case "accept": {
          // Every success status is success: a write answered 200 or 204 without a body has landed.
          const mayBeEmpty = spec.allowEmpty === true || method !== "GET";
          const empty = schema === null || (mayBeEmpty && raw!.text.trim() === "");
          return { status: raw!.status, data: (empty ? undefined : this.#http.parse(schema, raw!, method, path)) as z.infer<S> };
        }
        case "wait":
          // A 429: every request of this client waits for the service's Retry-After, then this one goes again.
          this.#pacer.pause(decision.waitMs);
          this.#log(`${method} ${path}: 429, waiting ${Math.ceil(decision.waitMs / 1000)} s`);
          attempt.rateLimitRetries++;
          continue;
        case "retry":
          await this.#retryAfter(
            attempt.transientRetries++,
            `${method} ${path}: ${raw ? raw.status : noAnswer!.message}`,
            decision.delayMs,
          );
          continue;
        case "fail":
          throw this.#failure(decision, spec, path, raw, noAnswer, attempt.rateLimitRetries);
      }
    }
  }

  /** Sleeps the policy's back-off before retry `attempt + 1` of an operation that retries itself (see `create-once.ts`). */
  async backoff(attempt: number, reason: string): Promise<void> {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.settings;
    await this.#retryAfter(attempt, reason, backoffDelay(attempt, retryBaseDelayMs, retryMaxDelayMs, this.deps.random));
  }

  /** Says why retry `attempt + 1` comes, and waits `ms` for it. */
  async #retryAfter(attempt: number, reason: string, ms: number): Promise<void> {
    this.#log(`${reason}; retry ${attempt + 1} of ${this.settings.maxRetries} in ${ms} ms`);
    await this.deps.clock.sleep(ms);
  }

  /** The error a failed request raises. */
  #failure(
    decision: Extract<Decision, { action: "fail" }>,
    spec: RequestSpec,
    path: string,
    raw: RawResponse | undefined,
    noAnswer: WorkspaceAccessError | undefined,
    waited: number,
  ): WorkspaceAccessError {
    const { method } = spec;
    const body = raw && readErrorBody(raw.text, this.redact);
    if (decision.why === "rate-limit-too-long" || decision.why === "rate-limit-retries-spent") {
      if (decision.holdMs > 0) this.#pacer.pause(decision.holdMs);
      const context = { method, path, status: 429, body };
      const why = decision.given
        ? `with Retry-After: ${Math.ceil(decision.waitMs / 1000)} s`
        : `without Retry-After, so the API's rule is to wait five minutes (${DEFAULT_RATE_LIMIT_WAIT_SECONDS} s)`;
      const message =
        decision.why === "rate-limit-too-long"
          ? `${method} ${path} answered 429 (rate limited) ${why}, ` +
            `longer than ${this.setting("maxRateLimitWaitSeconds")} (${this.settings.maxRateLimitWaitSeconds} s). ` +
            "Raise that setting to wait it out, or run again later."
          : `${method} ${path} answered 429 (rate limited) again after waiting ${waited} times (${this.setting("maxRateLimitRetries")}). ` +
            "Lower the number of parallel operations or run again later.";
      return new RateLimitError(this.redact(message), context, decision.waitMs);
    }
    const requestId = raw?.headers["x-request-id"];
    const error =
      noAnswer ??
      errorForStatus({
        method,
        path,
        status: raw!.status,
        body,
        requestId: typeof requestId === "string" ? requestId : undefined,
        scopes: describeScopes(spec.scopes),
        redact: this.redact,
      });
    if (decision.why === "transient" && decision.retried > 0)
      error.message += ` Gave up after ${decision.retried} retries (${this.setting("maxRetries")}).`;
    return error;
  }

  #log(message: string): void {
    this.deps.logger?.(this.redact(message));
  }
}
