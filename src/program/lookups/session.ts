/**
 * What the lookups of one run share per workspace and key (a hash of the settings, never the key): one client, its list answers.
 * A lookup that answers from a whole list (a set, a miss, a name that must be unique) takes it proven (`client/absence.ts`):
 * offset pages shift while read, and a record a shift skipped would be a wrong answer, or a resource the program drops.
 */
import { createHash } from "node:crypto";
import type { Entitlement, Integration, IntegrationUser, User, WorkspaceAccessClient } from "../../client";
import { prove } from "../../client/absence";
import { systemClock } from "../../client/clock";
import { InvalidResponseError, isAmbiguous, NotFoundError, unlessNotFound, WorkspaceAccessError } from "../../client/errors";
import { type Id, idOf } from "../../client/ids";
import { MAX_PAGE_SIZE, mayHave, type ReadableFields } from "../../client/paginate";
import { programClient, programSettings } from "../program-settings";
import { thisRun } from "../program-run";
import { BatchWindow } from "../../shared/batch-window";

/** How long a lookup by id waits for others to join it (then, {@link IDS_FOR_A_LISTING} or more, they share one listing). */
const LOOKUP_BATCH_WINDOW_MS = 5;
/**
 * How many lookups of users by id arriving together may share one listing of the users instead of reading each by id: a listing
 * costs a request per 100 users (200 in a workspace of 20,000), so a few lookups read their own records (one `GET` each, sent
 * together, at most this many less one where a page would do); as many or more ask how many users there are (a page of one), and
 * share a listing when it costs fewer requests than their reads. @internal
 */
export const IDS_FOR_A_LISTING = 25;
/** How many more listings a list may cost to be proven complete (two in a row agreeing at different page sizes). */
const LOOKUP_PROOF_LISTINGS = 2;

/** A paged list read at a page size, handing each record it cannot read to `onInvalid` (with its fields that are text). */
type ListAt<T> = (
  pageSize: number,
  onInvalid: (id: string | undefined, error: InvalidResponseError, readable: ReadableFields) => void,
) => AsyncIterable<T>;

/** A record a listing served and could not read (a field of the wrong type): it is there, but what it holds is unknown. */
export class UnreadRecord {
  /** Its id as the service sent it, `undefined` when it had none. */
  readonly id: string | undefined;
  readonly error: InvalidResponseError;
  /** Its `email`, `label` and `application` that are text: a lookup by another value of one of them need not wait on it. */
  readonly readable: ReadableFields;
  constructor(id: string | undefined, error: InvalidResponseError, readable: ReadableFields = {}) {
    this.id = id;
    this.error = error;
    this.readable = readable;
  }

  /** Whether it may be the record whose `field` is `value` (`mayHave` in `client/paginate.ts`). */
  mayHave(field: keyof ReadableFields, value: string, same?: (a: string, b: string) => boolean): boolean {
    return mayHave(this.readable, field, value, same);
  }
}

/** A list proven complete: the records read, and those that could not be (any of which may be what a lookup looks for). */
export interface ProvenList<T> {
  records: T[];
  unread: UnreadRecord[];
}

/** A listing by id in its one form; a record without an id under a key of its own. */
type Listing<T> = Map<Id, T | UnreadRecord>;

/** The lookups' view of one workspace. */
export class LookupSession {
  /** Where the workspace is, for messages: its host, e.g. `acme.example.com`. */
  readonly workspace: string;
  readonly #client: WorkspaceAccessClient;
  readonly #calls = new Map<string, Promise<unknown>>();
  /** The views for lookups after resources, by those resources (see {@link after}). */
  readonly #after = new Map<string, LookupSession>();
  readonly #window = new BatchWindow(LOOKUP_BATCH_WINDOW_MS, () => systemClock);
  /** The workspace's users, and its integrations, listed at a page size. */
  readonly #usersAt: ListAt<User> = (pageSize, onInvalid) => this.#client.users.list({ pageSize, onInvalid });
  readonly #integrationsAt: ListAt<Integration> = (pageSize, onInvalid) => this.#client.integrations.list({ pageSize, onInvalid });

  constructor(client: WorkspaceAccessClient) {
    this.#client = client;
    this.workspace = new URL(client.baseUrl).host;
  }

