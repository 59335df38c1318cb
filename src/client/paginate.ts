import type { z } from "zod";
import { contractIssue, InvalidResponseError } from "./errors";
import { redactError } from "./redact";
import type { HttpTransport, RequestSpec } from "./transport";
import { type Schemas, schemas } from "./schemas";

/** Paging of list calls. */
export interface ListOptions {
  /** Items per page, 1..100 (the contract's maximum; default 100: fewest requests). */
  pageSize?: number;
  /** Called for a record that does not match the contract (`id`, when it has one); the rest of the page is still served. */
  onInvalid?: (id: string | undefined, error: InvalidResponseError) => void;
}

/** The contract's largest page. */
export const MAX_PAGE_SIZE = 100;

/** Every record of a paged list, parsed and `map`ped (an odd one to `onInvalid`; a `links.next` repeated throws). Proves presence only. @internal */
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
  const seen = new Set<string>();
  let spec: RequestSpec | undefined = first;
  while (spec) {
    const path = new URL(spec.path, http.settings.baseUrl).pathname;
    const { data, status }: { status: number; data: z.infer<Schemas["page"]> } = await http.request(spec, schema);
    for (const item of data.data) {
      const parsed = record.safeParse(item);
      if (parsed.success) {
        yield map(parsed.data);
        continue;
      }
      // The record's id as the service sent it, if any (not `ids.ts`'s one form: the record may be invalid).
      const raw = item && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
      const id = typeof raw === "string" && raw !== "" ? raw : undefined;
      const { field, said } = contractIssue(parsed.error.issues);
      // The record is the service's text, its id too: the error is redacted whole.
      const message = `GET ${path} answered ${status} with a record${id ? ` (id ${id})` : ""} that ${said}.`;
      const error = new InvalidResponseError(message, { method: "GET", path, status, field });
      onInvalid?.(id === undefined ? undefined : http.redact(id), redactError(error, http.redact));
    }
    const next: string | null | undefined = data.links?.next;
    if (!next || data.data.length === 0) return;
    if (seen.has(next)) {
      // The link is the service's text: it may carry the key (a gateway copying it into links).
      const message = `GET ${first.path} returned the same links.next twice (${next}).`;
      throw redactError(
        new InvalidResponseError(message, { method: "GET", path: first.path, status: 200, field: "links.next" }),
        http.redact,
      );
    }
    seen.add(next);
    spec = { method: "GET", path: next, scopes: first.scopes };
  }
}
