/**
 * The export in process, against the emulator over loopback: what is read (asserted on the
 * emulator's request log), what is written, what is left out and why, and the errors and their
 * fixes (the key never in any of them). Retries and waits run on a virtual clock. The access
 * review (`--check`) is `check.test.ts`.
 */
import * as fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, POPULATED_IDS, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { type ExportOptions, runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { VirtualClock } from "../support/virtual-clock";
import { answerWith, copy, env, freshDir, gets, options, rawPage, readFiles, twoMembers, YT } from "./support";

const { integrations, users } = POPULATED_IDS;

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

  it("reads only the integration list, the user pages and the member pages, each once", async () => {
    const result = await runExport(options(emulator));
    const lines = gets(emulator);
    expect(lines.every((line) => line.startsWith("GET "))).toBe(true);
    expect(lines.filter((l) => l === "GET /users")).toHaveLength(6);
    expect(lines.filter((l) => l === "GET /integrations")).toHaveLength(1);
    expect(lines.filter((l) => l === `GET /integrations/${integrations.big}/users`)).toHaveLength(3);
    expect(lines).toHaveLength(12);
    expect(result.requests).toBe(12);
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
    expect(dependency(plain.dir)).toBe(`^${version}`);
    const readme = fs.readFileSync(path.join(plain.dir, "README.md"), "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(`depends on pulumi-workspace-access at \`^${version}\`. Until pulumi-workspace-access is published`);
    expect(readme).toContain(`"pulumi-workspace-access": "file:../pulumi-workspace-access-${version}.tgz"`);
    expect(readme).toContain("or export again with `--package-spec`");

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
    expect(gets(emulator)).toEqual(["GET /integrations"]);
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

describe("records the export cannot represent", () => {
  it("are left out whole and listed with the reason; the rest is exported", async () => {
    const emulator = await startEmulator({
      seed: {
        users: [
          { id: "u-ok", email: "ok@x.example", firstName: "Ok", lastName: "Person" },
          { id: "u-noname", email: "noname@x.example", firstName: null, lastName: "Person" },
          { id: "u-bademail", email: "not an email", firstName: "Bad", lastName: "Email" },
          { id: "u-longname", email: "long@x.example", firstName: "L".repeat(101), lastName: "Name" },
        ],
        integrations: [
          {
            id: "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01",
            application: "YouTube",
            label: "YouTube acme",
            entitlements: [{ id: "VIEWER" }],
            users: [
              { userId: "u-ok", entitlements: ["VIEWER"] },
              { userId: "u-noname", entitlements: ["VIEWER"] },
              { userId: "u-bademail", entitlements: [] },
            ],
          },
        ],
      },
    });
    try {
      // A user record without an email, and one that breaks the contract (a number for a name), on the first page.
      const page = (await (
        await fetch(`${emulator.url}users?page%5Bsize%5D=100`, { headers: { "x-api-key": emulator.apiKey } })
      ).json()) as {
        data: Array<Record<string, unknown>>;
      };
      page.data.push({ id: "u-noemail", type: "user", attributes: { firstName: "No", lastName: "Email", role: "workspace_login_only" } });
      page.data.push({ id: "u-broken", type: "user", attributes: { email: "broken@x.example", firstName: 42 } });
      emulator.fault({ method: "GET", path: "/users", body: JSON.stringify({ ...page, links: { next: null } }) });
      const result = await runExport(options(emulator));
      // Users first, then memberships; each by email (a record without one first).
      expect(result.leftOut.map((l) => l.text)).toEqual([
        expect.stringMatching(
          /^user u-broken: GET \/api\/v1\/users answered 200 with a record \(id u-broken\) that does not match the API contract: field "attributes\.firstName"/,
        ),
        "user u-noemail: no email",
        "user u-longname <long@x.example>: firstName must be at most 100 characters",
        "user u-noname <noname@x.example>: no first name",
        "user u-bademail <not an email>: email must be a valid address such as alice@example.com",
        'membership of u-noname <noname@x.example> in "YouTube acme": its user is left out (no first name)',
        'membership of u-bademail <not an email> in "YouTube acme": its user is left out (email must be a valid address such as alice@example.com)',
      ]);
      const file = parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8"));
      expect(file.users.map((u) => u.email)).toEqual(["ok@x.example"]);
      expect(file.memberships.map((m) => m.user)).toEqual(["ok@x.example"]);
    } finally {
      await emulator.close();
    }
  });
});

describe("users whose emails differ only in case", () => {
  it("are all left out, with their memberships and the reason; the rest is exported and access.yaml reads back", async () => {
    const emulator = await startEmulator({
      seed: {
        users: [
          { id: "u-ann", email: "ann@x.example", firstName: "Ann", lastName: "Lee" },
          { id: "u-bob", email: "bob@x.example", firstName: "Bob", lastName: "Ray" },
        ],
        integrations: [
          {
            id: "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01",
            application: "YouTube",
            label: "YouTube acme",
            entitlements: [{ id: "VIEWER" }],
            users: [
              { userId: "u-ann", entitlements: ["VIEWER"] },
              { userId: "u-bob", entitlements: ["VIEWER"] },
            ],
          },
        ],
      },
    });
    try {
      // The emulator refuses such a pair, a service may not: a second Ann on the user page.
      const page = (await (
        await fetch(`${emulator.url}users?page%5Bsize%5D=100`, { headers: { "x-api-key": emulator.apiKey } })
      ).json()) as { data: Array<Record<string, unknown>> };
      page.data.push({ id: "u-ann2", type: "user", attributes: { email: "Ann@X.example", firstName: "Ann", lastName: "Two" } });
      emulator.fault({ method: "GET", path: "/users", body: JSON.stringify({ ...page, links: { next: null } }) });
      const result = await runExport(options(emulator));
      const reason = (other: string) =>
        `another user has the same email but for case (${other}): access.yaml tells users apart by email, case-insensitively`;
      expect(result.leftOut.map((l) => l.text)).toEqual([
        `user u-ann <ann@x.example>: ${reason("u-ann2")}`,
        `user u-ann2 <Ann@X.example>: ${reason("u-ann")}`,
        `membership of u-ann <ann@x.example> in "YouTube acme": its user is left out (${reason("u-ann2")})`,
      ]);
      const file = parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8"));
      expect(file.users.map((u) => u.email)).toEqual(["bob@x.example"]);
      expect(file.memberships.map((m) => m.user)).toEqual(["bob@x.example"]);
      expect(result).toMatchObject({ users: 1, memberships: 1 });
    } finally {
      await emulator.close();
    }
  });
});

describe("records the service lists twice (offset paging shifting, a repeat)", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ seed: twoMembers() });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const exported = async () => {
    const result = await runExport(options(emulator));
    return { result, file: parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8")) };
  };

  it("a member listed twice the same is written once, silently: access.yaml reads back", async () => {
    const page = await rawPage(emulator, `integrations/${YT}/users`);
    page.data.push(copy(page.data[0]!));
    answerWith(emulator, `integrations/${YT}/users`, page);
    const { result, file } = await exported();
    expect(result.leftOut).toEqual([]);
    expect(file.memberships.map((m) => m.user)).toEqual(["ann@x.example", "bob@x.example"]);
  });

  it("a member listed twice differently is left out and listed; the others are written", async () => {
    const page = await rawPage(emulator, `integrations/${YT}/users`);
    const again = copy(page.data.find((r) => r.id === "u-ann")!);
    again.attributes["entitlements"] = [{ id: "EDITOR" }];
    page.data.push(again);
    answerWith(emulator, `integrations/${YT}/users`, page);
    const { result, file } = await exported();
    expect(result.leftOut.map((l) => l.text)).toEqual([
      'membership of u-ann <ann@x.example> in "YouTube acme": listed twice, differently (entitlements: ["VIEWER"] / ["EDITOR"])',
    ]);
    expect(file.users.map((u) => u.email)).toEqual(["ann@x.example", "bob@x.example"]);
    expect(file.memberships.map((m) => m.user)).toEqual(["bob@x.example"]);
  });

  it("a user listed twice the same is written once; listed twice differently, it is left out with its memberships", async () => {
    const page = await rawPage(emulator, "users");
    page.data.push(copy(page.data.find((r) => r.id === "u-ann")!));
    answerWith(emulator, "users", page);
    expect((await exported()).result.leftOut).toEqual([]);

    const again = copy(page.data.find((r) => r.id === "u-bob")!);
    again.attributes["lastName"] = "Ray-Smith";
    answerWith(emulator, "users", { ...page, data: [...page.data, again] });
    const { result, file } = await exported();
    expect(result.leftOut.map((l) => l.text)).toEqual([
      'user u-bob <bob@x.example>: listed twice, differently (lastName: "Ray" / "Ray-Smith")',
      'membership of u-bob <bob@x.example> in "YouTube acme": its user is left out (listed twice, differently (lastName: "Ray" / "Ray-Smith"))',
    ]);
    expect(file.users.map((u) => u.email)).toEqual(["ann@x.example"]);
    expect(file.memberships.map((m) => m.user)).toEqual(["ann@x.example"]);
  });

  it("a user with a copy that breaks the contract is left out whole, never written from the other copy", async () => {
    const page = await rawPage(emulator, "users");
    const broken = copy(page.data.find((r) => r.id === "u-bob")!);
    broken.attributes["firstName"] = 42;
    answerWith(emulator, "users", { ...page, data: [...page.data, broken] });
    const { result, file } = await exported();
    expect(result.leftOut.map((l) => l.text)).toEqual([
      expect.stringMatching(/^user u-bob: GET .* field "attributes\.firstName"/),
      'membership of u-bob <bob@x.example> in "YouTube acme": its user is left out (its record does not match the API contract)',
    ]);
    expect(file.users.map((u) => u.email)).toEqual(["ann@x.example"]);
  });

  it("an integration listed twice the same is read and written once, under its own name", async () => {
    const page = await rawPage(emulator, "integrations");
    page.data.push(copy(page.data[0]!));
    answerWith(emulator, "integrations", page);
    emulator.clearRequests();
    const { result, file } = await exported();
    expect(result.leftOut).toEqual([]);
    expect(file.integrations.map((i) => i.name)).toEqual(["youtube-acme"]);
    expect(file.memberships.map((m) => m.name)).toEqual(["youtube-acme--ann-at-x.example", "youtube-acme--bob-at-x.example"]);
    expect(gets(emulator).filter((l) => l === `GET /integrations/${YT}/users`)).toHaveLength(1);
  });

  it("an integration listed twice differently is left out and listed, its members not read", async () => {
    const page = await rawPage(emulator, "integrations");
    const again = copy(page.data[0]!);
    again.attributes["label"] = "YouTube renamed";
    answerWith(emulator, "integrations", { ...page, data: [...page.data, again] });
    emulator.clearRequests();
    const { result, file } = await exported();
    expect(result.leftOut.map((l) => l.text)).toEqual([
      `integration ${YT} ("YouTube acme"): listed twice, differently (label: "YouTube acme" / "YouTube renamed")`,
    ]);
    expect(file.integrations).toEqual([]);
    expect(file.users).toHaveLength(2);
    expect(gets(emulator).filter((l) => l.startsWith(`GET /integrations/${YT}`))).toEqual([]);
  });
});

describe("an integration record that breaks the contract", () => {
  it("is left out and listed with its id and field, its members unread; the rest is exported", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const slack = emulator.integrations.add({ application: "Slack", label: "Slack acme", entitlements: [{ id: "MEMBER" }] });
      emulator.integrations.setMember(slack.id, "u-bob", { entitlements: ["MEMBER"] });
      const page = await rawPage(emulator, "integrations");
      page.data.find((r) => r.id === YT)!.attributes["label"] = 42;
      answerWith(emulator, "integrations", page, 2);
      const result = await runExport(options(emulator));
      expect(result.leftOut.map((l) => l.text)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^integration ${YT}: GET /api/v1/integrations answered 200 with a record \\(id ${YT}\\) that does not match the API contract: field "attributes\\.label"`,
          ),
        ),
      ]);
      expect(gets(emulator).filter((l) => l.includes(YT))).toEqual([]);
      const file = parseAccessFile(fs.readFileSync(path.join(result.dir, "access.yaml"), "utf8"));
      expect(file.integrations.map((i) => i.label)).toEqual(["Slack acme"]);
      expect(file.users).toHaveLength(2);
      // Still selectable by id: in scope, and left out.
      const scoped = await runExport(options(emulator, { integrations: [YT] }));
      expect(scoped.leftOut.map((l) => l.kind)).toEqual(["integration"]);
      expect(parseAccessFile(fs.readFileSync(path.join(scoped.dir, "access.yaml"), "utf8")).scope.integrations).toEqual([YT]);
    } finally {
      await emulator.close();
    }
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
    expect(error.message).toMatch(/^WORKSPACE_ACCESS_WORKSPACE "acme corp" must be a single DNS label/);
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
      new RegExp(`Check the address: ${url.replace(/[.]/g, "\\.")} could not be reached; it should be the workspace's API root`),
    );
    expect(error.message).not.toContain(emulator.apiKey);
  });

  it("a wrong address: a server that is not the API (404)", async () => {
    const error = await failure({ out: freshDir(), baseUrl: emulator.url.replace("/api/v1/", "/"), env: env(emulator) });
    expect(error.message).toMatch(/GET \/integrations answered 404.*Check the address: .* answered, but not as the workspace API/);
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