  /**
   * The view of the same workspace for the lookups that waited for the resources `waitedFor` names (their sorted URNs): it remembers
   * nothing the run read before them (a lookup after them must see what they wrote), and is shared by every lookup that waited for
   * that same set, once they exist.
   */
  after(waitedFor: string): LookupSession {
    let session = this.#after.get(waitedFor);
    if (!session) {
      session = new LookupSession(this.#client);
      this.#after.set(waitedFor, session);
    }
    return session;
  }

  /** Every user of the workspace: one proven listing per run. */
  users(): Promise<ProvenList<User>> {
    return this.#proven("users", "users", this.#usersAt);
  }

  /** The users one listing could read: proof of presence only (a user it misses may be there: {@link users} decides that). */
  async listedUsers(): Promise<User[]> {
    return readable(await this.#listing("users", this.#usersAt));
  }

  /**
   * A user by id, or `undefined`: one `GET`, unless the run has listed the users or is listing them, or {@link IDS_FOR_A_LISTING}
   * lookups by id or more arrive together in a workspace whose listing costs fewer requests than their reads, which then share one
   * (presence: one it misses is read by its own `GET`).
   */
  user(id: string): Promise<User | undefined> {
    return this.#call(`user:${idOf(id)}`, async () => {
      const together = this.#calls.has("users") ? 0 : await this.#window.join();
      const shared = this.#calls.has("users") || (together >= IDS_FOR_A_LISTING && (await this.#listingCheaper(together)));
      const listed = shared ? await this.#joined("users", this.#usersAt) : undefined;
      return readableOr(listed?.get(idOf(id)), () => unlessNotFound(this.#client.users.get(id)));
    });
  }

  /**
   * Whether one listing of the users costs fewer requests than `reads` reads by id: by how many users a page of one says there are
   * (asked once per run). A workspace that does not say, or a page that fails as a listing may (a 5xx, a page that cannot be read,
   * no answer: {@link #joined}), is read by id: that cost is bounded by the lookups, a listing's is not; a refused key fails the
   * lookups, asking nothing more.
   */
  async #listingCheaper(reads: number): Promise<boolean> {
    const total = await this.#call("users:count", () =>
      this.#client.users.count().catch((error: unknown) => {
        if (listingOnly(error)) return null;
        throw error;
      }),
    );
    return typeof total === "number" && Math.ceil(total / MAX_PAGE_SIZE) < reads;
  }

  /** Every integration of the workspace: one proven listing per run. */
  allIntegrations(): Promise<ProvenList<Integration>> {
    return this.#proven("integrations", "integrations", this.#integrationsAt);
  }

  /**
   * An integration by id, or `undefined` when it is gone: from the listing when it was taken (presence), else its own read, the
   * client's `integrations.presence` (one `GET`; not disclosed to this key, it fails).
   */
  integration(id: string): Promise<Integration | undefined> {
    return this.#call(`integration:${idOf(id)}`, async () => {
      const listed = this.#calls.has("integrations") ? await this.#joined("integrations", this.#integrationsAt) : undefined;
      return readableOr(listed?.get(idOf(id)), async () => {
        const presence = await this.#client.integrations.presence(id);
        if (presence.kind === "undisclosed") throw presence.error;
        return presence.kind === "there" ? presence.integration : undefined;
      });
    });
  }

  /** The entitlements an integration offers, or `undefined` when there is no such integration. */
  entitlements(integrationId: string): Promise<Entitlement[] | undefined> {
    return this.#call(`entitlements:${idOf(integrationId)}`, () =>
      this.#unlessNoIntegration(integrationId, "entitlements", this.#client.integrations.listEntitlements(integrationId)),
    );
  }

  /** The members of an integration (a proven listing), or `undefined` when there is no such integration. */
  members(integrationId: string): Promise<ProvenList<IntegrationUser> | undefined> {
    const listAt: ListAt<IntegrationUser> = (pageSize, onInvalid) =>
      this.#client.integrations.listUsers(integrationId, { pageSize, onInvalid });
    // One call for the lookups that ask together: the note below is added to their one error once.
    return this.#call(`members:${idOf(integrationId)} (or absent)`, () =>
      this.#unlessNoIntegration(
        integrationId,
        "members",
        this.#proven(`members:${idOf(integrationId)}`, `members of integration ${integrationId}`, listAt),
      ),
    );
  }

  /**
   * `read`, a list of the integration `integrationId`, or `undefined` when it answers 404 and the integration itself is gone
   * ({@link integration}). 404 is "not found, or not disclosed": an integration that answers is there, and the error says its
   * `what` are not disclosed to this key.
   */
  async #unlessNoIntegration<T>(integrationId: string, what: string, read: Promise<T>): Promise<T | undefined> {
    try {
      return await read;
    } catch (error) {
      if (!NotFoundError.isInstance(error)) throw error;
      if ((await this.integration(integrationId)) === undefined) return undefined;
      error.message += ` The integration ${integrationId} itself answers: its ${what} are not disclosed to this API key.`;
      throw error;
    }
  }

  /** The first listing of `key` (each record once, by id): it proves presence only. */
  #listing<T extends { id: string }>(key: string, listAt: ListAt<T>): Promise<Listing<T>> {
    return this.#call(key, () => mapById(listAt, MAX_PAGE_SIZE));
  }

  /**
   * The listing of `key` for a lookup by id that joins it (it only saves that lookup a request): `undefined` when the listing
   * failed in a way the lookup's own read need not (a 5xx, a page that cannot be read, no answer), so that it reads by id; a
   * refused key, or any other failure, is the lookup's too (its own read would be refused the same way).
   */
  async #joined<T extends { id: string }>(key: string, listAt: ListAt<T>): Promise<Listing<T> | undefined> {
    try {
      return await this.#listing(key, listAt);
    } catch (error) {
      if (listingOnly(error)) return undefined;
      throw error;
    }
  }

  /**
   * The records of `key`, the listing proven complete by another at a different page size agreeing with it (the records it could
   * not read among them: they are there too); else it fails.
   */
  #proven<T extends { id: string }>(key: string, what: string, listAt: ListAt<T>): Promise<ProvenList<T>> {
    return this.#call(`${key} (proven)`, async () => {
      const proof = await prove((pageSize) => mapById(listAt, pageSize), await this.#listing(key, listAt), {
        listings: LOOKUP_PROOF_LISTINGS,
      });
      if (proof.proven) {
        const all = [...proof.listing.values()];
        return { records: readable(proof.listing), unread: all.filter((r): r is UnreadRecord => r instanceof UnreadRecord) };
      }
      if (proof.error !== undefined) throw proof.error;
      throw new WorkspaceAccessError(
        `could not read the ${what} of the workspace at ${this.workspace} completely: ${LOOKUP_PROOF_LISTINGS + 1} listings at ` +
          "different page sizes disagreed (records came or went while they were read), and a lookup answers from a whole list " +
          "only. Nothing was decided; run again.",
        { kind: "invalid_response", method: "GET" },
      );
    });
  }

  /** One call per key and run: kept while it succeeds, forgotten when it fails (a later lookup may try again). */
  #call<T>(key: string, make: () => Promise<T>): Promise<T> {
    const known = this.#calls.get(key) as Promise<T> | undefined;
    if (known) return known;
    const made = make();
    this.#calls.set(key, made);
    made.catch(() => {
      if (this.#calls.get(key) === made) this.#calls.delete(key);
    });
    return made;
  }
}

