/**
 * Moved to `src/host/provider-runtime.ts`: this re-export keeps the modules not moved yet (the CRUD
 * providers, the catalogue, the lookups) compiling unchanged. TODO(lead): point their imports at the
 * new place and delete this file.
 */
export * from "../host/provider-runtime";
