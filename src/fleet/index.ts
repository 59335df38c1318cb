/**
 * `pulumi-workspace-access/fleet`: one command over every stack of a stack-per-workspace project, as the
 * `workspace-access-fleet` command does; see `docs/fleet.md`.
 *
 * ```ts
 * import { runFleet, renderFleetReport, exitStatus } from "pulumi-workspace-access/fleet";
 * const report = await runFleet({ command: "up", cwd: "infra", parallel: 4 });
 * console.log(renderFleetReport(report, "markdown"));
 * process.exitCode = exitStatus(report);
 * ```
 */
import "../supported-node";

export { FORMATS as FLEET_FORMATS, type Format as FleetFormat, UsageError as FleetUsageError } from "../command-line";
export { renderFleetReport } from "./render";
export { type FleetOptions, runFleet } from "./run";
export {
  type ChangeCounts,
  type ChangedResource,
  exitStatus,
  FLEET_COMMANDS,
  type FleetCommand,
  type FleetReport,
  type StackReport,
  type StackResult,
} from "./types";
