/**
 * Reads what an export needs, each list until a second listing at another page size agrees (a list proves presence,
 * never absence). A record that breaks the API contract is set aside (`invalid`), never fails its page; an
 * integration that does, or is listed twice differently, is set aside with its members unread, and so is one whose
 * member list is refused (403, or 404 while the integration itself is there). One whose member list and record both
 * answer 404 was deleted meanwhile: it is left out of the snapshot, as gone.
 */
import {
  ForbiddenError,
  guestOf,
  type Id,
  idOf,
  type Integration,
  type IntegrationUser,
  NotFoundError,
  type User,
  type WorkspaceAccessClient,
} from "../client";
import { proofPageSize, prove } from "../client/absence";
import { ExportError } from "./errors";

/** The fields of a workspace user the export keeps. */
export type SnapshotUser = Pick<User, "id" | "email" | "firstName" | "lastName" | "role" | "isGuest">;

/** The fields of an integration member the export keeps. */
export type SnapshotMember = Pick<IntegrationUser, "id" | "email" | "role" | "entitlements">;

/** A record the service sent that does not match the contract. */
export interface InvalidRecord {
  what: "user" | "member" | "integration";
  id: string | undefined;
  /** The record's email, when that field could be read (a user's, a member's): it names the record all the same. */
  email?: string | undefined;
  integration?: Integration;
  reason: string;
}

/** What the export read: the users, and the integrations in scope with their members. */
export interface Snapshot {
  users: SnapshotUser[];
  integrations: Array<{ integration: Integration; members: SnapshotMember[] }>;
  invalid: InvalidRecord[];
  /**
   * The integration records that broke the contract with no id that could be read, whatever the scope (`invalid` holds them
   * only when every integration is in it): any integration the read does not find by id may be one of them.
   */
  unidentifiedIntegrations?: InvalidRecord[];
}

/** Progress of a read, for the progress line. */
export interface ExportProgress {
  /** Requests sent: list pages (plus any retries). */
  pages: number;
  users: number;
  memberships: number;
  elapsedMs: number;
}

const MEMBER_LISTS_AT_ONCE = 4;
/** How many listings of one list the export takes, at most, until two in a row agree. */
export const COMPLETE_LISTINGS = 3;

type Broken = { id: string | undefined; email?: string | undefined; reason: string };
type OnInvalid = (id: string | undefined, error: Error, readable: { email?: string | null }) => void;

/**
 * A list read until a second complete listing at another page size names the same records (`client/absence.ts`);
 * after {@link COMPLETE_LISTINGS} that never agree, it fails rather than guess. Records listed twice are kept twice.
 */
async function provenListing<T extends { id: string }>(
  what: string,
  list: (pageSize: number, onInvalid: OnInvalid) => AsyncIterable<T>,
  each: (record: T) => void = () => {},
): Promise<{ records: T[]; invalid: Broken[] }> {
  let first = true;
  const listAt = async (pageSize: number) => {
    const listing = new Map<Id, Array<{ record: T } | { invalid: Broken }>>();
    // A record without an id is in every listing alike: it cannot make two listings differ.
    const add = (id: string | undefined, entry: { record: T } | { invalid: Broken }) =>
      listing.set(idOf(id ?? ""), [...(listing.get(idOf(id ?? "")) ?? []), entry]);
    const onInvalid: OnInvalid = (id, error, { email }) =>
      add(id, { invalid: { id: id && idOf(id), email: email ?? undefined, reason: error.message } });
    for await (const record of list(pageSize, onInvalid)) {
      add(record.id, { record });
      if (first) each(record);
    }
    first = false;
    return listing;
  };
  const proof = await prove(listAt, await listAt(proofPageSize(0)), { listings: COMPLETE_LISTINGS - 1 });
  if (!proof.proven) {
    throw (
      proof.error ??
      new ExportError(
        `${COMPLETE_LISTINGS} listings of ${what} named different records (records came or went while they were read, so pages shifted): ` +
          "nothing was written, since an absence could not be proven. Run again when the workspace is quieter.",
      )
    );
  }
  const entries = [...proof.listing.values()].flat();
  return {
    records: entries.flatMap((e) => ("record" in e ? [e.record] : [])),
    invalid: entries.flatMap((e) => ("invalid" in e ? [e.invalid] : [])),
  };
}

