import { defineConfig } from "vitest/config";

// `npm run test:load`: the long runs through the dynamic-provider host (test/load/), kept out of `npm test`.
export default defineConfig({
  test: {
    include: ["test/load/**/*.test.ts"],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
  },
});
