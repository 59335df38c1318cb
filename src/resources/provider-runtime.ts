/**
 * State of one provider process: the stack config given to `configure`, and one client built
 * from it on first use and reused by every call. `configure` never throws (the host caches the
 * provider before calling it and never retries): settings are validated when a request needs
 * them, so a bad setting fails that request with a message naming the key and the fix, and
 * `check` reports the same problems (and unknown keys) before anything is sent: see {@link settingsFailures}.
 */
import type * as pulumi from "@pulumi/pulumi";
import { type Clock, ForbiddenError, systemClock, UnauthorizedError, WorkspaceAccessClient } from "../client";
import { InviteBatcher } from "./invite-batcher";
import { ReadCache } from "./read-cache";
import type { CheckFailure } from "./inputs";
import { type ProviderSettings, qualified, type RawSettings, readRawSettings, resolveProviderSettings, settingsProblems } from "./settings";

let raw: RawSettings | undefined;
/** Time for retries, rate-limit waits, job polls and the read cache; tests put a virtual clock here. */
let clock: Clock = systemClock;
/** Every key of the stack config, as `configure` was given it. */
let configuredKeys: string[] = [];
/** The project's name, as the host knows it (its own keys share the namespace when it is `workspace-access`). */
let project: string | undefined;
/** The failures of the settings in force, worked out once per `configure` (every `check` asks). */
let failures: { of: RawSettings; failures: CheckFailure[] } | undefined;
let current: { fingerprint: string; client: WorkspaceAccessClient; cache: ReadCache; invites: InviteBatcher } | undefined;

/** The provider's `configure` hook: remembers the stack config; validation happens per request. */
export async function configure(req: pulumi.dynamic.ConfigureRequest): Promise<void> {
  raw = readRawSettings((key) => req.config.get(key), process.env);
  configuredKeys = stackConfigKeys(req.config);
  project = projectOf(req.config, process.env);
}

/**
 * The project's name: the host's `Config` keeps it in `projectName` (it qualifies keys with it);
 * its public type does not show it, so the engine's environment for the host is asked too.
 */
export function projectOf(config: pulumi.dynamic.Config, env: NodeJS.ProcessEnv): string | undefined {
  const name = (config as { projectName?: unknown }).projectName;
  if (typeof name === "string" && name !== "") return name;
  return env["PULUMI_NODEJS_PROJECT"] || env["PULUMI_PROJECT"] || undefined;
}

/**
 * The keys of the stack config. The host's `Config` keeps them in `rawConfig` (every key the engine
 * sends a dynamic provider); its public type offers only `get`, so without that field no key is
 * known and only the keys the package reads are checked.
 */
function stackConfigKeys(config: pulumi.dynamic.Config): string[] {
  const all = (config as { rawConfig?: unknown }).rawConfig;
  return all && typeof all === "object" ? Object.keys(all) : [];
}

/**
 * For `check`: a failure for each unknown `workspace-access:*` key (naming the closest known one)
 * and for a missing or invalid setting (with the command that fixes it), so `pulumi preview` fails
 * on them without a request, as the first request of `up` would. The host always configures a
 * provider before its first call; unconfigured (a unit test) there is no stack config to check.
 */
export function settingsFailures(): CheckFailure[] {
  if (!raw) return [];
  if (failures?.of !== raw) {
    failures = { of: raw, failures: settingsProblems(configuredKeys, raw, project).map((reason) => ({ property: "", reason })) };
  }
  // A copy: callers add their own failures to it.
  return [...failures.failures];
}

/** The settings in force: stack config from `configure`, else the environment alone. */
function settings(): ProviderSettings {
  return resolveProviderSettings(raw ?? readRawSettings(() => undefined, process.env));
}

/** The client (and its read cache and invitation batches) for the settings in force, created once and reused. */
export function connection(): { client: WorkspaceAccessClient; cache: ReadCache; invites: InviteBatcher } {
  const resolved = settings();
  const fingerprint = JSON.stringify(resolved);
  if (current?.fingerprint !== fingerprint) {
    void current?.client.close();
    const client = new WorkspaceAccessClient({ ...resolved.client, clock, settingPrefix: "workspace-access:" });
    current = {
      fingerprint,
      client,
      cache: new ReadCache(client, resolved.readCacheSeconds * 1000, clock),
      invites: new InviteBatcher(client, clock),
    };
  }
  return { client: current.client, cache: current.cache, invites: current.invites };
}

/** Forgets the config, the client and any clock set by {@link useClock} (tests configure many times in one process). */
export function resetRuntime(): void {
  void current?.client.close();
  current = undefined;
  raw = undefined;
  configuredKeys = [];
  project = undefined;
  failures = undefined;
  clock = systemClock;
}

/** The clock in force: the wall clock, or a test's (see {@link useClock}). The data sources use it too. */
export function currentClock(): Clock {
  return clock;
}

/** Runs the provider on `next` instead of the wall clock: a test seam, never used by the host. */
export function useClock(next: Clock): void {
  clock = next;
  void current?.client.close();
  current = undefined;
}

/**
 * Runs a provider operation, adding to 401/403 errors where the key comes from. Errors keep
 * their class and data; only the message gains the hint.
 */
export async function withHints<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
      error.message += ` The key comes from ${qualified("apiKey")} (pulumi config set --secret ${qualified("apiKey")} <key>) or WORKSPACE_ACCESS_API_KEY.`;
    }
    throw error;
  }
}

/**
 * {@link withHints} for an operation that writes: afterwards, whether it succeeded or not (a write
 * whose job failed to finish in time may still land), the cached lists it may have changed are
 * forgotten. With an integration id, the users and that integration's members; without, every list.
 * With a user id too, that membership is read again by a later create (see `member-lookup.ts`).
 */
export async function withWrite<T>(operation: () => Promise<T>, integrationId?: string, userId?: string): Promise<T> {
  try {
    return await withHints(operation);
  } finally {
    current?.cache.invalidate(integrationId, userId);
  }
}
