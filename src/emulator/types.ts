/**
 * The emulator's public types. They are plain data (no classes) so a test, the CLI and the
 * e2e harness can build seeds and read state without touching the server's internals.
 */

import type { EmulatorClock } from "./clock";

/** A workspace role as the public document enumerates it. */
export type WorkspaceRole =
  | "workspace_owner"
  | "workspace_super_admin"
  | "workspace_guest_admin"
  | "workspace_login_only"
  | "workspace_guest_user";

/** A workspace user's status; read-only through the API. */
export type UserStatus = "live" | "pending" | "disabled";

/** A user's role on one integration account. */
export type MemberRole = "owner" | "collaborator";

/** The group of an entitlement in an integration's catalogue. */
export type EntitlementGroup = "primary" | "secondary";

/** Every state a job can be in (the public document's enum). */
export type JobStatus = "created" | "started" | "running" | "retrying" | "finished" | "error";

/** A workspace user to create, from a seed or through `emulator.users.add`. */
export interface SeedUser {
  /** Fixed id, kept in lower case (ids compare case-insensitively); a random UUID when absent. */
  id?: string;
  email: string;
  /** `null` for a user who has none yet (pending or SCIM-provisioned users often have no names). */
  firstName: string | null;
  lastName: string | null;
  /** Defaults to `workspace_guest_user` for guests, else `workspace_login_only`. */
  role?: string;
  isGuest?: boolean;
  /** Defaults to `live` for seeded users (API-created users start `pending`). */
  status?: UserStatus;
  /** Whether `?mfaStatus=true` reports MFA as enrolled; default false. */
  mfaEnabled?: boolean;
}

/** One entry of an integration's entitlement catalogue. */
export interface SeedEntitlement {
  /** The entitlement id, also its `key` and `value` (e.g. `VIEWER`). */
  id: string;
  /** Defaults to `<APPLICATION>_<ID>_DESC`, the service's own label style. */
  label?: string;
  /** Defaults to `primary`. */
  group?: EntitlementGroup;
}

/** A membership of a workspace user in a seeded integration. */
export interface SeedMember {
  /** The user's id, or the email of a user in the same seed (handy in JSON seed files). */
  userId: string;
  /** Defaults to `collaborator`. */
  role?: MemberRole;
  /** Entitlement ids; ids outside the catalogue are kept and rendered as-is. */
  entitlements: string[];
  /** Free-form per-user fields the service reports under `meta.dynamicFields`. */
  dynamicFields?: Record<string, unknown>;
}

/** An integration (an "account" record) to create. */
export interface SeedIntegration {
  /** Fixed id, kept in lower case (ids compare case-insensitively); a random UUID when absent. */
  id?: string;
  application: string;
  /** Defaults to `<application> (emulator)`. */
  label?: string;
  entitlements: SeedEntitlement[];
  users?: SeedMember[];
}

/** The initial world of an emulator. */
export interface EmulatorSeed {
  users?: SeedUser[];
  integrations?: SeedIntegration[];
}

/** A workspace user as the emulator holds it (a copy: changing it changes nothing). */
export interface EmulatedUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  role: string;
  isGuest: boolean;
  status: UserStatus;
  mfaEnabled: boolean;
  /** Timestamps in the service's format, e.g. `2024-08-29T19:31:21.563000+00:00`. */
  createdAt: string;
  updatedAt: string;
}

/** An entitlement of an integration's catalogue, defaults filled in. */
export interface EmulatedEntitlement {
  id: string;
  label: string;
  group: EntitlementGroup;
}

/** An integration as the emulator holds it (a copy). */
export interface EmulatedIntegration {
  id: string;
  application: string;
  label: string;
  workspace: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  entitlements: EmulatedEntitlement[];
}

/** A user's membership of an integration (a copy). */
export interface EmulatedMember {
  userId: string;
  role: MemberRole;
  entitlements: string[];
}

/** Why a job ended in `error`; the document's `errorDetails` object. */
export interface JobErrorDetails {
  errorType: string;
  /** `null` and absent are the same: the document types it as a non-nullable string, so it is left out. */
  screenshotUrl?: string | null;
  userRequired?: boolean;
}

