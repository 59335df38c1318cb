/**
 * Where the export reads from, and with which key: the key from `WORKSPACE_ACCESS_API_KEY` only
 * (never a flag: it would stay in the shell's history), the address from `--base-url`, else the
 * same environment variables the provider falls back to (`WORKSPACE_ACCESS_BASE_URL`, or
 * `WORKSPACE_ACCESS_WORKSPACE` and `WORKSPACE_ACCESS_HOST`). Messages name the variable or flag
 * to set, never the key.
 */
import { ConfigurationError } from "../client/errors";
import { parseBaseUrl } from "../client/settings";
import { CONFIG_KEYS, qualified, readRawSettings, resolveProviderSettings } from "../resources/settings";
import { ExportError, SCOPES_NEEDED } from "./errors";

/** The environment variables the export reads. */
export const ENV = {
  apiKey: CONFIG_KEYS.apiKey,
  baseUrl: CONFIG_KEYS.baseUrl,
  workspace: CONFIG_KEYS.workspace,
  host: CONFIG_KEYS.host,
} as const;

/** The key and the address, checked. */
export function exportConnection(
  baseUrlFlag: string | undefined,
  env: Record<string, string | undefined>,
): { apiKey: string; baseUrl: string } {
  const apiKey = env[ENV.apiKey]?.trim();
  if (!apiKey) {
    throw new ExportError(
      `No API key: set ${ENV.apiKey} to a key of the workspace with the scopes ${SCOPES_NEEDED}. The key is read from the environment only, never from a flag, so that it stays out of the shell's history.`,
    );
  }
  if (baseUrlFlag !== undefined) return { apiKey, baseUrl: parseBaseUrl(baseUrlFlag, "--base-url").href };
  const raw = readRawSettings(() => undefined, env as NodeJS.ProcessEnv);
  if (!raw.baseUrl && !(raw.workspace && raw.host)) {
    throw new ExportError(
      `No workspace address: pass --base-url https://<workspace>.<host>/api/v1/, or set ${ENV.baseUrl} (or ${ENV.workspace} and ${ENV.host}).`,
    );
  }
  try {
    return { apiKey, baseUrl: resolveProviderSettings(raw).client.baseUrl };
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    // The provider's messages name its stack config keys: here, the variables stand for them.
    let message = error.message.replace(/\.? Run: pulumi config set[\s\S]*$/, ".");
    for (const key of ["baseUrl", "workspace", "host"] as const) message = message.replaceAll(qualified(key), ENV[key]);
    throw new ExportError(message);
  }
}
