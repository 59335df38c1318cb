import * as pulumi from "@pulumi/pulumi";
import { type ProviderSettings, readRawSettings, resolveProviderSettings } from "../shared/settings";

/**
 * The settings the program's lookups and `getJob` use (stack config, environment fallback), checked before any
 * request: an unknown key (or a project named like the namespace), a missing or invalid setting throws, naming the fix.
 */
export function programSettings(env: NodeJS.ProcessEnv = process.env): ProviderSettings {
  const raw = readRawSettings((key) => pulumi.runtime.getConfig(key), env);
  return resolveProviderSettings(raw, "stack", {
    configuredKeys: Object.keys(pulumi.runtime.allConfig()),
    project: pulumi.runtime.getProject() || undefined,
  });
}
