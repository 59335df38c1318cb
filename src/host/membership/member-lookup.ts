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
 * A list proves that someone is a member, never that someone is not: a miss in the shared list is
 * confirmed before the create invites anyone (see {@link SharedList.confirm} and `member-list.ts`:
 * a later listing that agrees, then proven, confirms every later miss for a while; else a direct
 * read of each, 404 = absent).
 *
 * User ids compare in their one form (`idOf`): whether the service keeps the case a client sent is
 * not documented.
 */
import { idOf } from "../../client/ids";
import type { Clock, IntegrationUser, WorkspaceAccessClient } from "../../client";
import { BatchWindow } from "../../shared/batch-window";
import {
  confirmAbsent,
  confirmMisses,
  type Members,
  memberList,
  PROOF_MAX_AGE_MS,
  pagesOf,
  prove,
  type Proof,
  readMember,
} from "./member-list";

/** How long the first create waits for others to join it in one list (creates are slow: invite and job). */
export const CREATE_WINDOW_MS = 50;
/** How long a list serves the creates of one deployment (one provider process). */
export const CREATE_LIST_MAX_AGE_MS = 10 * 60_000;

/** What a lookup found: the member (or `undefined`: confirmed not a member), and whether a shared list answered it. */
export interface MemberLookup {
  member: IntegrationUser | undefined;
  shared: boolean;
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
            for (const p of pending) p.settle(found.get(idOf(p.userId)));
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

/** The lookups of one integration before creates (not the `IntegrationMembers` resource), held by its `MembershipView`. */
export class CreateLookups {
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
    if (this.#shared && !this.#written.has(idOf(userId))) {
      const list = await this.#listFor();
      // A failed list is no answer: the create falls back to its own GET.
      const members = list ? await list.members.catch(() => undefined) : undefined;
      if (list && members) {
        const hit = members.get(idOf(userId));
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
    this.#written.add(idOf(userId));
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
