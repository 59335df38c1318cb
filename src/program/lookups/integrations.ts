/** Lookups of integrations: one, many, an integration's entitlement catalogue and its members; each request at most once a run. */
import type * as pulumi from "@pulumi/pulumi";
import type { Entitlement, Integration } from "../../client";
import { inviteRole } from "../../shared/input-constants";
import type { IntegrationEntitlementRole } from "../integration-entitlement";
import type { SpecOf } from "./arguments";
import { namedUpTo } from "../../shared/named-up-to";
import { LookupError, notFound, whole } from "./lookup-error";
import { byEmail, nullsLast, outputOf, runLookup } from "./run";

/** An integration as the lookups return it: the client's, without the workspace. Attributes the service leaves out are `null`. */
export type LookedUpIntegration = Omit<Integration, "workspace">;

/** Arguments of {@link getIntegration}: exactly one of them (none, or two, does not compile: the lookup would refuse it), matched exactly. */
export type GetIntegrationArgs =
  | { id: string; label?: undefined; application?: undefined }
  | { id?: undefined; label: string; application?: undefined }
  | { id?: undefined; label?: undefined; application: string };

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

/** Arguments of {@link getIntegrationMembers}: the same. */
export type GetIntegrationMembersArgs = GetIntegrationEntitlementsArgs;

const INTEGRATION_ARGS = {
  lookup: "getIntegration",
  args: { id: "string", label: "string", application: "string" },
  exactlyOne: ["id", "label", "application"],
} as const satisfies SpecOf<GetIntegrationArgs>;
const INTEGRATIONS_ARGS = { lookup: "getIntegrations", args: { application: "string" } } as const satisfies SpecOf<GetIntegrationsArgs>;
const CATALOGUE_ARGS = {
  lookup: "getIntegrationEntitlements",
  args: { integrationId: "string" },
  required: ["integrationId"],
} as const satisfies SpecOf<GetIntegrationEntitlementsArgs>;
const MEMBERS_ARGS = { ...CATALOGUE_ARGS, lookup: "getIntegrationMembers" } as const;

/** An entitlement an integration offers: its `id` is what `IntegrationEntitlement.entitlements` takes. */
export type LookedUpEntitlement = Pick<Entitlement, "id" | "label" | "group">;

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
  /** The role in the words the resources take (the service's `owner` is `account_owner`); `null` when none or not known. */
  role: IntegrationEntitlementRole | null;
  /** The ids of the member's entitlements, sorted; `null` when the service's record leaves them out (not known, which is not none). */
  entitlements: string[] | null;
  status: string | null;
}

/** The result of {@link getIntegrationMembers}. */
export interface GetIntegrationMembersResult {
  /** The members, sorted by email. */
  members: LookedUpMember[];
}

/** The client's record without `workspace`, which every integration of one workspace shares. */
const lookedUp = ({ workspace: _, ...integration }: Integration): LookedUpIntegration => integration;

const describe = (i: Integration) => `${i.id} (label ${i.label === null ? "none" : JSON.stringify(i.label)})`;

/** What to do about an integration id no integration has: deleted since, or another workspace's. */
const NO_INTEGRATION_FIX =
  "It may have been deleted, or the id may be another workspace's: look the integration up by its application or label " +
  "(getIntegrationOutput({ application })), or list them with getIntegrations()";

/**
 * One integration, by `id`, `label` or `application` (exact). Fails when none matches, naming what was looked for and
 * the workspace, and when several match, listing each one's id and label: it never picks one.
 *
 * ```ts
 * const youtube = await wa.getIntegration({ application: "YouTube" });
 * new wa.IntegrationEntitlement("alice-youtube", { integrationId: youtube.id, userId, entitlements: ["VIEWER"] });
 * ```
 */
export function getIntegration(args: GetIntegrationArgs, opts?: pulumi.InvokeOptions): Promise<LookedUpIntegration> {
  return runLookup(
    INTEGRATION_ARGS,
    args,
    async ({ id, label, application }, session) => {
      if (id !== undefined) {
        const integration = await session.integration(id);
        if (!integration) throw notFound(session, "getIntegration", `no integration with id "${id}"`, NO_INTEGRATION_FIX);
        return lookedUp(integration);
      }
      const [field, value] = label !== undefined ? (["label", label] as const) : (["application", application!] as const);
      // A record the listing could not read may be the one (or a second one), unless its ${field}, readable, is another.
      const listed = await session.allIntegrations();
      const unread = listed.unread.filter((record) => record.mayHave(field, value));
      const all = whole(session, "integrations", { records: listed.records, unread });
      const matches = all.filter((integration) => integration[field] === value);
      if (matches.length === 0) {
        const known = [...new Set(all.map((i) => i[field]).filter((v): v is string => v !== null))].sort();
        // A workspace may have hundreds: the first of them, then how many more.
        const there = known.length > 0 ? namedUpTo(known.map((v) => JSON.stringify(v))) : "none";
        throw notFound(
          session,
          "getIntegration",
          `no integration with ${field} "${value}" (matched exactly; the ${field}s there: ${there})`,
        );
      }
      if (matches.length > 1) {
        throw new LookupError(
          `getIntegration: ${matches.length} integrations in the workspace at ${session.workspace} have ${field} "${value}": ` +
            `${namedUpTo(matches.map(describe))}. Look it up by ${field === "application" ? "label or id" : "id"} instead.`,
          "lookup_ambiguous",
          "getIntegration",
          matches.map((i) => ({ id: i.id, label: i.label })),
        );
      }
      return lookedUp(matches[0]!);
    },
    opts,
  );
}

