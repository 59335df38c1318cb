/**
 * The access review as one pure function: `access.yaml` and the workspace now (as an export would write it) in,
 * their differences out, each saying which side holds what, never how it came to be. Users are matched by the id
 * `access.yaml` records, else by email (case-insensitively) where `mayMatchByEmail` allows it, memberships by integration
 * id and their user so matched, records left out by kind and ids, else (one without an id) by email. Present tense, no
 * history: the review cannot tell a pending edit of `access.yaml` from a change in the workspace, and does not guess; a
 * user's id is no history, it is who they are.
 */
import { idOf } from "../../client";
import { emailKey } from "../../client/models";
import {
  type AccessFile,
  type AccessIntegration,
  type AccessLeftOut,
  type AccessMember,
  type AccessUser,
  leftOutKey,
  unidentified,
} from "../access-file";
import { namedUpTo } from "../../shared/named-up-to";
import { byKey } from "../names";
import { leftOutDifferences } from "./left-out";
import { listedIdsOf, matchBy, matchUsers, mayMatchByEmail, memberEmailsNow, stillListed } from "./match";
import { membershipDifferences } from "./memberships";
import { userDifferences } from "./users";

/** Which side holds what differs: only `access.yaml`, only the workspace, or both, with different values. */
export type DifferenceSide = "access.yaml" | "workspace" | "both";

/** The kinds of difference, in the order they are listed for one user and integration. */
export const DIFFERENCE_KINDS = [
  "user",
  "user-id",
  "user-email",
  "user-name",
  "user-role",
  "user-guest",
  "integration",
  "membership",
  "member-role",
  "entitlements",
  "left-out",
] as const;

/** One difference between `access.yaml` and the workspace, for people (`text`) and for programs (the rest). */
export interface AccessDifference {
  /**
   * `user`, `membership`: one side has it; `user-id` (only where `access.yaml` records one), `user-email` (the user of the
   * id `access.yaml` records, under another email), `user-name`, `user-role`, `user-guest`, `member-role`: an attribute;
   * `entitlements`: granted by one side in a membership both have; `left-out`: a record a project cannot declare.
   */
  kind: (typeof DIFFERENCE_KINDS)[number];
  side: DifferenceSide;
  /**
   * The user's email (the workspace's, where both sides have them), else id; empty for an integration. `userId`: for records
   * left out, and `user-email`.
   */
  user: string;
  userId?: string;
  /** The integration's label (else name, else id), followed by ` (<id>)` when another integration has that label. */
  integration?: string;
  integrationId?: string;
  /** What each side holds, in words (`READ`, `workspace_owner`, `Ann Lee`; {@link NOT_TOLD}: a guest flag left out); null: nothing. */
  accessYaml: string | null;
  workspace: string | null;
  /** The entitlements one side grants and the other does not (`membership`, `entitlements`). */
  entitlements?: string[];
  /** Why a project cannot declare the record (`left-out`). */
  leftOut?: string;
  /** `access.yaml grants ann@acme.example READ in "GitHub acme-labs"; the workspace does not` */
  text: string;
  /**
   * Set when what the workspace holds could not be told (a record of it broke the contract, its email unread): the line says
   * so rather than claim an absence, and `--accept` refuses.
   */
  untold?: true;
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

/**
 * What is known of a record left out: `workspace_login_only`, `VIEWER as collaborator` (`collaborator, entitlements not
 * known` when its record left the entitlements out); undefined when nothing was read of
 * its access (an integration, a record read in two differing copies or breaking the contract, one added by hand).
 */
export function leftOutHeld(record: AccessLeftOut): string | undefined {
  if (record.kind === "membership" && record.entitlements !== undefined)
    return memberValue({ entitlements: record.entitlements, role: record.role });
  // A member's record that left the entitlements out: its role was read (and is what --check compares), its set not.
  if (record.kind === "membership" && record.role !== undefined) return `${record.role}, entitlements not known`;
  if (record.kind === "user" && (record.role !== undefined || record.isGuest !== undefined)) {
    return [record.role ?? "no role", record.isGuest ? "guest" : undefined].filter((p) => p !== undefined).join(", ");
  }
  return undefined;
}

/** {@link leftOutHeld} as a difference's value (`accessYaml`, `workspace`): `(not read)` when nothing was. */
export const leftOutValue = (record: AccessLeftOut): string => leftOutHeld(record) ?? "(not read)";

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

/** A user as a side knows them, to find their records left out: the email, and the id where the side has one. */
export interface Who {
  email: string;
  id?: string | undefined;
}

/** The side whose left-out records are looked up or matched. */
export type LeftOutSide = "access.yaml" | "workspace";

/** What `access.yaml` holds beside its records left out, for {@link claimsOf}: its users, its integrations' members. */
export type Claimable = Pick<AccessFile, "users" | "integrations"> & { leftOut: Iterable<AccessLeftOut> };

/**
 * Whose a record `access.yaml` leaves out without an id (added by hand) is, when another entry of the file holds its email
 * under an id the workspace still lists (as {@link mayMatchByEmail} has it: that id is that user, under whatever email; one
 * listed no more frees its email). `copies`: an entry of that user's own the review compares already (`record`: a record
 * left out of its kind and integration with the id; `user`: the user `users` declares; `member`: their membership an
 * integration declares), which the one without an id duplicates: it is paired with nothing. None: a membership of a user
 * `users` declares that no integration declares, the record is theirs, as if it had their `id`.
 */
export type Claim =
  | { id: string; copies: "record"; record: AccessLeftOut }
  | { id: string; copies: "user"; user: AccessUser }
  | { id: string; copies: "member"; user: AccessUser; placed: Placed }
  | { id: string; copies?: undefined; user: AccessUser };

/**
 * A key of a record left out by its kind, a membership's integration (a user's has none) and `who`: an email's `emailKey`, or
 * an id's `idOf`. The matching looks records up by it, each side indexed once, rather than scanning every record for each user.
 */
const whoKey = (kind: AccessLeftOut["kind"], integration: string | undefined, who: string) =>
  `${kind}\u0000${kind === "membership" && integration !== undefined ? `=${integration}` : ""}\u0000${who}`;

/** The first of `items` under each key `keyOf` gives it (none: left out of the index). */
function firstBy<T>(items: Iterable<T>, keyOf: (item: T) => string | undefined): Map<string, T> {
  const first = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (key !== undefined && !first.has(key)) first.set(key, item);
  }
  return first;
}

