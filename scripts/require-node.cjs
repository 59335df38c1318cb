// `npm run demo` and `npm run bench` start with this: Node.js older than package.json's
// `engines.node` could not even load their TypeScript files (ERR_UNKNOWN_FILE_EXTENSION), so say
// in one line what is found and what is needed. Plain CommonJS, to run on any Node.js.
const needed = require("../package.json").engines.node.replace(/^>=\s*/, "");
const found = process.versions.node;
const older = (a, b) => {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) < (y[i] || 0);
  return false;
};
if (older(found, needed)) {
  process.stderr.write(
    `pulumi-workspace-access needs Node.js ${needed} or later, and this is Node.js ${found}: install Node.js 22 (22.19 or later) or 24.\n`,
  );
  process.exit(1);
}