/** A job as the emulator holds it (a copy). */
export interface EmulatedJob {
  id: string;
  status: JobStatus;
  workflowType: string;
  trigger: string;
  /** The integration the job acts on; `null` for user writes answered with a job. */
  integrationId: string | null;
  createdAt: string;
  updatedAt: string;
  /** How many times `GET /jobs/{id}` has read it. */
  polls: number;
  /** `{}` unless the job ended in `error`. */
  errorDetails: JobErrorDetails | Record<string, never>;
  payload: Record<string, unknown>;
  response: Record<string, unknown>;
}

/** A rate limit per API key: at most `requests` in any `windowMs` (a sliding window). */
export interface RateLimit {
  requests: number;
  windowMs: number;
  /** How a 429 carries `Retry-After`: delta seconds (default), an HTTP date, or not at all. */
  retryAfter?: "seconds" | "date" | "none";
  /** Also answer IETF draft `RateLimit-Limit`/`-Remaining`/`-Reset` headers on admitted requests. Default false: the real service publishes no quota. */
  headers?: boolean;
}

/** How jobs progress. With `finishAfterMs` set, time decides and polls are ignored. */
export interface JobTiming {
  /** The n-th `GET /jobs/{id}` sees the job done (earlier ones see `running`); default 2. 0 = done at once. */
  finishAfterPolls?: number;
  /** The job is done this many ms after creation, polled or not. */
  finishAfterMs?: number;
  /**
   * A ceiling for jobs that progress by polls: one that its polls have not finished ends by itself this many ms
   * after creation (on the emulator's clock), doing its work, as the service finishes jobs whether or not anyone
   * reads them (a lost answer, a cancelled `up`, a `curl`). Default none in `startEmulator`, so polls alone decide;
   * 30 s in the command (`--job-settle`). Jobs made to hang (`hangNext`) never end.
   */
  settleAfterMs?: number;
  /**
   * A job store that lags its writes: `GET /jobs/{id}` answers 404 (the contract's not-found body) until this many ms after the
   * job's creation (on the emulator's clock), as a service whose jobs become readable some time after the write answered with
   * them would; such a 404 is no poll (`finishAfterPolls` counts the reads that found the job). The job runs all the same
   * (`finishAfterMs` and `settleAfterMs` count from its creation). Default 0: readable the moment the write answers.
   */
  readableAfterMs?: number;
}