/**
 * The {@link Claim} on each record of `recorded` (`listedIds`: every user the workspace lists), none for one with an id: its
 * entries indexed once by email, each claim then a few lookups.
 */
export function claimsOf(recorded: Claimable, listedIds: ReadonlySet<string>): (record: AccessLeftOut) => Claim | undefined {
  const held = (r: Pick<AccessLeftOut, "id">) => r.id !== undefined && !mayMatchByEmail(r, listedIds);
  // Of each kind (and integration) and email, the first record with an id the workspace lists: that user's, under any email.
  const records = firstBy(recorded.leftOut, (other) =>
    other.kind === "integration" || other.email === undefined || !held(other)
      ? undefined
      : whoKey(other.kind, other.integration, emailKey(other.email)),
  );
  const users = firstBy(recorded.users, (u) => (held(u) ? emailKey(u.email) : undefined));
  const integrations = firstBy(recorded.integrations, (i) => i.id);
  const members = new Map<AccessIntegration, Map<string, AccessMember>>();
  const memberOf = (integration: AccessIntegration, email: string) => {
    const byEmail = members.get(integration) ?? firstBy(integration.members, (m) => emailKey(m.user));
    members.set(integration, byEmail);
    return byEmail.get(email);
  };
  return (record) => {
    if (record.kind === "integration" || record.id !== undefined || record.email === undefined) return undefined;
    const email = emailKey(record.email);
    const other = records.get(whoKey(record.kind, record.integration, email));
    if (other?.id !== undefined) return { id: other.id, copies: "record", record: other };
    const user = users.get(email);
    if (user?.id === undefined) return undefined;
    if (record.kind === "user") return { id: user.id, copies: "user", user };
    const integration = record.integration === undefined ? undefined : integrations.get(record.integration);
    const member = integration && memberOf(integration, email);
    return integration && member ? { id: user.id, copies: "member", user, placed: { integration, member } } : { id: user.id, user };
  };
}

