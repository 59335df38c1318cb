/**
 * `--check --accept` through the built command and the real `pulumi` CLI, on an export of the `sets` shape: an exit 0 of
 * the accept means the next `pulumi up` sends no write. A user access.yaml declares whose last name the workspace has
 * cleared (a form a project cannot declare) would otherwise leave the file, and the up remove his membership (an
 * `IntegrationMembers` removes a member it no longer lists): the accept refuses (exit 2), naming him, and writes nothing;
 * once his record is complete, it takes the rest in (exit 0), and the up that follows sends no write.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { linkExportModules } from "../support/packed.ts";
import { twoMembers, YT } from "../export/support.ts";
import { runExport } from "./export-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type CliStack, cliAvailable, openCliStack, skipNote, writesOf } from "./support.ts";

describe.skipIf(!cliAvailable)(
  `--check --accept of an exported project through the real pulumi CLI${skipNote}`,
  { timeout: 600_000 },
  () => {
    let service: Emulator;
    let tmp: string;
    let dir: string;
    let stack: CliStack;
    const check = (...args: string[]) =>
      runExport(["--check", "--out", dir, "--base-url", service.url, ...args], { WORKSPACE_ACCESS_API_KEY: service.apiKey });

    beforeAll(async () => {
      service = await startEmulator({
        seed: twoMembers(),
        job: { finishAfterPolls: 1 },
      });
      tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-cli-export-accept-"));
      dir = path.join(tmp, "access");
      const exported = await runExport(["--out", dir, "--base-url", service.url, "--shape", "sets"], {
        WORKSPACE_ACCESS_API_KEY: service.apiKey,
      });
      if (exported.code !== 0) throw new Error(`the export failed:\n${exported.stderr}`);
      await linkExportModules(dir);
      stack = await openCliStack({
        projectDir: dir,
        config: { "workspace-access:baseUrl": service.url, "workspace-access:apiKey": { secret: service.apiKey } },
      });
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([]);
    }, SETUP_TIMEOUT_MS);

    afterAll(async () => {
      await stack?.remove();
      await service?.close();
      if (tmp) await fs.promises.rm(tmp, { recursive: true, force: true });
    });

    it("refuses to drop a record the workspace still has (exit 2, nothing written); once it is complete, accepts, and the up sends no write", async () => {
      const file = path.join(dir, "access.yaml");
      const before = await fs.promises.readFile(file, "utf8");
      service.users.update("u-bob", { lastName: null });
      service.integrations.setMember(YT, "u-ann", { entitlements: ["EDITOR", "VIEWER"] });
      const refused = await check("--accept");
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "--accept would take out of access.yaml what it declares of 2 records the workspace still has, in a form a project " +
          "cannot declare:\n  - user u-bob <bob@x.example>: no last name\n" +
          '  - membership of u-bob <bob@x.example> in "YouTube acme": its user is left out (no last name)\nThe next pulumi up',
      );
      expect(await fs.promises.readFile(file, "utf8")).toBe(before);

      service.users.update("u-bob", { lastName: "Ray" });
      const accepted = await check("--accept");
      expect(accepted.code).toBe(0);
      expect(accepted.stdout).toContain("1 difference between access.yaml and the workspace: access.yaml now holds the workspace's side.");
      expect(await fs.promises.readFile(file, "utf8")).toBe(before.replace("entitlements: [VIEWER]", "entitlements: [EDITOR, VIEWER]"));
      service.clearRequests();
      await stack.up();
      expect(writesOf(service.requests)).toEqual([]);
      expect(service.integrations.members(YT).map((m) => [m.userId, m.entitlements])).toEqual([
        ["u-ann", ["EDITOR", "VIEWER"]],
        ["u-bob", ["VIEWER"]],
      ]);
      expect((await check()).code).toBe(0);
    });
  },
);
