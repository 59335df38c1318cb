/**
 * `--check` and `--check --accept` when the service lists an integration whose record breaks the contract in its id (a
 * number, say), in process against the emulator over loopback. That record may be any integration `access.yaml` declares
 * and the read no longer finds by id: the review claims no absence of its members (nor of the integration), and `--accept`
 * refuses rather than take them out of the file (the next `pulumi up` with `revokeRemovedAccess` would revoke them).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { ExportError } from "../../src/export/errors";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { rejection } from "../support/fixtures";
import { answerWith, copy, env, OTHER, options, rawPage, twoIntegrations } from "./support";

const EMPTY = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a03";

/** Exports `seed` (scoped to `integrations`, if given), then has the service send the integration `id`'s record with the id 42. */
async function withUnreadableId(
  id: string,
  integrations: string[] | undefined,
  test: (emulator: Emulator, dir: string, before: string) => Promise<void>,
): Promise<void> {
  const seed = twoIntegrations();
  const empty = { id: EMPTY, application: "Jira", label: "Jira acme", entitlements: [{ id: "READ" }], users: [] };
  const emulator = await startEmulator({ seed: { ...seed, integrations: [...seed.integrations, empty] } });
  try {
    const { dir } = await runExport(options(emulator, integrations ? { integrations } : {}));
    const before = fs.readFileSync(path.join(dir, "access.yaml"), "utf8");
    const page = copy(await rawPage(emulator, "integrations"));
    (page.data.find((i) => i.id === id) as { id: unknown }).id = 42;
    answerWith(emulator, "integrations", page, 100);
    await test(emulator, dir, before);
  } finally {
    await emulator.close();
  }
}

const check = (emulator: Emulator, dir: string, accept = false) =>
  runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept });

const UNREADABLE = "an integration record of the workspace breaks the contract, and its id could not be read";

describe("--check when an integration's record has an id that cannot be read", () => {
  for (const scoped of [false, true]) {
    it(`claims none of its members gone, and --accept refuses${scoped ? " (access.yaml scoped by --integration)" : ""}`, async () => {
      await withUnreadableId(OTHER, scoped ? ["Slack acme"] : undefined, async (emulator, dir, before) => {
        const review = await check(emulator, dir);
        const slack = review.changes.filter((c) => c.integrationId === OTHER);
        expect(slack.map((c) => [c.kind, c.side, c.workspace, c.untold])).toEqual([
          ["membership", "access.yaml", "(could not be told)", true],
        ]);
        expect(slack[0]!.text).toBe(
          `access.yaml grants ann@x.example MEMBER in "Slack acme" as account_collaborator; whether the workspace does could not be told (${UNREADABLE})`,
        );
        expect(review.changes.map((c) => c.text).join("\n")).not.toMatch(/not a member there/);
        const refused = await rejection(check(emulator, dir, true));
        expect(refused).toBeInstanceOf(ExportError);
        expect(refused.message).toMatch(
          /^--accept would take out of access\.yaml an entry whose absence from the workspace could not be told:/,
        );
        expect(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).toBe(before);
      });
    });
  }

  it("claims no integration without members gone either", async () => {
    await withUnreadableId(EMPTY, undefined, async (emulator, dir, before) => {
      const review = await check(emulator, dir);
      const jira = review.changes.filter((c) => c.integrationId === EMPTY);
      expect(jira.map((c) => [c.kind, c.side, c.workspace, c.untold, c.text])).toEqual([
        [
          "integration",
          "access.yaml",
          "(could not be told)",
          true,
          `access.yaml declares the integration "Jira acme" (${EMPTY}), with no member; whether the workspace has it could not be told (${UNREADABLE})`,
        ],
      ]);
      await expect(check(emulator, dir, true)).rejects.toThrow(/could not be told/);
      expect(fs.readFileSync(path.join(dir, "access.yaml"), "utf8")).toBe(before);
    });
  });
});