/**
 * One side's records left out, indexed for {@link leftOutOf}: by kind, integration and email those an email may match (of
 * `access.yaml`'s, only one without an id that no other entry claims, {@link claimsOf}), and `access.yaml`'s that a claim
 * makes a user's by the id the claim names; each record's place in the side's order, the first of two matching being the one.
 */
export interface LeftOutIndex {
  byEmail: ReadonlyMap<string, AccessLeftOut>;
  byClaim: ReadonlyMap<string, AccessLeftOut>;
  place: ReadonlyMap<AccessLeftOut, number>;
}

/** The {@link LeftOutIndex} of `left`, the records of `side` (`claimOf`: `access.yaml`'s claims). */
export function leftOutIndex(
  left: ReadonlyMap<string, AccessLeftOut>,
  side: LeftOutSide,
  claimOf: (record: AccessLeftOut) => Claim | undefined,
): LeftOutIndex {
  const records = [...left.values()].filter((r) => r.kind !== "integration" && r.email !== undefined);
  const claims = new Map(side === "access.yaml" ? records.map((r) => [r, claimOf(r)] as const) : []);
  return {
    byEmail: firstBy(records, (r) =>
      side === "access.yaml" && (r.id !== undefined || claims.get(r) !== undefined)
        ? undefined
        : whoKey(r.kind, r.integration, emailKey(r.email as string)),
    ),
    byClaim: firstBy(records, (r) => {
      const claim = claims.get(r);
      return claim === undefined || claim.copies !== undefined ? undefined : whoKey(r.kind, r.integration, idOf(claim.id));
    }),
    place: new Map(records.map((r, i) => [r, i])),
  };
}

/**
 * The left-out record of a user (`who`, of the other side), or of their membership of `integration`, among the records
 * of `side`: by the user's id (a record that broke the contract is recorded without its email), else by email, as the
 * rule of an email match allows: a record of the workspace's as {@link mayMatchByEmail} allows for access.yaml's user (no
 * id recorded, or one the workspace lists no more); one `access.yaml` records only when it has no id (one with an id is
 * that user alone, not whoever has their email now). Of `access.yaml`'s, never one that copies another entry
 * ({@link claimsOf}), and one that is a user's by their id, only theirs. Looked up in the side's {@link LeftOutIndex}.
 */
export function leftOutOf(
  sides: Pick<Sides, "leftThen" | "leftNow" | "listedIds" | "leftIndex">,
  side: LeftOutSide,
  kind: "user" | "membership",
  who: Who,
  integration?: string,
): AccessLeftOut | undefined {
  const left = side === "access.yaml" ? sides.leftThen : sides.leftNow;
  const at = kind === "membership" ? integration : undefined;
  const byId = who.id === undefined ? undefined : left.get(leftOutKey({ kind, integration: at, id: idOf(who.id) }));
  if (byId) return byId;
  const index = sides.leftIndex[side];
  // Of the workspace's, by email only as mayMatchByEmail allows for access.yaml's user; access.yaml's index holds those it allows.
  const emailMatches = side === "access.yaml" || mayMatchByEmail(who, sides.listedIds);
  const byEmail = emailMatches ? index.byEmail.get(whoKey(kind, at, emailKey(who.email))) : undefined;
  const byClaim = who.id === undefined ? undefined : index.byClaim.get(whoKey(kind, at, idOf(who.id)));
  if (byEmail === undefined || byClaim === undefined) return byEmail ?? byClaim;
  return (index.place.get(byEmail) ?? 0) < (index.place.get(byClaim) ?? 0) ? byEmail : byClaim;
}

/**
 * The user of one side's file (`file`) that a record left out (a user, a membership) of the other side (`side`) is of: by the
 * id it records, else by email as {@link leftOutOf}'s rule allows (`listedIds`: every user the workspace lists). The file's
 * users indexed once by id and email, each record then a few lookups.
 */
