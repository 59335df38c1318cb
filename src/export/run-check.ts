/**
 * `--check`, end to end: `access.yaml` checked before any request, the workspace read as an export would read it
 * (in the scope `access.yaml` records, unless given again), the two compared (`review/`), and with `accept`,
 * `access.yaml` edited in place in one step to hold the workspace's side (`access-file-edit.ts`). Sends only reads.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { idOf } from "../client/ids";
import { emailKey } from "../client/models";
import { type AccessData, type AccessFile, leftOutKey, parseAccessFile, sortedLeftOut } from "./access-file";
import { editAccessFile } from "./access-file-edit";
import { type ExportDeps, exportConnection } from "./connect";
import { ExportError } from "./errors";
import { knownWorkspaces } from "./known-workspaces";
import { type LeftOut, leftOutName } from "./build-left-out";
import { acceptAccess, declaredLeftOut } from "./review/accept";
import { matchUsers, stillListed } from "./review/match";
import { type AccessDifference, compareAccess, usersOf } from "./review/differences";
import { printable, type Review } from "./review/render";
import { ACCESS_FILE, type ExportOptions, readBuilt } from "./run";
import { replaceFiles } from "./write";

/** Options of {@link runCheck}: `out` is the exported project. Scope options left out are the ones `access.yaml` records. */
export interface CheckOptions extends ExportOptions {
  /**
   * Edit `access.yaml` to hold the workspace's side of every difference (`--accept`; only the records that differ change).
   * Refused with `integrations`, a `membersOnly` other than the file's, or another workspace than the file's; and, after the
   * read, when it would drop what the file declares of a record the workspace has in a form a project cannot declare.
   */
  accept?: boolean;
}

/** What a check found: the review, and what reading the workspace took. */
export interface CheckResult extends Review {
  requests: number;
  elapsedMs: number;
}

/** Compares the workspace with an exported project's `access.yaml`; see `docs/export.md`. @internal */
export async function runCheck(options: CheckOptions, deps: ExportDeps = {}): Promise<CheckResult> {
  const dir = path.resolve(options.out);
  const file = path.join(dir, ACCESS_FILE);
  if (!fs.existsSync(file)) {
    throw new ExportError(
      `--check needs an exported project: ${file} does not exist. Export first (workspace-access-export --out ${dir}).`,
    );
  }
  const text = fs.readFileSync(file, "utf8");
  const recorded = parseAccessFile(text, file);
  // The address given wins over the one access.yaml records (both in their one form); the notes say so when they differ.
  // The recorded one is used only once the user has given it (known-workspaces.ts); one given now is remembered once answered.
  const known = await knownWorkspaces(process.env, dir);
  const connection = exportConnection(options.baseUrl, options.env ?? process.env, { baseUrl: recorded.workspace, file, known });
  const notes: string[] = [];
  if (recorded.workspace !== undefined && recorded.workspace !== connection.baseUrl) {
    notes.push(
      `${ACCESS_FILE} was exported from ${recorded.workspace}; this check reads ${connection.baseUrl}, ` +
        `the address given (--base-url or the environment wins over ${ACCESS_FILE}).`,
    );
  }
  if (options.accept === true) refuseAccept(options, recorded, connection.baseUrl);
  const started = performance.now();
  const { file: live, leftOut, unnamed, snapshot, scopeIds, requests } = await readBuilt(options, connection, deps, recorded.scope);
  const before = options.integrations === undefined ? recorded : inScope(recorded, scopeIds ?? []);
  // Every user the workspace lists, a record that broke the contract too (by its id, and its email when that could be read).
  const listed = [...snapshot.users, ...snapshot.invalid.filter((r) => r.what === "user")];
  const workspaceEmails = new Set(listed.flatMap((u) => (u.email ? [emailKey(u.email)] : [])));
  const workspaceIds = new Set(listed.flatMap((u) => (u.id === undefined ? [] : [idOf(u.id)])));
  // Members the check did not read: an integration left out (its members unread), or those --integration leaves aside.
  const scopeUnread = live.scope.membersOnly && (options.integrations !== undefined || live.leftOut.some((l) => l.kind === "integration"));
  // An integration record whose id could not be read may be any integration access.yaml declares that the read did not find.
  const unidentified = (snapshot.unidentifiedIntegrations ?? []).map(() => ({ kind: "integration" as const, id: undefined }));
  const changes = compareAccess(before, live, { workspaceEmails, workspaceIds, scopeUnread, unnamed: [...unnamed, ...unidentified] });
  // Users added by hand have no id recorded (no difference): the sets shape declares their members through `userIds`.
  const withId = new Set(live.users.flatMap((u) => (u.id === undefined ? [] : [emailKey(u.email)])));
  const unrecorded = before.users.filter((u) => u.id === undefined && withId.has(emailKey(u.email))).length;
  const accepted = options.accept === true && (changes.length > 0 || unrecorded > 0);
  if (accepted) {
    refuseUntold(changes);
    refuseDropping(recorded, leftOut, workspaceIds);
    const taken = acceptAccess(recorded, live, workspaceIds);
    refuseDroppingUsers(recorded, taken, workspaceIds, workspaceEmails);
    // Applied to the file as it is: comments and spelling stay wherever a record does not differ.
    const edited = editAccessFile(text, taken, workspaceIds);
    replaceFiles(dir, { [ACCESS_FILE]: edited.text });
    if (edited.rewritten !== undefined) {
      notes.push(`${ACCESS_FILE} was written anew, its comments not kept: ${edited.rewritten}.`);
    } else if (edited.lost.length > 0) {
      notes.push(`The comments of ${ACCESS_FILE} on what --accept took out went with it:${oneALine(edited.lost)}`);
    }
  }
  if (unrecorded > 0) notes.push(idsNote(unrecorded, accepted, narrowed(options, recorded)));
  return { changes, leftOut, notes, workspace: connection.baseUrl, accepted, requests, elapsedMs: performance.now() - started };
}

