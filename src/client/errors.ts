/** The client's one error hierarchy: data (kind, request, status, the API's words, retryable) and a message to act on; never a secret or socket. */
import type { Job, JobDeadline } from "./models";
import { redactDeep } from "./redact";

/** What went wrong, as a stable string: switch on this rather than on classes across copies of the package. */
export type ErrorKind =
  | "configuration"
  | "bad_request"
  | "unauthorized"
  | "unknown_failure"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "rate_limited"
  | "server_error"
  | "api_error"
  | "connection"
  | "timeout"
  | "invalid_response"
  | "job_failed"
  | "job_timeout"
  /** A lookup (`getUser`, `getIntegration`, ...) matched nothing, matched several, or was asked wrongly. */
  | "lookup_not_found"
  | "lookup_ambiguous"
  | "lookup_arguments";

const MARKER = Symbol.for("pulumi-workspace-access/error");

/** Fields shared by the errors of one HTTP exchange (`path` without its query string). */
export interface ErrorContext {
  kind: ErrorKind;
  retryable?: boolean;
  method?: string;
  path?: string;
  status?: number;
  cause?: unknown;
}

/** Base class of every error this package raises. */
export class WorkspaceAccessError extends Error {
  /** Which failure this is, see {@link ErrorKind}. */
  readonly kind: ErrorKind;
  /** Whether the same request may succeed if sent again later. */
  readonly retryable: boolean;
  /** HTTP method of the failed request, if any. */
  readonly method: string | undefined;
  /** Path of the failed request (no query), if any. */
  readonly path: string | undefined;
  /** HTTP status, if the service answered. */
  readonly status: number | undefined;
  /** The kinds a class stands for (all, when undefined); used by {@link WorkspaceAccessError.isInstance}. */
  static readonly KINDS: readonly ErrorKind[] | undefined = undefined;

  constructor(message: string, context: ErrorContext) {
    super(message, context.cause === undefined ? undefined : { cause: context.cause });
    this.name = new.target.name;
    this.kind = context.kind;
    this.retryable = context.retryable ?? false;
    this.method = context.method;
    this.path = context.path;
    this.status = context.status;
    Object.defineProperty(this, MARKER, { value: true });
  }

  /** True when `value` is an error of this class, even one raised by another copy of this package (program and host may load two). */
  static isInstance<T>(this: { readonly KINDS: readonly ErrorKind[] | undefined; prototype: T }, value: unknown): value is T {
    if (typeof value !== "object" || value === null || !(MARKER in value)) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass asked, e.g. NotFoundError.
    return this.KINDS === undefined || ("kind" in value && this.KINDS.includes(value.kind as ErrorKind));
  }
}

/** A subclass of `base` standing for one `kind`: the classes of this file that differ only by their kind. */
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base must take any arguments.
function ofKind<B extends new (...args: any[]) => WorkspaceAccessError>(base: B, kind: ErrorKind): B {
  return class extends base {
    static readonly KINDS: readonly ErrorKind[] = [kind];
  };
}

/** A setting is missing or invalid; `setting` names it. Never retryable. */
export class ConfigurationError extends WorkspaceAccessError {
  static override readonly KINDS = ["configuration"] as const;
  /** The setting at fault, e.g. `baseUrl`. */
  readonly setting: string;
  constructor(message: string, setting: string) {
    super(message, { kind: "configuration" });
    this.setting = setting;
  }
}

/**
 * Context of an error answer: the request, and what the service said in the first entry of its `errors` array (as far as
 * readable); `more`: each further entry's words, when it listed several (a 400 with a problem per entry).
 */
export interface ApiErrorContext {
  method: string;
  path: string;
  status: number;
  body?: { code?: string; title?: string; detail?: string; meta?: unknown; more?: string[] };
  requestId?: string;
  /** A 5xx's `Retry-After`, in milliseconds, when it said one (kept by {@link ServerError}). */
  retryAfterMs?: number;
}

/** The service answered with an error status. Subclasses name the common statuses. */
export class ApiError extends WorkspaceAccessError {
  static override readonly KINDS: readonly ErrorKind[] = [
    "api_error",
    "bad_request",
    "unauthorized",
    "unknown_failure",
    "forbidden",
    "not_found",
    "conflict",
    "rate_limited",
    "server_error",
  ];
  /** The API's error code, e.g. `Not found`. */
  readonly code: string | undefined;
  /** The API's error title. */
  readonly title: string | undefined;
  /** The API's explanation, when it gave one. */
  readonly detail: string | undefined;
  /** The API's `meta`, e.g. validation details (`loc`, `msg`, `type`). */
  readonly meta: unknown;
  /** The request id the service returned, when it did (useful to its support). */
  readonly requestId: string | undefined;
  declare readonly status: number;
  declare readonly method: string;
  declare readonly path: string;

