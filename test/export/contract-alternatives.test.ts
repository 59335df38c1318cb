/**
 * The export and `--check` under the other plausible answers of what the public document does not show, each played by
 * an emulator switch (test/host/contract-alternatives.test.ts proves the resources under the same ones), in process
 * against the emulator over loopback. For each read-side switch the populated world is exported and
 * - its `access.yaml` is the defaults' but for what the switch itself changes in the answers: an email the service folds
 *   to lower case is written as the service answers it (the export records what the workspace holds; the resource names,
 *   derived case-insensitively, stay the same, so no resource is renamed); an `isGuest` the service answers as null or
 *   leaves out beside a listed role that is not a guest's is `false`, as the rest of the package reads it (`guestOf`,
 *   docs/contract.md); beside a guest role, or one the document does not list (the populated world's
 *   `workspace_billing_admin`: it may be a guest's), nothing is guessed and it is not written (left out, the service's value
 *   is kept). Before, every user's `isGuest: false` was dropped under `nullFields` and `absentFields`, and `--check` of the
 *   defaults' file against such a service reported each of them (472 in the populated world) as a difference;
 * - `index.ts` is the defaults' (it is written from the same records);
 * - `--check` right after finds no difference, with reads only;
 * - the defaults' `access.yaml`, checked against the switched service, finds none either (emails compare
 *   case-insensitively) but for each `isGuest: false` recorded beside a guest role or an unlisted one, which a service that leaves `false` out
 *   never tells: a `User` declaring it writes it (`guestOf`: no declared flag holds there), so the review reports it, the
 *   workspace's side `not told`; `--accept` of that file takes those flags out, and then reads as the switched export wrote.
 * The export sends no search (`filter`), so `userFilter` changes nothing, as the request log shows; the populated export
 * reads no error, so `errorStatus: "string"` is proven where an error is read: an integration deleted after the
 * integrations were listed (its own 404 proves it gone) and one whose members are refused (set aside as left out).
 * The write-side switches (`jobProgress`, `unknownEntitlement`) play no part: the export and the check only read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailKey, MEMBER_ROLES } from "../../src/client/models";
import { type Emulator, type EmulatorQuirks, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { answerWith, env, freshDir, OTHER, options, rawPage, withTwoIntegrations } from "./support";

const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
/** `access.yaml` without the address it was exported from (each emulator listens on a port of its own). */
const withoutAddress = (text: string) => text.replace(/^workspace: .*$/m, "workspace: <address>");
/** Every email of `access.yaml` (a user's, a left-out record's, a member's) in lower case. */
const lowerCaseEmails = (text: string) =>
  text.replace(/^( +(?:- )?(?:email|user): )(\S+@\S+)$/gm, (_all, key: string, email: string) => key + email.toLowerCase());
/**
 * Each `isGuest: false` beside a role that is not a listed member's (a guest's, or one the document does not list) left out:
 * with no flag answered there, nothing is guessed (`guestOf`).
 */
const guestRoleUntold = (text: string) =>
  text.replace(/^( +role: (\S+)\n) +isGuest: false\n/gm, (line, kept: string, role: string) => (MEMBER_ROLES.has(role) ? line : kept));
const same = (text: string) => text;

/** A switch, its quirks, and what it legitimately changes in the defaults' `access.yaml`. */
const SWITCHES: ReadonlyArray<[string, EmulatorQuirks, (text: string) => string]> = [
  ["memberEntitlements: ids", { memberEntitlements: "ids" }, same],
  ["lowerCaseEmails", { lowerCaseEmails: true }, lowerCaseEmails],
  ["absentFields", { absentFields: true }, guestRoleUntold],
  ["nullFields", { nullFields: true }, guestRoleUntold],
  ["upperCaseIds", { upperCaseIds: true }, same],
  ["errorStatus: string", { errorStatus: "string" }, same],
  ["userFilter: exact", { userFilter: "exact" }, same],
  ["userFilter: case-sensitive", { userFilter: "case-sensitive" }, same],
  [
    "all of them at once",
    { memberEntitlements: "ids", lowerCaseEmails: true, absentFields: true, upperCaseIds: true, errorStatus: "string" },
    (text) => guestRoleUntold(lowerCaseEmails(text)),
  ],
];

