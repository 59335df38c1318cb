import { ConfigurationError, NotFoundError } from "./errors";
import { type Id, idOf } from "./ids";
import type { HttpTransport, RequestSpec } from "./transport";
import type { JobHandle, JobsApi } from "./jobs";
import { type Entitlement, type Integration, type IntegrationUser, toEntitlement, toIntegration, toIntegrationUser } from "./models";
import { invalidRecord, type ListOptions, paginate } from "./paginate";
import { pathOf } from "./path";
import { changeEntitlementsBody, type IntegrationRole, inviteBody, setEntitlementsBody } from "./requests";
import { schemas } from "./schemas";
import { OPERATION_SCOPES, SCOPES } from "./scopes";

const READ_USERS = [SCOPES.readIntegrations, SCOPES.readUsers] as const;
/** What else a member's entitlement write names, which may answer 404: an entitlement the integration does not offer. */
const ENTITLEMENTS = "an entitlement the body names";

/**
 * What an integration's own read (`GET /integrations/{id}`) says of it, asked after a 404 to a list under it (its members, its
 * catalogue), which may mean the integration gone or only that list withheld: `there` (its record); `gone` (404, which the
 * transport trusts only once the key is shown integrations: `#unlessHidden`); `undisclosed`, the transport's refusal to read
 * that 404 as an absence (the service does not disclose integrations to this key, or the address is not the API's root; its
 * error names the setting to fix). Any other failure of the read is thrown: it says nothing of the integration.
 */
export type IntegrationPresence =
  | { kind: "there"; integration: Integration }
  | { kind: "gone" }
  | { kind: "undisclosed"; error: ConfigurationError };

/**
 * How long an answer of {@link IntegrationsApi.presence} (`there` or `gone`) is reused, from its arrival, on the client's clock:
 * long enough for the resources of a deployment that get a 404 together to share one read, short enough that an integration
 * deleted during a deployment is not called there by a later operation's message.
 */
export const PRESENCE_MAX_AGE_MS = 5_000;

/** A {@link IntegrationsApi.presence} asked: its answer, and when it arrived (the client's clock), once it has. */
interface PresenceAsked {
  answer: Promise<IntegrationPresence>;
  at?: number;
}

/** What to invite into an integration. */
export interface InviteOptions {
  userIds: readonly string[];
  /** Default `account_collaborator`. */
  role?: IntegrationRole;
  entitlements: readonly string[];
}

/** `integrations/{id}`, and below it `parts`. */
const under = (id: string, ...parts: Array<[string, string] | string>) => pathOf("integrations", [id, "integration id"], ...parts);

/**
 * The read of one member: `GET integrations/{id}/users/{userId}`. Its 404 ("not a member") is trusted once the key is shown
 * integrations and users: its integration's member list (one record) shows both at once (the transport's `#unlessHidden`).
 */
const memberRead = (id: string, userId: string): RequestSpec => ({
  method: "GET",
  path: under(id, "users", [userId, "user id"]),
  scopes: READ_USERS,
  disclosedBy: { method: "GET", path: under(id, "users"), query: { "page[size]": 1 }, scopes: READ_USERS },
});

/** Integrations, their entitlement catalogues, members and members' entitlements. */
export class IntegrationsApi {
  readonly #http: HttpTransport;
  readonly #jobs: JobsApi;
  readonly #presence = new Map<Id, PresenceAsked>();

  /** @internal Built by {@link WorkspaceAccessClient}. */
  constructor(http: HttpTransport, jobs: JobsApi) {
    this.#http = http;
    this.#jobs = jobs;
  }

