/**
 * The review's records a project cannot declare (`leftOut`), matched by kind and ids, else by email (`matchLeftOut`: one
 * `access.yaml` records without an id), else, with neither, by kind (one record with their `count`). One both sides leave
 * out is compared by what is known of it (with neither id nor email, their count); one only a side leaves out is worded by
 * what the other holds: declared, or nothing. Its reason follows a colon, never parentheses: a reason may end in its own
 * (`its user is left out (no last name)`).
 */
import { idOf } from "../../client";
import type { AccessFile, AccessLeftOut } from "../access-file";
import { leftOutName } from "../build-left-out";
import {
  type AccessDifference,
  type Claim,
  difference,
  integrationLeftOut,
  type LeftOutSide,
  leftOutHeld,
  leftOutValue,
  memberEmailKey,
  memberValue,
  type Placed,
  placedMembers,
  type Sides,
  UNTOLD,
  untoldWhy,
  usersOf,
  userValue,
} from "./differences";

/** The differences of the records left out on either side. */
export function* leftOutDifferences(sides: Sides): Iterable<AccessDifference> {
  for (const [key, now] of sides.leftNow) {
    const was = sides.pairedLeft.get(now);
    if (was && countOf(was) !== countOf(now)) {
      // Records with neither id nor email, one record for all of them: how many there are is what can be compared.
      yield difference(
        { ...about(now, sides), side: "both", accessYaml: records(countOf(was)), workspace: records(countOf(now)) },
        `access.yaml records ${nameOf(was, sides)} as left out; the workspace has ${countOf(now)}, left out: ${now.reason}`,
      );
    } else if (was && accessDiffers(was, now)) {
      const [name, then, held] = [nameOf(now, sides), leftOutValue(was), leftOutValue(now)];
      // Compared only when read whole now; access.yaml may record none of its access (a record added by hand).
      const recorded = leftOutHeld(was) === undefined ? ", with no access recorded" : ` with ${then}`;
      yield difference(
        { ...about(now, sides), side: "both", accessYaml: then, workspace: held },
        `access.yaml records ${name} as left out${recorded}; the workspace has ${held}, left out: ${now.reason}`,
      );
    } else if (!was && !sides.reported.has(key)) yield leftOutNow(now, sides);
  }
  const paired = new Set(sides.pairedLeft.values());
  for (const was of sides.leftThen.values()) {
    // A membership of an integration left out now: its members were not read.
    const unread = was.kind === "membership" && was.integration !== undefined && integrationLeftOut(sides.leftNow, was.integration);
    if (!paired.has(was) && !unread) yield* leftOutThen(was, sides);
  }
}

/** How many records one left out stands for (`count`: those with neither id nor email), and that number in words. */
const countOf = (record: AccessLeftOut) => record.count ?? 1;
const records = (n: number) => `${n} record${n === 1 ? "" : "s"}`;

const integrationOf = (record: AccessLeftOut) =>
  record.kind === "membership" ? record.integration : record.kind === "integration" ? record.id : undefined;

/** `user u-scim <scim@x.example>`, `the membership of scim@x.example in "YouTube acme"`, `integration 3c9e… ("YouTube acme")` */
const nameOf = (record: AccessLeftOut, sides: Sides) => {
  // A user has no label; an integration without an id none to be found (a membership's, unknown, is `?`).
  const label =
    record.kind === "user" || (record.kind === "integration" && record.id === undefined)
      ? undefined
      : sides.plainLabel(integrationOf(record));
  return `${record.kind === "membership" ? "the " : ""}${leftOutName(record, label, sides.sharedLabel(integrationOf(record)))}`;
};

function about(
  record: AccessLeftOut,
  sides: Sides,
): Pick<AccessDifference, "kind" | "user" | "userId" | "integration" | "integrationId" | "leftOut"> {
  const integrationId = integrationOf(record);
  return {
    kind: "left-out",
    user: record.kind === "integration" ? "" : (record.email ?? record.id ?? ""),
    ...(record.kind !== "integration" && record.id !== undefined ? { userId: record.id } : {}),
    ...(integrationId === undefined ? {} : { integration: sides.label(integrationId), integrationId }),
    leftOut: record.reason,
  };
}

/** Whether what is known of a record left out on both sides differs: only what was read whole now is compared. */
function accessDiffers(was: AccessLeftOut, now: AccessLeftOut): boolean {
  const readWhole = now.role !== undefined || now.isGuest !== undefined || now.entitlements !== undefined;
  if (!readWhole) return false;
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (!same(was.role, now.role)) return true;
  if (now.kind === "user") return !same(was.isGuest, now.isGuest);
  // A member's record that leaves the entitlements out says nothing of them (not known, not none): only the role is compared.
  return now.kind === "membership" && now.entitlements !== undefined && !same(was.entitlements ?? [], now.entitlements);
}

/** One side's file as {@link declaredIn} reads it, indexed once: its members (`placedMembers`), its users (`usersOf`). */
export interface DeclaredSide {
  file: Pick<AccessFile, "integrations">;
  members: ReadonlyMap<string, Placed>;
  userOf: ReturnType<typeof usersOf>;
}

/** The {@link DeclaredSide} of `file` (`listedIds`: every user the workspace lists). */
export function declaredSide(file: AccessFile, listedIds: ReadonlySet<string>): DeclaredSide {
  return { file, members: placedMembers(file), userOf: usersOf(file, listedIds) };
}

/**
 * What one side's file declares of a left-out record of the other side (`side`): the user, the member, the integration's
 * members, if anything; a user's by the id the record has, else its email as {@link usersOf} allows (a record that broke
 * the contract has no email).
 */
