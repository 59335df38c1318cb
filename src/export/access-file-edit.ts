/**
 * `--accept`'s write of `access.yaml`: the accepted data applied to the file as it is, not written anew, so that what a
 * person wrote beside the records (comments, quotes, the order of keys) stays wherever a record does not differ. Each
 * record is matched as the review matches it: a user by the id the file records, else by email as `mayMatchByEmail`
 * allows (`matchUsers`); a member by that user; an integration by id; a record left out by kind and ids, else by email
 * (`matchLeftOut`: one added by hand). So a comment stays with the record the review compares it with, never moves to a
 * newcomer given an old email. One that reads the
 * same is kept as it is; one that differs keeps the lines of its fields that do not; one added is written as the export
 * writes it; one taken out goes, with its comments (named, for the output).
 * The records stay in the file's order, whatever it is; one added goes after the record it follows in the export's.
 * The result must read back as the accepted data; else the file is written anew, and the output says so.
 */
import { type Document, isMap, isScalar, isSeq, type Node, type Pair, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import { idOf } from "../client";
import { emailKey } from "../client/models";
import {
  type AccessFile,
  formatAccessFile,
  leftOutKey,
  MAPPINGS_READ,
  type MappingKind,
  parseAccessFile,
  WRITE_OPTIONS,
} from "./access-file";
import { byKey } from "./names";
import { matchLeftOut } from "./review/differences";
import { listedIdsOf, matchBy, matchUsers, memberEmailsNow } from "./review/match";

/** The text of `access.yaml` holding `accepted`, and the comments that went with what it took out (what held them). */
export interface EditedAccessFile {
  text: string;
  /** What held a comment that is gone: `user bob@x.example`; or, when the file had to be written anew, why. */
  lost: string[];
  /** Whether the file was written anew (every comment gone). */
  rewritten?: string;
}

type Record_ = Record<string, unknown>;

/** JSON with keys sorted: two values read the same when this is equal. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );

/** A member as compared: its user by email, whatever the case (the reader spells it as the users do). */
const comparable = (kind: MappingKind, record: Record_ | undefined): unknown =>
  kind === "member" && record ? { ...record, user: emailKey(String(record["user"])) } : record;

/** Which side of the edit a record is of: the file as it is (`was`), or the accepted data (`now`). */
type Side = "was" | "now";

/** What pairs a record of a list across the two files: the same key on both sides (undefined: paired with none). */
type Identity = Partial<Record<MappingKind, (record: Record_, side: Side) => string | undefined>>;

/**
 * The keys of {@link Identity}, the review's pairs of `was` (the file as it is) and `now` (the accepted data): a user by the
 * email of the accepted user they are (`matchUsers`), a member where it is to be found among the accepted ones
 * (`memberEmailsNow`), a record left out by the key of the accepted record it is (`matchLeftOut`).
 */
function identity(was: AccessFile, now: AccessFile, listed: Iterable<string>): Identity {
  const listedIds = listedIdsOf(now, listed);
  const users = matchUsers(was.users, now.users, listedIds);
  const userNow = new Map([...users].map(([user, then]) => [emailKey(then.email), emailKey(user.email)]));
  const memberNow = memberEmailsNow(was.users, now.users, users);
  // The file's own ids (`listedIdsOf` of it): a record of the workspace with one of them is that one's, never paired by email.
  const left = matchLeftOut(was, now.leftOut, listedIdsOf(was), listedIds);
  const leftNow = new Map([...left].map(([record, then]) => [leftOutKey(then), leftOutKey(record)]));
  const key = (l: Record_) => leftOutKey(l as Parameters<typeof leftOutKey>[0]);
  return {
    user: (u, side) => (side === "now" ? emailKey(String(u["email"])) : userNow.get(emailKey(String(u["email"])))),
    integration: (i) => idOf(String(i["id"])),
    member: (m, side) => (side === "now" ? emailKey(String(m["user"])) : memberNow(String(m["user"]))),
    leftOut: (l, side) => (side === "now" ? key(l) : leftNow.get(key(l))),
  };
}

/** The lists of each mapping that hold records, and the kind of those. */
const LISTS: Partial<Record<MappingKind, Record<string, MappingKind>>> = {
  file: { users: "user", integrations: "integration", leftOut: "leftOut" },
  integration: { members: "member" },
};

/** What people call a record, for the comments that went with it. */
function named(kind: MappingKind, record: Record_ | undefined, within: string): string {
  if (kind === "user") return `user ${String(record?.["email"])}`;
  if (kind === "integration") return `integration ${String(record?.["label"] ?? record?.["name"])}`;
  if (kind === "member") return `member ${String(record?.["user"])} of ${within}`;
  if (kind === "leftOut") return `the record left out ${[record?.["kind"], record?.["email"] ?? record?.["id"]].filter(Boolean).join(" ")}`;
  return within;
}

/** Whether a node, or anything in it, holds a comment. */
function hasComment(node: unknown): boolean {
  if (!node || typeof node !== "object") return false;
  const n = node as { commentBefore?: string | null; comment?: string | null; items?: unknown[]; key?: unknown; value?: unknown };
  if (n.commentBefore || n.comment) return true;
  if (Array.isArray(n.items)) return n.items.some(hasComment);
  return hasComment(n.key) || hasComment(n.value);
}

/** `fresh` in place of `old`, with the comments `old` had on its own line and after it. */
function replaced(old: unknown, fresh: Node): Node {
  const o = old as { commentBefore?: string | null; comment?: string | null } | null;
  if (o?.commentBefore && !fresh.commentBefore) fresh.commentBefore = o.commentBefore;
  if (o?.comment && !fresh.comment) fresh.comment = o.comment;
  return fresh;
}

class Editor {
  readonly lost: string[] = [];
  /** A node as plain data, its aliases resolved in the file it comes from. */
  readonly #js: (node: Node) => unknown;

  /** How a record of a list is paired across the two files. */
  readonly #identity: Identity;

  constructor(doc: Document, identity: Identity) {
    this.#js = (node) => node.toJS(doc);
    this.#identity = identity;
  }

  /** `old` (a mapping of the file) made to read as `fresh` (the same mapping as the export writes the accepted data). */
  mapping(kind: MappingKind, old: unknown, fresh: YAMLMap, within: string): Node {
    const { keys, read } = MAPPINGS_READ[kind];
    const [was, now] = [isMap(old) ? read(this.#js(old)) : undefined, read(this.#js(fresh))];
    // The file was read with the same schemas before: a mapping that does not read now is one this edit cannot place.
    if (!isMap(old) || was === undefined || now === undefined) throw new Error(`${within}: a ${kind} mapping did not read`);
    // A list that reads the same may hold other records all the same (a newcomer's membership under a user's old email): its
    // records are paired one by one, and one paired with none goes, its comments with it.
    const lists = LISTS[kind] ?? {};
    if (Object.keys(lists).length === 0 && canonical(comparable(kind, was)) === canonical(comparable(kind, now))) return old;
    const pairOf = (map: YAMLMap, key: string) => map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair | undefined;
    const name = named(kind, now, within);
    for (const key of keys) {
      const [before, after] = [pairOf(old, key), pairOf(fresh, key)];
      if (canonical(comparable(kind, { [key]: was[key] })) === canonical(comparable(kind, { [key]: now[key] }))) {
        const records = lists[key] !== undefined && isSeq(before?.value) && before.value.items.length > 0;
        if (!records || after === undefined) continue;
      }
      if (after === undefined) {
        if (before === undefined) continue;
        if (hasComment(before)) this.lost.push(`${name} (${key})`);
        old.items.splice(old.items.indexOf(before), 1);
      } else if (before === undefined) {
        // After the keys that come before it in the file's order.
        const earlier = keys.slice(0, keys.indexOf(key));
        const at = old.items.reduce((last, p, i) => (isScalar(p.key) && earlier.includes(String(p.key.value)) ? i + 1 : last), 0);
        old.items.splice(at, 0, after);
      } else {
        const list = lists[key];
        before.value =
          list && isSeq(after.value) ? this.list(list, before.value, after.value, name) : replaced(before.value, after.value as Node);
      }
    }
    return old;
  }

  /**
   * `old` (a list of records of the file) made to hold `fresh`'s records, in the file's order: a person may have put them in
   * their own (grouped, under heading comments), and a review matches records by identity, not place. A record kept stays
   * where it is (edited in place), one taken out goes, one added goes right after the record it follows in `fresh` (the
   * export's order), or first when it follows none: in a file in the export's order, it lands where the export puts it.
   */
  list(kind: MappingKind, old: unknown, fresh: YAMLSeq, within: string): Node {
    if (!isSeq(old) || old.items.length === 0) return replaced(old, fresh);
    const { read } = MAPPINGS_READ[kind];
    const identity = this.#identity[kind]!;
    const key = (node: unknown, side: Side) => {
      const record = isMap(node) ? read(this.#js(node)) : undefined;
      if (record === undefined) throw new Error(`${within}: a ${kind} did not read`);
      return identity(record, side);
    };
    const olds = old.items.map((node) => ({ node, is: key(node, "was") }));
    // Each record of `fresh` with the record of the file it is (absent: one added).
    const news = fresh.items.map((node) => ({ node: node as YAMLMap, is: key(node, "now") }));
    const matched = matchBy(olds, news, [(r) => r.is]);
    const kept = new Map<unknown, YAMLMap>([...matched].map(([now, was]) => [was.node, now.node]));
    const items: unknown[] = old.items.filter((node) => kept.has(node));
    let previous: unknown;
    for (const now of news) {
      const was = matched.get(now)?.node;
      if (was === undefined) items.splice(previous === undefined ? 0 : items.indexOf(previous) + 1, 0, now.node);
      previous = was ?? now.node;
    }
    // A comment above the list's first record is the list's in the library's reading, but it is that record's own.
    const first = old.items[0] as Node | undefined;
    if (old.commentBefore && first && items[0] !== first) {
      first.commentBefore = [old.commentBefore, first.commentBefore].filter(Boolean).join("\n");
      old.commentBefore = null;
    }
    for (const was of items) {
      const node = kept.get(was);
      if (node !== undefined) this.mapping(kind, was, node, within);
    }
    // The records taken out, with their comments.
    for (const { node } of olds)
      if (!kept.has(node) && hasComment(node)) this.lost.push(named(kind, isMap(node) ? read(this.#js(node)) : undefined, within));
    old.items = items;
    return old;
  }
}

/**
 * `accepted` written into `text` (the file as it is): see the top of this file. `listed`: the ids (`idOf`) of every user the
 * workspace lists, beyond `accepted` (as `acceptAccess` takes them), which decide whether a user may be paired by email.
 */
export function editAccessFile(text: string, accepted: AccessFile, listed: Iterable<string> = []): EditedAccessFile {
  const written = formatAccessFile(accepted);
  try {
    const doc = parseDocument(text, { uniqueKeys: true });
    const fresh = parseDocument(written);
    if (doc.errors.length > 0 || !isMap(fresh.contents)) throw new Error("the file does not read as YAML");
    if (doc.contents !== null && !isMap(doc.contents)) throw new Error("the file is not a mapping");
    const editor = new Editor(doc, identity(parseAccessFile(text), accepted, listed));
    doc.contents = editor.mapping("file", doc.contents, fresh.contents, "access.yaml") as typeof doc.contents;
    // A person's single quotes kept where the record is kept; what the export writes is double-quoted already.
    const edited = doc.toString({ ...WRITE_OPTIONS, singleQuote: null });
    // The records in the export's order: the file keeps its own, which means nothing to the reader (records go by identity).
    const data = ({ memberships: _, ...file }: ReturnType<typeof parseAccessFile>) =>
      canonical({
        ...file,
        users: [...file.users].sort(byKey((u) => `${emailKey(u.email)}\u0000${u.email}`)),
        integrations: [...file.integrations]
          .map((i) => ({ ...i, members: [...i.members].sort(byKey((m) => `${emailKey(m.user)}\u0000${m.user}`)) }))
          .sort(byKey((i) => `${i.name}\u0000${i.id}`)),
      });
    if (data(parseAccessFile(edited)) !== data(parseAccessFile(written)))
      throw new Error("edited in place, it did not read as the accepted data");
    return { text: edited, lost: editor.lost };
  } catch (error) {
    return { text: written, lost: [], rewritten: error instanceof Error ? error.message : String(error) };
  }
}
