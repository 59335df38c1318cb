export { provider } from "../resources/user-provider";