export function usersOf(
  file: Pick<AccessFile, "users">,
  listedIds: ReadonlySet<string>,
): (record: Pick<AccessLeftOut, "id" | "email">, side: LeftOutSide) => AccessUser | undefined {
  const byId = firstBy(file.users, (u) => (u.id === undefined ? undefined : idOf(u.id)));
  const byEmail = firstBy(file.users, (u) => emailKey(u.email));
  // A record of the workspace's finds access.yaml's user by email only where mayMatchByEmail allows it for that user.
  const mayMatch = firstBy(file.users, (u) => (mayMatchByEmail(u, listedIds) ? emailKey(u.email) : undefined));
  return (record, side) => {
    const found = record.id === undefined ? undefined : byId.get(idOf(record.id));
    if (found || record.email === undefined) return found;
    // Of access.yaml's, a record matches by email only when it has no id.
    if (side === "access.yaml") return record.id === undefined ? byEmail.get(emailKey(record.email)) : undefined;
    return mayMatch.get(emailKey(record.email));
  };
}

/**
 * The record of `access.yaml` (`recorded`'s) each record the workspace leaves out now (`now`) is (absent: none), one to
 * one: by kind, integration and id (of `access.yaml`'s, one a user's by their id, {@link claimsOf}), else by kind,
 * integration and email as {@link leftOutOf} matches a user's: `access.yaml`'s record only when it has no id (added by
 * hand) and no other entry claims its email ({@link claimsOf}: `listedIds`, the ids the workspace lists), and never the
 * workspace's of a user whose id `access.yaml` records (`recordedIds`, by `idOf`): that one is theirs. Records with
 * neither id nor email (each a `count` of them) by kind and integration: nothing else tells them apart. `claimOf`: the
 * claims of `recorded` and `listedIds` ({@link claimsOf}), when the caller has them indexed already.
 */
export function matchLeftOut(
  recorded: Claimable & { leftOut: readonly AccessLeftOut[] },
  now: readonly AccessLeftOut[],
  recordedIds: ReadonlySet<string>,
  listedIds: ReadonlySet<string>,
  claimOf = claimsOf(recorded, listedIds),
): Map<AccessLeftOut, AccessLeftOut> {
  const at = (r: AccessLeftOut) => ({ kind: r.kind, integration: r.kind === "membership" ? r.integration : undefined });
  const claims = new Map(recorded.leftOut.map((r) => [r, claimOf(r)]));
  return matchBy(recorded.leftOut, now, [
    (r, side) => {
      const claim = side === "was" ? claims.get(r) : undefined;
      const id = r.id ?? (claim?.copies === undefined ? claim?.id : undefined);
      return id === undefined ? undefined : leftOutKey({ ...at(r), id: idOf(id) });
    },
    (r, side) => {
      if (r.kind === "integration" || r.email === undefined) return undefined;
      const byEmail =
        side === "was" ? r.id === undefined && claims.get(r) === undefined : r.id === undefined || !recordedIds.has(idOf(r.id));
      return byEmail ? leftOutKey({ ...at(r), email: r.email }) : undefined;
    },
    (r) => (unidentified(r) ? leftOutKey(at(r)) : undefined),
  ]);
}

/** Whether an integration is left out on one side (its members then not read). */
export const integrationLeftOut = (left: Map<string, AccessLeftOut>, id: string) => left.has(leftOutKey({ kind: "integration", id }));

/** A file's members by {@link memberEmailKey}. */
export const placedMembers = (file: AccessFile): Map<string, Placed> =>
  new Map(
    file.integrations.flatMap((integration) =>
      integration.members.map((member) => [memberEmailKey(integration.id, member.user), { integration, member }] as const),
    ),
  );

/** The two sides, indexed once for the comparisons: left-out records by {@link leftOutKey}, members by {@link memberEmailKey}. */
export type Sides = ReturnType<typeof sides>;

/** What the check read beyond `live`, so that under `--members-only` the review claims no absence it did not read. */
export interface CompareOptions {
  /** The emails (`emailKey`) and ids of every user the workspace lists, in scope or not (under `--members-only`, still users). */
  workspaceEmails?: ReadonlySet<string>;
  workspaceIds?: ReadonlySet<string>;
  /**
   * Under `--members-only`, whether members of the scope `access.yaml` records went unread (an integration whose record
   * broke the contract, those a check's `--integration` left out): a user the workspace has and `live` does not may then
   * hold a membership that was not read, and nothing is said of them.
   */
  scopeUnread?: boolean;
  /**
   * The workspace's records left out that broke the contract (or whose user's record did) with no email that could be read
   * (`buildAccessFile`'s `unnamed`): one whose id `access.yaml` does not record may be a user or member it names, and the
   * absence of that user or member then cannot be told. An integration's with no id that could be read (`kind`
   * `integration`) may be any integration `access.yaml` declares that the read did not find: its members' absence, and its
   * own, cannot be told.
   */
  unnamed?: ReadonlyArray<Pick<AccessLeftOut, "kind" | "id" | "integration">>;
}

