/**
 * The workspaces this machine's user gave the export or `--check` themselves (`--base-url`, the environment), remembered in
 * the package's cache folder: outside CI, `--check` sends the key to the address `access.yaml` records only when it is one
 * of them, since a branch (a colleague's, a stranger's pull request) can write any address there. Trust on first use, as
 * SSH's known hosts. Addresses only, each in its one form (the form `access.yaml`'s is compared in); never the key, nor
 * anything derived from it. A file unreadable or malformed is taken as empty (the address is asked for again) and replaced
 * when an address is next given; two processes remembering at once may lose one's address, which is then asked for again.
 */
import * as path from "node:path";
import { CACHE_DIR_ENV, cacheDirOf } from "../client/cache-dir";
import { readCacheFile, replaceCacheFile } from "../client/cache-file";
import { readBaseUrl } from "../client/settings";

/** The file, in the cache folder. */
export const KNOWN_WORKSPACES_FILE = "known-workspaces.json";
/** The file's format; another version is taken as empty (and replaced when an address is next given). */
const VERSION = 1;
/** Addresses kept at most, the most recently given: emulators on ever new ports must not grow the file. */
const MAX_ENTRIES = 100;
/** A file larger than this is not ours (or is broken): taken as empty rather than parsed. */
const MAX_FILE_BYTES = 64 * 1024;

/**
 * The addresses remembered and the file that holds them; or, with no cache folder, none and why (`why`: the setting that
 * turned it off, or that none could be found), for the refusal to say.
 */
export type KnownWorkspaces = { file: string; addresses: ReadonlySet<string> } | { file: undefined; why: string };

/** The addresses remembered in the cache folder (the client's: {@link CACHE_DIR_ENV} of `env`, else the user's). Never throws. */
export async function knownWorkspaces(env: NodeJS.ProcessEnv = process.env): Promise<KnownWorkspaces> {
  const dir = cacheDirOf(undefined, env);
  if (dir === undefined) return { file: undefined, why: noCacheFolder(env) };
  const file = path.join(dir, KNOWN_WORKSPACES_FILE);
  return { file, addresses: new Set(await readAddresses(file)) };
}

/** Remembers `baseUrl` (in its one form), given by the user, as the most recent; nothing without a cache folder. Never throws. */
export async function rememberWorkspace(baseUrl: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const dir = cacheDirOf(undefined, env);
  if (dir === undefined) return;
  const file = path.join(dir, KNOWN_WORKSPACES_FILE);
  const addresses = await readAddresses(file);
  // Given again as the most recent already: nothing to write (a check run with --base-url each time writes once).
  if (addresses.at(-1) === baseUrl) return;
  const kept = [...addresses.filter((a) => a !== baseUrl), baseUrl].slice(-MAX_ENTRIES);
  let text = format(kept);
  // The oldest go first until the file is one a read takes (only addresses thousands of characters long need it).
  while (Buffer.byteLength(text) > MAX_FILE_BYTES && kept.length > 1) {
    kept.shift();
    text = format(kept);
  }
  // Not written (a folder in the way, no permission): the address is asked for again, as if the cache folder were off.
  await replaceCacheFile(dir, file, text);
}

const format = (addresses: readonly string[]) => `${JSON.stringify({ version: VERSION, workspaces: addresses }, null, 2)}\n`;

/** The file's addresses, oldest first; none for a file missing, unreadable, malformed or of another version. */
async function readAddresses(file: string): Promise<string[]> {
  const read = await readCacheFile(file, MAX_FILE_BYTES);
  if (!("text" in read)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch {
    return [];
  }
  const { version, workspaces } = (parsed ?? {}) as Record<string, unknown>;
  if (version !== VERSION || !Array.isArray(workspaces)) return [];
  // Only an address in its one form: an entry written another way (by hand) is not one `access.yaml`'s could equal.
  return workspaces.filter((entry): entry is string => typeof entry === "string" && inOneForm(entry));
}

/** Whether `entry` is an address as the provider reads one, written in its one form. */
function inOneForm(entry: string): boolean {
  const read = readBaseUrl(entry);
  return "url" in read && read.url.href === entry;
}

/** Why no address is remembered: the setting that turned the cache folder off, or none found. */
function noCacheFolder(env: NodeJS.ProcessEnv): string {
  const setting = env[CACHE_DIR_ENV];
  return setting === undefined
    ? `no cache folder was found (no home folder): set ${CACHE_DIR_ENV} to a folder to remember addresses in`
    : `the cache folder is off (${CACHE_DIR_ENV} is ${setting.trim() === "" ? "empty" : setting.trim()})`;
}
