/** The package's folder in the user's cache folder (rate limits remembered between processes, `rate-memory.ts`). */
import * as os from "node:os";
import * as path from "node:path";

/** Where the remembered limits go: a folder, or empty, `off`, `false`, `0`, `none` for nowhere. */
export const CACHE_DIR_ENV = "WORKSPACE_ACCESS_CACHE_DIR";
const CACHE_FOLDER = "pulumi-workspace-access";

/**
 * The folder for the client option `cacheDir`: `false` or `""` is none; a path is that folder; unset, {@link CACHE_DIR_ENV}, else
 * {@link CACHE_FOLDER} in the user cache folder (`$XDG_CACHE_HOME` or `~/.cache`, `~/Library/Caches`, `%LOCALAPPDATA%`).
 */
export function cacheDirOf(
  option: string | false | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string | undefined = homeDir(),
): string | undefined {
  if (option === false || option === "") return undefined;
  if (option !== undefined) return path.resolve(option);
  const override = env[CACHE_DIR_ENV];
  if (override !== undefined) {
    const value = override.trim();
    return value === "" || /^(off|false|0|none)$/i.test(value) ? undefined : path.resolve(value);
  }
  // Relative values of these variables are invalid by their own specifications.
  const absolute = (value: string | undefined) => (value && path.isAbsolute(value) ? value : undefined);
  if (platform === "win32") {
    const base = absolute(env["LOCALAPPDATA"]) ?? (home ? path.join(home, "AppData", "Local") : undefined);
    return base && path.join(base, CACHE_FOLDER);
  }
  if (platform === "darwin") return home ? path.join(home, "Library", "Caches", CACHE_FOLDER) : undefined;
  const base = absolute(env["XDG_CACHE_HOME"]) ?? (home ? path.join(home, ".cache") : undefined);
  return base && path.join(base, CACHE_FOLDER);
}

/** The user's home folder; `undefined` (or empty) when there is none. */
function homeDir(): string | undefined {
  try {
    return os.homedir() || undefined;
  } catch {
    return undefined;
  }
}
