/**
 * Which record of `access.yaml` a record of the workspace is, one to one: the review compares the pairs, `--accept` keeps
 * each pair's record as written where it does not differ. A user is the same by the id the file records, as the id stays
 * when the email changes, else by email.
 */
import { idOf } from "../../client";
import { emailKey } from "../../client/models";
import type { AccessUser } from "../access-file";

/**
 * Each record of `now` with the record of `was` it is (absent: none), one to one: pass by pass (`keys`: an id first, then
 * an email, say), each record of `now` not matched yet takes the first record of `was` not taken that has the same key.
 */
export function matchBy<W, N>(was: readonly W[], now: readonly N[], keys: ReadonlyArray<(record: W | N) => string | undefined>): Map<N, W> {
  const matched = new Map<N, W>();
  const taken = new Set<W>();
  for (const key of keys) {
    const then = new Map<string, W>();
    for (const w of was) {
      const k = key(w);
      if (k !== undefined && !taken.has(w) && !then.has(k)) then.set(k, w);
    }
    for (const n of now) {
      const k = key(n);
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
 * aside), so that a user given a new email is the same user, and one the file names without an id is found by email.
 */
export function matchUsers(recorded: readonly AccessUser[], live: readonly AccessUser[]): Map<AccessUser, AccessUser> {
  return matchBy(recorded, live, [(u) => (u.id === undefined ? undefined : idOf(u.id)), (u) => emailKey(u.email)]);
}

/**
 * Where each member of the file is to be found among the workspace's (the `emailKey` of their user there), their user matched
 * by {@link matchUsers} (`matched`, the workspace's user to the file's): the matched user's email, which is the file's own
 * unless it changed; none (`undefined`) for a user the workspace does not have whose email another of its users holds now
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
  if (user.id !== undefined && listed.ids.has(idOf(user.id))) return true;
  return listed.emails.has(emailKey(user.email)) && !emailsRead.has(emailKey(user.email));
}
