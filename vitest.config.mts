import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The long load runs: `npm run test:load` (vitest.load.config.mts).
    exclude: ["**/node_modules/**", "test/load/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