/** {@link getIntegration} for arguments that are Pulumi inputs. */
export const getIntegrationOutput = outputOf(getIntegration);

/**
 * The workspace's integrations (only those of `application`, when given), sorted by label; none is an answer.
 *
 * ```ts
 * const slacks = await wa.getIntegrations({ application: "Slack" });
 * ```
 */
export function getIntegrations(args: GetIntegrationsArgs = {}, opts?: pulumi.InvokeOptions): Promise<GetIntegrationsResult> {
  return runLookup(
    INTEGRATIONS_ARGS,
    args,
    async ({ application }, session) => {
      // A record the listing could not read may be one of `application`, unless its application, readable, is another.
      const listed = await session.allIntegrations();
      const unread =
        application === undefined ? listed.unread : listed.unread.filter((record) => record.mayHave("application", application));
      const integrations = whole(session, "integrations", { records: listed.records, unread })
        .filter((integration) => application === undefined || integration.application === application)
        .map(lookedUp)
        .sort((a, b) => nullsLast(a.label, b.label) || nullsLast(a.id, b.id));
      return { integrations, ids: integrations.map((integration) => integration.id) };
    },
    opts,
  );
}

/** {@link getIntegrations} for arguments that are Pulumi inputs. */
export const getIntegrationsOutput = outputOf(getIntegrations);

/**
 * The entitlements an integration offers: what `IntegrationEntitlement.entitlements` may name. Fails, naming the
 * integration and the workspace, when there is no such integration.
 *
 * ```ts
 * const catalogue = await wa.getIntegrationEntitlements({ integrationId: youtube.id });
 * // catalogue.ids: ["VIEWER", "EDITOR", "MANAGER"]
 * ```
 */
export function getIntegrationEntitlements(
  args: GetIntegrationEntitlementsArgs,
  opts?: pulumi.InvokeOptions,
): Promise<GetIntegrationEntitlementsResult> {
  return runLookup(
    CATALOGUE_ARGS,
    args,
    async ({ integrationId }, session) => {
      const catalogue = await session.entitlements(integrationId);
      if (!catalogue)
        throw notFound(session, "getIntegrationEntitlements", `no integration with id "${integrationId}"`, NO_INTEGRATION_FIX);
      const entitlements = catalogue.map(({ id, label, group }) => ({ id, label, group }));
      return { entitlements, ids: entitlements.map((e) => e.id) };
    },
    opts,
  );
}

/** {@link getIntegrationEntitlements} for arguments that are Pulumi inputs. */
export const getIntegrationEntitlementsOutput = outputOf(getIntegrationEntitlements);

/**
 * The members of an integration, with their entitlements, sorted by email (it manages nothing). Fails, naming the
 * integration and the workspace, when there is no such integration.
 *
 * ```ts
 * const members = await wa.getIntegrationMembers({ integrationId: youtube.id });
 * // `entitlements` is null where the service's record leaves them out (not known): such a member is no manager known.
 * const managers = members.members.filter((m) => m.entitlements?.includes("MANAGER"));
 * ```
 */
export function getIntegrationMembers(args: GetIntegrationMembersArgs, opts?: pulumi.InvokeOptions): Promise<GetIntegrationMembersResult> {
  return runLookup(
    MEMBERS_ARGS,
    args,
    async ({ integrationId }, session) => {
      const listed = await session.members(integrationId);
      if (!listed) throw notFound(session, "getIntegrationMembers", `no integration with id "${integrationId}"`, NO_INTEGRATION_FIX);
      const members = whole(session, `members of integration ${integrationId}`, listed)
        .map((m) => ({
          userId: m.id,
          email: m.email,
          role: inviteRole(m.role) ?? null,
          // A record that leaves them out says nothing of them: not known, never listed as none.
          entitlements: m.entitlements === null ? null : [...m.entitlements],
          status: m.status,
        }))
        .sort((a, b) => byEmail(a.email, b.email) || nullsLast(a.userId, b.userId));
      return { members };
    },
    opts,
  );
}

/** {@link getIntegrationMembers} for arguments that are Pulumi inputs. */
export const getIntegrationMembersOutput = outputOf(getIntegrationMembers);
