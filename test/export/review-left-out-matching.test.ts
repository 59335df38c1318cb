/**
 * The review's matching of records left out, at scale and as before: the matching of a user, a member or a record left out
 * with the other side's records left out reads each record a bounded number of times (indexed by kind, integration and
 * email or id), not once per user; and on random pairs of files (seeded) it gives what the matching that scanned every
 * record for each user gave, recorded as a digest per seed (`golden/left-out-matching.json`, written by that matching; a
 * deliberate change of the review's results rewrites it with `WRITE_GOLDEN=1`, and names the seeds it changed).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { AccessFile, AccessLeftOut, AccessUser } from "../../src/export/access-file";
import { declaredLeftOut } from "../../src/export/review/accept";
import { compareAccess, matchLeftOut } from "../../src/export/review/differences";
import { mulberry32 } from "../support/mulberry32";

const GOLDEN = path.join(__dirname, "golden", "left-out-matching.json");
/** The digests of {@link edgeCasesOf}'s pairs, written by the matching that scanned every record. */
const EDGES = path.join(__dirname, "golden", "left-out-matching-edges.json");

/** A small seeded generator (mulberry32): the same files for a seed on every run. */
function random(seed: number) {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { chance: (p: number) => next() < p, pick: <T>(items: readonly T[]) => items[int(items.length)] as T, int };
}

const INTEGRATIONS = ["i-1", "i-2"];
const EMAILS = ["ann@x.example", "bob@x.example", "cy@x.example", "dee@x.example", "eve@x.example", "fay@x.example"];
const IDS = ["u-1", "u-2", "u-3", "u-4", "u-5", "u-6", "u-7"];

/** Two files (`access.yaml`'s and the workspace's) and what else the workspace lists, sharing a few emails and ids. */
function casesOf(seed: number) {
  const r = random(seed);
  const email = () => {
    const e = r.pick(EMAILS);
    return r.chance(0.2) ? e.toUpperCase() : e;
  };
  const users = (): AccessUser[] => {
    const seen = new Set<string>();
    const out: AccessUser[] = [];
    for (let i = r.int(5); i > 0; i--) {
      const e = email();
      if (seen.has(e.toLowerCase())) continue;
      seen.add(e.toLowerCase());
      const id = r.chance(0.7) ? r.pick(IDS) : undefined;
      out.push({ name: e.toLowerCase(), email: e, firstName: "A", lastName: "B", role: "workspace_login_only", isGuest: false, id });
    }
    return out;
  };
  const leftOut = (): AccessLeftOut[] => {
    const out: AccessLeftOut[] = [];
    for (let i = r.int(7); i > 0; i--) {
      const kind = r.pick(["user", "membership", "membership", "integration"] as const);
      if (kind === "integration") {
        out.push({ kind, id: r.chance(0.8) ? r.pick(INTEGRATIONS) : undefined, reason: "broke the contract" });
        continue;
      }
      const id = r.chance(0.5) ? r.pick(IDS) : undefined;
      const mail = r.chance(0.8) ? email() : undefined;
      const record: AccessLeftOut = {
        kind,
        ...(kind === "membership" ? { integration: r.pick(INTEGRATIONS) } : {}),
        id,
        email: mail,
        ...(id === undefined && mail === undefined ? { count: 1 + r.int(3) } : {}),
        ...(kind === "user" && r.chance(0.5) ? { role: r.pick(["workspace_login_only", "workspace_owner"]), isGuest: false } : {}),
        ...(kind === "membership" && r.chance(0.5) ? { role: "collaborator", entitlements: r.chance(0.3) ? [] : ["READ"] } : {}),
        reason: r.pick(["no last name", "its user is left out (no last name)"]),
      };
      out.push(record);
    }
    // One record per key, as a file holds them.
    const keys = new Set<string>();
    return out.filter((l) => {
      const key = `${l.kind}/${l.integration ?? ""}/${l.id ?? (l.email ?? "").toLowerCase()}`;
      if (keys.has(key)) return false;
      keys.add(key);
      return true;
    });
  };
  const fileOf = (): AccessFile => {
    const us = users();
    const integrations = INTEGRATIONS.filter(() => r.chance(0.7)).map((id) => ({
      name: id,
      id,
      label: r.chance(0.3) ? "Shared" : id,
      members: us
        .filter(() => r.chance(0.5))
        .map((u) => ({ user: u.email, role: "account_collaborator" as const, entitlements: ["READ"] })),
    }));
    return { version: 1, scope: { membersOnly: r.chance(0.3) }, users: us, integrations, leftOut: leftOut() };
  };
  const recorded = fileOf();
  const live = fileOf();
  const listed = IDS.filter(() => r.chance(0.4));
  const unnamed = r.chance(0.3)
    ? [{ kind: r.pick(["user", "membership"] as const), integration: r.pick(INTEGRATIONS), id: r.pick(IDS) }]
    : [];
  return { recorded, live, listed, unnamed, emails: EMAILS.filter(() => r.chance(0.3)), scopeUnread: r.chance(0.2) };
}

