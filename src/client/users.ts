import {
  BadRequestError,
  ConfigurationError,
  ConflictError,
  type InvalidResponseError,
  isAmbiguous,
  isUnreadableSuccess,
  JobFailedError,
  reasonOf,
  ServerError,
  WorkspaceAccessError,
} from "./errors";
import type { JobsApi } from "./jobs";
import type { HttpTransport, RequestSpec } from "./transport";
import { sameEmail, toJob, toUser, type User, type UserAttributes } from "./models";
import { prove } from "./absence";
import { type Id, idOf } from "./ids";
import { type ListOptions, MAX_PAGE_SIZE, mayHave, paginate, type ReadableFields } from "./paginate";
import { pathOf } from "./path";
import { userBody } from "./requests";
import { type JobRecord, schemas, type UserRecord } from "./schemas";
import { askedTooLong, transientDelay } from "./retry-policy";
import { SCOPES } from "./scopes";
import { madeSince } from "./service-clock";

/** Options of {@link UsersApi.list}. */
export interface UserListOptions extends ListOptions {
  /** Only users whose name or email contains this text. */
  filter?: string;
  /** Fill `mfaStatus` (the API leaves it `null` otherwise). */
  mfaStatus?: boolean;
}

/** The one user of `hits` (none: `undefined`); two whose emails differ only in case: {@link sharedEmail}. */
function one(email: string, hits: readonly User[]): User | undefined {
  if (hits.length > 1) throw sharedEmail(email, hits);
  return hits[0];
}

/**
 * Nobody has `email`, proven by listings of `listed` that agree, unless they served records that could not be read and may be that
 * user (`unread`): then nobody is no proof, and it throws naming them, and `then` (what was done, and the way out).
 */
function nobodyUnless(unread: ReadonlyMap<string, InvalidResponseError>, email: string, listed: string, then: string): undefined {
  if (unread.size === 0) return undefined;
  const [why] = [...unread.values()];
  throw new WorkspaceAccessError(
    `Could not prove that no user has the email ${email}: ${listed} found ${unread.size} record(s) that could not be read ` +
      `(ids ${[...unread.keys()].sort().join(", ")}; ${reasonOf(why)}), and any of them may be that user. ${then}`,
    { kind: "invalid_response", method: "GET", path: "users" },
  );
}

/** Two or more users whose emails differ only in case, for the declared `email`: which one is meant is not guessed. */
export function sharedEmail(email: string, users: readonly User[]): ConfigurationError {
  const named = users.map((u) => `${u.id} (${u.email})`).join(", ");
  return new ConfigurationError(
    `${users.length} users have the email ${email}, differing only in case: ${named}. Which one is meant is not guessed ` +
      "(adopting the other would write someone else's attributes): take one over by its id (the resource option import), " +
      "or make the emails differ in the service.",
    "email",
  );
}

/**
 * A user write: Write users, answered with a job or not (assumed). One of user `id` names it, and its read, which its 404 may
 * need; a create (no `id`) may find the endpoint missing, which the contract assumes.
 */
function userWrite(method: "POST" | "PUT" | "DELETE", path: string, body?: unknown, id?: string): RequestSpec {
  const record = id === undefined ? undefined : ({ method: "GET", path, scopes: [SCOPES.readUsers] } as const);
  const what =
    id === undefined ? "the endpoint POST /users (assumed: no public document shows it; adopting users needs none)" : `user ${idOf(id)}`;
  return { method, path, body, scopes: [SCOPES.writeUsers], job: "assumed", target: { what }, ...(record && { record }) };
}

/**
 * Whether a replace's 400 names its `data.id` (the body is assumed, its `id` "may be present"): a service whose body has no
 * `id`, as its own `PATCH` of a member has none, and forbids other fields refuses it so (`loc` `["body", "data", "id"]`).
 */
function refusesDataId(error: unknown): boolean {
  if (!BadRequestError.isInstance(error)) return false;
  const loc = (error.meta as { loc?: unknown } | null | undefined)?.loc;
  if (Array.isArray(loc)) return loc.map(String).join(".").endsWith("data.id");
  return /(^|[\s.])data\.id\b/.test(error.detail ?? "");
}

/** How many more searches a miss of {@link UsersApi.findByEmail} may cost to be proven. */
export const SEARCH_PROOF_LISTINGS = 2;

/** Workspace users: `/users`. */
export class UsersApi {
  readonly #http: HttpTransport;
  readonly #jobs: JobsApi;
  /** A replace's `data.id` was refused once (see {@link refusesDataId}): every later replace leaves it out. */
  #replaceWithoutId = false;

  /** @internal Built by {@link WorkspaceAccessClient}. */
  constructor(http: HttpTransport, jobs: JobsApi) {
    this.#http = http;
    this.#jobs = jobs;
  }

