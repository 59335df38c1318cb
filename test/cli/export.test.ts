/**
 * The export's round trip through the real `pulumi` CLI: `workspace-access-export` (the built
 * command) writes the emulator's populated world as a project outside the repository, installed
 * from the packed tarball; its first `pulumi up` adopts every user and membership (one holding an
 * entitlement its integration no longer offers) and sends no POST, PUT, PATCH or DELETE, and
 * `pulumi preview --expect-no-changes` passes after it; every resource is retained on delete, so a
 * `pulumi destroy` of the project removes nobody.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator/index";
import { linkExportModules } from "../support/packed.ts";
import { populatedWithRetired, runExport } from "./export-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type CliConfigValue, type CliStack, cliAvailable, dynamicResources, openCliStack, skipNote, writesOf } from "./support.ts";

const access = (emulator: Emulator): Record<string, CliConfigValue> => ({
  "workspace-access:baseUrl": emulator.url,
  "workspace-access:apiKey": { secret: emulator.apiKey },
});

describe.skipIf(!cliAvailable)(`the export's generated project through the real pulumi CLI${skipNote}`, { timeout: 600_000 }, () => {
  let cliService: Emulator;
  let tmp: string;
  let dir: string;
  let stack: CliStack;

  beforeAll(async () => {
    cliService = await populatedWithRetired();
    tmp = await fs.promises.mkdtemp(path.join(os.tmpdir(), "pwa-cli-export-"));
    dir = path.join(tmp, "access");
    const exported = await runExport(["--out", dir, "--base-url", cliService.url], { WORKSPACE_ACCESS_API_KEY: cliService.apiKey });
    if (exported.code !== 0) throw new Error(`the export failed:\n${exported.stderr}`);
    expect(exported.stdout).toContain("482 users and 274 memberships of 3 integrations");
    await linkExportModules(dir);
    cliService.clearRequests();
    // 756 resources: the file backend's write of the whole checkpoint after every step (the CLI's
    // cost, growing with the square of the resources: docs/performance.md) is skipped, as in the load
    // tier; the state is written at the end of each command all the same.
    stack = await openCliStack({ projectDir: dir, config: access(cliService), env: { PULUMI_SKIP_CHECKPOINTS: "true" } });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await stack?.remove();
    await cliService?.close();
    if (tmp) await fs.promises.rm(tmp, { recursive: true, force: true });
  });

  it("the first pulumi up adopts everything and sends no write; pulumi preview --expect-no-changes passes after it, writing nothing", async () => {
    const usersBefore = cliService.users.list();
    const membersBefore = cliService.integrations.list().map((i) => cliService.integrations.members(i.id));
    // The project's Pulumi.yaml says `refresh: always`: the up refreshes first (reads only).
    await stack.up();
    expect(writesOf(cliService.requests)).toEqual([]);
    expect(cliService.requests.length).toBeGreaterThan(0);
    expect(cliService.users.list()).toEqual(usersBefore);
    expect(cliService.integrations.list().map((i) => cliService.integrations.members(i.id))).toEqual(membersBefore);
    const resources = dynamicResources(await stack.exportState());
    expect(resources.filter((r) => r.type.endsWith(":User"))).toHaveLength(482);
    expect(resources.filter((r) => r.type.endsWith(":IntegrationEntitlement"))).toHaveLength(274);
    expect(await stack.outputs()).toMatchObject({ userCount: 482, membershipCount: 274 });
    // The CLI's own check, which fails the command on any planned change, after the refresh the
    // project asks for (its reads are the only requests: nothing is written).
    const before = cliService.requests.length;
    await stack.preview("--expect-no-changes");
    expect(writesOf(cliService.requests.slice(before))).toEqual([]);
    expect(cliService.requests.length).toBeGreaterThan(before);
  });

  it("every resource is retained on delete: the destroy removes nobody and sends no write", async () => {
    const resources = dynamicResources(await stack.exportState()) as Array<{ retainOnDelete?: boolean }>;
    expect(resources.length).toBe(482 + 274);
    expect(resources.filter((r) => r.retainOnDelete !== true)).toEqual([]);
    const usersBefore = cliService.users.list();
    const membersBefore = cliService.integrations.list().map((i) => cliService.integrations.members(i.id));
    const before = cliService.requests.length;
    await stack.destroy();
    expect(writesOf(cliService.requests.slice(before))).toEqual([]);
    expect(cliService.users.list()).toEqual(usersBefore);
    expect(cliService.integrations.list().map((i) => cliService.integrations.members(i.id))).toEqual(membersBefore);
    expect(dynamicResources(await stack.exportState())).toEqual([]);
  });
});
