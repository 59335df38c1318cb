/**
 * What a provider host does before it loads the provider (each entry module imports this first; never the program):
 * - turns on Node's compile cache: a host after the first compiles from cached code (about 35 ms less per `pulumi preview`
 *   or `up`; `NODE_DISABLE_COMPILE_CACHE=1` turns it off);
 * - leaves zod's translations unloaded: zod's index loads its 60-odd locale files (a third of the provider's load, about
 *   20 ms), and a host's messages are English, which zod's schemas load themselves (test/package/host-start.test.ts: only
 *   `en` loaded, zod's messages English). Should zod fail to load without them, they are loaded after all.
 */
import * as nodeModule from "node:module";

(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();

try {
  const locales = require.resolve("zod/v4/locales");
  if (!require.cache[locales]) {
    require.cache[locales] = Object.assign(new nodeModule.Module(locales), { filename: locales, loaded: true, exports: {} });
    try {
      require("zod");
    } catch {
      delete require.cache[locales];
    }
  }
} catch {}
