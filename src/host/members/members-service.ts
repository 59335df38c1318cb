/**
 * What an {@link IntegrationMembers} operation knows of the service: the member list, and the
 * confirmations the plan asks for (`members-plan.ts`). A list proves presence, never absence: an
 * absence a decision rests on is confirmed by a direct read (`GET /integrations/{id}/users/{userId}`;
 * 404 = absent), at most {@link CONFIRM_CONCURRENCY} at once; or, when that would cost more reads
 * than listing again, by a listing that agrees with the one before it (taken with another page
 * size, so that a service skipping the same offset on every walk cannot make both miss the same
 * member): the package's one proof of absence, `client/absence.ts`. When listings keep differing,
 * the members still missing are read one by one.
 */
import { idOf } from "../../client/ids";
import { type Id, InvalidResponseError, type IntegrationUser, type WorkspaceAccessClient } from "../../client";
import { readMember as readOne } from "../membership/member-list";
import { mapBounded, proofPageSize, prove } from "../../client/absence";
import { entitlementSet, inviteRole } from "../../shared/inputs";
import type { IntegrationMemberState } from "../../shared/member-state";
import { byKey, type ServiceMember } from "./members-state";

/** The most direct reads in flight at once. */
export const CONFIRM_CONCURRENCY = 8;
/** The page size of the confirming listing: another than the first listing's (100). */
export const CONFIRM_PAGE_SIZE = proofPageSize(1);
const LIST_PAGE_SIZE = proofPageSize(0);

/** A member's state from the service's record. */
export const serviceMember = (member: IntegrationUser): ServiceMember => ({
  userId: member.id,
  entitlements: entitlementSet(member.entitlements),
  role: inviteRole(member.role) ?? null,
  email: member.email,
});

/**
 * A member whose record cannot be used: what the state recorded stands (reading it as an empty
 * set would PATCH the member and show a diff on every up); else no set and an unknown role.
 */
function oddMember(userId: string, recorded: ReadonlyMap<string, IntegrationMemberState>): ServiceMember {
  const known = recorded.get(idOf(userId));
  return { userId, entitlements: known?.entitlements ?? [], role: known?.role ?? null, email: null };
}

/** The members of the integration by {@link idOf}: one paged list; records listed twice count once. */
export async function listMembers(
  client: WorkspaceAccessClient,
  integrationId: string,
  recordedList: readonly IntegrationMemberState[] = [],
  pageSize = LIST_PAGE_SIZE,
): Promise<Map<Id, ServiceMember>> {
  const recorded = byKey(recordedList);
  const members = new Map<Id, ServiceMember>();
  const onInvalid = (id: string | undefined) => {
    if (id !== undefined) members.set(idOf(id), oddMember(id, recorded));
  };
  for await (const member of client.integrations.listUsers(integrationId, { onInvalid, pageSize })) {
    members.set(idOf(member.id), serviceMember(member));
  }
  return members;
}

/**
 * One direct read, the membership view's (`membership/member-list.ts`), as a plan takes it: the
 * member, or `null` when the service answers 404 (not a member).
 */
export async function readMember(
  client: WorkspaceAccessClient,
  integrationId: string,
  userId: string,
  recorded: ReadonlyMap<string, IntegrationMemberState>,
): Promise<ServiceMember | null> {
  try {
    const member = await readOne(client, integrationId, userId);
    return member ? serviceMember(member) : null;
  } catch (error) {
    // A member whose record cannot be used is still a member.
    if (InvalidResponseError.isInstance(error)) return oddMember(userId, recorded);
    throw error;
  }
}

/** How many more listings a confirmation takes, at most, before reading the rest one by one. */
export const CONFIRM_LISTINGS = 2;

/**
 * Confirms the absences `userIds` (absent from `listed`): by key, the member found or `null` when
 * confirmed absent. Reads directly when there are no more of them than the pages of a listing;
 * else takes the package's one proof of absence (`client/absence.ts`: at most
 * {@link CONFIRM_LISTINGS} more listings, each at another page size, until two consecutive ones
 * agree), which confirms every absence from the proven listing; a member the last listing shows is
 * there. What is still unconfirmed after that is read directly.
 */
export async function confirmAbsences(
  client: WorkspaceAccessClient,
  integrationId: string,
  userIds: readonly string[],
  context: { listed: ReadonlyMap<Id, ServiceMember>; recorded?: readonly IntegrationMemberState[] },
): Promise<Map<string, ServiceMember | null>> {
  const recorded = byKey(context.recorded ?? []);
  const found = new Map<string, ServiceMember | null>();
  let toRead = [...userIds];
  if (toRead.length > Math.max(1, Math.ceil(context.listed.size / CONFIRM_PAGE_SIZE))) {
    const listAt = (pageSize: number) => listMembers(client, integrationId, context.recorded, pageSize);
    const { listing, proven, error } = await prove(listAt, new Map(context.listed), { listings: CONFIRM_LISTINGS });
    if (error) throw error;
    for (const id of toRead) {
      const member = listing.get(idOf(id));
      if (member) found.set(idOf(id), member);
      else if (proven) found.set(idOf(id), null);
    }
    toRead = toRead.filter((id) => !found.has(idOf(id)));
  }
  await mapBounded(toRead, CONFIRM_CONCURRENCY, async (id) => {
    found.set(idOf(id), await readMember(client, integrationId, id, recorded));
  });
  return found;
}

/**
 * Reads back the members `userIds` (just invited): one listing when they are more than the pages
 * it takes, then a direct read of each it misses (a listing proves presence only). By key: the
 * member, or `null` when a direct read answered 404.
 */
export async function readBack(
  client: WorkspaceAccessClient,
  integrationId: string,
  userIds: readonly string[],
  context: { expected: number; recorded?: readonly IntegrationMemberState[] },
): Promise<Map<string, ServiceMember | null>> {
  const found = new Map<string, ServiceMember | null>();
  let toRead = [...userIds];
  if (toRead.length > Math.max(1, Math.ceil(context.expected / LIST_PAGE_SIZE))) {
    const listed = await listMembers(client, integrationId, context.recorded);
    for (const id of toRead) {
      const member = listed.get(idOf(id));
      if (member) found.set(idOf(id), member);
    }
    toRead = toRead.filter((id) => !found.has(idOf(id)));
  }
  const recorded = byKey(context.recorded ?? []);
  await mapBounded(toRead, CONFIRM_CONCURRENCY, async (id) => {
    found.set(idOf(id), await readMember(client, integrationId, id, recorded));
  });
  return found;
}
