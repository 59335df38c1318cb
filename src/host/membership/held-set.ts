/**
 * The set a member holds, as both membership resources take it from the service's record. A record that leaves `entitlements`
 * out says nothing of them (the contract: only `id` is certain): not known, which is not none. As for a record that cannot be
 * used (`asPlanned`), the set the state recorded stands in, so no `PATCH` and no diff rest on the unknown alone; where
 * `ignoreChanges` names the set and no state records one, the declared set does (the program asked that the service's be kept,
 * and none is written); with neither, none is known (`[]`), and a write of the declared set is what makes it known. A record
 * that says `[]` holds none. A member no resource manages keeps its set not known (`null`: `asPlanned`).
 */
import type { IntegrationUser } from "../../client";
import { entitlementSet } from "../../shared/inputs";
import { entitlementsLeftOut } from "./messages";

/** A member whose set is taken as known: the record's, or where it leaves it out, the one recorded (else none). */
export type HeldMember = Omit<IntegrationUser, "entitlements"> & { entitlements: string[] };

/** What stands in for a set the record leaves out: the one the state `recorded`, else the `declared` one (`ignoreChanges`). */
export interface StandIn {
  recorded?: readonly string[] | undefined;
  declared?: readonly string[] | undefined;
}

/**
 * `member` with the set it holds: its record's, else the {@link StandIn}'s, else none; `warn`, given, says when the record
 * left it out, naming the member and integration `integrationId`.
 */
export function withHeldSet(
  integrationId: string,
  member: IntegrationUser,
  standIn: StandIn,
  warn?: (message: string) => void,
): HeldMember {
  if (member.entitlements !== null) return { ...member, entitlements: member.entitlements };
  warn?.(entitlementsLeftOut(integrationId, member.id, standIn));
  return { ...member, entitlements: entitlementSet(standIn.recorded ?? standIn.declared ?? []) };
}
