/**
 * Where the export reads from, and with which key: the key from `WORKSPACE_ACCESS_API_KEY` only (a flag would stay
 * in the shell's history), the address from `--base-url`, else the provider's environment variables (with `--check`,
 * else the one `access.yaml` records, though not in CI, and only once this machine's user has given it themselves:
 * `known-workspaces.ts`). One client per export or check, its errors completed with what to fix, naming the variable,
 * flag or file the address came from, never the key.
 */
import {
  type Clock,
  ConfigurationError,
  ConnectionError,
  ForbiddenError,
  InvalidResponseError,
  NotFoundError,
  TimeoutError,
  UnauthorizedError,
  WorkspaceAccessClient,
} from "../client";
import { describeScopes, SCOPES } from "../client/scopes";
import { type AddressParts, builtAddress, builtAddressFix, parseBaseUrl } from "../client/settings";
import { CONFIG_KEYS as ENV, NO_API_PATH, readRawSettings, resolveProviderSettings } from "../shared/settings";
import { ExportError } from "./errors";
import { closestKnown, type KnownWorkspaces } from "./known-workspaces";

const SCOPES_NEEDED = describeScopes([SCOPES.readUsers, SCOPES.readIntegrations]);

/**
 * The key and the API root an export reads with; `baseUrlFrom`: where the address was set, or could be given whole, as a
 * message names it (`--base-url`, `WORKSPACE_ACCESS_BASE_URL`, `the workspace access.yaml records`), the client's messages
 * too; `builtFrom`: the two variables the address was built from (`WORKSPACE_ACCESS_WORKSPACE`, `WORKSPACE_ACCESS_HOST`);
 * `recorded`: the address is the one `access.yaml` records, not one the user gave (and so not one to remember).
 */
export type Connection = { apiKey: string; baseUrl: string; baseUrlFrom: string; builtFrom?: AddressParts; recorded?: true };

/** Test seams: time and randomness of the client. */
export interface ExportDeps {
  clock?: Clock;
  random?: () => number;
}

/**
 * The key and the address, checked; `recorded`: the address `access.yaml` records, used when neither flag nor environment
 * gives one, but not in CI (`CI` set) and, outside it, only when `known` holds it. A branch's `access.yaml` would otherwise
 * choose where the key goes: a pull request's in CI, a colleague's or a stranger's on the reviewer's machine.
 */
export function exportConnection(
  baseUrlFlag: string | undefined,
  env: Record<string, string | undefined>,
  recorded?: { baseUrl: string | undefined; file: string; known: KnownWorkspaces },
): Connection {
  const apiKey = env[ENV.apiKey]?.trim();
  if (!apiKey) {
    throw new ExportError(
      `No API key: set ${ENV.apiKey} to a key of the workspace with the scopes ${SCOPES_NEEDED}. ` +
        "The key is read from the environment only, never from a flag, so that it stays out of the shell's history.",
    );
  }
  if (baseUrlFlag !== undefined) {
    return { apiKey, baseUrl: withApiPath(parseBaseUrl(baseUrlFlag, "--base-url"), "--base-url"), baseUrlFrom: "--base-url" };
  }
  const raw = readRawSettings(() => undefined, env as NodeJS.ProcessEnv);
  if (!raw.baseUrl && Boolean(raw.workspace) !== Boolean(raw.host)) {
    // One of the two set alone: the address it was meant to build must not give way, silently, to another (access.yaml's).
    const [given, missing] = raw.workspace ? [ENV.workspace, ENV.host] : [ENV.host, ENV.workspace];
    throw new ExportError(
      `${given} is set but ${missing} is not: the address is built from the two (https://<workspace>.<host>/api/v1/). ` +
        `Set ${missing} too, or set ${ENV.baseUrl} to the whole address, or pass --base-url.`,
    );
  }
  if (!raw.baseUrl && !(raw.workspace && raw.host)) {
    if (recorded?.baseUrl === undefined) {
      throw new ExportError(
        `No workspace address: pass --base-url https://<workspace>.<host>/api/v1/, or set ${ENV.baseUrl} (or ${ENV.workspace} and ${ENV.host})` +
          `${recorded ? ` (${recorded.file} records none)` : ""}.`,
      );
    }
    const where = `the workspace ${recorded.file} records`;
    if (inCi(env)) {
      // The change under review can edit access.yaml: the key must not go wherever it points (docs/ci.md).
      throw new ExportError(
        `${recorded.file} records the workspace ${recorded.baseUrl}, but CI is set: in CI the key goes only to an address the CI's ` +
          `own settings give, since the change under review can edit ${recorded.file}. Set ${ENV.baseUrl} (or ${ENV.workspace} and ` +
          `${ENV.host}) beside ${ENV.apiKey} in the CI's settings, or pass --base-url.`,
      );
    }
    const fix = `. Correct it in ${recorded.file}, or pass --base-url.`;
    const baseUrl = asExportError(() => withApiPath(parseBaseUrl(recorded.baseUrl!, where), `the address ${recorded.file} records`, fix));
    refuseUnknown(baseUrl, recorded.file, recorded.known);
    return { apiKey, baseUrl, baseUrlFrom: where, recorded: true };
  }
  // The problems worded for the environment: the variables to set, not the stack config keys.
  const baseUrl = asExportError(() => resolveProviderSettings(raw, "env").client.baseUrl.href);
  if (raw.baseUrl) return { apiKey, baseUrl, baseUrlFrom: ENV.baseUrl };
  return { apiKey, baseUrl, baseUrlFrom: ENV.baseUrl, builtFrom: { workspace: ENV.workspace, host: ENV.host } };
}

