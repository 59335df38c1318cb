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

/**
 * The refusal of an address `file` records that the user never gave, the cache folder on (`known`: its file; `closest`: the
 * remembered address it names).
 */
const notGiven = (file: string, address: string, known: string, closest?: string) =>
  `${file} records the workspace ${address}, which you have not given this command on this machine yourself` +
  `${closest === undefined ? "" : ` (the addresses you gave before include ${closest}; compare them)`}. A branch ` +
  `(a colleague's, a pull request) can edit ${file} to point anywhere, so the key goes to the address it records only ` +
  `once you have given that address. If it is the workspace you mean, pass --base-url ${address} once (it is then ` +
  `remembered, in ${known}), or set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST).`;

/** The refusal of an address `file` records when no list of addresses given could be used, and `why`. */
const noneRemembered = (file: string, address: string, why: string) =>
  `${file} records the workspace ${address}, and no address you gave before is remembered: ${why}. A branch (a colleague's, ` +
  `a pull request) can edit ${file} to point anywhere, so the key goes only to an address given now. If it is the workspace ` +
  `you mean, pass --base-url ${address}, or set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST).`;

/** A project exported from `ours` whose access.yaml a branch pointed at `theirs`, the requests so far forgotten. */
async function branchPointingAt(ours: Emulator, theirs: Emulator): Promise<{ dir: string; file: string }> {
  const { dir } = await runExport(options(ours));
  const file = path.join(dir, "access.yaml");
  fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(`workspace: ${ours.url}\n`, `workspace: ${theirs.url}\n`));
  ours.clearRequests();
  return { dir, file };
}

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
    vi.restoreAllMocks();
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
      // The one address given before is named beside it: a look-alike host would stand out.
      expect(refused.message).toBe(notGiven(file, theirs.url, path.join(cache, KNOWN_WORKSPACES_FILE), ours.url));
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

  // Each is taken as no address remembered (refused, not a crash; the reason said when the file was not read), and replaced
  // once an address is given.
  it.each<[string, (file: string, emu: Emulator) => void, string?]>([
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
      "more than 65536 bytes, more than a file of ours holds",
    ],
    // Not a regular file: never read (a device never ends), and a link the write replaces.
    ...(process.platform === "win32"
      ? []
      : [
          ["a device (a link to /dev/zero)", (file: string) => fs.symlinkSync("/dev/zero", file), "not a regular file"] satisfies [
            string,
            unknown,
            string,
          ],
        ]),
  ])("is refused when the remembered file is %s, which the next address given replaces", async (_, plant, unread) => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const known = path.join(freshCacheDir(), KNOWN_WORKSPACES_FILE);
    plant(known, emu);
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(
      unread === undefined ? notGiven(file, emu.url, known) : noneRemembered(file, emu.url, `${known} was not read: ${unread}`),
    );
    expect(emu.requests).toEqual([]);
    expect(await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).toMatchObject({ changes: [] });
    expect(JSON.parse(fs.readFileSync(known, "utf8"))).toEqual({ version: 1, workspaces: [emu.url] });
    expect(await runCheck({ out: dir, env: env(emu) })).toMatchObject({ changes: [], workspace: emu.url });
  });

  it("is refused, saying why, when a folder stands where the remembered file goes: not read, not written (said), not a crash", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const known = path.join(freshCacheDir(), KNOWN_WORKSPACES_FILE);
    fs.mkdirSync(known);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await runCheck({ out: dir, baseUrl: emu.url, env: env(emu) })).toMatchObject({ changes: [] });
    // The address given could not be remembered: said, with the file, the error, and what to do instead.
    expect(stderr.mock.calls.map(([text]) => String(text))).toEqual([
      `workspace-access-export: warning: could not remember ${emu.url} in ${known} (EISDIR): a later --check will not send the ` +
        `key to the address access.yaml records. Set WORKSPACE_ACCESS_BASE_URL to the workspace's address instead, or correct ${known}.\n`,
    ]);
    stderr.mockRestore();
    emu.clearRequests();
    // The refusal says why, not "pass --base-url once": that would go round in circles.
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(noneRemembered(file, emu.url, `${known} was not read: not a regular file`));
    expect(emu.requests).toEqual([]);
    expect(fs.statSync(known).isDirectory()).toBe(true);
    // No temporary file left behind.
    expect(fs.readdirSync(path.dirname(known))).toEqual([KNOWN_WORKSPACES_FILE]);
  });
});

