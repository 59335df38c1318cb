/**
 * Rate limits remembered between processes (`src/client/rate-memory.ts`): a client paces from
 * the limit an earlier one learnt for the same base URL, kept in a file per workspace in a folder each
 * test makes for itself (the suite turns the memory off everywhere else: vitest.config.mts).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { WorkspaceAccessClient } from "../../src/client";
import { CACHE_DIR_ENV, cacheDirOf } from "../../src/client/cache-dir";
import { entryFileName, RATE_LIMITS_DIR, RateLimitMemory, REMEMBER_MS, UNCONFIRMED_MS } from "../../src/client/rate-memory";
import type { Emulator } from "../../src/emulator";
import { clientFor, clockOf, emulator } from "../support/fixtures";
import { VirtualClock } from "../support/virtual-clock";

const dirs: string[] = [];
afterEach(() => {
  // A client a test left open may still be writing its memory there: a removal that meets its file is tried again.
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
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

/** The remembered limits of a cache folder, by base URL, as their files hold them (without the version and key). */
function fileOf(dir: string): { limits: Record<string, Record<string, unknown>> } {
  const limits: Record<string, Record<string, unknown>> = {};
  for (const name of fs.readdirSync(path.join(dir, RATE_LIMITS_DIR)).filter((n) => n.endsWith(".json"))) {
    const { version, baseUrl, ...entry } = JSON.parse(fs.readFileSync(path.join(dir, RATE_LIMITS_DIR, name), "utf8"));
    expect(version).toBe(2);
    expect(name).toBe(entryFileName(baseUrl));
    limits[baseUrl] = entry;
  }
  return { limits };
}

/** The file of `key`'s limit in a cache folder (its folder made). */
function fileFor(dir: string, key: string): string {
  fs.mkdirSync(path.join(dir, RATE_LIMITS_DIR), { recursive: true });
  return path.join(dir, RATE_LIMITS_DIR, entryFileName(key));
}

/** Plants `entry` as `key`'s remembered limit. */
function plant(dir: string, key: string, entry: Record<string, unknown>): void {
  fs.writeFileSync(fileFor(dir, key), JSON.stringify({ version: 2, baseUrl: key, ...entry }));
}

