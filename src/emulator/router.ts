/**
 * Matches a method and path to a route. Segments are decoded one by one, so an id holding
 * an encoded `/` stays one segment.
 */
import type { Route } from "./routes/context";

/** The result of {@link Router.match}. */
type Match = { kind: "route"; route: Route; params: Record<string, string> } | { kind: "method"; allowed: string[] } | { kind: "none" };

interface Compiled {
  route: Route;
  segments: string[];
}

function split(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "");
}

/** A table of routes. */
export class Router {
  readonly #compiled: Compiled[];

  constructor(routes: readonly Route[]) {
    this.#compiled = routes.map((route) => ({ route, segments: split(route.pattern) }));
  }

  /** Finds the route for `method` and the raw (still encoded) `path` after the prefix. */
  match(method: string, rawPath: string): Match {
    let segments: string[];
    try {
      segments = split(rawPath).map((s) => decodeURIComponent(s));
    } catch {
      return { kind: "none" };
    }
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.#compiled) {
      const params = matchSegments(pattern, segments);
      if (params === undefined) continue;
      if (route.method === method) return { kind: "route", route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "method", allowed } : { kind: "none" };
  }
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i] ?? "";
    const actual = segments[i] ?? "";
    if (expected.startsWith(":")) params[expected.slice(1)] = actual;
    else if (expected !== actual) return undefined;
  }
  return params;
}
