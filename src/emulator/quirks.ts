/**
 * Behaviours the contract allows that a well-behaved service would not show (see
 * {@link EmulatorQuirks}): pages that shift between reads, records listed twice, ids answered
 * in upper case, 204 answers, integration writes done with no job, null fields, jobs read in
 * every state not done, members' entitlements as plain ids, members' roles in other words or left out, emails in
 * lower case, and a clock off from the client's. Invitations of existing members live in the invitation route; this module
 * holds what the list routes and the server share.
 */
import type { EmulatorQuirks, PageHook } from "./types";

/**
 * The adversarial world's quirks: each switch at the harder of the answers the contract leaves open.
 * That is "on" for every one but `openUserRoles`: a service that takes any role is the lenient one, and
 * refusing a role it serves but the public document does not list (its default) is what a program must survive.
 * `integrationWriteAnswer` stays at its default too: the public document answers each integration write with a job,
 * and a job (waited for, polled, perhaps still running at a timeout) is the harder answer; one done at once is the
 * lenient one, proven on its own (test/host "integration writes answered without a job").
 * `jobProgress`, `memberEntitlements`, `lowerCaseEmails`, `userFilter`, `unknownEntitlement`, `errorStatus`, `absentFields`,
 * `nonMemberWrite`, `userCreateTaken`, `userReplaceId`, `unknownQuery`, `clockSkew`, `memberListPath` and `memberRole` stay at their defaults as well, so that the world the reliability suites and the export run in
 * stays as it was: each is proven on its own (test/client and test/host "contract-alternatives").
 */
export function adversarialQuirks(): EmulatorQuirks {
  return { shiftPages: "remove", repeatRecords: true, inviteExisting: "merge", upperCaseIds: true, noContent: true, nullFields: true };
}

/** What a quirk taking a number of seconds lists as its values (`clockSkew=-600`). */
const SECONDS = "<seconds>";

/** The quirks' names and the values each accepts, for the command's `--quirk name=value`. */
export const QUIRK_VALUES = {
  shiftPages: ["remove", "insert", "false"],
  repeatRecords: ["true", "false"],
  inviteExisting: ["conflict", "merge", "fail"],
  upperCaseIds: ["true", "false"],
  noContent: ["true", "false"],
  nullFields: ["true", "false"],
  openUserRoles: ["true", "false"],
  integrationWriteAnswer: ["job", "no-content", "empty-ok", "no-data"],
  jobProgress: ["running", "varied"],
  memberEntitlements: ["records", "ids", "left-out"],
  lowerCaseEmails: ["true", "false"],
  userFilter: ["contains", "exact", "case-sensitive"],
  unknownEntitlement: ["job-error", "bad-request", "not-found"],
  errorStatus: ["number", "string"],
  absentFields: ["true", "false"],
  nonMemberWrite: ["not-found", "job-error"],
  userCreateTaken: ["conflict", "bad-request", "existing"],
  userReplaceId: ["accept", "refuse"],
  unknownQuery: ["ignore", "refuse"],
  clockSkew: [SECONDS],
  memberListPath: ["both", "singular"],
  memberRole: ["short", "account", "left-out"],
} as const satisfies Record<keyof EmulatorQuirks, readonly string[]>;

/** Parses one `name=value`; throws naming the allowed names or values. */
export function parseQuirk(text: string): Partial<EmulatorQuirks> {
  const eq = text.indexOf("=");
  const name = (eq < 0 ? text : text.slice(0, eq)).trim();
  const value = eq < 0 ? "true" : text.slice(eq + 1).trim();
  if (!Object.hasOwn(QUIRK_VALUES, name)) {
    throw new Error(`unknown quirk "${name}"; known: ${Object.keys(QUIRK_VALUES).join(", ")}`);
  }
  const allowed: readonly string[] = QUIRK_VALUES[name as keyof EmulatorQuirks];
  if (allowed[0] === SECONDS) {
    const seconds = value === "" ? Number.NaN : Number(value);
    if (!Number.isFinite(seconds)) throw new Error(`--quirk ${name} must be a number of seconds (negative: behind), got "${value}"`);
    return { [name]: seconds } as Partial<EmulatorQuirks>;
  }
  if (!allowed.includes(value)) throw new Error(`--quirk ${name} must be one of ${allowed.join(", ")}, got "${value}"`);
  const parsed = value === "true" ? true : value === "false" ? false : value;
  return { [name]: parsed } as Partial<EmulatorQuirks>;
}

