/**
 * The commands' failure line removes the key in `WORKSPACE_ACCESS_API_KEY` (`runCommand`). A key too short to be one (`key`, a
 * copy-paste accident) is refused before any request, so no answer can echo it: the line naming it stays whole, where
 * removing the key made it "too short to be a workspace API [redacted]". The export itself against the emulator, in process.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ranCommand } from "../support/run-command";
import { startEmulator } from "../../src/emulator/index";
import { runExport } from "../../src/export/run";
import { options } from "./support";

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

describe("a command run with a key too short to be sent", () => {
  it("prints the setting's problem whole, nothing sent", async () => {
    const emulator = await startEmulator({});
    try {
      vi.stubEnv("WORKSPACE_ACCESS_API_KEY", "key");
      const line = await ranCommand({
        name: "workspace-access-export",
        usage: "",
        parse: () => ({}),
        run: () => runExport(options(emulator, { env: { WORKSPACE_ACCESS_API_KEY: "key" } })).then(() => 0),
      });
      expect(line).toContain("too short to be a workspace API key");
      expect(line).not.toContain("[redacted]");
      expect(emulator.requests).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
