import type { z } from "zod";
import { contractIssue, InvalidResponseError } from "./errors";
import { idOf } from "./ids";
import { REDACTED, redactError } from "./redact";
import type { HttpTransport, RequestSpec } from "./transport";
import { type Schemas, schemas } from "./schemas";

/** Paging of list calls. */
export interface ListOptions {
  /** Items per page, 1..100 (the contract's maximum; default 100: fewest requests). */
  pageSize?: number;
  /**
   * Called for a record that does not match the contract (`id`, when it has one; in `readable`, each of its `email`, `label` and
   * `application` that is text, not empty, so that it can still be named and told from the record looked for); the rest of the
   * page is still served.
   */
  onInvalid?: (id: string | undefined, error: InvalidResponseError, readable: ReadableFields) => void;
}

/**
 * The attributes of a record that breaks the contract that can be read all the same, by name: text (redacted), or `null` where
 * the record holds none (the field `null`, left out of its attributes, or blank; its attributes `null` or left out), as a record
 * that keeps the contract reads; left out where it cannot be told (the field or the attributes of another type).
 */
export type ReadableFields = { email?: string | null; label?: string | null; application?: string | null };

/**
 * Whether a record that breaks the contract, its `readable` fields, may be the record whose `field` is `value` (never blank):
 * unless that field is text, and another (one the key's redaction touched is not compared), or it holds none. `same` compares two
 * values (emails: in any case).
 */
export function mayHave(readable: ReadableFields, field: keyof ReadableFields, value: string, same = (a: string, b: string) => a === b) {
  const its = readable[field];
  if (its === null) return false;
  return its === undefined || its.includes(REDACTED) || same(its, value);
}
const READABLE = ["email", "label", "application"] as const;

