/** What rate-limit headers say: `RateLimit-Limit`, `-Remaining` and `-Reset` (the IETF draft), or with an `X-` prefix. */

/** The figures of one answer's headers; the reset in ms from `now`. */
export interface RateLimitHeaders {
  resetMs: number;
  limit: number | undefined;
  remaining: number | undefined;
}

/** The headers' figures, or `undefined` when they give no reset (without it, neither figure has a window). */
export function readRateLimitHeaders(headers: Record<string, string | string[] | undefined>, now: number): RateLimitHeaders | undefined {
  const read = (name: string) => {
    const value = headers[name] ?? headers[`x-${name}`];
    const n = Number(Array.isArray(value) ? value[0] : value);
    return Number.isFinite(n) ? n : undefined;
  };
  const reset = read("ratelimit-reset");
  if (reset === undefined) return undefined;
  // `reset` is delta seconds in the IETF draft; an epoch-seconds value is taken as such.
  const resetMs = Math.max(0, reset > 1e9 ? reset * 1000 - now : reset * 1000);
  return { resetMs, limit: read("ratelimit-limit"), remaining: read("ratelimit-remaining") };
}
