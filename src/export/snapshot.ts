/**
 * Reads what an export needs from the workspace, with the package's client (its pacing, retries
 * and rate-limit handling): the integration list first, then every page of the users and of the
 * members of each integration in scope, side by side, each list until a second listing at another
 * page size agrees with it (a list proves presence, never absence).
 * Records are kept in a compact form as they arrive, so memory grows with the records, not with
 * the pages. A record that does not match the API contract is set aside (`invalid`), never fails
 * its page; an integration's members are then not read. An integration listed twice (offset
 * paging shifting under a change, or a repeated record) is kept once when both copies agree; when
 * they differ it is set aside too, and its members are not read. Users and members listed twice
 * are sorted out by the build.
 */
import { type Id, idOf, type Integration, type User, type WorkspaceAccessClient } from "../client";
import { proofPageSize, prove } from "../client/absence";
import { ExportError } from "./errors";

/** The fields of a workspace user the export keeps. */
export type SnapshotUser = Pick<User, "id" | "email" | "firstName" | "lastName" | "role" | "isGuest">;

/** The fields of an integration member the export keeps. */
export interface SnapshotMember {
  id: string;
  email: string | null;
  role: string | null;
  entitlements: string[];
}

/** A record the service sent that does not match the contract. */
export interface InvalidRecord {
  what: "user" | "member" | "integration";
  id: string | undefined;
  integration?: Integration;
  reason: string;
}

/** What the export read. */
export interface Snapshot {
  users: SnapshotUser[];
  /** The integrations in scope, with their members. */
  integrations: Array<{ integration: Integration; members: SnapshotMember[] }>;
  invalid: InvalidRecord[];
}

/** Progress so far, for the progress line. */
export interface ReadProgress {
  /** Requests sent: list pages (plus any retries). */
  pages: number;
  users: number;
  memberships: number;
}

/** How many integrations' member lists are read at once. */
const MEMBER_LISTS_AT_ONCE = 4;
/** How many listings of one list the export takes, at most, until two in a row agree. */
export const COMPLETE_LISTINGS = 3;

/** A record of one listing, or one that broke the contract (its id and why). */
type Listed<T> = { record: T } | { invalid: { id: string | undefined; reason: string } };

/**
 * A list read until a listing is proven (`client/absence.ts`): a second complete listing, at
 * another page size, that names the same records. Offset pages shift when a record comes or goes
 * between two page reads, and a listing then skips a record with every total agreeing; the export
 * and the review claim nobody's absence from a listing no second one confirmed. After
 * {@link COMPLETE_LISTINGS} listings that never agree, it fails rather than guess (`what` names
 * the list). Records listed twice in the proven listing are kept twice: the build sorts them out.
 */
async function provenListing<T extends { id: string }>(
  what: string,
  list: (pageSize: number, onInvalid: (id: string | undefined, error: Error) => void) => AsyncIterable<T>,
  each: (record: T) => void,
): Promise<{ records: T[]; invalid: Array<{ id: string | undefined; reason: string }> }> {
  let first = true;
  const listAt = async (pageSize: number) => {
    const listing = new Map<Id, Array<Listed<T>>>();
    const add = (id: string | undefined, entry: Listed<T>) => {
      // A record without an id is in every listing alike: it cannot make two listings differ.
      const key = idOf(id ?? "");
      listing.set(key, [...(listing.get(key) ?? []), entry]);
    };
    const onInvalid = (id: string | undefined, error: Error) =>
      add(id, { invalid: { id: id === undefined ? undefined : idOf(id), reason: error.message } });
    for await (const record of list(pageSize, onInvalid)) {
      add(record.id, { record });
      if (first) each(record);
    }
    first = false;
    return listing;
  };
  const proof = await prove(listAt, await listAt(proofPageSize(0)), { listings: COMPLETE_LISTINGS - 1 });
  if (!proof.proven) {
    if (proof.error !== undefined) throw proof.error;
    throw new ExportError(
      `${COMPLETE_LISTINGS} listings of ${what} named different records (records came or went while they were read, so pages shifted): ` +
        "nothing was written, since an absence could not be proven. Run again when the workspace is quieter.",
    );
  }
  const entries = [...proof.listing.values()].flat();
  return {
    records: entries.flatMap((e) => ("record" in e ? [e.record] : [])),
    invalid: entries.flatMap((e) => ("invalid" in e ? [e.invalid] : [])),
  };
}

/**
 * The integrations `wanted` names (ids or labels, exactly), in the order of the list; every
 * integration when `wanted` is undefined. An unknown or ambiguous name fails before any member
 * list is read.
 */
export function selectIntegrations(all: Integration[], wanted: readonly string[] | undefined): Integration[] {
  if (wanted === undefined) return all;
  const chosen = new Set<Integration>();
  for (const name of wanted) {
    const byId = all.find((i) => i.id === idOf(name));
    const byLabel = all.filter((i) => i.label === name);
    if (byId) chosen.add(byId);
    else if (byLabel.length === 1) chosen.add(byLabel[0]!);
    else if (byLabel.length > 1) {
      throw new ExportError(
        `--integration "${name}" names ${byLabel.length} integrations with that label (${byLabel.map((i) => i.id).join(", ")}): give the id instead.`,
      );
    } else {
      const labels = all.map((i) => (i.label === null ? i.id : `"${i.label}" (${i.id})`)).sort();
      throw new ExportError(
        `--integration "${name}" is not the id or label of an integration of the workspace (labels and ids match exactly). ` +
          `The integrations there: ${labels.length > 0 ? labels.join(", ") : "none"}.`,
      );
    }
  }
  return all.filter((i) => chosen.has(i));
}

