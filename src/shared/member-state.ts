/** Resource states as the service has them, shared by the program's classes and the providers (no zod: the published types import none). */
import type { IntegrationRole } from "../client";

/** A member as the service has it: entitlement ids sorted, the role as the invitation names it (null when unknown). */
export interface IntegrationMemberState {
  userId: string;
  entitlements: string[];
  role: IntegrationRole | null;
}

/**
 * A member of the integration this resource does not manage. `entitlements` is `null` when the service's record of the member
 * leaves them out: not known, which is not none (a managed member's set is always known: the state's stands in).
 */
export interface UnmanagedIntegrationMember extends Omit<IntegrationMemberState, "entitlements"> {
  entitlements: string[] | null;
  email: string | null;
}

/** One user as a `WorkspaceUsers` stores it: the service's attributes, the email as declared, what the program manages. */
export interface WorkspaceUserState {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string | null;
  isGuest: boolean | null;
  /** The optional attributes (`role`, `isGuest`) the program declares; the others are the service's. */
  managedAttributes: string[];
  /** This resource created the user (else it adopted them): only then does a removal delete them. */
  created?: true;
  /**
   * Declared values an update did not send, each as a digest (`sha256:...`; secret with `users` when an input is): the
   * program had not changed them while the service's value had been changed outside it (or `ignoreChanges` hid the program's).
   * They cause no diff; a refresh reads the service's value, and the next `up` applies the program's. Absent: none.
   */
  unapplied?: Partial<Record<"email" | "firstName" | "lastName" | "role" | "isGuest", string>>;
}

/**
 * A user a `WorkspaceUsers` asked the service to create whose job was not seen to finish: the next `up` or refresh waits for
 * the job, and a user it then finds with that email is the set's (created), not adopted.
 */
export interface PendingUserCreate {
  email: string;
  jobId: string;
}
