/**
 * What a provider host does before it loads the provider (each entry module imports this first; never the program):
 * - turns on Node's compile cache: a host after the first compiles from cached code (about 35 ms less per `pulumi preview`
 *   or `up`; `NODE_DISABLE_COMPILE_CACHE`, set at all, turns it off, as node has it);
 * - with it, compiles eagerly (V8's `--no-lazy`, as bytenode does): every function of what loads next (zod, undici's parts,
 *   this package, and any module the host loads later) is compiled with its module, so the cache holds them all, and a host
 *   no longer compiles each function at its first call (zod's parsers, undici's first request, the plan). An
 *   `IntegrationMembers` create of 1,000 under the real CLI: about 15 ms less to its check and 15 ms less in its create;
 *   in one host without the engine, 40 ms less, and less too on the first run, which fills the cache (one parse per
 *   function, not a pre-parse and a parse). The flags are part of the cache folder's name: no cache is read under others.
 *   Where `NODE_COMPILE_CACHE` turned the cache on already, its folder is named for node's own flags: the host stays lazy;
 *   Node writes the cache at exit, which a host never reaches (the engine ends it with SIGINT, which node dies of first), so
 *   each provider method writes it before it returns, when modules loaded since (`src/host/host-end.ts`): until 2026-12-02
 *   no host ever wrote it, and each compiled everything eagerly from source (the provider's load 67 ms under the real CLI,
 *   against 31 to 38 ms read from the cache);
 * - leaves zod's translations unloaded: zod's index loads its 60-odd locale files (a third of the provider's load, about
 *   20 ms), and a host's messages are English, which zod's schemas load themselves (test/package/host-start.test.ts: only
 *   `en` loaded, zod's messages English). They are left out behind a stand-in: the first translation asked of it (by a zod
 *   that reads one while it loads, or by another dynamic provider of the program in this host, on the same zod) loads
 *   zod's own locales then (the same test file).
 */
import * as nodeModule from "node:module";
import { setFlagsFromString } from "node:v8";
import { compileCacheTurnedOn } from "../host/host-end";

const withCache = nodeModule as { enableCompileCache?: () => unknown; getCompileCacheDir?: () => string | undefined };
// Node turns the cache off when NODE_DISABLE_COMPILE_CACHE is set at all (even empty): so does this. A cache already on
// (NODE_COMPILE_CACHE) is left as it is, lazy: its folder is named for the flags node started with, and programs share it,
// whose lazy entries V8 would refuse under --no-lazy (and they the host's), each process rewriting what the other wrote.
if (withCache.enableCompileCache && process.env.NODE_DISABLE_COMPILE_CACHE === undefined && !withCache.getCompileCacheDir?.()) {
  setFlagsFromString("--no-lazy");
  withCache.enableCompileCache();
  compileCacheTurnedOn();
}

try {
  const locales = require.resolve("zod/v4/locales");
  if (!require.cache[locales]) {
    // A stand-in zod takes as it is (an ES module's exports): the first translation asked of it (`z.locales.de`, by another
    // dynamic provider of the program in this host, on the same zod) loads zod's own locales and hands it over.
    const real = (): object => {
      if (require.cache[locales]?.exports === lazy) delete require.cache[locales];
      return require(locales);
    };
    const lazy: object = new Proxy(
      {},
      {
        get: (_, key) => (key === "__esModule" ? true : Reflect.get(real(), key)),
        has: (_, key) => Reflect.has(real(), key),
        ownKeys: () => Reflect.ownKeys(real()),
        getOwnPropertyDescriptor: (_, key) => {
          const found = Reflect.getOwnPropertyDescriptor(real(), key);
          return found && { ...found, configurable: true };
        },
      },
    );
    require.cache[locales] = Object.assign(new nodeModule.Module(locales), { filename: locales, loaded: true, exports: lazy });
    try {
      require("zod");
    } finally {
      // Whoever requires the locales from now on (or the stand-in, once asked) gets zod's own module.
      if (require.cache[locales]?.exports === lazy) delete require.cache[locales];
    }
  }
} catch {}
