/**
 * What a member list proves, and how a miss is confirmed. A list proves that someone is a member,
 * never that someone is not: offset pages shift when someone else adds or removes a member between
 * two page reads, and a member can be skipped. A miss is confirmed the one way the package proves
 * an absence (`client/absence.ts`): by a complete listing, at another page size, that agrees with
 * the one before it ({@link prove}, {@link PROOF_LISTINGS} more at most), or, when the misses are
 * fewer than a listing's pages or no two listings agree, by a direct read of each (404 = absent),
 * at most {@link CONFIRM_PARALLEL} at a time. Used by the creates' shared lists
 * (`member-lookup.ts`) and by the batcher after a failed job (`invite-send.ts`).
 */
import { idOf } from "../../client/ids";
import { type Id, type IntegrationUser, NotFoundError, type WorkspaceAccessClient } from "../../client";
import { mapBounded, type Proof as AbsenceProof, prove as proveListing } from "../../client/absence";

/** The most direct reads that confirm misses at once. */
export const CONFIRM_PARALLEL = 8;
/**
 * How long a proven listing confirms misses (a shift is proven absent; someone else adding the
 * member later is not): after that, the next misses take a new listing to prove.
 */
export const PROOF_MAX_AGE_MS = 60_000;
/** How many more complete listings a shared list's misses may cost before each is read directly. */
export const PROOF_LISTINGS = 2;
/** The page size of a member list (the contract's maximum; the client asks for it). */
const PAGE_SIZE = 100;

/** A member, or why its record could not be used, by user id in its one form (`client/ids.ts`). */
export type Members = Map<Id, IntegrationUser | Error>;

/** The member, or `undefined` when the direct read answers 404 (not a member). */
export async function readMember(
  client: WorkspaceAccessClient,
  integrationId: string,
  userId: string,
): Promise<IntegrationUser | undefined> {
  try {
    return await client.integrations.getUser(integrationId, userId);
  } catch (error) {
    if (NotFoundError.isInstance(error)) return undefined;
    throw error;
  }
}

/**
 * Every member of an integration by user id in its one form, one paged list: a member whose record
 * cannot be used is there too, as the error naming the record (it is a member; what it holds is
 * unknown). A list proves presence only: confirm a miss before acting on it ({@link confirmAbsent}).
 */
export async function memberList(client: WorkspaceAccessClient, integrationId: string, pageSize?: number): Promise<Members> {
  const members: Members = new Map();
  const onInvalid = (id: string | undefined, error: Error) => {
    if (id !== undefined) members.set(idOf(id), error);
  };
  for await (const member of client.integrations.listUsers(integrationId, { onInvalid, pageSize })) members.set(member.id, member);
  return members;
}

/**
 * The users of `userIds` a list missed, each read directly (at most {@link CONFIRM_PARALLEL} at a
 * time): the member when the read finds one (the list skipped it), `undefined` when it answers 404.
 */
export async function confirmAbsent(
  client: WorkspaceAccessClient,
  integrationId: string,
  userIds: readonly string[],
): Promise<Map<string, IntegrationUser | undefined>> {
  const found = await mapBounded(userIds, CONFIRM_PARALLEL, (userId) => readMember(client, integrationId, userId));
  return new Map(userIds.map((userId, i) => [idOf(userId), found[i]]));
}

/** A listing, and whether a listing taken after it (at another page size) agreed: then its misses are absences. */
export type Proof = AbsenceProof<IntegrationUser | Error>;

/**
 * Takes up to {@link PROOF_LISTINGS} more complete listings of the members, each at another page
 * size, until two consecutive ones agree (`ignored` aside: keys this process wrote meanwhile): the
 * later one is then proven (`client/absence.ts`). Otherwise the last listing read, not proven.
 */
export function prove(
  client: WorkspaceAccessClient,
  integrationId: string,
  first: Members,
  ignored: ReadonlySet<string> = new Set(),
): Promise<Proof> {
  return proveListing((pageSize) => memberList(client, integrationId, pageSize), first, { listings: PROOF_LISTINGS, ignored });
}

/** How many pages a listing of `members` took. */
export const pagesOf = (members: Members) => Math.max(1, Math.ceil(members.size / PAGE_SIZE));

/**
 * Confirms the misses `userIds` of the listing `first`: by direct reads when they are fewer than
 * its pages, else by {@link prove} (and direct reads of those a proof could not settle). Resolves
 * each to the member (a listing skipped it) or `undefined` (absent). A member whose record cannot
 * be used is thrown.
 */
export async function confirmMisses(
  client: WorkspaceAccessClient,
  integrationId: string,
  first: Members,
  userIds: readonly string[],
  proof?: () => Promise<Proof>,
): Promise<Map<string, IntegrationUser | undefined>> {
  if (!proof && userIds.length < pagesOf(first)) return confirmAbsent(client, integrationId, userIds);
  const { listing, proven } = await (proof ? proof() : prove(client, integrationId, first));
  const result = new Map<string, IntegrationUser | undefined>();
  const unread: string[] = [];
  for (const userId of userIds) {
    // Presence in any listing is proof; absence only in a proven one.
    const hit = listing.get(idOf(userId));
    if (hit instanceof Error) throw hit;
    if (hit || proven) result.set(idOf(userId), hit);
    else unread.push(userId);
  }
  for (const [k, v] of await confirmAbsent(client, integrationId, unread)) result.set(k, v);
  return result;
}
