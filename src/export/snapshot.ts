/**
 * Reads what an export needs from the workspace, with the package's client (its pacing, retries
 * and rate-limit handling): the integration list (one page for up to 100) first, then every page
 * of the users (100 a page) and of the members of each integration in scope, side by side, each
 * list once.
 * Records are kept in a compact form as they arrive, so memory grows with the records, not with
 * the pages. A record that does not match the API contract is set aside (`invalid`), never fails
 * its page.
 */
import type { Integration, User, WorkspaceAccessClient } from "../client";
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
  what: "user" | "member";
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

/**
 * The integrations `wanted` names (ids or labels, exactly), in the order of the list; every
 * integration when `wanted` is undefined. An unknown or ambiguous name fails before any member
 * list is read.
 */
export function selectIntegrations(all: Integration[], wanted: readonly string[] | undefined): Integration[] {
  if (wanted === undefined) return all;
  const chosen = new Set<Integration>();
  for (const name of wanted) {
    const byId = all.find((i) => i.id === name);
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
        `--integration "${name}" is not the id or label of an integration of the workspace (labels and ids match exactly). The integrations there: ${labels.length > 0 ? labels.join(", ") : "none"}.`,
      );
    }
  }
  return all.filter((i) => chosen.has(i));
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
    const users: SnapshotUser[] = [];
    const onInvalid = (id: string | undefined, error: Error) => invalid.push({ what: "user", id, reason: error.message });
    for await (const u of client.users.list({ onInvalid })) {
      users.push({ id: u.id, email: u.email, firstName: u.firstName, lastName: u.lastName, role: u.role, isGuest: u.isGuest });
      progress.users++;
      report();
    }
    return users;
  };

  // The integration list first: an unknown `--integration` fails before anything else is read.
  const all: Integration[] = [];
  for await (const integration of client.integrations.list()) all.push(integration);
  report();
  const lists = options.select(all).map((integration) => ({ integration, members: [] as SnapshotMember[] }));

  const readMembers = async () => {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < lists.length; i = next++) {
        const entry = lists[i]!;
        const onInvalid = (id: string | undefined, error: Error) =>
          invalid.push({ what: "member", id, integration: entry.integration, reason: error.message });
        for await (const m of client.integrations.listUsers(entry.integration.id, { onInvalid })) {
          entry.members.push({ id: m.id, email: m.email, role: m.role, entitlements: m.entitlements });
          progress.memberships++;
          report();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(MEMBER_LISTS_AT_ONCE, lists.length) }, worker));
  };

  // The users and the member lists side by side: neither waits for the other.
  const [users] = await Promise.all([readUsers(), readMembers()]);
  report(true);
  return { users, integrations: lists, invalid };
}