/** The integrations `wanted` names (ids or labels, exactly; default all), in list order; an unknown or ambiguous name fails. */
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
 * Why one integration's members could not be read, for an error of its member list: `gone` when `GET /integrations/{id}`
 * answers 404 too (deleted since the integrations were listed: a proven absence); else, for a 403 or a 404 the
 * integration's own read does not confirm (the key may not see it), the reason to set it aside. Undefined for any other
 * error: the read as a whole fails.
 */
async function membersUnread(client: WorkspaceAccessClient, id: string, error: unknown): Promise<"gone" | string | undefined> {
  if (!ForbiddenError.isInstance(error) && !NotFoundError.isInstance(error)) return undefined;
  const unread = (note = "") => `its members could not be read${note}: ${error.message}`;
  if (ForbiddenError.isInstance(error)) return unread();
  // The package's one proof of an integration's absence, as the resources and lookups ask it (`integrations.presence`).
  const presence = await client.integrations
    .presence(id)
    .catch((confirm: unknown) => (confirm instanceof Error ? confirm : new Error(String(confirm))));
  if (presence instanceof Error) return unread(` (nor the integration itself: ${presence.message})`);
  if (presence.kind === "gone") return "gone";
  if (presence.kind === "undisclosed") return unread(` (nor the integration itself: ${presence.error.message})`);
  return unread(" (the integration itself answers: its members may not be disclosed to this key)");
}

/**
 * Reads the workspace: see the top of this file. `select` picks the integrations in scope from the whole list;
 * `onListed` is called once the integrations were listed (the service answered as the workspace API).
 */
