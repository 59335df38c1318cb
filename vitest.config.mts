import { defineConfig } from "vitest/config";

/**
 * Three tiers, each runnable alone; `npm test` runs all three.
 * - unit (`npm run test:unit`): in-process against the emulator on loopback; no process is
 *   started (test/support/no-spawn.ts makes sure) and no real time is waited for (virtual clocks).
 * - host (`npm run test:host`): through the real dynamic-provider host, programs, npm and tsc.
 * - load (`npm run test:load`): the long runs of 1,000 resources through the host (one file).
 *
 * No project sets `fileParallelism: false`: vitest applies it to the whole run, which then runs
 * every file of every tier one after another.
 */
const UNIT = ["test/client/**/*.test.ts", "test/conformance/**/*.test.ts", "test/emulator/**/*.test.ts", "test/resources/**/*.test.ts"];
const LOAD = ["test/load/**/*.test.ts"];

export default defineConfig({
  test: {
    pool: "forks",
    projects: [
      {
        extends: true,
        test: { name: "unit", include: UNIT, setupFiles: ["test/support/no-spawn.ts"], testTimeout: 20_000 },
      },
      {
        extends: true,
        test: {
          name: "host",
          include: ["test/**/*.test.ts"],
          exclude: ["**/node_modules/**", ...UNIT, ...LOAD],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: { name: "load", include: LOAD, testTimeout: 900_000, hookTimeout: 120_000 },
      },
    ],
  },
});