describe("the export of the populated world under each read-side switch", () => {
  let defaults: Emulator;
  let dir: string;
  beforeAll(async () => {
    defaults = await startEmulator({ world: "populated" });
    dir = (await runExport(options(defaults))).dir;
  });
  afterAll(async () => {
    await defaults?.close();
  });

  it("the defaults' export reads no error and sends no search (what errorStatus and userFilter could change)", () => {
    expect(defaults.requests.filter((r) => r.status >= 400).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([]);
    expect(defaults.requests.filter((r) => "filter" in r.query)).toEqual([]);
    // The switches' edits do touch the defaults' file: they are not proven on a file they leave as it is.
    const text = read(dir, "access.yaml");
    expect(lowerCaseEmails(text)).not.toBe(text);
    expect(guestRoleUntold(text)).not.toBe(text);
  });

  it.each(SWITCHES)(
    "%s: the same access.yaml but for what the switch changes, and --check finds no difference; the defaults' file, only its untold guest flags",
    async (_name, quirks, change) => {
      const emulator = await startEmulator({ world: "populated", quirks, apiKey: defaults.apiKey });
      try {
        const exported = await runExport(options(emulator));
        expect(withoutAddress(read(exported.dir, "access.yaml"))).toBe(change(withoutAddress(read(dir, "access.yaml"))));
        expect(read(exported.dir, "index.ts")).toBe(read(dir, "index.ts"));
        expect(emulator.requests.filter((r) => "filter" in r.query)).toEqual([]);

        emulator.clearRequests();
        const check = await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) });
        expect(check.changes.map((c) => c.text)).toEqual([]);
        expect(check.notes).toEqual([]);
        expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);

        // The defaults' access.yaml against the switched service: the same access (only the address differs, and is noted)
        // but for `isGuest: false` beside a guest role or an unlisted one (recorded there, as the defaults' service answers it), which the
        // switched service does not tell where it leaves `false` out: a User would write it.
        const across = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
        const beside = parseAccessFile(read(dir, "access.yaml")).users.filter(
          (u) => !MEMBER_ROLES.has(u.role ?? "") && u.isGuest === false,
        );
        expect(beside.length).toBeGreaterThan(0);
        // Those whose flag the switched export leaves out: the flag it does not tell.
        const switched = new Map(parseAccessFile(read(exported.dir, "access.yaml")).users.map((u) => [emailKey(u.email), u]));
        const untold = beside.filter((u) => switched.get(emailKey(u.email))?.isGuest === undefined);
        expect(across.changes.map((c) => [c.kind, emailKey(c.user), c.accessYaml, c.workspace])).toEqual(
          untold.map((u) => ["user-guest", emailKey(u.email), "false", "not told"]),
        );
        expect(across.notes).toEqual([expect.stringContaining(`this check reads ${emulator.url}, the address given`)]);
        if (untold.length === 0) return;
        // --accept of it (a copy, recording the switched service's address) takes those flags out: as the switched export.
        const copy = freshDir();
        fs.cpSync(dir, copy, { recursive: true });
        fs.writeFileSync(
          path.join(copy, "access.yaml"),
          read(dir, "access.yaml").replace(/^workspace: .*$/m, `workspace: ${emulator.url}`),
        );
        const accepted = await runCheck({ out: copy, baseUrl: emulator.url, env: env(emulator), accept: true });
        expect(accepted.accepted).toBe(true);
        // The file's spelling of each email kept (the review compares emails case-insensitively).
        expect(lowerCaseEmails(read(copy, "access.yaml"))).toBe(lowerCaseEmails(read(exported.dir, "access.yaml")));
      } finally {
        await emulator.close();
      }
    },
  );
});

/** The two-member workspace with a second integration, "Slack acme", ann its one member, errors' status as strings. */
const withStringStatus = (test: (emulator: Emulator) => Promise<void>, quirks: EmulatorQuirks = {}) =>
  withTwoIntegrations(test, { errorStatus: "string", ...quirks });

const members = (dir: string) => parseAccessFile(read(dir, "access.yaml")).integrations.map((i) => [i.label, i.members.map((m) => m.user)]);
/** An error body as a service writing `status` as a string answers it (a fault's body is sent as it is). */
const stringStatusBody = (status: number, title: string) =>
  JSON.stringify({ errors: [{ status: String(status), title, detail: `${title}.`, meta: { errorType: "injected" } }] });

describe("errorStatus: string where the export reads an error", () => {
  it.each([
    ["the defaults otherwise", {}],
    ["with upperCaseIds", { upperCaseIds: true }],
  ] as const)("%s: an integration deleted after the listing is gone, proven by its own 404; --check agrees", async (_name, quirks) => {
    await withStringStatus(async (emulator) => {
      const listed = await rawPage(emulator, "integrations");
      answerWith(emulator, "integrations", listed);
      emulator.integrations.remove(OTHER);
      // The service writes the 404's status as a string.
      const answer = await fetch(`${emulator.url}integrations/${OTHER}`, { headers: { "x-api-key": emulator.apiKey } });
      expect(((await answer.json()) as { errors: Array<{ status: unknown }> }).errors[0]?.status).toBe("404");
      emulator.clearRequests();
      const result = await runExport(options(emulator));
      expect(members(result.dir)).toEqual([["YouTube acme", ["ann@x.example", "bob@x.example"]]]);
      expect(result.leftOut).toEqual([]);
      const gone = emulator.requests.filter((r) => r.status === 404).map((r) => `${r.method} ${r.path}`);
      expect(gone).toEqual(expect.arrayContaining([`GET /integrations/${OTHER}`]));
      expect((await runCheck({ out: result.dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    }, quirks);
  });

  it.each([
    [403, `its members could not be read: GET /api/v1/integrations/${OTHER}/users answered 403`],
    [
      404,
      `its members could not be read (the integration itself answers: its members may not be disclosed to this key): GET /api/v1/integrations/${OTHER}/users answered 404`,
    ],
  ] as const)(
    "members refused with %i: set aside as left out with the reason, the other integration exported; --check agrees",
    async (status, reason) => {
      await withStringStatus(async (emulator) => {
        const refuse = () =>
          emulator.fault({
            method: "GET",
            path: `/integrations/${OTHER}/users`,
            status,
            body: stringStatusBody(status, "Refused"),
            times: 10,
          });
        refuse();
        const result = await runExport(options(emulator));
        expect(members(result.dir)).toEqual([["YouTube acme", ["ann@x.example", "bob@x.example"]]]);
        expect(result.leftOut.map((l) => l.text)).toEqual([expect.stringContaining(`integration ${OTHER} ("Slack acme"): ${reason}`)]);
        expect(result.leftOut[0]!.text).not.toMatch(/Check the address/);

        emulator.clearFaults();
        refuse();
        const check = await runCheck({ out: result.dir, baseUrl: emulator.url, env: env(emulator) });
        expect(check.changes).toEqual([]);
      });
    },
  );
});