/** Behaviours the contract allows that a well-behaved service would not show. All off by default. */
export interface EmulatorQuirks {
  /**
   * Pages shift between reads: before answering a page after the first of a list (users, integrations,
   * integration users), someone else removes one record that sorts before that page's offset (so one record
   * is skipped) — "remove" — or inserts one before it (so one record is listed twice) — "insert".
   * The records removed/inserted are the emulator's own "other admin" records (never a record a test or program
   * created, never the only owner): in the adversarial world they are seeded; where none can be removed, the shift
   * is simulated by answering the page one record later ("remove") or earlier ("insert").
   * The shift happens once per list walk (page 2 of a walk), so a second complete listing is consistent.
   * A write the emulator accepts arms every list again: the next walk of each list shifts once more.
   * In the adversarial world an "insert" adds a new user of the other admin (to the users list, or as a member
   * of the integration listed); the integrations list is always simulated for "insert".
   */
  shiftPages?: "remove" | "insert" | false;
  /** Records listed twice: the first record of each page after the first repeats the last of the page before (pages of two or more). */
  repeatRecords?: boolean;
  /** How an invitation (POST /integrations/{id}/users) of someone already a member ends: 409 at once (default, today's
   *  behaviour), a job that finishes merging the invitation into the membership (role and entitlement set replaced by
   *  the invitation's), or a job that ends in error for that user (`user_already_member`; the other users it names
   *  are applied or not as `batchInviteFailure` says). */
  inviteExisting?: "conflict" | "merge" | "fail";
  /**
   * UUIDs (user, integration, job ids) answered in upper case in every body. With or without it, requests are matched
   * case-insensitively (the contract), faults too; the request log keeps the path and body as received.
   */
  upperCaseIds?: boolean;
  /** Writes that may answer 204 with no body do (user PUT/DELETE; integration-user writes as `integrationWriteAnswer` says). */
  noContent?: boolean;
  /**
   * How the integration-user writes (invite, set or add and remove entitlements, remove a member) answer: with a job
   * (`"job"`, the default, as the public document shows), or done at once, with no job: the change applied before the
   * answer (as a finished job would have), which is 204 without a body (`"no-content"`), 200 with an empty body
   * (`"empty-ok"`), or 200 with a JSON body that has no `data` (`"no-data"`). A change that cannot be applied answers
   * an error instead (404 for an entitlement or user not found, 409 for an existing member, else 402), its
   * `errorType` in `meta`; `jobs.failNext` and `jobs.hangNext` play no part, since no job starts.
   */
  integrationWriteAnswer?: "job" | "no-content" | "empty-ok" | "no-data";
  /**
   * User writes (`POST`/`PUT /users`) take any role, as reads may serve one the public document does not list
   * (`workspace_billing_admin` in the populated world); without it, only the listed roles (400 otherwise).
   */
  openUserRoles?: boolean;
  /** Optional fields answered as null where the contract allows it (names, isGuest, status, labels, entitlement labels). */
  nullFields?: boolean;
  /**
   * How a job not yet done reads on `GET /jobs/{id}`: `running` on every read (`"running"`, the default), or the
   * states the public document lists for a job not done, in turn, one per read (`"varied"`: `created`, `started`,
   * `running`, `retrying`, then again). The document lists the states but not their order.
   */
  jobProgress?: "running" | "varied";
  /**
   * How an integration user's `entitlements` are answered: entitlement records (`"records"`, the default, as the
   * document's examples show) or plain entitlement ids (`"ids"`, as its schema's bare `array` allows and the
   * contract says to parse), or left out of the record (`"left-out"`: the contract's "only `id` is certain", so a member's
   * record may say nothing of what they hold; the member holds what they hold all the same).
   */
  memberEntitlements?: "records" | "ids" | "left-out";
  /**
   * Every email answered in lower case, whatever case a write or seed gave it, as a service that folds emails
   * would (the contract compares emails case-insensitively; whether the service keeps the case written is not shown).
   */
  lowerCaseEmails?: boolean;
  /**
   * What `GET /users?filter=` matches (the document: "the user's full name or email"): a part of the email or of
   * `<firstName> <lastName>` in any case (`"contains"`, the default), the whole email or full name in any case
   * (`"exact"`), or a part of either in the case written (`"case-sensitive"`).
   */
  userFilter?: "contains" | "exact" | "case-sensitive";
  /**
   * How an integration write naming an entitlement outside the integration's catalogue answers (the document says only
   * that they "must be valid"): accepted, its job ending in `error` (`entitlement_not_found`) with nothing applied
   * (`"job-error"`, the default), or refused at once, nothing started: 400 naming the field (`"bad-request"`) or 404
   * (`"not-found"`).
   */
  unknownEntitlement?: "job-error" | "bad-request" | "not-found";
  /**
   * How an error entry's `status` is written: a number (`"number"`, the default, as the document's `error` schema types
   * it) or a string (`"string"`, `"404"`, as JSON:API writes it and the contract allows).
   */
  errorStatus?: "number" | "string";
  /**
   * The optional fields `nullFields` answers as null are left out of their records instead (the contract: "any other
   * attribute may be null or absent"), whether `nullFields` is on or not.
   */
  absentFields?: boolean;
  /**
   * How a `PATCH` (the set, or its additions and removals) or a `DELETE` of an integration user who is not a member answers
   * (the document shows only the job each answers with): 404 at once (`"not-found"`, the default), or accepted, its job
   * ending in `error` (`user_not_member`) with nothing applied (`"job-error"`).
   */
  nonMemberWrite?: "not-found" | "job-error";
  /**
   * How `POST /users` (itself assumed) answers for an email a user has already, in any case: 409 (`"conflict"`, the default,
   * as the contract assumes), 400 naming `data.attributes.email` (`"bad-request"`), or as a create that succeeded, changing
   * nothing (`"existing"`: a service whose create merges into the user who has the email answers that user, 201 with the
   * record, or 204 or a job as `userWriteAnswer` and `userWritesAsJobs` say).
   */
  userCreateTaken?: "conflict" | "bad-request" | "existing";
  /**
   * How `PUT /users/{id}` (its body assumed) takes a `data.id`: read, and refused 409 when it is not the path's (`"accept"`, the
   * default, as the contract assumes: "may be present and must equal the path id"), or refused 400 naming `data.id` whatever its
   * value (`"refuse"`), as a service whose body has no `id`, as its own `PATCH` of a member has none, and forbids other fields would.
   */
  userReplaceId?: "accept" | "refuse";
  /**
   * A query parameter an operation does not take (the contract: "unknown ones are ignored", assumed): ignored (`"ignore"`,
   * the default), or answered 400 naming it (`"refuse"`), as a service validating its query would. The contract names
   * `page[number]` and `page[size]` for the lists, `filter` and `mfaStatus` for `GET /users`, `mfaStatus` for `GET /users/{id}`.
   */
  unknownQuery?: "ignore" | "refuse";
  /**
   * The service's clock this many seconds ahead of the emulator's own (negative: behind), as a service's may be of the
   * machine a client runs on (neither document says how far): the `Date` header of every answer and the times it records
   * (a user's or an integration's `createdAt` and `updatedAt`, a job's, an HTTP-date `Retry-After`) read it; delays and job
   * deadlines still run on the emulator's clock. Default 0.
   */
  clockSkew?: number;
  /**
   * Where an integration's member list and its invitation live: `/integrations/{id}/users` and the document's own key,
   * `/integrations/{id}/user` (`"both"`, the default), or only `/user` (`"singular"`: the document's path key, its
   * descriptions and example links notwithstanding), `/users` then answering 404 as any path the service does not serve.
   * A member's own routes (`/users/{userId}`) answer either way.
   */
  memberListPath?: "both" | "singular";
  /**
   * How an integration user's `role` is answered: `owner` or `collaborator` (`"short"`, the default, as the contract's record
   * shows), in the invitation's words, `account_owner` or `account_collaborator` (`"account"`), or left out of the record
   * (`"left-out"`: the contract's "only `id` is certain"; the member holds their role all the same).
   */
  memberRole?: "short" | "account" | "left-out";
}