  /** Every user, page by page: `for await (const user of client.users.list())`. */
  async *list(options: UserListOptions = {}): AsyncGenerator<User> {
    const query = { filter: options.filter, mfaStatus: options.mfaStatus ? true : undefined };
    yield* paginate(this.#http, { path: "users", query, scopes: [SCOPES.readUsers] }, schemas().userRecord, toUser, options);
  }

  /**
   * How many users the workspace has, as a page of one says (`meta.page.total`): `undefined` when it does not say (the contract
   * does not promise it). One request. @internal
   */
  async count(): Promise<number | undefined> {
    const spec = { method: "GET", path: "users", query: { "page[size]": 1 }, scopes: [SCOPES.readUsers] } as const;
    const total = (await this.#http.request(spec, schemas().page)).data.meta?.page?.total;
    return typeof total === "number" && Number.isSafeInteger(total) && total >= 0 ? total : undefined;
  }

  /** Reads a user; 404 raises {@link NotFoundError}. */
  async get(id: string, options: { mfaStatus?: boolean } = {}): Promise<User> {
    const query = { mfaStatus: options.mfaStatus ? true : undefined };
    const spec = { method: "GET", path: pathOf("users", [id, "user id"]), query, scopes: [SCOPES.readUsers] } as const;
    return toUser((await this.#http.request(spec, schemas().user)).data.data);
  }

  /**
   * The user with this email (any case), or `undefined` once two searches at different page sizes agree nobody has it (`absence.ts`);
   * else throws. Two users whose emails differ only in case: a {@link ConfigurationError} naming both (which one is meant is not
   * for this package to guess: adopting the other would write someone else's attributes).
   */
  async findByEmail(email: string): Promise<User | undefined> {
    return this.#findByEmail(email, false);
  }

  /**
   * {@link findByEmail}; `exists`: asked where the service said a user with that email exists (a create's job finished): its
   * errors say so, not that nothing was done.
   */
  async #findByEmail(email: string, exists: boolean): Promise<User | undefined> {
    const { hits, proof, unread } = await this.#withEmail(email, email.trim());
    if (hits.length > 0) return one(email, hits);
    const said = "The service said a user with that email exists";
    if (proof?.proven) {
      const then = exists
        ? `${said}: fix the record in the service, then run again.`
        : "Nothing was done for it: fix the record in the service, or take the user over by its id (the resource option import).";
      return nobodyUnless(unread, email, "GET /users?filter=", then);
    }
    if (proof?.error !== undefined) throw proof.error;
    throw new WorkspaceAccessError(
      `Could not prove that no user has the email ${email}: ${SEARCH_PROOF_LISTINGS + 1} searches of GET /users?filter= disagreed ` +
        `(users came or went while they were read). ${exists ? `${said}; run again.` : "Nothing was created; run again."}`,
      { kind: "invalid_response", method: "GET", path: "users" },
    );
  }

  /**
   * Creates a user (409: {@link ConflictError}). A POST failed ambiguously (reset, timeout, 5xx) is sent again only after the email is
   * looked up: a user found is this request's if created after it began, else a {@link ConflictError}; so is one a re-sent POST meets
   * (its 409, or its job failing: the first POST may land late). A job is waited for, never re-posted.
   * `onJob` is told the job of an accepted POST (finished or not) before it is waited for, and `null` once its user was read
   * back: an error it was last told a job id before (a {@link JobTimeoutError}, a job that could not be polled, a read-back that
   * failed) leaves a create that may have landed, or may still.
   */
  async create(attributes: UserAttributes, options: { onJob?: (jobId: string | null) => void } = {}): Promise<User> {
    const began = this.#http.deps.clock.now();
    const spec = userWrite("POST", "users", userBody(attributes));
    let sent: { data: unknown } | undefined;
    let unread: InvalidResponseError | undefined;
    /** Whether a POST before the last one failed without an answer: it may land late, and the last one's refusal be its doing. */
    let resent = false;
    for (let attempt = 0; !sent; attempt++) {
      try {
        resent = attempt > 0;
        sent = await this.#http.request(spec, schemas().userOrJob);
      } catch (error) {
        if (isUnreadableSuccess(error)) {
          unread = error;
          sent = { data: undefined };
          break;
        }
        if (resent && ConflictError.isInstance(error)) return this.#landedLate(error, attributes.email, began, "answered 409");
        if (!isAmbiguous(error)) throw error;
        // A lookup that fails leaves the POST's error the one to tell: it may have landed (the lookup's failure said in it).
        const existing = await this.#lookUpOr(error, attributes.email, `Whether it created ${attributes.email} is not known`);
        if (existing) return this.#createdSince(existing, began, "failed without an answer");
        // A 5xx's Retry-After holds for the POST sent again as for the transport's retries: not sooner, and not beyond the cap.
        const asked = ServerError.isInstance(error) ? error.retryAfterMs : undefined;
        const { settings, deps } = this.#http;
        if (attempt >= settings.maxRetries || askedTooLong(asked, settings)) throw error;
        const delay = transientDelay(attempt, asked, settings, deps.random);
        await this.#http.backoff(attempt, `POST users (${attributes.email}) failed without an answer and nothing was created`, delay);
      }
    }
    const answer = sent.data as { data: UserRecord | JobRecord } | undefined;
    // A user the service says it created before this request (a service answering a create of a taken email with the user who
    // has it) is no more this create's than one read back: a 409, so that no one deletes it as this stack's.
    if (answer && answer.data.type !== "job")
      return this.#createdSince(toUser(answer.data as UserRecord), began, "answered with a user", true);
    if (answer) {
      // Told even of a job finished already: until its user is read back, an error leaves a create that landed.
      const job = toJob(answer.data as JobRecord);
      options.onJob?.(job.id);
      try {
        await this.#jobs.until(job, {}, { method: "POST", path: "users" });
      } catch (error) {
        if (!resent || !JobFailedError.isInstance(error)) throw error;
        // Not this create's user (none, or one older than it): the job's failure is the answer, as without a POST before it.
        const refused = `answered with a job that failed (${job.id})`;
        const user = await this.#landedLate(error, attributes.email, began, refused).catch(() => Promise.reject(error));
        options.onJob?.(null);
        return user;
      }
    }
    // A job, or a success without a body (or with one that could not be read): the new user is read back once, by email. One
    // the service says it created before this request was not made by it (a service merging the POST): a 409, so that no one
    // deletes it as this stack's. A record that does not say when is taken as made (only the id is certain). A read-back that
    // fails leaves the job told (`onJob`): its caller records a create that landed, which the next run reads back.
    const created = await this.findExisting(attributes.email);
    if (answer) options.onJob?.(null);
    const unreadHow = `answered ${unread?.status} with a body that could not be read`;
    const how = answer ? "answered with a job" : unread ? unreadHow : "answered without a body";
    if (created) return this.#createdSince(created, began, how, true);
    // Found by neither the search nor the listing (which proves presence only): not found, which is no proof that nobody has it.
    const notFound = `no user with the email ${attributes.email} was found (GET /users?filter=, then the whole list)`;
    const message = answer
      ? `The job ${answer.data.id} creating ${attributes.email} finished, but ${notFound}.`
      : unread
        ? `POST users ${unreadHow} (${unread.message}), but ${notFound}: if it named a job, that job may still be running. ` +
          "Nothing was sent again."
        : `POST users answered success without a body, but ${notFound}.`;
    throw new WorkspaceAccessError(message, { kind: "invalid_response", method: "POST", path: "users" });
  }

  /**
   * After a POST sent again was refused (`error`: a 409, a failed job): a POST before it failed without an answer and may have
   * landed since (a service slower than the timeout), taking the email. Its user, found and created since `began`, is this create's;
   * else `error` stands (a lookup that fails too is named in it: the POST before may have made the user).
   */
  async #landedLate(error: unknown, email: string, began: number, refused: string): Promise<User> {
    const what = `A POST sent before it failed without an answer and may have created ${email}`;
    const landed = await this.#lookUpOr(error, email, what, true);
    if (landed) return this.#createdSince(landed, began, `failed without an answer and, sent again, ${refused}`);
    throw error;
  }

  /**
   * The user with `email`, looked up after a create's POST failed with `error` (`taken`: the service said someone has the email,
   * {@link findExisting}); a lookup that fails too throws `error`, which stays the one to tell (the POST may have landed), saying
   * `what` and the lookup's failure.
   */
  async #lookUpOr(error: unknown, email: string, what: string, taken = false): Promise<User | undefined> {
    return (taken ? this.findExisting(email) : this.findByEmail(email)).catch((lookup: unknown) => {
      (error as WorkspaceAccessError).message += ` ${what}: looking the email up failed (${reasonOf(lookup)}).`;
      throw error;
    });
  }

  /**
   * The user with `email` where the service said one exists (a create's job finished, a success, a refusal as taken): the search,
   * else the one user of the whole list with that email in any case. A service keeping emails in lower case whose `filter`
   * matches only the text as written (the document says neither) has the search miss an email declared in another case. Nobody
   * only once listings at other page sizes agree (`absence.ts`) and served no record that could not be read and may be that
   * user; else it throws. @internal
   */
  async findExisting(email: string): Promise<User | undefined> {
    const found = await this.#findByEmail(email, true);
    if (found) return found;
    const { hits, proof, unread } = await this.#withEmail(email, undefined);
    if (hits.length > 0) return one(email, hits);
    // Asked where the service said the user exists (a create that finished): that record is likely theirs.
    if (proof?.proven)
      return nobodyUnless(
        unread,
        email,
        "GET /users",
        "The service said a user with that email exists: fix the record in the service, then run again.",
      );
    throw (
      proof?.error ??
      new WorkspaceAccessError(
        `Could not prove that no user has the email ${email}: ${SEARCH_PROOF_LISTINGS + 1} listings of GET /users disagreed ` +
          "(users came or went while they were read). Run again.",
        { kind: "invalid_response", method: "GET", path: "users" },
      )
    );
  }

  /**
   * The users with `email` (any case) in `GET /users` listings (`filter`: the search's text; without it, the whole list), and
   * when the first listing has none, the proof that nobody has it: listings at other page sizes until two agree (`absence.ts`).
   * A user in any listing is there (a list proves presence): `hits` gathers every listing's. `unread`: the records a listing
   * served and could not read that may be that user (their email is not text, or is this one): none of them proves its absence.
   */
  async #withEmail(email: string, filter: string | undefined) {
    const hits = new Map<Id, User>();
    const unread = new Map<string, InvalidResponseError>();
    const onInvalid = (id: string | undefined, error: InvalidResponseError, readable: ReadableFields) => {
      if (mayHave(readable, "email", email, sameEmail)) unread.set(id ?? "(no id)", error);
    };
    const listAt = async (pageSize: number) => {
      const listing = new Map<Id, User>();
      for await (const user of this.list({ ...(filter === undefined ? {} : { filter }), pageSize, onInvalid })) {
        listing.set(user.id, user);
        if (sameEmail(user.email, email)) hits.set(user.id, user);
      }
      return listing;
    };
    const first = await listAt(MAX_PAGE_SIZE);
    const proof = hits.size > 0 ? undefined : await prove(listAt, first, { listings: SEARCH_PROOF_LISTINGS });
    return { hits: [...hits.values()], proof, unread };
  }

