/**
 * The one way a small file of the cache folder is read and replaced (the remembered rate limits, `rate-memory.ts`, and the
 * workspaces the export's user gave, `src/export/known-workspaces.ts`): read without blocking and only when it is a regular
 * file of a bounded size, replaced whole by a rename (no lock: a reader sees the old file or the new, never half of one).
 */
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";

/** A cache file's text, or why it was not read (`missing`: no file yet, the usual case, not worth a line). */
export type CacheFileRead = { text: string } | { missing: true } | { skipped: string };

/**
 * The text of `file` when it is a regular file of at most `maxBytes`, else why not; `refuse`, given, may say why the file
 * opened (its status, taken from the open file: a file swapped meanwhile is not the one judged) is not to be read. Never throws.
 */
export async function readCacheFile(
  file: string,
  maxBytes: number,
  refuse?: (stats: fs.Stats) => string | undefined,
): Promise<CacheFileRead> {
  try {
    // Non-blocking: a FIFO in the file's place would hold a plain open until a writer came.
    const handle = await fsp.open(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      // Only a regular file: a folder, a FIFO or a device (a link to /dev/zero never ends) is not ours.
      const stats = await handle.stat();
      if (!stats.isFile()) return { skipped: "not a regular file" };
      const refused = refuse?.(stats);
      if (refused !== undefined) return { skipped: refused };
      // At most one byte more than a file of ours holds, whatever its size says.
      const buffer = Buffer.allocUnsafe(maxBytes + 1);
      let length = 0;
      while (length < buffer.length) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      if (length > maxBytes) return { skipped: `more than ${maxBytes} bytes, more than a file of ours holds` };
      return { text: buffer.toString("utf8", 0, length) };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? { missing: true } : { skipped: describeError(error) };
  }
}

/**
 * Replaces `file` (in `dir`, made if missing, as its parents, for the user alone) by one holding `text`, readable by the user
 * alone: written beside it, then renamed over it. Resolves to why it could not be written, or `undefined` once it is. Never throws.
 */
export async function replaceCacheFile(dir: string, file: string, text: string): Promise<string | undefined> {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    // The user's own, whatever the umask: the remembered workspaces are trusted only in a folder no one else can write.
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    await fsp.writeFile(temp, text, { mode: 0o600 });
    await fsp.rename(temp, file);
    return undefined;
  } catch (error) {
    await fsp.rm(temp, { force: true }).catch(() => {});
    return describeError(error);
  }
}

/** An error's code or message, for a debug line (file system errors name only the path). */
export function describeError(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
