/** Where the API key comes from, added to the errors that say it was refused, in the host and in the program alike. */
import { ForbiddenError, UnauthorizedError } from "../client/errors";
import { settingName } from "./settings";

/** " The key comes from workspace-access:apiKey (pulumi config set --secret ...) or WORKSPACE_ACCESS_API_KEY." */
export const keySourceHint = () =>
  ` The key comes from ${settingName("apiKey", "stack")} (pulumi config set --secret ${settingName("apiKey", "stack")} <key>) or WORKSPACE_ACCESS_API_KEY.`;

/** Runs a read (a refresh's), adding to a 401/403 error's message where the key comes from (class and data kept). */
export async function withHints<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw hinted(error, true);
  }
}

/** The error with the hint added when it is a 401/403 (for a caller that catches itself: one frame less on the way to the socket). */
export function hinted(error: unknown, refresh = false): unknown {
  if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
    // Calls that arrive together share one answer, so one error: each caller hints it, and each hint is said once.
    if (!error.message.includes(keySourceHint())) error.message += keySourceHint();
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