/** The contract's largest page. */
export const MAX_PAGE_SIZE = 100;
/** Pages read at once when the first says how many there are (`meta.page.total`) and the first two links number them. */
const PAGES_AHEAD = 4;
/** `page[number]=2` in a link, raw or percent-encoded: {@link nth} names the pages after it. */
const PAGE_NUMBER = /([?&]page(?:\[|%5B)number(?:\]|%5D)=)2(?=&|#|$)/i;
const nth = (link: string, n: number) => link.replace(PAGE_NUMBER, `$1${n}`);

/**
 * Every record of a paged list, parsed and `map`ped (an odd one to `onInvalid`; a `links.next` repeated throws). Proves presence
 * only. A page's `links.next` is asked before its records are served, so a loop that stops early leaves one page (or the pages
 * read ahead) asked for nothing. @internal
 */
export async function* paginate<T extends z.ZodType, R>(
  http: HttpTransport,
  list: Pick<RequestSpec, "path" | "query" | "scopes">,
  record: T,
  map: (record: z.infer<T>) => R,
  { pageSize: size = MAX_PAGE_SIZE, onInvalid }: ListOptions,
): AsyncGenerator<R> {
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new RangeError(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${size}`);
  }
  const first: RequestSpec = { method: "GET", ...list, query: { "page[size]": size, ...list.query } };
  const schema = schemas().page;
  type Answer = { status: number; data: z.infer<Schemas["page"]> };
  // Pages ahead, by link: page 1's links.next with another page[number], once page 2's named page 3 so, while the links agree.
  const ahead = new Map<string, Promise<Answer>>();
  let pages: { link: string; count: number; asked: number } | undefined;
  const seen = new Set<string>();
  /** The ids served so far: pages that bring none new, two in a row with a next link, are a service walking in place. */
  const served = new Set<unknown>();
  /** Pages in a row that brought no id not served before (one may: a record a shift listed twice, on a page of one). */
  let stale = 0;
  /** The page after the one being served, asked before its records are parsed (one page at a time). */
  let following: { link: string; answer: Promise<Answer> } | undefined;
  let spec: RequestSpec | undefined = first;
  while (spec) {
    const path = new URL(spec.path, http.settings.baseUrl).pathname; // a link is whole once read by `linkOf`
    const early = ahead.get(spec.path);
    ahead.delete(spec.path);
    if (!early && pages?.asked) pages = undefined; // a link not read ahead: one by one from here
    const followed: Promise<Answer> | undefined = following?.link === spec.path ? following.answer : undefined;
    following = undefined;
    const { data, status }: Answer = await (early ?? followed ?? http.request(spec, schema));
    const said: string | null | undefined = data.links?.next;
    // Read against the page it came with, as any relative link (RFC 3986), not against the API root: "users?…" or "?page…" in a
    // page of an integration's members is their next page, not the workspace's users (whose records would pass for members).
    const next: string | null | undefined = said ? linkOf(said, spec.path, http, first.path) : said;
    const count = Math.ceil((data.meta?.page?.total ?? 0) / size);
    if (spec === first) pages = next && PAGE_NUMBER.test(next) ? { link: next, count, asked: 0 } : undefined;
    else if (pages?.asked === 0) pages = next === nth(pages.link, 3) ? { ...pages, asked: 2 } : undefined;
    while (pages?.asked && pages.asked < pages.count && ahead.size < PAGES_AHEAD) {
      const link = nth(pages.link, ++pages.asked);
      const answer = http.request({ method: "GET", path: link, scopes: first.scopes }, schema);
      answer.catch(() => undefined); // it may never be awaited: an earlier page may end the list, or fail
      ahead.set(link, answer);
    }
    // The next page (not read ahead) is asked before this one's records are parsed and served: it comes meanwhile.
    if (next && data.data.length > 0 && !seen.has(next) && !ahead.has(next)) {
      following = { link: next, answer: http.request({ method: "GET", path: next, scopes: first.scopes }, schema) };
      following.answer.catch(() => undefined); // the caller may stop reading first, or a record end the list
    }
    let fresh = spec === first;
    for (const item of data.data) {
      const rawId = item && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
      // Ids in their one form: a record answered again in another case is not new.
      const servedId = typeof rawId === "string" ? idOf(rawId) : rawId;
      if (!served.has(servedId)) fresh = true;
      served.add(servedId);
      const parsed = record.safeParse(item);
      if (parsed.success) {
        yield map(parsed.data);
        continue;
      }
      const { id, error } = invalidRecord(http, path, status, item, parsed.error.issues);
      // A record (an object) whose attributes are null or left out holds none of them, as one that keeps the contract reads;
      // attributes of another type (or a record that is no object) tell nothing.
      const asRecord = item && typeof item === "object" && !Array.isArray(item) ? (item as { attributes?: unknown }) : undefined;
      const attributes = asRecord && (asRecord.attributes ?? {});
      const fields =
        attributes && typeof attributes === "object" && !Array.isArray(attributes) ? (attributes as Record<string, unknown>) : undefined;
      const readable: ReadableFields = {};
      for (const name of READABLE) {
        const value = fields?.[name];
        if (typeof value === "string" && value.trim() !== "") readable[name] = http.redact(value);
        // None, as a record that keeps the contract would read: no lookup by a value of that field can be waiting on it.
        else if (fields !== undefined && (value === null || value === undefined || typeof value === "string")) readable[name] = null;
      }
      onInvalid?.(id === undefined ? undefined : http.redact(id), error, readable);
    }
    // A page whose next link is itself (a service that links the last page to itself) ends the list: read again it brings
    // the same page. Ending early claims nothing: a list proves presence only.
    if (!next || data.data.length === 0 || (spec !== first && next === spec.path)) return;
    stale = fresh ? 0 : stale + 1;
    if (stale >= 2) {
      // A page past the end answered as the last one again (page numbers clamped), each linking to one more: it never ends.
      throw linkError(
        http,
        first.path,
        `answered a page of records it had served already, with a links.next (${said}): the list does not end`,
      );
    }
    if (seen.has(next)) {
      // The link is the service's text: it may carry the key (a gateway copying it into links).
      throw linkError(http, first.path, `returned the same links.next twice (${said})`);
    }
    seen.add(next);
    spec = { method: "GET", path: next, scopes: first.scopes };
  }
}

/**
 * The error of a listed record (`item`, answered by `GET path`) that breaks the contract (`issues`), named by its id when it has
 * one, as the service sent it (`id`, not `ids.ts`'s one form: the record may be invalid): its position tells the service's admin
 * nothing. Redacted whole: the record is the service's text, its id too. `at`: where the record stands in the answer, for the
 * error's `field` (a list not paged, the entitlement catalogue, names `data.<i>`). @internal
 */
export function invalidRecord(
  http: HttpTransport,
  path: string,
  status: number,
  item: unknown,
  issues: Parameters<typeof contractIssue>[0],
  at: readonly string[] = [],
): { id: string | undefined; error: InvalidResponseError } {
  const raw = item && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
  const id = typeof raw === "string" && raw !== "" ? raw : undefined;
  const { said } = contractIssue(issues);
  const { field } = contractIssue(issues, at);
  const message = `GET ${path} answered ${status} with a record${id ? ` (id ${id})` : ""} that ${said}.`;
  return { id, error: redactError(new InvalidResponseError(message, { method: "GET", path, status, field }), http.redact) };
}

/** A page's `links.next` as a whole URL, read against the page (`pagePath`, from the base URL); one that is not a URL fails naming it. */
function linkOf(link: string, pagePath: string, http: HttpTransport, listPath: string): string {
  try {
    return new URL(link, new URL(pagePath, http.settings.baseUrl)).href;
  } catch {
    throw linkError(http, listPath, `answered a links.next that is not a URL (${link})`);
  }
}

/** A list's `links.next` that cannot be followed: `GET <listPath> <said>.`, redacted (a link is the service's text). */
const linkError = (http: HttpTransport, listPath: string, said: string) =>
  redactError(
    new InvalidResponseError(`GET ${listPath} ${said}.`, { method: "GET", path: listPath, status: 200, field: "links.next" }),
    http.redact,
  );
