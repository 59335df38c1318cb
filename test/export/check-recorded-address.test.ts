/**
 * The address `access.yaml` records (`workspace:`), read in its one form (`readBaseUrl`: a trailing `/`, the host in
 * lower case) and checked when the file is read: the same workspace written another way is the same workspace (no note
 * that an address was given, `--accept` not refused), and an address that is not one fails naming the file's line.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index";
import { parseAccessFile } from "../../src/export/access-file";
import { AccessFileError } from "../../src/export/errors";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { rejection } from "../support/fixtures";
import { env, freshCacheDir, options, twoMembers } from "./support";

describe("the address access.yaml records", () => {
  it("is the workspace it names however it is written: no note of an address given, and --accept takes the workspace's side", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      // The export remembers the address it was given, in its one form: the check may then read the address recorded.
      freshCacheDir();
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      const bare = emulator.url.replace(/\/$/, "");
      const text = fs.readFileSync(file, "utf8").replace(`workspace: ${emulator.url}\n`, `workspace: ${bare}\n`);
      expect(text).toContain(`workspace: ${bare}\n`);
      fs.writeFileSync(file, text);
      // No --base-url, no address in the environment: the check reads the address access.yaml records.
      const check = await runCheck({ out: dir, env: env(emulator) });
      expect(check).toMatchObject({ changes: [], notes: [], workspace: emulator.url });
      emulator.users.update("u-bob", { lastName: "Ray-Smith" });
      const accepted = await runCheck({ out: dir, env: env(emulator), accept: true });
      expect(accepted).toMatchObject({ accepted: true, notes: [] });
      // The line as the person wrote it: the same address.
      expect(fs.readFileSync(file, "utf8")).toContain(`workspace: ${bare}\n`);
    } finally {
      await emulator.close();
    }
  });

  it("is read in its one form", () => {
    expect(parseAccessFile("version: 1\nworkspace: HTTPS://Acme.Example.com/api/v1\n").workspace).toBe("https://acme.example.com/api/v1/");
  });

  it("fails the read naming the line when it is not an address the provider would read", async () => {
    const text = "version: 1\n# exported from\nworkspace: ftp://acme.example.com/api/v1/\n";
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(AccessFileError);
    expect(() => parseAccessFile(text, "/p/access.yaml")).toThrow(
      "/p/access.yaml, line 3: workspace must be an https:// URL: expected something like https://acme.example.com/api/v1/ (the address the file was exported from: correct it, or remove the line)",
    );
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      fs.writeFileSync(
        file,
        fs.readFileSync(file, "utf8").replace(`workspace: ${emulator.url}\n`, "workspace: http://acme.example.com/api/v1/\n"),
      );
      emulator.clearRequests();
      const refused = await rejection(runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) }));
      expect(refused).toBeInstanceOf(AccessFileError);
      expect(refused.message).toBe(
        `${file}, line 9: workspace "http://acme.example.com" uses plain http://, which would send the API key unencrypted: ` +
          "use https:// (http:// is accepted only for loopback hosts such as the emulator) (the address the file was exported " +
          "from: correct it, or remove the line)",
      );
      expect(emulator.requests).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