/** What `--check` says of users `access.yaml` names without an id, and `--accept` of recording theirs (`narrowed`: it refuses). */
function idsNote(n: number, accepted: boolean, narrowed: boolean): string {
  const users = n === 1 ? "1 user" : `${n} users`;
  const accept = narrowed ? "--accept, run without --integration and --members-only," : "--accept";
  return accepted
    ? `${ACCESS_FILE} now records the workspace's id of ${users} it named without one (the sets shape declares members by id).`
    : `${ACCESS_FILE} names ${users} without an id (added by hand): ${accept} records the workspace's (the sets shape declares members by id).`;
}

/** Whether the check reads less than `access.yaml` records (`--integration`, another `--members-only`): `--accept` refuses it. */
const narrowed = (options: CheckOptions, recorded: AccessData) =>
  options.integrations !== undefined || (options.membersOnly !== undefined && options.membersOnly !== recorded.scope.membersOnly);

/** `access.yaml` limited to the integrations of a check given `--integration`: the others are not compared. */
function inScope(recorded: AccessFile, scopeIds: readonly string[]): AccessFile {
  const within = (id: string | undefined) => id !== undefined && scopeIds.includes(id);
  return {
    ...recorded,
    integrations: recorded.integrations.filter((i) => within(i.id)),
    leftOut: recorded.leftOut.filter((l) => l.kind === "user" || within(l.kind === "membership" ? l.integration : l.id)),
  };
}

/**
 * What `--accept` names in a refusal or a note, one a line (each on a line of its own after the one it ends, indented
 * `  - `), printable as the review prints its lines: an entry (a review's line, a reason) may hold semicolons of its own.
 */
const oneALine = (entries: readonly string[]): string => entries.map((entry) => `\n  - ${printable(entry)}`).join("");

/**
 * `--accept` takes the workspace's side only where it was read: not when whether the workspace holds what `access.yaml`
 * declares could not be told (a record that broke the contract, its email unread, may be it). Taking the workspace's side
 * would drop an entry on an absence nobody proved, and the next `pulumi up` would remove that access. The entries are
 * listed {@link oneALine}, as the review prints them.
 */
function refuseUntold(changes: readonly AccessDifference[]): void {
  const untold = changes.filter((c) => c.untold === true);
  if (untold.length === 0) return;
  const [these, them] = untold.length === 1 ? ["an entry", "it"] : [`${untold.length} entries`, "them"];
  throw new ExportError(
    `--accept would take out of ${ACCESS_FILE} ${these} whose absence from the workspace could not be told:` +
      `${oneALine(untold.map((c) => c.text))}\n` +
      `${ACCESS_FILE} was left as it is. Have the record that breaks the contract ` +
      `corrected in the workspace (or the field it breaks made readable: a user's email, an integration's id) and check again; ` +
      `or, to stop declaring ${them}, remove ` +
      `${untold.length === 1 ? "its entry" : "their entries"} from ${ACCESS_FILE} yourself, then run --check --accept again.`,
  );
}

