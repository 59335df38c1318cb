/**
 * What an {@link IntegrationEntitlement} records and how it compares: its id (`<integrationId>/<userId>`),
 * its inputs as `check` normalises them, its outputs from the member the service has, whether a
 * write may still land (`pendingOf`), and what a change of inputs means (`diffEntitlement`). No request.
 */
import { sameId } from "../../client/ids";
import type * as pulumi from "@pulumi/pulumi";
import { ConfigurationError, type IntegrationUser } from "../../client";
import {
  DEFAULT_INTEGRATION_ROLE,
  idInput,
  defined,
  entitlementSet,
  type IntegrationEntitlementInputs,
  inviteRole,
} from "../../shared/inputs";
import { containsUnknown, isUnknown } from "../../shared/unknown";

/** What an {@link IntegrationEntitlement} stores: its inputs, the member's email and status, and the last job. */
export interface IntegrationEntitlementOutputs extends IntegrationEntitlementInputs {
  email: string | null;
  status: string | null;
  /** The job of the last write this resource made (null when none was needed). */
  lastJobId: string | null;
  /**
   * The last write (an invitation, or a set) may still land: it was accepted and not seen to finish.
   * The entitlements are then the ones asked, not known to be held. Absent (a state a test writes by hand): not pending.
   */
  pending?: boolean;
  /** The job of that pending write, to wait for before writing again; null when none is known (its answer was lost). */
  pendingJobId?: string | null;
  /** The stack adopted the membership (`adoptExisting` found it, or `import`): destroy leaves it unless `deleteOnDestroy`. Absent: not adopted. */
  adopted?: boolean;
}

export type Props = Record<string, unknown>;

/** The resource id of a membership. */
export const membershipId = (integrationId: string, userId: string) => `${integrationId}/${userId}`;

/** Splits `<integrationId>/<userId>`. */
export function parseId(id: string): { integrationId: string; userId: string } {
  const [integrationId, userId, ...rest] = id.split("/");
  if (!integrationId || !userId || rest.length > 0) {
    throw new ConfigurationError(`"${id}" is not an IntegrationEntitlement id: expected <integrationId>/<userId>`, "id");
  }
  return { integrationId, userId };
}

/** Inputs with defaults applied and the entitlements as a sorted set (kept as is while unknown). */
export function normalise(news: Props): IntegrationEntitlementInputs {
  const entitlements = news.entitlements;
  return defined({
    integrationId: idInput(news.integrationId),
    userId: idInput(news.userId),
    entitlements: Array.isArray(entitlements) && !containsUnknown(entitlements) ? entitlementSet(entitlements as string[]) : entitlements,
    role: news.role ?? DEFAULT_INTEGRATION_ROLE,
    adoptExisting: news.adoptExisting ?? false,
    deleteOnDestroy: news.deleteOnDestroy,
  }) as IntegrationEntitlementInputs;
}

export function outputs(
  member: IntegrationUser,
  inputs: IntegrationEntitlementInputs,
  lastJobId: string | null,
  adopted = false,
): IntegrationEntitlementOutputs {
  return {
    ...settled(member, inputs),
    lastJobId,
    pending: false,
    pendingJobId: null,
    adopted,
  };
}

/** Whether the state records an adoption. */
export const wasAdopted = (props: Partial<IntegrationEntitlementOutputs> | undefined): boolean => props?.adopted === true;

/** Whether `deleteOnDestroy` changes: no request, but the state (which the delete reads) must learn it. */
export const optInChanged = (olds: Props, news: Props) =>
  isUnknown(news.deleteOnDestroy) || (olds.deleteOnDestroy === true) !== (news.deleteOnDestroy === true);

function settled(member: IntegrationUser, inputs: IntegrationEntitlementInputs) {
  return {
    integrationId: inputs.integrationId,
    userId: inputs.userId,
    entitlements: entitlementSet(member.entitlements),
    // The API reads "owner"/"collaborator"; when it does not say (or says something unknown),
    // the declared role stands.
    role: inviteRole(member.role) ?? inputs.role,
    adoptExisting: inputs.adoptExisting === true,
    ...(inputs.deleteOnDestroy === true ? { deleteOnDestroy: true } : {}),
    email: member.email,
    status: member.status,
  };
}

/** Whether the state records a write that may still land (`pending: true`), and its job (`pendingJobId`). */
export function pendingOf(props: Partial<IntegrationEntitlementOutputs> | undefined): { jobId: string | null } | undefined {
  if (props?.pending !== true) return undefined;
  return { jobId: typeof props.pendingJobId === "string" ? props.pendingJobId : null };
}

export const sameSet = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b) && JSON.stringify(entitlementSet(a)) === JSON.stringify(entitlementSet(b));

/** What a change of inputs means: which properties change, which force a replacement. */
export function diffEntitlement(olds: Props, news: Props): pulumi.dynamic.DiffResult {
  // A pending write is resumed by an update (the set it asked is not known to be held).
  const pending = pendingOf(olds) !== undefined;
  const differs = (key: string, same: (a: unknown, b: unknown) => boolean) => isUnknown(news[key]) || !same(olds[key], news[key]);
  // Ids compare in their one form (`idOf`): a state written before may hold the case a service once answered.
  const moved = ["integrationId", "userId"].filter((key) =>
    differs(key, (a, b) => a === b || (typeof a === "string" && typeof b === "string" && sameId(a, b))),
  );
  const roleChanged = differs("role", (a, b) => (a ?? DEFAULT_INTEGRATION_ROLE) === (b ?? DEFAULT_INTEGRATION_ROLE));
  const entitlementsChanged = containsUnknown(news.entitlements) || !sameSet(olds.entitlements, news.entitlements);
  const replaces = [...moved, ...(roleChanged ? ["role"] : [])];
  return {
    changes: replaces.length > 0 || entitlementsChanged || pending || optInChanged(olds, news),
    replaces,
    // The API cannot change a member's role: the old membership goes first, then the invite
    // with the new role. Only needed when both point at the same membership.
    deleteBeforeReplace: roleChanged && moved.length === 0,
  };
}

/** The inputs part of a state, as a read hands them back (outputs only left out). */
export function inputsOf(props: IntegrationEntitlementOutputs): IntegrationEntitlementOutputs {
  const { email: _e, status: _s, lastJobId: _j, pending: _p, pendingJobId: _q, adopted: _a, ...inputs } = props;
  return inputs as IntegrationEntitlementOutputs;
}
