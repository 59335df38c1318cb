import type { z } from "zod";
import { InvalidResponseError } from "./errors";
import type { HttpTransport, RequestSpec } from "./http";
import { page } from "./schemas";

/** Paging of list calls. */
export interface ListOptions {
  /** Items per page, 1..100 (the contract's maximum; default 100: fewest requests). */
  pageSize?: number;
}

/** The contract's largest page. */
export const MAX_PAGE_SIZE = 100;

/**
 * Every item of a paged list, following `links.next` until it is null. A link that repeats is an
 * invalid response rather than an endless loop.
 * @internal
 */
export async function* paginate<T extends z.ZodType>(
  http: HttpTransport,
  first: RequestSpec,
  record: T,
): AsyncGenerator<z.infer<T>> {
  const schema = page(record);
  const seen = new Set<string>();
  let spec: RequestSpec | undefined = first;
  while (spec) {
    const { data }: { data: z.infer<ReturnType<typeof page<T>>> } = await http.request(spec, schema);
    for (const item of data.data as Array<z.infer<T>>) yield item;
    const next: string | null | undefined = data.links?.next;
    if (!next || data.data.length === 0) return;
    if (seen.has(next)) {
      throw new InvalidResponseError(`GET ${first.path} returned the same links.next twice (${next}).`, {
        method: "GET",
        path: first.path,
        status: 200,
        field: "links.next",
      });
    }
    seen.add(next);
    spec = { method: "GET", path: next, scopes: first.scopes };
  }
}

/** Checks a page size against the contract's 1..100. */
export function pageSize(value: number | undefined): number {
  const size = value ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new RangeError(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${value}`);
  }
  return size;
}


