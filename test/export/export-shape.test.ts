/**
 * The export's two shapes of `index.ts` (`--shape`): chosen by size unless given, with the reason; `access.yaml` is the
 * same either way (the access review does not depend on the shape).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { chooseShape } from "../../src/export/project";
import { runExport } from "../../src/export/run";
import { readAccessFile } from "../../src/export/access-file";
import { runCheck } from "../../src/export/run-check";
import { env, options, twoMembers } from "./support";

describe("the export's shape", () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ world: "populated" });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("is sets from 500 users or 1,000 memberships on, records below, unless given", () => {
    expect(chooseShape({ users: 499, memberships: 999, integrations: 3 }).shape).toBe("records");
    expect(chooseShape({ users: 500, memberships: 0, integrations: 0 }).shape).toBe("sets");
    expect(chooseShape({ users: 10, memberships: 1000, integrations: 1 }).shape).toBe("sets");
    expect(chooseShape({ users: 10_000, memberships: 0, integrations: 0 }, "records")).toEqual({
      shape: "records",
      why: "given with --shape",
    });
  });

  it("sets: one WorkspaceUsers and an IntegrationMembers per integration, the same access.yaml as records", async () => {
    const sets = await runExport(options(emulator, { shape: "sets" }));
    const records = await runExport(options(emulator));
    expect(records.shape.shape).toBe("records");
    expect(sets.shape).toEqual({ shape: "sets", why: "given with --shape" });
    const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
    expect(read(sets.dir, "access.yaml")).toBe(read(records.dir, "access.yaml"));
    expect(read(sets.dir, "index.ts")).toContain('new wa.WorkspaceUsers(\n  "users"');
    expect(read(sets.dir, "index.ts")).toContain("removeUnmanaged: false");
    expect(read(sets.dir, "index.ts")).not.toContain("wa.User(");
    expect(read(sets.dir, "README.md")).toContain("one `WorkspaceUsers` of every user");
  });

  it("an integration whose id no resource can declare (not a UUID) is left out whole, with its members: the project previews", async () => {
    const seed = twoMembers();
    const odd = { id: "github-acme", application: "GitHub", label: "GitHub acme", entitlements: [{ id: "READ" }] };
    const world = await startEmulator({
      seed: { ...seed, integrations: [...seed.integrations, { ...odd, users: [{ userId: "u-ann", entitlements: ["READ"] }] }] },
    });
    try {
      const exported = await runExport(options(world, { shape: "sets" }));
      const access = readAccessFile(path.join(exported.dir, "access.yaml"));
      // Before, it was written as an IntegrationMembers of no member, whose check refused the id: the preview failed.
      expect(access.integrations.map((i) => i.id)).not.toContain("github-acme");
      expect(access.leftOut).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: "integration", id: "github-acme", reason: expect.stringMatching(/must be a UUID/) }),
          expect.objectContaining({
            kind: "membership",
            integration: "github-acme",
            id: "u-ann",
            reason: expect.stringMatching(/^its integration is left out/),
          }),
        ]),
      );
      const check = await runCheck({ out: exported.dir, baseUrl: world.url, env: env(world) });
      expect(check.changes).toEqual([]);
    } finally {
      await world.close();
    }
  });
});
