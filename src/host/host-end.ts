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
 * How many modules were loaded when the compile cache was last written (none new: nothing to write); undefined where
 * `host-start.ts` did not turn the cache on (off, or turned on by `NODE_COMPILE_CACHE`, whose lazy entries programs share
 * and which is left to node, as the host leaves it lazy).
 */
let modulesWritten: number | undefined;

/** Called by `host-start.ts` once it turned the compile cache on: this host writes it (see above). */
export function compileCacheTurnedOn(): void {
  modulesWritten ??= 0;
}

/** Writes node's compile cache if this host turned it on and modules loaded since the last write (0.1 ms when nothing is new). */
export function writeCompileCache(): void {
  const loaded = Object.keys(require.cache).length;
  if (modulesWritten === undefined || loaded === modulesWritten || !compileCache.getCompileCacheDir?.()) return;
  modulesWritten = loaded;
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
  writeCompileCache();
}
