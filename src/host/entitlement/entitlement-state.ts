/** What an {@link IntegrationEntitlement} records, its id (`<integrationId>/<userId>`), and what a change of inputs means. No request. */
import type * as pulumi from "@pulumi/pulumi";
import { ConfigurationError } from "../../client";
import { sameId } from "../../client/ids";
import {
  DEFAULT_INTEGRATION_ROLE,
  entitlementSet,
  type IntegrationEntitlementInputs,
  inviteRole,
  type Props,
  sameSet,
  optIn,
  optInChanged,
} from "../../shared/inputs";
import { containsUnknown, isUnknown } from "../../shared/unknown";
import { MEMBERSHIP_ID_FORM, splitMembershipId } from "../../shared/membership-id";
import { wholeIgnoredOf } from "../hidden-inputs";
import type { Ignorable } from "../members/members-plan";
import type { HeldMember } from "../membership/held-set";
import { IGNORE_CHANGES } from "../../shared/input-constants";
import type { PendingInvitation } from "../membership/partial-write";

/** What an {@link IntegrationEntitlement} stores: its inputs, the member's email and status, and the last job. */
export interface IntegrationEntitlementOutputs extends Omit<IntegrationEntitlementInputs, "role"> {
  /** The role the member holds; the declared one when the service does not say; `null` when neither says. */
  role?: IntegrationEntitlementInputs["role"] | null;
  email: string | null;
  status: string | null;
  /** The job of the last write this resource made (null when none was needed). */
  lastJobId: string | null;
  /** The last write when it may still land, with its job: the entitlements are then the ones asked, not known to be held. */
  pendingInvitations?: PendingInvitation[];
  /** The stack adopted the membership (`adoptExisting` found it, or `import`): destroy leaves it unless `deleteOnDestroy`. */
  adopted?: boolean;
  /**
   * The role the program declares (`null`: it leaves the role out, so `role` is the service's and a refresh hands it back as no
   * input). Written by create and update from the inputs, kept by a refresh: `role` is what the service has. Absent in a state
   * written before it: not known, so a destroy does not take it for a declared owner.
   */
  declaredRole?: IntegrationEntitlementInputs["role"] | null;
}

/**
 * What the program's `ignoreChanges` (`__ignoreChanges` of `news`) leaves as the service has it: the set, the role, or both, each
 * named whole (a path naming one entitlement, `entitlements[0]`, leaves the rest of the set as declared).
 */
export const ignoredOfOne = (news: Props): Ignorable[] => wholeIgnoredOf(news[IGNORE_CHANGES], ["entitlements", "role"]);

/** The resource id of a membership. */
export const membershipId = (integrationId: string, userId: string) => `${integrationId}/${userId}`;

/** Splits `<integrationId>/<userId>` ({@link splitMembershipId}); any other form fails, naming the id. */
export function parseId(id: string): { integrationId: string; userId: string } {
  const parts = splitMembershipId(id);
  if (!parts) throw new ConfigurationError(`"${id}" is not an IntegrationEntitlement id: expected ${MEMBERSHIP_ID_FORM}`, "id");
  return parts;
}

/** The outputs of a membership the service has: the set and role it holds (the declared role when it does not say; else none). */
export function outputs(
  member: HeldMember,
  inputs: IntegrationEntitlementInputs,
  lastJobId: string | null,
  adopted = false,
): IntegrationEntitlementOutputs {
  return {
    integrationId: inputs.integrationId,
    userId: inputs.userId,
    entitlements: entitlementSet(member.entitlements),
    // The API reads "owner"/"collaborator"; a role it does not say (or says in unknown words) leaves the declared one.
    role: inviteRole(member.role) ?? inputs.role ?? null,
    declaredRole: inputs.role ?? null,
    adoptExisting: inputs.adoptExisting === true,
    ...optIn(inputs.deleteOnDestroy),
    email: member.email,
    status: member.status,
    lastJobId,
    pendingInvitations: [],
    adopted,
  };
}

