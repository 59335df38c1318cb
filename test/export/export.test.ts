/**
 * The export in process, against the emulator over loopback: what is read (asserted on the
 * emulator's request log), what is written, what is left out and why, and the errors and their
 * fixes (the key never in any of them). Retries and waits run on a virtual clock. Records the
 * export cannot write as they are: `export-records.test.ts`; the access review (`--check`):
 * `check.test.ts`.
 */
import * as fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, POPULATED_IDS, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { type ExportOptions, runExport } from "../../src/export/run";
import { exportConnection, withClient } from "../../src/export/connect";
import { choosePackageSpec } from "../../src/export/package-spec";
import { projectFiles } from "../../src/export/project";
import { runCheck } from "../../src/export/run-check";
import { VirtualClock } from "../support/virtual-clock";
import { env, freshDir, gets, options, readFiles } from "./support";

const { integrations, users } = POPULATED_IDS;
/** No address remembered: the recorded one is refused unless a problem of its own is found first. */
const NONE_KNOWN = { file: "/cache/known-workspaces.json", addresses: new Set<string>() };

describe("an export of the populated world", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated" });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  afterEach(() => {
    emulator.clearRequests();
  });

  it("writes the same files twice: sorted, no timestamps", async () => {
    const first = await runExport(options(emulator));
    const second = await runExport(options(emulator));
    expect(readFiles(second.dir)).toEqual(readFiles(first.dir));
    expect(first.files).toEqual([".gitignore", "Pulumi.yaml", "README.md", "access.yaml", "index.ts", "package.json", "tsconfig.json"]);
    const file = parseAccessFile(fs.readFileSync(path.join(first.dir, "access.yaml"), "utf8"));
    const emails = file.users.map((u) => u.email.toLowerCase());
    expect(emails).toEqual([...emails].sort());
    expect(new Set(file.users.map((u) => u.name)).size).toBe(file.users.length);
    expect(new Set(file.memberships.map((m) => m.name)).size).toBe(file.memberships.length);
    expect(fs.readFileSync(path.join(first.dir, "access.yaml"), "utf8")).not.toMatch(/20\d\d-\d\d-\d\d/);
  });

  it("holds what adoption needs: names, roles and guest flags as read, member roles as the invite names them", async () => {
    const result = await runExport(options(emulator));
    const file = parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8"));
    const byEmail = (email: string) => file.users.find((u) => u.email === email);
    const seeded = (id: string) => emulator.users.get(id)!;
    expect(byEmail(seeded(users.owner).email)).toEqual({
      name: "user000-at-acme.example",
      email: "user000@acme.example",
      firstName: seeded(users.owner).firstName,
      lastName: seeded(users.owner).lastName,
      role: "workspace_owner",
      isGuest: false,
      // The workspace's id, by which the `sets` shape declares members.
      id: users.owner,
    });
    expect(byEmail(seeded(users.guest).email)).toMatchObject({ role: "workspace_guest_user", isGuest: true });
    expect(byEmail(seeded(users.unknownRole).email)).toMatchObject({ role: "workspace_billing_admin" });
    expect(byEmail(seeded(users.pending).email)).toBeUndefined();
    const owner = file.memberships.find((m) => m.integrationId === integrations.small && m.user === "user000@acme.example");
    expect(owner).toMatchObject({ role: "account_owner", entitlements: ["MAINTAIN"], name: "github-acme--user000-at-acme.example" });
    expect(file.memberships.find((m) => m.integrationId === integrations.big && m.user === "user000@acme.example")).toMatchObject({
      role: "account_owner",
      entitlements: ["ADMIN", "VIEWER"],
    });
  });

  it("reads every list twice, the integrations', the users' and each integration's members: 100 a page, then 99 a page to prove it", async () => {
    const result = await runExport(options(emulator));
    const lines = gets(emulator);
    expect(lines.every((line) => line.startsWith("GET "))).toBe(true);
    // 512 users: 6 pages, then 6 more; 300 members: 3 pages, then 4; two small member lists: 1 page each, twice.
    expect(lines.filter((l) => l === "GET /users")).toHaveLength(12);
    expect(lines.filter((l) => l === "GET /integrations")).toHaveLength(2);
    expect(lines.filter((l) => l === `GET /integrations/${integrations.big}/users`)).toHaveLength(7);
    expect(lines).toHaveLength(25);
    expect(result.requests).toBe(25);
  });

  it("limits memberships to --integration (by label or id) and users to their members with --members-only", async () => {
    const result = await runExport(options(emulator, { integrations: ["GitHub acme", integrations.smallTwin], membersOnly: true }));
    expect(gets(emulator).filter((l) => l.includes(integrations.big))).toEqual([]);
    const file = parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8"));
    expect(file.scope).toEqual({ integrations: [integrations.small, integrations.smallTwin].sort(), membersOnly: true });
    expect(file.integrations.map((i) => i.name)).toEqual(["github-acme", "github-acme-labs"]);
    // The four members of the two, but the pending one, who has no names.
    expect(file.users.map((u) => u.email)).toEqual([
      "user000@acme.example",
      "user002@acme.example",
      "user007@acme.example",
      "User010@PARTNER.EXAMPLE",
    ]);
    expect(result.leftOut.map((l) => l.text)).toEqual([
      `user ${users.pending} <user050@acme.example>: no first name`,
      `membership of ${users.pending} <user050@acme.example> in "GitHub acme": its user is left out (no first name)`,
    ]);
  });

  it("depends on this package at ^ its version, or at --package-spec; the README says what to put there until it is published", async () => {
    const version = (JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;
    const dependency = (dir: string) =>
      (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies[
        "pulumi-workspace-access"
      ];
    const plain = await runExport(options(emulator));
    // A tarball npm pack wrote beside this checkout (or its folder) is what the export picks first: the test must not depend on one.
    const root = path.join(__dirname, "..", "..");
    const beside = [path.dirname(root), root].some((dir) => fs.existsSync(path.join(dir, `pulumi-workspace-access-${version}.tgz`)));
    // What the README says to put there until the package is published.
    const saysWhatUntilPublished = (text: string) => {
      const readme = text.replace(/\s+/g, " ");
      expect(readme).toContain(`depends on pulumi-workspace-access at \`^${version}\`. Until pulumi-workspace-access is published`);
      expect(readme).toContain(`"pulumi-workspace-access": "file:../pulumi-workspace-access-${version}.tgz"`);
      expect(readme).toContain("or export again with `--package-spec`");
    };
    if (beside) expect(dependency(plain.dir)).toMatch(new RegExp(`^file:.*pulumi-workspace-access-${version}\\.tgz$`));
    else {
      expect(dependency(plain.dir)).toBe(`^${version}`);
      saysWhatUntilPublished(fs.readFileSync(path.join(plain.dir, "README.md"), "utf8"));
    }
    // And whatever lies beside this checkout (a tarball there takes the branch above away from those words): the project
    // as the export writes it with the spec chosen where nothing the package came from is known.
    const nowhere = path.join(path.dirname(freshDir()), "clone");
    const unknown = choosePackageSpec(path.join(path.dirname(nowhere), "access"), nowhere);
    expect(unknown.spec).toBe(`^${version}`);
    const counts = { users: 1, memberships: 0, integrations: 0 };
    saysWhatUntilPublished(projectFiles(emulator.url, counts, unknown, "records")["README.md"] ?? "");

    const spec = "git+https://git.example.com/acme/pulumi-workspace-access.git#v0.1.0";
    const given = await runExport(options(emulator, { packageSpec: spec }));
    expect(dependency(given.dir)).toBe(spec);
    expect(fs.readFileSync(path.join(given.dir, "README.md"), "utf8").replace(/\s+/g, " ")).toContain(
      `depends on pulumi-workspace-access at \`${spec}\` (given with \`--package-spec\`)`,
    );
  });

  it("refuses an unknown --integration before reading any user or member, writing nothing", async () => {
    const opts = options(emulator, { integrations: ["Jira"] });
    await expect(runExport(opts)).rejects.toThrow(
      /--integration "Jira" is not the id or label of an integration of the workspace .* "GitHub acme" \(5b1f0000-0000-4000-8000-000000000002\)/,
    );
    // The integration list, and the listing that proves it.
    expect(gets(emulator)).toEqual(["GET /integrations", "GET /integrations"]);
    expect(fs.existsSync(opts.out)).toBe(false);
  });

  it("refuses an existing non-empty directory before any request, and overwrites nothing", async () => {
    const dir = freshDir();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "index.ts"), "// mine\n");
    await expect(runExport(options(emulator, { out: dir }))).rejects.toThrow(
      /is not empty: the export writes a whole project and never overwrites.*--check/,
    );
    expect(emulator.requests).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual(["index.ts"]);
    expect(fs.readFileSync(path.join(dir, "index.ts"), "utf8")).toBe("// mine\n");
    // An existing empty directory is fine.
    const empty = freshDir();
    fs.mkdirSync(empty);
    await expect(runExport(options(emulator, { out: empty }))).resolves.toMatchObject({ users: 482 });
  });
});
describe("a failure while writing the project", () => {
  /** Runs `work` with fs.writeFileSync failing (ENOSPC) at its `nth` call for a path under `under`. */
  async function withFullDisk<T>(under: string, nth: number, work: () => Promise<T>): Promise<T> {
    const nodeFs = process.getBuiltinModule("node:fs") as unknown as Record<string, unknown>;
    const real = nodeFs["writeFileSync"] as (...args: unknown[]) => unknown;
    let calls = 0;
    nodeFs["writeFileSync"] = (...args: unknown[]) => {
      if (String(args[0]).startsWith(under) && ++calls === nth) {
        throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(args[0])}'`), { code: "ENOSPC" });
      }
      return real(...args);
    };
    // `import * as fs from "node:fs"` in ES modules reads these bindings too.
    syncBuiltinESMExports();
    try {
      return await work();
    } finally {
      nodeFs["writeFileSync"] = real;
      syncBuiltinESMExports();
    }
  }

  it.each([
    ["a new directory", false],
    ["an existing empty directory", true],
  ])("leaves nothing behind in %s: no project at all rather than part of one", async (_, exists) => {
    const emulator = await startEmulator({
      seed: { users: [{ id: "u-ok", email: "ok@x.example", firstName: "Ok", lastName: "Person" }], integrations: [] },
    });
    try {
      const out = freshDir();
      const parent = path.dirname(out);
      if (exists) fs.mkdirSync(out);
      // The third file fails: two are written by then.
      await expect(withFullDisk(parent, 3, () => runExport(options(emulator, { out })))).rejects.toThrow(/ENOSPC/);
      expect(fs.readdirSync(parent)).toEqual(exists ? ["access"] : []);
      if (exists) expect(fs.readdirSync(out)).toEqual([]);
      // And the same directory takes the whole project afterwards.
      const result = await runExport(options(emulator, { out }));
      expect(fs.readdirSync(out).sort()).toEqual(result.files);
      expect(fs.readdirSync(parent)).toEqual(["access"]);
    } finally {
      await emulator.close();
    }
  });

  it("leaves no folder it made for a new directory's parents", async () => {
    const emulator = await startEmulator({ seed: { users: [], integrations: [] } });
    try {
      const top = path.dirname(freshDir());
      const out = path.join(top, "new", "deeper", "access");
      await expect(withFullDisk(top, 1, () => runExport(options(emulator, { out })))).rejects.toThrow(/ENOSPC/);
      expect(fs.readdirSync(top)).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe("errors name the fix, never the key", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated", keys: { wa_emu_users_only_key: ["read:users"] } });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  const failure = async (opts: ExportOptions, clock?: VirtualClock): Promise<Error> => {
    try {
      await runExport(opts, clock ? { clock, random: () => 0 } : {});
    } catch (error) {
      expect(fs.existsSync(opts.out)).toBe(false);
      return error as Error;
    }
    throw new Error("the export should have failed");
  };

  it.each([
    [
      "no key",
      {},
      /No API key: set WORKSPACE_ACCESS_API_KEY to a key of the workspace with the scopes Read users \(read:users\) and Read integrations \(read:integrations\)\. .*never from a flag/,
    ],
    [
      "a key with a space",
      { WORKSPACE_ACCESS_API_KEY: "wa_emu not a key" },
      /^WORKSPACE_ACCESS_API_KEY contains spaces or control characters/,
    ],
  ])("%s", async (_what, envValues, message) => {
    const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: envValues });
    expect(error.message).toMatch(message);
  });

  it("no address", async () => {
    const error = await failure({ out: freshDir(), env: env(emulator) });
    expect(error.message).toBe(
      "No workspace address: pass --base-url https://<workspace>.<host>/api/v1/, or set WORKSPACE_ACCESS_BASE_URL (or WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST).",
    );
  });

  it("an address from the provider's environment variables, checked the same way", async () => {
    const error = await failure({
      out: freshDir(),
      env: { ...env(emulator), WORKSPACE_ACCESS_WORKSPACE: "acme corp", WORKSPACE_ACCESS_HOST: "example.com" },
    });
    expect(error.message).toMatch(/^WORKSPACE_ACCESS_WORKSPACE must be a single DNS label/);
    expect(error.message).not.toContain("acme corp");
    const plain = await failure({
      out: freshDir(),
      env: { ...env(emulator), WORKSPACE_ACCESS_BASE_URL: "http://acme.example.com/api/v1/" },
    });
    expect(plain.message).toMatch(/plain http:\/\//);
  });

  it("a wrong address: nothing listening", async () => {
    const closed = await startEmulator({ seed: {} });
    const url = closed.url;
    await closed.close();
    const error = await failure({ out: freshDir(), baseUrl: url, env: env(emulator) }, new VirtualClock());
    expect(error.message).toMatch(
      new RegExp(
        `Check the address \\(--base-url\\): ${url.replace(/[.]/g, "\\.")} could not be reached; it should be the workspace's API root`,
      ),
    );
    expect(error.message).not.toContain(emulator.apiKey);
  });

  // The client names the address where the export's user set it: one fix, whole (the key's scopes too: the integrations'
  // listing, the request that answered 404, and the users', the address's proof), and nothing rewritten.
  const notTheApi = (from: string) =>
    new RegExp(
      `GET /api/v2/integrations answered 404, and so did GET /api/v2/users, .*so nothing was read as gone\\. Either .* is not the ` +
        `workspace's API root: check ${from}, it should be the API root, such as https://acme\\.example\\.com/api/v1/\\. Or it is, ` +
        "and the service answers 404 \\(not disclosed\\) to a key without Read integrations and Read users: give the key in \\S+ " +
        "the scopes Read integrations \\(read:integrations\\) and Read users \\(read:users\\)\\.$",
    );

  it("a wrong address: a server that is not the API (404), named as the flag, or the variable, that set it", async () => {
    const wrong = emulator.url.replace("/api/v1/", "/api/v2/");
    const flagged = await failure({ out: freshDir(), baseUrl: wrong, env: env(emulator) });
    expect(flagged.message).toMatch(notTheApi("--base-url"));
    const variable = await failure({ out: freshDir(), env: { ...env(emulator), WORKSPACE_ACCESS_BASE_URL: wrong } });
    expect(variable.message).toMatch(notTheApi("WORKSPACE_ACCESS_BASE_URL"));
    for (const error of [flagged, variable]) {
      expect(error.message).not.toContain("baseUrl");
      expect(error.message).not.toContain("Check the address");
      expect(error.message).not.toContain(emulator.apiKey);
    }
  });

  it("a wrong address built from WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST: both named, and the variable giving it whole", async () => {
    const built = exportConnection(undefined, {
      ...env(emulator),
      WORKSPACE_ACCESS_WORKSPACE: "acme",
      WORKSPACE_ACCESS_HOST: "example.com",
    });
    expect(built).toMatchObject({
      baseUrl: "https://acme.example.com/api/v1/",
      builtFrom: { workspace: "WORKSPACE_ACCESS_WORKSPACE", host: "WORKSPACE_ACCESS_HOST" },
    });
    // No https://acme.example.com on loopback: the emulator under a path that is not the API's root stands in for it.
    const wrong = emulator.url.replace("/api/v1/", "/api/v2/");
    const listed = withClient({ ...built, baseUrl: wrong }, { clock: new VirtualClock() }, (client) => client.users.list().next());
    const error = await listed.then(
      () => new Error("listed"),
      (thrown: unknown) => thrown as Error,
    );
    expect(error.message).toContain(
      `Either ${wrong}, the address built from WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST as ` +
        "https://<workspace>.<host>/api/v1/, is not the workspace's API root: check both, or set WORKSPACE_ACCESS_BASE_URL " +
        "to the API root, should it not be of that form. Or it is,",
    );
    expect(error.message).not.toContain(emulator.apiKey);
  });

  it("a wrong address built from WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST, nothing listening: the URL built, both named", async () => {
    const built = exportConnection(undefined, {
      ...env(emulator),
      WORKSPACE_ACCESS_WORKSPACE: "acme",
      WORKSPACE_ACCESS_HOST: "example.com",
    });
    // No https://acme.example.com on loopback: a closed emulator's address stands in for it.
    const closed = await startEmulator({ seed: {} });
    const url = closed.url;
    await closed.close();
    const listed = withClient({ ...built, baseUrl: url }, { clock: new VirtualClock() }, (client) => client.users.list().next());
    const error = await listed.then(
      () => new Error("listed"),
      (thrown: unknown) => thrown as Error,
    );
    expect(error.message).toMatch(
      new RegExp(
        ` ${url.replace(/[.]/g, "\\.")}, the address built from WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST as ` +
          "https://<workspace>\\.<host>/api/v1/, could not be reached: check both, or set WORKSPACE_ACCESS_BASE_URL to the " +
          "API root, should it not be of that form\\.$",
      ),
    );
    expect(error.message).not.toContain("such as https://");
    expect(error.message).not.toContain(emulator.apiKey);
  });

  it("a key the client refuses before sending, named as the variable it comes from", async () => {
    const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator, "short") });
    expect(error.message).toMatch(/^WORKSPACE_ACCESS_API_KEY is too short to be a workspace API key/);
  });

  // The export's user sets the key and the address, nothing else: the client's limits are said, their settings not named.
  describe("a limit the export's user cannot set, said without naming a setting", () => {
    afterEach(() => emulator.clearFaults());
    const limits = /maxRetries|retryMaxDelayMs|maxRateLimitWaitSeconds|maxRateLimitRetries|workspace-access:|raise that setting/i;

    it("the retries spent on a lasting 503", async () => {
      emulator.fault({ method: "GET", path: /./, status: 503, times: 50 });
      const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator) }, new VirtualClock());
      expect(error.message).toMatch(/answered 503: .*\. Gave up after 5 retries\.$/);
      expect(error.message).not.toMatch(limits);
    });

    it("a 503 asking longer than a retry waits", async () => {
      emulator.fault({ method: "GET", path: /./, status: 503, headers: { "Retry-After": "60" }, times: 50 });
      const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator) }, new VirtualClock());
      expect(error.message).toMatch(
        /It asked to be called again in 60 s \(Retry-After\), longer than a retry waits \(20000 ms\): run again later\.$/,
      );
      expect(error.message).not.toMatch(limits);
    });

    it("a 429 asking longer than a wait may last", async () => {
      emulator.fault({ method: "GET", path: /./, status: 429, headers: { "Retry-After": "3600" }, times: 50 });
      const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator) }, new VirtualClock());
      expect(error.message).toMatch(
        /answered 429 \(rate limited\) with Retry-After: 3600 s, longer than a wait may last \(300 s\)\. Run again later\./,
      );
      expect(error.message).not.toMatch(limits);
    });
  });

  it("one of WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST set alone is refused naming the other, not passed over for access.yaml's", () => {
    const recorded = { baseUrl: "https://acme.example.com/api/v1/", file: "access.yaml", known: NONE_KNOWN };
    const key = { WORKSPACE_ACCESS_API_KEY: "wa_key_0123456789" };
    expect(() => exportConnection(undefined, { ...key, WORKSPACE_ACCESS_WORKSPACE: "globex" }, recorded)).toThrow(
      "WORKSPACE_ACCESS_WORKSPACE is set but WORKSPACE_ACCESS_HOST is not: the address is built from the two " +
        "(https://<workspace>.<host>/api/v1/). Set WORKSPACE_ACCESS_HOST too, or set WORKSPACE_ACCESS_BASE_URL to the whole address, or pass --base-url.",
    );
    expect(() => exportConnection(undefined, { ...key, WORKSPACE_ACCESS_HOST: "example.com" })).toThrow(
      "WORKSPACE_ACCESS_HOST is set but WORKSPACE_ACCESS_WORKSPACE is not",
    );
    // Either wins whole: the flag, or the base URL variable.
    expect(exportConnection("https://acme.example.com/api/v1/", { ...key, WORKSPACE_ACCESS_HOST: "example.com" })).toMatchObject({
      baseUrlFrom: "--base-url",
    });
  });

  it("an address with no path recorded in access.yaml, refused naming the file and the fix", () => {
    const recorded = { baseUrl: "https://acme.example.com", file: "access.yaml", known: NONE_KNOWN };
    expect(() => exportConnection(undefined, { WORKSPACE_ACCESS_API_KEY: "wa_key_0123456789" }, recorded)).toThrow(
      "the address access.yaml records has no path: the API is under /api/v1/ at the workspace's address, e.g. " +
        "https://acme.example.com/api/v1/. Correct it in access.yaml, or pass --base-url.",
    );
  });

  it("an address with no path (the workspace's origin), refused before any request, as the provider refuses it", async () => {
    emulator.clearRequests();
    const error = await failure({ out: freshDir(), baseUrl: emulator.url.replace("/api/v1/", "/"), env: env(emulator) });
    expect(error.message).toContain("--base-url has no path: the API is under /api/v1/");
    expect(emulator.requests).toEqual([]);
  });

  it.each([401, 403] as const)("a key the service refuses (%i), naming the scopes the export needs", async (status) => {
    emulator.setMissingScopeStatus(status);
    const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator, "wa_emu_users_only_key") });
    expect(error.message).toMatch(new RegExp(`answered ${status}`));
    expect(error.message).toContain("its key needs the scopes Read users (read:users) and Read integrations (read:integrations)");
    expect(error.message).toContain("The key comes from WORKSPACE_ACCESS_API_KEY.");
    expect(error.message).not.toContain("wa_emu_users_only_key");
  });

  it("an unknown key (401)", async () => {
    const error = await failure({ out: freshDir(), baseUrl: emulator.url, env: env(emulator, "wa_emu_0123456789abcdef") });
    expect(error.message).toMatch(/answered 401.*Read users \(read:users\) and Read integrations/);
    expect(error.message).not.toContain("wa_emu_0123456789abcdef");
  });

  it("--check without an exported project", async () => {
    const dir = freshDir();
    await expect(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).rejects.toThrow(
      `--check needs an exported project: ${path.join(dir, "access.yaml")} does not exist.`,
    );
  });
});
