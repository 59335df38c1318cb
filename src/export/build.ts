/**
 * Turns what was read into `access.yaml`'s data: every user and membership a program can declare
 * so that its first `pulumi up` adopts it without a write, and a list of what it cannot, each with
 * the reason. A record is checked with the same input schemas the resources' `check` uses (a name
 * the provider would refuse is refused here, not at preview), and is either written whole or left
 * out whole: a membership whose user is left out is left out too. A record the service listed
 * twice (offset paging shifting under a change, or a repeat) is written once when the copies
 * agree, and left out when they differ, or when one copy broke the contract: which copy is right
 * would be a guess.
 *
 * What adoption needs, so that it sends nothing:
 * - a user's email, first and last name exactly as the service has them (a `User` compares them);
 *   its role and guest flag as read, or left out when the service reports none (then kept);
 * - a member's role as the invite names it: the API reads `owner`/`collaborator`, a create that
 *   declares anything else fails (the API cannot change a role in place); its entitlements as the
 *   exact set it holds, at least one (a resource must declare some).
 */
import { idOf } from "../client";
import { ACCESS_FILE_VERSION, type AccessFile } from "./access-file";
import { LeftOutList, type LeftOut, recordedLeftOut } from "./build-left-out";
import { buildIntegrations, memberKey } from "./build-members";
import { buildUsers } from "./build-users";
import type { Snapshot } from "./snapshot";

export { type LeftOut, recordedLeftOut } from "./build-left-out";

/** The file's data and what was left out. */
export interface Built {
  file: AccessFile;
  leftOut: LeftOut[];
}

/** Builds the file's data from a snapshot. `membersOnly` keeps only users with a membership in scope. */
export function buildAccessFile(
  snapshot: Snapshot,
  options: { workspace: string; scopeIds: string[] | undefined; membersOnly: boolean },
): Built {
  const leftOut = new LeftOutList();
  const problems = new Map<string, string>();
  // Members whose record, or one copy of it, broke the contract.
  const invalidMembers = new Set<string>();
  for (const record of snapshot.invalid) {
    if (record.what === "user") {
      leftOut.user(record.id, null, record.reason);
      if (record.id !== undefined) problems.set(record.id, "its record does not match the API contract");
    } else if (record.what === "integration") leftOut.integration(record);
    else if (record.id !== undefined && record.integration) invalidMembers.add(memberKey(record.integration.id, record.id));
  }
  const users = buildUsers(snapshot, options.membersOnly, problems, leftOut);
  // A member record that broke the contract, listed with its user's email when the user is known.
  const emails = new Map(snapshot.users.map((u) => [u.id, u.email]));
  for (const record of snapshot.invalid) {
    if (record.what !== "member") continue;
    leftOut.member(
      record.id,
      (record.id === undefined ? undefined : emails.get(idOf(record.id))) ?? null,
      record.integration,
      record.reason,
    );
  }
  const integrations = buildIntegrations(snapshot, users, invalidMembers, leftOut);
  const sorted = leftOut.sorted();
  const file: AccessFile = {
    version: ACCESS_FILE_VERSION,
    workspace: options.workspace,
    scope: { ...(options.scopeIds ? { integrations: [...options.scopeIds].sort() } : {}), membersOnly: options.membersOnly },
    users: users.users,
    integrations,
    leftOut: sorted.map(recordedLeftOut),
  };
  return { file, leftOut: sorted };
}