/**
 * Two files as {@link casesOf} gives, with what its files never hold: ids in any case (`idOf` folds them) and emails in any
 * case or padded (`emailKey`), two users with one email or one id, two records left out under one key, two members of one
 * email, integrations of one id or of an id in another case, empty emails, ids and integrations, a membership left out
 * with no integration, several unnamed records (an integration's, one with no id, one with an empty integration), and
 * users of the workspace under an id of access.yaml's with another email. Its digests were written by the scanning code.
 */
function edgeCasesOf(seed: number) {
  const r = random(seed);
  const cased = (s: string) => (r.chance(0.25) ? s.toUpperCase() : s);
  const email = () => {
    if (r.chance(0.08)) return "";
    const e = cased(r.pick(EMAILS.slice(0, 4)));
    return r.chance(0.15) ? ` ${e} ` : e;
  };
  const id = () => (r.chance(0.06) ? "" : cased(r.pick(IDS.slice(0, 5))));
  const integration = () => (r.chance(0.1) ? "" : r.chance(0.1) ? undefined : cased(r.pick(INTEGRATIONS)));
  // The workspace's users: some of them access.yaml's under their id, with another email (the user changed it).
  const users = (then: readonly AccessUser[] = []): AccessUser[] =>
    Array.from({ length: r.int(6) }, () => {
      const e = email();
      const was = then.length > 0 && r.chance(0.6) ? r.pick(then) : undefined;
      const theirs = was?.id !== undefined ? was.id : r.chance(0.7) ? id() : undefined;
      return { name: e.trim().toLowerCase(), email: e, firstName: "A", lastName: "B", role: "workspace_login_only", id: theirs };
    });
  const leftOut = (): AccessLeftOut[] =>
    Array.from({ length: r.int(12) }, (): AccessLeftOut => {
      const kind = r.pick(["user", "membership", "membership", "integration"] as const);
      if (kind === "integration")
        return { kind, id: r.chance(0.8) ? cased(r.pick(INTEGRATIONS)) : undefined, reason: "broke the contract" };
      const at = kind === "membership" ? integration() : undefined;
      const [who, mail] = [r.chance(0.5) ? id() : undefined, r.chance(0.8) ? email() : undefined];
      return {
        kind,
        ...(at === undefined ? {} : { integration: at }),
        id: who,
        email: mail,
        ...(who === undefined && mail === undefined ? { count: 1 + r.int(3) } : {}),
        ...(kind === "user" && r.chance(0.5) ? { role: r.pick(["workspace_login_only", "workspace_owner"]), isGuest: r.chance(0.2) } : {}),
        ...(kind === "membership" && r.chance(0.5)
          ? { role: "collaborator", ...(r.chance(0.8) ? { entitlements: r.chance(0.3) ? [] : ["READ"] } : {}) }
          : {}),
        reason: r.pick(["no last name", "its user is left out (no last name)"]),
      };
    });
  const fileOf = (then?: AccessFile): AccessFile => {
    const us = users(then?.users);
    const integrations = [...INTEGRATIONS, cased(r.pick(INTEGRATIONS))]
      .filter(() => r.chance(0.6))
      .map((iid) => ({
        name: iid,
        id: iid,
        label: r.chance(0.3) ? "Shared" : iid,
        members: [...us, ...us]
          .filter(() => r.chance(0.3))
          .map((u) => ({ user: cased(u.email), role: "account_collaborator" as const, entitlements: r.chance(0.5) ? ["READ"] : [] })),
      }));
    return { version: 1, scope: { membersOnly: r.chance(0.3) }, users: us, integrations, leftOut: leftOut() };
  };
  const recorded = fileOf();
  const live = fileOf(recorded);
  const listed = IDS.filter(() => r.chance(0.6)).map(cased);
  const unnamed = Array.from({ length: r.int(4) }, () => ({
    kind: r.pick(["user", "membership", "integration"] as const),
    ...(r.chance(0.8) ? { integration: integration() } : {}),
    ...(r.chance(0.7) ? { id: id() } : {}),
  }));
  return { recorded, live, listed, unnamed, emails: EMAILS.filter(() => r.chance(0.3)), scopeUnread: r.chance(0.2) };
}

