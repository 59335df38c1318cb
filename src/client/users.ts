import { ConnectionError, ServerError, TimeoutError, WorkspaceAccessError } from "./errors";
import type { HttpTransport } from "./http";
import type { JobsApi } from "./jobs";
import { toUser, type User, type UserAttributes } from "./models";
import { type ListOptions, pageSize, paginate } from "./paginate";
import { pathOf } from "./path";
import { userBody } from "./requests";
import { backoffDelay } from "./retry-policy";
import { jobRecord, recordOrJob, single, userRecord } from "./schemas";
import { SCOPES } from "./scopes";

/** Options of {@link UsersApi.list}. */
export interface UserListOptions extends ListOptions {
  /** Only users whose name or email contains this text. */
  filter?: string;
  /** Fill `mfaStatus` (the API leaves it `null` otherwise). */
  mfaStatus?: boolean;
}

/** Emails are compared case-insensitively (contract). */
export function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/** Workspace users: `/users`. */
export class UsersApi {
  readonly #http: HttpTransport;
  readonly #jobs: JobsApi;

  constructor(http: HttpTransport, jobs: JobsApi) {
    this.#http = http;
    this.#jobs = jobs;
  }

  /** Every user, page by page: `for await (const user of client.users.list())`. */
  async *list(options: UserListOptions = {}): AsyncGenerator<User> {
    const query = {
      "page[size]": pageSize(options.pageSize),
      filter: options.filter,
      mfaStatus: options.mfaStatus ? true : undefined,
    };
    for await (const record of paginate(this.#http, { method: "GET", path: "users", query, scopes: [SCOPES.readUsers] }, userRecord)) {
      yield toUser(record);
    }
  }

  /** Reads a user; 404 raises {@link NotFoundError}. */
  async get(id: string, options: { mfaStatus?: boolean } = {}): Promise<User> {
    const { data } = await this.#http.request(
      {
        method: "GET",
        path: pathOf("users", [id, "user id"]),
        query: { mfaStatus: options.mfaStatus ? true : undefined },
        scopes: [SCOPES.readUsers],
      },
      single(userRecord),
    );
    return toUser(data.data);
  }

  /** The user with this email (case-insensitive), or `undefined`. */
  async findByEmail(email: string): Promise<User | undefined> {
    for await (const user of this.list({ filter: email.trim() })) {
      if (sameEmail(user.email, email)) return user;
    }
    return undefined;
  }

  /**
   * Creates a user (409 raises {@link ConflictError} when the email is taken). A POST that fails
   * ambiguously (reset connection, timeout, 5xx) is never blindly sent again: the email is looked
   * up first, and only when no such user exists is the POST repeated.
   */
  async create(attributes: UserAttributes): Promise<User> {
    const settings = this.#http.settings;
    for (let attempt = 0; ; attempt++) {
      try {
        const { data } = await this.#http.request(
          { method: "POST", path: "users", body: userBody(attributes), scopes: [SCOPES.writeUsers, SCOPES.writeJobs] },
          recordOrJob(userRecord),
        );
        if (data.data.type !== "job") return toUser(data.data as Parameters<typeof toUser>[0]);
        await this.#jobs.wait(data.data.id);
        const created = await this.findByEmail(attributes.email);
        if (!created) {
          throw new WorkspaceAccessError(
            `The job ${data.data.id} creating ${attributes.email} finished, but no user with that email exists.`,
            { kind: "invalid_response", method: "POST", path: "users" },
          );
        }
        return created;
      } catch (error) {
        const ambiguous = ConnectionError.isInstance(error) || TimeoutError.isInstance(error) || ServerError.isInstance(error);
        if (!ambiguous || attempt >= settings.maxRetries) throw error;
        const existing = await this.findByEmail(attributes.email);
        if (existing) return existing;
        const ms = backoffDelay(attempt, settings.retryBaseDelayMs, settings.retryMaxDelayMs, this.#http.deps.random);
        await this.#http.deps.clock.sleep(ms);
      }
    }
  }

  /** Replaces every writable attribute of a user; 404 and 409 raise. */
  async replace(id: string, attributes: UserAttributes): Promise<User> {
    const { data } = await this.#http.request(
      {
        method: "PUT",
        path: pathOf("users", [id, "user id"]),
        body: userBody(attributes, id),
        scopes: [SCOPES.writeUsers, SCOPES.writeJobs],
      },
      recordOrJob(userRecord),
    );
    if (data.data.type !== "job") return toUser(data.data as Parameters<typeof toUser>[0]);
    await this.#jobs.wait(data.data.id);
    return this.get(id);
  }

  /** Deletes a user (waiting for the job if it answers with one); 404 raises {@link NotFoundError}. */
  async delete(id: string): Promise<void> {
    const { data } = await this.#http.request(
      {
        method: "DELETE",
        path: pathOf("users", [id, "user id"]),
        scopes: [SCOPES.writeUsers, SCOPES.writeJobs],
        allowEmpty: true,
      },
      single(jobRecord),
    );
    if (data?.data) await this.#jobs.wait(data.data.id);
  }
}
