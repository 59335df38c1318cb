import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Four tiers, each runnable alone; `npm test` runs them all. Two layers: the handlers in-process
 * (unit), and deployments through the real `pulumi` CLI (cli, load); no engine imitation.
 * - unit (`npm run test:unit`): in-process against the emulator on loopback; no process is
 *   started (test/support/no-spawn.ts makes sure) and no real time is waited for (virtual clocks).
 * - host (`npm run test:host`): the package as installed: npm pack, npm install, tsc, its commands.
 * - load (`npm run test:load`): the long runs of 1,000 resources through the CLI (one file).
 * - cli (`npm run test:cli`): deployments through the real `pulumi` CLI, skipped by name without one.
 *
 * No project sets `fileParallelism: false`: vitest applies it to the whole run, which then runs
 * every file of every tier one after another.
 */
/**
 * The compile cache the tests' programs and provider hosts share (`NODE_COMPILE_CACHE` below). Each run adds the entries
 * of the packages it installs into new temporary projects (about 150 MB a run), which no later run reads: past
 * {@link COMPILE_CACHE_MAX_BYTES} the folder is moved aside before the run (one rename: a run started beside this one,
 * as CI's Node 22 phase starts two, writes on into the folder it has, or a new one) and deleted in the background.
 * Nothing here fails a run: a cache is only a cache.
 */
const COMPILE_CACHE = path.join(os.tmpdir(), "node-compile-cache");
const COMPILE_CACHE_MAX_BYTES = 512 * 1024 * 1024;
function boundedCompileCache(dir: string): string {
  try {
    let bytes = 0;
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0;
    }
    if (bytes > COMPILE_CACHE_MAX_BYTES) fs.renameSync(dir, `${dir}.old-${process.pid}-${Date.now()}`);
  } catch {
    // None yet, or another run moved it first.
  }
  // Folders moved aside, by this run or by one that ended before its deletion did.
  const parent = path.dirname(dir);
  for (const name of fs.readdirSync(parent).filter((n) => n.startsWith(`${path.basename(dir)}.old-`))) {
    fs.rm(path.join(parent, name), { recursive: true, force: true }, () => {});
  }
  return dir;
}

/**
 * The files that take longest (each over a minute on the 2-core machine, longest first as CI
 * measured them on 2026-11-28): started first, so that none of them is left running alone at the
 * end (rate-memory, unlisted, started last and ran alone for its last 80 s). A fresh clone (CI) has
 * no timings to sort by.
 */
const LONGEST = [
  "test/reliability/integration-members.test.ts",
  "test/reliability/populated-workspace.test.ts",
  "test/load/",
  "test/reliability/rate-memory.test.ts",
  "test/package/examples.test.ts",
  "test/reliability/batched-invitations.test.ts",
  "test/reliability/secrets.test.ts",
  "test/cli/fleet.test.ts",
  "test/cli/preview-checks.test.ts",
  "test/reliability/faults-entitlements.test.ts",
  "test/reliability/faults-users.test.ts",
  "test/package/consumer-types.test.ts",
  "test/cli/examples.test.ts",
  "test/cli/lookups.test.ts",
  "test/cli/full-cycle.test.ts",
  "test/cli/export.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = LONGEST.findIndex((prefix) => spec.moduleId.includes(prefix));
      return i < 0 ? LONGEST.length : i;
    };
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

const UNIT = [
  "test/architecture.test.ts",
  "test/client/**/*.test.ts",
  "test/conformance/**/*.test.ts",
  "test/emulator/**/*.test.ts",
  "test/export/**/*.test.ts",
  "test/fleet/**/*.test.ts",
  "test/host/**/*.test.ts",
  "test/program/**/*.test.ts",
  "test/shared/**/*.test.ts",
];
/**
 * Unit files that need a process of their own (the rest of the tier shares its workers, below): module mocks of
 * `node:fs`, `node:child_process` and the Automation API. (test/client/retry-policy.test.ts sets `process.env.TZ` and
 * shares a worker: it fails, saying its zone is not in force, if a file before it replaced `process.env` with a copy,
 * which no longer reaches the process's time zone.)
 */
