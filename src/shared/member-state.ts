import type { IntegrationRole } from "../client";

/** A member as the service has it: entitlement ids sorted, the role as the invitation names it (null when unknown). */
export interface IntegrationMemberState {
  userId: string;
  entitlements: string[];
  role: IntegrationRole | null;
}

/** A member of the integration this resource does not manage. */
export interface UnmanagedIntegrationMember extends IntegrationMemberState {
  email: string | null;
}
