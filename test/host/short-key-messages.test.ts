/**
 * A key too short to be one (`x`, `true`: a copy-paste accident) is never sent: settings refuse it before any request, so no
 * answer can echo it. What the engine gets then names the problem in words, not a text with every letter of the key (and, for
 * a key of one character, every gap between two characters) made `[redacted]`. Over real HTTP to the emulator: nothing sent.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator";
import { provider as user } from "../../src/host/user/user-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { alan } = DEFAULT_IDS.users;

describe("a key too short to be sent", () => {
  for (const key of ["x", "key"]) {
    it(`a refresh with the key ${JSON.stringify(key)} fails naming the setting, its message whole, nothing sent`, async () => {
      const emu = await emulator();
      const warnings: string[] = [];
      await configureFor(emu, { "workspace-access:apiKey": key }, { warn: (m) => void warnings.push(m), info: () => {} });
      const error = await rejection(user.read!(alan, { email: "alan@example.com" } as never));
      expect(error.message).toContain("workspace-access:apiKey");
      expect(error.message).toContain("is too short to be a workspace API key");
      expect(error.message).not.toContain("[redacted]");
      expect(emu.requests).toEqual([]);
    });
  }
});
