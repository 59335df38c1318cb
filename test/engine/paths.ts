/** Where the harness lives, so it can start its own runner and find its own tools. */
import * as path from "node:path";
import { fileURLToPath } from "node:url";

// Node runs the harness as an ES module (syntax detection; `node` strips the types), while tsc
// models `.ts` files of this package as CommonJS because package.json has no "type" field.
// @ts-expect-error TS1470: `import.meta` is real at run time, under plain node and vitest alike.
const moduleUrl: string = import.meta.url;

/** The directory of the harness (`test/engine`). */
export const harnessDir: string = path.dirname(fileURLToPath(moduleUrl));

/** The repository root (holds the `node_modules` that linked projects point into). */
export const repoRoot: string = path.resolve(harnessDir, "..", "..");

/** The program runner, executed with plain `node` in a child process. */
export const runnerFile: string = path.join(harnessDir, "program-runner.ts");

/** A file from which the harness's own dev tools (`typescript`) are resolved. */
export const toolsRequireBase: string = path.join(repoRoot, "package.json");
