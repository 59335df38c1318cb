/**
 * Serves the reads of a refresh from paged list calls. A refresh reads every resource at once;
 * one GET each would cost N requests, while one list of all users costs N/100. Reads that arrive
 * together (within `BATCH_WINDOW_MS`) share one list; a read alone costs one GET. A list is kept
 * for at most `maxAgeMs` (a few seconds) counted from when it began; reads that arrive while it is
 * still paging join it, however long it takes. A resource missing from it is confirmed with a
 * direct GET before it is reported gone, so a user created after the list began is never dropped.
 */
import { idOf } from "../client/ids";
import { type Clock, NotFoundError, systemClock, type User, type WorkspaceAccessClient } from "../client";
import { BatchWindow } from "../shared/batch-window";

/** How long the first read waits for others to join it. */
const BATCH_WINDOW_MS = 5;

interface Snapshot<T> {
  takenAt: number;
  items: Promise<Map<string, T>>;
  /** Whether the list has finished (or failed). */
  settled: boolean;
}

/** One kind of list: users of the workspace, or members of one integration (`membership-view.ts`). */
export class Batcher<T> {
  #snapshot: Snapshot<T> | undefined;
  readonly #window: BatchWindow;
  readonly #maxAgeMs: number;
  readonly #clock: Clock;
  readonly #list: () => AsyncIterable<T & { id: string }>;
  readonly #get: (id: string) => Promise<T>;

  constructor(maxAgeMs: number, clock: Clock, list: () => AsyncIterable<T & { id: string }>, get: (id: string) => Promise<T>) {
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
    this.#window = new BatchWindow(BATCH_WINDOW_MS, () => clock);
    this.#list = list;
    this.#get = get;
  }

  async read(id: string): Promise<T | undefined> {
    const snapshot = await this.#snapshotFor();
    // A failed list is no answer: the read falls back to its own GET.
    const items = snapshot ? await snapshot.items.catch(() => undefined) : undefined;
    const hit = items?.get(idOf(id));
    if (hit) return hit;
    try {
      return await this.#get(id);
    } catch (error) {
      if (NotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /** Forgets the list, after a write changed what it would say. */
  invalidate(): void {
    this.#snapshot = undefined;
  }

  /** A fresh snapshot when others read at the same time; `undefined` for a lone read. */
  async #snapshotFor(): Promise<Snapshot<T> | undefined> {
    if (this.#maxAgeMs <= 0) return undefined;
    if (this.#fresh()) return this.#snapshot;
    const joined = await this.#window.join();
    // The first of the window's reads to wake takes the list; the others use it.
    if (joined > 1 && !this.#fresh()) this.#snapshot = this.#take();
    return this.#fresh() ? this.#snapshot : undefined;
  }

  /**
   * A list still paging is fresh, however long it has taken (many pages, or paced under a rate
   * limit): starting another would send more requests exactly when the service is slow or
   * limiting. Once settled, its age counts from when it began: an item may have been read at any
   * moment since.
   */
  #fresh(): boolean {
    const snapshot = this.#snapshot;
    return snapshot !== undefined && (!snapshot.settled || this.#clock.now() - snapshot.takenAt <= this.#maxAgeMs);
  }

  #take(): Snapshot<T> {
    const items = (async () => {
      const map = new Map<string, T>();
      for await (const item of this.#list()) map.set(idOf(item.id), item);
      return map;
    })();
    const snapshot: Snapshot<T> = { takenAt: this.#clock.now(), items, settled: false };
    items.then(
      () => {
        snapshot.settled = true;
      },
      () => {
        snapshot.settled = true;
        // A failed list is not kept for later reads.
        if (this.#snapshot === snapshot) this.#snapshot = undefined;
      },
    );
    return snapshot;
  }
}

/** The users' read-through cache over one client (the members': `membership-view.ts`). */
export class ReadCache {
  readonly #users: Batcher<User>;

  constructor(client: WorkspaceAccessClient, maxAgeMs: number, clock: Clock = systemClock) {
    this.#users = new Batcher(
      maxAgeMs,
      clock,
      () => client.users.list(),
      (id) => client.users.get(id),
    );
  }

  /** The user, or `undefined` when it no longer exists. */
  user(id: string): Promise<User | undefined> {
    return this.#users.read(id);
  }

  /** Forgets the users' list after a write (a user's, or a membership's: member lists and users share fields). */
  invalidate(): void {
    this.#users.invalidate();
  }
}