/** What the review, `--accept`'s refusal and its edit's pairing make of a seed's files. */
function resultsOf(seed: number, cases: typeof casesOf | typeof edgeCasesOf = casesOf): string {
  const { recorded, live, listed, unnamed, emails, scopeUnread } = cases(seed);
  const ids = new Set([...listed, ...live.users.flatMap((u) => (u.id === undefined ? [] : [u.id]))]);
  const differences = compareAccess(recorded, live, {
    workspaceIds: new Set(listed),
    workspaceEmails: new Set(emails),
    scopeUnread,
    unnamed,
  });
  const recordedIds = new Set(recorded.users.flatMap((u) => (u.id === undefined ? [] : [u.id])));
  const paired = [...matchLeftOut(recorded, live.leftOut, recordedIds, ids)].map(([now, was]) => [
    live.leftOut.indexOf(now),
    recorded.leftOut.indexOf(was),
  ]);
  const declared = declaredLeftOut(recorded, live.leftOut, ids).map((l) => live.leftOut.indexOf(l));
  return JSON.stringify({ differences, paired, declared });
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

describe("the review's matching of records left out", () => {
  it("gives, on 400 random pairs of files, what the matching that scanned every record for each user gave", () => {
    const seeds = Array.from({ length: 400 }, (_, i) => i + 1);
    const now = Object.fromEntries(seeds.map((seed) => [seed, digest(resultsOf(seed))]));
    if (process.env.WRITE_GOLDEN === "1") fs.writeFileSync(GOLDEN, `${JSON.stringify(now, null, 1)}\n`);
    const golden = JSON.parse(fs.readFileSync(GOLDEN, "utf8")) as Record<string, string>;
    expect(now).toEqual(golden);
  });

  it("gives what it gave on 400 random pairs with the edge cases (case, padding, duplicates, empty fields, unnamed records)", () => {
    const seeds = Array.from({ length: 400 }, (_, i) => i + 1);
    const now = Object.fromEntries(seeds.map((seed) => [seed, digest(resultsOf(seed, edgeCasesOf))]));
    if (process.env.WRITE_GOLDEN === "1") fs.writeFileSync(EDGES, `${JSON.stringify(now, null, 1)}\n`);
    const golden = JSON.parse(fs.readFileSync(EDGES, "utf8")) as Record<string, string>;
    expect(now).toEqual(golden);
  });

  it("reads each user and record a bounded number of times, not once per user of the other side: linear in their number", () => {
    const n = 100;
    const reads = readsOf(n);
    // Twice the users and records, twice the reads (a scan per user reads each record once per user of the other side: four times).
    expect(readsOf(2 * n)).toBeLessThanOrEqual(2.2 * reads);
  });
});

/**
 * How many property reads of its users and records left out `compareAccess` makes for `n` users and `n` records left out
 * on each side, none of one side's the other's: each user and record is a difference of its own.
 */
function readsOf(n: number): number {
  let reads = 0;
  /** `value` whose every property read is counted. */
  const counted = <T extends object>(value: T): T =>
    new Proxy(value, {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
  const user = (i: number, side: string, id: string): AccessUser =>
    counted({ name: `${side}-${i}`, email: `${side}-${i}@x.example`, firstName: "A", lastName: "B", role: "workspace_login_only", id });
  const left = (i: number, side: string, id: string | undefined): AccessLeftOut =>
    counted({ kind: "user", id, email: `left-${side}-${i}@x.example`, reason: "no last name" });
  const range = <T>(make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
  // access.yaml: users under ids the workspace lists, and records left out, half of them added by hand (no id).
  const recorded: AccessFile = {
    version: 1,
    scope: { membersOnly: false },
    users: range((i) => user(i, "then", `t-${i}`)),
    integrations: [],
    leftOut: range((i) => left(i, "then", i % 2 === 0 ? `lt-${i}` : undefined)),
  };
  const live: AccessFile = {
    version: 1,
    scope: { membersOnly: false },
    users: range((i) => user(i, "now", `n-${i}`)),
    integrations: [],
    leftOut: range((i) => left(i, "now", `ln-${i}`)),
  };
  const listed = new Set(recorded.users.map((u) => u.id as string));
  expect(compareAccess(recorded, live, { workspaceIds: listed })).toHaveLength(4 * n);
  return reads;
}

describe("the review's lookup of unnamed records by integration", () => {
  it("tells a membership of no integration from one of an integration whose id reads 'undefined', as the filter it replaced did", () => {
    const file = (leftOut: AccessLeftOut[]): AccessFile => ({
      version: 1,
      scope: { membersOnly: false },
      users: [],
      integrations: [],
      leftOut,
    });
    const recorded = file([{ kind: "membership", integration: "undefined", email: "ann@x.example", reason: "no last name" }]);
    const unnamed = [{ kind: "membership" as const, id: "u-9" }];
    const [difference] = compareAccess(recorded, file([]), { workspaceIds: new Set(["u-9"]), unnamed });
    expect(difference?.untold).toBeUndefined();
    expect(difference?.text).toMatch(/the workspace has no such membership$/);
  });
});