/** Each record of a listing once, by id in its one form, those it could not read too (one without an id under a key of its own). */
async function mapById<T extends { id: string }>(listAt: ListAt<T>, pageSize: number): Promise<Listing<T>> {
  const byId: Listing<T> = new Map();
  let withoutId = 0;
  const onInvalid = (id: string | undefined, error: InvalidResponseError, readable: ReadableFields) =>
    void byId.set(id === undefined ? (`(no id ${++withoutId})` as Id) : idOf(id), new UnreadRecord(id, error, readable));
  for await (const record of listAt(pageSize, onInvalid)) byId.set(idOf(record.id), record);
  return byId;
}

/** A listing's failure a read of one record may not share: the service failing (5xx), a page not read, no answer. */
const listingOnly = (error: unknown) => isAmbiguous(error) || InvalidResponseError.isInstance(error);

/** The records of a listing it could read. */
const readable = <T>(listing: Listing<T>): T[] => [...listing.values()].filter((r): r is T => !(r instanceof UnreadRecord));

/** A record the listing read, else (missed, or there but unreadable) what `read` gets directly. */
const readableOr = <T>(listed: T | UnreadRecord | undefined, read: () => Promise<T | undefined>): Promise<T | undefined> | T =>
  listed === undefined || listed instanceof UnreadRecord ? read() : listed;

/** The session of this run and the settings in force, checked before any request as {@link getJob} checks them. */
export function lookupSession(): Promise<LookupSession> {
  const settings = programSettings();
  const fingerprint = createHash("sha256").update(JSON.stringify(settings)).digest("hex");
  const sessions = thisRun().lookups;
  let session = sessions.get(fingerprint);
  if (!session) {
    session = programClient(systemClock, settings).then((client) => new LookupSession(client));
    sessions.set(fingerprint, session);
  }
  return session;
}
