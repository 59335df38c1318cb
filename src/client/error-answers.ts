/** How an error answer becomes an error of the client: its `errors` body read and redacted, a row per status. */
import {
  ApiError,
  type ApiErrorContext,
  isTransientStatus,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServerError,
  UnauthorizedError,
  UnknownFailureError,
} from "./errors";
import { redactDeep } from "./redact";
import { schemas } from "./schemas";
import { type AddressParts, builtAddress, builtAddressFix } from "./settings";

/**
 * The first entry of an error answer's `errors`, every parsed string redacted (parsed first: redacting the text could cut
 * a string's quote or escape, and the body would be lost); `undefined`: none to read.
 */
export function readErrorBody(text: string, redact: (text: string) => string): ApiErrorContext["body"] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schemas().errorBody.safeParse(json);
  const [first, ...others] = parsed.success ? (parsed.data.errors ?? []) : [];
  if (!first) return undefined;
  const said = (v: unknown) => (v === null || v === undefined ? undefined : redact(String(v)));
  // `meta` can echo request parts (headers and their input): every string of it redacted as a value.
  const metaOf = (entry: { meta?: unknown }) => (entry.meta === undefined ? undefined : redactDeep(entry.meta, redact));
  // Every further entry (a 400 listing each problem): its location and message, else its words.
  const more = others.flatMap((entry) => {
    const problems = validationParts(metaOf(entry));
    const words = said(entry.detail ?? entry.title);
    return problems.length > 0 ? problems : words ? [words] : [];
  });
  return {
    code: said(first.code),
    title: said(first.title),
    detail: said(first.detail),
    meta: metaOf(first),
    ...(more.length > 0 && { more }),
  };
}

/** The class and advice of each error status of the contract (not 429, whose wait the transport handles; 5xx below). */
const STATUSES: Record<number, [typeof ApiError, (needs: string, meta: unknown, said: string | undefined) => string]> = {
  400: [BadRequestError, (_, meta, said) => `The service rejected the request${validationSummary(meta, said)}.`],
  401: [
    UnauthorizedError,
    (needs) =>
      `The API key was not accepted: it may be missing, expired or revoked, or lack a scope: this operation needs ${needs}. ` +
      "Check the key and its scopes in the workspace's API settings.",
  ],
  402: [UnknownFailureError, () => "The service reports an unknown failure; try again later, or contact its support."],
  403: [
    ForbiddenError,
    (needs) => `The API key may not do this: this operation needs ${needs}; the key's owner needs permission for this item too.`,
  ],
  404: [NotFoundError, () => "Not found, or not disclosed to this API key."],
  409: [ConflictError, () => "It conflicts with the current state of the workspace."],
};

/**
 * A 3xx's `Location` (resolved against the request's `url`), the base URL in force and its setting's name
 * (`workspace-access:baseUrl`); `builtFrom`: the two settings it was built from, if it was.
 */
export type Redirect = { location: string | undefined; url: URL; baseUrl: URL; setting: string; builtFrom?: AddressParts | undefined };

/**
 * What a write's 404 may mean (or a read's, as its request says: `RequestSpec.notFound`), where the transport knows more than
 * "not found, or not disclosed": in words (`said`); whether
 * the record it addresses was found there (`recordThere`), which makes it no {@link NotFoundError}: no caller may read it as
 * gone; whether a write of its kind answered the key success before (`scopesHeld`, kept on the {@link NotFoundError}); whether
 * the record is known gone (`recordGone`: its read answered 404 too, or the key holds the write's scopes).
 */
export type WriteNotFound = { said: string; recordThere: boolean; scopesHeld: boolean; recordGone: boolean };

/**
 * The error for an error status: its class and what to do about it (`needs`: the scopes the operation needs, in words, as
 * `describeNeeds` says them; `notFound`: what a write's 404 may mean ({@link WriteNotFound}); `redirect`: what a 3xx needs to
 * say where it leads).
 */
export function errorForStatus(
  context: ApiErrorContext,
  { needs, notFound }: { needs: string; notFound?: WriteNotFound | undefined },
  redact: (text: string) => string,
  redirect?: Redirect,
): ApiError {
  const { method, path, status, body } = context;
  const said = body?.detail ?? body?.title;
  const also = body?.more === undefined ? "" : ` It also said: ${alsoSaid(body.more)}.`;
  const head = `${method} ${path} answered ${status}${said ? `: ${said.replace(/\.?$/, ".")}` : "."}${also}`;
  const message = (hint: string) => redact(`${head} ${hint}`.trim());
  if (status >= 300 && status < 400 && redirect) return new ApiError(message(redirectHint(redirect)), context);
  const row = STATUSES[status];
  if (status === 404 && notFound?.recordThere) return new ApiError(message(notFound.said), context);
  if (status === 404 && notFound) return new NotFoundError(message(notFound.said), { ...context, scopesHeld: notFound.scopesHeld });
  if (row) return new row[0](message(row[1](needs, body?.meta, said)), context);
  if (!isTransientStatus(status)) return new ApiError(message(""), context);
  const failed = `The service failed.${method === "POST" ? " The request may or may not have been carried out." : ""}`;
  return new ServerError(message(failed), context);
}

/** The further entries of an error answer, the first 10 and how many more: a body listing hundreds stays readable. */
function alsoSaid(more: readonly string[]): string {
  const shown = more
    .slice(0, 10)
    .map((m) => m.replace(/\.$/, ""))
    .join("; ");
  return more.length > 10 ? `${shown}; and ${more.length - 10} more` : shown;
}

/** Where a redirect leads (its origin and path: a query may carry a token) and what to check; it is never followed. */
function redirectHint({ location, url: from, baseUrl, setting, builtFrom }: Redirect): string {
  let to = "nowhere it says (no Location)";
  if (location !== undefined) {
    try {
      const url = new URL(location, from);
      to = `${url.origin}${url.pathname}`;
    } catch {
      to = "a Location that is not a URL";
    }
  }
  // Built from a workspace and a host, neither has a scheme or a path to check: the URL built is named, and both.
  const check = builtFrom
    ? `${baseUrl.href} is ${builtAddress(builtFrom)}: ${builtAddressFix(setting)}.`
    : `check ${setting} (${baseUrl.href}): its scheme, host and path, such as https://acme.example.com/api/v1/.`;
  return `It redirects to ${to}. The API does not redirect, and the client follows no redirect (the API key would go with it): ${check}`;
}

/**
 * " (data.attributes.email: value is not a valid email)" from the API's validation `meta`, leaving out what the entry's own
 * words (`said`, its detail or title, already in the message) say already: a problem is named once.
 */
function validationSummary(meta: unknown, said: string | undefined): string {
  const parts = validationParts(meta).filter((part) => !said?.includes(part));
  return parts.length ? ` (${parts.join("; ")})` : "";
}

/** Each `loc: msg` of a validation `meta` (one `{ loc, msg }` or a list of them). */
function validationParts(meta: unknown): string[] {
  const items: unknown[] = Array.isArray(meta) ? meta : [meta];
  return items.flatMap((item) => {
    const { loc, msg } = (item && typeof item === "object" ? item : {}) as { loc?: unknown; msg?: unknown };
    return typeof msg === "string" ? [Array.isArray(loc) ? `${loc.join(".")}: ${msg}` : msg] : [];
  });
}
