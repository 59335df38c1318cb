/**
 * What a provider host must finish before a provider method returns: the engine ends the host right after the last one
 * (SIGINT from `plugin.Close`, which node dies of before any exit handler, or a pending promise, timer or write, runs).
 * - the rate limits the client learnt, written to their cache files (`RateLimitMemory.flush`): lost, the next `pulumi up`
 *   would meet the same 429s and their waits again;
 * - node's compile cache (turned on by `src/provider/host-start.ts`), which node writes only at exit: the modules loaded
 *   since the last write (the provider's, then undici's at the first request), so that the next host reads them compiled.
 */
import * as nodeModule from "node:module";
import type { ProviderContext } from "./provider-context";

const compileCache = nodeModule as { getCompileCacheDir?: () => string | undefined; flushCompileCache?: () => void };

/**
 * How many settles after the client was made look for modules loaded since the last write: a host loads late only what its
 * first requests need (undici's client and parser), and each look lists every module (17 µs with 850 loaded). Before the
 * client is made, one look: the provider's own load.
 */
const LOOKS = 16;

/**
 * This host's writes of the compile cache: the modules loaded at the last one (none new: nothing to write), and the looks
 * left; undefined where `host-start.ts` did not turn the cache on (off, or turned on by `NODE_COMPILE_CACHE`, whose lazy
 * entries programs share and which is left to node, as the host leaves it lazy).
 */
let cacheWrites: { modules: number; looksLeft: number; loadLooked: boolean } | undefined;

/** Called by `host-start.ts` once it turned the compile cache on: this host writes it (see above). */
export function compileCacheTurnedOn(): void {
  cacheWrites ??= { modules: 0, looksLeft: LOOKS, loadLooked: false };
}

/**
 * Writes node's compile cache if this host turned it on and modules loaded since the last write (0.1 ms when nothing is
 * new); `connected`: the provider's client has been made (see {@link LOOKS}).
 */
export function writeCompileCache(connected: boolean): void {
  if (cacheWrites === undefined || (connected ? cacheWrites.looksLeft === 0 : cacheWrites.loadLooked)) return;
  if (connected) cacheWrites.looksLeft--;
  else cacheWrites.loadLooked = true;
  const loaded = Object.keys(require.cache).length;
  if (loaded === cacheWrites.modules || !compileCache.getCompileCacheDir?.()) return;
  cacheWrites.modules = loaded;
  // A failure to write is node's to ignore, as at exit.
  try {
    compileCache.flushCompileCache?.();
  } catch {}
}

/**
 * The longest a method waits for the rate limit's write: a cache folder that stalls (a network mount gone) costs each method
 * this much at most, not the operation (the write goes on; the limit may then be lost with the host, as before).
 */
export const SETTLE_WAIT_MS = 1_000;

/** Finishes what must outlive the host (see above) before the method that ran in `context` returns. Never throws. */
export async function settle(context: ProviderContext | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, SETTLE_WAIT_MS).unref();
  });
  await Promise.race([context?.settle().catch(() => {}), bound]);
  clearTimeout(timer);
  writeCompileCache(context?.connected ?? false);
}
