/**
 * One integration's membership as this process sees it, through which alone both membership resources read its members: the
 * shared listings, the proof that a miss is an absence, the one member read, and what a write makes it forget.
 */
import { idOf } from "../../client/ids";
import { type Clock, type Id, JobFailedError, type NotFoundError, type WorkspaceAccessClient } from "../../client";
import { READ_WINDOW_MS, SharedListing } from "../read-cache";
import { integrationUnread } from "./messages";
import { confirm, type Found, type Members, memberList, pagesOf, prove, type Proof, readEach, readMember } from "./member-list";

/** How long the first create waits for others to join it in one list (creates are slow: invite and job). */
const CREATE_WINDOW_MS = 50;
/** How long a list serves the creates of one deployment (one provider process). */
const CREATE_LIST_MAX_AGE_MS = 10 * 60_000;
/** How long a proven listing confirms the creates' misses (someone may add a member later): then a new proof. */
export const PROOF_MAX_AGE_MS = 60_000;

/** The membership of one integration: its shared listings, its one proof of absence and member read, its invalidation. */
export class MembershipView {
  readonly #client: WorkspaceAccessClient;
  readonly #integrationId: string;
  readonly #clock: Clock;
  readonly #reads: SharedListing<Found, Id>;
  readonly #creates: SharedListing<Found, Id>;
  /** The memberships this process wrote: the creates' list no longer answers for them. */
  readonly #written = new Set<string>();
  /**
   * The users this process created or deleted (`ReadCache.written`): a user's delete drops their memberships, so a membership
   * a shared list (or proof) shows them holding is read again before a create takes it as there.
   */
  readonly #users: ReadonlySet<string>;
  /** The members this process removes (a removal under way or done): a last-owner check counts them gone. */
  readonly #removals = new Set<Id>();
  /** The proof of the creates' list's misses, and when it was taken. */
  #proof: { at: number; of: Members; result: Promise<Proof> } | undefined;
  /** The misses of one turn of the event loop, confirmed together. */
  #misses: { members: Members; userIds: string[]; found: Promise<Map<Id, Found | undefined>> } | undefined;

  /** `maxAgeMs` is `readCacheSeconds`: 0 makes every read and lookup its own GET. `users`: the users this process wrote. */
  constructor(
    client: WorkspaceAccessClient,
    integrationId: string,
    maxAgeMs: number,
    clock: Clock,
    users: ReadonlySet<string> = new Set(),
  ) {
    this.#client = client;
    this.#integrationId = integrationId;
    this.#clock = clock;
    this.#users = users;
    const list = () => memberList(client, integrationId);
    this.#reads = new SharedListing(clock, { windowMs: READ_WINDOW_MS, maxAgeMs }, list);
    const createsAge = maxAgeMs > 0 ? CREATE_LIST_MAX_AGE_MS : 0;
    this.#creates = new SharedListing(clock, { windowMs: CREATE_WINDOW_MS, maxAgeMs: createsAge, afterFirst: true }, list);
  }

  /** The integration whose membership this is. */
  get integrationId(): string {
    return this.#integrationId;
  }

