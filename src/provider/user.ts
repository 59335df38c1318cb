/** What the dynamic-provider host loads for a {@link User}, named by the resource's one-line `__provider`. */
import "../supported-node";
import "./host-start";

export { provider } from "../host/user/user-provider";
