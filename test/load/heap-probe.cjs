// Preloaded (NODE_OPTIONS=--expose-gc --require) by the load test. In the dynamic-provider host
// only: when the engine ends the host (the pulumi CLI sends SIGINT at the end of each operation, then
// kills it after a grace period; SIGTERM too, for anything else that stops it), collect garbage
// once and write the live heap and RSS to $HEAP_PROBE_DIR/<pid>. One GC at the very end, so the
// peak RSS sampled during the run is what V8 does on its own.
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.HEAP_PROBE_DIR;
if (dir && typeof global.gc === "function" && process.argv.some((arg) => arg.includes("dynamic-provider"))) {
  const probe = () => {
    global.gc();
    const { heapUsed, rss } = process.memoryUsage();
    fs.writeFileSync(path.join(dir, String(process.pid)), JSON.stringify({ heapUsed, rss }));
    process.exit(0);
  };
  process.once("SIGINT", probe);
  process.once("SIGTERM", probe);
}
