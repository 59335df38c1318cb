/** What the dynamic-provider host loads for a `WorkspaceUsers` (`pulumi-workspace-access/provider/workspace-users`). */
import "../supported-node";
import "./host-start";

export { provider } from "../host/users/workspace-users-provider";