const UNIT_OWN_PROCESS = ["test/fleet/run.test.ts"];
const LOAD = ["test/load/**/*.test.ts"];
/** In test/reliability but need no CLI: a FIFO in the cache folder, writers in other processes (processes: not in the unit tier). */
const HOST_ONLY = ["rate-memory-special-files.test.ts", "rate-memory-processes.test.ts"];
/** The real `pulumi` CLI (`npm run pulumi-cli` builds it); skipped, by name, where there is none. */
const CLI = [
  "test/cli/**/*.test.ts",
  "test/perf/**/*.test.ts",
  ...fs
    .readdirSync("test/reliability")
    .filter((file) => file.endsWith(".test.ts") && !HOST_ONLY.includes(file))
    .map((file) => `test/reliability/${file}`),
];

export default defineConfig({
  test: {
    pool: "forks",
    // Learnt rate limits are remembered per base URL in the user's cache folder (docs/rate-limits.md).
    // Not in tests, for every tier: the test workers, and the programs and provider hosts they start
    // (they inherit this environment), never touch the user's cache; and emulators reuse loopback
    // ports, so a limit one test's emulator taught would pace another's. Tests of the feature give
    // their own temporary folder (test/client/rate-memory.test.ts, test/reliability/rate-memory.test.ts).
    // The CLI runs of the tests (never the bench's, which runs as users do) skip two fixed costs:
    // - PULUMI_SKIP_CHECKPOINTS: the file backend writes the whole checkpoint after each step (300
    //   User creates: 26 CPU-s, 9 with it; their destroy 10, 2); the state after an operation is the
    //   same (the load and export tests set it already). test/cli/interrupts.test.ts, which ends a
    //   `pulumi up` abruptly, keeps the checkpoints.
    // - NODE_COMPILE_CACHE: programs and provider hosts compile @pulumi/pulumi and ts-node from
    //   cached code from their first module on (the host's own switch comes after those).
    // - PULUMI_NODEJS_TRANSPILE_ONLY: ts-node runs a test's `index.ts` without type-checking it
    //   (about 15 % of a CLI test's time); the published declarations are type-checked by
    //   test/package/consumer-types.test.ts, and the README's quickstart runs as users do.
    // - WA_TEST_STACK_SECRETS: the test stacks' secrets go through a key service on loopback
    //   (test/support/vault.ts) instead of a passphrase, whose million PBKDF2 rounds cost about
    //   0.25 CPU-s in every CLI command that opens a stack; the encryption in config and state is
    //   the same. Tests about secrets, the README's flows and the examples keep the passphrase.
    env: {
      WORKSPACE_ACCESS_CACHE_DIR: "off",
      PULUMI_SKIP_CHECKPOINTS: "true",
      NODE_COMPILE_CACHE: boundedCompileCache(COMPILE_CACHE),
      PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      WA_TEST_STACK_SECRETS: process.env["WA_TEST_STACK_SECRETS"] ?? "vault",
    },
    // Four at a time: the CLI and host tiers mostly wait on the processes they start (the host, programs,
    // npm, tsc) and on the emulator's jobs and rate limits. A fresh clone's CI on 2 cores, one after the
    // other (2026-11-30): 14 min 58 s with three, 13 min 24 s with four; five were slower still (2026-12-02: the Node 24
    // tier 873 s against 810 s with four). Vitest's default is one less than the cores.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      // The unit tier's files run one after another in each worker's one process (`isolate: false`): a fresh process
      // per file spent more time importing than testing (66 s for the tier on 2 cores, 28 s shared). What a file
      // changes in the process is undone when it ends (test/support/shared-worker.ts); the files that need more have a
      // process each, as every other tier's files do (unit-own-process; `npm run test:unit` runs both).
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          exclude: ["**/node_modules/**", ...UNIT_OWN_PROCESS],
          isolate: false,
          setupFiles: ["test/support/no-spawn.ts", "test/support/shared-worker.ts"],
          testTimeout: 20_000,
        },
      },
      {
        extends: true,
        test: { name: "unit-own-process", include: UNIT_OWN_PROCESS, setupFiles: ["test/support/no-spawn.ts"], testTimeout: 20_000 },
      },
      {
        extends: true,
        test: {
          name: "host",
          include: ["test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...UNIT, ...LOAD, ...CLI],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: { name: "load", include: LOAD, testTimeout: 900_000, hookTimeout: 120_000 },
      },
      {
        extends: true,
        test: { name: "cli", include: CLI, testTimeout: 300_000, hookTimeout: 300_000 },
      },
    ],
  },
});
