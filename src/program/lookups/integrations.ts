/**
 * Lookups of integrations: `getIntegration` (one, by id, label or application),
 * `getIntegrations` (many), and an integration's entitlement catalogue and members. Backed by
 * `GET /integrations/{id}`, one paged `GET /integrations` shared by every lookup of the run,
 * `GET /integrations/{id}/entitlements` and the paged `GET /integrations/{id}/users`, each sent
 * at most once per run.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Integration } from "../../client";
import { inviteRole } from "../../shared/inputs";
import type { IntegrationEntitlementRole } from "../integration-entitlement";
import { LookupError } from "./lookup-error";
import { byEmail, type LookupInputs, lookupOutput, nullsLast, runLookup } from "./run";
import type { LookupSession } from "./session";

/** An integration as the lookups return it. Attributes the service leaves out are `null`. */
export interface LookedUpIntegration {
  id: string;
  /** The application it connects, e.g. `YouTube`. Two integrations may share one. */
  application: string | null;
  /** The name people know it by in the workspace. */
  label: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Arguments of {@link getIntegration}: exactly one of them, matched exactly. */
export interface GetIntegrationArgs {
  id?: string;
  label?: string;
  application?: string;
}

/** Arguments of {@link getIntegrations}. */
export interface GetIntegrationsArgs {
  /** Only the integrations of this application (exact). */
  application?: string;
}

/** The result of {@link getIntegrations}. */
export interface GetIntegrationsResult {
  /** The integrations, sorted by label. */
  integrations: LookedUpIntegration[];
  /** Their ids, in the same order. */
  ids: string[];
}

/** Arguments of {@link getIntegrationEntitlements}. */
export interface GetIntegrationEntitlementsArgs {
  /** The integration's id, e.g. from {@link getIntegration}. */
  integrationId: string;
}

/** Arguments of {@link getIntegrationMembers}. */
export interface GetIntegrationMembersArgs {
  /** The integration's id, e.g. from {@link getIntegration}. */
  integrationId: string;
}

/** An entitlement an integration offers. */
export interface LookedUpEntitlement {
  /** What `IntegrationEntitlement.entitlements` takes, e.g. `VIEWER`. */
  id: string;
  label: string | null;
  /** `primary` or `secondary`. */
  group: string | null;
}

/** The result of {@link getIntegrationEntitlements}. */
export interface GetIntegrationEntitlementsResult {
  /** The catalogue, in the service's order. */
  entitlements: LookedUpEntitlement[];
  /** Their ids, in the same order. */
  ids: string[];
}

/** A member of an integration. */
export interface LookedUpMember {
  /** The workspace user's id. */
  userId: string;
  email: string | null;
  /**
   * The integration role in the words the resources take (`IntegrationEntitlement.role`,
   * `IntegrationMembers` members' `role`): `account_owner` or `account_collaborator`. The service's
   * member records say `owner` and `collaborator`; `null` when it gives no role or one this package
   * does not know.
   */
  role: IntegrationEntitlementRole | null;
  /** The ids of the member's entitlements, sorted. */
  entitlements: string[];
  status: string | null;
}

/** The result of {@link getIntegrationMembers}. */
export interface GetIntegrationMembersResult {
  /** The members, sorted by email. */
  members: LookedUpMember[];
}

const INTEGRATION_ARGS = {
  lookup: "getIntegration",
  args: { id: "string", label: "string", application: "string" },
  exactlyOne: ["id", "label", "application"],
} as const;
const INTEGRATIONS_ARGS = { lookup: "getIntegrations", args: { application: "string" } } as const;
const CATALOGUE_ARGS = { lookup: "getIntegrationEntitlements", args: { integrationId: "string" }, required: ["integrationId"] } as const;
const MEMBERS_ARGS = { lookup: "getIntegrationMembers", args: { integrationId: "string" }, required: ["integrationId"] } as const;

/** The client's record without `workspace`, which every integration of one workspace shares. */
const lookedUp = ({ workspace: _, ...integration }: Integration): LookedUpIntegration => integration;

const describe = (i: Integration) => `${i.id} (label ${i.label === null ? "none" : JSON.stringify(i.label)})`;

/**
 * One integration, by `id`, `label` or `application` (exact). Fails when none matches, naming
 * what was looked for and the workspace, and when several match (two integrations of the same
 * application), listing each one's id and label: it never picks one.
 *
 * ```ts
 * const youtube = await wa.getIntegration({ application: "YouTube" });
 * new wa.IntegrationEntitlement("alice-youtube", { integrationId: youtube.id, userId, entitlements: ["VIEWER"] });
 * ```
 */
export function getIntegration(args: GetIntegrationArgs, _opts?: pulumi.InvokeOptions): Promise<LookedUpIntegration> {
  return runLookup<GetIntegrationArgs, LookedUpIntegration>(INTEGRATION_ARGS, args, async ({ id, label, application }, session) => {
    if (id !== undefined) {
      const integration = await session.integration(id);
      if (!integration) throw notFound(session, "getIntegration", `no integration with id "${id}"`);
      return lookedUp(integration);
    }
    const [field, value] = label !== undefined ? (["label", label] as const) : (["application", application!] as const);
    const all = await session.allIntegrations();
    const matches = all.filter((integration) => integration[field] === value);
    if (matches.length === 0) {
      const known = [...new Set(all.map((i) => i[field]).filter((v): v is string => v !== null))].sort();
      const there = known.length > 0 ? known.map((v) => JSON.stringify(v)).join(", ") : "none";
      throw notFound(session, "getIntegration", `no integration with ${field} "${value}" (matched exactly; the ${field}s there: ${there})`);
    }
    if (matches.length > 1) {
      throw new LookupError(
        `getIntegration: ${matches.length} integrations in the workspace at ${session.workspace} have ${field} "${value}": ` +
          `${matches.map(describe).join(", ")}. Look it up by ${field === "application" ? "label or id" : "id"} instead.`,
        "lookup_ambiguous",
        "getIntegration",
        matches.map((i) => ({ id: i.id, label: i.label })),
      );
    }
    return lookedUp(matches[0]!);
  });
}

/** {@link getIntegration} for arguments that are Pulumi inputs. */
export function getIntegrationOutput(
  args: LookupInputs<GetIntegrationArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<LookedUpIntegration> {
  return lookupOutput(args, opts, (resolved) => getIntegration(resolved));
}

/**
 * The workspace's integrations (only those of `application`, when given), sorted by label. An
 * empty result is an answer, not an error.
 *
 * ```ts
 * const slacks = await wa.getIntegrations({ application: "Slack" });
 * ```
 */
export function getIntegrations(args: GetIntegrationsArgs = {}, _opts?: pulumi.InvokeOptions): Promise<GetIntegrationsResult> {
  return runLookup<GetIntegrationsArgs, GetIntegrationsResult>(INTEGRATIONS_ARGS, args, async ({ application }, session) => {
    const integrations = (await session.allIntegrations())
      .filter((integration) => application === undefined || integration.application === application)
      .map(lookedUp)
      .sort(byLabel);
    return { integrations, ids: integrations.map((integration) => integration.id) };
  });
}

/** {@link getIntegrations} for arguments that are Pulumi inputs. */
export function getIntegrationsOutput(
  args: LookupInputs<GetIntegrationsArgs> = {},
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetIntegrationsResult> {
  return lookupOutput(args, opts, (resolved) => getIntegrations(resolved));
}

/**
 * The entitlements an integration offers: what `IntegrationEntitlement.entitlements` may name.
 * Fails, naming the integration and the workspace, when there is no such integration.
 *
 * ```ts
 * const catalogue = await wa.getIntegrationEntitlements({ integrationId: youtube.id });
 * // catalogue.ids: ["VIEWER", "EDITOR", "MANAGER"]
 * ```
 */
export function getIntegrationEntitlements(
  args: GetIntegrationEntitlementsArgs,
  _opts?: pulumi.InvokeOptions,
): Promise<GetIntegrationEntitlementsResult> {
  return runLookup<GetIntegrationEntitlementsArgs, GetIntegrationEntitlementsResult>(
    CATALOGUE_ARGS,
    args,
    async ({ integrationId }, session) => {
      const catalogue = await session.entitlements(integrationId);
      if (!catalogue) throw notFound(session, "getIntegrationEntitlements", `no integration with id "${integrationId}"`);
      const entitlements = catalogue.map(({ id, label, group }) => ({ id, label, group }));
      return { entitlements, ids: entitlements.map((e) => e.id) };
    },
  );
}

/** {@link getIntegrationEntitlements} for arguments that are Pulumi inputs. */
export function getIntegrationEntitlementsOutput(
  args: LookupInputs<GetIntegrationEntitlementsArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetIntegrationEntitlementsResult> {
  return lookupOutput(args, opts, (resolved) => getIntegrationEntitlements(resolved));
}

/**
 * The members of an integration, with their entitlements, sorted by email. Reads the service;
 * it does not manage anything (an `IntegrationEntitlement` does). Fails, naming the integration
 * and the workspace, when there is no such integration.
 *
 * ```ts
 * const members = await wa.getIntegrationMembers({ integrationId: youtube.id });
 * const managers = members.members.filter((m) => m.entitlements.includes("MANAGER"));
 * ```
 */
export function getIntegrationMembers(args: GetIntegrationMembersArgs, _opts?: pulumi.InvokeOptions): Promise<GetIntegrationMembersResult> {
  return runLookup<GetIntegrationMembersArgs, GetIntegrationMembersResult>(MEMBERS_ARGS, args, async ({ integrationId }, session) => {
    const listed = await session.members(integrationId);
    if (!listed) throw notFound(session, "getIntegrationMembers", `no integration with id "${integrationId}"`);
    const members = listed
      .map((m) => ({ userId: m.id, email: m.email, role: inviteRole(m.role) ?? null, entitlements: [...m.entitlements], status: m.status }))
      .sort((a, b) => byEmail(a.email, b.email) || nullsLast(a.userId, b.userId));
    return { members };
  });
}

/** {@link getIntegrationMembers} for arguments that are Pulumi inputs. */
export function getIntegrationMembersOutput(
  args: LookupInputs<GetIntegrationMembersArgs>,
  opts?: pulumi.InvokeOutputOptions,
): pulumi.Output<GetIntegrationMembersResult> {
  return lookupOutput(args, opts, (resolved) => getIntegrationMembers(resolved));
}

function notFound(session: LookupSession, lookup: string, what: string): LookupError {
  return new LookupError(`${lookup}: ${what} in the workspace at ${session.workspace}.`, "lookup_not_found", lookup);
}

/** By label (integrations without one last), then by id, so the order is stable. */
const byLabel = (a: LookedUpIntegration, b: LookedUpIntegration) => nullsLast(a.label, b.label) || nullsLast(a.id, b.id);