  /** Every integration of the workspace, page by page (two may share an `application`). */
  async *list(options: ListOptions = {}): AsyncGenerator<Integration> {
    const list = { path: "integrations", scopes: [SCOPES.readIntegrations] };
    yield* paginate(this.#http, list, schemas().integrationRecord, toIntegration, options);
  }

  /** Reads an integration. */
  async get(id: string): Promise<Integration> {
    const spec = { method: "GET", path: under(id), scopes: [SCOPES.readIntegrations] } as const;
    return toIntegration((await this.#http.request(spec, schemas().integration)).data.data);
  }

  /**
   * Whether the integration is there, gone, or not disclosed to this key ({@link IntegrationPresence}): the package's one way to
   * ask, for its lookups, the entitlement check and both membership resources. One `GET /integrations/{id}` for everyone who
   * asks while it is in flight, its answer reused for {@link PRESENCE_MAX_AGE_MS} after it arrived; an `undisclosed`, or a
   * failure, is not kept (the next ask reads again). @internal
   */
  presence(id: string): Promise<IntegrationPresence> {
    const key = idOf(id);
    const { clock } = this.#http.deps;
    const known = this.#presence.get(key);
    if (known && (known.at === undefined || clock.now() - known.at <= PRESENCE_MAX_AGE_MS)) return known.answer;
    const arrived = (presence: IntegrationPresence) => {
      asked.at = clock.now();
      return presence;
    };
    const asked: PresenceAsked = {
      answer: this.get(id).then(
        (integration) => arrived({ kind: "there", integration }),
        (error: unknown): IntegrationPresence => {
          if (NotFoundError.isInstance(error)) return arrived({ kind: "gone" });
          if (this.#presence.get(key) === asked) this.#presence.delete(key);
          if (ConfigurationError.isInstance(error)) return { kind: "undisclosed", error };
          throw error;
        },
      ),
    };
    this.#presence.set(key, asked);
    return asked.answer;
  }

  /**
   * The entitlements an integration offers (not paged). A record that breaks the contract fails the catalogue, named by its id
   * (when it has one) as a list names it: its position alone tells the service's admin nothing.
   */
  async listEntitlements(id: string): Promise<Entitlement[]> {
    const spec = {
      method: "GET",
      path: under(id, "entitlements"),
      scopes: OPERATION_SCOPES.listEntitlements,
      scopesInDoubt: true,
    } as const;
    const { status, data } = await this.#http.request(spec, schemas().page);
    return data.data.map((item, i) => {
      const parsed = schemas().entitlementRecord.safeParse(item);
      if (parsed.success) return toEntitlement(parsed.data);
      const path = new URL(spec.path, this.#http.settings.baseUrl).pathname;
      throw invalidRecord(this.#http, path, status, item, parsed.error.issues, ["data", String(i)]).error;
    });
  }

  /** Every member of an integration, page by page. */
  async *listUsers(id: string, options: ListOptions = {}): AsyncGenerator<IntegrationUser> {
    const list = { path: under(id, "users"), scopes: READ_USERS };
    yield* paginate(this.#http, list, schemas().integrationUserRecord, toIntegrationUser, options);
  }

  /** One member; 404 raises {@link NotFoundError} when the user is not a member. */
  async getUser(id: string, userId: string): Promise<IntegrationUser> {
    return toIntegrationUser((await this.#http.request(memberRead(id, userId), schemas().member)).data.data);
  }

  /** Invites users with entitlements. A POST: not re-sent on an ambiguous failure. */
  async invite(id: string, options: InviteOptions): Promise<JobHandle> {
    // The hot path of a deployment's creates: the request is sent from here, not through #write (one frame less).
    const path = under(id, "users");
    const body = inviteBody(options.userIds, options.role ?? "account_collaborator", options.entitlements);
    const target = { what: `integration ${idOf(id)}`, alsoNamed: "a user or an entitlement the invitation names" };
    const spec = { method: "POST", path, body, scopes: OPERATION_SCOPES.invite, job: "always", target } as const;
    const answer = await this.#http.request(spec, schemas().anyAnswer);
    return this.#jobs.handleOf(answer, "POST", path);
  }

  /** Replaces a member's whole entitlement set. */
  async setEntitlements(id: string, userId: string, entitlements: readonly string[]): Promise<JobHandle> {
    return this.#write("PATCH", id, userId, under(id, "users", [userId, "user id"]), setEntitlementsBody(entitlements), ENTITLEMENTS);
  }

  /** Adds and removes entitlements of a member. */
  async changeEntitlements(
    id: string,
    userId: string,
    change: { add?: readonly string[]; remove?: readonly string[] },
  ): Promise<JobHandle> {
    const body = changeEntitlementsBody(change.add ?? [], change.remove ?? []);
    return this.#write("PATCH", id, userId, under(id, "users", [userId, "user id"], "entitlements"), body, ENTITLEMENTS);
  }

  /**
   * Removes a member from an integration; 404 raises {@link NotFoundError} once the member's read answers 404 too, unless the
   * `DELETE` was sent again after one without a final answer: that one most likely removed them, and it is done (no job).
   */
  async removeUser(id: string, userId: string): Promise<JobHandle> {
    return this.#write("DELETE", id, userId, memberRead(id, userId).path);
  }

  /**
   * Sends a write of member `userId` and hands back its job; an answer that is no job means the write is done (`id: null`,
   * nothing to wait for). It names the member's read, which its 404 may need, and what else its body names (`alsoNamed`).
   */
  async #write(
    method: "PATCH" | "DELETE",
    id: string,
    userId: string,
    path: string,
    body?: unknown,
    alsoNamed?: string,
  ): Promise<JobHandle> {
    const target = { what: `the membership of user ${idOf(userId)} in integration ${idOf(id)}`, ...(alsoNamed && { alsoNamed }) };
    const record = memberRead(id, userId);
    const spec = { method, path, body, scopes: OPERATION_SCOPES.memberWrite, job: "always", target, record } as const;
    const answer = await this.#http.request(spec, schemas().anyAnswer);
    return this.#jobs.handleOf(answer, method, path);
  }
}
