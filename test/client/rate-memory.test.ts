/**
 * Rate limits remembered between processes (`src/client/rate-memory.ts`): a client paces from
 * the limit an earlier one learnt for the same base URL, kept in a file of a folder each test
 * makes for itself (the suite turns the memory off everywhere else: vitest.config.mts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WorkspaceAccessClient } from "../../src/client";
import { CACHE_DIR_ENV, cacheDirOf, defaultCacheDir } from "../../src/client/cache-dir";
import { LOCK_SUFFIX, STALE_LOCK_MS } from "../../src/client/file-lock";
import { RATE_LIMITS_FILE, RateLimitMemory, REMEMBER_MS } from "../../src/client/rate-memory";
import type { Emulator } from "../../src/emulator";
import { clientFor, clockOf, emulator } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder for this test's remembered limits. */
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pwa-rate-memory-"));
  dirs.push(dir);
  return dir;
}

const LIMIT = { requests: 40, windowMs: 1000 };

/** `n` concurrent reads of one user: the emulator's 429s they met. */
async function burst(emu: Emulator, client: WorkspaceAccessClient, userId: string, n = 100): Promise<number> {
  const before = emu.stats.rateLimited;
  await Promise.all(Array.from({ length: n }, () => client.users.get(userId)));
  return emu.stats.rateLimited - before;
}

/** An emulator at {@link LIMIT} with one user, and a client factory on its clock sharing `cacheDir`. */
async function workspace(cacheDir: string | false, rateLimit: { requests: number; windowMs: number; headers?: boolean } = LIMIT) {
  const emu = await emulator({ rateLimit });
  const user = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
  const logs: string[] = [];
  const client = () => clientFor(emu, { maxConcurrency: 8, cacheDir, logger: (line) => logs.push(line) });
  return { emu, user, logs, client };
}

/** Reads the file of remembered limits as JSON. */
function fileOf(dir: string): { version: number; limits: Record<string, Record<string, unknown>> } {
  return JSON.parse(fs.readFileSync(path.join(dir, RATE_LIMITS_FILE), "utf8"));
}

describe("where the limits are kept", () => {
  const home = path.resolve("/home/ada");
  it.each([
    [
      "linux, XDG_CACHE_HOME set",
      "linux",
      { XDG_CACHE_HOME: path.resolve("/var/cache/ada") },
      path.resolve("/var/cache/ada/pulumi-workspace-access"),
    ],
    ["linux, no XDG_CACHE_HOME", "linux", {}, path.join(home, ".cache", "pulumi-workspace-access")],
    [
      "linux, a relative XDG_CACHE_HOME (invalid: ignored)",
      "linux",
      { XDG_CACHE_HOME: "cache" },
      path.join(home, ".cache", "pulumi-workspace-access"),
    ],
    ["macOS", "darwin", { XDG_CACHE_HOME: path.resolve("/elsewhere") }, path.join(home, "Library", "Caches", "pulumi-workspace-access")],
    [
      "Windows, LOCALAPPDATA set",
      "win32",
      { LOCALAPPDATA: path.resolve("/Users/ada/AppData/Local") },
      path.resolve("/Users/ada/AppData/Local/pulumi-workspace-access"),
    ],
    ["Windows, no LOCALAPPDATA", "win32", {}, path.join(home, "AppData", "Local", "pulumi-workspace-access")],
    [`${CACHE_DIR_ENV} names a folder`, "linux", { [CACHE_DIR_ENV]: path.resolve("/tmp/wa") }, path.resolve("/tmp/wa")],
    [`${CACHE_DIR_ENV} empty`, "linux", { [CACHE_DIR_ENV]: "" }, undefined],
    [`${CACHE_DIR_ENV}=off`, "darwin", { [CACHE_DIR_ENV]: "off" }, undefined],
    [`${CACHE_DIR_ENV}=OFF`, "win32", { [CACHE_DIR_ENV]: " OFF " }, undefined],
  ] as const)("%s", (_, platform, env, expected) => {
    expect(defaultCacheDir(env, platform, home)).toBe(expected);
  });

  it("nowhere without a home folder, unless the variable names one", () => {
    expect(defaultCacheDir({}, "linux", "")).toBeUndefined();
    expect(defaultCacheDir({ [CACHE_DIR_ENV]: path.resolve("/tmp/wa") }, "linux", "")).toBe(path.resolve("/tmp/wa"));
  });

  it("the client option: false or empty is nowhere, a folder is that folder, unset is the default", () => {
    expect(cacheDirOf(false, { [CACHE_DIR_ENV]: "/tmp/x" })).toBeUndefined();
    expect(cacheDirOf("", { [CACHE_DIR_ENV]: "/tmp/x" })).toBeUndefined();
    expect(cacheDirOf("relative/dir", {})).toBe(path.resolve("relative/dir"));
    expect(cacheDirOf(undefined, { [CACHE_DIR_ENV]: path.resolve("/tmp/x") })).toBe(path.resolve("/tmp/x"));
  });

  it("is nowhere in this test suite (vitest.config.mts), so no test touches the user's cache", () => {
    expect(process.env[CACHE_DIR_ENV]).toBe("off");
    expect(defaultCacheDir()).toBeUndefined();
  });
});

