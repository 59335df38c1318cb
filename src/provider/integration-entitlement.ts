export { provider } from "../resources/integration-entitlement-provider";
