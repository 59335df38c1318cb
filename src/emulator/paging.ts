/**
 * Paging as the contract and the public document define it: `page[number]` from 1,
 * `page[size]` 1..100 (default 25), `meta.page.maxSize` 100, `meta.page.total` counting
 * items, and relative, percent-encoded `links`.
 *
 * Out-of-range values answer 400 rather than being clamped: the document declares both
 * parameters with `minimum`/`maximum`, so a value outside them is an invalid request, and a
 * client that sends one has a bug the tests should see.
 */
import type { ValidationIssue } from "./errors";
import { ApiError } from "./errors";

/** The largest page the service serves. */
export const MAX_PAGE_SIZE = 100;
/** The page size when the request names none. */
export const DEFAULT_PAGE_SIZE = 25;

/** A validated page request. */
export interface PageRequest {
  number: number;
  size: number;
}

/** The `links` of a paged answer. */
interface PageLinks {
  self: string;
  next: string | null;
  previous: string | null;
}

/** A paged answer's envelope. */
export interface Paged<T> {
  data: T[];
  links: PageLinks;
  meta: { page: { maxSize: number; total: number } };
}

function parseBound(query: URLSearchParams, name: string, fallback: number, max: number, issues: ValidationIssue[]): number {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    issues.push({ loc: ["query", name], msg: "value is not a valid integer", type: "type_error.integer" });
    return fallback;
  }
  const value = Number(raw.trim());
  if (value < 1) {
    issues.push({ loc: ["query", name], msg: "ensure this value is greater than or equal to 1", type: "value_error.number.not_ge" });
  } else if (value > max) {
    issues.push({ loc: ["query", name], msg: `ensure this value is less than or equal to ${max}`, type: "value_error.number.not_le" });
  }
  return value;
}

/** Reads `page[number]` and `page[size]`; throws a 400 naming each bad one. */
export function parsePage(query: URLSearchParams): PageRequest {
  const issues: ValidationIssue[] = [];
  const number = parseBound(query, "page[number]", 1, Number.MAX_SAFE_INTEGER, issues);
  const size = parseBound(query, "page[size]", DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, issues);
  if (issues.length > 0) throw ApiError.validation(issues);
  return { number, size };
}

/** A relative link to one page, extra parameters (e.g. `filter`) kept after the paging ones. */
function pageLink(basePath: string, number: number, size: number, keep: ReadonlyArray<readonly [string, string]>): string {
  const params: Array<readonly [string, string]> = [["page[number]", String(number)], ["page[size]", String(size)], ...keep];
  // encodeURIComponent, not URLSearchParams: the service writes spaces as %20 and brackets as %5B/%5D.
  const query = params.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&");
  return `${basePath}?${query}`;
}

/** Slices `items` to the requested page and builds the envelope. */
export function paginate<T>(
  items: readonly T[],
  page: PageRequest,
  basePath: string,
  keep: ReadonlyArray<readonly [string, string]> = [],
  offset = 0,
): Paged<T> {
  // A page of a walk the quirks shift starts `offset` records later (or earlier, when negative).
  const start = Math.max(0, (page.number - 1) * page.size + offset);
  const data = items.slice(start, start + page.size);
  const hasNext = start + page.size < items.length;
  const hasPrevious = page.number > 1;
  return {
    data,
    links: {
      self: pageLink(basePath, page.number, page.size, keep),
      next: hasNext ? pageLink(basePath, page.number + 1, page.size, keep) : null,
      previous: hasPrevious ? pageLink(basePath, page.number - 1, page.size, keep) : null,
    },
    meta: { page: { maxSize: MAX_PAGE_SIZE, total: items.length } },
  };
}
