/**
 * What Pulumi stores as `__provider` in every resource's state, and the type tokens the engine routes to the Node.js
 * dynamic-provider host. Instead of the closure serializer's output, one line that loads this package's provider
 * module by name from the program's own `node_modules`: nothing is captured (no client, settings or credential).
 */

/** The package name, as programs install it. */
const PACKAGE_NAME = "pulumi-workspace-access";

/** The module of the type tokens: `pulumi-nodejs:dynamic/workspace-access:User`. */
const TYPE_MODULE = "workspace-access";

/** The `__provider` source for a provider module exported as `<package>/provider/<name>`. */
export function serializedProvider(name: "user" | "integration-entitlement" | "integration-members" | "workspace-users"): string {
  return `exports.handler = () => require(${JSON.stringify(`${PACKAGE_NAME}/provider/${name}`)}).provider;\n`;
}

/** The type token of a dynamic resource, as `pulumi.dynamic.Resource` builds it. */
export function dynamicType(type: string): string {
  return `pulumi-nodejs:dynamic/${TYPE_MODULE}:${type}`;
}
