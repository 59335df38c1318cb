/**
 * The settings as the user's program sees them (for lookups and `getJob`): the stack config through
 * Pulumi's runtime, the environment as fallback, and the project's name, so that a project named like
 * the settings' namespace is told to rename itself rather than to delete its own keys.
 */
import * as pulumi from "@pulumi/pulumi";
import { type ProviderSettings, readRawSettings, resolveProviderSettings } from "../shared/settings";

/**
 * The settings in force, checked before any request: an unknown `workspace-access:*` key, a
 * missing or invalid setting throws a `ConfigurationError` naming the key and the fix.
 */
export function programSettings(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const raw = readRawSettings((key) => pulumi.runtime.getConfig(key), env);
  return resolveProviderSettings(raw, "stack", {
    configuredKeys: Object.keys(pulumi.runtime.allConfig()),
    project: pulumi.runtime.getProject() || undefined,
  });
}
