/** Where the API key comes from, added to the errors that say it was refused, in the host and in the program alike. */
import { ConfigurationError, ForbiddenError, UnauthorizedError } from "../client/errors";
import { CONFIG_KEYS, CONFIG_NAMESPACE, type KeySource, settingName } from "./settings";

export type { KeySource };

/** How every key hint begins: a message holding it is hinted already. */
const HINT_LEAD = " The key comes from ";

/**
 * " The key comes from workspace-access:apiKey (pulumi config set --secret ...)." for a stack's key, the variable for the
 * environment's: a key fixed in the other place would not be read. Both, when where it came from is not known.
 */
export function keySourceHint(from?: KeySource): string {
  const stack = `${settingName("apiKey", "stack")} (pulumi config set --secret ${settingName("apiKey", "stack")} <key>)`;
  if (from === "stack") return `${HINT_LEAD}${stack}.`;
  if (from === "env") return `${HINT_LEAD}the environment variable ${CONFIG_KEYS.apiKey} (the stack config sets no key).`;
  return `${HINT_LEAD}${stack} or ${CONFIG_KEYS.apiKey}.`;
}

/**
 * Runs a read, adding to a 401/403 error's message where the key comes from (class and data kept), and for a refresh's
 * (`refresh`, the default) what a refresh runs with. A class's static `get` is read in a preview or up, with the stack config now.
 */
export async function withHints<T>(read: () => Promise<T>, from?: KeySource, refresh = true): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw hinted(error, refresh, from);
  }
}

/** The error with the hint added when it is a 401/403 (for a caller that catches itself: one frame less on the way to the socket). */
export function hinted(error: unknown, refresh = false, from?: KeySource): unknown {
  if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
    // Calls that arrive together share one answer, so one error: each caller hints it, and each hint is said once.
    if (!error.message.includes(HINT_LEAD)) error.message += keySourceHint(from);
    // A refresh runs with the provider configuration the state holds, not the stack config now.
    if (refresh && !error.message.includes(REFRESH_HINT)) error.message += REFRESH_HINT;
  }
  return error;
}

/**
 * Said when a read (a `pulumi refresh`) is refused the key: after a key rotation, the state still holds the old one. The
 * fleet leaves it out of its reports: its refreshes run the program, with the stack config's key.
 */
export const REFRESH_HINT =
  " pulumi refresh uses the provider configuration recorded in the state at the last pulumi up, so after a key rotation it still sends the old key:" +
  " run pulumi up (or pulumi refresh --run-program) first, then refresh.";

/** A command the engine runs without the program (unless `--run-program`): with the provider configuration the state recorded. */
export type StateCommand = "refresh" | "destroy";

/**
 * Said when a setting of the stack config is refused in a `pulumi refresh` or `destroy`: without `--run-program` it runs with the
 * provider configuration the state recorded at the last `pulumi up`, so fixing the stack config alone does not reach it.
 */
export const stateSettingHint = (command: StateCommand): string =>
  ` Without --run-program, pulumi ${command} uses the provider configuration recorded in the state at the last pulumi up, not the ` +
  `stack config now: once the stack config is fixed, run pulumi ${command} --run-program (or pulumi up first).`;

/**
 * Said when a destroy is refused the key (a 401/403) that the stack config gave: after a key rotation, the state still holds
 * the old one. A refresh's read says {@link REFRESH_HINT}.
 */
export const DESTROY_HINT =
  " Without --run-program, pulumi destroy uses the provider configuration recorded in the state at the last pulumi up, so after a key" +
  " rotation it still sends the old key: run pulumi destroy --run-program (or pulumi up first).";

/**
 * Said of the records a destroy removed before it failed for others (a set's: `IntegrationMembers`, `WorkspaceUsers`): a
 * failed destroy records nothing, so the state keeps them, and an `up` before a refresh would take them for there.
 */
export const KEPT_UNTIL_REFRESH =
  "the state keeps until `pulumi refresh` (a failed destroy keeps the state): refresh before an `up`, or destroy again";

/**
 * The error of a `command`'s operation run where the configuration in force may be the state's: a refused setting of the stack
 * config says the fix reaches the command only with `--run-program` or after an `up` (one the environment gave is read now);
 * a destroy refused the stack's key (`from`), that the key sent may be the old one.
 */
export function stateHinted(error: unknown, command: StateCommand, from?: KeySource): unknown {
  if (ConfigurationError.isInstance(error) && error.setting.startsWith(`${CONFIG_NAMESPACE}:`)) {
    const hint = stateSettingHint(command);
    if (!error.message.includes(hint)) error.message = `${error.message.replace(/\.?$/, ".")}${hint}`;
  } else if (command === "destroy" && from !== "env" && error instanceof Error && (refused(error) || refused(error.cause))) {
    // A `WorkspaceUsers`' delete fails with its users' failures together, the first of them its cause.
    if (!error.message.includes(DESTROY_HINT)) error.message += DESTROY_HINT;
  }
  return error;
}

/** Whether `error` is the service refusing the key (a 401 or a 403). */
const refused = (error: unknown): boolean => UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error);
