/**
 * The commands' failure line removes the key in `WORKSPACE_ACCESS_API_KEY` (`runCommand`). A key too short to be one (`key`, a
 * copy-paste accident) is refused before any request, so no answer can echo it: the line naming it stays whole, where
 * removing the key made it "too short to be a workspace API [redacted]". The export itself against the emulator, in process.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCommand } from "../../src/command-line";
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
      const written: string[] = [];
      vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0);
      let finished!: () => void;
      const done = new Promise<void>((resolve) => {
        finished = resolve;
      });
      runCommand({
        name: "workspace-access-export",
        usage: "",
        parse: () => ({}),
        run: () =>
          runExport(options(emulator, { env: { WORKSPACE_ACCESS_API_KEY: "key" } }))
            .finally(() => setTimeout(finished, 0))
            .then(() => 0),
      });
      await done;
      await new Promise((resolve) => setTimeout(resolve, 0));
      const line = written.join("");
      expect(line).toContain("too short to be a workspace API key");
      expect(line).not.toContain("[redacted]");
      expect(emulator.requests).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
