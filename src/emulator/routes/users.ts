/**
 * Workspace users: list and read (public document), create, replace and delete (the
 * contract's *assumed* rows: no public document shows their bodies).
 *
 * With `userWritesAsJobs`, writes are validated and checked for conflicts at once, but take
 * effect only when their job finishes; the job re-checks, since the world may have changed.
 */
import { ApiError } from "../errors";
import type { JobFailure } from "../jobs";
import { integrationJobRecord, jobEnvelope, userRecord } from "../records";
import { type Scope, scopesOf, USER_WRITE_JOB_SCOPE } from "../scopes";
import type { UserAttributes, UserRow } from "../store";
import { field, parseBody, requireJsonBody } from "../validation";
import { listPage, PAGE_QUERY, param, type Reply, type RequestContext, type Route, type World } from "./context";

/** The workspace roles the public document enumerates. */
export const USER_ROLES = [
  "workspace_owner",
  "workspace_super_admin",
  "workspace_guest_admin",
  "workspace_login_only",
  "workspace_guest_user",
] as const;

/** The `workflowType`s of user writes answered with a job (assumed: the service publishes none). */
export const USER_WORKFLOWS = { create: "create_user", replace: "update_user", delete: "delete_user" } as const;

/** A user write's scopes: the table's, and Write automated jobs when it answers with a job. */
function writeScopes(operation: "POST /users" | "PUT /users/:id" | "DELETE /users/:id"): (world: World) => Scope[] {
  return (world) => [...scopesOf(operation, world.scopeTable), ...(world.userWritesAsJobs ? [USER_WRITE_JOB_SCOPE] : [])];
}

function wantsMfa(query: URLSearchParams): boolean {
  const value = query.get("mfaStatus")?.trim().toLowerCase();
  return value === "true" || value === "1";
}

function self(id: string): string {
  return `/api/v1/users/${encodeURIComponent(id)}`;
}

/**
 * Reads and validates a user body; `pathId` is set for PUT, whose `data.id` must match it and which
 * needs every writable attribute (`isGuest` too: only a create may leave it out, for false).
 */
function parseUserBody(ctx: RequestContext, pathId?: string): UserAttributes {
  const body = parseBody(
    field.object({
      data: field.object({
        type: field.oneOf(["user"]),
        // Only a PUT's `data.id` is read (it must match the URL's).
        id: pathId === undefined ? field.ignored() : field.optionalString(),
        attributes: field.object({
          email: field.email(),
          firstName: field.string(),
          lastName: field.string(),
          // The roles the public document lists; any role with `openUserRoles` (the contract leaves it open).
          role: ctx.world.quirks.openUserRoles === true ? field.string().min(1, "field required") : field.oneOf(USER_ROLES),
          // A replace takes every writable attribute (the contract): a PUT that leaves isGuest out must not reset it.
          isGuest: pathId === undefined ? field.optionalBoolean() : field.boolean(),
        }),
      }),
    }),
    requireJsonBody(ctx.body, ctx.invalidJson),
  );
  const { email, firstName, lastName, role, isGuest } = body.data.attributes;
  const dataId = pathId === undefined ? undefined : ((body.data.id as string | null | undefined) ?? undefined);
  if (dataId !== undefined && ctx.world.quirks.userReplaceId === "refuse") {
    // `userReplaceId: "refuse"`: a body that has no `id` and forbids other fields (the query's `unknownQuery: "refuse"` alike).
    throw ApiError.validation([{ loc: ["body", "data", "id"], msg: "extra fields not permitted", type: "value_error.extra" }]);
  }
  if (pathId !== undefined && dataId !== undefined && dataId !== pathId) {
    // JSON:API answers an id that contradicts the URL with 409.
    throw ApiError.conflict(`data.id ${dataId} does not match the user id ${pathId} of the URL.`);
  }
  return { email, firstName, lastName, role, isGuest: isGuest ?? false };
}