/**
 * `--accept` takes the workspace's side only where the next `pulumi up` then writes nothing: not when that would drop the
 * entries of records the workspace still has in a form a project cannot declare (the `up` would remove what they grant).
 * The records are listed {@link oneALine}, each once with its reasons (the build lists one per reason).
 */
function refuseDropping(recorded: AccessData, leftOut: readonly LeftOut[], listedIds: ReadonlySet<string>): void {
  const declared = declaredLeftOut(recorded, leftOut, listedIds);
  if (declared.length === 0) return;
  // The build lists a record once per reason: one each, its reasons joined, as access.yaml would record it.
  const labels = new Map(declared.map((r) => [leftOutKey(r), r.label]));
  const kept = sortedLeftOut(declared);
  // A record that broke the contract has no email: named with the one access.yaml has for its id.
  const userOf = usersOf(recorded, listedIds);
  const named = kept.map((r) => {
    const email = r.email ?? userOf(r, "workspace")?.email;
    return `${leftOutName({ ...r, email }, labels.get(leftOutKey(r)))}: ${r.reason}`;
  });
  const [these, them] = kept.length === 1 ? ["a record", "it"] : [`${kept.length} records`, "them"];
  throw new ExportError(
    `--accept would take out of ${ACCESS_FILE} what it declares of ${these} the workspace still has, in a form a project cannot ` +
      `declare:${oneALine(named)}\nThe next pulumi up would then remove what the project can of ${them} (an IntegrationMembers ` +
      `removes a member it no longer lists), so ${ACCESS_FILE} was left as it is. Complete ${them} in the workspace and check ` +
      `again; or, to stop declaring ${them}, remove ${kept.length === 1 ? "its entries" : "their entries"} from ${ACCESS_FILE} ` +
      "yourself (pulumi up then does what the file says), then run --check --accept again.",
  );
}

/**
 * `--accept` under `--members-only` drops a user who has no membership in scope now; the workspace still has them, and the
 * next `pulumi up` would delete each one the stack created (a `User` removed, a `WorkspaceUsers` user it created): refused.
 * A user the accepted file still has (by the id `access.yaml` records, else by email: a new email is the same user) is kept;
 * one whose email another user of the accepted file holds now, and whose id the workspace does not list, is gone.
 * Without `--members-only` the check reads every user, so none the workspace has is dropped (one left out: `refuseDropping`).
 */
function refuseDroppingUsers(recorded: AccessData, taken: AccessFile, ids: ReadonlySet<string>, emails: ReadonlySet<string>): void {
  if (!recorded.scope.membersOnly) return;
  const kept = new Set(matchUsers(recorded.users, taken.users, ids).values());
  const emailsKept = new Set(taken.users.map((u) => emailKey(u.email)));
  const dropped = recorded.users.filter((u) => !kept.has(u) && stillListed(u, { ids, emails }, emailsKept));
  if (dropped.length === 0) return;
  const named = dropped.map((u) => `${u.email}${u.id ? ` (${u.id})` : ""}`).join(", ");
  throw new ExportError(
    `--accept would take out of ${ACCESS_FILE} ${dropped.length === 1 ? "a user" : `${dropped.length} users`} the workspace still ` +
      `has, with no membership in the --members-only scope now: ${named}. The next pulumi up would then delete each one the stack ` +
      `created, so ${ACCESS_FILE} was left as it is. To keep managing them, give them a membership in scope; to stop declaring ` +
      `them, remove their entries from ${ACCESS_FILE} yourself (pulumi up then does what the file says), then run --check --accept again.`,
  );
}

/** `--accept` rewrites the whole file from what was read: only a read of the same workspace and scope may. */
function refuseAccept(options: CheckOptions, recorded: AccessData, baseUrl: string): void {
  if (narrowed(options, recorded)) {
    throw new ExportError(
      `--accept rewrites the whole of ${ACCESS_FILE} from what it reads: ` +
        `run it without --integration and --members-only (the check then reads the scope ${ACCESS_FILE} records).`,
    );
  }
  if (recorded.workspace !== undefined && recorded.workspace !== baseUrl) {
    throw new ExportError(
      `--accept would write the access of ${baseUrl} into a ${ACCESS_FILE} exported from ${recorded.workspace}: ` +
        "check the workspace it records (without --base-url and the WORKSPACE_ACCESS_* address variables, the check reads that one), " +
        "or export the other workspace into a new directory.",
    );
  }
}
