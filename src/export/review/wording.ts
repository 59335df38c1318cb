/**
 * The review's words: what a side holds, and a difference's sentence. Present tense, no history: the review
 * cannot tell a pending edit of `access.yaml` from a change in the workspace, and does not guess.
 */
import type { AccessLeftOut, AccessMember, AccessUser } from "../access-file";
import type { AccessDifference, DifferenceSide } from "./differences";

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

/** `user u-scim <scim@x.example>`, `scim@x.example in "YouTube acme"`, `integration 3c9e… ("YouTube acme")` */
export function leftOutName(record: AccessLeftOut, label: string): string {
  const who = `${record.id ?? "(no id)"}${record.email === undefined ? "" : ` <${record.email}>`}`;
  if (record.kind === "user") return `user ${who}`;
  if (record.kind === "membership") return `the membership of ${who} in "${label}"`;
  return `integration ${record.id ?? "(no id)"}${label === record.id ? "" : ` ("${label}")`}`;
}

/** A difference with its sentence: `<side> <holds>; <other side> does not` (or `<other side> <holds other>`). */
export function difference(
  fields: Omit<AccessDifference, "text" | "accessYaml" | "workspace"> & { accessYaml?: string | null; workspace?: string | null },
  sentence: string,
): AccessDifference {
  return { ...fields, accessYaml: fields.accessYaml ?? null, workspace: fields.workspace ?? null, text: sentence };
}