/** What the workspace holds when it could not be told (`workspace` of a difference). */
export const UNTOLD = "(could not be told)";

/**
 * A guest flag the workspace's record does not tell (`workspace` of a `user-guest` difference): left out beside a guest role,
 * a role the public document does not list, or none (`guestOf`). Unlike {@link UNTOLD}, the record was read: `--accept` takes its side, leaving the flag out.
 */
export const NOT_TOLD = "not told";

/**
 * What a line says when the workspace's side could not be told: the unnamed records (of one kind) that may be the one named,
 * by their ids (the first few), and those whose id could not be read either by their number: nothing else tells them apart.
 */
export function untoldWhy(records: ReadonlyArray<Pick<AccessLeftOut, "kind" | "id">>): string {
  const kind = records[0]?.kind === "membership" ? "member" : records[0]?.kind === "integration" ? "integration" : "user";
  const one = records.length === 1;
  const broken = one
    ? `a${kind === "integration" ? "n" : ""} ${kind} record of the workspace breaks the contract`
    : `${records.length} ${kind} records of the workspace break the contract`;
  // An integration's record is named by its id alone: one without is told by nothing.
  if (kind === "integration") return `${broken}, and ${one ? "its id" : "their ids"} could not be read`;
  const ids = records.flatMap((r) => (r.id === undefined ? [] : [r.id]));
  if (ids.length === 0) return `${broken}, and neither ${one ? "its id nor its email" : "their ids nor their emails"} could be read`;
  const noId = records.length - ids.length;
  const unnamed = noId === 0 ? "" : `${ids.length > 3 ? "," : ""} and ${noId} with no id`;
  return `${broken} and ${one ? "its email" : "their emails"} could not be read: ${namedUpTo(ids, 3)}${unnamed}`;
}

