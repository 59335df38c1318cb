/**
 * Outside CI, `--check` sends the key to the address `access.yaml` records only once this machine's user has given that
 * address themselves (`--base-url` or the environment, to the export or to `--check`): a branch can write any address
 * there. The addresses given are remembered in the cache folder (src/export/known-workspaces.ts); a refusal comes before
 * any request, asserted on what each emulator received: the workspace's, and the one a branch's `access.yaml` points to.
 */
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { ExportError } from "../../src/export/errors";
import { KNOWN_WORKSPACES_FILE, knownWorkspaces, rememberWorkspace } from "../../src/export/known-workspaces";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { emulator, rejection } from "../support/fixtures";
import { env, freshCacheDir, options, twoMembers } from "./support";

/** The refusal of an address `file` records that the user never gave, the cache folder on (`known`: its file). */
const notGiven = (file: string, address: string, known: string) =>
  `${file} records the workspace ${address}, which you have not given this command on this machine yourself. A branch ` +
  `(a colleague's, a pull request) can edit ${file} to point anywhere, so the key goes to the address it records only ` +
  `once you have given that address. If it is the workspace you mean, pass --base-url ${address} once (it is then ` +
  `remembered, in ${known}), or set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST).`;

/** A project exported from `emu` with the cache folder off: nothing remembered. */
async function exportedUnremembered(emu: Emulator): Promise<{ dir: string; file: string }> {
  vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", "off");
  const { dir } = await runExport(options(emu));
  emu.clearRequests();
  return { dir, file: path.join(dir, "access.yaml") };
}

