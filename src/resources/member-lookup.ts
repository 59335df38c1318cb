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
 */
import { type Clock, type IntegrationUser, NotFoundError, systemClock, type WorkspaceAccessClient } from "../client";
import { BatchWindow } from "./batch-window";

/** How long the first create waits for others to join it in one list (creates are slow: invite and job). */
export const CREATE_WINDOW_MS = 50;
/** How long a list serves the creates of one deployment (one provider process). */
export const CREATE_LIST_MAX_AGE_MS = 10 * 60_000;

/** A member, or why its record could not be used, by user id. */
export type Members = Map<string, IntegrationUser | Error>;

/** What a lookup found, and whether a shared list answered it. */
export interface MemberLookup {
  member: IntegrationUser | undefined;
  shared: boolean;
}

/** The lookups of one integration. */
class IntegrationMembers {
  /** Wrapped: an `await` of a function returning it must not flatten the list's own promise. */
  #list: { members: Promise<Members> } | undefined;
  #takenAt = 0;
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
    if (this.#shared && !this.#written.has(userId)) {
      const list = await this.#listFor();
      // A failed list is no answer: the create falls back to its own GET.
      const members = list ? await list.members.catch(() => undefined) : undefined;
      if (members) {
        const hit = members.get(userId);
        // The member's record is there but unusable: this create fails naming it, no other.
        if (hit instanceof Error) throw hit;
        return { member: hit, shared: true };
      }
    }
    return { member: await this.#get(userId), shared: false };
  }

  /** This process wrote `userId`'s membership: the list no longer answers for it. */
  written(userId: string): void {
    this.#written.add(userId);
  }

  async #get(userId: string): Promise<IntegrationUser | undefined> {
    try {
      return await this.#client.integrations.getUser(this.#integrationId, userId);
    } catch (error) {
      if (NotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  /**
   * The list to answer from: the one taken for this deployment while it is young enough; else a
   * new one when other creates join this one's window, or when an earlier create of this
   * integration has already been seen (more are coming); `undefined` for the first create when it
   * is alone.
   */
  async #listFor(): Promise<{ members: Promise<Members> } | undefined> {
    if (this.#list && this.#clock.now() - this.#takenAt <= CREATE_LIST_MAX_AGE_MS) return this.#list;
    const earlier = this.#lookups++ > 0;
    const joined = await this.#window.join();
    // The first of the window's creates to wake took the list: the others use it.
    if (this.#list && this.#clock.now() - this.#takenAt <= CREATE_LIST_MAX_AGE_MS) return this.#list;
    if (joined < 2 && !earlier) return undefined;
    this.#takenAt = this.#clock.now();
    const list = { members: this.#take() };
    this.#list = list;
    list.members.catch(() => {
      // A failed list is not kept for later creates.
      if (this.#list === list) this.#list = undefined;
    });
    return list;
  }

  #take(): Promise<Members> {
    return memberList(this.#client, this.#integrationId);
  }
}

/**
 * Every member of an integration by user id, one paged list: a member whose record cannot be used
 * is there too, as the error naming the record (it is a member; what it holds is unknown).
 */
export async function memberList(client: WorkspaceAccessClient, integrationId: string): Promise<Members> {
  const members: Members = new Map();
  const onInvalid = (id: string | undefined, error: Error) => {
    if (id !== undefined) members.set(id, error);
  };
  for await (const member of client.integrations.listUsers(integrationId, { onInvalid })) members.set(member.id, member);
  return members;
}

/** The create lookups of every integration, over one client. */
export class CreateLookups {
  readonly #client: WorkspaceAccessClient;
  readonly #shared: boolean;
  readonly #integrations = new Map<string, IntegrationMembers>();
  readonly #clock: Clock;

  /** `shared: false` (readCacheSeconds 0) makes every lookup its own GET. */
  constructor(client: WorkspaceAccessClient, shared: boolean, clock: Clock = systemClock) {
    this.#client = client;
    this.#shared = shared;
    this.#clock = clock;
  }

  /** Whether `userId` is a member of `integrationId`, before a create writes anything. */
  lookup(integrationId: string, userId: string): Promise<MemberLookup> {
    return this.#for(integrationId).lookup(userId);
  }

  /** A write of this process touched a membership (whether or not it succeeded). */
  written(integrationId: string, userId: string): void {
    this.#for(integrationId).written(userId);
  }

  #for(integrationId: string): IntegrationMembers {
    let members = this.#integrations.get(integrationId);
    if (!members) {
      members = new IntegrationMembers(this.#client, integrationId, this.#shared, this.#clock);
      this.#integrations.set(integrationId, members);
    }
    return members;
  }
}
