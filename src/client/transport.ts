import type { Pool } from "undici";
import type { z } from "zod";
import { timerOf } from "./clock";
import { errorForStatus, readErrorBody, type WriteNotFound } from "./error-answers";
import {
  acceptedUnread,
  ConfigurationError,
  ConnectionError,
  contractIssue,
  InvalidResponseError,
  isTransientStatus,
  NotFoundError,
  RateLimitError,
  TimeoutError,
  type WorkspaceAccessError,
  withMessage,
} from "./errors";
import type { JobDeadline } from "./models";
import { type Held, Pacer, readRateLimitHeaders } from "./pacer";
import { memoryKey, RateLimitMemory } from "./rate-memory";
import { makeEchoTest, makeRedactor, makeValueRedactor, redactDeep, redactError } from "./redact";
import { type Attempt, askedTooLong, backoffDelay, type Decision, decide, type Outcome } from "./retry-policy";
import { schemas } from "./schemas";
import { ServiceClock } from "./service-clock";
import { describeNeeds, type JobAnswer, SCOPES, type Scope } from "./scopes";
import {
  type AddressParts,
  builtAddress,
  builtAddressFix,
  type ClientOptions,
  DEFAULT_RATE_LIMIT_WAIT_SECONDS,
  type ResolvedSettings,
  type SettingName,
} from "./settings";

/** The package version, sent in the User-Agent (package.json sits two levels up from src/ and dist/). */
const USER_AGENT = `pulumi-workspace-access/${(require("../../package.json") as { version: string }).version}`;

type Undici = typeof import("undici");
/** What the transport uses of undici; `request` is called on the pool (`request.call(pool, options)`). */
type UndiciParts = Pick<Undici, "Pool" | "errors"> & { request: Pool["request"] };
/**
 * What the transport uses of undici: from the modules that hold it (about 10 ms to load in a provider host, where undici's
 * index, with fetch, WebSocket, caches and mocks, takes 40), or from the index if a release moved them. @internal
 */
export function undiciParts(load: (id: string) => unknown = require): UndiciParts {
  try {
    const parts = ["dispatcher/pool", "api/api-request", "core/errors"].map((m) => load(`undici/lib/${m}`));
    const [Pool, request, errors] = parts as [Undici["Pool"], Pool["request"], Undici["errors"]];
    if (typeof Pool === "function" && typeof request === "function" && typeof errors?.InvalidArgumentError === "function")
      return { Pool, errors, request };
  } catch {}
  const { Pool, errors } = load("undici") as Undici;
  return { Pool, errors, request: Pool.prototype.request };
}
/**
 * Node's codes for a server certificate it does not trust, with what to do: no retry helps, and "is it reachable?" would
 * mislead. TLS verification is never turned off: the certificate's authority is given to Node instead.
 */
const UNTRUSTED_CERTIFICATE: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    [
      "DEPTH_ZERO_SELF_SIGNED_CERT",
      "SELF_SIGNED_CERT_IN_CHAIN",
      "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
      "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
      "UNABLE_TO_GET_ISSUER_CERT",
      "CERT_UNTRUSTED",
    ].map((code) => [
      code,
      "it is not signed by an authority Node trusts. Behind a proxy that inspects TLS, or with a private certificate authority, " +
        "set NODE_EXTRA_CA_CERTS to a PEM file of that authority's certificate in the environment that runs pulumi (or your program)",
    ]),
  ),
  CERT_HAS_EXPIRED: "it has expired (or the machine's clock is wrong); the service must renew it. NODE_EXTRA_CA_CERTS cannot help here",
  CERT_NOT_YET_VALID: "it is not valid yet: check the machine's clock",
  ERR_TLS_CERT_ALTNAME_INVALID:
    "it does not name this host: check the host of baseUrl. A proxy's certificate needs its authority in NODE_EXTRA_CA_CERTS",
};
let loaded: UndiciParts | undefined;
/** undici's parts, loaded with the first connection rather than with the package. */
const undici = () => (loaded ??= undiciParts());

