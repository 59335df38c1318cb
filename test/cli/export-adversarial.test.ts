/**
 * The export's round trip against a service that does all the contract allows (the emulator's
 * adversarial world: pages that shift while they are read, records listed twice, ids in upper
 * case, null fields, another admin at work): the exported project, installed from the packed
 * tarball and deployed through the real `pulumi` CLI, comes up adopting what it declares with no
 * write, and previews no change afterwards.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { linkExportModules, packedTarball } from "../support/packed.ts";
import { type Deployment, openDeployment } from "./deployment.ts";
import { runExport } from "./export-support.ts";
import { accessConfig, NO_FALLBACKS, SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, skipNote, writesOf } from "./support.ts";

describe.skipIf(!cliAvailable)(`the export of the adversarial world through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let emulator: Emulator;
  let tmp: string;
  let dir: string;
  let stack: Deployment;
  let exported: { code: number; stdout: string; stderr: string };

  beforeAll(async () => {
    emulator = await startEmulator({ world: "adversarial", job: { finishAfterPolls: 1 } });
    tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-export-adversarial-"));
    dir = path.join(tmp, "access");
    const tarball = await packedTarball();
    // The records shape (a resource per record, over 400 here): each record's adoption is what this world tests; its size
    // would pick the sets shape, whose round trip test/cli/export-sets.test.ts runs.
    exported = await runExport(["--out", dir, "--shape", "records", "--base-url", emulator.url, "--package-spec", `file:${tarball}`], {
      WORKSPACE_ACCESS_API_KEY: emulator.apiKey,
    });
    if (exported.code !== 0) return;
    await linkExportModules(dir);
    // Hundreds of resources: the file backend's per-step checkpoints (the CLI's cost, growing with the
    // square of the resources) are skipped, as in the load tier; each command still writes its state.
    stack = await openDeployment({
      projectDir: dir,
      config: accessConfig(emulator),
      env: { ...NO_FALLBACKS, PULUMI_SKIP_CHECKPOINTS: "true" },
    });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.close();
    await emulator?.close();
    if (tmp) await fs.promises.rm(tmp, { recursive: true, force: true });
  });

  it("exports (the lists that shifted read again), and comes up adopting everything it declares with no write", async () => {
    expect(exported.code, exported.stderr).toBe(0);
    const usersBefore = emulator.users.list();
    const membersBefore = emulator.integrations.list().map((i) => emulator.integrations.members(i.id));
    emulator.clearRequests();
    const up = await stack.up();
    expect(up.steps.filter((s) => s.type !== "pulumi:pulumi:Stack" && s.op !== "create")).toEqual([]);
    expect(up.steps.length).toBeGreaterThan(400);
    expect(writesOf(emulator.requests)).toEqual([]);
    expect(emulator.users.list()).toEqual(usersBefore);
    expect(emulator.integrations.list().map((i) => emulator.integrations.members(i.id))).toEqual(membersBefore);
  });

  it("previews no change afterwards", async () => {
    const preview = await stack.preview("--expect-no-changes");
    // The project says `refresh: always`: the preview refreshes first, the engine announcing every
    // resource as `refresh`; what it then plans is all `same`.
    expect(preview.steps.filter((s) => s.op !== "same" && s.op !== "refresh").map((s) => `${s.op} ${s.name}`)).toEqual([]);
    expect(preview.steps.filter((s) => s.op === "same").length).toBeGreaterThan(400);
    expect(writesOf(emulator.requests)).toEqual([]);
  });
});
