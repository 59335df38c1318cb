/**
 * The command's options (`workspace-access-emulator`), parsed without starting a process: the
 * worlds and the quirks. Starting the command itself is a host-tier matter (test/package).
 */
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../src/emulator/cli-options";
import { startEmulator } from "../../src/emulator/index";

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
});