  /** A refresh's read: the member, or `undefined` when the user is not one (a miss in a shared list is read directly). */
  async member(userId: string): Promise<Found | undefined> {
    return (await this.#reads.current())?.get(idOf(userId)) ?? (await this.read(userId));
  }

  /** Every member, as a refresh's or destroy's reads share them (one list for the calls that arrive together; else its own). */
  async members(): Promise<Members> {
    return (await this.#reads.current()) ?? (await this.list());
  }

  /** The members this process removes, by id in its one form ({@link removing}). */
  get removals(): ReadonlySet<Id> {
    return this.#removals;
  }

  /**
   * This process removes `userId` (`false`: it did not, the removal failed): a last-owner check of another removal counts them
   * gone, so removals arriving together do not each count on the other owner staying. Recorded in the turn of the check.
   */
  removing(userId: string, under = true): void {
    if (under) this.#removals.add(idOf(userId));
    else this.#removals.delete(idOf(userId));
  }

  /** Whether the user is a member before a create writes (`undefined`: confirmed not one), and whether a shared list answered. */
  async beforeCreate(userId: string): Promise<{ member: Found | undefined; shared: boolean }> {
    const members = this.#written.has(idOf(userId)) ? undefined : await this.#creates.current();
    if (!members) return { member: await this.read(userId), shared: false };
    // A miss proves nothing (pages shift): confirmed before the create invites anyone.
    const member = members.get(idOf(userId)) ?? (await this.#confirmMiss(members, userId));
    // A user this process deleted since lost their memberships with them: a listing's presence is read again.
    if (member !== undefined && this.#users.has(idOf(userId))) return { member: await this.read(userId), shared: true };
    return { member, shared: true };
  }

  /** The one direct read: the member, `undefined` when the service answers 404, the error when the record is unusable. */
  read(userId: string): Promise<Found | undefined> {
    return readMember(this.#client, this.#integrationId, userId);
  }

  /**
   * Throws `error`, a write's of `userId` (a `PATCH` or `DELETE`), unless its job ended in `error` and the user is no member: a
   * service may accept a write of a user who is not a member and fail its job, rather than answer 404 at once (assumed,
   * docs/contract.md). One direct read, only after such a job: gone, this returns, and the caller goes on as after that 404;
   * there, unusable or unread, `error` stands.
   */
  async unlessGone(userId: string, error: unknown): Promise<void> {
    if (!JobFailedError.isInstance(error)) throw error;
    const member = await this.read(userId).catch(() => Promise.reject(error));
    if (member !== undefined) throw error;
  }

  /** A complete listing now (not shared: an `IntegrationMembers` operation plans on what the service has now). */
  list(): Promise<Members> {
    return memberList(this.#client, this.#integrationId);
  }

  /**
   * A complete listing for a read that answers the whole set (an `IntegrationMembers.get`'s): proven, a second listing at another
   * page size agreeing (`member-list.ts`), as a lookup's set is; else the proof as it ended (`proven: false`, a listing's error).
   */
  async provenList(): Promise<Proof> {
    return prove(this.#client, this.#integrationId, await this.list());
  }

  /** Confirms the misses `userIds` of `listed` (see `member-list.ts`): what was found, `undefined` when absent. */
  confirm(listed: Members, userIds: readonly string[]): Promise<Map<Id, Found | undefined>> {
    return confirm(this.#client, this.#integrationId, listed, userIds);
  }

  /** The members `userIds` now (just invited): one listing when they are more than its pages, then a direct read of each it misses. */
  async find(userIds: readonly string[], expected: number): Promise<Map<Id, Found | undefined>> {
    const listed = userIds.length > pagesOf({ size: expected }) ? await this.list() : new Map<Id, Found>();
    const found = new Map(userIds.filter((id) => listed.has(idOf(id))).map((id) => [idOf(id), listed.get(idOf(id))]));
    const unread = userIds.filter((id) => !found.has(idOf(id)));
    return new Map([...found, ...(await readEach(this.#client, this.#integrationId, unread))]);
  }

  /**
   * Whether the integration answers this key (`GET /integrations/{id}`, the client's `integrations.presence`): `false` when it is
   * gone (its 404 trusted once the key is shown integrations). Not disclosed to this key, or unread, it is thrown. The read is
   * shared by the resources that ask together and its answer reused only for a few seconds (`PRESENCE_MAX_AGE_MS`): an
   * integration deleted during a deployment is not called there by a later operation.
   */
  async visible(): Promise<boolean> {
    const presence = await this.#client.integrations.presence(this.#integrationId);
    if (presence.kind === "undisclosed") throw presence.error;
    return presence.kind === "there";
  }

  /**
   * Whether the integration is gone, after `notFound`, a 404 one of an operation's requests of it got (a member list's, proven by
   * the client; a write's, which no read proves): its own read, {@link visible}, sent only then, one for the operations that ask
   * together. Failing, it is thrown naming that 404, nothing read as gone.
   */
  async goneAfter(notFound: NotFoundError): Promise<boolean> {
    try {
      return !(await this.visible());
    } catch (error) {
      throw integrationUnread(this.#integrationId, notFound, error);
    }
  }

  /** A write touched this integration (`userId`'s membership, when named): the shared lists no longer answer for it. */
  written(userId?: string): void {
    this.#reads.invalidate();
    if (userId) this.#written.add(idOf(userId));
  }

  /** A miss of the creates' list, confirmed with the other misses of this turn of the event loop. */
  async #confirmMiss(members: Members, userId: string): Promise<Found | undefined> {
    if (this.#misses?.members !== members) {
      const misses = { members, userIds: [] as string[], found: Promise.resolve(new Map<Id, Found | undefined>()) };
      misses.found = new Promise<void>((next) => setImmediate(next)).then(() => {
        if (this.#misses === misses) this.#misses = undefined;
        return this.#confirmAll(members, misses.userIds);
      });
      this.#misses = misses;
    }
    this.#misses.userIds.push(userId);
    return (await this.#misses.found).get(idOf(userId));
  }

  /** Fewer misses than the list's pages and no proof tried: direct reads; else the proof, young or taken anew. */
  async #confirmAll(members: Members, userIds: string[]): Promise<Map<Id, Found | undefined>> {
    if (this.#proof?.of !== members) this.#proof = undefined;
    if (!this.#proof && userIds.length < pagesOf(members)) return readEach(this.#client, this.#integrationId, userIds);
    const now = this.#clock.now();
    if (!this.#proof || now - this.#proof.at > PROOF_MAX_AGE_MS) {
      const before = this.#proof ? (await this.#proof.result).listing : members;
      this.#proof = { at: now, of: members, result: prove(this.#client, this.#integrationId, before, this.#written) };
    }
    const proof = this.#proof.result;
    return confirm(this.#client, this.#integrationId, members, userIds, () => proof);
  }
}

/** The membership views of every integration, over one client: one per integration id in its one form. */
export class MembershipViews {
  readonly #views = new Map<string, MembershipView>();
  readonly #client: WorkspaceAccessClient;
  readonly #maxAgeMs: number;
  readonly #clock: Clock;
  readonly #users: ReadonlySet<string>;

  /** `users`: the users this process created or deleted (`ReadCache.written`), whose memberships a shared list no longer proves. */
  constructor(client: WorkspaceAccessClient, maxAgeMs: number, clock: Clock, users: ReadonlySet<string> = new Set()) {
    this.#client = client;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
    this.#users = users;
  }

  /** The view of `integrationId`, made on first use. */
  of(integrationId: string): MembershipView {
    const view =
      this.#views.get(idOf(integrationId)) ?? new MembershipView(this.#client, integrationId, this.#maxAgeMs, this.#clock, this.#users);
    this.#views.set(idOf(integrationId), view);
    return view;
  }

  /** After a write: that integration's view forgets (that membership, with a user id); without one (a user's write), every view. */
  written(integrationId?: string, userId?: string): void {
    if (integrationId) this.of(integrationId).written(userId);
    else for (const view of this.#views.values()) view.written();
  }
}