describe("a limit learnt by one client paces the next one from its first request", () => {
  it("round trip: the first client meets 429s, the second, with the same folder, none", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir);
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    // The next run comes later: the service's window holds none of the first one's requests.
    first.clock.advance(10_000);
    const second = client();
    expect(await burst(emu, second.client, user.id)).toBe(0);
  });

  it("without the memory (cacheDir: false) the second client meets the 429s again, and nothing is written", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(false);
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    first.clock.advance(10_000);
    expect(await burst(emu, client().client, user.id)).toBeGreaterThan(0);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("keeps the base URL, the limit, its source and when it was saved; never the key", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir);
    const first = client();
    const start = first.clock.now();
    await burst(emu, first.client, user.id);
    await first.client.close();
    const text = fs.readFileSync(path.join(dir, RATE_LIMITS_FILE), "utf8");
    expect(text).not.toContain(emu.apiKey);
    expect(fileOf(dir)).toEqual({
      version: 1,
      limits: { [emu.url]: { count: expect.any(Number), windowMs: 1000, source: "429", savedAt: expect.any(Number) } },
    });
    const entry = fileOf(dir).limits[emu.url] ?? {};
    expect(Object.keys(entry)).toEqual(["count", "windowMs", "source", "savedAt"]);
    // Saved when learnt, by the client's clock.
    expect(entry["savedAt"]).toBeGreaterThanOrEqual(start);
    expect(entry["savedAt"]).toBeLessThanOrEqual(first.clock.now());
    // Nothing else in the folder: the temporary file was renamed over it.
    expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
  });

  it("keeps a limit the RateLimit headers gave, with its window", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir, { requests: 30, windowMs: 2000, headers: true });
    const first = client();
    await first.client.users.get(user.id);
    await first.client.close();
    expect(fileOf(dir).limits[emu.url]).toMatchObject({ count: 30, windowMs: 2000, source: "headers" });
    first.clock.advance(10_000);
    // Paced from the first request: 100 at once against 30 per 2 s meet no 429.
    expect(await burst(emu, client().client, user.id)).toBe(0);
  });

  it("trusts a remembered limit for a day: after that the next client learns afresh", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir);
    const first = client();
    await burst(emu, first.client, user.id);
    await first.client.close();
    first.clock.advance(REMEMBER_MS);
    expect(await burst(emu, client().client, user.id)).toBeGreaterThan(0);
  });

  it("is per base URL: another workspace's limit does not pace this one", async () => {
    const dir = tempDir();
    const slow = await workspace(dir, { requests: 5, windowMs: 1000 });
    const first = slow.client();
    await burst(slow.emu, first.client, slow.user.id, 20);
    await first.client.close();
    const fast = await workspace(dir, { requests: 1000, windowMs: 1000 });
    const { client, clock } = fast.client();
    const start = clock.now();
    await burst(fast.emu, client, fast.user.id);
    expect(clock.now() - start).toBe(0);
  });
});