/** What {@link Emulator.onPage} hooks are told: the list and the page about to be answered. */
export interface PageRead {
  /** The decoded path after `/api/v1`, e.g. `/integrations/<id>/users`. */
  path: string;
  /** The page number (2 or more). */
  page: number;
  size: number;
}

/** A hook run before a page ≥ 2 of a list is answered. */
export type PageHook = (list: PageRead) => void;

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** The default key, holding every scope; default `wa_emu_` + 32 random hex characters. */
  apiKey?: string;
  /** Extra keys and their scopes. */
  keys?: Record<string, string[]>;
  /**
   * Which scopes each operation needs: `"document"` (default), as the public document describes each operation
   * (the entitlement catalogue needs Write integrations, an invitation Read automated jobs), or `"contract"`, the
   * contract's summary table (the catalogue needs Read integrations, an invitation Write automated jobs).
   */
  scopeTable?: "document" | "contract";
  /**
   * What a key lacking a scope gets; default 403 (the real service may also answer 401, or 404 "not disclosed": the
   * contract's 404 means "not found or not disclosed", and that answer names no scope).
   */
  missingScopeStatus?: MissingScopeStatus;
  /** The users and integrations to start with; default the world of `defaultSeed()`; `{}` starts empty. */
  seed?: EmulatorSeed;
  job?: JobTiming;
  /** Default none. */
  rateLimit?: RateLimit | null;
  /** When true, user POST/PUT/DELETE answer with a job and take effect when it finishes. */
  userWritesAsJobs?: boolean;
  /**
   * How user writes that take effect at once answer: `"record"` (default: 201/200 with the user,
   * 204 for DELETE) or `"no-content"` (204 without a body for POST, PUT and DELETE, a success
   * status the specification lists): the client must then read the user back.
   */
  userWriteAnswer?: "record" | "no-content";
  /**
   * Whether `POST /users` is served (default true). `false` answers it 405, as a service without
   * the endpoint would: `POST /users` is an assumed endpoint, and adoption must not need it.
   */
  userCreate?: boolean;
  /**
   * The world to start with when no `seed` is given: absent, the default world (4 users, YouTube and Slack);
   * `"empty"`, no user and no integration (as `seed: {}` and the command's `--empty`); `"populated"`, a
   * workspace as it looks before any program manages it (see `populatedSeed`), or `"adversarial"`:
   * the populated world plus another admin's records (see `adversarialSeed`), with every quirk on but
   * `openUserRoles` (refusing an unlisted role is the harder answer). Any other name is refused.
   */
  world?: "empty" | "populated" | "adversarial";
  /**
   * Behaviours the contract allows (all off by default; the adversarial world turns every one on but
   * `openUserRoles`, and these override its choices).
   */
  quirks?: EmulatorQuirks;
  /** What a failing invitation job does with the other users it names; default `"whole"` (see `EmulatorJobs.failInvitesOf`). */
  batchInviteFailure?: BatchInviteFailure;
  /** Time for job deadlines, rate-limit windows, delays and timestamps; default the wall clock. Tests pass a virtual one. */
  clock?: EmulatorClock;
  /** Called once per request when it is answered (or its socket reset): what `--log-requests` prints. */
  onAnswered?: (answer: AnsweredRequest) => void;
}

