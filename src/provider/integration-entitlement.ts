/** What the dynamic-provider host loads for an {@link IntegrationEntitlement}, named by the resource's one-line `__provider`. */
import "../supported-node";
import "./host-start";

export { provider } from "../host/entitlement/integration-entitlement-provider";