export function declaredIn({ file, members, userOf }: DeclaredSide, record: AccessLeftOut, side: LeftOutSide): string | undefined {
  if (record.kind === "integration") {
    const id = record.id === undefined ? undefined : idOf(record.id);
    const integration = file.integrations.find((i) => idOf(i.id) === id);
    return integration && `${integration.members.length} member${integration.members.length === 1 ? "" : "s"}`;
  }
  const user = userOf(record, side);
  if (record.kind === "user" || user === undefined) return user && userValue(user);
  const placed = members.get(memberEmailKey(record.integration ?? "", user.email));
  return placed && memberValue(placed.member);
}

/** `record` (of `side`) with the email the other side's file has for its user when the record has none (it broke the contract), to name it. */
function withEmail(record: AccessLeftOut, side: LeftOutSide, sides: Sides): AccessLeftOut {
  if (record.kind === "integration" || record.email !== undefined) return record;
  const userOf = side === "workspace" ? sides.userThen : sides.userNow;
  return { ...record, email: userOf(record, side)?.email };
}

/** A record the workspace leaves out now that `access.yaml` does not record as left out. */
function leftOutNow(record: AccessLeftOut, sides: Sides): AccessDifference {
  const now = withEmail(record, "workspace", sides);
  const name = nameOf(now, sides);
  const value = leftOutValue(now);
  const was = declaredIn({ file: sides.recorded, members: sides.membersThen, userOf: sides.userThen }, now, "workspace");
  if (was !== undefined) {
    return difference(
      { ...about(now, sides), side: "both", accessYaml: was, workspace: value },
      `access.yaml declares ${name} (${was}); the workspace has it in a form a project cannot declare: ${now.reason}`,
    );
  }
  const held = leftOutHeld(now) ?? (now.kind === "integration" ? "its members not read" : "its access not read");
  return difference(
    { ...about(now, sides), side: "workspace", workspace: value },
    `the workspace has ${name} (${held}), which a project cannot declare: ${now.reason}; access.yaml does not record ${countOf(now) > 1 ? "them" : "it"}`,
  );
}

/** A record `access.yaml` records as left out that the workspace does not leave out now. */
function* leftOutThen(record: AccessLeftOut, sides: Sides): Iterable<AccessDifference> {
  const was = withEmail(record, "access.yaml", sides);
  const name = nameOf(was, sides);
  // Added by hand without an id beside another entry of that user's id: one user's, and the review compares the other.
  const claim = sides.claimOf(was);
  if (claim?.copies !== undefined) {
    yield difference(
      { ...about(was, sides), side: "access.yaml", userId: claim.id, accessYaml: leftOutValue(was) },
      `access.yaml records ${name} as left out: ${was.reason}; ${copied(claim, sides)}`,
    );
    return;
  }
  // A membership of a user access.yaml declares with an id, that no integration declares: theirs, found by that id.
  const theirs = claim === undefined ? was : { ...was, id: claim.id };
  const now = declaredIn({ file: sides.live, members: sides.membersNow, userOf: sides.userNow }, theirs, "access.yaml");
  if (now !== undefined) {
    yield difference(
      { ...about(theirs, sides), side: "workspace", accessYaml: `left out: ${leftOutValue(was)}`, workspace: now },
      `the workspace has ${name} (${now}); access.yaml records it only as left out: ${was.reason}`,
    );
  } else if (was.kind === "user" && sides.live.scope.membersOnly && sides.workspaceHas(was)) {
    // Under --members-only, still a user (by the id recorded, else the email), out of scope; nothing is said when members
    // of the scope went unread. Without it, every user is read: one neither declared nor left out now is not there.
    if (sides.scopeUnread) return;
    yield difference(
      { ...about(theirs, sides), side: "access.yaml", accessYaml: leftOutValue(was), workspace: "no membership in scope" },
      `access.yaml records ${name} as left out: ${was.reason}; the workspace has them with no membership in scope (--members-only)`,
    );
  } else {
    // Recorded without an id, it is matched by email: an unnamed record of the workspace may be it.
    const members = was.kind === "integration" || theirs.id !== undefined ? [] : sides.untold(was.kind, was.integration);
    // Of an integration the read did not find by id, a record whose id could not be read may be it.
    const untold = members.length > 0 ? members : sides.integrationUntold(integrationOf(was));
    yield untold.length > 0
      ? difference(
          { ...about(theirs, sides), side: "access.yaml", accessYaml: leftOutValue(was), workspace: UNTOLD, untold: true },
          `access.yaml records ${name} as left out: ${was.reason}; whether the workspace has it could not be told (${untoldWhy(untold)})`,
        )
      : difference(
          { ...about(theirs, sides), side: "access.yaml", accessYaml: leftOutValue(was) },
          `access.yaml records ${name} as left out: ${was.reason}; the workspace has no such ${was.kind}${countOf(was) > 1 ? "s" : ""}`,
        );
  }
}

/** What a record `access.yaml` leaves out without an id duplicates (`claim`: its user's entry the review compares), and what to do. */
function copied(claim: Claim & { copies: string }, sides: Sides): string {
  if (claim.copies === "record") {
    return `it duplicates access.yaml's record of ${nameOf(claim.record, sides)}, the one compared: remove the one without an id`;
  }
  const who = `${claim.id} <${claim.user.email}>`;
  const declares =
    claim.copies === "user"
      ? `that user, ${who} (${userValue(claim.user)})`
      : `that membership, of ${who} (${memberValue(claim.placed.member)})`;
  return `access.yaml declares ${declares}, the one compared: remove the record left out`;
}
