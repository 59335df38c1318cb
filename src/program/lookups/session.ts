/** What the lookups of one run share per workspace and key (a hash of the settings, never the key): one client, its list answers. */
import { createHash } from "node:crypto";
import type { Entitlement, Integration, IntegrationUser, User, WorkspaceAccessClient } from "../../client";
import { systemClock } from "../../client/clock";
import { unlessNotFound } from "../../client/errors";
import { collect } from "../../client/models";
import { idOf } from "../../client/ids";
import { programClient, programSettings } from "../program-settings";
import { thisRun } from "../program-run";
import { BatchWindow } from "../../shared/batch-window";

/** How long a lookup by id waits for others to join it (then they share one listing). */
const LOOKUP_BATCH_WINDOW_MS = 5;

/** The lookups' view of one workspace. */
export class LookupSession {
  /** Where the workspace is, for messages: its host, e.g. `acme.example.com`. */
  readonly workspace: string;
  readonly #client: WorkspaceAccessClient;
  readonly #calls = new Map<string, Promise<unknown>>();
  readonly #window = new BatchWindow(LOOKUP_BATCH_WINDOW_MS, () => systemClock);

  constructor(client: WorkspaceAccessClient) {
    this.#client = client;
    this.workspace = new URL(client.baseUrl).host;
  }

  /** Every user of the workspace, or those whose name or email contains `search` (the API's `filter`): one paged listing per run. */
  users(search?: string): Promise<User[]> {
    const options = search === undefined ? {} : { filter: search };
    return this.#call(search === undefined ? "users" : `users?filter=${search}`, () => collect(this.#client.users.list(options)));
  }

  /** A user by id, or `undefined`: lookups by id that arrive together share the listing; a lone one, or one missing from it, is one `GET`. */
  user(id: string): Promise<User | undefined> {
    return this.#call(`user:${idOf(id)}`, async () => {
      const shared = this.#calls.has("users") || (await this.#window.join()) > 1 || this.#calls.has("users");
      const listed = shared ? await this.users() : [];
      return listed.find((user) => user.id === idOf(id)) ?? unlessNotFound(this.#client.users.get(id));
    });
  }

  /** Every integration of the workspace: one paged listing per run. */
  allIntegrations(): Promise<Integration[]> {
    return this.#call("integrations", () => collect(this.#client.integrations.list()));
  }

  /** An integration by id, or `undefined`: from the listing when it was taken, else one `GET`. */
  integration(id: string): Promise<Integration | undefined> {
    return this.#call(`integration:${idOf(id)}`, async () => {
      const listed = this.#calls.has("integrations") ? await this.allIntegrations() : [];
      return listed.find((integration) => integration.id === idOf(id)) ?? unlessNotFound(this.#client.integrations.get(id));
    });
  }

  /** The entitlements an integration offers, or `undefined` when there is no such integration. */
  entitlements(integrationId: string): Promise<Entitlement[] | undefined> {
    return this.#call(`entitlements:${integrationId}`, () => unlessNotFound(this.#client.integrations.listEntitlements(integrationId)));
  }

  /** The members of an integration, or `undefined` when there is no such integration. */
  members(integrationId: string): Promise<IntegrationUser[] | undefined> {
    return this.#call(`members:${integrationId}`, () => unlessNotFound(collect(this.#client.integrations.listUsers(integrationId))));
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
