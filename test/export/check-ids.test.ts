/**
 * Ids in `access.yaml` enter in their one form (`idOf`): a file whose ids are in upper case (an
 * export from a service that answered them so) is the same access as the workspace's lower-case
 * ids, and `--check` finds no difference.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultSeed, startEmulator } from "../../src/emulator/index";
import { runCheck } from "../../src/export/run-check";
import { runExport } from "../../src/export/run";
import { env, options } from "./support";

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe("--check reads access.yaml's ids in their one form", () => {
  it("an access.yaml with every id in upper case reads as the same access: no difference", async () => {
    const emulator = await startEmulator({ seed: defaultSeed() });
    try {
      const opts = options(emulator);
      await runExport(opts);
      const file = path.join(opts.out, "access.yaml");
      const text = fs.readFileSync(file, "utf8");
      const upper = text.replace(UUID, (id) => id.toUpperCase());
      expect(upper).not.toBe(text);
      fs.writeFileSync(file, upper);
      const result = await runCheck({ out: opts.out, baseUrl: emulator.url, env: env(emulator) });
      expect(result.changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});