describe("the addresses remembered", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
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

  it("name, in a refusal, the one closest to the address access.yaml records: a look-alike host stands out", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const { dir, file } = await exportedUnremembered(emu);
    const cache = freshCacheDir();
    for (const given of ["https://acme.example.com/api/v1/", "https://other.example.org/api/v1/", emu.url]) await rememberWorkspace(given);
    const lookAlike = "https://acme.examp1e.com/api/v1/";
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(`workspace: ${emu.url}\n`, `workspace: ${lookAlike}\n`));
    const refused = await rejection(runCheck({ out: dir, env: env(emu) }));
    expect(refused.message).toBe(notGiven(file, lookAlike, path.join(cache, KNOWN_WORKSPACES_FILE), "https://acme.example.com/api/v1/"));
    expect(emu.requests).toEqual([]);
  });

  it("are none, and say why, with the cache folder off", async () => {
    expect(await knownWorkspaces({ WORKSPACE_ACCESS_CACHE_DIR: "none" })).toEqual({
      file: undefined,
      why: "the cache folder is off (WORKSPACE_ACCESS_CACHE_DIR is none)",
    });
  });
});

describe("a list of addresses a branch or another user could have written", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  /** The branch's own list, committed at `folder/known-workspaces.json`: it names the address its access.yaml points to. */
  const commitList = (folder: string, address: string) => {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(folder, KNOWN_WORKSPACES_FILE), JSON.stringify({ version: 1, workspaces: [address] }), { mode: 0o600 });
  };

  it("is not used when WORKSPACE_ACCESS_CACHE_DIR is relative (a repository's .envrc): the branch's list sends nothing", async () => {
    const ours = await emulator({ seed: twoMembers() });
    const theirs = await emulator({ seed: twoMembers() });
    freshCacheDir();
    const { dir, file } = await branchPointingAt(ours, theirs);
    commitList(path.join(dir, ".wa-cache"), theirs.url);
    // `.wa-cache` as a shell in the project would resolve it: relative to the folder the command runs in.
    const relative = path.relative(process.cwd(), path.join(dir, ".wa-cache"));
    vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", relative);
    const refused = await rejection(runCheck({ out: dir, env: env(ours) }));
    expect(refused.message).toBe(
      noneRemembered(
        file,
        theirs.url,
        `WORKSPACE_ACCESS_CACHE_DIR is ${relative}, a relative path, which the addresses you gave are never kept under: it ` +
          "names a folder in whichever folder the command runs in, one a branch can commit. Set it to an absolute path",
      ),
    );
    expect(theirs.requests).toEqual([]);
    // Nor is an address given kept there.
    expect(await runCheck({ out: dir, baseUrl: ours.url, env: env(ours) })).toMatchObject({ workspace: ours.url });
    expect(JSON.parse(fs.readFileSync(path.join(dir, ".wa-cache", KNOWN_WORKSPACES_FILE), "utf8")).workspaces).toEqual([theirs.url]);
    expect(theirs.requests).toEqual([]);
  });

  it.each([
    ["the project (an absolute WORKSPACE_ACCESS_CACHE_DIR=$PWD/.wa-cache)", "project"],
    ["the repository holding the project (the project in a subfolder, the repository's .envrc naming its root's .wa-cache)", "repository"],
  ] as const)("is not used when the cache folder is inside %s", async (_, where) => {
    const ours = await emulator({ seed: twoMembers() });
    const theirs = await emulator({ seed: twoMembers() });
    freshCacheDir();
    const { dir, file } = await branchPointingAt(ours, theirs);
    // The project is the repository's `access/`.
    const repository = fs.realpathSync(path.dirname(dir));
    if (where === "repository") fs.mkdirSync(path.join(repository, ".git"));
    const holder = where === "project" ? dir : repository;
    const inside = path.join(holder, ".wa-cache");
    commitList(inside, theirs.url);
    vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", inside);
    const refused = await rejection(runCheck({ out: dir, env: env(ours) }));
    const which = where === "project" ? "the project's folder" : "the repository holding the project";
    expect(refused.message).toBe(
      noneRemembered(
        file,
        theirs.url,
        `the cache folder ${inside} is inside ${holder}, ${which}, whose files a branch chooses: the addresses you ` +
          "gave are never kept there. Set WORKSPACE_ACCESS_CACHE_DIR to a folder outside it",
      ),
    );
    expect(theirs.requests).toEqual([]);
  });

  it.runIf(process.platform !== "win32").each<[string, (known: string) => void, (known: string) => string]>([
    [
      "the file writable by its group",
      (known) => fs.chmodSync(known, 0o664),
      () => "it is writable by its group (mode 664; chmod go-w makes it the user's alone)",
    ],
    [
      "its folder writable by others",
      (known) => fs.chmodSync(path.dirname(known), 0o703),
      (known) => `its folder ${path.dirname(known)} is writable by others (mode 703; chmod go-w makes it the user's alone)`,
    ],
    [
      "the folder owned by another user",
      () => vi.spyOn(process, "getuid").mockReturnValue(process.getuid!() + 1),
      (known) =>
        `its folder ${path.dirname(known)} is owned by another user (uid ${process.getuid!() - 1}, this process's is ${process.getuid!()})`,
    ],
  ])(
    "is not trusted, as SSH's StrictModes, with %s: the branch's address gets nothing, and the refusal says why",
    async (_, spoil, why) => {
      const ours = await emulator({ seed: twoMembers() });
      const theirs = await emulator({ seed: twoMembers() });
      const cache = freshCacheDir();
      const { dir, file } = await branchPointingAt(ours, theirs);
      const known = path.join(cache, KNOWN_WORKSPACES_FILE);
      // Another user who can write the list (or owns it) added the branch's address.
      commitList(cache, theirs.url);
      spoil(known);
      const refused = await rejection(runCheck({ out: dir, env: env(ours) }));
      expect(refused.message).toBe(noneRemembered(file, theirs.url, `${known} was not read: ${why(known)}`));
      expect(theirs.requests).toEqual([]);
    },
  );

  it.runIf(process.platform !== "win32")(
    "makes the package's own cache folder, left group-writable by an earlier version, the user's alone: the export's address is then trusted",
    async () => {
      const emu = await emulator({ seed: twoMembers() });
      const xdg = path.join(freshCacheDir(), "xdg");
      // No WORKSPACE_ACCESS_CACHE_DIR: the package's own folder in the user's cache folder, made 0775 under umask 002 before.
      vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", undefined);
      vi.stubEnv("XDG_CACHE_HOME", xdg);
      const own = path.join(xdg, "pulumi-workspace-access");
      fs.mkdirSync(own, { recursive: true });
      fs.chmodSync(own, 0o775);
      const { dir } = await runExport(options(emu));
      expect(fs.statSync(own).mode & 0o777).toBe(0o700);
      emu.clearRequests();
      expect(await runCheck({ out: dir, env: env(emu) })).toMatchObject({ workspace: emu.url });
      // A folder WORKSPACE_ACCESS_CACHE_DIR names keeps the mode the user gave it (the refusal says chmod go-w instead).
      const named = path.join(xdg, "named");
      fs.mkdirSync(named, { mode: 0o700 });
      fs.chmodSync(named, 0o775);
      vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", named);
      await runExport(options(emu));
      expect(fs.statSync(named).mode & 0o777).toBe(0o775);
    },
  );

  it.runIf(process.platform !== "win32")("is written in a cache folder made for the user alone, whatever the umask", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const cache = path.join(freshCacheDir(), "made", "here");
    vi.stubEnv("WORKSPACE_ACCESS_CACHE_DIR", cache);
    const umask = process.umask(0o002);
    try {
      await runExport(options(emu));
    } finally {
      process.umask(umask);
    }
    expect(fs.statSync(cache).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(cache)).mode & 0o777).toBe(0o700);
    const known = await knownWorkspaces();
    expect(known.file && [...known.addresses]).toEqual([emu.url]);
  });
});

describe("an address given", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is remembered only once the workspace answered there: a mistyped --base-url is not, to the export or to --check", async () => {
    const emu = await emulator({ seed: twoMembers() });
    const cache = freshCacheDir();
    const mistyped = `${emu.url.slice(0, -"v1/".length)}v2/`;
    await rejection(runExport(options(emu, { baseUrl: mistyped })));
    expect(fs.existsSync(path.join(cache, KNOWN_WORKSPACES_FILE))).toBe(false);
    const { dir } = await runExport(options(emu));
    await rejection(runCheck({ out: dir, baseUrl: mistyped, env: env(emu) }));
    expect(JSON.parse(fs.readFileSync(path.join(cache, KNOWN_WORKSPACES_FILE), "utf8")).workspaces).toEqual([emu.url]);
  });
});
