import { InvalidResponseError, reasonOf, WorkspaceAccessError } from "../../client/errors";
import { namedUpTo } from "../../shared/named-up-to";
import type { ProvenList, UnreadRecord } from "./session";

/** A record a lookup could have meant, as its error lists it. */
export interface LookupCandidate {
  id: string;
  label: string | null;
}

/** A lookup that does not guess: it matched nothing, more than one record (with every candidate), or was asked wrongly (before any request). */
export class LookupError extends WorkspaceAccessError {
  static override readonly KINDS = ["lookup_not_found", "lookup_ambiguous", "lookup_arguments"] as const;
  /** The lookup that failed, e.g. `getIntegration`. */
  readonly lookup: string;
  /** The records that matched, for `lookup_ambiguous`; empty otherwise. */
  readonly candidates: readonly LookupCandidate[];

  constructor(message: string, kind: (typeof LookupError.KINDS)[number], lookup: string, candidates: readonly LookupCandidate[] = []) {
    super(message, { kind });
    this.lookup = lookup;
    this.candidates = candidates;
  }
}

/** A lookup that matched nothing: `getUser: no user with id "x" in the workspace at acme.example.com.` */
export function notFound(session: { workspace: string }, lookup: string, what: string, fix?: string): LookupError {
  return new LookupError(
    `${lookup}: ${what} in the workspace at ${session.workspace}.${fix ? ` ${fix}.` : ""}`,
    "lookup_not_found",
    lookup,
  );
}

/**
 * A lookup that answers from a whole list, which holds records it could not read: any of them may be what it looks for, so it decides
 * nothing. Names the records' ids, the field (each record's own, when they differ) and the fix. No other lookup is offered instead:
 * a lookup by id reads the same record with the same schema, and fails on the same field. Its message is led by the lookup's call,
 * its arguments named (`getUser({ email: "bob@example.com" }): 1 of the users…`: `run.ts` adds it), as the service's errors are:
 * lookups that share a listing share this error, and a program making many tells which failed.
 */
export function unreadable(session: { workspace: string }, what: string, unread: readonly UnreadRecord[]): InvalidResponseError {
  const { error } = unread[0]!;
  // Records unreadable in different fields: each id is named with its own, and the fix names every one.
  const fields = [...new Set(unread.map((record) => record.error.field))].sort();
  const named = unread.map((record) => `${record.id ?? "(no id)"}${fields.length > 1 ? ` (${record.error.field})` : ""}`);
  const ids = namedUpTo(named.sort());
  const [those, they] = unread.length === 1 ? ["that record", "it"] : ["those records", "any of them"];
  const quoted = fields.map((field) => JSON.stringify(field)).join(", ");
  const fix = `Fix the field${fields.length > 1 ? "s" : ""} ${quoted} of ${those} in the service.`;
  return new InvalidResponseError(
    `${unread.length} of the ${what} of the workspace at ${session.workspace} could not be read (ids ${ids}; ` +
      `${reasonOf(error)}), and this lookup answers from the whole list: ` +
      `${they} may be what it looks for, so nothing was decided. ${fix}`,
    { method: error.method ?? "GET", path: error.path ?? "", status: error.status ?? 200, field: error.field },
  );
}

/** The records of a whole list a lookup answers from, or {@link unreadable} when it holds a record that could not be read. */
export function whole<T>(session: { workspace: string }, what: string, list: ProvenList<T>): T[] {
  if (list.unread.length > 0) throw unreadable(session, what, list.unread);
  return list.records;
}

/**
 * `getUsers` with `isGuest`, where candidates' records do not tell whether they are guests (`isGuest` left out beside a guest
 * role, a role the public document does not list, or none): whether each belongs in the answer is unknown, so the lookup
 * decides nothing (`lookup_ambiguous`, each one a candidate).
 */
export function guestUntold(session: { workspace: string }, users: ReadonlyArray<{ id: string; email: string | null }>): LookupError {
  const named = namedUpTo(users.map((u) => (u.email ? `${u.email} (${u.id})` : u.id)).sort());
  return new LookupError(
    `getUsers: ${users.length} of the users of the workspace at ${session.workspace} that match the other arguments have no role, ` +
      "a guest role or a role the public document does not list (it may be a guest's), and records that do not say whether " +
      `they are guests (isGuest left out): ${named}. Whether they belong in the answer is unknown, so nothing was decided. ` +
      "Filter without isGuest (by role, say), or fix the records in the service.",
    "lookup_ambiguous",
    "getUsers",
    users.map((u) => ({ id: u.id, label: u.email })),
  );
}
