/**
 * `pulumi-workspace-access/export`: a workspace as a Pulumi project whose first `pulumi up` changes nothing, and
 * an access review against it, as the `workspace-access-export` command does; see `docs/export.md`.
 *
 * ```ts
 * import { exportWorkspace, checkWorkspace } from "pulumi-workspace-access/export";
 * await exportWorkspace({ out: "access", baseUrl: "https://acme.example.com/api/v1/" }); // key: WORKSPACE_ACCESS_API_KEY
 * const { changes } = await checkWorkspace({ out: "access" }); // each: kind, side, user, integration, accessYaml, workspace, text
 * ```
 *
 * A generated program only reads its data file ({@link readAccessFile}); the two functions load the
 * export's reading and writing only when called.
 */
import "../supported-node";
import type { CheckOptions, CheckResult } from "./run-check";
import type { ExportOptions, ExportResult } from "./run";

export {
  type AccessData,
  type AccessFile,
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
export type { LeftOut } from "./build-left-out";
export type { Format as ReviewFormat } from "../command-line";
export { AccessFileError, ExportError } from "./errors";
export type { AccessDifference, DifferenceSide } from "./review/differences";
export type { ExportOptions, ExportResult } from "./run";
export type { CheckOptions, CheckResult } from "./run-check";
export type { ExportProgress } from "./snapshot";

/**
 * Writes the workspace as a Pulumi TypeScript project into `options.out` (new or empty): its users and memberships
 * in `access.yaml`, and an `index.ts` that adopts each. The key comes from `WORKSPACE_ACCESS_API_KEY` only. Records
 * the project could not declare are in the result's `leftOut`, and recorded under `leftOut` in `access.yaml`.
 */
export function exportWorkspace(options: ExportOptions): Promise<ExportResult> {
  return (require("./run") as typeof import("./run")).runExport(options);
}

/**
 * Compares the workspace with an exported project's `access.yaml` (`options.out`): each difference, by which side
 * holds what, of every attribute the project declares and of the records it cannot declare. Sends only reads;
 * changes nothing but `access.yaml`, and that only with `accept`. With no address given, it reads the one `access.yaml`
 * records only outside CI and once this machine's user has given it (to the export, say); else it refuses before any request.
 */
export function checkWorkspace(options: CheckOptions): Promise<CheckResult> {
  return (require("./run-check") as typeof import("./run-check")).runCheck(options);
}