/**
 * What a change of inputs means: which properties change, which force a replacement. `declared`: `news` are the program's (its
 * `check` ran in this deployment). Else they are the state's inputs, as the engine diffs a refresh's read against them: their
 * role is the one a refresh read (`inputsOf`), which tells nothing of what the program declares, so it is no change of the
 * declaration; against the role read now, it shows a role changed in the service (`roleChanged`).
 */
export function diffEntitlement(olds: IntegrationEntitlementOutputs, news: Props, declared = true): pulumi.dynamic.DiffResult {
  const { moved, roleChanged, entitlementsChanged } = changesOf(olds, news);
  const replaces = [...moved, ...(roleChanged ? ["role"] : [])];
  return {
    // A pending write is resumed by an update (the set it asked is not known to be held); a role declared or left out anew,
    // the service's holding already, is recorded by one (nothing sent).
    changes:
      replaces.length > 0 ||
      entitlementsChanged ||
      (olds.pendingInvitations?.length ?? 0) > 0 ||
      optInChanged(olds, news) ||
      (declared && !ignoredOfOne(news).includes("role") && declaredRoleChanged(olds, news)),
    replaces,
    // The API cannot change a member's role: the old membership goes first (when both are the same membership).
    deleteBeforeReplace: roleChanged && moved.length === 0,
  };
}

/** What differs between the state and the program's inputs: the membership's key (`moved`), its role, its set. */
function changesOf(olds: IntegrationEntitlementOutputs, news: Props) {
  const old: Props = { ...olds };
  const differs = (key: string, same: (a: unknown, b: unknown) => boolean) => isUnknown(news[key]) || !same(old[key], news[key]);
  // Ids compare in their one form (`idOf`).
  const moved = ["integrationId", "userId"].filter((key) =>
    differs(key, (a, b) => a === b || (typeof a === "string" && typeof b === "string" && sameId(a, b))),
  );
  // A role the program leaves out is the service's: never a change (as a member's of IntegrationMembers). What `ignoreChanges`
  // names is the service's too: the state records what it has, and no declaration changes it.
  const ignored = ignoredOfOne(news);
  const roleChanged =
    !ignored.includes("role") && news.role !== undefined && differs("role", (a, b) => (a ?? DEFAULT_INTEGRATION_ROLE) === b);
  const entitlementsChanged =
    !ignored.includes("entitlements") && (containsUnknown(news.entitlements) || !sameSet(olds.entitlements, news.entitlements));
  return { moved, roleChanged, entitlementsChanged };
}

/** The input properties that differ between the state and the program's inputs, for `replaceOnChanges`. */
export function changedEntitlementProperties(olds: IntegrationEntitlementOutputs, news: Props): string[] {
  const { moved, roleChanged, entitlementsChanged } = changesOf(olds, news);
  return [
    ...moved,
    ...(roleChanged ? ["role"] : []),
    ...(entitlementsChanged ? ["entitlements"] : []),
    ...(optInChanged(olds, news) ? ["deleteOnDestroy"] : []),
  ];
}

/**
 * Whether the program now declares another role than the state records as declared (or leaves out one it declared). A state
 * written before the record says nothing: no diff of its own (its next write records it).
 */
export const declaredRoleChanged = (olds: IntegrationEntitlementOutputs, news: Props) =>
  "declaredRole" in olds && !isUnknown(news.role) && (news.role ?? null) !== olds.declaredRole;

/** The inputs part of a state, as a read hands them back (outputs left out; Pulumi types a read's inputs as its outputs). */
export function inputsOf(props: IntegrationEntitlementOutputs): IntegrationEntitlementOutputs {
  const { email: _e, status: _s, lastJobId: _j, pendingInvitations: _p, adopted: _a, declaredRole, role, ...inputs } = props;
  return (declaredRole === null || role === undefined || role === null ? inputs : { ...inputs, role }) as IntegrationEntitlementOutputs;
}
