/**
 * The access review as one pure function: `access.yaml` and the workspace now (as an export would write it) in,
 * their differences out, each saying which side holds what, never how it came to be. Users are matched by email
 * (case-insensitively), memberships by integration id and email, records left out by kind and ids. Present tense, no
 * history: the review cannot tell a pending edit of `access.yaml` from a change in the workspace, and does not guess.
 */
import { emailKey } from "../../client/models";
import {
  type AccessFile,
  type AccessIntegration,
  type AccessLeftOut,
  type AccessMember,
  type AccessUser,
  leftOutKey,
} from "../access-file";
import { byKey } from "../names";
import { leftOutDifferences } from "./left-out";
import { membershipDifferences } from "./memberships";
import { userDifferences } from "./users";

/** Which side holds what differs: only `access.yaml`, only the workspace, or both, with different values. */
export type DifferenceSide = "access.yaml" | "workspace" | "both";

/** The kinds of difference, in the order they are listed for one user and integration. */
export const DIFFERENCE_KINDS = [
  "user",
  "user-id",
  "user-name",
  "user-role",
  "user-guest",
  "membership",
  "member-role",
  "entitlements",
  "left-out",
] as const;

/** One difference between `access.yaml` and the workspace, for people (`text`) and for programs (the rest). */
export interface AccessDifference {
  /**
   * `user`, `membership`: one side has it; `user-id` (only where `access.yaml` records one), `user-name`, `user-role`,
   * `user-guest`, `member-role`: an attribute;
   * `entitlements`: granted by one side in a membership both have; `left-out`: a record a project cannot declare.
   */
  kind: (typeof DIFFERENCE_KINDS)[number];
  side: DifferenceSide;
  /** The user's email, else id; empty for an integration. `userId`: for records left out. */
  user: string;
  userId?: string;
  /** The integration's label (else name, else id). */
  integration?: string;
  integrationId?: string;
  /** What each side holds, in words (`READ`, `workspace_owner`, `Ann Lee`); null: nothing. */
  accessYaml: string | null;
  workspace: string | null;
  /** The entitlements one side grants and the other does not (`membership`, `entitlements`). */
  entitlements?: string[];
  /** Why a project cannot declare the record (`left-out`). */
  leftOut?: string;
  /** `access.yaml grants ann@acme.example READ in "GitHub acme-labs"; the workspace does not` */
  text: string;
}

/** The sides' names in sentences. */
export const SIDE_NAME: Record<Exclude<DifferenceSide, "both">, string> = { "access.yaml": "access.yaml", workspace: "the workspace" };

/** `Ann Lee, workspace_owner, guest` */
export function userValue(user: Pick<AccessUser, "firstName" | "lastName" | "role" | "isGuest">): string {
  return [`${user.firstName} ${user.lastName}`, user.role, user.isGuest ? "guest" : undefined].filter((p) => p !== undefined).join(", ");
}

/** `READ, WRITE as account_collaborator` */
export function memberValue(member: Pick<AccessMember, "entitlements"> & { role?: string | undefined }): string {
  const held = member.entitlements.length > 0 ? member.entitlements.join(", ") : "no entitlement";
  return member.role === undefined ? held : `${held} as ${member.role}`;
}

/** What is known of a record left out: `workspace_login_only`, `VIEWER as collaborator`, else `(not read)`. */
export function leftOutValue(record: AccessLeftOut): string {
  if (record.kind === "membership" && record.entitlements !== undefined)
    return memberValue({ entitlements: record.entitlements, role: record.role });
  if (record.kind === "user" && (record.role !== undefined || record.isGuest !== undefined)) {
    return [record.role ?? "no role", record.isGuest ? "guest" : undefined].filter((p) => p !== undefined).join(", ");
  }
  return "(not read)";
}

/** A difference with its sentence: `<side> <holds>; <other side> does not` (or `<other side> <holds other>`). */
export function difference(
  fields: Omit<AccessDifference, "text" | "accessYaml" | "workspace"> & { accessYaml?: string | null; workspace?: string | null },
  sentence: string,
): AccessDifference {
  return { ...fields, accessYaml: fields.accessYaml ?? null, workspace: fields.workspace ?? null, text: sentence };
}

/** A member with its integration. */
export interface Placed {
  integration: AccessIntegration;
  member: AccessMember;
}

/** A membership's identity: integration id and email. */
export const memberEmailKey = (integrationId: string, email: string) => `${integrationId}\u0000${emailKey(email)}`;

/** The left-out record of a user by email, or of a membership by integration and email, of one side. */
export function leftOutOf(left: Map<string, AccessLeftOut>, kind: "user" | "membership", key: string): AccessLeftOut | undefined {
  for (const record of left.values()) {
    if (record.kind !== kind || record.email === undefined) continue;
    if (kind === "user" ? emailKey(record.email) === key : memberEmailKey(record.integration ?? "", record.email) === key) return record;
  }
  return undefined;
}

/** Whether an integration is left out on one side (its members then not read). */
export const integrationLeftOut = (left: Map<string, AccessLeftOut>, id: string) => left.has(leftOutKey({ kind: "integration", id }));

/** The two sides, indexed once for the comparisons: left-out records by {@link leftOutKey}, members by {@link memberEmailKey}. */
export type Sides = ReturnType<typeof sides>;

/** `workspaceEmails`: the emails (`emailKey`) of every user the workspace lists, in scope or not (under `--members-only`, still users). */
function sides(recorded: AccessFile, live: AccessFile, workspaceEmails: ReadonlySet<string> | undefined) {
  const byLeftKey = (records: readonly AccessLeftOut[]) => {
    const map = new Map<string, AccessLeftOut>();
    for (const record of records) if (!map.has(leftOutKey(record))) map.set(leftOutKey(record), record);
    return map;
  };
  const members = (file: AccessFile): Map<string, Placed> =>
    new Map(
      file.integrations.flatMap((integration) =>
        integration.members.map((member) => [memberEmailKey(integration.id, member.user), { integration, member }] as const),
      ),
    );
  const labels = new Map([...recorded.integrations, ...live.integrations].map((i) => [i.id, i.label ?? i.name]));
  return {
    recorded,
    live,
    workspaceEmails,
    leftThen: byLeftKey(recorded.leftOut),
    leftNow: byLeftKey(live.leftOut),
    membersThen: members(recorded),
    membersNow: members(live),
    /** Left-out keys a membership comparison has reported already. */
    reported: new Set<string>(),
    /** An integration's label, else name, else id, from either side. */
    label: (id: string | undefined) => (id === undefined ? "?" : (labels.get(id) ?? id)),
  };
}

/**
 * Every difference between `recorded` (`access.yaml`) and `live` (the workspace now), by user, integration, kind.
 * Empty when the project's `pulumi up` would send no write and nothing the project cannot declare differs.
 */
export function compareAccess(
  recorded: AccessFile,
  live: AccessFile,
  options: { workspaceEmails?: ReadonlySet<string> } = {},
): AccessDifference[] {
  const both = sides(recorded, live, options.workspaceEmails);
  // In this order: the memberships' part records what it reported of the left-out part (`reported`).
  const differences = [...userDifferences(both), ...membershipDifferences(both), ...leftOutDifferences(both)];
  const order = (d: AccessDifference) => {
    const where = d.integration === undefined ? "" : `\u0001${d.integration}`;
    return [emailKey(d.user), where, DIFFERENCE_KINDS.indexOf(d.kind), d.side, d.text].join("\u0000");
  };
  return differences.sort(byKey(order));
}