  /** `kind`: the class's own by default; a 5xx may be retried. */
  constructor(message: string, context: ApiErrorContext, kind = new.target.KINDS[0] ?? "api_error", retryable = kind === "server_error") {
    super(message, { kind, retryable, method: context.method, path: context.path, status: context.status });
    this.code = context.body?.code;
    this.title = context.body?.title;
    this.detail = context.body?.detail;
    this.meta = context.body?.meta ?? undefined;
    this.requestId = context.requestId;
  }
}

/** 400: the request was malformed. */
export class BadRequestError extends ofKind(ApiError, "bad_request") {}
/** 401: key missing, expired or revoked, or lacking the scope the operation needs. */
export class UnauthorizedError extends ofKind(ApiError, "unauthorized") {}
/** 402: the service's "unknown failure". */
export class UnknownFailureError extends ofKind(ApiError, "unknown_failure") {}
/** 403: the key may not do this. */
export class ForbiddenError extends ofKind(ApiError, "forbidden") {}
/** 404: not found, or not disclosed to this key. */
export class NotFoundError extends ofKind(ApiError, "not_found") {
  /**
   * A write's 404: `true` when a write of its kind answered this key success before, so the key holds the write's scopes and
   * the 404 is what the write names (its record, or a record its body names), never a service's answer to a missing scope.
   * `false`: not known (any other 404).
   */
  readonly scopesHeld: boolean;

