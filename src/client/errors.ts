/**
 * The one error hierarchy of the client. Every error carries data (kind, status, method, path,
 * the API's own code/title/detail, whether a retry may help) and a message a person can act on.
 * No error ever holds the API key, request headers, or a live socket: `cause` is a plain copy.
 */

import { redactDeep } from "./redact";
import { schemas } from "./schemas";

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

/** Fields shared by the errors of one HTTP exchange. */
export interface ErrorContext {
  kind: ErrorKind;
  retryable?: boolean;
  method?: string;
  /** The request path, without its query string. */
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

  /**
   * True when `value` is an error of this class, even when it was raised by another copy of this
   * package (a program and the dynamic-provider host can load different copies).
   */
  static isInstance<T>(this: { readonly KINDS: readonly ErrorKind[] | undefined; prototype: T }, value: unknown): value is T {
    if (typeof value !== "object" || value === null || !(MARKER in value)) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass asked, e.g. NotFoundError.
    return this.KINDS === undefined || this.KINDS.includes((value as unknown as WorkspaceAccessError).kind);
  }
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

/** The first entry of the API's `errors` array, as far as it was readable. */
export interface ApiErrorBody {
  code?: string;
  title?: string;
  detail?: string;
  meta?: unknown;
}

/** Context of an error answer: the request and what the service said. */
export interface ApiErrorContext {
  method: string;
  path: string;
  status: number;
  body?: ApiErrorBody;
  requestId?: string;
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
  override readonly status: number;
  override readonly method: string;
  override readonly path: string;

  constructor(message: string, context: ApiErrorContext, kind: ErrorKind, retryable = false) {
    super(message, { kind, retryable, method: context.method, path: context.path, status: context.status });
    this.status = context.status;
    this.method = context.method;
    this.path = context.path;
    this.code = context.body?.code;
    this.title = context.body?.title;
    this.detail = context.body?.detail;
    this.meta = context.body?.meta ?? undefined;
    this.requestId = context.requestId;
  }
}

/** 400: the request was malformed. */
export class BadRequestError extends ApiError {
  static override readonly KINDS = ["bad_request"] as const;
}
/** 401: key missing, expired or revoked, or lacking the scope the operation needs. */
export class UnauthorizedError extends ApiError {
  static override readonly KINDS = ["unauthorized"] as const;
}
/** 402: the service's "unknown failure". */
export class UnknownFailureError extends ApiError {
  static override readonly KINDS = ["unknown_failure"] as const;
}
/** 403: the key may not do this. */
export class ForbiddenError extends ApiError {
  static override readonly KINDS = ["forbidden"] as const;
}
/** 404: not found, or not disclosed to this key. */
export class NotFoundError extends ApiError {
  static override readonly KINDS = ["not_found"] as const;
}
/** 409: conflicts with the current state, e.g. an email already taken. */
export class ConflictError extends ApiError {
  static override readonly KINDS = ["conflict"] as const;
}
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
}

/** 5xx answers (but 501) are treated as transient (contract: "not specified; treat as transient"). */
export function isTransientStatus(status: number): boolean {
  return status >= 500 && status !== 501;
}

/**
 * The first entry of an error answer's `errors`, redacted; `undefined` when there is none to read.
 * The key is removed from the text before it is parsed (as it appears in JSON, escaped), and from
 * every parsed string again (an escape the text's redaction could not see): a body whose JSON the
 * redaction broke is not read at all, rather than read with the key in it.
 */
export function readErrorBody(text: string, redact: (text: string) => string): ApiErrorBody | undefined {
  let json: unknown;
  try {
    json = JSON.parse(redact(text));
  } catch {
    return undefined;
  }
  const parsed = schemas().errorBody.safeParse(json);
  const first = parsed.success ? parsed.data.errors?.[0] : undefined;
  if (!first) return undefined;
  const said = (v: unknown) => (v === null || v === undefined ? undefined : redact(String(v)));
  // `meta` can echo request parts (validation details name headers and their input): every
  // string of it redacted as a value, never as JSON text (where the key would be escaped).
  const meta = first.meta === undefined ? undefined : redactDeep(first.meta, redact);
  return { code: said(first.code), title: said(first.title), detail: said(first.detail), meta };
}

