import type { HttpTransport } from "./transport";
import { type JobHandle, type JobsApi, jobOfAnswer } from "./jobs";
import { type Entitlement, type Integration, type IntegrationUser, toEntitlement, toIntegration, toIntegrationUser } from "./models";
import { type ListOptions, pageSize, paginate } from "./paginate";
import { pathOf } from "./path";
import { changeEntitlementsBody, type IntegrationRole, inviteBody, setEntitlementsBody } from "./requests";
import { page, schemas, single } from "./schemas";
import { OPERATION_SCOPES, SCOPES, type Scope } from "./scopes";

const READ_USERS = [SCOPES.readIntegrations, SCOPES.readUsers] as const;

/** What to invite into an integration. */
export interface InviteOptions {
  userIds: readonly string[];
  /** Default `account_collaborator`. */
  role?: IntegrationRole;
  entitlements: readonly string[];
}

/** Integrations, their entitlement catalogues, members and members' entitlements. */
export class IntegrationsApi {
  readonly #http: HttpTransport;
  readonly #jobs: JobsApi;

  /** @internal Built by {@link WorkspaceAccessClient}. */
  constructor(http: HttpTransport, jobs: JobsApi) {
    this.#http = http;
    this.#jobs = jobs;
  }

  /**
   * Every integration of the workspace, page by page (two may share an `application`). A record
   * that does not match the contract goes to `options.onInvalid` (else is skipped), as in the
   * other lists.
   */
  async *list(options: ListOptions = {}): AsyncGenerator<Integration> {
    const first = {
      method: "GET" as const,
      path: "integrations",
      query: { "page[size]": pageSize(options.pageSize) },
      scopes: [SCOPES.readIntegrations],
    };
    for await (const record of paginate(this.#http, first, schemas().integrationRecord, options.onInvalid)) {
      yield toIntegration(record);
    }
  }

  /** Reads an integration. */
  async get(id: string): Promise<Integration> {
    const { data } = await this.#http.request(
      { method: "GET", path: pathOf("integrations", [id, "integration id"]), scopes: [SCOPES.readIntegrations] },
      single(schemas().integrationRecord),
    );
    return toIntegration(data.data);
  }

  /** The entitlements an integration offers (not paged). */
  async listEntitlements(id: string): Promise<Entitlement[]> {
    const { data } = await this.#http.request(
      {
        method: "GET",
        path: pathOf("integrations", [id, "integration id"], "entitlements"),
        scopes: OPERATION_SCOPES.listEntitlements,
      },
      page(schemas().entitlementRecord),
    );
    return data.data.map(toEntitlement);
  }

  /** Every member of an integration, page by page. */
  async *listUsers(id: string, options: ListOptions = {}): AsyncGenerator<IntegrationUser> {
    const first = {
      method: "GET" as const,
      path: pathOf("integrations", [id, "integration id"], "users"),
      query: { "page[size]": pageSize(options.pageSize) },
      scopes: READ_USERS,
    };
    for await (const record of paginate(this.#http, first, schemas().integrationUserRecord, options.onInvalid)) {
      yield toIntegrationUser(record);
    }
  }

  /** One member; 404 raises {@link NotFoundError} when the user is not a member. */
  async getUser(id: string, userId: string): Promise<IntegrationUser> {
    const { data } = await this.#http.request(
      {
        method: "GET",
        path: pathOf("integrations", [id, "integration id"], "users", [userId, "user id"]),
        scopes: READ_USERS,
      },
      single(schemas().integrationUserRecord),
    );
    return toIntegrationUser(data.data);
  }

  /** Invites users with entitlements. A POST: not re-sent on an ambiguous failure. */
  async invite(id: string, options: InviteOptions): Promise<JobHandle> {
    return this.#write({
      method: "POST",
      path: pathOf("integrations", [id, "integration id"], "users"),
      body: inviteBody(options.userIds, options.role ?? "account_collaborator", options.entitlements),
      scopes: OPERATION_SCOPES.invite,
    });
  }

  /** Replaces a member's whole entitlement set. */
  async setEntitlements(id: string, userId: string, entitlements: readonly string[]): Promise<JobHandle> {
    return this.#write({
      method: "PATCH",
      path: pathOf("integrations", [id, "integration id"], "users", [userId, "user id"]),
      body: setEntitlementsBody(entitlements),
    });
  }

  /** Adds and removes entitlements of a member. */
  async changeEntitlements(
    id: string,
    userId: string,
    change: { add?: readonly string[]; remove?: readonly string[] },
  ): Promise<JobHandle> {
    return this.#write({
      method: "PATCH",
      path: pathOf("integrations", [id, "integration id"], "users", [userId, "user id"], "entitlements"),
      body: changeEntitlementsBody(change.add ?? [], change.remove ?? []),
    });
  }

  /** Removes a member from an integration. */
  async removeUser(id: string, userId: string): Promise<JobHandle> {
    return this.#write({
      method: "DELETE",
      path: pathOf("integrations", [id, "integration id"], "users", [userId, "user id"]),
    });
  }

  /**
   * Sends a write and hands back its job. Every 2xx is success: an answer without a body (204,
   * or 200 with none) or with a record that is not a job means the write is done, and the
   * handle says so (`id: null`, nothing to wait for).
   */
  async #write(spec: { method: "POST" | "PATCH" | "DELETE"; path: string; body?: unknown; scopes?: readonly Scope[] }): Promise<JobHandle> {
    const answer = await this.#http.request(
      { ...spec, scopes: spec.scopes ?? OPERATION_SCOPES.memberWrite },
      single(schemas().z.unknown()),
    );
    const job = jobOfAnswer(this.#http, answer, spec.method, spec.path);
    return job ? this.#jobs.handle(job) : this.#jobs.done();
  }
}
