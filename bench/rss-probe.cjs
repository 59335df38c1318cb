// Preloaded (NODE_OPTIONS=--require) into the benchmark's processes: in the dynamic-provider host
// only, writes "<peak RSS bytes> <CPU µs used>" to $BENCH_RSS_DIR/<pid> every 50 ms, so the
// figures survive the host being killed at the end of an operation.
const fs = require("node:fs");
const path = require("node:path");

const dir = process.env.BENCH_RSS_DIR;
if (dir && process.argv.some((arg) => arg.includes("dynamic-provider"))) {
	const file = path.join(dir, String(process.pid));
	const write = () => {
		const usage = process.resourceUsage();
		fs.writeFileSync(file, `${usage.maxRSS * 1024} ${usage.userCPUTime + usage.systemCPUTime}`);
	};
	write();
	setInterval(write, 50).unref();
}
