/**
 * One integration's membership as this provider process sees it, held by the provider context
 * (`ctx.connection().memberships.of(integrationId)`): every `IntegrationEntitlement` handler asks it,
 * and it alone reads the integration's members. It owns the list a refresh's reads share (a lone
 * read costs one GET), the creates' lookups with their one proof of absence (`member-lookup.ts`,
 * `member-list.ts`, over `client/absence.ts`), the one direct read of a member (`undefined`: not a
 * member), whether the integration answers this key at all, and what a write makes it forget.
 */
import { idOf } from "../../client/ids";
import { type Clock, type IntegrationUser, NotFoundError, systemClock, type WorkspaceAccessClient } from "../../client";
import { CreateLookups, type MemberLookup } from "./member-lookup";
import { readMember } from "./member-list";
import { Batcher } from "../read-cache";

/** The membership of one integration: its shared listings, its one member read, its invalidation. */
export class MembershipView {
  readonly #client: WorkspaceAccessClient;
  readonly #integrationId: string;
  readonly #reads: Batcher<IntegrationUser>;
  readonly #creates: CreateLookups;
  /** Whether the integration answers this key (its reads 404 otherwise), asked once. */
  #visible: Promise<boolean> | undefined;

  /** `maxAgeMs` is `readCacheSeconds`: 0 makes every read and lookup its own GET. */
  constructor(client: WorkspaceAccessClient, integrationId: string, maxAgeMs: number, clock: Clock) {
    this.#client = client;
    this.#integrationId = integrationId;
    this.#reads = new Batcher(
      maxAgeMs,
      clock,
      () => client.integrations.listUsers(integrationId),
      (id) => client.integrations.getUser(integrationId, id),
    );
    this.#creates = new CreateLookups(client, integrationId, maxAgeMs > 0, clock);
  }

  /** A refresh's read: the member, or `undefined` when the user is not one (a miss in a shared list is read directly). */
  member(userId: string): Promise<IntegrationUser | undefined> {
    return this.#reads.read(userId);
  }

  /** Whether the user is a member already, before a create writes anything; an absence is always confirmed. */
  beforeCreate(userId: string): Promise<MemberLookup> {
    return this.#creates.lookup(userId);
  }

  /** The one direct read: the member, or `undefined` when the service answers 404. */
  read(userId: string): Promise<IntegrationUser | undefined> {
    return readMember(this.#client, this.#integrationId, userId);
  }

  /**
   * Whether the integration answers this key (`GET /integrations/{id}`): `false` on 404, which
   * means deleted or not disclosed to this key. Asked once; an error other than 404 is thrown
   * (and asked again next time).
   */
  visible(): Promise<boolean> {
    if (!this.#visible) {
      this.#visible = this.#client.integrations.get(this.#integrationId).then(
        () => true,
        (error: unknown) => {
          if (NotFoundError.isInstance(error)) return false;
          this.#visible = undefined;
          throw error;
        },
      );
    }
    return this.#visible;
  }

  /** A write touched this integration (`userId`'s membership, when named): the shared lists no longer answer for it. */
  written(userId?: string): void {
    this.#reads.invalidate();
    if (userId) this.#creates.written(userId);
  }
}

/** The membership views of every integration, over one client: one per integration id in its one form. */
export class MembershipViews {
  readonly #views = new Map<string, MembershipView>();
  readonly #client: WorkspaceAccessClient;
  readonly #maxAgeMs: number;
  readonly #clock: Clock;

  constructor(client: WorkspaceAccessClient, maxAgeMs: number, clock: Clock = systemClock) {
    this.#client = client;
    this.#maxAgeMs = maxAgeMs;
    this.#clock = clock;
  }

  /** The view of `integrationId`, made on first use. */
  of(integrationId: string): MembershipView {
    let view = this.#views.get(idOf(integrationId));
    if (!view) {
      view = new MembershipView(this.#client, integrationId, this.#maxAgeMs, this.#clock);
      this.#views.set(idOf(integrationId), view);
    }
    return view;
  }

  /**
   * After a write: with an integration id, that integration's view forgets (and, with a user id,
   * that membership); without, every view (a user write: deleting a user ends its memberships, and
   * a user's name and email show in member lists).
   */
  written(integrationId?: string, userId?: string): void {
    if (integrationId) this.of(integrationId).written(userId);
    else for (const view of this.#views.values()) view.written();
  }
}
