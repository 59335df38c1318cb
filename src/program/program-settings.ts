import * as pulumi from "@pulumi/pulumi";
import type { Clock, WorkspaceAccessClient } from "../client";
import { keyRedactorOf } from "../shared/hide-secrets";
import type { KeySource } from "../shared/hints";
import {
  keySourceOf,
  type ProviderSettings,
  type RawSettings,
  readRawSettings,
  resolveProviderSettings,
  settingNamesOf,
} from "../shared/settings";

/** The settings' raw text as the program reads it: stack config, environment fallback. */
const programRaw = (): RawSettings => readRawSettings((key) => pulumi.runtime.getConfig(key), process.env);

/** Where the key the program's lookups and `getJob` send came from, for the hint a refused key gets. */
export const programKeySource = (): KeySource | undefined => keySourceOf(programRaw());

/** The key the program's lookups and `getJob` send, removed from a text (`keyRedactorOf`, the provider's too): for their failures. */
export const programRedactor = (): ((text: string) => string) => keyRedactorOf(programRaw());

/**
 * The settings the program's lookups and `getJob` use (stack config, environment fallback), checked before any
 * request: an unknown key (or a project named like the namespace), a missing or invalid setting throws, naming the fix.
 */
export function programSettings(): ProviderSettings {
  const raw = programRaw();
  return resolveProviderSettings(raw, "stack", {
    configuredKeys: Object.keys(pulumi.runtime.allConfig()),
    project: pulumi.runtime.getProject() || undefined,
  });
}

/**
 * The client the program's lookups and `getJob` send with: its errors name each setting where it was read, the stack config
 * key or the environment variable. Its module is loaded here, at the first of them (an `import()`, which vitest resolves
 * too): a program that only declares resources loads no zod or undici.
 */
export async function programClient(clock: Clock, settings: ProviderSettings = programSettings()): Promise<WorkspaceAccessClient> {
  const { WorkspaceAccessClient } = await import("../client/client.js");
  return new WorkspaceAccessClient({ ...settings.client, clock, ...settingNamesOf(programRaw()) });
}
