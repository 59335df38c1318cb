/**
 * A record the workspace leaves out for two reasons under one id (a user, or a member, listed in a copy that breaks the
 * contract and in two copies that differ), in process against the emulator over loopback. `access.yaml` keeps one record
 * per id, and that one gives both reasons: neither is dropped without a word. `--check` reads it back as the same record,
 * and `--accept` keeps it so.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { answerWith, copy, env, options, type RawPage, rawPage, twoMembers, YT } from "./support";

/** `page` with, after it, a copy of the record `id` that breaks the contract (`broken` set to 42) and one with `changed`. */
function withCopies(page: RawPage, id: string, broken: string, changed: Record<string, unknown>): RawPage {
  const record = page.data.find((r) => r.id === id)!;
  const [bad, other] = [copy(record), copy(record)];
  bad.attributes[broken] = 42;
  Object.assign(other.attributes, changed);
  return { ...page, data: [...page.data, bad, other] };
}

const BROKEN = "GET /api/v1/users answered 200 with a record (id u-bob) that does not match the API contract";

async function withWorkspace(test: (emulator: Emulator) => Promise<void>): Promise<void> {
  const emulator = await startEmulator({ seed: twoMembers() });
  try {
    await test(emulator);
  } finally {
    await emulator.close();
  }
}

describe("a record left out for two reasons under one id", () => {
  it("a user: one record in access.yaml giving both reasons; --check reads it back, --accept keeps it", async () => {
    await withWorkspace(async (emulator) => {
      answerWith(emulator, "users", withCopies(await rawPage(emulator, "users"), "u-bob", "firstName", { lastName: "Ray-Smith" }), 100);
      const exported = await runExport(options(emulator));
      // The export's list gives each, as it found them.
      expect(exported.leftOut.filter((l) => l.kind === "user").map((l) => l.reason)).toEqual([
        expect.stringMatching(/^GET \/api\/v1\/users answered 200 with a record \(id u-bob\)/),
        'listed twice, differently (lastName: "Ray" / "Ray-Smith")',
      ]);
      const file = path.join(exported.dir, "access.yaml");
      const recorded = parseAccessFile(fs.readFileSync(file, "utf8"));
      const bob = recorded.leftOut.filter((l) => l.kind === "user");
      expect(bob).toEqual([{ kind: "user", id: "u-bob", email: "bob@x.example", reason: expect.any(String) }]);
      expect(bob[0]!.reason).toMatch(
        new RegExp(`^${BROKEN.replace(/[()/]/g, "\\$&")}: .* \\| listed twice, differently \\(lastName: "Ray" / "Ray-Smith"\\)$`),
      );
      expect(recorded.leftOut.map((l) => [l.kind, l.id])).toEqual([
        ["user", "u-bob"],
        ["membership", "u-bob"],
      ]);
      const check = (accept = false) => runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator), accept });
      expect((await check()).changes).toEqual([]);
      // A change elsewhere accepted (the users' page is the one above): bob's record written back as it was.
      emulator.integrations.setMember(YT, "u-ann", { entitlements: ["EDITOR", "VIEWER"] });
      const before = fs.readFileSync(file, "utf8");
      expect((await check(true)).accepted).toBe(true);
      const after = fs.readFileSync(file, "utf8");
      expect(after.slice(after.indexOf("leftOut:"))).toBe(before.slice(before.indexOf("leftOut:")));
      expect((await check()).changes).toEqual([]);
      expect(emulator.requests.every((r) => r.method === "GET")).toBe(true);
    });
  });

  it("a membership: one record giving both reasons, read back by --check", async () => {
    await withWorkspace(async (emulator) => {
      const list = `integrations/${YT}/users`;
      const page = await rawPage(emulator, list);
      answerWith(emulator, list, withCopies(page, "u-bob", "role", { entitlements: [{ id: "EDITOR" }] }), 100);
      const exported = await runExport(options(emulator));
      const recorded = parseAccessFile(fs.readFileSync(path.join(exported.dir, "access.yaml"), "utf8"));
      expect(recorded.leftOut.map((l) => [l.kind, l.id, l.email])).toEqual([["membership", "u-bob", "bob@x.example"]]);
      expect(recorded.leftOut[0]!.reason).toMatch(
        /^GET \/api\/v1\/integrations\/[^ ]+\/users answered 200 with a record \(id u-bob\) that does not match the API contract: .* \| listed twice, differently \(entitlements: \["VIEWER"\] \/ \["EDITOR"\]\)$/,
      );
      expect((await runCheck({ out: exported.dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    });
  });
});
