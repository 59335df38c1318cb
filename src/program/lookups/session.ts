/**
 * What the lookups of one run share per workspace and key (a hash of the settings, never the key): one client, its list answers.
 * A lookup that answers from a whole list (a set, a miss, a name that must be unique) takes it proven (`client/absence.ts`):
 * offset pages shift while read, and a record a shift skipped would be a wrong answer, or a resource the program drops.
 */
import { createHash } from "node:crypto";
import type { Entitlement, Integration, IntegrationUser, User, WorkspaceAccessClient } from "../../client";
import { prove } from "../../client/absence";
import { systemClock } from "../../client/clock";
import { unlessNotFound, WorkspaceAccessError } from "../../client/errors";
import { type Id, idOf } from "../../client/ids";
import { MAX_PAGE_SIZE } from "../../client/paginate";
import { programClient, programSettings } from "../program-settings";
import { thisRun } from "../program-run";
import { BatchWindow } from "../../shared/batch-window";

/** How long a lookup by id waits for others to join it (then they share one listing). */
const LOOKUP_BATCH_WINDOW_MS = 5;
/** How many more listings a list may cost to be proven complete (two in a row agreeing at different page sizes). */
const LOOKUP_PROOF_LISTINGS = 2;

/** A paged list read at a page size, by id in its one form. */
type ListAt<T> = (pageSize: number) => AsyncIterable<T>;

/** The lookups' view of one workspace. */
export class LookupSession {
  /** Where the workspace is, for messages: its host, e.g. `acme.example.com`. */
  readonly workspace: string;
  readonly #client: WorkspaceAccessClient;
  readonly #calls = new Map<string, Promise<unknown>>();
  readonly #window = new BatchWindow(LOOKUP_BATCH_WINDOW_MS, () => systemClock);
  /** The workspace's users, and its integrations, listed at a page size. */
  readonly #usersAt: ListAt<User> = (pageSize) => this.#client.users.list({ pageSize });
  readonly #integrationsAt: ListAt<Integration> = (pageSize) => this.#client.integrations.list({ pageSize });

  constructor(client: WorkspaceAccessClient) {
    this.#client = client;
    this.workspace = new URL(client.baseUrl).host;
  }

  /** A view of the same workspace that remembers nothing yet: a lookup after its `dependsOn` must see what they wrote. */
  fresh(): LookupSession {
    return new LookupSession(this.#client);
  }

  /** Every user of the workspace, or those whose name or email contains `search` (the API's `filter`): one proven listing per run. */
  users(search?: string): Promise<User[]> {
    if (search === undefined) return this.#proven("users", "users", this.#usersAt);
    return this.#proven(`users?filter=${search}`, "users", (pageSize) => this.#client.users.list({ filter: search, pageSize }));
  }

  /** Every user as one listing has them: proof of presence only (a user it misses may be there: {@link users} decides that). */
  async listedUsers(): Promise<User[]> {
    return [...(await this.#listing("users", this.#usersAt)).values()];
  }

  /** A user by id, or `undefined`: lookups by id that arrive together share a listing (presence); a lone one, or one it misses, is one `GET`. */
  user(id: string): Promise<User | undefined> {
    return this.#call(`user:${idOf(id)}`, async () => {
      const shared = this.#calls.has("users") || (await this.#window.join()) > 1 || this.#calls.has("users");
      const listed = shared ? await this.#listing("users", this.#usersAt) : undefined;
      return listed?.get(idOf(id)) ?? unlessNotFound(this.#client.users.get(id));
    });
  }

  /** Every integration of the workspace: one proven listing per run. */
  allIntegrations(): Promise<Integration[]> {
    return this.#proven("integrations", "integrations", this.#integrationsAt);
  }

  /** An integration by id, or `undefined`: from the listing when it was taken (presence), else one `GET`. */
  integration(id: string): Promise<Integration | undefined> {
    return this.#call(`integration:${idOf(id)}`, async () => {
      const listed = this.#calls.has("integrations") ? await this.#listing("integrations", this.#integrationsAt) : undefined;
      return listed?.get(idOf(id)) ?? unlessNotFound(this.#client.integrations.get(id));
    });
  }

  /** The entitlements an integration offers, or `undefined` when there is no such integration. */
  entitlements(integrationId: string): Promise<Entitlement[] | undefined> {
    return this.#call(`entitlements:${integrationId}`, () => unlessNotFound(this.#client.integrations.listEntitlements(integrationId)));
  }

  /** The members of an integration (a proven listing), or `undefined` when there is no such integration. */
  members(integrationId: string): Promise<IntegrationUser[] | undefined> {
    const listAt: ListAt<IntegrationUser> = (pageSize) => this.#client.integrations.listUsers(integrationId, { pageSize });
    return unlessNotFound(this.#proven(`members:${idOf(integrationId)}`, `members of integration ${integrationId}`, listAt));
  }

  /** The first listing of `key` (each record once, by id): it proves presence only. */
  #listing<T extends { id: string }>(key: string, listAt: ListAt<T>): Promise<Map<Id, T>> {
    return this.#call(key, () => mapById(listAt(MAX_PAGE_SIZE)));
  }

  /** The records of `key`, the listing proven complete by another at a different page size agreeing with it; else it fails. */
  #proven<T extends { id: string }>(key: string, what: string, listAt: ListAt<T>): Promise<T[]> {
    return this.#call(`${key} (proven)`, async () => {
      const proof = await prove((pageSize) => mapById(listAt(pageSize)), await this.#listing(key, listAt), {
        listings: LOOKUP_PROOF_LISTINGS,
      });
      if (proof.proven) return [...proof.listing.values()];
      if (proof.error !== undefined) throw proof.error;
      throw new WorkspaceAccessError(
        `Could not read the ${what} of the workspace at ${this.workspace} completely: ${LOOKUP_PROOF_LISTINGS + 1} listings at ` +
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

/** Each record of a listing once, by id in its one form. */
async function mapById<T extends { id: string }>(records: AsyncIterable<T>): Promise<Map<Id, T>> {
  const byId = new Map<Id, T>();
  for await (const record of records) byId.set(idOf(record.id), record);
  return byId;
}

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
