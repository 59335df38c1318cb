/**
 * Turns on Node's compile cache for what the provider loads next: a host after the first compiles from cached code (about 35 ms
 * less per `pulumi preview` or `up`; `NODE_DISABLE_COMPILE_CACHE=1` turns it off). Only the host's entry modules, never the program.
 */
import * as nodeModule from "node:module";

const enable = (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache;
enable?.();
