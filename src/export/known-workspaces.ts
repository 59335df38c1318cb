/**
 * The workspaces this machine's user gave the export or `--check` themselves (`--base-url`, the environment), remembered in
 * the package's cache folder once the workspace answered at that address: outside CI, `--check` sends the key to the address
 * `access.yaml` records only when it is one of them, since a branch (a colleague's, a stranger's pull request) can write any
 * address there. Trust on first use, as SSH's known hosts, and read as SSH's StrictModes reads them: not from a cache folder
 * given as a relative path or inside the project (a branch can commit the list), nor from a file or folder another user owns
 * or can write. Addresses only, each in its one form (the form `access.yaml`'s is compared in); never the key, nor anything
 * derived from it. A malformed file is taken as empty and replaced when an address is next given; one not read (a folder in
 * its place, another's) is taken as empty with the reason, for the refusal to say; two processes remembering at once may lose
 * one's address, which is then asked for again.
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import * as path from "node:path";
import { CACHE_DIR_ENV, cacheDirOf } from "../client/cache-dir";
import { readCacheFile, replaceCacheFile } from "../client/cache-file";
import { readBaseUrl } from "../client/settings";
import { CONFIG_KEYS as ENV } from "../shared/settings";

/** The file, in the cache folder. */
export const KNOWN_WORKSPACES_FILE = "known-workspaces.json";
/** The file's format; another version is taken as empty (and replaced when an address is next given). */
const VERSION = 1;
/** Addresses kept at most, the most recently given: emulators on ever new ports must not grow the file. */
const MAX_ENTRIES = 100;
/** A file larger than this is not ours (or is broken): taken as empty rather than parsed. */
const MAX_FILE_BYTES = 64 * 1024;

/**
 * The addresses remembered and the file that holds them (`unread`: why the file was not read, its addresses then none, for the
 * refusal to say); or, with no cache folder to trust, none and why (`why`: the setting that turned it off or is relative, the
 * project holding it, or that none could be found).
 */
export type KnownWorkspaces = { file: string; addresses: ReadonlySet<string>; unread?: string } | { file: undefined; why: string };

/**
 * The addresses remembered in the cache folder (the client's: {@link CACHE_DIR_ENV} of `env`, else the user's); `project`: the
 * folder `access.yaml` is in, whose files a branch chooses. Never throws.
 */
export async function knownWorkspaces(env: NodeJS.ProcessEnv = process.env, project?: string): Promise<KnownWorkspaces> {
  const place = listFile(env, project);
  if ("why" in place) return { file: undefined, why: place.why };
  const read = await readAddresses(place.file);
  return { file: place.file, addresses: new Set(read.addresses), ...(read.unread !== undefined && { unread: read.unread }) };
}

/**
 * Remembers `baseUrl` (in its one form), given by the user and answered at, as the most recent; nothing without a cache folder
 * to trust (`project` as {@link knownWorkspaces}'). A file that could not be written is said on stderr (`warn`): the address
 * is then asked for again, and the refusal's "pass --base-url once" would not hold. Never throws.
 */
export async function rememberWorkspace(
  baseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
  project?: string,
  warn: (message: string) => void = (message) => process.stderr.write(`workspace-access-export: warning: ${message}\n`),
): Promise<void> {
  const place = listFile(env, project);
  if ("why" in place) return;
  const { file } = place;
  // The package's own folder (not one CACHE_DIR_ENV names, whose mode is the user's choice), the user's, left writable by the
  // group or others by an earlier version's default mode (umask 002): the list in it would never be trusted, nor the export's
  // address remembered, so it is made the user's alone.
  if (env[CACHE_DIR_ENV] === undefined) await ownFolderMadePrivate(path.dirname(file));
  // The addresses of a file not read or not trusted are not kept: it is replaced by one of the user's alone.
  const { addresses } = await readAddresses(file);
  // Given again as the most recent already: nothing to write (a check run with --base-url each time writes once).
  if (addresses.at(-1) === baseUrl) return;
  const kept = [...addresses.filter((a) => a !== baseUrl), baseUrl].slice(-MAX_ENTRIES);
  let text = format(kept);
  // The oldest go first until the file is one a read takes (only addresses thousands of characters long need it).
  while (Buffer.byteLength(text) > MAX_FILE_BYTES && kept.length > 1) {
    kept.shift();
    text = format(kept);
  }
  const failed = await replaceCacheFile(path.dirname(file), file, text);
  if (failed !== undefined) {
    warn(
      `could not remember ${baseUrl} in ${file} (${failed}): a later --check will not send the key to the address access.yaml ` +
        `records. Set ${ENV.baseUrl} to the workspace's address instead, or correct ${file}.`,
    );
  }
}

/** `folder`, when this process's user owns it, no longer writable by its group or others. Never throws; nothing on Windows. */
async function ownFolderMadePrivate(folder: string): Promise<void> {
  if (process.platform === "win32" || process.getuid === undefined) return;
  try {
    const stats = await fsp.lstat(folder);
    if (stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) !== 0) {
      await fsp.chmod(folder, stats.mode & 0o700);
    }
  } catch {
    // Not there yet (made private when made), or not ours to change: the read says why it is not trusted.
  }
}

