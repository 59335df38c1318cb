/**
 * The one way the host shares a list among calls that arrive together ({@link SharedListing}), and the users' read cache on
 * it. A refresh reads every resource at once: one GET each costs N requests, one list N/100; a call alone gets no list. A
 * list proves presence only: a miss is read directly (or proven absent) by the caller.
 */
import { type Id, idOf } from "../client/ids";
import { type Clock, InvalidResponseError, systemClock, unlessNotFound, type User, type WorkspaceAccessClient } from "../client";
import { BatchWindow } from "../shared/batch-window";

/** How a {@link SharedListing} shares. */
interface SharingOptions {
  /** How long the first call waits for others to join it. */
  windowMs: number;
  /** How long a finished list answers, from when it began (0: never shared). */
  maxAgeMs: number;
  /** Share with a caller alone too once an earlier caller was seen (creates come one checkpoint apart). */
  afterFirst?: boolean;
}

interface Snapshot<T, K> {
  takenAt: number;
  items: Promise<Map<K, T>>;
  /** Whether the list has finished (or failed). */
  done: boolean;
}

/** One list shared by the calls that arrive together: the users of the workspace, or the members of one integration. */
export class SharedListing<T, K extends string = string> {
  #snapshot: Snapshot<T, K> | undefined;
  #calls = 0;
  readonly #window: BatchWindow;
  readonly #options: SharingOptions;
  readonly #clock: Clock;
  readonly #take: () => Promise<Map<K, T>>;

  /** `take` lists every record, keyed by id in its one form (`idOf`). */
  constructor(clock: Clock, options: SharingOptions, take: () => Promise<Map<K, T>>) {
    this.#clock = clock;
    this.#options = options;
    this.#window = new BatchWindow(options.windowMs, () => clock);
    this.#take = take;
  }

  /** The list this call shares, or `undefined` when it is alone or the list failed (the caller reads directly). */
  async current(): Promise<Map<K, T> | undefined> {
    const snapshot = await this.#snapshotFor();
    return snapshot?.items.catch(() => undefined);
  }

  /** Forgets the list, after a write changed what it would say. */
  invalidate(): void {
    this.#snapshot = undefined;
  }

  async #snapshotFor(): Promise<Snapshot<T, K> | undefined> {
    if (this.#options.maxAgeMs <= 0) return undefined;
    if (this.#fresh()) return this.#snapshot;
    const earlier = this.#calls++ > 0 && this.#options.afterFirst === true;
    const joined = await this.#window.join();
    // The first of the window's calls to wake takes the list; the others use it.
    if (!this.#fresh() && (joined > 1 || earlier)) this.#snapshot = this.#list();
    return this.#fresh() ? this.#snapshot : undefined;
  }

  /**
   * A list still paging is fresh however long it takes: another would send more requests exactly when the service is slow
   * or limiting. Once done, its age counts from when it began: a record may have changed since.
   */
  #fresh(): boolean {
    const snapshot = this.#snapshot;
    return snapshot !== undefined && (!snapshot.done || this.#clock.now() - snapshot.takenAt <= this.#options.maxAgeMs);
  }

  #list(): Snapshot<T, K> {
    const snapshot: Snapshot<T, K> = { takenAt: this.#clock.now(), items: this.#take(), done: false };
    snapshot.items.then(
      () => {
        snapshot.done = true;
      },
      () => {
        snapshot.done = true;
        // A failed list is not kept for later calls.
        if (this.#snapshot === snapshot) this.#snapshot = undefined;
      },
    );
    return snapshot;
  }
}

/** How long the first read of a refresh waits for others to join it. */
export const READ_WINDOW_MS = 5;

/** A user, or why its record could not be used (a user still: a record that fails the schema is there; what it holds is unknown). */
export type ListedUser = User | Error;

/** Every user of the workspace by id in its one form (`idOf`), at `pageSize`; one whose record cannot be used, as the error naming it. */
export async function listUsers(client: WorkspaceAccessClient, pageSize?: number): Promise<Map<Id, ListedUser>> {
  const users = new Map<Id, ListedUser>();
  const onInvalid = (id: string | undefined, error: Error) => {
    if (id !== undefined) users.set(idOf(id), error);
  };
  for await (const user of client.users.list({ pageSize, onInvalid })) users.set(idOf(user.id), user);
  return users;
}

/**
 * The one direct read of a user: `undefined` when the service answers 404 (gone), the error when its record cannot be used (a
 * user still, whose attributes are unknown: never proof of absence, nor of a change).
 */
export async function readUser(client: WorkspaceAccessClient, id: string): Promise<ListedUser | undefined> {
  try {
    return await unlessNotFound(client.users.get(id));
  } catch (error) {
    if (InvalidResponseError.isInstance(error)) return error;
    throw error;
  }
}

/** The users' read-through cache over one client (the members': `membership-view.ts`). */
export class ReadCache {
  readonly #users: SharedListing<ListedUser, Id>;
  readonly #client: WorkspaceAccessClient;
  /**
   * The users this process created or deleted: a proof of absence ignores them (as the membership view its own writes), and the
   * membership views read again a membership a shared list shows them holding (a user's delete takes their memberships).
   */
  readonly #written = new Set<string>();

  constructor(client: WorkspaceAccessClient, maxAgeMs: number, clock: Clock = systemClock) {
    this.#client = client;
    this.#users = new SharedListing(clock, { windowMs: READ_WINDOW_MS, maxAgeMs }, () => listUsers(client));
  }

  /** Every user: the shared list when one is fresh, else a list of its own (a set of users needs them all). */
  async all(): Promise<Map<Id, ListedUser>> {
    return (await this.#users.current()) ?? listUsers(this.#client);
  }

  /**
   * The user, `undefined` when it no longer exists, or the error naming why its record cannot be used (a miss in the shared
   * list, or a record it could not use, is read directly: {@link readUser}).
   */
  async user(id: string): Promise<ListedUser | undefined> {
    const listed = (await this.#users.current())?.get(idOf(id));
    return listed instanceof Error || listed === undefined ? await readUser(this.#client, id) : listed;
  }

  /** Forgets the users' list after a write (a user's, or a membership's: member lists and users share fields). */
  invalidate(): void {
    this.#users.invalidate();
  }

  /**
   * This process created user `userId` (known once the create answers), or sends its delete: listings taken meanwhile may
   * differ by it alone. A proof of absence ignores it ({@link written}): the program's duplicate checks keep the users its
   * other resources write off the emails a set declares.
   */
  wrote(userId: string): void {
    this.#users.invalidate();
    this.#written.add(idOf(userId));
  }

  /** The users this process created or deleted ({@link wrote}), by id in its one form. */
  get written(): ReadonlySet<string> {
    return this.#written;
  }
}
