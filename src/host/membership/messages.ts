/** The long messages both membership resources ({@link IntegrationMembers}, {@link IntegrationEntitlement}) give. */
import { namedUpTo } from "../../shared/named-up-to";

/** A destroy found `job` (already phrased) still running after another wait; `stuck` adds what to do if it never ends. */
export function stillRunningOnDestroy(job: string, stuck = ""): string {
  return (
    `${job} is still running after another wait, so the user may still become a member: ` +
    `run the destroy again once it has finished (this resource stays in the stack until then${stuck}).`
  );
}

/** The entitlements of `integrationId` could not be checked against its catalogue (`error` says why). */
export function entitlementsNotChecked(integrationId: string, error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return (
    `The entitlements of integration ${integrationId} were not checked against its catalogue (${why}). ` +
    "The preview goes on; a wrong entitlement id will fail the invite's job during up."
  );
}

/** "integration X offers no entitlement "VEIWER"; it offers (closest first): VIEWER, EDITOR, MANAGER" (`closest`: offered, nearest first). */
export function unoffered(integrationId: string, unknown: readonly string[], closest: readonly string[]): string {
  const names = unknown.map((id) => JSON.stringify(id)).join(", ");
  const listed = namedUpTo(closest);
  return (
    `integration ${integrationId} offers no entitlement ${names}; it offers (closest first): ${listed}. ` +
    "See getIntegrationEntitlements({ integrationId })."
  );
}

/** Why a member's ids not offered (`ids`) are let through: the member holds them already. */
export function heldAlready(ids: readonly string[]): string {
  const them = ids.length === 1 ? "it" : "them";
  return `Let through: the member holds ${them} already (granted before the integration stopped offering ${them}).`;
}