/** The request and answer an error status is read from. */
export interface ErrorAnswer {
  method: string;
  path: string;
  status: number;
  /** What the service said in its `errors` array, if anything readable. */
  body: ApiErrorBody | undefined;
  requestId: string | undefined;
  /** The scopes the operation needs, as {@link describeScopes} names them. */
  scopes: string;
  /** Removes the API key from a message. */
  redact: (text: string) => string;
}

/**
 * The error for an error status (not 429: see the transport, where its wait is handled): one row
 * per status of the contract, each with its class and what to do about it.
 */
export function errorForStatus(answer: ErrorAnswer): ApiError {
  const { method, path, status, body, requestId, scopes } = answer;
  const context: ApiErrorContext = { method, path, status, ...(body ? { body } : {}), ...(requestId === undefined ? {} : { requestId }) };
  const said = body?.detail ?? body?.title;
  const head = `${method} ${path} answered ${status}${said ? `: ${said.replace(/\.?$/, ".")}` : "."}`;
  const message = (hint: string) => answer.redact(`${head} ${hint}`.trim());
  switch (status) {
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
      return new UnknownFailureError(
        message("The service reports an unknown failure; try again later, or contact its support."),
        context,
        "unknown_failure",
      );
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
      if (isTransientStatus(status)) {
        const ambiguity = method === "POST" ? " The request may or may not have been carried out." : "";
        return new ServerError(message(`The service failed.${ambiguity}`), context, "server_error", true);
      }
      return new ApiError(message(""), context, "api_error");
    }
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

/** The connection failed or was reset before a full answer arrived. */
export class ConnectionError extends WorkspaceAccessError {
  static override readonly KINDS = ["connection"] as const;
}
/** No (complete) answer within `requestTimeoutSeconds`. */
export class TimeoutError extends WorkspaceAccessError {
  static override readonly KINDS = ["timeout"] as const;
}

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

/** The details a failed job gives. */
export interface JobErrorDetails {
  errorType?: string | null | undefined;
  userRequired?: boolean | null | undefined;
  screenshotUrl?: string | null | undefined;
}

/** A job ended in `error`. */
export class JobFailedError extends WorkspaceAccessError {
  static override readonly KINDS = ["job_failed"] as const;
  readonly jobId: string;
  readonly errorDetails: JobErrorDetails;
  readonly canRetry: boolean | undefined;
  /** `redact` removes the API key from what the service said (its texts are kept on the error). */
  constructor(
    jobId: string,
    errorDetails: JobErrorDetails,
    canRetry?: boolean,
    workflowType?: string,
    redact: (text: string) => string = (text) => text,
  ) {
    const details = redactDeep(errorDetails, redact) as JobErrorDetails;
    const what = workflowType ? `${redact(workflowType)} job` : "job";
    const type = details.errorType ?? "unknown error";
    const person = details.userRequired ? "a person must act in the workspace before it can succeed" : "no person needs to act";
    const retry = canRetry ? "; the service says it can be retried" : "";
    super(redact(`The ${what} ${jobId} failed with ${type} (userRequired: ${Boolean(details.userRequired)}: ${person})${retry}.`), {
      kind: "job_failed",
    });
    this.jobId = redact(jobId);
    this.errorDetails = details;
    this.canRetry = canRetry;
  }
}

/** A job did not finish within the allowed time. */
export class JobTimeoutError extends WorkspaceAccessError {
  static override readonly KINDS = ["job_timeout"] as const;
  readonly jobId: string;
  readonly lastStatus: string;
  /** `redact` removes the API key from what the service said. */
  constructor(
    jobId: string,
    lastStatus: string,
    timeoutSeconds: number,
    setting: string,
    redact: (text: string) => string = (text) => text,
  ) {
    super(
      redact(
        `The job ${jobId} did not finish within ${timeoutSeconds} s (last status: ${lastStatus}). It may still finish: check it with getJob, or raise ${setting}.`,
      ),
      { kind: "job_timeout", retryable: true },
    );
    this.jobId = redact(jobId);
    this.lastStatus = redact(lastStatus);
  }
}

/**
 * True for failures after which a write may or may not have happened: no (complete) answer, or a
 * 5xx. A POST failing this way must not be sent again before checking what it did.
 */
export function isAmbiguous(error: unknown): boolean {
  return ConnectionError.isInstance(error) || TimeoutError.isInstance(error) || ServerError.isInstance(error);
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