/** Only entry files in the folder: no temporary one left behind. */
function onlyEntries(dir: string): void {
  expect(fs.readdirSync(dir)).toEqual([RATE_LIMITS_DIR]);
  for (const name of fs.readdirSync(path.join(dir, RATE_LIMITS_DIR))) expect(name).toMatch(/^[0-9a-f]{32}\.json$/);
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
    expect(cacheDirOf(undefined, env, platform, home)).toBe(expected);
  });

  it("nowhere without a home folder, unless the variable names one", () => {
    expect(cacheDirOf(undefined, {}, "linux", "")).toBeUndefined();
    expect(cacheDirOf(undefined, { [CACHE_DIR_ENV]: path.resolve("/tmp/wa") }, "linux", "")).toBe(path.resolve("/tmp/wa"));
  });

  it("the client option: false or empty is nowhere, a folder is that folder, unset is the default", () => {
    expect(cacheDirOf(false, { [CACHE_DIR_ENV]: "/tmp/x" })).toBeUndefined();
    expect(cacheDirOf("", { [CACHE_DIR_ENV]: "/tmp/x" })).toBeUndefined();
    expect(cacheDirOf("relative/dir", {})).toBe(path.resolve("relative/dir"));
    expect(cacheDirOf(undefined, { [CACHE_DIR_ENV]: path.resolve("/tmp/x") })).toBe(path.resolve("/tmp/x"));
  });

  it("is nowhere in this test suite (vitest.config.mts), so no test touches the user's cache", () => {
    expect(process.env[CACHE_DIR_ENV]).toBe("off");
    expect(cacheDirOf(undefined)).toBeUndefined();
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
    const text = fs.readFileSync(fileFor(dir, emu.url), "utf8");
    expect(text).not.toContain(emu.apiKey);
    expect(fileOf(dir)).toEqual({
      limits: { [emu.url]: { count: expect.any(Number), windowMs: 1000, source: "429", savedAt: expect.any(Number) } },
    });
    const entry = fileOf(dir).limits[emu.url] ?? {};
    expect(Object.keys(entry)).toEqual(["count", "windowMs", "source", "savedAt"]);
    // Saved when learnt, by the client's clock.
    expect(entry["savedAt"]).toBeGreaterThanOrEqual(start);
    expect(entry["savedAt"]).toBeLessThanOrEqual(first.clock.now());
    // Nothing else in the folder: the temporary file was renamed over it.
    onlyEntries(dir);
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

  it("trusts a limit learnt from one round of 429s for ten minutes (it may be another client's share), one confirmed for a day", async () => {
    const dir = tempDir();
    const clock = new VirtualClock();
    const memory = new RateLimitMemory(dir, clock);
    const [unconfirmed, confirmed, headers] = ["u", "c", "h"].map((w) => `https://${w}.example.com/api/v1/`) as [string, string, string];
    memory.remember(unconfirmed, { count: 2, windowMs: 1000, source: "429" });
    memory.remember(confirmed, { count: 20, windowMs: 1000, source: "429", confirmed: true });
    memory.remember(headers, { count: 30, windowMs: 2000, source: "headers" });
    await memory.flush();
    expect(fileOf(dir).limits[unconfirmed]).toEqual({ count: 2, windowMs: 1000, source: "429", savedAt: clock.now() });
    expect(fileOf(dir).limits[confirmed]).toMatchObject({ count: 20, confirmed: true });
    clock.advance(UNCONFIRMED_MS - 1);
    expect(await memory.recall(unconfirmed)).toEqual({ count: 2, windowMs: 1000, source: "429" });
    clock.advance(1);
    expect(await memory.recall(unconfirmed)).toBeUndefined();
    expect(await memory.recall(confirmed)).toEqual({ count: 20, windowMs: 1000, source: "429", confirmed: true });
    expect(await memory.recall(headers)).toEqual({ count: 30, windowMs: 2000, source: "headers" });
    clock.advance(REMEMBER_MS - UNCONFIRMED_MS);
    expect(await memory.recall(confirmed)).toBeUndefined();
    expect(await memory.recall(headers)).toBeUndefined();
  });

  it("a limit another client's burst taught (its 429 after two answers of this one): the next run, ten minutes on, learns afresh", async () => {
    const dir = tempDir();
    const { emu, user, client } = await workspace(dir, { requests: 20, windowMs: 1000 });
    const other = clientFor(emu).client;
    await Promise.all(Array.from({ length: 18 }, () => other.users.get(user.id)));
    const first = client();
    await burst(emu, first.client, user.id, 3);
    await first.client.close();
    expect(fileOf(dir).limits[emu.url]).toMatchObject({ count: 2, source: "429" });
    // The other client is gone; the next run comes ten minutes later and keeps the service's pace.
    first.clock.advance(UNCONFIRMED_MS);
    const { client: next, clock } = client();
    const start = clock.now();
    // 40 requests at 20 a second: about 2 s (at the two a second the other client left, 20 s).
    await burst(emu, next, user.id, 40);
    expect(clock.now() - start).toBeLessThan(5_000);
    // Closed, its memory is written before the folder is removed.
    await next.close();
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
    await client.close();
  });
});

