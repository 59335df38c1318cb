/**
 * Request bodies checked with zod, every problem collected before failing, so a 400 lists them all
 * in the service's words (its validation layer is pydantic's: `loc`, `msg`, `type`) instead of only
 * the first. Each field's schema says its message; the type follows from the message.
 */
import { z } from "zod";
import { ApiError, type ValidationIssue } from "./errors";

/** A loose but real email shape: something@something.tld, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** A UUID of any version, any case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const MISSING = "field required";
/** Each message the fields give, with the service's type for it. */
const TYPES: Readonly<Record<string, string>> = {
  [MISSING]: "value_error.missing",
  "value is not a valid dict": "type_error.dict",
  "str type expected": "type_error.str",
  "ensure this value has at least 1 characters": "value_error.any_str.min_length",
  "value is not a valid email address": "value_error.email",
  "value could not be parsed to a boolean": "type_error.bool",
  "value is not a valid list": "type_error.list",
  "value is not a valid uuid": "type_error.uuid",
  "ensure this value has at least 1 items": "value_error.list.min_items",
};
const ENUM = "value is not a valid enumeration member";

/**
 * With `unknownQuery: "refuse"`: a query parameter the route does not take (`known`) answers 400 naming it, each one, as a
 * service that validates its query would; the contract assumes they are ignored.
 */
export function refuseUnknownQuery(query: URLSearchParams, known: readonly string[] = []): void {
  const unknown = [...new Set(query.keys())].filter((name) => !known.includes(name));
  if (unknown.length === 0) return;
  throw ApiError.validation(
    unknown.map((name) => ({ loc: ["query", name], msg: "extra fields not permitted", type: "value_error.extra" })),
  );
}

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The message of a field that is absent (or null), else `message`. */
const orMissing = (message: string) => (issue: { input?: unknown }) =>
  issue.input === undefined || issue.input === null ? MISSING : message;

/** The fields of the contract's bodies, each with the service's message. @internal */
export const field = {
  /** An object; absent, "field required". */
  object: <S extends z.core.$ZodLooseShape>(shape: S) => z.object(shape, { error: orMissing("value is not a valid dict") }),
  /** Text, not blank. */
  string: () =>
    z.string({ error: orMissing("str type expected") }).refine((value) => value.trim() !== "", {
      error: "ensure this value has at least 1 characters",
      abort: true,
    }),
  /** Anything: a field this request does not read. */
  ignored: () => z.unknown().optional(),
  /** Text, if given (blank allowed). */
  optionalString: () => z.string({ error: "str type expected" }).nullish(),
  email: () => field.string().refine((value) => EMAIL.test(value) && value.length <= 254, { error: "value is not a valid email address" }),
  /** One of `allowed`. */
  oneOf: <T extends string>(allowed: readonly T[]) =>
    field
      .string()
      .refine((value): value is T => (allowed as readonly string[]).includes(value), {
        error: `${ENUM}; permitted: ${allowed.map((a) => `'${a}'`).join(", ")}`,
      })
      .transform((value) => value as T),
  /** A boolean; absent or null, "field required". */
  boolean: () => z.boolean({ error: orMissing("value could not be parsed to a boolean") }),
  /** A boolean, if given. */
  optionalBoolean: () => z.boolean({ error: "value could not be parsed to a boolean" }).nullish(),
  /** A list of `{ id }` objects, read as the ids, each once. */
  idObjects: () =>
    z
      .array(field.object({ id: field.string() }), { error: orMissing("value is not a valid list") })
      .transform((items) => [...new Set(items.map((item) => item.id))]),
  /** A non-empty list of UUIDs, each once. */
  uuids: () =>
    z
      .array(z.string({ error: "value is not a valid uuid" }).regex(UUID, { error: "value is not a valid uuid" }), {
        error: orMissing("value is not a valid list"),
      })
      .min(1, { error: "ensure this value has at least 1 items" })
      .transform((ids) => [...new Set(ids)]),
};

/** The body checked by `schema`, or a 400 listing every issue (each located under `body`). @internal */
export function parseBody<T extends z.ZodType>(schema: T, body: Record<string, unknown>): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues: ValidationIssue[] = parsed.error.issues.map((issue) => ({
    loc: ["body", ...issue.path.map((part) => (typeof part === "number" ? part : String(part)))],
    msg: issue.message,
    type: TYPES[issue.message] ?? (issue.message.startsWith(ENUM) ? "type_error.enum" : "value_error"),
  }));
  throw ApiError.validation(issues);
}

/** `application/json` or a `+json` type, with or without parameters (`; charset=utf-8`), in any case. */
const JSON_MEDIA_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * The 400 for a body sent without `Content-Type: application/json` (the contract: bodies are JSON with
 * that header). The public document lists no 415 for any operation, only 400 for a request it cannot
 * interpret, so a missing or other media type is a validation issue located at the header (assumed).
 */
export function requireJsonContentType(contentType: string | undefined): void {
  if (contentType !== undefined && JSON_MEDIA_TYPE.test(contentType.trim())) return;
  const issue: ValidationIssue =
    contentType === undefined || contentType.trim() === ""
      ? {
          loc: ["header", "content-type"],
          msg: "field required: send a JSON body with Content-Type: application/json",
          type: "value_error.missing",
        }
      : {
          loc: ["header", "content-type"],
          msg: `unsupported media type '${contentType}': send a JSON body with Content-Type: application/json`,
          type: "value_error.media_type",
        };
  throw ApiError.validation([issue]);
}

/** The issue for a body that is missing or not JSON. */
export function requireJsonBody(body: unknown, invalidJson: boolean): Record<string, unknown> {
  if (invalidJson) {
    throw ApiError.validation([{ loc: ["body"], msg: "Expecting a JSON document", type: "value_error.jsondecode" }]);
  }
  if (body === undefined) {
    throw ApiError.validation([{ loc: ["body"], msg: "field required", type: "value_error.missing" }]);
  }
  if (!isObject(body)) {
    throw ApiError.validation([{ loc: ["body"], msg: "value is not a valid dict", type: "type_error.dict" }]);
  }
  return body;
}
