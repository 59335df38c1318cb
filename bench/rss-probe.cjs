// Preloaded (NODE_OPTIONS=--require) into the benchmark's processes: in the dynamic-provider host
// only, writes "<peak RSS bytes> <CPU µs used>" to $BENCH_RSS_DIR/<pid> every 50 ms, so the
// figures survive the host being killed at the end of an operation.
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.BENCH_RSS_DIR;
if (dir && process.argv.some((arg) => arg.includes("dynamic-provider"))) {
  const file = path.join(dir, String(process.pid));
  const partial = `${file}.partial`;
  const write = () => {
    const usage = process.resourceUsage();
    // Written aside, then renamed over the last figures (atomic): a reader never sees the file
    // truncated and empty, which it would count as 0 CPU.
    fs.writeFileSync(partial, `${usage.maxRSS * 1024} ${usage.userCPUTime + usage.systemCPUTime}`);
    fs.renameSync(partial, file);
  };
  write();
  setInterval(write, 50).unref();
}
