/**
 * Moved to `src/program/serialized-provider.ts`: this re-export keeps the tests that import it
 * here (test/reliability) compiling unchanged. TODO(lead): point them at the new place and delete this file.
 */
export * from "../program/serialized-provider";