  constructor(message: string, context: ApiErrorContext & { scopesHeld?: boolean }) {
    super(message, context);
    this.scopesHeld = context.scopesHeld === true;
  }
}
/** 409: conflicts with the current state, e.g. an email already taken. */
export class ConflictError extends ofKind(ApiError, "conflict") {}
/** 429: rate limited, and waiting was not possible within the configured limits. */
export class RateLimitError extends ApiError {
  static override readonly KINDS = ["rate_limited"] as const;
  /** How long the service asked to wait, in milliseconds (300 000 when it did not say). */
  readonly retryAfterMs: number;
  constructor(message: string, context: ApiErrorContext, retryAfterMs: number) {
    super(message, context, "rate_limited", true);
    this.retryAfterMs = retryAfterMs;
  }
}
/** 5xx: the service failed; usually transient. */
export class ServerError extends ApiError {
  static override readonly KINDS = ["server_error"] as const;
  /** How long its `Retry-After` asked to wait before asking again (a 503 in maintenance), in milliseconds; `undefined` when it said none. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, context: ApiErrorContext) {
    super(message, context, "server_error");
    this.retryAfterMs = context.retryAfterMs;
  }
}

/** 5xx answers but 501 are transient (contract: "not specified; treat as transient"). */
export function isTransientStatus(status: number): boolean {
  return status >= 500 && status !== 501;
}

/** The connection failed or was reset before a full answer arrived. */
export class ConnectionError extends ofKind(WorkspaceAccessError, "connection") {}
/** No (complete) answer within `requestTimeoutSeconds`. */
export class TimeoutError extends ofKind(WorkspaceAccessError, "timeout") {}

/** The first issue of a failed parse: its dotted field (below `prefix`), and `does not match the API contract: field "…": why`. */
export function contractIssue(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>, prefix: readonly string[] = []) {
  const field = [...prefix, ...(issues[0]?.path ?? []).map(String)].join(".");
  return { field, said: `does not match the API contract: field "${field || "(root)"}": ${issues[0]?.message ?? "invalid"}` };
}

/** What a write's success answer that could not be read adds to its error: every 2xx is success, so the write landed. */
export const acceptedUnread = (status: number): string =>
  `The write was accepted (${status}), but its answer could not be read: read back what it changed.`;

/** The answer did not match the contract: not JSON, or a field missing or of the wrong type. */
export class InvalidResponseError extends WorkspaceAccessError {
  static override readonly KINDS = ["invalid_response"] as const;
  /** Dotted path of the first failing field, e.g. `data.attributes.email`; empty for a non-JSON body. */
  readonly field: string;
  constructor(message: string, context: { method: string; path: string; status: number; field: string }) {
    super(message, { kind: "invalid_response", method: context.method, path: context.path, status: context.status });
    this.field = context.field;
  }
}

/** A job ended in `error`. */
export class JobFailedError extends WorkspaceAccessError {
  static override readonly KINDS = ["job_failed"] as const;
  readonly jobId: string;
  /** What the service said of the failure (`{}` when it said nothing). */
  readonly errorDetails: Partial<NonNullable<Job["errorDetails"]>>;
  readonly canRetry: boolean | undefined;
  /** `redact` removes the API key from what the service said (its texts are kept on the error). */
  constructor(job: Job, redact: (text: string) => string) {
    const details = redactDeep(job.errorDetails ?? {}, redact) as JobFailedError["errorDetails"];
    const what = job.workflowType ? `${redact(job.workflowType)} job` : "job";
    const type = details.errorType ?? "unknown error";
    const person = details.userRequired ? "a person must act in the workspace before it can succeed" : "no person needs to act";
    const retry = job.canRetry ? "; the service says it can be retried" : "";
    const message = `The ${what} ${job.id} failed with ${type} (userRequired: ${Boolean(details.userRequired)}: ${person})${retry}.`;
    super(redact(message), { kind: "job_failed" });
    this.jobId = redact(job.id);
    this.errorDetails = details;
    this.canRetry = job.canRetry ?? undefined;
  }
}

/** The contract's statuses of a job not done yet. */
const JOB_STATUSES_NOT_DONE: readonly string[] = ["created", "started", "running", "retrying"];

/** What to do about a job that did not finish in time, whose status was last read as `lastStatus` (`null`: never read). */
function timeoutAdvice(lastStatus: string | null, check: string): string {
  if (lastStatus === null) return `It may still finish, or be done already: ${check}.`;
  if (JOB_STATUSES_NOT_DONE.includes(lastStatus)) return `It may still finish: ${check}.`;
  // A status the contract does not list (it may be an end, e.g. "cancelled"): said, rather than promising it may finish.
  const listed = [...JOB_STATUSES_NOT_DONE, "finished", "error"].join(", ");
  return (
    `That status is not one the contract lists (${listed}): the job may have ended without saying so. Check it with getJob, ` +
    "and in the service, before running again."
  );
}

/** A job did not finish within the allowed time. */
export class JobTimeoutError extends WorkspaceAccessError {
  static override readonly KINDS = ["job_timeout"] as const;
  readonly jobId: string;
  /**
   * The job's status as last read: by a poll, or in the answer of the write that started it; `null` when none was (a wait
   * called by the job's id, or for a write answered without one, that ended before any poll was answered).
   */
  readonly lastStatus: string | null;
  /**
   * `setting`: the wait's setting as the user sets it (undefined: not one that set this wait, so not advised); `redact`
   * removes the API key from what the service said. `deadline`: the wait ended at the caller's end (a resource's
   * `customTimeouts`), which the message names instead of `timeoutSeconds` and `setting`.
   */
  constructor(
    jobId: string,
    lastStatus: string | null,
    timeoutSeconds: number,
    setting: string | undefined,
    redact: (text: string) => string,
    deadline?: JobDeadline,
  ) {
    const within = deadline ? deadline.within : `${timeoutSeconds} s`;
    const status = lastStatus === null ? "its status is not known: no poll read it" : `last status: ${lastStatus}`;
    const late = `The job ${jobId} did not finish within ${within} (${status}).`;
    const raise = deadline ? deadline.raise : setting;
    const check = `check it with getJob${raise === undefined ? "" : `, or raise ${raise}`}`;
    super(redact(`${late} ${timeoutAdvice(lastStatus, check)}`), { kind: "job_timeout", retryable: true });
    this.jobId = redact(jobId);
    this.lastStatus = lastStatus === null ? null : redact(lastStatus);
  }
}

/** A copy of `error` (same class and data) saying `message`: an error several operations share is never changed in place. */
export function withMessage<E extends Error>(error: E, message: string): E {
  const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as E;
  copy.message = message;
  return copy;
}

/** What `error` said, without its last full stop: to be quoted inside another message, "... failed (<reason>)." */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\.$/, "") : String(error);
}

/** True for failures after which a write may or may not have happened (no complete answer, a 5xx): check before sending a POST again. */
export function isAmbiguous(error: unknown): boolean {
  return ConnectionError.isInstance(error) || TimeoutError.isInstance(error) || ServerError.isInstance(error);
}

/**
 * True for a write answered success with a body that could not be read (not JSON, or not the contract's shape): it landed
 * all the same (every 2xx is success), but what it made (a user, a job) is unknown: read back what it changed.
 */
export function isUnreadableSuccess(error: unknown): error is InvalidResponseError {
  return InvalidResponseError.isInstance(error) && error.status !== undefined && error.status >= 200 && error.status < 300;
}

/** The value, or `undefined` when the service answered 404: for reads and deletes where "gone" is an answer. */
export async function unlessNotFound<T>(operation: Promise<T>): Promise<T | undefined> {
  try {
    return await operation;
  } catch (error) {
    if (NotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}