  /**
   * `user` if the service created it after `began` (the client's clock), else a 409; a time not said: `unsaidIsNew`. Judged on the
   * service's clock where its answers carry `Date`, so a client whose clock is off from the service's judges alike; a user made
   * by someone else a few seconds before the create began is still taken for its own (`madeSince` in `service-clock.ts`).
   */
  #createdSince(user: User, began: number, how: string, unsaidIsNew = false): User {
    const created = user.createdAt ? Date.parse(user.createdAt) : Number.NaN;
    if (Number.isNaN(created) ? unsaidIsNew : madeSince(created, began, this.#http.serviceClock.aheadMs)) return user;
    throw new ConflictError(
      `POST users ${how}, and a user with the email ${user.email} already existed before it ` +
        `(id ${user.id}, created ${user.createdAt ?? "at an unknown time"}).`,
      { method: "POST", path: this.#http.settings.baseUrl.pathname + "users", status: 409 },
    );
  }

  /** Replaces every writable attribute of a user; 404 and 409 raise. */
  async replace(id: string, attributes: UserAttributes): Promise<User> {
    const path = pathOf("users", [id, "user id"]);
    const send = (withId: boolean) =>
      this.#http.request(userWrite("PUT", path, userBody(attributes, withId ? id : undefined), id), schemas().userOrJob);
    const withId = !this.#replaceWithoutId;
    const { data } = await send(withId)
      .catch((error: unknown) => {
        // Refused for its `data.id` alone: sent again without it, and left out from then on (one request more, once).
        if (!withId || !refusesDataId(error)) throw error;
        this.#replaceWithoutId = true;
        return send(false);
      })
      .catch((error: unknown) => {
        if (isUnreadableSuccess(error)) return { data: undefined };
        throw error;
      });
    // Without a body (204), with one that could not be read, or with a job, the user is read back once.
    if (data && data.data.type !== "job") return toUser(data.data as UserRecord);
    if (data) await this.#jobs.until(toJob(data.data as JobRecord), {}, { method: "PUT", path });
    return this.get(id);
  }

  /**
   * Deletes a user (waiting for the job if it answers with one); 404 raises {@link NotFoundError} once the user's read answers 404
   * too, unless the `DELETE` was sent again after one without a final answer: that one most likely deleted it, and it is done.
   */
  async delete(id: string): Promise<void> {
    const path = pathOf("users", [id, "user id"]);
    const answer = await this.#http.request(userWrite("DELETE", path, undefined, id), schemas().anyAnswer);
    await this.#jobs.handleOf(answer, "DELETE", path).wait();
  }
}