/** The remembered address closest to `baseUrl` (fewest characters changed), for a refusal to name: a look-alike host stands out. */
export function closestKnown(addresses: ReadonlySet<string>, baseUrl: string): string | undefined {
  let closest: { address: string; distance: number } | undefined;
  for (const address of addresses) {
    const distance = editDistance(address, baseUrl);
    if (closest === undefined || distance < closest.distance) closest = { address, distance };
  }
  return closest?.address;
}

/** Levenshtein's distance: the characters inserted, removed or replaced to turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The list's file, or why there is none to trust: the cache folder off or not found; {@link CACHE_DIR_ENV} relative (a folder
 * of whichever folder the command runs in: a branch can commit one there, an `.envrc` of its own can name it); the cache
 * folder in the project (`project`), whose files the branch chose.
 */
function listFile(env: NodeJS.ProcessEnv, project: string | undefined): { file: string } | { why: string } {
  const dir = cacheDirOf(undefined, env);
  if (dir === undefined) return { why: noCacheFolder(env) };
  const setting = env[CACHE_DIR_ENV]?.trim();
  if (setting !== undefined && !path.isAbsolute(setting)) {
    return {
      why:
        `${CACHE_DIR_ENV} is ${setting}, a relative path, which the addresses you gave are never kept under: it names a folder ` +
        "in whichever folder the command runs in, one a branch can commit. Set it to an absolute path",
    };
  }
  if (project !== undefined && isWithin(dir, project)) {
    return {
      why:
        `the cache folder ${dir} is inside ${path.resolve(project)}, the project's folder, whose files a branch chooses: ` +
        `the addresses you gave are never kept there. Set ${CACHE_DIR_ENV} to a folder outside it`,
    };
  }
  // The repository holding the project: a branch chooses every file of it, not only the project's (`$PWD/.wa-cache` in a
  // repository's `.envrc`, the project in a subfolder).
  const repository = project === undefined ? undefined : workTreeOf(project);
  if (repository !== undefined && isWithin(dir, repository)) {
    return {
      why:
        `the cache folder ${dir} is inside ${repository}, the repository holding the project, whose files a branch chooses: ` +
        `the addresses you gave are never kept there. Set ${CACHE_DIR_ENV} to a folder outside it`,
    };
  }
  return { file: path.join(dir, KNOWN_WORKSPACES_FILE) };
}

/** The git work tree `project` is in: the nearest folder at or above it holding `.git` (a folder, or a worktree's file). */
function workTreeOf(project: string): string | undefined {
  for (let dir = realPath(project); ; ) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Whether `dir` is `project` or inside it, their links resolved where they exist. */
function isWithin(dir: string, project: string): boolean {
  const relative = path.relative(realPath(project), realPath(dir));
  return relative === "" || (relative.split(path.sep)[0] !== ".." && !path.isAbsolute(relative));
}

/** `p` with its links resolved; as given (absolute) when it does not exist yet. */
function realPath(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

const format = (addresses: readonly string[]) => `${JSON.stringify({ version: VERSION, workspaces: addresses }, null, 2)}\n`;

/**
 * The file's addresses, oldest first; none for a file missing, malformed or of another version, and none, with why (`unread`),
 * for one not read: not a regular file, too large, unreadable, or not trusted ({@link untrusted}).
 */
async function readAddresses(file: string): Promise<{ addresses: string[]; unread?: string }> {
  const folder = path.dirname(file);
  const distrusted = await fsp.stat(folder).then(
    (stats) => untrusted(`its folder ${folder}`, stats),
    () => undefined,
  );
  if (distrusted !== undefined) return { addresses: [], unread: `${file} was not read: ${distrusted}` };
  const read = await readCacheFile(file, MAX_FILE_BYTES, (stats) => untrusted("it", stats));
  if ("skipped" in read) return { addresses: [], unread: `${file} was not read: ${read.skipped}` };
  if (!("text" in read)) return { addresses: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch {
    return { addresses: [] };
  }
  const { version, workspaces } = (parsed ?? {}) as Record<string, unknown>;
  if (version !== VERSION || !Array.isArray(workspaces)) return { addresses: [] };
  // Only an address in its one form: an entry written another way (by hand) is not one `access.yaml`'s could equal.
  return { addresses: workspaces.filter((entry): entry is string => typeof entry === "string" && inOneForm(entry)) };
}

/**
 * Why `what` (the list or its folder) is not trusted, as SSH's StrictModes would not: owned by another user than this
 * process's, or writable by its group or by others (who could then choose where the key goes). Not checked on Windows.
 */
function untrusted(what: string, stats: fs.Stats): string | undefined {
  const uid = process.getuid?.();
  if (process.platform === "win32" || uid === undefined) return undefined;
  if (stats.uid !== uid) return `${what} is owned by another user (uid ${stats.uid}, this process's is ${uid})`;
  if ((stats.mode & 0o022) !== 0) {
    const mode = (stats.mode & 0o777).toString(8);
    const by = [stats.mode & 0o020 ? "its group" : "", stats.mode & 0o002 ? "others" : ""].filter(Boolean).join(" and ");
    return `${what} is writable by ${by} (mode ${mode}; chmod go-w makes it the user's alone)`;
  }
  return undefined;
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
