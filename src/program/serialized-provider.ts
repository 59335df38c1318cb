/**
 * What Pulumi stores as `__provider` in every resource's state, and the type tokens the engine
 * routes to the Node.js dynamic-provider host.
 *
 * `pulumi.dynamic.Resource` would serialize a provider object with the closure serializer; we
 * write the serialized form by hand instead: one line that loads this package's provider module
 * by name. The host runs it with `require-from-string` from the program's directory, so the module
 * resolves from the program's own `node_modules` (through this package's `exports` map). Nothing
 * from the program is captured: no client, no settings, no credential. The host reads those at
 * run time from the stack config (`configure`) or the environment.
 */

/** The package name, as programs install it. */
const PACKAGE_NAME = "pulumi-workspace-access";

/** The module of the type tokens: `pulumi-nodejs:dynamic/workspace-access:User`. */
const TYPE_MODULE = "workspace-access";

/** The `__provider` source for a provider module exported as `<package>/provider/<name>`. */
export function serializedProvider(name: "user" | "integration-entitlement" | "integration-members"): string {
  return `exports.handler = () => require(${JSON.stringify(`${PACKAGE_NAME}/provider/${name}`)}).provider;\n`;
}

/** The type token of a dynamic resource, as `pulumi.dynamic.Resource` builds it. */
export function dynamicType(type: string): string {
  return `pulumi-nodejs:dynamic/${TYPE_MODULE}:${type}`;
}
