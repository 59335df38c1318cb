/**
 * Test helpers: a thin `fetch` wrapper (never the package's client: the emulator is tested on
 * its own terms) and seeds.
 */
import type { Emulator, SeedIntegration, SeedUser } from "../../src/emulator/index";

/** A parsed answer. */
export interface Answer {
  status: number;
  headers: Headers;
  /** Parsed JSON; undefined for an empty body. */
  json: unknown;
  text: string;
}

/** Options of {@link call}. */
export interface CallOptions {
  body?: unknown;
  /** A raw body, sent as-is. */
  raw?: string;
  /** The API key; null sends none. Default: the emulator's own key. */
  key?: string | null;
  /** The Content-Type of a body; null sends none. Default: `application/json`. */
  contentType?: string | null;
}

/** Sends one request to `emulator` at `path` (relative to the base URL, e.g. `users?page%5Bsize%5D=2`). */
export async function call(emulator: Emulator, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? emulator.apiKey : options.key;
  if (key !== null) headers["X-API-Key"] = key;
  let text: string | undefined = options.raw;
  if (options.body !== undefined) text = JSON.stringify(options.body);
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  if (text !== undefined && contentType !== null) headers["Content-Type"] = contentType;
  // Bytes, not a string: fetch gives a string body `text/plain` unless told otherwise, bytes no Content-Type at all.
  const body = text === undefined ? undefined : new TextEncoder().encode(text);
  const url = path.startsWith("/") ? new URL(path, emulator.url).toString() : emulator.url + path;
  const res = await fetch(url, { method, headers, body });
  const answered = await res.text();
  let json: unknown;
  if (answered !== "") {
    try {
      json = JSON.parse(answered);
    } catch {
      json = undefined;
    }
  }
  return { status: res.status, headers: res.headers, json, text: answered };
}

/** A JSON object field by path, for terse assertions on `unknown`. */
export function at(value: unknown, ...path: Array<string | number>): unknown {
  let current: unknown = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** The first error's field. */
export function errorField(answer: Answer, field: "code" | "title" | "detail" | "status" | "meta"): unknown {
  return at(answer.json, "errors", 0, field);
}

/** `count` users named user-001@example.com ... in order. */
export function manyUsers(count: number): SeedUser[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(3, "0");
    return { email: `user-${n}@example.com`, firstName: `First${n}`, lastName: `Last${n}`, role: "workspace_login_only" };
  });
}

/** A user create/replace body. */
export function userBody(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown {
  return {
    data: { type: "user", ...extra, attributes: { firstName: "New", lastName: "Person", role: "workspace_login_only", ...attributes } },
  };
}

/** A user replace body: every writable attribute, as the contract's PUT takes them (`isGuest` false unless given). */
export function replaceBody(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown {
  return userBody({ isGuest: false, ...attributes }, extra);
}

/** A small fixed world for integration tests. */
export const TEAM = {
  ada: "11111111-1111-4111-8111-111111111111",
  bob: "22222222-2222-4222-8222-222222222222",
  cy: "33333333-3333-4333-8333-333333333333",
  tube: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
} as const;

/** Users ada (member, owner, VIEWER), bob (member, EDITOR), cy (not a member) and the integration "tube". */
export function teamSeed(): { users: SeedUser[]; integrations: SeedIntegration[] } {
  return {
    users: [
      { id: TEAM.ada, email: "ada@example.com", firstName: "Ada", lastName: "Lovelace", role: "workspace_owner" },
      { id: TEAM.bob, email: "bob@example.com", firstName: "Bob", lastName: "Builder" },
      { id: TEAM.cy, email: "cy@example.com", firstName: "Cy", lastName: "Young", isGuest: true },
    ],
    integrations: [
      {
        id: TEAM.tube,
        application: "YouTube",
        label: "YouTube acme",
        entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }, { id: "MANAGER", label: "Manager", group: "secondary" }],
        users: [
          { userId: TEAM.ada, role: "owner", entitlements: ["VIEWER"] },
          { userId: "bob@example.com", entitlements: ["EDITOR"], dynamicFields: { seats: 2 } },
        ],
      },
    ],
  };
}