export async function readWorkspace(
  client: WorkspaceAccessClient,
  options: {
    select: (all: Integration[]) => Integration[];
    onProgress?: ((progress: ExportProgress) => void) | undefined;
    onListed?: (() => void) | undefined;
  },
): Promise<Snapshot> {
  const started = performance.now();
  const progress = { users: 0, memberships: 0 };
  let lastPages = -1;
  const report = (final = false) => {
    if (client.requestCount === lastPages && !final) return;
    lastPages = client.requestCount;
    options.onProgress?.({ pages: client.requestCount - client.rateLimitedCount, ...progress, elapsedMs: performance.now() - started });
  };
  const invalid: InvalidRecord[] = [];

  // The integration list first (proven too: one missing would read as its members gone), so that an
  // unknown `--integration` fails before anything else is read.
  const read = await provenListing("the workspace's integrations", (pageSize, onInvalid) =>
    client.integrations.list({ onInvalid, pageSize }),
  );
  options.onListed?.();
  report();
  const once = oncePerId(read.records, ["label", "application"]);
  const all = [...once.unique, ...once.differing.map(({ record }) => record)];
  const unusable = new Map<string, string>(once.differing.map(({ record, reason }) => [record.id, reason]));
  for (const { id, reason } of read.invalid) {
    if (id === undefined || unusable.has(id)) continue;
    unusable.set(id, reason);
    // Selectable by id all the same: in scope, its members are not taken for gone by --check.
    if (!all.some((i) => i.id === id))
      all.push({ id: idOf(id), application: null, label: null, workspace: null, createdAt: null, updatedAt: null });
  }
  const selected = options.select(all);
  const lists: Snapshot["integrations"] = [];
  for (const integration of selected) {
    const reason = unusable.get(integration.id);
    if (reason === undefined) lists.push({ integration, members: [] });
    else invalid.push({ what: "integration", id: integration.id, integration, reason });
  }
  // A record without an id is in no selection but the whole list's; any integration not found by id may be it, in scope or not.
  const unidentifiedIntegrations = read.invalid.flatMap(({ id, reason }) =>
    id === undefined ? [{ what: "integration" as const, id, reason }] : [],
  );
  if (selected.length === all.length) invalid.push(...unidentifiedIntegrations);

  const counter = (what: keyof typeof progress) => () => {
    progress[what]++;
    report();
  };
  const readUsers = async (): Promise<SnapshotUser[]> => {
    const users = await provenListing(
      "the workspace's users",
      (pageSize, onInvalid) => client.users.list({ onInvalid, pageSize }),
      counter("users"),
    );
    for (const { id, email, reason } of users.invalid) invalid.push({ what: "user", id, email, reason });
    // A user's `isGuest` as the rest of the package reads it (`guestOf`): left out beside a listed role that is not a guest's, false.
    return users.records.map(({ id, email, firstName, lastName, role, isGuest }) => ({
      id,
      email,
      firstName,
      lastName,
      role,
      isGuest: guestOf({ isGuest, role }) ?? null,
    }));
  };
  // Integrations whose member list failed on their own: deleted since listed (`gone`), or set aside with the reason.
  const unread = new Map<Snapshot["integrations"][number], "gone" | string>();
  const readMembers = async (queue: Snapshot["integrations"]) => {
    for (let entry = queue.shift(); entry !== undefined; entry = queue.shift()) {
      const { integration } = entry;
      let members: Awaited<ReturnType<typeof provenListing<IntegrationUser>>>;
      try {
        members = await provenListing(
          `the members of integration ${integration.id}`,
          (pageSize, onInvalid) => client.integrations.listUsers(integration.id, { onInvalid, pageSize }),
          counter("memberships"),
        );
      } catch (error) {
        // One integration's members never fail the others: gone, or set aside as an integration that broke the contract is.
        const why = await membersUnread(client, integration.id, error);
        if (why === undefined) throw error;
        unread.set(entry, why);
        continue;
      }
      for (const { id, email, reason } of members.invalid) invalid.push({ what: "member", id, email, integration, reason });
      entry.members.push(...members.records.map(({ id, email, role, entitlements }) => ({ id, email, role, entitlements })));
    }
  };
  const queue = [...lists];
  // The users and the member lists side by side: neither waits for the other.
  const [users] = await Promise.all([
    readUsers(),
    ...Array.from({ length: Math.min(MEMBER_LISTS_AT_ONCE, lists.length) }, () => readMembers(queue)),
  ]);
  report(true);
  for (const [{ integration }, why] of unread) {
    if (why !== "gone") invalid.push({ what: "integration", id: integration.id, integration, reason: why });
  }
  return { users, integrations: lists.filter((entry) => !unread.has(entry)), invalid, unidentifiedIntegrations };
}

/**
 * Each id once, in the order first seen: identical repeats dropped (offset paging shows one twice when a record
 * comes or goes), an id whose copies differ in `fields` in `differing` with the reason, not in `unique`.
 */
export function oncePerId<T extends { id: string }>(
  records: readonly T[],
  fields: ReadonlyArray<keyof T & string>,
): { unique: T[]; differing: Array<{ record: T; reason: string }> } {
  const show = (value: unknown) => (value === undefined ? "(none)" : JSON.stringify(value));
  const first = new Map<string, T>();
  const reasons = new Map<string, string>();
  for (const record of records) {
    const seen = first.get(record.id);
    if (!seen) first.set(record.id, record);
    else if (!reasons.has(record.id)) {
      const differing = fields.filter((field) => JSON.stringify(seen[field]) !== JSON.stringify(record[field]));
      const shown = differing.map((field) => `${field}: ${show(seen[field])} / ${show(record[field])}`);
      if (shown.length > 0) reasons.set(record.id, `listed twice, differently (${shown.join(", ")})`);
    }
  }
  return {
    unique: [...first.values()].filter((r) => !reasons.has(r.id)),
    differing: [...reasons].map(([id, reason]) => ({ record: first.get(id)!, reason })),
  };
}