function emailConflict(email: string): ApiError {
  return ApiError.conflict(`A user with the email ${email} already exists.`, { field: "email" });
}

/**
 * A `POST /users` of an email someone has, as `userCreateTaken` says: 409 (`"conflict"`, the default), 400 naming the
 * email (`"bad-request"`), or success that changes nothing (`"existing"`): the user who has it, as a write of that kind
 * answers (201 with the record, 204, or a job that finishes).
 */
function emailTakenReply(ctx: RequestContext, email: string, owner: UserRow): Reply {
  const mode = ctx.world.quirks.userCreateTaken ?? "conflict";
  if (mode === "conflict") throw emailConflict(email);
  if (mode === "bad-request") {
    const msg = `A user with the email ${email} already exists.`;
    throw ApiError.validation([{ loc: ["body", "data", "attributes", "email"], msg, type: "value_error.email.taken" }]);
  }
  if (ctx.world.userWritesAsJobs) return jobReply(ctx, USER_WORKFLOWS.create, { email: owner.email }, () => undefined);
  if (ctx.world.userWritesNoContent) return { status: 204 };
  return { status: 201, body: { data: userRecord(owner, false), links: { self: self(owner.id) }, meta: {} } };
}

function jobReply(ctx: RequestContext, workflowType: string, payload: Record<string, unknown>, run: () => JobFailure | undefined): Reply {
  const job = ctx.world.jobs.create({ workflowType, account: null, payload, run });
  return { status: 200, body: jobEnvelope(integrationJobRecord(job)) };
}

const userNotFound = (id: string): JobFailure => ({
  errorDetails: { errorType: "user_not_found", userRequired: false },
  response: { message: `No user with id ${id}.` },
});
const emailTaken = (email: string): JobFailure => ({
  errorDetails: { errorType: "user_already_exists", userRequired: false },
  response: { message: `A user with the email ${email} already exists.` },
});

/**
 * What `filter` matches in an email or a full name, as the `userFilter` quirk says: a part in any case (the
 * default), the whole text in any case, or a part in the case written. An empty filter matches everyone.
 */
function filterOf(filter: string, mode: "contains" | "exact" | "case-sensitive"): (text: string) => boolean {
  const needle = filter.trim();
  if (needle === "") return () => true;
  if (mode === "case-sensitive") return (text) => text.includes(needle);
  const folded = needle.toLowerCase();
  if (mode === "exact") return (text) => text.trim().toLowerCase() === folded;
  return (text) => text.toLowerCase().includes(folded);
}

const list: Route = {
  method: "GET",
  pattern: "/users",
  scopes: (world) => scopesOf("GET /users", world.scopeTable),
  query: [...PAGE_QUERY, "filter", "mfaStatus"],
  handle(ctx) {
    const filter = ctx.query.get("filter") ?? "";
    const matches = filterOf(filter, ctx.world.quirks.userFilter ?? "contains");
    // A service that folds emails (`lowerCaseEmails`) matches the folded one.
    const emailOf = (u: { email: string }) => (ctx.world.quirks.lowerCaseEmails === true ? u.email.toLowerCase() : u.email);
    const matching = () =>
      ctx.world.store.listUsers().filter((u) => matches(emailOf(u)) || matches(`${u.firstName ?? ""} ${u.lastName ?? ""}`));
    const keep: Array<[string, string]> = [];
    if (filter !== "") keep.push(["filter", filter]);
    const mfa = ctx.query.get("mfaStatus");
    if (mfa !== null && mfa !== "") keep.push(["mfaStatus", mfa]);
    const withMfa = wantsMfa(ctx.query);
    const { store } = ctx.world;
    const body = listPage(
      ctx,
      "/api/v1/users",
      matching,
      {
        removeBefore(start) {
          const gone = matching()
            .slice(0, start)
            .find((u) => store.removableUser(u));
          return gone !== undefined && store.removeUser(gone.id);
        },
        insertBefore(start) {
          // A user another admin adds sorts before the page only in the unfiltered list.
          if (!store.otherAdmin.active || filter !== "") return false;
          store.addOtherAdminUser(start - 1);
          return true;
        },
      },
      keep,
    );
    return { status: 200, body: { ...body, data: body.data.map((u) => userRecord(u, withMfa)) } };
  },
};

