/**
 * What Pulumi stores as `__provider` in every resource's state: instead of the closure serializer's output, one line that
 * loads this package's provider module by name from the program's own `node_modules`, so nothing is captured.
 */

/** The `__provider` source for a provider module exported as `pulumi-workspace-access/provider/<name>`. */
export function serializedProvider(name: "user" | "integration-entitlement" | "integration-members" | "workspace-users"): string {
  return `exports.handler = () => require("pulumi-workspace-access/provider/${name}").provider;\n`;
}

/** The type token the engine routes to the Node.js dynamic-provider host, as `pulumi.dynamic.Resource` builds it. */
export function dynamicType(type: string): string {
  return `pulumi-nodejs:dynamic/workspace-access:${type}`;
}
