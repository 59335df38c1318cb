/**
 * The one proof of absence. A listing proves presence only (offset pages shift, skipping a record with every total agreeing); an absence
 * is a 404, or a second complete listing agreeing at another page size (a service skipping one offset each walk cannot hide it twice).
 */
import type { Id } from "./ids";
import { MAX_PAGE_SIZE } from "./paginate";

/** The page size of the n-th listing (0 the first): each differs from the one before it. */
export const proofPageSize = (n: number): number => (n % 2 === 0 ? MAX_PAGE_SIZE : MAX_PAGE_SIZE - 1 - Math.floor(n / 2));

/** A listing, and whether a listing taken after it, at another page size, agreed (then its misses are absences). */
export interface Proof<T> {
  listing: Map<Id, T>;
  proven: boolean;
  /** Why a listing failed, when one did (the proof then stops, not proven). */
  error?: unknown;
}

/** Lists up to `listings` more times at other page sizes till two in a row agree but for `ignored` (our writes meanwhile): the later proven, else the last. */
export async function prove<T>(
  listAt: (pageSize: number) => Promise<Map<Id, T>>,
  first: Map<Id, T>,
  options: { listings: number; ignored?: ReadonlySet<string> },
): Promise<Proof<T>> {
  const ids = (listing: Map<Id, T>) => JSON.stringify([...listing.keys()].filter((id) => !options.ignored?.has(id)).sort());
  let previous = first;
  for (let n = 1; n <= options.listings; n++) {
    let next: Map<Id, T>;
    try {
      next = await listAt(proofPageSize(n));
    } catch (error) {
      return { listing: previous, proven: false, error };
    }
    if (ids(previous) === ids(next)) return { listing: next, proven: true };
    previous = next;
  }
  return { listing: previous, proven: false };
}

/** Runs `task` on every item, at most `limit` at once; resolves in the items' order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
