/**
 * The set a member holds, as both membership resources take it from the service's record. A record that leaves `entitlements`
 * out says nothing of them (the contract: only `id` is certain): not known, which is not none. As for a record that cannot be
 * used (`asPlanned`), the set the state recorded stands in, so no `PATCH` and no diff rest on the unknown alone; with none
 * recorded, none is known (`[]`), and a write of the declared set is what makes it known. A record that says `[]` holds none.
 */
import type { IntegrationUser } from "../../client";
import { entitlementSet } from "../../shared/inputs";
import { entitlementsLeftOut } from "./messages";

/** A member whose set is taken as known: the record's, or where it leaves it out, the one recorded (else none). */
export type HeldMember = Omit<IntegrationUser, "entitlements"> & { entitlements: string[] };

/**
 * `member` with the set it holds: its record's, else `recorded` (the state's), else none; `warn`, given, says when the record
 * left it out, naming the member and integration `integrationId`.
 */
export function withHeldSet(
  integrationId: string,
  member: IntegrationUser,
  recorded: readonly string[] | undefined,
  warn?: (message: string) => void,
): HeldMember {
  if (member.entitlements !== null) return { ...member, entitlements: member.entitlements };
  warn?.(entitlementsLeftOut(integrationId, member.id, recorded));
  return { ...member, entitlements: entitlementSet(recorded ?? []) };
}