/**
 * The integration list (proven, as every list), each integration once. One whose record broke the contract, or whose
 * copies differ (which copy is right would be a guess), is unusable: its members are not read, and
 * it is left out, but it can still be selected by id (it is in scope, so --check does not take its
 * members for gone).
 */
async function readIntegrationList(client: WorkspaceAccessClient): Promise<{
  all: Integration[];
  unusable: Map<string, string>;
  broken: Array<{ id: string | undefined; reason: string }>;
}> {
  // Proven like every list: an integration missing from it would read as its members gone.
  const read = await provenListing(
    "the workspace's integrations",
    (pageSize, onInvalid) => client.integrations.list({ onInvalid, pageSize }),
    () => {},
  );
  const broken = read.invalid;
  const once = oncePerId(read.records, ["label", "application"]);
  const all = [...once.unique, ...once.differing.map(({ record }) => record)];
  const unusable = new Map<string, string>(once.differing.map(({ record, reason }) => [record.id, reason]));
  for (const { id, reason } of broken) {
    if (id === undefined || unusable.has(id)) continue;
    unusable.set(id, reason);
    // Selectable by id all the same: in scope, its members are not taken for gone.
    if (!all.some((i) => i.id === id))
      all.push({ id: idOf(id), application: null, label: null, workspace: null, createdAt: null, updatedAt: null });
  }
  return { all, unusable, broken };
}

/** Reads the workspace: see the top of this file. */
export async function readWorkspace(
  client: WorkspaceAccessClient,
  options: { select: (all: Integration[]) => Integration[]; onProgress?: (progress: ReadProgress) => void },
): Promise<Snapshot> {
  const progress = { users: 0, memberships: 0 };
  let lastPages = -1;
  const report = (final = false) => {
    if (client.requestCount === lastPages && !final) return;
    lastPages = client.requestCount;
    options.onProgress?.({ pages: client.requestCount - client.rateLimitedCount, ...progress });
  };
  const invalid: InvalidRecord[] = [];

  const readUsers = async (): Promise<SnapshotUser[]> => {
    const read = await provenListing(
      "the workspace's users",
      (pageSize, onInvalid) => client.users.list({ onInvalid, pageSize }),
      () => {
        progress.users++;
        report();
      },
    );
    for (const { id, reason } of read.invalid) invalid.push({ what: "user", id, reason });
    return read.records.map((u) => ({
      id: u.id,
      email: u.email,
      firstName: u.firstName,
      lastName: u.lastName,
      role: u.role,
      isGuest: u.isGuest,
    }));
  };

  // The integration list first: an unknown `--integration` fails before anything else is read.
  const { all, unusable, broken } = await readIntegrationList(client);
  report();
  const selected = options.select(all);
  const lists: Array<{ integration: Integration; members: SnapshotMember[] }> = [];
  for (const integration of selected) {
    const reason = unusable.get(integration.id);
    if (reason === undefined) lists.push({ integration, members: [] });
    else invalid.push({ what: "integration", id: integration.id, integration, reason });
  }
  // A record without an id is in no selection but the whole list's.
  if (selected.length === all.length) {
    for (const { id, reason } of broken) if (id === undefined) invalid.push({ what: "integration", id, reason });
  }

  const readMembers = async () => {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < lists.length; i = next++) {
        const entry = lists[i]!;
        const read = await provenListing(
          `the members of integration ${entry.integration.id}`,
          (pageSize, onInvalid) => client.integrations.listUsers(entry.integration.id, { onInvalid, pageSize }),
          () => {
            progress.memberships++;
            report();
          },
        );
        for (const { id, reason } of read.invalid) invalid.push({ what: "member", id, integration: entry.integration, reason });
        entry.members.push(...read.records.map((m) => ({ id: m.id, email: m.email, role: m.role, entitlements: m.entitlements })));
      }
    };
    await Promise.all(Array.from({ length: Math.min(MEMBER_LISTS_AT_ONCE, lists.length) }, worker));
  };

  // The users and the member lists side by side: neither waits for the other.
  const [users] = await Promise.all([readUsers(), readMembers()]);
  report(true);
  return { users, integrations: lists, invalid };
}

/**
 * Each id once, in the order first seen. Identical repeats are dropped; an id whose copies differ
 * goes to `differing` with the reason ({@link repeatDifference}), and is not in `unique`.
 */
export function oncePerId<T extends { id: string }>(
  records: readonly T[],
  fields: ReadonlyArray<keyof T & string>,
): { unique: T[]; differing: Array<{ record: T; reason: string }> } {
  const first = new Map<string, T>();
  const reasons = new Map<string, string>();
  for (const record of records) {
    const seen = first.get(record.id);
    if (!seen) first.set(record.id, record);
    else if (!reasons.has(record.id)) {
      const reason = repeatDifference(seen, record, fields);
      if (reason !== undefined) reasons.set(record.id, reason);
    }
  }
  return {
    unique: [...first.values()].filter((r) => !reasons.has(r.id)),
    differing: [...reasons].map(([id, reason]) => ({ record: first.get(id)!, reason })),
  };
}

/**
 * Why two records the service listed under one id cannot both be true: `listed twice, differently
 * (label: "A" / "B")`, naming each field of `fields` that differs; undefined when none does (the
 * same record seen twice, as offset paging does when a record comes or goes between two pages).
 */
export function repeatDifference<T extends object>(first: T, again: T, fields: ReadonlyArray<keyof T & string>): string | undefined {
  const show = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));
  const differences = fields
    .filter((field) => JSON.stringify(first[field]) !== JSON.stringify(again[field]))
    .map((field) => `${field}: ${show(first[field])} / ${show(again[field])}`);
  return differences.length === 0 ? undefined : `listed twice, differently (${differences.join(", ")})`;
}