/**
 * Refuses the address `file` records unless this machine's user gave it before (`known`): whoever wrote the branch chose
 * it, and the key would go there. Given once (`--base-url` or the environment), it is remembered; the refusal says why
 * nothing could be (no cache folder to trust, a list not read), and names the closest address given, a look-alike's twin.
 */
function refuseUnknown(baseUrl: string, file: string, known: KnownWorkspaces): void {
  if (known.file !== undefined && known.addresses.has(baseUrl)) return;
  const branch = `A branch (a colleague's, a pull request) can edit ${file} to point anywhere`;
  const environment = `or set ${ENV.baseUrl} (or ${ENV.workspace} and ${ENV.host})`;
  if (known.file === undefined || known.unread !== undefined) {
    throw new ExportError(
      `${file} records the workspace ${baseUrl}, and no address you gave before is remembered: ` +
        `${known.file === undefined ? known.why : known.unread}. ${branch}, ` +
        `so the key goes only to an address given now. If it is the workspace you mean, pass --base-url ${baseUrl}, ${environment}.`,
    );
  }
  const closest = closestKnown(known.addresses, baseUrl);
  throw new ExportError(
    `${file} records the workspace ${baseUrl}, which you have not given this command on this machine yourself` +
      `${closest === undefined ? "" : ` (the addresses you gave before include ${closest}; compare them)`}. ${branch}, ` +
      "so the key goes to the address it records only once you have given that address. If it is the workspace you mean, " +
      `pass --base-url ${baseUrl} once (it is then remembered, in ${known.file}), ${environment}.`,
  );
}

/**
 * The address, refused as the provider's settings refuse it when it is the workspace's origin alone (`NO_API_PATH`): every
 * request would answer 404.
 */
function withApiPath(url: URL, name: string, fix = ""): string {
  if (url.pathname === "/") throw new ExportError(`${name} ${NO_API_PATH}${fix}`);
  return url.href;
}

/** Whether `CI` is set as CI services set it (`true`, `1`, a name): not empty, `0` or `false`. */
function inCi(env: Record<string, string | undefined>): boolean {
  const ci = env["CI"]?.trim().toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "0" && ci !== "false";
}

/** `read()`, its settings problem an {@link ExportError} (with `fix` after the message). */
function asExportError<T>(read: () => T, fix = ""): T {
  try {
    return read();
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    throw new ExportError(`${error.message}${fix}`);
  }
}

/**
 * Runs `work` with a client of the connection, closing it after, and adds what to fix to the service's errors: the address
 * only until `work` calls `answered` (the service has answered as the workspace API: a later 404 is not the address's). The
 * client's own messages name the key's variable and where the address came from, as it is told to name its settings.
 * @internal
 */
export async function withClient<T>(
  connection: Connection,
  deps: ExportDeps,
  work: (client: WorkspaceAccessClient, answered: () => void) => Promise<T>,
): Promise<T> {
  const { apiKey, baseUrl, baseUrlFrom, builtFrom } = connection;
  // An address built from the workspace and the host is named as those two, and the variable giving it whole as the other fix.
  const names = new Map([
    ["apiKey", ENV.apiKey],
    ["baseUrl", baseUrlFrom],
  ]);
  // The key and the address are all an export's user sets: the client's other settings (maxRetries, …) go unnamed.
  const client = new WorkspaceAccessClient({
    apiKey,
    baseUrl,
    ...deps,
    settingName: (key) => names.get(key),
    ...(builtFrom && { addressBuiltFrom: builtFrom }),
  });
  let reached = false;
  try {
    return await work(client, () => {
      reached = true;
    });
  } catch (error) {
    if (UnauthorizedError.isInstance(error) || ForbiddenError.isInstance(error)) {
      error.message += ` The export reads users and integrations: its key needs the scopes ${SCOPES_NEEDED}. The key comes from ${ENV.apiKey}.`;
    } else if (reached) {
      // The address answered as the workspace API already: a later error is the service's, not the address's.
    } else if (NotFoundError.isInstance(error) || InvalidResponseError.isInstance(error)) {
      error.message += addressHint(connection, "answered, but not as the workspace API");
    } else if (ConnectionError.isInstance(error) || TimeoutError.isInstance(error)) {
      error.message += addressHint(connection, "could not be reached");
    }
    throw error;
  } finally {
    await client.close();
  }
}

/**
 * What to check when the address is at fault, naming where it came from: built from the workspace and the host (neither a
 * URL), the URL built, both to check, or the variable giving it whole, as the client words it.
 */
const addressHint = ({ baseUrl, baseUrlFrom, builtFrom }: Connection, what: string) =>
  builtFrom
    ? ` ${baseUrl}, ${builtAddress(builtFrom)}, ${what}: ${builtAddressFix(baseUrlFrom)}.`
    : ` Check the address (${baseUrlFrom}): ${baseUrl} ${what}; it should be the workspace's API root, such as https://acme.example.com/api/v1/.`;