/** A request once answered, as {@link EmulatorOptions.onAnswered} gets it: never its API key. */
export interface AnsweredRequest {
  method: string;
  /** The request target as received (`/api/v1/users?filter=ann`). */
  rawPath: string;
  /** The status answered; 0 when the socket was reset instead. */
  status: number;
  /** Time from arrival to the answer, on the emulator's clock. */
  ms: number;
}

/** One request as the emulator received it. The API key itself is never recorded. */
export interface RecordedRequest {
  method: string;
  /** The decoded pathname after the `/api/v1` prefix, e.g. `/users/abc`. */
  path: string;
  /** The request target as received, query included. */
  rawPath: string;
  /** The query parameters (the first value of a repeated one). */
  query: Record<string, string>;
  /** Parsed JSON, else the raw text, else undefined when there was no body. */
  body: unknown;
  /** The status answered; 0 when the socket was reset instead. Also 0 while still in flight. */
  status: number;
  hasApiKey: boolean;
  /** Epoch ms of arrival. */
  at: number;
  /** The `X-Request-Id` the emulator answered with. */
  requestId: string;
}

/** A queued misbehaviour, applied to the next `times` matching requests before any handling. */
export interface Fault {
  /** Default: any method. */
  method?: string;
  /**
   * Only a request whose JSON body invites this user (`data.attributes.userIds` contains it):
   * breaks one batched invitation among others.
   */
  userId?: string;
  /** Matched against {@link RecordedRequest.path}: equality for a string, `test` for a RegExp. */
  path: string | RegExp;
  /** Default 1. */
  times?: number;
  /** Answer this status with an error body in the contract's shape. */
  status?: number;
  /**
   * Extra response headers (e.g. `Retry-After`); one given `null` is left out of the answer: `{ Date: null }` answers without
   * `Date`, as RFC 9110 lets a 5xx (or a gateway's answer) be sent.
   */
  headers?: Record<string, string | null>;
  /** Answer this raw body instead (with `status`, default 200). */
  body?: string;
  /** Destroy the socket without answering. */
  reset?: boolean;
  /** With `reset` or `body`: handle the request first (the write happens), then reset, or answer `body`, instead. */
  afterHandling?: boolean;
  /** Wait this long before answering (or before the other effect). */
  delayMs?: number;
}

