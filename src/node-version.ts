/** The oldest Node.js supported, and the one line that says so on an older one (not a TypeError inside undici later). */

/** The oldest Node.js supported, from package.json (two levels up from src/ and dist/). */
export const MINIMUM_NODE: string = (require("../package.json") as { engines: { node: string } }).engines.node.replace(/^>=\s*/, "");

/** True when version `found` (e.g. `20.20.2`) is older than `minimum` (e.g. `22.19.0`). */
export function isOlder(found: string, minimum: string): boolean {
  const a = found.split(".").map(Number);
  const b = minimum.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  }
  return false;
}

/** How to get a recent enough Node.js with npm alone or nvm, first on the PATH: `pulumi` runs the first `node` there. */
export const HOW_TO_GET_NODE =
  "install Node.js 22 (22.19 or later) or 24 first on the PATH (the one pulumi runs with): " +
  "`npm install --prefix ~/.node24 node@24 && export PATH=~/.node24/node_modules/.bin:$PATH`, or `nvm install 24`.";

/** The line to stop with on this Node.js, or `undefined` when it is recent enough. */
export function nodeVersionProblem(found: string = process.versions.node): string | undefined {
  if (!isOlder(found, MINIMUM_NODE)) return undefined;
  return `pulumi-workspace-access needs Node.js ${MINIMUM_NODE} or later, and this is Node.js ${found}: ${HOW_TO_GET_NODE}`;
}
