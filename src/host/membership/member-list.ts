/**
 * Reading an integration's members, and the one way a miss is confirmed. A list proves presence, never absence (offset pages
 * shift between two page reads): a miss is confirmed by a direct read (404: absent) when the misses are fewer than a listing's
 * pages, else by the one proof of absence (`client/absence.ts`) and a direct read of each miss it could not settle.
 */
import { idOf } from "../../client/ids";
import { type Id, type IntegrationUser, InvalidResponseError, NotFoundError, type WorkspaceAccessClient } from "../../client";
import { mapBounded, type Proof as AbsenceProof, prove as proveListing } from "../../client/absence";

/** The most direct reads in flight at once. */
const CONFIRM_PARALLEL = 8;
/** How many more complete listings a confirmation may cost before each miss left is read directly. */
export const PROOF_LISTINGS = 2;
/** The page size of a member list (the contract's maximum; the client asks for it). */
const PAGE_SIZE = 100;

/** A member, or why its record could not be used (a member still; what it holds is unknown). */
export type Found = IntegrationUser | Error;
/** Members by user id in its one form (`client/ids.ts`). */
export type Members = Map<Id, Found>;
/** A listing, and whether a listing taken after it (at another page size) agreed: then its misses are absences. */
export type Proof = AbsenceProof<Found>;

/** The one direct read of a member: `undefined` when the service answers 404 (not a member), the error when the record is unusable. */
export async function readMember(client: WorkspaceAccessClient, integrationId: string, userId: string): Promise<Found | undefined> {
  try {
    return await client.integrations.getUser(integrationId, userId);
  } catch (error) {
    if (NotFoundError.isInstance(error)) return undefined;
    if (InvalidResponseError.isInstance(error)) return error;
    throw error;
  }
}

/** Every member of an integration, one paged list; a member whose record cannot be used is there as the error naming it. */
export async function memberList(client: WorkspaceAccessClient, integrationId: string, pageSize?: number): Promise<Members> {
  const members: Members = new Map();
  const onInvalid = (id: string | undefined, error: Error) => {
    if (id !== undefined) members.set(idOf(id), error);
  };
  for await (const member of client.integrations.listUsers(integrationId, { onInvalid, pageSize })) members.set(idOf(member.id), member);
  return members;
}

/** How many pages a listing of `members` took. */
export const pagesOf = (members: { size: number }) => Math.max(1, Math.ceil(members.size / PAGE_SIZE));

/** Each of `userIds` read directly, {@link CONFIRM_PARALLEL} at a time, by id in its one form. */
export async function readEach(
  client: WorkspaceAccessClient,
  integrationId: string,
  userIds: readonly string[],
): Promise<Map<Id, Found | undefined>> {
  const found = await mapBounded(userIds, CONFIRM_PARALLEL, (userId) => readMember(client, integrationId, userId));
  return new Map(userIds.map((userId, i) => [idOf(userId), found[i]]));
}

/** The proof that the misses of `first` are absences (`ignored`: ids this process wrote meanwhile). */
export function prove(client: WorkspaceAccessClient, integrationId: string, first: Members, ignored?: ReadonlySet<string>): Promise<Proof> {
  return proveListing((pageSize) => memberList(client, integrationId, pageSize), first, { listings: PROOF_LISTINGS, ignored });
}

/**
 * Confirms the misses `userIds` of the listing `first`: by direct reads when they are fewer than its pages, else by a
 * proof (`proof`, one the caller keeps, or a new one) and direct reads of the rest. Each: what was found, or `undefined`.
 */
export async function confirm(
  client: WorkspaceAccessClient,
  integrationId: string,
  first: Members,
  userIds: readonly string[],
  proof?: () => Promise<Proof>,
): Promise<Map<Id, Found | undefined>> {
  if (!proof && userIds.length < pagesOf(first)) return readEach(client, integrationId, userIds);
  const { listing, proven } = await (proof ? proof() : prove(client, integrationId, first));
  // Presence in any listing is proof; absence only in a proven one.
  const settled = userIds.filter((userId) => proven || listing.has(idOf(userId)));
  const result = new Map(settled.map((userId) => [idOf(userId), listing.get(idOf(userId))]));
  const unread = userIds.filter((userId) => !result.has(idOf(userId)));
  for (const [k, v] of await readEach(client, integrationId, unread)) result.set(k, v);
  return result;
}