describe("the file never fails a request", () => {
  const corrupt: Array<[string, string]> = [
    ["not JSON", "{ not json"],
    ["empty", ""],
    ["JSON null", "null"],
    ["another version", JSON.stringify({ version: 2, limits: {} })],
    ["limits not an object", JSON.stringify({ version: 1, limits: "x" })],
  ];

  it.each(corrupt)("a corrupt file (%s) is ignored, and replaced by a good one once a limit is learnt", async (_, text) => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE), text);
    const { emu, user, client, logs } = await workspace(dir);
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    expect(fileOf(dir).limits[emu.url]).toMatchObject({ source: "429" });
    if (text !== "") expect(logs.some((line) => line.includes(RATE_LIMITS_FILE) && line.includes("ignored"))).toBe(true);
  });

  it.each([
    ["a count of 0", { count: 0 }],
    ["a fractional count", { count: 1.5 }],
    ["a count as text", { count: "40" }],
    ["a negative window", { windowMs: -1 }],
    ["a window longer than five minutes", { count: 400, windowMs: 300_001, source: "headers" }],
    ["one request a day (a planted or corrupt file)", { count: 1, windowMs: REMEMBER_MS - 1, source: "headers" }],
    ["fewer than one request a second", { count: 1, windowMs: 2000, source: "headers" }],
    ["a 429-learnt limit of another window than a second", { count: 40, windowMs: 2000 }],
    ["an unknown source", { source: "guess" }],
    ["saved in the future", { savedAt: Date.parse("2026-01-02T00:00:00Z") }],
    ["saved more than a day ago", { savedAt: Date.parse("2025-12-30T00:00:00Z") }],
  ])("an entry with %s is not used", async (_, change) => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const good = { count: 40, windowMs: 1000, source: "429", savedAt: clock.now() - 1000 };
    const key = "https://acme.example.com/api/v1/";
    fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE), JSON.stringify({ version: 1, limits: { [key]: { ...good, ...change } } }));
    expect(await new RateLimitMemory(dir, clock).recall(key)).toBeUndefined();
    fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE), JSON.stringify({ version: 1, limits: { [key]: good } }));
    expect(await new RateLimitMemory(dir, clock).recall(key)).toEqual({ count: 40, windowMs: 1000, source: "429" });
  });

  it("an implausible limit (one request a day) does not pace the next client: it learns afresh", async () => {
    const dir = tempDir();
    const { emu, user, client, logs } = await workspace(dir, { requests: 1000, windowMs: 1000 });
    const planted = { count: 1, windowMs: REMEMBER_MS - 1, source: "headers", savedAt: clockOf(emu).now() - 1000 };
    fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE), JSON.stringify({ version: 1, limits: { [emu.url]: planted } }));
    const { client: c, clock } = client();
    const start = clock.now();
    expect(await burst(emu, c, user.id, 20)).toBe(0);
    expect(clock.now() - start).toBe(0);
    expect(logs.some((line) => line.includes("rate limit remembered"))).toBe(false);
  });

  it("keeps a limit the headers gave with the longest window remembered, five minutes", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir, { requests: 300, windowMs: 300_000, headers: true });
    const first = client();
    await first.client.users.get(user.id);
    await first.client.close();
    expect(fileOf(dir).limits[emu.url]).toMatchObject({ count: 300, windowMs: 300_000, source: "headers" });
    const memory = new RateLimitMemory(dir, first.clock);
    expect(await memory.recall(emu.url)).toEqual({ count: 300, windowMs: 300_000, source: "headers" });
  });

  it("does not write a limit it would not use (a window over five minutes)", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const memory = new RateLimitMemory(dir, clock);
    memory.remember("https://a.example.com/api/v1/", { count: 40, windowMs: 1000, source: "429" });
    memory.remember("https://b.example.com/api/v1/", { count: 400, windowMs: 600_000, source: "headers" });
    await memory.flush();
    expect(Object.keys(fileOf(dir).limits)).toEqual(["https://a.example.com/api/v1/"]);
  });

  it("a file too large to be ours is not read", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const key = "https://acme.example.com/api/v1/";
    const limits = { [key]: { count: 40, windowMs: 1000, source: "429", savedAt: clock.now() } };
    fs.writeFileSync(path.join(dir, RATE_LIMITS_FILE), JSON.stringify({ version: 1, limits, padding: "x".repeat(300_000) }));
    expect(await new RateLimitMemory(dir, clock).recall(key)).toBeUndefined();
  });

  it("an unreadable and unwritable file (a folder in its place) is ignored, with a debug line", async () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, RATE_LIMITS_FILE));
    const { emu, user, client, logs } = await workspace(dir);
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    expect(emu.requests.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(logs.filter((line) => line.includes("not read") && line.includes("not a regular file"))).not.toEqual([]);
    expect(logs.filter((line) => line.includes("not written"))).not.toEqual([]);
    // No temporary file left behind.
    expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
  });

  // A device never ends: read whole, it held the first request forever (and filled the memory).
  // A FIFO, which blocked the open itself, needs mkfifo: test/reliability/rate-memory-special-files.test.ts.
  it.skipIf(process.platform === "win32")(
    "a device in its place (a link to /dev/zero) is not read: the first request goes at once",
    async () => {
      const dir = tempDir();
      fs.symlinkSync("/dev/zero", path.join(dir, RATE_LIMITS_FILE));
      const { emu, user, client, logs } = await workspace(dir);
      expect(await client().client.users.get(user.id)).toMatchObject({ id: user.id });
      expect(emu.requests).toHaveLength(1);
      expect(logs.some((line) => line.includes("not a regular file"))).toBe(true);
    },
    5_000,
  );

  it("a folder that cannot be created (a file in the way) is ignored, with a debug line", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "in-the-way"), "");
    const { emu, user, client, logs } = await workspace(path.join(dir, "in-the-way", "cache"));
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    expect(logs.some((line) => line.includes("not written"))).toBe(true);
  });
});

