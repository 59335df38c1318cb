/**
 * What the fleet's report redacts, through the real `pulumi` CLI, run from the packed tarball's bin: acme's stack config
 * holds one person's email as a secret (`pulumi config set --secret --path`, which marks the whole list secret) and a
 * short secret (`1`). The report hides that email, and only it: every other resource's name and every count stays.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetFixture, fleetFixture } from "./fleet-support.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { cliAvailable, skipNote } from "./support.ts";

describe.skipIf(!cliAvailable)(`workspace-access-fleet redacts a stack's secrets and nothing else${skipNote}`, { timeout: 300_000 }, () => {
  let f: FleetFixture;

  beforeAll(async () => {
    f = await fleetFixture();
    await f.acme.run(["config", "set", "--secret", "--path", "workspace-access-per-workspace:people[1].email", "bob@acme.example"]);
    await f.acme.setConfig("workspace-access-per-workspace:replicas", { secret: "1" });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await f?.dispose();
  });

  it("a secret leaf of a config object hides that value only; a short secret hides nothing", async () => {
    const config = JSON.parse((await f.acme.run(["config", "--json"])).stdout) as Record<string, { secret: boolean }>;
    expect(config["workspace-access-per-workspace:people"]?.secret).toBe(true);
    const run = await f.fleet(["preview"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^acme +succeeded +5 +0 +0 +0 +0$/m);
    expect(run.stdout).toContain("    + User alice@acme.example\n");
    expect(run.stdout).toContain("    + IntegrationEntitlement alice@acme.example/Slack\n");
    expect(run.stdout).toContain("    + User [redacted]\n");
    expect(run.stdout).toContain("workspace-access-fleet preview: 1 stack, 1 succeeded, 0 failed, 0 skipped");
    expect(`${run.stdout}${run.stderr}`).not.toContain("bob@acme.example");
    expect(`${run.stdout}${run.stderr}`.includes(f.emu.apiKey.slice(-12))).toBe(false);
  });
});