/** One exchange of the contract. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Relative to the base URL (`users/<id>`), or an absolute path from a `links` entry. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Scopes the request needs; named in 401/403 messages, with those of its job ({@link RequestSpec.job}). */
  scopes: readonly Scope[];
  /** A write's: whether it answers with a job, whose scopes its refusals name too (`describeNeeds`). */
  job?: JobAnswer;
  /**
   * A `GET` needing one of `scopes`, which one not known (the entitlement catalogue: Read integrations by the contract's table,
   * Write integrations by the document's operation): its refusals name them all, but its success shows no read scope disclosed
   * to the key (a key holding the other may be served it), and its 404 asks no scope's listing (its caller reads further).
   */
  scopesInDoubt?: true;
  /**
   * A `GET`'s: one request needing every read scope it needs (its listing, one record), asked instead of each scope's own
   * listing when its 404 comes before more of them than one were disclosed to the key (a member read's: its integration's
   * member list, which needs Read integrations and Read users): one request, where each scope's would be two.
   */
  disclosedBy?: RequestSpec;
  /**
   * A write's: the record it addresses, as its 404's message names it (`user <id>`), and what else its body names that may
   * answer 404 (`an entitlement the body names`): its 404 says either may be missing, or a scope of the key.
   */
  target?: { what: string; alsoNamed?: string };
  /**
   * A write's: the read of the record it addresses. A 404 to the write, before one of its kind (its scopes) answered success,
   * is read back so (`#stillThere`): from a service that answers 404 ("not disclosed") to a key lacking a scope, a `DELETE`'s
   * would be read as "already gone", and any write's could not say whether its record is gone. A record gone is the 404's
   * answer; one there is a refusal, unless the body names other records (`target.alsoNamed`), which may be the missing ones.
   */
  record?: RequestSpec;
  /**
   * A `GET`'s: what its 404 means, in words, said after the answer in place of the status's own (a job's read: its caller knows
   * whether the key reads jobs). Asked when the 404 comes, after any scope's listing that tells it apart.
   */
  notFound?: () => string;
  /**
   * A `GET`'s, for a caller whose wait is bounded (a job's poll): `at`, when that wait ends (the client's clock). A 429 asking
   * to wait past it is not waited for (the client's other requests are still held), nor is the request sent when the client
   * holds it past it (another request's 429, the pace learnt), nor when it waited for a free connection till then (every one
   * busy with a request bounded by `requestTimeoutSeconds` alone): `ended` gives the error thrown instead, from the 429's
   * {@link RateLimitError}, or an error saying how long it was held. Once sent, its answer is read, however late. `once`: the
   * one read of a wait whose end passed before it began, sent when the client's pace lets it (held as any request) and
   * retried after a 5xx or no answer as any read, so that a job done by then is not called late; its 429 is not waited for.
   */
  waitEnds?: { at: number; ended: (lastTry: Error) => Error; once?: boolean };
}

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * Everything the transport needs besides the settings; `settingName` names a setting in messages as its user sets it;
 * `addressBuiltFrom`, the two it built the base URL from, if it did; `jobDeadline`, the end of the job waits of the
 * operation under way, if its caller set one (a resource's `customTimeouts`).
 */
export type TransportDeps = Required<Pick<ClientOptions, "clock" | "random">> &
  Pick<ClientOptions, "logger"> & {
    settingName: SettingName;
    addressBuiltFrom?: AddressParts;
    jobDeadline?: () => JobDeadline | undefined;
  };

/** `text` beginning a sentence: "The membership of user ...". */
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A listing of `path`, one record: the request that shows whether `scope` is disclosed to a key. */
const listingOf = (path: string, scope: Scope): RequestSpec => ({ method: "GET", path, query: { "page[size]": 1 }, scopes: [scope] });

/**
 * The read scopes a service may hide behind 404 ("not disclosed"), each with the listing that shows whether it does: the
 * contract answers it under the API root, 200, or 401/403 to a key without the scope, never 404 (docs/contract.md). Read
 * automated jobs has none (a job is read by its id alone): a job's 404 is the contract's, the job unknown, but through the
 * first reads of one a write answered with just now (`JobsApi`'s `#hiddenThrough`).
 */
const DISCLOSURES: ReadonlyMap<string, { what: string; probe: RequestSpec }> = new Map([
  [SCOPES.readUsers.id, { what: "users", probe: listingOf("users", SCOPES.readUsers) }],
  [SCOPES.readIntegrations.id, { what: "integrations", probe: listingOf("integrations", SCOPES.readIntegrations) }],
]);

/** "users", "integrations and users". */
const joined = (words: readonly string[]) =>
  words.length <= 1 ? (words[0] ?? "") : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;

/**
 * A 429's wait until its `RateLimit-Reset` (`serviceNow`: the service's clock, which an epoch reset is read on), when its
 * `RateLimit-Remaining` is 0 or absent: the window it was refused for. A request still remaining says the 429 is not that
 * window's: no wait is read from it.
 */
function windowReset(headers: RawResponse["headers"], serviceNow: number): number | undefined {
  const said = readRateLimitHeaders(headers, serviceNow);
  return said && (said.remaining === undefined || said.remaining <= 0) ? said.resetMs : undefined;
}

/** A request's kind, as far as a key's scopes go: the scopes it needs (a member's PATCH and DELETE are one kind; so are two integrations' member lists). */
const kindOf = (spec: RequestSpec) => spec.scopes.map((scope) => scope.id).join(" ");

/** Sends the contract's requests for one client: paced (`pacer.ts`), on a keep-alive undici `Pool`, retried, parsed with zod, errors redacted. @internal */
export class HttpTransport {
  readonly settings: ResolvedSettings;
  readonly deps: TransportDeps;
  readonly redact: (text: string) => string;
  /** Whether a body may hold the whole key once parsed, and the key's removal from a parsed value (`redact.ts`). */
  readonly #mayEchoKey: (text: string) => boolean;
  readonly #redactValue: (value: string) => string;
  readonly #pool: Pool;
  readonly #headers: Record<string, string>;
  readonly #jsonHeaders: Record<string, string>;
  /** Paces every request of the client; its `rateLimited` counts the 429s received. */
  readonly pacer: Pacer;
  /** Learnt rate limits kept for the next process (`rate-memory.ts`); undefined when turned off. */
  readonly #memory: RateLimitMemory | undefined;
  /** Reading the remembered limit, which the first request waits for; undefined once done. */
  #recalling: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Requests sent (attempts, not operations): what the benchmarks and request-count tests read. */
  requestCount = 0;
  /** The service's clock as its successful answers' `Date` headers show it (`service-clock.ts`). */
  readonly serviceClock = new ServiceClock();
  /** Whether the base URL has answered as the workspace API (a success, or a probe below): until then a 404 may be the address's. */
  #apiAnswered = false;
  /**
   * The read scopes of {@link DISCLOSURES} disclosed to this key: a `GET` needing one answered success, or its probe answered.
   * Until then a 404 to a `GET` needing it may be the service's "not disclosed" to a key without it, not the record's.
   */
  readonly #disclosed = new Set<string>();
  /**
   * The kinds of write ({@link kindOf}) this key was answered success for: a 404 to one of them is the record's. Until
   * then a 404 may be the service's "not disclosed" to a key lacking the write's scope, and the record is read back.
   */
  readonly #writesAnswered = new Set<string>();
  /**
   * The probes a 404 waits for ({@link #shown}), by the scopes they show ({@link kindOf}): one for each, whatever many 404s
   * wait for it (a member read of another integration waits for the first one's member list: it shows the same scopes).
   */
  readonly #probes = new Map<string, Promise<boolean>>();
  /** The requests sent as probes: a probe's own 404 is the answer, not a question for another probe. */
  readonly #probeSpecs = new WeakSet<RequestSpec>();

  constructor(settings: ResolvedSettings, deps: TransportDeps) {
    this.settings = settings;
    this.deps = deps;
    this.redact = makeRedactor(settings.apiKey);
    this.#mayEchoKey = makeEchoTest(settings.apiKey);
    this.#redactValue = makeValueRedactor(settings.apiKey);
    this.#headers = { "x-api-key": settings.apiKey, accept: "application/json", "user-agent": USER_AGENT };
    this.#jsonHeaders = { ...this.#headers, "content-type": "application/json" };
    this.#pool = new (undici().Pool)(settings.baseUrl.origin, {
      connections: settings.maxConcurrency,
      keepAliveTimeout: 10_000,
      // The whole exchange is bounded in `#send`; these keep undici's own defaults (300 s) from cutting a longer timeout short.
      headersTimeout: settings.requestTimeoutSeconds * 1000,
      bodyTimeout: settings.requestTimeoutSeconds * 1000,
    });
    const memory = settings.cacheDir === undefined ? undefined : new RateLimitMemory(settings.cacheDir, deps.clock, (m) => this.#log(m));
    const key = memoryKey(settings.baseUrl);
    this.pacer = new Pacer(deps.clock, settings.maxConcurrency, settings.maxRequestsPerSecond, (limit) => memory?.remember(key, limit));
    this.#memory = memory;
    // Read now, while the caller gets ready: the first request waits for it (a file of a few lines).
    this.#recalling = memory
      ?.recall(key)
      .then((limit) => {
        if (!limit) return;
        this.pacer.seed(limit);
        this.#log(`rate limit remembered for ${key}: ${limit.count} requests per ${limit.windowMs} ms (from ${memory.dir})`);
      })
      .catch(() => {});
  }

  /** Writes any learnt limit not written yet (at once when none is pending; never throws). */
  async settle(): Promise<void> {
    await this.#memory?.flush();
  }

  /** Writes any learnt limit not written yet, and closes the connections (once, however often called). */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#memory?.flush();
      await this.#pool.close();
    })();
    return this.#closing;
  }

  /** A setting's name as the user sets it, e.g. `workspace-access:maxRetries`; undefined: the user cannot set it. */
  setting(name: string): string | undefined {
    return this.deps.settingName(name);
  }

  /** The API key as its user set it (`the key in workspace-access:apiKey`), or `the API key` where they cannot name it. */
  #theKey(): string {
    const named = this.setting("apiKey");
    return named === undefined ? "the API key" : `the key in ${named}`;
  }

  /** ` (workspace-access:maxRetries)` after a number a setting gave, or nothing when the user cannot set it. */
  #settingAfter(name: string): string {
    const named = this.setting(name);
    return named === undefined ? "" : ` (${named})`;
  }

  /**
   * Sends `spec` as the retry policy allows, parses the answer (`data` undefined: no body), redacts every error whole (a link may
   * carry the key). A `DELETE` sent again after an attempt without a final answer, answered 404 with its record gone, is done.
   */
  async request<S extends z.ZodType>(spec: RequestSpec, schema: S): Promise<{ status: number; data: z.infer<S> }> {
    // One function, not a redacting wrapper around an exchange: a frame shorter to the socket.
    try {
      const url = this.#url(spec);
      const { method } = spec;
      const path = url.pathname;
      const attempt: Attempt = { method, transientRetries: 0, rateLimitRetries: 0 };
      if (this.#recalling) {
        await this.#recalling;
        this.#recalling = undefined;
      }
      for (;;) {
        const ticket = spec.waitEnds && !spec.waitEnds.once ? await this.pacer.acquire(spec.waitEnds.at) : await this.pacer.acquire();
        if (typeof ticket !== "number") throw spec.waitEnds!.ended(this.#heldPastEnd(spec, path, ticket));
        this.requestCount++;
        let raw: RawResponse | undefined;
        let noAnswer: WorkspaceAccessError | undefined;
        try {
          raw = await this.#send(spec, url);
        } catch (error) {
          if (!(error as WorkspaceAccessError).retryable) throw error;
          noAnswer = error as WorkspaceAccessError;
        } finally {
          this.pacer.release(ticket);
        }
        const arrivedAt = this.deps.clock.now();
        // The times an answer names (a dated Retry-After, an epoch RateLimit-Reset) are the service's: measured on its clock.
        const aheadMs = raw ? this.serviceClock.aheadFor(raw.headers["date"], arrivedAt) : 0;
        if (raw) this.pacer.observe(raw.status, raw.headers, ticket, aheadMs);
        const retryAfter = [raw?.headers["retry-after"]].flat()[0];
        const serviceNow = arrivedAt + aheadMs;
        const resetMs = raw?.status === 429 ? windowReset(raw.headers, serviceNow) : undefined;
        const outcome: Outcome = raw ? { kind: "answer", status: raw.status, retryAfter, now: serviceNow, resetMs } : { kind: "no-answer" };
        // The one read of a wait begun past its end (`once`) is retried after a 5xx or no answer as any read: it tells done
        // from late. A 429 asking to wait is not waited for.
        if (spec.waitEnds && (!spec.waitEnds.once || raw?.status === 429)) attempt.leftMs = spec.waitEnds.at - arrivedAt;
        const decision = decide(attempt, outcome, this.settings, this.deps.random);
        switch (decision.action) {
          case "accept": {
            this.#apiAnswered = true;
            if (method === "GET" && !spec.scopesInDoubt)
              for (const scope of spec.scopes) if (DISCLOSURES.has(scope.id)) this.#disclosed.add(scope.id);
            if (method !== "GET") this.#writesAnswered.add(kindOf(spec));
            // Every success status is success: a write answered 200 or 204 without a body has landed.
            const empty = method !== "GET" && raw!.text.trim() === "";
            const data = (empty ? undefined : this.#parse(schema, raw!, method, path)) as z.infer<S>;
            // Its `Date` teaches the service's clock once the answer is the API's: a gateway's page answered 200 (not the
            // API's body) keeps its own clock's, which would shift every wait and judgement after it.
            this.serviceClock.observe(raw!.headers["date"], arrivedAt);
            return { status: raw!.status, data };
          }
          case "wait":
            this.pacer.pause(decision.waitMs);
            this.#log(`${method} ${path}: 429, waiting ${Math.ceil(decision.waitMs / 1000)} s`);
            attempt.rateLimitRetries++;
            continue;
          case "retry":
            await this.backoff(attempt.transientRetries++, `${method} ${path}: ${raw ? raw.status : noAnswer!.message}`, decision.delayMs);
            continue;
          case "fail": {
            const resent = attempt.transientRetries > 0;
            const notFound = raw?.status === 404 && !this.#probeSpecs.has(spec) ? await this.#unlessHidden(spec, path, resent) : undefined;
            // A DELETE sent again after one without a final answer (none, or a 5xx a gateway may give after the service acted),
            // whose record is gone: that one most likely deleted it, and its answer was lost. Done, not "not found".
            if (method === "DELETE" && resent && notFound?.recordGone) {
              this.#log(`${method} ${path}: 404 after an attempt without a final answer, and the record is gone: done`);
              return { status: raw!.status, data: undefined as z.infer<S> };
            }
            const failure = this.#failure(decision, spec, path, raw, noAnswer, attempt.rateLimitRetries, notFound);
            const pastEnd =
              decision.why === "transient-past-end" || (decision.why === "rate-limit-past-end" && RateLimitError.isInstance(failure));
            if (pastEnd && spec.waitEnds) throw spec.waitEnds.ended(failure);
            throw failure;
          }
        }
      }
    } catch (error) {
      throw redactError(error, this.redact);
    }
  }

  /** Said of a wait past the end of the caller's (`RequestSpec.waitEnds`): how long that may still last, in whole seconds. */
  #longerThanWaitLeft(spec: RequestSpec): string {
    const left = Math.max(0, Math.ceil(((spec.waitEnds?.at ?? 0) - this.deps.clock.now()) / 1000));
    return `longer than the wait it was sent for may still last (${left} s)`;
  }

  /** Why a request bounded by its caller's wait (`RequestSpec.waitEnds`) was not sent: the client held it past that wait's end. */
  #heldPastEnd(spec: RequestSpec, path: string, held: Held): Error {
    const cap = `${this.setting("maxRequestsPerSecond") ?? "maxRequestsPerSecond"} (${this.settings.maxRequestsPerSecond} a second)`;
    const concurrency = this.setting("maxConcurrency") ?? "maxConcurrency";
    const connections = `${this.settings.maxConcurrency} connections (${concurrency})`;
    const why = {
      "429": "after a 429 (rate limited)",
      remaining: "until the service's rate limit window resets (its RateLimit-Remaining was spent)",
      learnt: "to keep to the rate limit it learnt",
      cap: `to keep to its pace, ${cap}`,
      connections: `while every one of its ${connections} was busy with its other requests`,
    }[held.by];
    const notSent = `${spec.method} ${path} was not sent`;
    const seconds = Math.ceil(held.heldMs / 1000);
    if (held.awaiting) {
      // A hold with no known end: till an answer to a request in flight, each bounded by requestTimeoutSeconds alone.
      const place = held.by === "connections" ? why : `for an answer to free a place ${why}`;
      const raise = held.by === "connections" ? `: raise ${concurrency} to send more at once, if the service takes them` : "";
      // Held no time at all: the wait had ended already when every place was taken.
      const what =
        held.heldMs > 0
          ? `held it ${seconds} s ${place}, until the wait it was sent for ended`
          : `had no place for it ${place}, and the wait it was sent for had ended`;
      return new Error(`${notSent}: the client ${what}${raise}.`);
    }
    return new Error(`${notSent}: the client holds its requests ${seconds} s more ${why}, ${this.#longerThanWaitLeft(spec)}.`);
  }

  /** Says why retry `attempt + 1` comes and sleeps `ms`: by default the policy's back-off, for `users.create`, which retries itself. */
  async backoff(
    attempt: number,
    reason: string,
    ms = backoffDelay(attempt, this.settings.retryBaseDelayMs, this.settings.retryMaxDelayMs, this.deps.random),
  ) {
    this.#log(`${reason}; retry ${attempt + 1} of ${this.settings.maxRetries} in ${ms} ms`);
    await this.deps.clock.sleep(ms);
  }

  #failure(
    decision: Extract<Decision, { action: "fail" }>,
    spec: RequestSpec,
    path: string,
    raw: RawResponse | undefined,
    noAnswer: WorkspaceAccessError | undefined,
    waited: number,
    notFound: WriteNotFound | undefined,
  ): WorkspaceAccessError {
    const { method } = spec;
    const body = raw && readErrorBody(raw.text, this.redact);
    const requestId = raw?.headers["x-request-id"];
    const asked = decision.why === "transient" || decision.why === "transient-past-end" ? decision.askedMs : undefined;
    const context = {
      ...{ method, path, status: raw?.status ?? 0, ...(body && { body }), ...(typeof requestId === "string" && { requestId }) },
      // A 5xx's Retry-After, kept on its ServerError: `users.create`, which sends its POST again itself, waits it out too.
      ...(asked !== undefined && { retryAfterMs: asked }),
    };
    if ("holdMs" in decision) {
      if (decision.holdMs > 0) this.pacer.pause(decision.holdMs);
      // A 429 that asked for no wait is named by what it said (0 s), then the client's back-off.
      const why = decision.backoff
        ? `with ${decision.from ?? "Retry-After"}: 0 s, after which the client backs off ${Math.ceil(decision.waitMs / 1000)} s`
        : decision.given
          ? `with ${decision.from ?? "Retry-After"}: ${Math.ceil(decision.waitMs / 1000)} s`
          : `without Retry-After, so the API's rule is to wait five minutes (${DEFAULT_RATE_LIMIT_WAIT_SECONDS} s)`;
      const said = `${method} ${path} answered 429 (rate limited)`;
      let message: string;
      if (decision.why === "rate-limit-too-long") {
        const longest = this.setting("maxRateLimitWaitSeconds");
        const limit = `${this.settings.maxRateLimitWaitSeconds} s`;
        message =
          `${said} ${why}, ` +
          (longest === undefined
            ? `longer than a wait may last (${limit}). Run again later.`
            : `longer than ${longest} (${limit}). Raise that setting to wait it out, or run again later.`);
      } else if (decision.why === "rate-limit-past-end") {
        message = `${said} ${why}, ${this.#longerThanWaitLeft(spec)}.`;
      } else {
        message =
          `${said} again after waiting ${waited} times${this.#settingAfter("maxRateLimitRetries")}. ` +
          "Lower the number of parallel operations or run again later.";
      }
      return new RateLimitError(this.redact(message), context, decision.waitMs);
    }
    const location = [raw?.headers["location"]].flat()[0];
    const { baseUrl } = this.settings;
    const setting = this.setting("baseUrl") ?? "the base URL";
    const redirect = { location, url: new URL(path, baseUrl), baseUrl, setting, builtFrom: this.deps.addressBuiltFrom };
    const error = noAnswer ?? errorForStatus(context, { needs: describeNeeds(spec.scopes, spec.job), notFound }, this.redact, redirect);
    if (decision.why === "transient" && decision.retried > 0)
      error.message += ` Gave up after ${decision.retried} retries${this.#settingAfter("maxRetries")}.`;
    if (decision.why === "transient-past-end") {
      error.message += ` A retry waits ${Math.ceil(decision.delayMs / 1000)} s, ${this.#longerThanWaitLeft(spec)}.`;
    }
    if (asked !== undefined && askedTooLong(asked, this.settings)) {
      // A POST is never retried by the transport (`users.create` sends its own again): raising the setting would not wait for it.
      const longest = this.setting("retryMaxDelayMs");
      const raise = method === "POST" || longest === undefined ? "" : ", or raise that setting to wait it out";
      error.message +=
        ` It asked to be called again in ${Math.ceil(asked / 1000)} s (Retry-After), longer than a retry waits` +
        `${longest === undefined ? "" : `, ${longest}`} (${this.settings.retryMaxDelayMs} ms): run again later${raise}.`;
    }
    return error;
  }

  /**
   * Throws instead of a 404 that may not be the record's, which its caller would read as "gone" (a refresh dropping it from
   * the state, a destroy removing nothing and succeeding, a lookup saying there is no such integration): before anything
   * answered, the address's (not the API's root); to a `GET` needing a read scope not yet disclosed to this key (Read users,
   * Read integrations), or to a write before one of its kind answered success, the service's "not disclosed" to a key
   * lacking a scope (docs/contract.md). What it costs under the contract's 401/403, where every 404 is the record's: each
   * scope's listing once, should a `GET` needing it answer 404 before any answered success (a member read's: its member list
   * once, for both), and the record's read per write answered 404 before one of its kind answered success. A write's 404 that
   * stands is said as what it may mean (`#writeNotFound`), the 404's own words else; `resent`: after an attempt without a final
   * answer, which may have landed.
   */
  async #unlessHidden(spec: RequestSpec, path: string, resent: boolean): Promise<WriteNotFound | undefined> {
    const { method } = spec;
    const hidden =
      method === "GET" && !spec.scopesInDoubt ? spec.scopes.filter((s) => DISCLOSURES.has(s.id) && !this.#disclosed.has(s.id)) : [];
    const undisclosed = await this.#undisclosed(spec, hidden, path);
    // Before anything answered, the 404 may be the address's: the users' listing, unless asked already, tells the two apart.
    const { readUsers } = SCOPES;
    const asked = hidden.some((scope) => scope.id === readUsers.id);
    if (!this.#apiAnswered && !asked && !(await this.#shown(DISCLOSURES.get(readUsers.id)!.probe, method, path)))
      undisclosed.push(readUsers);
    if (undisclosed.length > 0)
      throw this.#apiAnswered ? this.#notDisclosed(spec, undisclosed, path) : this.#notTheApi(spec, undisclosed, path);
    if (method === "GET") return spec.notFound && { said: spec.notFound(), recordThere: false, scopesHeld: false, recordGone: false };
    if (this.#writesAnswered.has(kindOf(spec))) return this.#writeNotFound(spec, "shown", resent);
    if (!spec.record) return this.#writeNotFound(spec, "unread", resent);
    if (!(await this.#stillThere(spec.record, method, path))) return this.#writeNotFound(spec, "gone", resent);
    if (!spec.target?.alsoNamed) throw this.#writeRefused(spec, path);
    return this.#writeNotFound(spec, "there", resent);
  }

  /**
   * What a write's 404 may mean, as far as is known: its record or what its body names is not there (`gone`: its read answered
   * 404 too; `shown`: a write of its kind answered this key success, so it has the scopes), or the service answers 404 (not
   * disclosed) to a key lacking a scope the write needs (`unread`: no read tells; `there`: its record is there, and what else the
   * body names may be missing); with what tells them apart. `resent`: an earlier attempt got no final answer, so this 404 says
   * nothing of whether that one landed (before its record went), only that this one did not.
   */
  #writeNotFound(spec: RequestSpec, known: "shown" | "unread" | "gone" | "there", resent: boolean): WriteNotFound {
    const said = this.#writeNotFoundSaid(spec, known, resent);
    return { said, recordThere: known === "there", scopesHeld: known === "shown", recordGone: known === "gone" || known === "shown" };
  }

  /** The words of {@link #writeNotFound}. */
  #writeNotFoundSaid(spec: RequestSpec, known: "shown" | "unread" | "gone" | "there", resent: boolean): string {
    const what = spec.target?.what ?? "the record it addresses";
    const also = spec.target?.alsoNamed;
    const read = spec.record && `GET ${new URL(spec.record.path, this.settings.baseUrl).pathname}`;
    const missing = also ? `${what} or ${also}` : what;
    // Sent again after an attempt without a final answer, only this attempt is known not done: the earlier may have landed.
    const gone = known === "gone" ? what : known === "shown" ? missing : undefined;
    const earlier = `an earlier one got no final answer (none, or a 5xx), and whether it landed${gone ? ` before ${gone} went` : ""} is not known`;
    const notDone = resent ? `This attempt was not done; ${earlier}.` : "The write was not done.";
    const lacking = `the service answers 404 (not disclosed) to a key lacking a scope: this write needs ${describeNeeds(spec.scopes, spec.job)}`;
    const scopes = "check the key's scopes in the workspace's API settings";
    switch (known) {
      case "gone":
        return `${read} answered 404 too: ${what} is not there. ${notDone}`;
      case "shown":
        return `${capitalized(missing)} is not there: a write of this kind answered this key success before, so it holds the scopes. ${notDone}`;
      case "there":
        return (
          `${read} answers that ${what} is there, so either ${also} is not there, or ${lacking}. ${notDone} ` +
          `To tell which, compare what the body names with what the service has, and ${scopes}.`
        );
      case "unread":
        return `Either ${missing} is not there, or ${lacking}. ${notDone} To tell which, ${scopes}.`;
    }
  }

  /**
   * The scopes of `doubted` whose listing answers 404: not disclosed to this key, or the address is not the API's root. The
   * request's own probe first, for more than one ({@link RequestSpec.disclosedBy}); a listing's own 404 is its answer.
   */
  async #undisclosed(spec: RequestSpec, doubted: readonly Scope[], path: string): Promise<Scope[]> {
    if (doubted.length === 0) return [];
    if (doubted.length > 1 && spec.disclosedBy && (await this.#shown(spec.disclosedBy, spec.method, path))) return [];
    const undisclosed: Scope[] = [];
    for (const scope of doubted) {
      const { probe } = DISCLOSURES.get(scope.id)!;
      if (spec.path === probe.path || !(await this.#shown(probe, spec.method, path))) undisclosed.push(scope);
    }
    return undisclosed;
  }

  /**
   * Whether the record a write answered 404 to is there: its read answers it. A 404 to the read is itself proven as any
   * read's (`#unlessHidden`); an error with no answer to go by is thrown, saying why the read was sent.
   */
  async #stillThere(record: RequestSpec, method: string, path: string): Promise<boolean> {
    try {
      await this.request(record, schemas().anyAnswer);
      return true;
    } catch (error) {
      if (NotFoundError.isInstance(error)) return false;
      if (error instanceof Error) {
        const read = new URL(record.path, this.settings.baseUrl).pathname;
        error.message =
          `${method} ${path} answered 404, and GET ${read}, which tells a record gone from a write refused, did not answer ` +
          `it, so nothing was read as gone: ${error.message}`;
      }
      throw error;
    }
  }

  /**
   * Whether `probe`, a listing (one record), answers: 200, or 401/403 to a key without its scopes (the service says so for a
   * scope the key lacks, so its 404s are the records'); the address answers as the workspace API then, and the scopes' 404s
   * are the records'. 404: not the API's root, or the scopes are not disclosed to this key. Sent once per client and set of
   * scopes, for the first 404 that needs it, as any request is: a 429 waited out, a 5xx or no answer retried, for neither says whose
   * the 404 was. Should the retries end without a final answer, that error is thrown (nothing is read as gone), and the next
   * such 404 asks again.
   */
  async #shown(probe: RequestSpec, method: string, path: string): Promise<boolean> {
    const kind = kindOf(probe);
    let asked = this.#probes.get(kind);
    if (!asked) {
      const spec = { ...probe };
      this.#probeSpecs.add(spec);
      const answer: Promise<boolean> = this.request(spec, schemas().anyAnswer).then(
        () => true,
        (error: unknown) => {
          const status = (error as WorkspaceAccessError).status ?? 0;
          if (status === 404) return false;
          if (status > 0 && status !== 429 && !isTransientStatus(status)) {
            this.#apiAnswered = true;
            for (const scope of probe.scopes) if (DISCLOSURES.has(scope.id)) this.#disclosed.add(scope.id);
            return true;
          }
          if (this.#probes.get(kind) === answer) this.#probes.delete(kind);
          throw error;
        },
      );
      this.#probes.set(kind, answer);
      asked = answer;
    }
    try {
      return await asked;
    } catch (error) {
      // The first 404s of many requests wait for one proof: each gets its own copy of its error, naming its own request.
      if (!(error instanceof Error)) throw error;
      const probed = new URL(probe.path, this.settings.baseUrl).pathname;
      throw withMessage(
        error,
        `${method} ${path} answered 404, and GET ${probed}, which tells a record's 404 from that of an address not the API's ` +
          `root or of a scope the key lacks, got no answer to go by, so nothing was read as gone: ${error.message}`,
      );
    }
  }

  /** `, and so did GET /api/v1/users`: the listings of `scopes` answered 404 too, but for the request's own (its answer). */
  #soDid(spec: RequestSpec, scopes: readonly Scope[]): string {
    const paths = scopes
      .map((scope) => DISCLOSURES.get(scope.id)!.probe.path)
      .filter((probe) => probe !== spec.path)
      .map((probe) => `GET ${new URL(probe, this.settings.baseUrl).pathname}`);
    return paths.length === 0 ? "" : `, and so did ${paths.join(" and ")}`;
  }

  /** "users", "integrations and users": what the scopes disclose. */
  #whatOf(scopes: readonly Scope[]): string {
    return joined(scopes.map((scope) => DISCLOSURES.get(scope.id)!.what));
  }

  /**
   * The error for a 404 before anything answered, whose address answered 404 to the listings of `undisclosed` too: the base
   * URL is not the workspace API's root, or the service does not disclose them to this key; both fixes named, the address's first.
   */
  #notTheApi(spec: RequestSpec, undisclosed: readonly Scope[], path: string): ConfigurationError {
    return new ConfigurationError(
      `${spec.method} ${path} answered 404${this.#soDid(spec, undisclosed)}, which the workspace API answers under its root ` +
        `unless it hides ${this.#whatOf(undisclosed)} from the key, so nothing was read as gone. Either ${this.#notTheRoot()} ` +
        "Or it is, and the service answers 404 (not disclosed) to a key without " +
        `${joined(undisclosed.map((scope) => scope.name))}: give ${this.#theKey()} ${describeNeeds(undisclosed)}.`,
      "baseUrl",
    );
  }

  /**
   * `<base URL> is not the workspace's API root: check …`: the base URL's setting, or, for an address built from a workspace
   * and a host, those two (neither is a URL, so no example of one is the fix) and the setting giving it whole instead.
   */
  #notTheRoot(): string {
    const base = this.settings.baseUrl.href;
    const built = this.deps.addressBuiltFrom;
    const whole = this.setting("baseUrl") ?? "the base URL";
    if (!built) {
      return (
        `${base} is not the workspace's API root: check ${whole}, it should be the API root, such as ` + "https://acme.example.com/api/v1/."
      );
    }
    return `${base}, ${builtAddress(built)}, is not the workspace's API root: ${builtAddressFix(whole)}.`;
  }

  /** The address as its user set it: the base URL's setting, or, built from a workspace and a host (neither a URL), the URL built. */
  #theAddress(): string {
    const built = this.deps.addressBuiltFrom;
    return built ? builtAddress(built) : (this.setting("baseUrl") ?? "the address");
  }

  /**
   * The error for a 404 to a `GET` needing a read scope, after the address answered, whose scope's listing answered 404 too:
   * the service does not disclose those records to this key (its 404 for a missing scope), so the 404 is no proof of absence.
   */
  #notDisclosed(spec: RequestSpec, undisclosed: readonly Scope[], path: string): ConfigurationError {
    return new ConfigurationError(
      `${spec.method} ${path} answered 404${this.#soDid(spec, undisclosed)}, though ${this.settings.baseUrl.href} answers as ` +
        `the workspace API: the service does not disclose ${this.#whatOf(undisclosed)} to this key (it answers 404, not ` +
        "disclosed, for a scope the key lacks), so nothing was read as gone. Give " +
        `${this.#theKey()} ${describeNeeds(undisclosed)}; ${this.#theAddress()} is the API root already.`,
      "apiKey",
    );
  }

  /**
   * The error for a write answered 404 whose record its read answers: the service refused the write as "not disclosed", for a
   * scope the key lacks (which of the write's, a 404 does not say), and nothing is read as gone.
   */
  #writeRefused(spec: RequestSpec, path: string): ConfigurationError {
    const read = new URL(spec.record!.path, this.settings.baseUrl).pathname;
    return new ConfigurationError(
      `${spec.method} ${path} answered 404, but GET ${read} answers that it is there: the service answers 404 (not disclosed) ` +
        "to a key lacking a scope, so the write was refused, not done, and nothing was read as gone. This write needs " +
        `${describeNeeds(spec.scopes, spec.job)}: give ${this.#theKey()} those it lacks.`,
      "apiKey",
    );
  }

  /** The URL of `spec`; refuses one outside the workspace (a `links.next` must not take the key elsewhere). */
  #url(spec: RequestSpec): URL {
    const base = this.settings.baseUrl;
    const url = new URL(spec.path, base);
    if (url.origin !== base.origin) {
      const message = `Refusing to follow a link to ${url.origin}: the API key is only sent to ${base.origin}`;
      throw new InvalidResponseError(message, { method: spec.method, path: url.pathname, status: 0, field: "links" });
    }
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** Sends the request and reads the whole answer; no answer raises a {@link ConnectionError} or {@link TimeoutError}. */
  async #send(spec: RequestSpec, url: URL): Promise<RawResponse> {
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers = body === undefined ? this.#headers : this.#jsonHeaders;
    // `requestTimeoutSeconds` bounds the whole exchange: undici's `bodyTimeout` alone bounds each gap between chunks, and an
    // answer trickled a byte at a time would never end. On the client's clock (`setTimeout`'s for a clock without a timer).
    const deadline = new AbortController();
    const cancel = timerOf(this.deps.clock)(this.settings.requestTimeoutSeconds * 1000, () => deadline.abort());
    try {
      const options = { method: spec.method, path: url.pathname + url.search, headers, body, signal: deadline.signal };
      const res = await undici().request.call(this.#pool, options);
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    } catch (cause) {
      throw this.#noAnswer(cause, spec.method, url.pathname, deadline.signal.aborted);
    } finally {
      cancel();
    }
  }

  /** The body parsed with `schema`; a body that is not JSON or not of the contract's shape raises {@link InvalidResponseError}. */
  #parse<S extends z.ZodType>(schema: S, raw: RawResponse, method: string, path: string): z.infer<S> {
    const { status } = raw;
    // A write answered success has landed whatever its body: the caller must not take the failure to read it for a failed write.
    const landed = method === "GET" ? "" : ` ${acceptedUnread(status)}`;
    const invalid = (what: string, field: string) =>
      new InvalidResponseError(`${method} ${path} answered ${status} with a body that ${what}.${landed}`, { method, path, status, field });
    let json: unknown;
    try {
      json = JSON.parse(raw.text);
    } catch {
      // Redacted before it is cut and escaped: a cut key, or an escaped one, is no longer the key.
      throw invalid(`is not JSON (${JSON.stringify(this.redact(raw.text).slice(0, 80))})`, "");
    }
    // A record that echoes the key (a gateway's copy, a key pasted into a name) holds "[redacted]" there instead, once every
    // escape is decoded (a serializer's `\/` or `\u0077` hides the key from a search of the text); nothing else changes.
    if (this.#mayEchoKey(raw.text)) json = redactDeep(json, this.#redactValue);
    const result = schema.safeParse(json);
    if (result.success) return result.data;
    const { field, said } = contractIssue(result.error.issues);
    throw invalid(said, field);
  }

  /** The error for a request that got no answer: refused by undici before it was sent, timed out, or a connection failure. */
  #noAnswer(cause: unknown, method: string, path: string, timedOut: boolean): WorkspaceAccessError {
    const { errors } = undici();
    if (cause instanceof errors.InvalidArgumentError) {
      const message = `${method} ${path} could not be sent: ${cause.message}. Check the API key and base URL for stray characters.`;
      return new ConfigurationError(message, "apiKey");
    }
    const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "";
    const detail = this.redact(cause instanceof Error ? cause.message : String(cause));
    // Keep a plain copy as the cause: undici errors can hold sockets and request options.
    const context = { retryable: true, method, path, cause: new Error(code ? `${code}: ${detail}` : detail) };
    const ambiguity = method === "POST" ? " A POST that fails this way may or may not have been carried out." : "";
    const { HeadersTimeoutError, BodyTimeoutError, ConnectTimeoutError } = errors;
    if (timedOut || cause instanceof HeadersTimeoutError || cause instanceof BodyTimeoutError || cause instanceof ConnectTimeoutError) {
      const seconds = this.settings.requestTimeoutSeconds;
      const message = `${method} ${path} got no complete answer within ${seconds} s${this.#settingAfter("requestTimeoutSeconds")}.${ambiguity}`;
      return new TimeoutError(message, { kind: "timeout", ...context });
    }
    const origin = this.settings.baseUrl.origin;
    const untrusted = UNTRUSTED_CERTIFICATE[code];
    if (untrusted) {
      // The handshake failed: nothing was sent, and the same certificate comes back on every retry.
      const message = `${method} ${path} was not sent: the server's certificate at ${origin} is not trusted (${code}): ${untrusted}.`;
      return new ConnectionError(message, { kind: "connection", ...context, retryable: false });
    }
    const reach = `check that ${origin} is reachable.${ambiguity}`;
    const message = `${method} ${path} failed before an answer arrived (${code || detail}): ${reach}`;
    return new ConnectionError(message, { kind: "connection", ...context });
  }

  #log(message: string): void {
    this.deps.logger?.(this.redact(message));
  }
}
