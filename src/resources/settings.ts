/**
 * Moved to `src/shared/settings.ts`: this re-export keeps the modules not moved yet (the lookups,
 * the export) compiling unchanged. TODO(lead): point their imports at the new place and delete this file.
 */
export * from "../shared/settings";
