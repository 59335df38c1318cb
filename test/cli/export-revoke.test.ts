/**
 * The exported project's `revokeRemovedAccess`, through the real `pulumi` CLI. Records shape (a resource per membership):
 * every membership the first `up` adopts is given back by a delete unless its resource opts in, and the flag is that
 * opt-in. Set, the next `up` sends nothing (the state learns it); then a member removed from access.yaml is removed from the
 * integration, and nobody else; unset, the same removal only stops managing the member. (The project's `refresh: always`
 * makes each `up` refresh first: the engine then diffs the removed member's resource too.) Sets shape: set, `pulumi
 * destroy` removes every member the stack manages, and deletes no user.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { linkExportModules } from "../support/packed.ts";
import { twoMembers, YT } from "../export/support.ts";
import { PROJECT_NAME } from "../../src/export/project";
import { runExport } from "./export-support.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote, writesOf } from "./support.ts";

/** access.yaml without bob's membership of the integration (the lines the export writes for it). */
const withoutBob = (text: string) => {
  const member = "      - user: bob@x.example\n        role: account_collaborator\n        entitlements: [VIEWER]\n";
  expect(text).toContain(member);
  return text.replace(member, "");
};

describe.skipIf(!cliAvailable)(
  `revokeRemovedAccess of an exported project through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    const opened: Array<{ service: Emulator; stack: CliStack; tmp: string }> = [];
    /** The two-member world exported in `shape`, installed from the packed tarball, and its stack on a file backend. */
    async function exportedStack(shape: "records" | "sets") {
      const service = await startEmulator({ seed: twoMembers(), job: { finishAfterPolls: 1 } });
      const tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-cli-export-revoke-"));
      const dir = path.join(tmp, "access");
      const exported = await runExport(["--out", dir, "--base-url", service.url, "--shape", shape], {
        WORKSPACE_ACCESS_API_KEY: service.apiKey,
      });
      if (exported.code !== 0) throw new Error(`the export failed:\n${exported.stderr}`);
      await linkExportModules(dir);
      const stack = await openCliStack({
        projectDir: dir,
        config: { "workspace-access:baseUrl": service.url, "workspace-access:apiKey": { secret: service.apiKey } },
      });
      opened.push({ service, stack, tmp });
      return { service, stack, dir };
    }

    afterAll(async () => {
      for (const { service, stack, tmp } of opened) {
        await stack.remove();
        await service.close();
        await fs.promises.rm(tmp, { recursive: true, force: true });
      }
    });

    it("records: set, a member removed from access.yaml is removed; unset, only no longer managed", async () => {
      const { service, stack, dir } = await exportedStack("records");
      const file = path.join(dir, "access.yaml");
      const exportedText = await fs.promises.readFile(file, "utf8");
      const members = () => service.integrations.members(YT).map((m) => m.userId);

      // Unset (the default): removing bob from access.yaml only stops managing him.
      await stack.up();
      await fs.promises.writeFile(file, withoutBob(exportedText));
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([]);
      expect(members()).toEqual(["u-ann", "u-bob"]);

      // Set: the up that learns it sends nothing; the next removal of bob is a DELETE of his membership, and only that.
      await fs.promises.writeFile(file, exportedText);
      await stack.setConfig(`${PROJECT_NAME}:revokeRemovedAccess`, "true");
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([]);
      await fs.promises.writeFile(file, withoutBob(exportedText));
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([`DELETE /integrations/${YT}/users/u-bob`]);
      expect(members()).toEqual(["u-ann"]);
    });

    it("sets: set, destroy removes every member the stack manages from the integration, and deletes no user", async () => {
      const { service, stack } = await exportedStack("sets");
      await stack.up();
      await stack.setConfig(`${PROJECT_NAME}:revokeRemovedAccess`, "true");
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([]);
      service.clearRequests();
      await stack.destroy();
      expect(writesOf(service.requests).sort()).toEqual([
        `DELETE /integrations/${YT}/users/u-ann`,
        `DELETE /integrations/${YT}/users/u-bob`,
      ]);
      expect(
        service.users
          .list()
          .map((u) => u.id)
          .sort(),
      ).toEqual(["u-ann", "u-bob"]);
    });
  },
);
