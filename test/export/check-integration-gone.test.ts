/**
 * An integration `access.yaml` lists with no member, deleted from the workspace since: the project still declares it (the
 * sets shape, an `IntegrationMembers` of no member), and its next `pulumi up` fails creating it. The review says so (a
 * difference of kind `integration`, exit 1), the absence proven by the integrations' listing, read until two listings agree;
 * `--accept` takes it out of `access.yaml`, and a check then finds nothing. So is one with no member that the workspace has
 * and `access.yaml` does not (which `--accept` adds): a difference, so that the accept changes only what the review lists.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { env, gets, options, twoMembers } from "./support";

const OKTA = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a09";
const ZOOM = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a08";

describe("--check of an integration access.yaml lists with no member, gone from the workspace", () => {
  it("reports it, and one only the workspace has; --accept takes the workspace's side, and a check then finds nothing", async () => {
    const seed = twoMembers();
    const emulator = await startEmulator({
      seed: {
        ...seed,
        integrations: [
          ...seed.integrations,
          { id: OKTA, application: "Okta", label: "Okta acme", entitlements: [{ id: "USER" }], users: [] },
        ],
      },
    });
    try {
      const { dir } = await runExport(options(emulator));
      const file = path.join(dir, "access.yaml");
      const before = fs.readFileSync(file, "utf8");
      expect(before).toContain(`id: ${OKTA}`);
      emulator.integrations.remove(OKTA);
      emulator.integrations.add({ id: ZOOM, application: "Zoom", label: "Zoom acme", entitlements: [{ id: "USER" }], users: [] });
      emulator.clearRequests();
      const review = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
      expect(gets(emulator).every((l) => l.startsWith("GET "))).toBe(true);
      expect(review.changes.map((c) => [c.kind, c.side, c.integration, c.integrationId, c.accessYaml, c.workspace, c.text])).toEqual([
        [
          "integration",
          "access.yaml",
          "Okta acme",
          OKTA,
          "no member",
          null,
          `access.yaml declares the integration "Okta acme" (${OKTA}), with no member; the workspace has no such integration`,
        ],
        [
          "integration",
          "workspace",
          "Zoom acme",
          ZOOM,
          null,
          "no member",
          `the workspace has the integration "Zoom acme" (${ZOOM}), with no member; access.yaml does not`,
        ],
      ]);
      expect(fs.readFileSync(file, "utf8")).toBe(before);

      const accepted = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator), accept: true });
      expect(accepted.accepted).toBe(true);
      const after = fs.readFileSync(file, "utf8");
      expect(after).not.toContain(OKTA);
      expect(after).toContain(`id: ${ZOOM}`);
      expect((await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) })).changes).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe("--check of an integration with no member whose label another integration has", () => {
  it("names its id once, after its label", async () => {
    const emulator = await startEmulator({ seed: twoMembers() });
    try {
      const { dir } = await runExport(options(emulator));
      // Another integration labelled as one access.yaml records (the service does not make labels unique).
      emulator.integrations.add({ id: ZOOM, application: "Zoom", label: "YouTube acme", entitlements: [{ id: "USER" }], users: [] });
      emulator.clearRequests();
      const review = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
      expect(gets(emulator).every((l) => l.startsWith("GET "))).toBe(true);
      expect(review.changes.filter((c) => c.kind === "integration").map((c) => c.text)).toEqual([
        `the workspace has the integration "YouTube acme" (${ZOOM}), with no member; access.yaml does not`,
      ]);
    } finally {
      await emulator.close();
    }
  });
});
