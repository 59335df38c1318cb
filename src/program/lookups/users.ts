/** Lookups of workspace users: one (`getUser`, by id or email) and many, by `GET /users/{id}` and one paged `GET /users` per run. */
import type * as pulumi from "@pulumi/pulumi";
import type { User } from "../../client";
import { guestOf, sameEmail } from "../../client/models";
import type { SpecOf } from "./arguments";
import { guestUntold, LookupError, notFound, unreadable, whole } from "./lookup-error";
import { byEmail, nullsLast, outputOf, runLookup } from "./run";

/** A workspace user as the lookups return it: the client's, without `mfaStatus` (the list leaves it empty); missing attributes are `null`. */
export type LookedUpUser = Omit<User, "mfaStatus">;

/** Arguments of {@link getUser}: exactly one of them (none, or both, does not compile: the lookup would refuse it). */
export type GetUserArgs =
  | {
      /** The user's id. */
      id: string;
      email?: undefined;
    }
  | {
      id?: undefined;
      /** The user's email, matched exactly but case-insensitively. */
      email: string;
    };

/** Arguments of {@link getUsers}; every one narrows the result, none gives every user. */
export interface GetUsersArgs {
  /** Text the user's email or full name (`<firstName> <lastName>`) contains, in any case. */
  search?: string;
  /** Only users with this workspace role, e.g. `workspace_login_only`. */
  role?: string;
  /** Only users with this status: `live`, `pending` or `disabled`. */
  status?: string;
  /** Only guests (true) or only non-guests (false), read as {@link getUsers} says: a record that cannot tell fails the lookup. */
  isGuest?: boolean;
}

const USER_ARGS = {
  lookup: "getUser",
  args: { id: "string", email: "string" },
  exactlyOne: ["id", "email"],
} as const satisfies SpecOf<GetUserArgs>;
const USERS_ARGS = {
  lookup: "getUsers",
  args: { search: "string", role: "string", status: "string", isGuest: "boolean" },
} as const satisfies SpecOf<GetUsersArgs>;

/** The result of {@link getUsers}. */
export interface GetUsersResult {
  /** The users, sorted by email. */
  users: LookedUpUser[];
  /** Their ids, in the same order. */
  ids: string[];
}

const lookedUp = ({ mfaStatus: _, ...user }: User): LookedUpUser => user;

/** Whether a part of the user's email or full name is `search` (trimmed), in any case; an empty search matches everyone. */
function contains(user: User, search: string): boolean {
  const needle = search.trim().toLowerCase();
  const fullName = `${user.firstName ?? ""} ${user.lastName ?? ""}`;
  return [user.email ?? "", fullName].some((text) => text.toLowerCase().includes(needle));
}

/**
 * One workspace user, by `id` or by `email` (exact, case-insensitive, across every page). Fails, naming what was
 * looked for and the workspace, when no user matches (decided on a listing proven complete: pages shift while read); never
 * guesses. Every `getUser` by email in a run shares one paged listing of the users (`GET /users`); a lookup by id reads its
 * user (`GET /users/{id}`), unless the run has taken that listing or is taking it, or 25 or more lookups by id arrive together
 * in a workspace whose listing costs fewer requests than their reads, which share one.
 *
 * ```ts
 * const alice = await wa.getUser({ email: "alice@example.com" });
 * new wa.IntegrationEntitlement("alice-youtube", { integrationId, userId: alice.id, entitlements: ["VIEWER"] });
 * ```
 */
const NO_USER_WITH_ID_FIX =
  "It may have been deleted, or the id may be another workspace's: look the user up by email (getUserOutput({ email })), " +
  "or list the users with getUsers()";
const NO_USER_WITH_EMAIL_FIX =
  "Check the email, or declare the user with a User resource (new wa.User(name, { email, firstName, lastName })), whose " +
  "id its outputs give";

export function getUser(args: GetUserArgs, opts?: pulumi.InvokeOptions): Promise<LookedUpUser> {
  return runLookup(
    USER_ARGS,
    args,
    async ({ id, email }, session) => {
      if (id !== undefined) {
        const user = await session.user(id);
        if (!user) throw notFound(session, "getUser", `no user with id "${id}"`, NO_USER_WITH_ID_FIX);
        return lookedUp(user);
      }
      const withEmail = (list: User[]) => list.filter((user) => typeof user.email === "string" && sameEmail(user.email, email!));
      // Found in the run's listing: there. Missed: a page shift may have skipped the user, so a proven listing decides.
      // A user the proven listing could not read may be the one (unless its email, readable, is another): a miss is then not decided.
      let users = await session.listedUsers();
      let matches = withEmail(users);
      if (matches.length === 0) {
        const proven = await session.users();
        users = proven.records;
        matches = withEmail(users);
        const mayBeThem = proven.unread.filter((record) => record.mayHave("email", email!, sameEmail));
        if (matches.length === 0 && mayBeThem.length > 0) throw unreadable(session, "users", mayBeThem);
      }
      if (matches.length === 0)
        throw notFound(
          session,
          "getUser",
          `no user with email "${email}" (${users.length} users, emails compared case-insensitively)`,
          NO_USER_WITH_EMAIL_FIX,
        );
      if (matches.length > 1) {
        const list = matches.map((user) => `${user.id} (${user.email})`).join(", ");
        throw new LookupError(
          `getUser: ${matches.length} users in the workspace at ${session.workspace} have the email "${email}": ${list}. Look the user up by id instead.`,
          "lookup_ambiguous",
          "getUser",
          matches.map((user) => ({ id: user.id, label: user.email ?? null })),
        );
      }
      return lookedUp(matches[0]!);
    },
    opts,
  );
}

/** {@link getUser} for arguments that are Pulumi inputs. */
export const getUserOutput = outputOf(getUser);

/**
 * The workspace users matching every argument given (all without any), sorted by email. `search` matches a part of the
 * email or of the full name (`<firstName> <lastName>`) in any case, compared here on the run's listing of the users: what the
 * API's `filter` matches is not documented (the whole text, or in the case written, would answer fewer users, and none is an
 * answer); `role` and `status` compare exactly (a user whose record leaves one out matches neither
 * value of it). `isGuest` goes by what the record tells (`guestOf`: left out beside a listed role that is not a guest's,
 * `false`); a record that cannot tell (left out beside a guest role, a role the document does not list, or none) fails the lookup,
 * naming the users: nothing is guessed. None is an answer.
 *
 * ```ts
 * const guests = await wa.getUsers({ isGuest: true, status: "live" });
 * ```
 */
export function getUsers(args: GetUsersArgs = {}, opts?: pulumi.InvokeOptions): Promise<GetUsersResult> {
  return runLookup(
    USERS_ARGS,
    args,
    async ({ search, role, status, isGuest }, session) => {
      const listed = whole(session, "users", await session.users());
      const matching = listed.filter(
        (user) =>
          (search === undefined || contains(user, search)) &&
          (role === undefined || user.role === role) &&
          (status === undefined || user.status === status),
      );
      const untold = isGuest === undefined ? [] : matching.filter((user) => guestOf(user) === undefined);
      if (untold.length > 0) throw guestUntold(session, untold);
      const users = matching
        .filter((user) => isGuest === undefined || guestOf(user) === isGuest)
        .map(lookedUp)
        .sort((a, b) => byEmail(a.email, b.email) || nullsLast(a.id, b.id));
      return { users, ids: users.map((user) => user.id) };
    },
    opts,
  );
}

/** {@link getUsers} for arguments that are Pulumi inputs. */
export const getUsersOutput = outputOf(getUsers);
