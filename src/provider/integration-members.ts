/** What the dynamic-provider host loads for an {@link IntegrationMembers}, named by the resource's one-line `__provider`. */
import "../supported-node";
import "./host-start";

export { provider } from "../host/members/integration-members-provider";
