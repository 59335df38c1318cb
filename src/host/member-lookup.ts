/**
 * What an {@link IntegrationEntitlement} create learns before it writes anything: whether the
 * user is already a member of the integration, and with which role and entitlements. The answer
 * comes from a read, never from how an invitation is answered (inviting a member is not
 * documented: it may answer 409, merge, or fail).
 *
 * Creates of one integration that arrive together (within {@link CREATE_WINDOW_MS}) share one
 * paged list of its members, and later creates of the same deployment reuse that list: N creates
 * into an integration of M members cost ceil(M/100) list pages, not N reads. A create alone
 * costs one `GET /integrations/{id}/users/{userId}`. A membership this provider process has
 * written since the list was taken (an invitation, a new set, a removal: a role change's delete,
 * say) is read again with its own GET, so the list never answers for what this deployment
 * changed. `readCacheSeconds: 0` turns sharing off (one GET per create).
 *
 * A list proves that someone is a member, never that someone is not: offset pages shift when
 * someone else adds or removes a member between two page reads, and a member can be skipped. A
 * miss in the shared list is therefore confirmed before the create invites anyone (see
 * {@link SharedList.confirm}): by a complete listing that agrees with the one before it (taken
 * again, {@link PROOF_LISTINGS} at most: the later listing is then proven, and confirms every later
 * miss of the shared list for free), or, when the misses are fewer than a listing's pages or no two
 * listings agree, by a direct read of each (404 = absent), at most {@link CONFIRM_PARALLEL} at a time.
 *
 * User ids compare case-insensitively: whether the service keeps the case a client sent is not
 * documented.
 */
import { type Clock, type IntegrationUser, NotFoundError, systemClock, type WorkspaceAccessClient } from "../client";
import { BatchWindow } from "../shared/batch-window";
import { idKey } from "./ids";

/** How long the first create waits for others to join it in one list (creates are slow: invite and job). */
export const CREATE_WINDOW_MS = 50;
/** How long a list serves the creates of one deployment (one provider process). */
export const CREATE_LIST_MAX_AGE_MS = 10 * 60_000;
/** The most direct reads that confirm misses at once. */
export const CONFIRM_PARALLEL = 8;
/**
 * How long a proven listing confirms misses (a shift is proven absent; someone else adding the
 * member later is not): after that, the next misses take a new listing to prove.
 */
export const PROOF_MAX_AGE_MS = 60_000;
/** How many more complete listings a shared list's misses may cost before each is read directly. */
export const PROOF_LISTINGS = 2;
/** The page size of a member list (the contract's maximum; the client asks for it). */
const PAGE_SIZE = 100;

/** A member, or why its record could not be used, by user id in lower case (`ids.ts`). */
export type Members = Map<string, IntegrationUser | Error>;

