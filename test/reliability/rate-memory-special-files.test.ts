/**
 * A workspace's file of remembered rate limits (`src/client/rate-memory.ts`) replaced by a FIFO: opening a
 * FIFO for reading waits for a writer, so a plain `open` held the client's first request forever.
 * In the host tier because making a FIFO needs `mkfifo`, a process (the unit tier starts none);
 * the unit tier covers a folder and a device in its place (test/client/rate-memory.test.ts).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { entryFileName, RATE_LIMITS_DIR, RateLimitMemory } from "../../src/client/rate-memory";
import { clientFor, emulator } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

const fifos: string[] = [];
afterEach(() => {
  for (const fifo of fifos.splice(0)) {
    // Opening the other end releases a reader still blocked on it (before the fix), then the folder goes.
    try {
      fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK));
    } catch {
      // ENXIO: nobody is reading, as it should be.
    }
    fs.rmSync(path.dirname(path.dirname(fifo)), { recursive: true, force: true });
  }
});

/** A cache folder whose file of `key`'s limit is a FIFO nobody writes to. */
function fifoDir(key: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-fifo-"));
  fs.mkdirSync(path.join(dir, RATE_LIMITS_DIR));
  const fifo = path.join(dir, RATE_LIMITS_DIR, entryFileName(key));
  fifos.push(fifo);
  const made = spawnSync("mkfifo", [fifo], { encoding: "utf8" });
  expect(made.status, made.stderr).toBe(0);
  return dir;
}

describe.skipIf(process.platform === "win32")("a FIFO in place of the file of remembered limits", () => {
  it("is not read, and recall answers at once: nothing remembered", async () => {
    const logs: string[] = [];
    const memory = new RateLimitMemory(fifoDir("https://acme.example.com/api/v1/"), new VirtualClock(), (line) => logs.push(line));
    expect(await memory.recall("https://acme.example.com/api/v1/")).toBeUndefined();
    expect(logs.some((line) => line.includes("not a regular file"))).toBe(true);
  }, 5_000);

  it("does not hold the client's first request: it reaches the emulator and is answered", async () => {
    const emu = await emulator();
    const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    const { client } = clientFor(emu, { cacheDir: fifoDir(emu.url) });
    expect(await client.users.get(user.id)).toMatchObject({ id: user.id });
    expect(emu.requests).toHaveLength(1);
  }, 5_000);
});