const read: Route = {
  method: "GET",
  pattern: "/users/:id",
  scopes: (world) => scopesOf("GET /users/:id", world.scopeTable),
  query: ["mfaStatus"],
  handle(ctx) {
    const id = param(ctx, "id");
    const user = ctx.world.store.user(id);
    if (user === undefined) throw ApiError.notFound(`No user with id ${id}.`);
    return { status: 200, body: { data: userRecord(user, wantsMfa(ctx.query)), links: { self: self(id) }, meta: {} } };
  },
};

const create: Route = {
  method: "POST",
  pattern: "/users",
  scopes: writeScopes("POST /users"),
  handle(ctx) {
    const attributes = parseUserBody(ctx);
    const { store } = ctx.world;
    const owner = store.userByEmail(attributes.email);
    if (owner !== undefined) return emailTakenReply(ctx, attributes.email, owner);
    const add = () => store.addUser({ ...attributes, status: "pending" });
    if (ctx.world.userWritesAsJobs) {
      return jobReply(ctx, USER_WORKFLOWS.create, { ...attributes }, () => {
        if (store.emailTaken(attributes.email)) return emailTaken(attributes.email);
        add();
        return undefined;
      });
    }
    const user = add();
    if (ctx.world.userWritesNoContent) return { status: 204 };
    return { status: 201, body: { data: userRecord(user, false), links: { self: self(user.id) }, meta: {} } };
  },
};

const replace: Route = {
  method: "PUT",
  pattern: "/users/:id",
  scopes: writeScopes("PUT /users/:id"),
  handle(ctx) {
    const id = param(ctx, "id");
    const { store } = ctx.world;
    // Body first, then existence: the service validates requests before it runs them.
    const attributes = parseUserBody(ctx, id);
    if (store.user(id) === undefined) throw ApiError.notFound(`No user with id ${id}.`);
    if (store.emailTaken(attributes.email, id)) throw emailConflict(attributes.email);
    if (ctx.world.userWritesAsJobs) {
      return jobReply(ctx, USER_WORKFLOWS.replace, { userId: id, ...attributes }, () => {
        if (store.user(id) === undefined) return userNotFound(id);
        if (store.emailTaken(attributes.email, id)) return emailTaken(attributes.email);
        store.updateUser(id, attributes);
        return undefined;
      });
    }
    const user = store.updateUser(id, attributes);
    if (ctx.world.userWritesNoContent || ctx.world.quirks.noContent === true) return { status: 204 };
    return { status: 200, body: { data: userRecord(user, false), links: { self: self(id) }, meta: {} } };
  },
};

const remove: Route = {
  method: "DELETE",
  pattern: "/users/:id",
  scopes: writeScopes("DELETE /users/:id"),
  handle(ctx) {
    const id = param(ctx, "id");
    const { store } = ctx.world;
    if (store.user(id) === undefined) throw ApiError.notFound(`No user with id ${id}.`);
    if (ctx.world.userWritesAsJobs) {
      // Deleting a user who is already gone by the time the job runs is still "done".
      return jobReply(ctx, USER_WORKFLOWS.delete, { userId: id }, () => {
        store.removeUser(id);
        return undefined;
      });
    }
    store.removeUser(id);
    return { status: 204 };
  },
};

/** The user routes. */
export const userRoutes: readonly Route[] = [list, read, create, replace, remove];

/** Whether a route is `POST /users` (left out with `userCreate: false`). */
export function isUserCreate(route: Route): boolean {
  return route === create;
}
