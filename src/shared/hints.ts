/**
 * Where the API key comes from, added to the errors that say it was refused: the same in the
 * provider host (its handlers) and in the program (lookups, `getJob`).
 */
import { ForbiddenError, UnauthorizedError } from "../client";
import { qualified } from "./settings";

/** " The key comes from workspace-access:apiKey (pulumi config set --secret ...) or WORKSPACE_ACCESS_API_KEY." */
export const keySourceHint = () =>
  ` The key comes from ${qualified("apiKey")} (pulumi config set --secret ${qualified("apiKey")} <key>) or WORKSPACE_ACCESS_API_KEY.`;

/**
 * Runs a provider operation, adding to 401/403 errors where the key comes from. Errors keep
 * their class and data; only the message gains the hint.
 */
export async function withHints<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
      error.message += keySourceHint();
    }
    throw error;
  }
}
