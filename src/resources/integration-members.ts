/**
 * Moved to `src/program/integration-members.ts`: this re-export keeps the modules not moved yet (the IntegrationMembers provider, for its state types) compiling
 * unchanged. TODO(lead): point their imports at the new place and delete this file.
 */
export * from "../program/integration-members";
