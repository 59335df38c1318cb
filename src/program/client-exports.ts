/**
 * The client's names the package's entry exports, each from its own small module, and `WorkspaceAccessClient`
 * loaded at its first use: a program that only declares resources never loads the request path (zod, undici).
 */
import type * as client from "../client/client";

export * from "../client/errors";
export { SCOPES } from "../client/scopes";
export type { ClientOptions, Entitlement, Integration, IntegrationUser, JobHandle, User, UserAttributes } from "../client";

/** The HTTP client of one workspace's API (src/client/client.ts), for programs that send requests of their own. */
export declare const WorkspaceAccessClient: typeof client.WorkspaceAccessClient;
/** The HTTP client of one workspace's API (src/client/client.ts), for programs that send requests of their own. */
export type WorkspaceAccessClient = client.WorkspaceAccessClient;
Object.defineProperty(exports, "WorkspaceAccessClient", {
  enumerable: true,
  get: () => (require("../client/client") as typeof client).WorkspaceAccessClient,
});
