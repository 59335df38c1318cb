/**
 * One client per export or check, closed after, and the service's errors completed with what a
 * person running the command should fix (the key's scopes, the address).
 */
import {
  type Clock,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  WorkspaceAccessClient,
} from "../client";
import { ExportError, SCOPES_NEEDED } from "./errors";
import { ENV } from "./settings";

/** Test seams: time and randomness of the client. */
export interface ExportDeps {
  clock?: Clock;
  random?: () => number;
}

/** Runs `work` with a client of the connection, closing it after, and adds what to fix to the service's errors. @internal */
export async function withClient<T>(
  connection: { apiKey: string; baseUrl: string },
  deps: ExportDeps,
  work: (client: WorkspaceAccessClient) => Promise<T>,
): Promise<T> {
  let client: WorkspaceAccessClient;
  try {
    client = new WorkspaceAccessClient({ ...connection, ...deps });
  } catch (error) {
    // The client names the key's setting `apiKey`: here it is the variable.
    if (error instanceof Error && error.message.startsWith("apiKey ")) throw new ExportError(`${ENV.apiKey}${error.message.slice(6)}`);
    throw error;
  }
  try {
    return await work(client);
  } catch (error) {
    throw withHint(error, connection.baseUrl);
  } finally {
    await client.close();
  }
}

/** The service's error, with the fix for a person running the export. */
function withHint(error: unknown, baseUrl: string): unknown {
  if (!(error instanceof Error)) return error;
  if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
    error.message += ` The export reads users and integrations: its key needs the scopes ${SCOPES_NEEDED}. The key comes from ${ENV.apiKey}.`;
  } else if (
    NotFoundError.isInstance(error) ||
    ConnectionError.isInstance(error) ||
    TimeoutError.isInstance(error) ||
    InvalidResponseError.isInstance(error)
  ) {
    const what =
      NotFoundError.isInstance(error) || InvalidResponseError.isInstance(error)
        ? "answered, but not as the workspace API"
        : "could not be reached";
    error.message +=
      ` Check the address: ${baseUrl} ${what}; ` +
      `it should be the workspace's API root, such as https://acme.example.com/api/v1/ (--base-url, or ${ENV.baseUrl}).`;
  }
  return error;
}