function sides(recorded: AccessFile, live: AccessFile, beyond: CompareOptions) {
  const byLeftKey = (records: readonly AccessLeftOut[]) => {
    const map = new Map<string, AccessLeftOut>();
    for (const record of records) if (!map.has(leftOutKey(record))) map.set(leftOutKey(record), record);
    return map;
  };
  const ids = (file: AccessFile) => new Map(file.users.flatMap((u) => (u.id === undefined ? [] : [[emailKey(u.email), u.id] as const])));
  const labels = new Map([...recorded.integrations, ...live.integrations].map((i) => [i.id, i.label ?? i.name]));
  // A label two integrations hold (the service does not make labels unique): each is named with its id too.
  const holders = new Map<string, Set<string>>();
  for (const [id, label] of labels) holders.set(label, (holders.get(label) ?? new Set()).add(idOf(id)));
  const shared = (id: string) => (holders.get(labels.get(id) ?? "")?.size ?? 0) > 1;
  // An unnamed record whose id access.yaml records (a user's, a record left out) is that one's, matched by the id.
  const recordedIds = new Set(
    [...recorded.users, ...recorded.leftOut.filter((l) => l.kind !== "integration")].flatMap((r) =>
      r.id === undefined ? [] : [idOf(r.id)],
    ),
  );
  const unplaced = (beyond.unnamed ?? []).filter((r) => r.id === undefined || !recordedIds.has(idOf(r.id)));
  // The unplaced records by kind (and a membership's integration), each group in their order: looked up per user, not filtered.
  // Keyed as whoKey keys a record with no one named: no integration is not an integration whose id reads "undefined".
  const untoldKey = (kind: AccessLeftOut["kind"], integration?: string) => whoKey(kind, integration, "");
  const untoldBy = new Map<string, typeof unplaced>();
  for (const r of unplaced) {
    const group = untoldBy.get(untoldKey(r.kind, r.integration));
    if (group === undefined) untoldBy.set(untoldKey(r.kind, r.integration), [r]);
    else group.push(r);
  }
  const listedIds = listedIdsOf(live, beyond.workspaceIds);
  // The integrations the read found by id: read, or left out.
  const integrationsRead = new Set([
    ...live.integrations.map((i) => idOf(i.id)),
    ...live.leftOut.flatMap((l) => (l.kind === "integration" && l.id !== undefined ? [idOf(l.id)] : [])),
  ]);
  const listed = { ids: listedIds, emails: beyond.workspaceEmails ?? new Set<string>() };
  const emailsRead = new Set(live.users.map((u) => emailKey(u.email)));
  const matched = matchUsers(recorded.users, live.users, listedIds);
  const [leftThen, leftNow] = [byLeftKey(recorded.leftOut), byLeftKey(live.leftOut)];
  const claimable = { users: recorded.users, integrations: recorded.integrations, leftOut: [...leftThen.values()] };
  const claimOf = claimsOf(claimable, listedIds);
  const emailNow = memberEmailsNow(recorded.users, live.users, matched);
  return {
    recorded,
    live,
    /** The user of `access.yaml` each of the workspace's users is (`matchUsers`: by the id recorded, else by email). */
    matched,
    /** The ids (`idOf`) of every user the workspace lists (`listedIdsOf`), which decide whether an email may match. */
    listedIds,
    /** Where a member of `access.yaml` is to be found among the workspace's (`memberEmailKey`), if anywhere: see `memberEmailsNow`. */
    keyNow: ({ integration, member }: Placed) => {
      const email = emailNow(member.user);
      return email === undefined ? undefined : memberEmailKey(integration.id, email);
    },
    /** Whether the workspace lists a user of `access.yaml` that none of `live`'s users is (`stillListed`). */
    stillListed: (user: AccessUser) => stillListed(user, listed, emailsRead),
    /**
     * Whether the workspace lists the user of a record that `live` does not hold: by the id given (the user's email may have
     * changed, and another user may have that email now), else by email.
     */
    workspaceHas: ({ email, id }: Pick<AccessLeftOut, "email" | "id">) =>
      id !== undefined
        ? beyond.workspaceIds?.has(idOf(id)) === true
        : email !== undefined && beyond.workspaceEmails?.has(emailKey(email)) === true,
    scopeUnread: beyond.scopeUnread === true,
    /**
     * The unnamed records that may be a user (`user`) or a membership of `integration` that the workspace does not hold by
     * email or id: while there is one, that absence cannot be told.
     */
    untold: (kind: "user" | "membership", integration?: string) => untoldBy.get(untoldKey(kind, integration)) ?? [],
    /**
     * The unnamed integration records that may be the integration `id` when the read did not find it by id (neither read nor
     * left out): while there is one, the absence of that integration, and of its members, cannot be told.
     */
    integrationUntold: (id: string | undefined) =>
      id === undefined || integrationsRead.has(idOf(id)) ? [] : (untoldBy.get(untoldKey("integration")) ?? []),
    leftThen,
    leftNow,
    /** The record of `access.yaml` each record the workspace leaves out now is (`matchLeftOut`: by ids, else by email). */
    pairedLeft: matchLeftOut(claimable, [...leftNow.values()], recordedIds, listedIds, claimOf),
    /** Whose a record of `access.yaml` left out without an id is, when another entry of the file holds its email (`claimsOf`). */
    claimOf,
    /** Each side's records left out, indexed for `leftOutOf`. */
    leftIndex: { "access.yaml": leftOutIndex(leftThen, "access.yaml", claimOf), workspace: leftOutIndex(leftNow, "workspace", claimOf) },
    /** The user of `access.yaml` (`userThen`) or of the workspace (`userNow`) a record left out of the other side is of (`usersOf`). */
    userThen: usersOf(recorded, listedIds),
    userNow: usersOf(live, listedIds),
    membersThen: placedMembers(recorded),
    membersNow: placedMembers(live),
    /** A user's id by email (`emailKey`), where the file records one. */
    idsThen: ids(recorded),
    idsNow: ids(live),
    /** Left-out keys a membership comparison has reported already. */
    reported: new Set<string>(),
    /** An integration's label, else name, else id, from either side; followed by ` (<id>)` when another integration has that label. */
    label: (id: string | undefined) => (id === undefined ? "?" : shared(id) ? `${labels.get(id)} (${id})` : (labels.get(id) ?? id)),
    /** An integration's label, else name, else id, from either side, alone. */
    plainLabel: (id: string | undefined) => (id === undefined ? "?" : (labels.get(id) ?? id)),
    /** An integration as a sentence names it: its label quoted (`"GitHub acme"`), then its id when another has that label. */
    named: (id: string | undefined) =>
      id === undefined ? '"?"' : shared(id) ? `"${labels.get(id)}" (${id})` : `"${labels.get(id) ?? id}"`,
    /** The id to name after an integration's label (`leftOutName`), when another integration has that label. */
    sharedLabel: (id: string | undefined) => (id !== undefined && shared(id) ? id : undefined),
  };
}