describe("the file never fails a request", () => {
  const corrupt: Array<[string, string]> = [
    ["not JSON", "{ not json"],
    ["empty", ""],
    ["JSON null", "null"],
    ["another version", JSON.stringify({ version: 1, limits: {} })],
    ["another workspace's", JSON.stringify({ version: 2, baseUrl: "https://other.example.com/api/v1/", count: 1, windowMs: 1000 })],
  ];

  it.each(corrupt)("a corrupt file (%s) is ignored, and replaced by a good one once a limit is learnt", async (_, text) => {
    const dir = tempDir();
    const { emu, user, client, logs } = await workspace(dir);
    fs.writeFileSync(fileFor(dir, emu.url), text);
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    expect(fileOf(dir).limits[emu.url]).toMatchObject({ source: "429" });
    if (text !== "") expect(logs.some((line) => line.includes(entryFileName(emu.url)) && line.includes("ignored"))).toBe(true);
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
    plant(dir, key, { ...good, ...change });
    expect(await new RateLimitMemory(dir, clock).recall(key)).toBeUndefined();
    plant(dir, key, good);
    expect(await new RateLimitMemory(dir, clock).recall(key)).toEqual({ count: 40, windowMs: 1000, source: "429" });
  });

  it("an implausible limit (one request a day) does not pace the next client: it learns afresh", async () => {
    const dir = tempDir();
    const { emu, user, client, logs } = await workspace(dir, { requests: 1000, windowMs: 1000 });
    const planted = { count: 1, windowMs: REMEMBER_MS - 1, source: "headers", savedAt: clockOf(emu).now() - 1000 };
    plant(dir, emu.url, planted);
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
    plant(dir, key, { count: 40, windowMs: 1000, source: "429", savedAt: clock.now(), padding: "x".repeat(5_000) });
    expect(await new RateLimitMemory(dir, clock).recall(key)).toBeUndefined();
  });

  it("an unreadable and unwritable file (a folder in its place) is ignored, with a debug line", async () => {
    const dir = tempDir();
    const { emu, user, client, logs } = await workspace(dir);
    fs.mkdirSync(fileFor(dir, emu.url));
    const first = client();
    expect(await burst(emu, first.client, user.id)).toBeGreaterThan(0);
    await first.client.close();
    expect(emu.requests.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(logs.filter((line) => line.includes("not read") && line.includes("not a regular file"))).not.toEqual([]);
    expect(logs.filter((line) => line.includes("not written"))).not.toEqual([]);
    // No temporary file left behind.
    expect(fs.readdirSync(path.join(dir, RATE_LIMITS_DIR))).toEqual([entryFileName(emu.url)]);
  });

  // A device never ends: read whole, it held the first request forever (and filled the memory).
  // A FIFO, which blocked the open itself, needs mkfifo: test/reliability/rate-memory-special-files.test.ts.
  it.skipIf(process.platform === "win32")(
    "a device in its place (a link to /dev/zero) is not read: the first request goes at once",
    async () => {
      const dir = tempDir();
      const { emu, user, client, logs } = await workspace(dir);
      fs.symlinkSync("/dev/zero", fileFor(dir, emu.url));
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
    // A file per workspace: every writer's latest entry is there, whole.
    const { limits } = fileOf(dir);
    expect(Object.keys(limits)).toHaveLength(6);
    for (const entry of Object.values(limits)) expect(entry).toEqual({ count: 19, windowMs: 1000, source: "429", savedAt: clock.now() });
    onlyEntries(dir);
  });

  it("keeps the folder small: what expired is dropped, at most 64 workspaces, the latest kept", async () => {
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
    onlyEntries(dir);
  });

  it("removes a temporary file a process left when it died between its write and its rename; a fresh one stays", async () => {
    const dir = tempDir();
    const orphan = `${fileFor(dir, "https://gone.example.com/api/v1/")}.4242.x.tmp`;
    const fresh = `${fileFor(dir, "https://busy.example.com/api/v1/")}.4243.y.tmp`;
    fs.writeFileSync(orphan, "{");
    fs.writeFileSync(fresh, "{");
    const old = (Date.now() - 120_000) / 1000;
    fs.utimesSync(orphan, old, old);
    const memory = new RateLimitMemory(dir, new VirtualClock());
    memory.remember("https://acme.example.com/api/v1/", { count: 5, windowMs: 1000, source: "429" });
    await memory.flush();
    expect(Object.keys(fileOf(dir).limits)).toEqual(["https://acme.example.com/api/v1/"]);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });
});
