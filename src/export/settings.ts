/**
 * Where the export reads from, and with which key: the key from `WORKSPACE_ACCESS_API_KEY` only
 * (never a flag: it would stay in the shell's history), the address from `--base-url`, else the
 * same environment variables the provider falls back to (`WORKSPACE_ACCESS_BASE_URL`, or
 * `WORKSPACE_ACCESS_WORKSPACE` and `WORKSPACE_ACCESS_HOST`). Messages name the variable or flag
 * to set, never the key.
 */
import { ConfigurationError } from "../client/errors";
import { parseBaseUrl } from "../client/settings";
import { CONFIG_KEYS, readRawSettings, resolveProviderSettings } from "../shared/settings";
import { ExportError, SCOPES_NEEDED } from "./errors";

/** The environment variables the export reads. */
export const ENV = {
  apiKey: CONFIG_KEYS.apiKey,
  baseUrl: CONFIG_KEYS.baseUrl,
  workspace: CONFIG_KEYS.workspace,
  host: CONFIG_KEYS.host,
} as const;

/**
 * The key and the address, checked. `recorded`: the address the checked project's `access.yaml`
 * records (`--check`), used when neither the flag nor the environment gives one; one given that
 * differs from it wins (the check says which it read).
 */
export function exportConnection(
  baseUrlFlag: string | undefined,
  env: Record<string, string | undefined>,
  recorded?: { baseUrl: string | undefined; file: string },
): { apiKey: string; baseUrl: string } {
  const apiKey = env[ENV.apiKey]?.trim();
  if (!apiKey) {
    throw new ExportError(
      `No API key: set ${ENV.apiKey} to a key of the workspace with the scopes ${SCOPES_NEEDED}. ` +
        "The key is read from the environment only, never from a flag, so that it stays out of the shell's history.",
    );
  }
  if (baseUrlFlag !== undefined) return { apiKey, baseUrl: parseBaseUrl(baseUrlFlag, "--base-url").href };
  const raw = readRawSettings(() => undefined, env as NodeJS.ProcessEnv);
  if (!raw.baseUrl && !(raw.workspace && raw.host)) {
    if (recorded?.baseUrl !== undefined) return { apiKey, baseUrl: recordedAddress(recorded.baseUrl, recorded.file) };
    throw new ExportError(
      `No workspace address: pass --base-url https://<workspace>.<host>/api/v1/, or set ${ENV.baseUrl} (or ${ENV.workspace} and ${ENV.host})` +
        `${recorded ? ` (${recorded.file} records none)` : ""}.`,
    );
  }
  try {
    // The problems worded for the environment: the variables to set, not the stack config keys.
    return { apiKey, baseUrl: resolveProviderSettings(raw, "env").client.baseUrl.href };
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    throw new ExportError(error.message);
  }
}

/** The address `access.yaml` records, checked as a flag's would be. */
function recordedAddress(baseUrl: string, file: string): string {
  try {
    return parseBaseUrl(baseUrl, `the workspace ${file} records`).href;
  } catch (error) {
    if (!ConfigurationError.isInstance(error)) throw error;
    throw new ExportError(`${error.message}. Correct it in ${file}, or pass --base-url.`);
  }
}
