/**
 * Error answers in the public document's `error` schema:
 * `{ errors: [{ code, title, detail, status, meta }] }` with `status` a number and `meta`
 * `null` or an object. `code` and `title` copy the document's examples ("Not found", ...).
 */
import { STATUS_CODES } from "node:http";

/** A validation problem, in the `loc`/`msg`/`type` style the contract names. */
export interface ValidationIssue {
  /** Where the problem is, e.g. `["body", "data", "attributes", "email"]` or `["query", "page[size]"]`. */
  loc: Array<string | number>;
  msg: string;
  type: string;
}

/** One entry of an error body. */
interface ErrorEntry {
  code: string;
  title: string;
  detail: string;
  status: number;
  meta: Record<string, unknown> | null;
}

/** The whole error body. */
interface ErrorBody {
  errors: ErrorEntry[];
}

/** Titles of the document's examples, and ours for the statuses it does not show. */
const TITLES: Record<number, string> = {
  400: "Bad request",
  401: "Unauthorized",
  402: "Unknown failure",
  403: "Forbidden",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict",
  413: "Payload too large",
  429: "Too many requests",
  500: "Internal server error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

/** The title (also used as `code`) for a status. */
function titleFor(status: number): string {
  return TITLES[status] ?? STATUS_CODES[status] ?? "Error";
}

/** Builds a one-entry error body. */
export function errorBody(status: number, detail: string, meta: Record<string, unknown> | null = null): ErrorBody {
  const title = titleFor(status);
  return { errors: [{ code: title, title, detail, status, meta }] };
}

/** Builds a 400 body with one entry per validation issue, each issue in its entry's `meta`. */
function validationBody(issues: readonly ValidationIssue[]): ErrorBody {
  const title = titleFor(400);
  return {
    errors: issues.map((issue) => ({
      code: title,
      title,
      detail: `${issue.loc.join(".")}: ${issue.msg}`,
      status: 400,
      meta: { loc: issue.loc, msg: issue.msg, type: issue.type },
    })),
  };
}

/**
 * Thrown by handlers to answer an error; the server turns it into a response. Extra headers
 * (e.g. `Allow`) ride along.
 */
export class ApiError extends Error {
  /** The HTTP status to answer. */
  readonly status: number;
  /** The body to answer. */
  readonly body: ErrorBody;
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  constructor(status: number, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.errors.map((e) => e.detail).join("; "));
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  /** An error with one entry. */
  static of(status: number, detail: string, meta: Record<string, unknown> | null = null, headers: Record<string, string> = {}): ApiError {
    return new ApiError(status, errorBody(status, detail, meta), headers);
  }

  /** A 400 carrying validation issues, one error entry each. */
  static validation(issues: readonly ValidationIssue[]): ApiError {
    return new ApiError(400, validationBody(issues));
  }

  /** A 404 for a missing thing. */
  static notFound(detail: string): ApiError {
    return ApiError.of(404, detail);
  }

  /** A 409 for a conflicting write. */
  static conflict(detail: string, meta: Record<string, unknown> | null = null): ApiError {
    return ApiError.of(409, detail, meta);
  }
}
