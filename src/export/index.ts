/**
 * `pulumi-workspace-access/export`: a live workspace as a Pulumi project whose first `pulumi up`
 * changes nothing, and an access review against it. The same as the `workspace-access-export`
 * command; see `docs/export.md`.
 *
 * ```ts
 * import { exportWorkspace, checkWorkspace } from "pulumi-workspace-access/export";
 * await exportWorkspace({ out: "access", baseUrl: "https://acme.example.com/api/v1/" }); // key: WORKSPACE_ACCESS_API_KEY
 * const { changes } = await checkWorkspace({ out: "access" });
 * ```
 *
 * A generated program only reads its data file ({@link readAccessFile}): loading this entry point
 * loads neither the client nor zod, which the two functions load when called.
 */
import "../supported-node";
import type { CheckOptions, CheckResult, ExportOptions, ExportResult } from "./run";

export {
  type AccessData,
  type AccessFile,
  AccessFileError,
  type AccessIntegration,
  type AccessLeftOut,
  type AccessMember,
  type AccessMembership,
  type AccessScope,
  type AccessUser,
  formatAccessFile,
  type MembershipRole,
  parseAccessFile,
  readAccessFile,
} from "./access-file";
export type { LeftOut } from "./build";
export type { AccessChange } from "./check";
export { ExportError } from "./errors";
export type { CheckOptions, CheckResult, ExportOptions, ExportProgress, ExportResult } from "./run";

const run = () => require("./run") as typeof import("./run");

/**
 * Writes the workspace as a Pulumi TypeScript project into `options.out` (new or empty): its
 * users and memberships in `access.yaml`, and an `index.ts` that adopts each of them. The key
 * comes from `WORKSPACE_ACCESS_API_KEY` only. Records the project could not declare are left
 * out, listed in the result's `leftOut` and recorded under `leftOut` in `access.yaml`.
 */
export function exportWorkspace(options: ExportOptions): Promise<ExportResult> {
  return run().runExport(options);
}

/**
 * Compares the workspace with the `access.yaml` of an exported project (`options.out`): who
 * gained or lost which access since, every attribute the project declares, and the records
 * left out since (or no longer left out). Sends only reads; changes nothing.
 */
export function checkWorkspace(options: CheckOptions): Promise<CheckResult> {
  return run().runCheck(options);
}