/** Direct access to workspace users, bypassing HTTP (no auth, no faults, no jobs). */
export interface EmulatorUsers {
  list(): EmulatedUser[];
  get(id: string): EmulatedUser | undefined;
  findByEmail(email: string): EmulatedUser | undefined;
  /** Throws when the email is taken or the id exists. */
  add(u: SeedUser): EmulatedUser;
  /** Throws when the user is unknown or the new email is taken. */
  update(id: string, patch: Partial<SeedUser>): EmulatedUser;
  /** Also removes the user's integration memberships; a no-op for an unknown id. */
  remove(id: string): void;
}

/** Direct access to integrations and their members, bypassing HTTP. */
export interface EmulatorIntegrations {
  add(i: SeedIntegration): EmulatedIntegration;
  get(id: string): EmulatedIntegration | undefined;
  list(): EmulatedIntegration[];
  /** Throws for an unknown integration. */
  members(integrationId: string): EmulatedMember[];
  /** Adds or replaces a membership at once; throws for an unknown integration or user. */
  setMember(
    integrationId: string,
    userId: string,
    m: { role?: MemberRole; entitlements: string[]; dynamicFields?: Record<string, unknown> },
  ): void;
  /** A no-op when the user is not a member. */
  removeMember(integrationId: string, userId: string): void;
  /** Deletes an integration and its memberships (someone removed it in the service); a job of a write to it then ends in error. */
  remove(integrationId: string): void;
}

/**
 * What a key lacking a scope gets: 403 (default), 401, or 404, the answer of a service that does not disclose what a key
 * may not read (its body a plain "Not found" naming no scope), on a collection as on one record.
 */
export type MissingScopeStatus = 401 | 403 | 404;

/** What an invitation job naming a user whose invitation fails does with the other users (see `EmulatorJobs.failInvitesOf`). */
export type BatchInviteFailure = "whole" | "partial";

/** Direct access to jobs, and ways to make the next ones misbehave. */
export interface EmulatorJobs {
  /**
   * From now on (until `clearInviteFailures`), every invitation job whose `userIds` names one of
   * `userIds` ends in `error` (`errorType` `invite_failed`, the failing ids in `response.userIds`).
   * `mode` (kept until changed): `"whole"` (default) applies nothing; `"partial"` makes the other
   * users members all the same. The public document says neither: see docs/integration-members.md.
   */
  failInvitesOf(userIds: readonly string[], mode?: BatchInviteFailure): void;
  clearInviteFailures(): void;
  get(id: string): EmulatedJob | undefined;
  list(): EmulatedJob[];
  /** The next `count` jobs created end in `error` with these details, applying nothing. */
  failNext(count: number, errorDetails?: JobErrorDetails): void;
  /** The next `count` jobs created never leave `running`. */
  hangNext(count: number): void;
  /** A job made to hang by {@link hangNext} does its work now and ends, as if it had been slow. */
  release(id: string): void;
  /** Changes how jobs created from now on progress. */
  setTiming(timing: JobTiming): void;
}

/** A running emulator. */
export interface Emulator {
  /** The base URL, ending in `/api/v1/`. */
  readonly url: string;
  /** The default key (all scopes). */
  readonly apiKey: string;
  readonly port: number;
  /** Closes the server and every keep-alive socket and clears timers. */
  close(): Promise<void>;
  /** Every request received, in order, faulted and rate-limited ones included (a snapshot). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  /** Queues a fault. */
  fault(f: Fault): void;
  clearFaults(): void;
  setRateLimit(limit: RateLimit | null): void;
  readonly stats: { rateLimited: number; requests: number };
  addKey(key: string, scopes: string[]): void;
  setMissingScopeStatus(status: MissingScopeStatus): void;
  users: EmulatorUsers;
  integrations: EmulatorIntegrations;
  jobs: EmulatorJobs;
  /** The live quirks: a test may change them mid-test (e.g. `emulator.quirks.inviteExisting = "fail"`). */
  quirks: EmulatorQuirks;
  /**
   * Runs `hook` before every page ≥ 2 of any list is answered (before a quirk's shift), so a test can
   * remove or add a record exactly between two page reads. Returns a function that removes the hook.
   */
  onPage(hook: PageHook): () => void;
}
