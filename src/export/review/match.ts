/**
 * Which record of `access.yaml` a record of the workspace is, one to one: the review compares the pairs, `--accept` keeps
 * each pair's record as written where it does not differ. A user is the same by the id the file records, as the id stays
 * when the email changes, else by email, as {@link mayMatchByEmail} allows: the one rule of every match by email, the
 * review's, `--accept`'s and its refusals'.
 */
import { idOf } from "../../client";
import { emailKey } from "../../client/models";
import type { AccessFile, AccessUser } from "../access-file";

/**
 * Whether a user of `access.yaml` may be found by their email (case aside) in a record of the workspace that does not have
 * the id the file records: only when the file records none (added by hand), or the workspace lists that id no more
 * (`listedIds`, by `idOf`: the user was deleted; one made again may hold the email now). An id the workspace still
 * lists is that user, under whatever email they have now (in a form a project cannot declare, say, or out of a
 * `--members-only` scope): whoever holds their old email is another person.
 */
export const mayMatchByEmail = (user: Pick<AccessUser, "id">, listedIds: ReadonlySet<string>): boolean =>
  user.id === undefined || !listedIds.has(idOf(user.id));

/**
 * The ids (`idOf`) of every user the workspace lists, for {@link mayMatchByEmail}: those given (`listed`: all it lists, in
 * scope or not, a record that broke the contract too), and those of `live`'s users and records left out.
 */
export function listedIdsOf(live: Pick<AccessFile, "users" | "leftOut">, listed: Iterable<string> = []): Set<string> {
  const ids = new Set(listed);
  for (const record of [...live.users, ...live.leftOut.filter((l) => l.kind !== "integration")]) {
    if (record.id !== undefined) ids.add(idOf(record.id));
  }
  return ids;
}

/**
 * Each record of `now` with the record of `was` it is (absent: none), one to one: pass by pass (`keys`: an id first, then
 * an email, say; each told which side the record is of), each record of `now` not matched yet takes the first record of
 * `was` not taken that has the same key.
 */
export function matchBy<W, N>(
  was: readonly W[],
  now: readonly N[],
  keys: ReadonlyArray<(record: W | N, side: "was" | "now") => string | undefined>,
): Map<N, W> {
  const matched = new Map<N, W>();
  const taken = new Set<W>();
  for (const key of keys) {
    const then = new Map<string, W>();
    for (const w of was) {
      const k = key(w, "was");
      if (k !== undefined && !taken.has(w) && !then.has(k)) then.set(k, w);
    }
    for (const n of now) {
      const k = key(n, "now");
      const w = k === undefined || matched.has(n) ? undefined : then.get(k);
      if (w === undefined) continue;
      matched.set(n, w);
      taken.add(w);
      then.delete(k as string);
    }
  }
  return matched;
}

/**
 * The file's user each of the workspace's users is (absent: none): by the id the file records first, then by email (case
 * aside) as {@link mayMatchByEmail} allows (`listedIds`: every user the workspace lists, {@link listedIdsOf}), so that a
 * user given a new email is the same user, one the file names without an id is found by email, and one deleted and made
 * again is found by email too (a `user-id` difference), but one whose id is still listed is never taken for whoever
 * holds their old email.
 */
export function matchUsers(
  recorded: readonly AccessUser[],
  live: readonly AccessUser[],
  listedIds: ReadonlySet<string>,
): Map<AccessUser, AccessUser> {
  return matchBy(recorded, live, [
    (u) => (u.id === undefined ? undefined : idOf(u.id)),
    (u, side) => (side === "now" || mayMatchByEmail(u, listedIds) ? emailKey(u.email) : undefined),
  ]);
}

/**
 * Where each member of the file is to be found among the workspace's (the `emailKey` of their user there), their user matched
 * by {@link matchUsers} (`matched`, the workspace's user to the file's): the matched user's email, which is the file's own
 * unless it changed; none (`undefined`) for a user matched to none whose email another of the workspace's users holds now
 * (that user's memberships are not theirs); an email no user of the file has, as it is.
 */
export function memberEmailsNow(
  recorded: readonly AccessUser[],
  live: readonly AccessUser[],
  matched: ReadonlyMap<AccessUser, AccessUser>,
): (email: string) => string | undefined {
  const now = new Map<string, string | undefined>();
  for (const [user, was] of matched) now.set(emailKey(was.email), emailKey(user.email));
  const held = new Set(live.map((u) => emailKey(u.email)));
  for (const { email } of recorded) if (!now.has(emailKey(email)) && held.has(emailKey(email))) now.set(emailKey(email), undefined);
  return (email) => (now.has(emailKey(email)) ? now.get(emailKey(email)) : emailKey(email));
}

/** What the workspace lists beyond what was read into a file (under `--members-only`, users out of scope too). */
export interface Listed {
  /** The ids (`idOf`) and emails (`emailKey`) of every user it lists. */
  ids: ReadonlySet<string>;
  emails: ReadonlySet<string>;
}

/**
 * Whether the workspace still lists a user of the file whom no user read into `live` is (one out of a `--members-only`
 * scope, say): by the id the file records, or by the email, unless a user of `live` (`emailsRead`, by `emailKey`) holds it
 * now: that one is another person, or {@link matchUsers} would have made them this one.
 */
export function stillListed(user: Pick<AccessUser, "email" | "id">, listed: Listed, emailsRead: ReadonlySet<string>): boolean {
  // Their id listed is them; else their email, as it may be matched (no id recorded, or one gone).
  if (!mayMatchByEmail(user, listed.ids)) return true;
  return listed.emails.has(emailKey(user.email)) && !emailsRead.has(emailKey(user.email));
}
