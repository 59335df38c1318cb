/**
 * What every route handler gets and gives back. Handlers are synchronous and pure with
 * respect to HTTP: they return a {@link Reply} (or throw an `ApiError`), and the server
 * decides whether to send it, delay it or drop it (the "ambiguous failure" fault).
 */
import type { InviteFailures } from "../faults";
import type { JobEngine } from "../jobs";
import { type Paged, paginate, parsePage } from "../paging";
import type { ListWalks, ShiftTarget } from "../quirks";
import type { Scope, ScopeTable } from "../scopes";
import type { Store } from "../store";
import type { EmulatorQuirks } from "../types";

/** The state routes act on. */
export interface World {
  store: Store;
  jobs: JobEngine;
  /** Whether user writes answer with a job (contract: "a write may instead answer with a job"). */
  userWritesAsJobs: boolean;
  /** Whether user writes that take effect at once answer 204 without a body. */
  userWritesNoContent?: boolean;
  /** Users whose invitation jobs fail (a test's fault). */
  inviteFailures?: InviteFailures;
  /** Which scope table routes enforce; absent, the public document's. */
  scopeTable?: ScopeTable;
  /** The live quirks (all off unless asked for). */
  quirks: EmulatorQuirks;
  /** Page shifts and page hooks of list walks. */
  walks: ListWalks;
}

/** One request, as a handler sees it. */
export interface RequestContext {
  world: World;
  /** Decoded path parameters, by the names of the route pattern. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON, the raw text when it was not JSON, or undefined when empty. */
  body: unknown;
  /** True when a body was sent and was not valid JSON. */
  invalidJson: boolean;
}

/** What a handler answers. */
export interface Reply {
  status: number;
  /** Serialized as JSON; undefined means no body (204). */
  body?: unknown;
  /** A header given `null` is left out (a fault's `{ Date: null }`). */
  headers?: Record<string, string | null>;
}

/** One operation of the API. */
export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Segments after `/api/v1`, `:name` for a parameter, e.g. `/users/:id`. */
  pattern: string;
  /** The scopes a key needs; a function because user writes need more when they start jobs. */
  scopes(world: World): Scope[];
  /** The query parameters the contract names for it (none when absent): `unknownQuery: "refuse"` answers any other 400. */
  query?: readonly string[];
  handle(ctx: RequestContext): Reply;
}

/** A route's path parameter, which the router guarantees is present. */
export function param(ctx: RequestContext, name: string): string {
  const value = ctx.params[name];
  if (value === undefined) throw new Error(`emulator: route has no parameter ${name}`);
  return value;
}

/** The paging parameters of every list (the contract's "paging"). */
export const PAGE_QUERY = ["page[number]", "page[size]"] as const;

/** The prefix of every `links` path. */
const LINK_PREFIX = "/api/v1";

/**
 * One page of a list, after the page hooks and the quirks had their say: `items` is read after
 * the hooks and a shift ran, since either may change the records.
 */
export function listPage<T>(
  ctx: RequestContext,
  basePath: string,
  items: () => readonly T[],
  target: ShiftTarget,
  keep: ReadonlyArray<readonly [string, string]> = [],
): Paged<T> {
  const page = parsePage(ctx.query);
  const path = basePath.startsWith(LINK_PREFIX) ? basePath.slice(LINK_PREFIX.length) : basePath;
  const key = [path, ...keep.map(([k, v]) => `${k}=${v}`)].join("&");
  const offset = ctx.world.walks.beforePage(key, decodeURIComponent(path), page, target);
  return paginate(items(), page, basePath, keep, offset);
}
