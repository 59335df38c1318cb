/**
 * The command's options (`workspace-access-emulator`), parsed without starting a process: the
 * worlds and the quirks. Starting the command itself is a host-tier matter (test/package).
 */
import { describe, expect, it } from "vitest";
import { parseCommandLine, requestLogLine, USAGE } from "../../src/emulator/cli-options";
import { adversarialQuirks, QUIRK_VALUES } from "../../src/emulator/quirks";
import { type AnsweredRequest, startEmulator } from "../../src/emulator/index";
import { call } from "./helpers";

describe("workspace-access-emulator's command line", () => {
  it("--world adversarial starts the adversarial world with every quirk, --quirk overriding one", async () => {
    const line = parseCommandLine(["--world", "adversarial", "--quirk", "inviteExisting=fail", "--quirk", "shiftPages=insert"]);
    expect(line).toMatchObject({ world: "adversarial", quirks: { inviteExisting: "fail", shiftPages: "insert" } });
    if (line === "help") throw new Error("unexpected help");
    const emulator = await startEmulator(line);
    try {
      expect(emulator.quirks).toEqual({
        shiftPages: "insert",
        repeatRecords: true,
        inviteExisting: "fail",
        upperCaseIds: true,
        noContent: true,
        nullFields: true,
      });
      expect(emulator.users.list().length).toBeGreaterThan(512);
    } finally {
      await emulator.close();
    }
  });

  it("--help names the quirks the adversarial world leaves off, rather than saying every one is on", () => {
    const off = Object.keys(QUIRK_VALUES).filter((name) => !(name in adversarialQuirks()));
    expect(off).toEqual([
      "openUserRoles",
      "integrationWriteAnswer",
      "jobProgress",
      "memberEntitlements",
      "lowerCaseEmails",
      "userFilter",
      "unknownEntitlement",
      "errorStatus",
      "absentFields",
      "nonMemberWrite",
      "userCreateTaken",
      "userReplaceId",
      "unknownQuery",
      "clockSkew",
      "memberListPath",
      "memberRole",
    ]);
    expect(USAGE.replace(/\s+/g, " ")).toContain(`with every quirk below on but ${off.join(", ")}`);
  });

  it("--quirk works with any world, repeatable; without it there is none", () => {
    expect(parseCommandLine(["--empty", "--quirk", "upperCaseIds=true", "--quirk", "nullFields"])).toMatchObject({
      seed: {},
      quirks: { upperCaseIds: true, nullFields: true },
    });
    expect(parseCommandLine([])).toMatchObject({ quirks: {} });
    expect(parseCommandLine(["-h"])).toBe("help");
  });

  it.each([
    [["--world", "hostile"], /--world must be "populated" or "adversarial"/],
    [["--quirk", "pagesShift=remove"], /unknown quirk "pagesShift"/],
    [["--quirk", "shiftPages=maybe"], /shiftPages must be one of remove, insert, false/],
    [["--world", "adversarial", "--empty"], /cannot be used together/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it("--job-polls and --job-settle set how jobs end; by default on the second read, or by themselves after 30 s", () => {
    expect(parseCommandLine([])).toMatchObject({ job: { finishAfterPolls: 2, settleAfterMs: 30_000 } });
    expect(parseCommandLine(["--world", "adversarial", "--job-polls", "0", "--job-settle", "1.5"])).toMatchObject({
      job: { finishAfterPolls: 0, settleAfterMs: 1_500 },
    });
    const never = parseCommandLine(["--job-settle", "0"]);
    if (never === "help") throw new Error("unexpected help");
    expect(never.job).toEqual({ finishAfterPolls: 2 });
  });

  it("--job-readable-after has jobs answer 404 until that many seconds after they start; none by default", () => {
    const none = parseCommandLine([]);
    if (none === "help") throw new Error("unexpected help");
    expect(none.job).not.toHaveProperty("readableAfterMs");
    expect(parseCommandLine(["--job-readable-after", "0.3"])).toMatchObject({ job: { readableAfterMs: 300 } });
    expect(() => parseCommandLine(["--job-readable-after=-1"])).toThrow(
      /--job-readable-after must be a number of seconds, 0 or more, got "-1"/,
    );
  });

  it.each([
    [["--job-polls", "1.5"], /--job-polls must be a whole number, 0 or more, got "1.5"/],
    [["--job-polls=-1"], /--job-polls must be a whole number, 0 or more, got "-1"/],
    [["--job-settle", "soon"], /--job-settle must be a number of seconds, 0 or more, got "soon"/],
    [["--job-settle", ""], /--job-settle must be a number of seconds/],
  ])("refuses %j, naming the flag", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it("--user-writes, --no-user-create, --missing-scope and --batch-invite-failure reach the emulator; none by default", async () => {
    const none = parseCommandLine([]);
    if (none === "help") throw new Error("unexpected help");
    for (const key of ["userWriteAnswer", "userWritesAsJobs", "userCreate", "missingScopeStatus", "batchInviteFailure"]) {
      expect(none).not.toHaveProperty(key);
    }
    expect(parseCommandLine(["--user-writes", "record"])).not.toHaveProperty("userWriteAnswer");
    expect(parseCommandLine(["--user-writes", "job"])).toMatchObject({ userWritesAsJobs: true });
    expect(parseCommandLine(["--batch-invite-failure", "partial"])).toMatchObject({ batchInviteFailure: "partial" });
    expect(parseCommandLine(["--missing-scope", "404"])).toMatchObject({ missingScopeStatus: 404 });
    expect(parseCommandLine(["--missing-scope", "403"])).toMatchObject({ missingScopeStatus: 403 });
    const line = parseCommandLine(["--empty", "--user-writes", "no-content", "--no-user-create", "--missing-scope", "401"]);
    if (line === "help") throw new Error("unexpected help");
    const { logRequests: _, ...options } = line;
    const emulator = await startEmulator({ ...options, keys: { wa_reader_key_0123456789abcdef: ["read:users"] } });
    try {
      const user = { email: "joan@example.com", firstName: "Joan", lastName: "Clarke", role: "workspace_login_only" };
      expect((await call(emulator, "POST", "users", { body: { data: { type: "user", attributes: user } } })).status).toBe(405);
      const added = emulator.users.add({ ...user });
      const put = await call(emulator, "PUT", `users/${added.id}`, {
        body: { data: { type: "user", attributes: { ...user, isGuest: false } } },
      });
      expect([put.status, put.text]).toEqual([204, ""]);
      expect((await call(emulator, "DELETE", `users/${added.id}`, { key: "wa_reader_key_0123456789abcdef" })).status).toBe(401);
    } finally {
      await emulator.close();
    }
  });

  it.each([
    [["--user-writes", "none"], '--user-writes must be "record", "no-content", "job", got none'],
    [["--missing-scope", "402"], '--missing-scope must be "403", "401", "404", got 402'],
    [["--batch-invite-failure", "some"], '--batch-invite-failure must be "whole", "partial", got some'],
  ])("refuses %j, naming the flag and its values", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it("--rate-limit and --retry-after limit each key, a 429 saying when to retry as asked; no limit by default", async () => {
    expect(parseCommandLine([])).not.toHaveProperty("rateLimit");
    expect(parseCommandLine(["--rate-limit", "10/60"])).toMatchObject({ rateLimit: { requests: 10, windowMs: 60_000 } });
    const line = parseCommandLine(["--empty", "--rate-limit", "1/60", "--retry-after", "none"]);
    if (line === "help") throw new Error("unexpected help");
    expect(line.rateLimit).toEqual({ requests: 1, windowMs: 60_000, retryAfter: "none" });
    const { logRequests: _, ...options } = line;
    const emulator = await startEmulator(options);
    try {
      expect((await call(emulator, "GET", "users")).status).toBe(200);
      const refused = await call(emulator, "GET", "users");
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBeNull();
    } finally {
      await emulator.close();
    }
  });

  it.each([
    [["--rate-limit", "10"], '--rate-limit must be N/S, at most N requests (1 or more) in any S seconds (more than 0), got "10"'],
    [["--rate-limit", "0/60"], /--rate-limit must be N\/S/],
    [["--rate-limit", "5/0"], /--rate-limit must be N\/S/],
    [["--retry-after", "date"], "--retry-after needs --rate-limit"],
    [["--rate-limit", "5/60", "--retry-after", "later"], '--retry-after must be "seconds", "date", "none", got later'],
  ])("refuses %j", (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(message);
  });

  it('--scopes picks the scope table, "document" by default', () => {
    expect(parseCommandLine([])).toMatchObject({ scopeTable: "document" });
    expect(parseCommandLine(["--world", "adversarial", "--scopes", "contract"])).toMatchObject({ scopeTable: "contract" });
    expect(() => parseCommandLine(["--scopes", "seed"])).toThrow('--scopes must be "document" or "contract", got seed');
  });

  it("--log-requests asks for a line per request; without it there is none", () => {
    expect(parseCommandLine(["--log-requests"])).toMatchObject({ logRequests: true });
    expect(parseCommandLine(["--world", "adversarial", "--log-requests"])).toMatchObject({ logRequests: true });
    expect(parseCommandLine([])).toMatchObject({ logRequests: false });
  });

  it("logs each request answered as method, path, status and ms, and never the key", async () => {
    const answers: AnsweredRequest[] = [];
    const emulator = await startEmulator({ onAnswered: (answer) => answers.push(answer) });
    try {
      const headers = { "X-API-Key": emulator.apiKey };
      expect((await fetch(`${emulator.url}users?filter=ada`, { headers })).status).toBe(200);
      expect((await fetch(`${emulator.url}users`, { headers: { "X-API-Key": "wa_emu_wrong" } })).status).toBe(401);
      // A key pasted into a URL by mistake is not printed either.
      expect((await fetch(`${emulator.url}nowhere?key=${emulator.apiKey}`, { headers })).status).toBe(404);
      const lines = answers.map((answer) => requestLogLine(answer, emulator.apiKey));
      expect(lines.map((line) => line.replace(/ \d+ ms$/, " N ms"))).toEqual([
        "GET /api/v1/users?filter=ada 200 N ms",
        "GET /api/v1/users 401 N ms",
        "GET /api/v1/nowhere?key=[key] 404 N ms",
      ]);
      for (const line of lines) expect(line).not.toContain(emulator.apiKey.slice(0, 8));
      expect(answers.every((answer) => answer.ms >= 0)).toBe(true);
    } finally {
      await emulator.close();
    }
  });

  it("never logs the key URL-encoded either: in a query or a path, either hex case, a space as +", async () => {
    // A key with characters a URL escapes: its encoded form is not the key as is.
    const apiKey = "wa_emu/Kx9+Vb4=Nm6&Pc3 Rw8ñJd5";
    const answers: AnsweredRequest[] = [];
    const emulator = await startEmulator({ apiKey, onAnswered: (answer) => answers.push(answer) });
    try {
      const encoded = encodeURIComponent(apiKey);
      const lowerHex = encoded.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase());
      const form = new URLSearchParams({ key: apiKey }).toString();
      const headers = { "X-API-Key": "wa_emu_wrong" };
      for (const path of [
        `users?key=${encoded}`,
        `users?key=${lowerHex}`,
        `users?${form}`,
        `users/${encoded}`,
        `users?a=${encodeURI(apiKey)}`,
      ]) {
        await fetch(`${emulator.url}${path}`, { headers });
      }
      const lines = answers.map((answer) => requestLogLine(answer, apiKey).replace(/ \d+ ms$/, " N ms"));
      expect(lines).toEqual([
        "GET /api/v1/users?key=[key] 401 N ms",
        "GET /api/v1/users?key=[key] 401 N ms",
        "GET /api/v1/users?key=[key] 401 N ms",
        "GET /api/v1/users/[key] 401 N ms",
        "GET /api/v1/users?a=[key] 401 N ms",
      ]);
    } finally {
      await emulator.close();
    }
  });

  it("a reset socket logs as reset", () => {
    expect(requestLogLine({ method: "POST", rawPath: "/api/v1/users", status: 0, ms: 12.4 }, "k")).toBe("POST /api/v1/users reset 12 ms");
  });
});
