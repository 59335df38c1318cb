/** Where the repository is, for tests and benches that start processes or read its files. */
import * as path from "node:path";
import { fileURLToPath } from "node:url";

// Node runs these files as ES modules (syntax detection; `node` strips the types), while tsc
// models `.ts` files of this package as CommonJS because package.json has no "type" field.
// @ts-expect-error TS1470: `import.meta` is real at run time, under plain node and vitest alike.
const moduleUrl: string = import.meta.url;

/** The repository root (holds the `node_modules` that linked projects point into). */
export const repoRoot: string = path.resolve(path.dirname(fileURLToPath(moduleUrl)), "..", "..");