/** What a lookup found: the member (or `undefined`: confirmed not a member), and whether a shared list answered it. */
export interface MemberLookup {
  member: IntegrationUser | undefined;
  shared: boolean;
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

/** The member, or `undefined` when the direct read answers 404 (not a member). */
export async function readMember(
  client: WorkspaceAccessClient,
  integrationId: string,
  userId: string,
): Promise<IntegrationUser | undefined> {
  try {
    return await client.integrations.getUser(integrationId, userId);
  } catch (error) {
    if (NotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * Every member of an integration by user id in lower case, one paged list: a member whose record
 * cannot be used is there too, as the error naming the record (it is a member; what it holds is
 * unknown). A list proves presence only: confirm a miss before acting on it ({@link confirmAbsent}).
 */
export async function memberList(client: WorkspaceAccessClient, integrationId: string): Promise<Members> {
  const members: Members = new Map();
  const onInvalid = (id: string | undefined, error: Error) => {
    if (id !== undefined) members.set(idKey(id), error);
  };
  for await (const member of client.integrations.listUsers(integrationId, { onInvalid })) members.set(idKey(member.id), member);
  return members;
}

/**
 * The users of `userIds` a list missed, each read directly (at most {@link CONFIRM_PARALLEL} at a
 * time): the member when the read finds one (the list skipped it), `undefined` when it answers 404.
 */
export async function confirmAbsent(
  client: WorkspaceAccessClient,
  integrationId: string,
  userIds: readonly string[],
): Promise<Map<string, IntegrationUser | undefined>> {
  const found = await mapBounded(userIds, CONFIRM_PARALLEL, (userId) => readMember(client, integrationId, userId));
  return new Map(userIds.map((userId, i) => [idKey(userId), found[i]]));
}

/** A listing, and whether a listing taken after it agreed (then its misses are absences). */
export interface Proof {
  listing: Members;
  proven: boolean;
}

/**
 * Takes up to {@link PROOF_LISTINGS} more complete listings of the members until two consecutive
 * ones agree (`ignored` aside: keys this process wrote meanwhile): the later one is then proven.
 * Otherwise (someone else keeps changing the members, or a listing fails) the last listing read,
 * not proven.
 */
export async function prove(
  client: WorkspaceAccessClient,
  integrationId: string,
  first: Members,
  ignored: ReadonlySet<string> = new Set(),
): Promise<Proof> {
  let previous = first;
  for (let i = 0; i < PROOF_LISTINGS; i++) {
    let next: Members;
    try {
      next = await memberList(client, integrationId);
    } catch {
      return { listing: previous, proven: false };
    }
    if (agree(previous, next, ignored)) return { listing: next, proven: true };
    previous = next;
  }
  return { listing: previous, proven: false };
}

/** How many pages a listing of `members` took. */
const pagesOf = (members: Members) => Math.max(1, Math.ceil(members.size / PAGE_SIZE));

/**
 * Confirms the misses `userIds` of the listing `first`: by direct reads when they are fewer than
 * its pages, else by {@link prove} (and direct reads of those a proof could not settle). Resolves
 * each to the member (a listing skipped it) or `undefined` (absent). A member whose record cannot
 * be used is thrown.
 */
export async function confirmMisses(
  client: WorkspaceAccessClient,
  integrationId: string,
  first: Members,
  userIds: readonly string[],
  proof?: () => Promise<Proof>,
): Promise<Map<string, IntegrationUser | undefined>> {
  if (!proof && userIds.length < pagesOf(first)) return confirmAbsent(client, integrationId, userIds);
  const { listing, proven } = await (proof ? proof() : prove(client, integrationId, first));
  const result = new Map<string, IntegrationUser | undefined>();
  const unread: string[] = [];
  for (const userId of userIds) {
    // Presence in any listing is proof; absence only in a proven one.
    const hit = listing.get(idKey(userId));
    if (hit instanceof Error) throw hit;
    if (hit || proven) result.set(idKey(userId), hit);
    else unread.push(userId);
  }
  for (const [k, v] of await confirmAbsent(client, integrationId, unread)) result.set(k, v);
  return result;
}

/** Whether two listings name the same members, leaving out `ignored` (keys this process wrote). */
function agree(a: Members, b: Members, ignored: ReadonlySet<string>): boolean {
  const ids = (m: Members) => [...m.keys()].filter((k) => !ignored.has(k)).sort();
  return JSON.stringify(ids(a)) === JSON.stringify(ids(b));
}

/**
 * One shared member list and what is known of its misses: once a proof was tried (see
 * {@link prove}), its result settles every later miss: absent when proven, else read directly.
 */
class SharedList {
  readonly members: Promise<Members>;
  readonly takenAt: number;
  #proof: { at: number; result: Promise<Proof> } | undefined;
  #pending: { userId: string; settle: (found: IntegrationUser | undefined) => void; fail: (error: unknown) => void }[] = [];
  #scheduled = false;
  readonly #client: WorkspaceAccessClient;
  readonly #integrationId: string;
  readonly #written: ReadonlySet<string>;
  readonly #clock: Clock;

  constructor(client: WorkspaceAccessClient, integrationId: string, clock: Clock, written: ReadonlySet<string>) {
    this.#client = client;
    this.#integrationId = integrationId;
    this.#clock = clock;
    this.takenAt = clock.now();
    this.#written = written;
    this.members = memberList(client, integrationId);
  }

  /**
   * Confirms that `userId`, missing from this list, is not a member: resolves to the member when a
   * confirmation finds one after all (the list skipped it), `undefined` when absent. The misses of
   * one turn of the event loop are confirmed together.
   */
  confirm(userId: string): Promise<IntegrationUser | undefined> {
    return new Promise((settle, fail) => {
      this.#pending.push({ userId, settle, fail });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        const pending = this.#pending.splice(0);
        this.#confirmAll(pending.map((p) => p.userId)).then(
          (found) => {
            for (const p of pending) p.settle(found.get(idKey(p.userId)));
          },
          (error: unknown) => {
            for (const p of pending) p.fail(error);
          },
        );
      });
    });
  }

  async #confirmAll(userIds: string[]): Promise<Map<string, IntegrationUser | undefined>> {
    const members = await this.members;
    // Fewer misses than a listing's pages, and no proof tried yet: direct reads are cheaper.
    if (!this.#proof && userIds.length < pagesOf(members)) return confirmAbsent(this.#client, this.#integrationId, userIds);
    // A proof answers for absences only while it is young: someone else may add a member later.
    const now = this.#clock.now();
    if (!this.#proof || now - this.#proof.at > PROOF_MAX_AGE_MS) {
      const before = this.#proof ? await this.#proof.result.then((p) => p.listing) : members;
      this.#proof = { at: now, result: prove(this.#client, this.#integrationId, before, this.#written) };
    }
    const proof = this.#proof.result;
    return confirmMisses(this.#client, this.#integrationId, members, userIds, () => proof);
  }
}

/** The lookups of one integration before creates (not the `IntegrationMembers` resource). */
class IntegrationCreateLookups {
  #list: SharedList | undefined;
  #lookups = 0;
  readonly #written = new Set<string>();
  readonly #window: BatchWindow;
  readonly #client: WorkspaceAccessClient;
  readonly #integrationId: string;
  readonly #clock: Clock;
  readonly #shared: boolean;

  constructor(client: WorkspaceAccessClient, integrationId: string, shared: boolean, clock: Clock) {
    this.#client = client;
    this.#integrationId = integrationId;
    this.#shared = shared;
    this.#clock = clock;
    this.#window = new BatchWindow(CREATE_WINDOW_MS, () => clock);
  }

  async lookup(userId: string): Promise<MemberLookup> {
    if (this.#shared && !this.#written.has(idKey(userId))) {
      const list = await this.#listFor();
      // A failed list is no answer: the create falls back to its own GET.
      const members = list ? await list.members.catch(() => undefined) : undefined;
      if (list && members) {
        const hit = members.get(idKey(userId));
        // The member's record is there but unusable: this create fails naming it, no other.
        if (hit instanceof Error) throw hit;
        // A miss proves nothing (pages shift): confirmed before the create invites anyone.
        return { member: hit ?? (await list.confirm(userId)), shared: true };
      }
    }
    return { member: await readMember(this.#client, this.#integrationId, userId), shared: false };
  }

  /** This process wrote `userId`'s membership: the list no longer answers for it. */
  written(userId: string): void {
    this.#written.add(idKey(userId));
  }

  #young(list: SharedList | undefined): list is SharedList {
    return list !== undefined && this.#clock.now() - list.takenAt <= CREATE_LIST_MAX_AGE_MS;
  }

  /**
   * The list to answer from: the one taken for this deployment while it is young enough; else a
   * new one when other creates join this one's window, or when an earlier create of this
   * integration has already been seen (more are coming); `undefined` for the first create when it
   * is alone.
   */
  async #listFor(): Promise<SharedList | undefined> {
    if (this.#young(this.#list)) return this.#list;
    const earlier = this.#lookups++ > 0;
    const joined = await this.#window.join();
    // The first of the window's creates to wake took the list: the others use it.
    if (this.#young(this.#list)) return this.#list;
    if (joined < 2 && !earlier) return undefined;
    const list = new SharedList(this.#client, this.#integrationId, this.#clock, this.#written);
    this.#list = list;
    list.members.catch(() => {
      // A failed list is not kept for later creates.
      if (this.#list === list) this.#list = undefined;
    });
    return list;
  }
}

/** The create lookups of every integration, over one client. */
export class CreateLookups {
  readonly #client: WorkspaceAccessClient;
  readonly #shared: boolean;
  readonly #integrations = new Map<string, IntegrationCreateLookups>();
  readonly #clock: Clock;

  /** `shared: false` (readCacheSeconds 0) makes every lookup its own GET. */
  constructor(client: WorkspaceAccessClient, shared: boolean, clock: Clock = systemClock) {
    this.#client = client;
    this.#shared = shared;
    this.#clock = clock;
  }

  /** Whether `userId` is a member of `integrationId`, before a create writes anything; an absence is always confirmed. */
  lookup(integrationId: string, userId: string): Promise<MemberLookup> {
    return this.#for(integrationId).lookup(userId);
  }

  /** A write of this process touched a membership (whether or not it succeeded). */
  written(integrationId: string, userId: string): void {
    this.#for(integrationId).written(userId);
  }

  #for(integrationId: string): IntegrationCreateLookups {
    let lookups = this.#integrations.get(idKey(integrationId));
    if (!lookups) {
      lookups = new IntegrationCreateLookups(this.#client, integrationId, this.#shared, this.#clock);
      this.#integrations.set(idKey(integrationId), lookups);
    }
    return lookups;
  }
}