describe("outside CI, the address access.yaml records", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is refused before any request when it is not one the user gave: a branch pointing access.yaml elsewhere gets nothing", async () => {
    const ours = await emulator({ seed: twoMembers() });
    const theirs = await emulator({ seed: twoMembers() });
    const cache = freshCacheDir();
    const { dir } = await runExport(options(ours));
    const file = path.join(dir, "access.yaml");
    // The branch under review: its access.yaml records another address.
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(`workspace: ${ours.url}\n`, `workspace: ${theirs.url}\n`));
    ours.clearRequests();
    for (const accept of [false, true]) {
      const refused = await rejection(runCheck({ out: dir, env: env(ours), accept }));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toBe(notGiven(file, theirs.url, path.join(cache, KNOWN_WORKSPACES_FILE)));
    }
    expect(theirs.requests).toEqual([]);
    expect(ours.requests).toEqual([]);
    // Refused, it is not remembered: the file holds the export's address alone.
    expect(JSON.parse(fs.readFileSync(path.join(cache, KNOWN_WORKSPACES_FILE), "utf8"))).toEqual({ version: 1, workspaces: [ours.url] });
  });

  it.each([
    ["--base-url", (emu: Emulator) => ({ baseUrl: emu.url })],
    ["WORKSPACE_ACCESS_BASE_URL", (emu: Emulator) => ({ env: { ...env(emu), WORKSPACE_ACCESS_BASE_URL: emu.url } })],
  ])("is read by a later --check once given with %s", async (_, given) => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const cache = freshCacheDir();
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(notGiven(file, emu.url, path.join(cache, KNOWN_WORKSPACES_FILE)));
    expect(emu.requests).toEqual([]);
    expect(await runCheck({ out: dir, env: env(emu), ...given(emu) })).toMatchObject({ changes: [], notes: [] });
    emu.clearRequests();
    const later = await runCheck({ out: dir, env: env(emu) });
    expect(later).toMatchObject({ changes: [], notes: [], workspace: emu.url });
    expect(emu.requests.length).toBeGreaterThan(0);
  });

  it("is read once the export that wrote it was given it: the export remembers its address, and nothing of the key", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const cache = freshCacheDir();
    const { dir } = await runExport(options(emu));
    const text = fs.readFileSync(path.join(cache, KNOWN_WORKSPACES_FILE), "utf8");
    // The address alone, as access.yaml records it: no key, no digest of it, nothing else.
    expect(JSON.parse(text)).toEqual({ version: 1, workspaces: [emu.url] });
    expect(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).toContain(`workspace: ${emu.url}\n`);
    const digest = crypto.createHash("sha256").update(emu.apiKey).digest("hex");
    for (let i = 0; i + 8 <= emu.apiKey.length; i++) expect(text).not.toContain(emu.apiKey.slice(i, i + 8));
    for (let i = 0; i + 8 <= digest.length; i++) expect(text).not.toContain(digest.slice(i, i + 8));
    // Readable by the user alone.
    if (process.platform !== "win32") expect(fs.statSync(path.join(cache, KNOWN_WORKSPACES_FILE)).mode & 0o077).toBe(0);
    emu.clearRequests();
    expect(await runCheck({ out: dir, env: env(emu) })).toMatchObject({ changes: [], notes: [], workspace: emu.url });
    expect(emu.requests.length).toBeGreaterThan(0);
  });

  it.each(["off", "OFF", ""])(
    "is refused, saying why, with the cache folder off (WORKSPACE_ACCESS_CACHE_DIR=%j): nothing is remembered",
    async (off) => {
      const emu = await emulator({ seed: twoMembers() });
      const { dir, file } = await exportedUnremembered(emu);
      vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", off);
      // Given once: read, but not remembered.
      expect(await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).toMatchObject({ changes: [] });
      emu.clearRequests();
      const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
      expect(refused).toBeInstanceOf(ExportError);
      expect(refused.message).toBe(
        `${file} records the workspace ${emu.url}, and no address you gave before is remembered: the cache folder is off ` +
          `(WORKSPACE_ACCESS_CACHE_DIR is ${off === "" ? "empty" : off}). A branch (a colleague's, a pull request) can edit ${file} ` +
          `to point anywhere, so the key goes only to an address given now. If it is the workspace you mean, pass --base-url ${emu.url}, ` +
          "or set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST).",
      );
      expect(emu.requests).toEqual([]);
    },
  );

  // Each is taken as no address remembered (refused, not a crash), and replaced once an address is given.
  it.each<[string, (file: string, emu: Emulator) => void]>([
    ["not JSON", (file) => fs.writeFileSync(file, "{ not json")],
    ["JSON of another shape", (file, emu) => fs.writeFileSync(file, JSON.stringify([emu.url]))],
    ["another version", (file, emu) => fs.writeFileSync(file, JSON.stringify({ version: 2, workspaces: [emu.url] }))],
    ["its list not a list", (file, emu) => fs.writeFileSync(file, JSON.stringify({ version: 1, workspaces: emu.url }))],
    // Not in its one form (no trailing /): not one access.yaml's address, read in that form, could equal.
    [
      "an entry written another way",
      (file, emu) => fs.writeFileSync(file, JSON.stringify({ version: 1, workspaces: [emu.url.slice(0, -1)] })),
    ],
    [
      "too large to be ours",
      (file, emu) => fs.writeFileSync(file, JSON.stringify({ version: 1, workspaces: [emu.url], padding: "x".repeat(70_000) })),
    ],
    // Not a regular file: never read (a device never ends), and a link the write replaces.
    ...(process.platform === "win32"
      ? []
      : [["a device (a link to /dev/zero)", (file: string) => fs.symlinkSync("/dev/zero", file)] satisfies [string, unknown]]),
  ])("is refused when the remembered file is %s, which the next address given replaces", async (_, plant) => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const known = path.join(freshCacheDir(), KNOWN_WORKSPACES_FILE);
    plant(known, emu);
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(notGiven(file, emu.url, known));
    expect(emu.requests).toEqual([]);
    expect(await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).toMatchObject({ changes: [] });
    expect(JSON.parse(fs.readFileSync(known, "utf8"))).toEqual({ version: 1, workspaces: [emu.url] });
    expect(await runCheck({ out: dir, env: env(emu) })).toMatchObject({ changes: [], workspace: emu.url });
  });

  it("is refused when a folder stands where the remembered file goes: not read, not written, not a crash", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const known = path.join(freshCacheDir(), KNOWN_WORKSPACES_FILE);
    fs.mkdirSync(known);
    expect(await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).toMatchObject({ changes: [] });
    emu.clearRequests();
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(notGiven(file, emu.url, known));
    expect(emu.requests).toEqual([]);
    expect(fs.statSync(known).isDirectory()).toBe(true);
    // No temporary file left behind.
    expect(fs.readdirSync(path.dirname(known))).toEqual([KNOWN_WORKSPACES_FILE]);
  });
});

describe("the addresses remembered", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("keep the 100 most recently given: one given again is the most recent, the oldest goes first", async () => {
    freshCacheDir();
    const address = (n: number) => `https://w${n}.example.com/api/v1/`;
    for (let n = 0; n < 100; n++) await rememberWorkspace(address(n));
    await rememberWorkspace(address(0));
    await rememberWorkspace(address(100));
    const known = await knownWorkspaces();
    expect(known.file && [...known.addresses]).toEqual([...Array.from({ length: 98 }, (_, n) => address(n + 2)), address(0), address(100)]);
    expect(known.file && known.addresses.has(address(1))).toBe(false);
  });

  it("are none, and say why, with the cache folder off", async () => {
    expect(await knownWorkspaces({ WORKSPACE_ACCESS_CACHE_DIR: "none" })).toEqual({
      file: undefined,
      why: "the cache folder is off (WORKSPACE_ACCESS_CACHE_DIR is none)",
    });
  });
});
