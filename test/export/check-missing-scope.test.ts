/**
 * `--check` and the export under a service that answers 404 ("not disclosed") to a key lacking a scope (the emulator's
 * `missingScopeStatus: 404`), with a key lacking `read:integrations`: the integrations' listing answers 404, as a wrong
 * address does. The check fails naming the key's scope and the variable that holds the key, never the address, and
 * reports no integration or membership as removed.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ALL_SCOPES, startEmulator } from "../../src/emulator/index";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { issuedKeys, rejection } from "../support/fixtures";
import { env, freshDir, gets, options, twoMembers } from "./support";

/** Every scope but `read:integrations`. */
const NO_READ_INTEGRATIONS = `wa_sees_no_apps_${"5".repeat(16)}`;
issuedKeys.add(NO_READ_INTEGRATIONS);

describe("a key without read:integrations, a service answering 404 for a missing scope", () => {
  it("--check fails naming the key's scope and WORKSPACE_ACCESS_API_KEY, not the address, and reports nothing removed", async () => {
    const emulator = await startEmulator({
      seed: twoMembers(),
      keys: { [NO_READ_INTEGRATIONS]: ALL_SCOPES.filter((scope) => scope !== "read:integrations") },
      missingScopeStatus: 404,
    });
    try {
      const { dir } = await runExport(options(emulator));
      emulator.clearRequests();
      const error = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator, NO_READ_INTEGRATIONS) }));
      expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
      expect(error.message).toContain("GET /api/v1/integrations answered 404, though");
      expect(error.message).toContain("the service does not disclose integrations to this key");
      expect(error.message).toContain("Give the key in WORKSPACE_ACCESS_API_KEY the scope Read integrations (read:integrations)");
      expect(error.message).not.toContain("Check the address");
      expect(error.message).not.toMatch(/removed|no longer/i);
      // The integrations' listing (its own 404 is what a listing of one record would answer), then the users', which shows
      // the address is the API's root.
      expect(gets(emulator)).toEqual(["GET /integrations", "GET /users"]);
    } finally {
      await emulator.close();
    }
  });

  it("the export fails the same way, writing nothing", async () => {
    const emulator = await startEmulator({
      seed: twoMembers(),
      keys: { [NO_READ_INTEGRATIONS]: ALL_SCOPES.filter((scope) => scope !== "read:integrations") },
      missingScopeStatus: 404,
    });
    try {
      const out = freshDir();
      const error = await rejection(runExport({ out, baseUrl: emulator.url, env: env(emulator, NO_READ_INTEGRATIONS) }));
      expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
      expect(error.message).toContain("Give the key in WORKSPACE_ACCESS_API_KEY the scope Read integrations (read:integrations)");
      expect(error.message).not.toContain("Check the address");
      expect(fs.existsSync(out)).toBe(false);
    } finally {
      await emulator.close();
    }
  });
});