/**
 * Every difference between `recorded` (`access.yaml`) and `live` (the workspace now), by user, integration, kind.
 * Empty when the project's `pulumi up` would send no write and nothing the project cannot declare differs.
 */
export function compareAccess(recorded: AccessFile, live: AccessFile, options: CompareOptions = {}): AccessDifference[] {
  const both = sides(recorded, live, options);
  // In this order: the memberships' part records what it reported of the left-out part (`reported`).
  const differences = [
    ...userDifferences(both),
    ...integrationDifferences(both),
    ...membershipDifferences(both),
    ...leftOutDifferences(both),
  ];
  const order = (d: AccessDifference) => {
    const where = d.integration === undefined ? "" : `\u0001${d.integration}\u0001${d.integrationId ?? ""}`;
    // The kind's place, two digits: compared as text, as the rest of the key.
    const kind = String(DIFFERENCE_KINDS.indexOf(d.kind)).padStart(2, "0");
    return [emailKey(d.user), where, kind, d.side, d.text].join("\u0000");
  };
  return differences.sort(byKey(order));
}

/**
 * An integration with no member that one side lists and the other does not (nor leaves out): `access.yaml`'s, gone from
 * the workspace, is still declared (the sets shape, an `IntegrationMembers` of no member, whose next create fails while it
 * is gone); the workspace's is one `--accept` adds. The integrations' listing is proven (read until two listings agree), so
 * an absence is claimed. One with members is told by its members' lines.
 */
function* integrationDifferences(sides: Sides): Iterable<AccessDifference> {
  const listed = new Set(sides.live.integrations.map((i) => idOf(i.id)));
  const recorded = new Set(sides.recorded.integrations.map((i) => idOf(i.id)));
  // Each sentence names the integration's id after its label, whether or not another has that label (`named` would twice).
  for (const integration of sides.live.integrations) {
    if (integration.members.length > 0 || recorded.has(idOf(integration.id)) || integrationLeftOut(sides.leftThen, integration.id))
      continue;
    yield difference(
      {
        kind: "integration",
        side: "workspace",
        user: "",
        integration: sides.label(integration.id),
        integrationId: integration.id,
        workspace: "no member",
      },
      `the workspace has the integration "${sides.plainLabel(integration.id)}" (${integration.id}), with no member; access.yaml does not`,
    );
  }
  for (const integration of sides.recorded.integrations) {
    if (integration.members.length > 0 || listed.has(idOf(integration.id)) || integrationLeftOut(sides.leftNow, integration.id)) continue;
    // An integration record whose id could not be read may be this one: no absence is claimed then.
    const untold = sides.integrationUntold(integration.id);
    const declared = `access.yaml declares the integration "${sides.plainLabel(integration.id)}" (${integration.id}), with no member`;
    yield difference(
      {
        kind: "integration",
        side: "access.yaml",
        user: "",
        integration: sides.label(integration.id),
        integrationId: integration.id,
        accessYaml: "no member",
        ...(untold.length > 0 ? { workspace: UNTOLD, untold: true } : {}),
      },
      untold.length > 0
        ? `${declared}; whether the workspace has it could not be told (${untoldWhy(untold)})`
        : `${declared}; the workspace has no such integration`,
    );
  }
}