describe("writing", () => {
  it("several writers at once (processes sharing the folder) never leave a torn file or a temporary one", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const writers = Array.from({ length: 6 }, () => new RateLimitMemory(dir, clock));
    for (let round = 0; round < 10; round++) {
      writers.forEach((memory, i) => {
        memory.remember(`https://w${i}.example.com/api/v1/`, { count: 10 + round, windowMs: 1000, source: "429" });
      });
      // A reader in the middle of the writes sees a whole file, or none yet.
      const seen = await new RateLimitMemory(dir, clock).recall("https://w0.example.com/api/v1/");
      if (seen) expect(seen.count).toBeGreaterThanOrEqual(10);
    }
    await Promise.all(writers.map((memory) => memory.flush()));
    const { limits } = fileOf(dir);
    // The last writer wins: it may have missed another's latest entry, but every entry is whole.
    expect(Object.keys(limits).length).toBeGreaterThan(0);
    for (const entry of Object.values(limits)) {
      expect(entry).toEqual({ count: expect.any(Number), windowMs: 1000, source: "429", savedAt: clock.now() });
      expect(entry["count"]).toBeGreaterThanOrEqual(10);
    }
    // Each writer's own latest entry reaches the file when it writes alone.
    for (const [i, memory] of writers.entries()) {
      memory.remember(`https://w${i}.example.com/api/v1/`, { count: 30, windowMs: 1000, source: "429" });
      await memory.flush();
    }
    expect(Object.values(fileOf(dir).limits).map((entry) => entry["count"])).toEqual(Array(6).fill(30));
    expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
  });

  it("keeps the file small: what expired is dropped, at most 64 workspaces, the latest kept", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const memory = new RateLimitMemory(dir, clock);
    memory.remember("https://old.example.com/api/v1/", { count: 5, windowMs: 1000, source: "429" });
    await memory.flush();
    clock.advance(REMEMBER_MS);
    for (let i = 0; i < 70; i++) {
      clock.advance(1);
      memory.remember(`http://127.0.0.1:${10_000 + i}/api/v1/`, { count: 5, windowMs: 1000, source: "429" });
      await memory.flush();
    }
    const keys = Object.keys(fileOf(dir).limits);
    expect(keys).toHaveLength(64);
    expect(keys).not.toContain("https://old.example.com/api/v1/");
    expect(keys).toContain("http://127.0.0.1:10069/api/v1/");
    expect(keys).not.toContain("http://127.0.0.1:10000/api/v1/");
  });
});

describe("writers at once (in one process; the host tier runs eight processes)", () => {
  it("eight memories saving eight workspaces' limits at once leave eight entries", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const memories = Array.from({ length: 8 }, () => new RateLimitMemory(dir, clock));
    memories.forEach((memory, i) => {
      memory.remember(`https://ws${i}.example.com/api/v1/`, { count: 10 + i, windowMs: 1000, source: "429" });
    });
    await Promise.all(memories.map((memory) => memory.flush()));
    expect(Object.keys(fileOf(dir).limits).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `https://ws${i}.example.com/api/v1/`).sort(),
    );
    expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
  });

  it("takes over a lock older than STALE_LOCK_MS, even one of a process that still runs", async () => {
    const dir = tempDir();
    const lock = path.join(dir, RATE_LIMITS_FILE + LOCK_SUFFIX);
    fs.writeFileSync(lock, `${process.pid} ${os.hostname()} 0 x`);
    const old = (Date.now() - STALE_LOCK_MS - 1000) / 1000;
    fs.utimesSync(lock, old, old);
    const logs: string[] = [];
    const memory = new RateLimitMemory(dir, new VirtualClock(), (line) => logs.push(line));
    memory.remember("https://acme.example.com/api/v1/", { count: 5, windowMs: 1000, source: "429" });
    await memory.flush();
    expect(Object.keys(fileOf(dir).limits)).toEqual(["https://acme.example.com/api/v1/"]);
    expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_FILE]);
    expect(logs.some((line) => line.includes("stale"))).toBe(true);
  });
});