/** What a list route lets the page shifter do to its records. */
export interface ShiftTarget {
  /**
   * Removes one "other admin" record sorting before index `start` of the list (never one a test or
   * program created, never an owner); false when there is none.
   */
  removeBefore(start: number): boolean;
  /** Adds one "other admin" record listed before index `start` of the list; false when nobody else acts here. */
  insertBefore(start: number): boolean;
}

/** One list's walk: whether its next page ≥ 2 shifts, the simulated shift of the current walk and the page it hit. */
interface WalkState {
  armed: boolean;
  offset: number;
  shiftedPage: number | undefined;
}

/**
 * Page shifts, per list (its path and non-paging query). A list is "armed" until its first page
 * ≥ 2 is read, and armed again by any write the emulator accepts: someone else acts while a
 * client reads after a change, once per walk, so two walks with no write between them agree.
 */
export class ListWalks {
  readonly #walks = new Map<string, WalkState>();
  readonly hooks = new Set<PageHook>();

  constructor(readonly quirks: EmulatorQuirks) {}

  /** Every list shifts again on its next walk (called after an accepted write). */
  rearm(): void {
    for (const walk of this.#walks.values()) walk.armed = true;
  }

  /**
   * Before a page is computed: runs the test hooks (page ≥ 2) and the shift; returns how many
   * records later (positive) or earlier (negative) this page starts than its number says.
   */
  beforePage(key: string, path: string, page: { number: number; size: number }, target: ShiftTarget): number {
    let walk = this.#walks.get(key);
    if (walk === undefined) {
      walk = { armed: true, offset: 0, shiftedPage: undefined };
      this.#walks.set(key, walk);
    }
    if (page.number <= 1) {
      walk.offset = 0;
      walk.shiftedPage = undefined;
      return 0;
    }
    for (const hook of [...this.hooks]) hook({ path, page: page.number, size: page.size });
    const mode = this.quirks.shiftPages;
    if (walk.armed && (mode === "remove" || mode === "insert")) {
      walk.armed = false;
      walk.shiftedPage = page.number;
      const start = (page.number - 1) * page.size;
      if (mode === "remove") {
        if (!target.removeBefore(start)) walk.offset += 1;
      } else if (!target.insertBefore(start)) {
        walk.offset -= 1;
      }
    }
    // A page of one record that repeated the last would list it again and again: such pages repeat nothing.
    if (this.quirks.repeatRecords !== true || page.size < 2) return walk.offset;
    // Records listed twice: every page after the first starts one record early, except the page a
    // shift hit (repeating there would list again the very record the shift made the walk skip).
    const shifted = walk.shiftedPage !== undefined && walk.shiftedPage <= page.number ? 1 : 0;
    return walk.offset - (page.number - 1 - shifted);
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const UUID_ANY_CASE = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g;

/** Every UUID of a serialized body in upper case. */
export function upperCaseUuids(text: string): string {
  return text.replace(UUID, (id) => id.toUpperCase());
}

/** Every UUID of a request path in lower case: how the service matches ids case-insensitively. */
export function lowerCaseUuids(text: string): string {
  return text.replace(UUID_ANY_CASE, (id) => id.toLowerCase());
}

/** A copy of a parsed JSON body with every UUID-shaped string in lower case. */
export function lowerCaseUuidsIn(value: unknown): unknown {
  if (typeof value === "string") return lowerCaseUuids(value);
  if (Array.isArray(value)) return value.map(lowerCaseUuidsIn);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lowerCaseUuidsIn(v)]));
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Optional fields answered as null where the contract allows it ("only `id` is certain"),
 * deterministically so a test can predict them: a user's `isGuest` when false, `status` when
 * `pending`, names that are empty; an integration's label when it is the emulator's invented
 * default (`<application> (emulator)`); an entitlement's label when it is the invented default
 * (`<APPLICATION>_<ID>_DESC`). Values a client wrote are never nulled, except `isGuest: false`. With `absent`
 * (the `absentFields` quirk), those fields are left out instead.
 */
export function nullOptionalFields(body: unknown, absent = false): unknown {
  if (Array.isArray(body)) return body.map((item) => nullOptionalFields(item, absent));
  if (!isRecord(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k] = nullOptionalFields(v, absent);
  const attributes = out["attributes"];
  if (!isRecord(attributes)) return out;
  const a = { ...attributes };
  if (out["type"] === "user") {
    if (a["isGuest"] === false) a["isGuest"] = null;
    if (a["status"] === "pending") a["status"] = null;
    if (a["firstName"] === "") a["firstName"] = null;
    if (a["lastName"] === "") a["lastName"] = null;
  } else if (out["type"] === "account") {
    if (typeof a["application"] === "string" && a["label"] === `${a["application"]} (emulator)`) a["label"] = null;
  } else if (out["type"] === "entitlement") {
    if (typeof a["label"] === "string" && typeof a["key"] === "string" && a["label"].endsWith(`_${a["key"]}_DESC`)) a["label"] = null;
  }
  // `absentFields`: what was just nulled is left out instead.
  if (absent) for (const key of Object.keys(a)) if (a[key] === null && attributes[key] !== null) delete a[key];
  out["attributes"] = a;
  return out;
}

/** An error body with each entry's `status` written as a string (`errorStatus: "string"`); any other body as it is. */
export function errorStatusAsString(body: unknown): unknown {
  if (!isRecord(body) || !Array.isArray(body["errors"])) return body;
  const errors = body["errors"].map((entry) =>
    isRecord(entry) && typeof entry["status"] === "number" ? { ...entry, status: String(entry["status"]) } : entry,
  );
  return { ...body, errors };
}

/** The states a job not yet done shows in turn with `jobProgress: "varied"` (the public document's, not done). */
export const VARIED_JOB_STATES = ["created", "started", "running", "retrying"] as const;

/** What the `n`-th read (from 1) of a job not yet done shows with `jobProgress: "varied"`. */
export function variedJobState(read: number): (typeof VARIED_JOB_STATES)[number] {
  return VARIED_JOB_STATES[(Math.max(1, read) - 1) % VARIED_JOB_STATES.length]!;
}

/**
 * The user records of a body reshaped as `lowerCaseEmails`, `memberEntitlements` and `memberRole` say: every
 * `email` in lower case; an integration user's `entitlements` as their ids (`"ids"`), or left out (`"left-out"`); an integration
 * user's `role` (`owner`, `collaborator`: a workspace user's roles are `workspace_*`) as the invitation names it, or left out.
 */
export function reshapeUserRecords(body: unknown, quirks: EmulatorQuirks): unknown {
  if (Array.isArray(body)) return body.map((item) => reshapeUserRecords(item, quirks));
  if (!isRecord(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) out[k] = reshapeUserRecords(v, quirks);
  const attributes = out["attributes"];
  if (out["type"] !== "user" || !isRecord(attributes)) return out;
  const a = { ...attributes };
  if (quirks.lowerCaseEmails === true && typeof a["email"] === "string") a["email"] = a["email"].toLowerCase();
  if (quirks.memberEntitlements === "ids" && Array.isArray(a["entitlements"])) {
    a["entitlements"] = a["entitlements"].map((e) => (isRecord(e) && typeof e["id"] === "string" ? e["id"] : e));
  }
  if (quirks.memberEntitlements === "left-out") delete a["entitlements"];
  if (a["role"] === "owner" || a["role"] === "collaborator") {
    if (quirks.memberRole === "account") a["role"] = `account_${a["role"]}`;
    else if (quirks.memberRole === "left-out") delete a["role"];
  }
  out["attributes"] = a;
  return out;
}
