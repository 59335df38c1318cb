/**
 * A stack pointed at another workspace, through the real `pulumi` CLI: its state records the workspace each resource was
 * written in, so a refresh with the stack config re-pointed at a second emulator fails naming both addresses, the second
 * emulator receives nothing and the state keeps every resource (without the record, each id read there as gone would have
 * been dropped, the first workspace's people left unmanaged). Pointed back, the refresh succeeds. A state written before
 * the workspace was recorded is refreshed with no change shown, and records it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, YOUTUBE: integrations.youtube })}
new wa.User("bob", { email: "bob@example.com", firstName: "Bob", lastName: "Stone" });
new wa.IntegrationEntitlement("alan-youtube", { integrationId: YOUTUBE, userId: ALAN, entitlements: ["VIEWER"] });
`;

describe.skipIf(!cliAvailable)(`a stack pointed at another workspace, through the real pulumi CLI${skipNote}`, { timeout: 600_000 }, () => {
  let h: HabitsStack;
  let second: Emulator;

  beforeAll(async () => {
    h = await habitsStack("recorded-workspace", program);
    second = await startTestEmulator();
    await h.stack.up();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
    await second?.close();
  });

  /** Each resource of the state, by URN: its id. */
  const recorded = async () => Object.fromEntries(dynamicResources(await h.stack.exportState()).map((r) => [r.urn, r.id]));

  it("a refresh re-pointed at a second emulator fails naming both addresses, sends it nothing and keeps every resource", async () => {
    const before = await recorded();
    expect(Object.keys(before)).toHaveLength(2);
    await h.stack.setConfig("workspace-access:baseUrl", second.url);
    await h.stack.setConfig("workspace-access:apiKey", { secret: second.apiKey });

    const refused = await h.step((s) => s.run(["refresh", "--yes", "--skip-preview", "--run-program"], { allowFailure: true }));
    expect(refused.run.code).not.toBe(0);
    expect(refused.run.output).toContain(`was written in the workspace at ${h.emulator.url}`);
    expect(refused.run.output).toContain(`now name ${second.url}`);
    expect(refused.run.output).toContain(`pulumi config set workspace-access:baseUrl ${h.emulator.url}`);
    expect(refused.run.output).toContain("pulumi state delete <urn>");
    expect(refused.run.output).not.toContain(second.apiKey);
    expect(second.requests).toEqual([]);
    expect(refused.requests).toEqual([]);
    expect(await recorded()).toEqual(before);

    // An up's diff refuses it too: nothing created anew in the second.
    const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview"], { allowFailure: true }));
    expect(up.run.code).not.toBe(0);
    expect(up.run.output).toContain(`now name ${second.url}`);
    expect(writesOf(second.requests)).toEqual([]);
    expect(await recorded()).toEqual(before);
  });

  it("pointed back, the refresh succeeds; a plain one first says that the failed up recorded the other address", async () => {
    await h.stack.setConfig("workspace-access:baseUrl", h.emulator.url);
    await h.stack.setConfig("workspace-access:apiKey", { secret: h.emulator.apiKey });
    // Without --run-program a refresh runs with the provider configuration the state holds: the failed up recorded the second's.
    const plain = await h.step((s) => s.run(["refresh", "--yes", "--skip-preview"], { allowFailure: true }));
    expect(plain.run.code).not.toBe(0);
    expect(plain.run.output).toContain(`now name ${second.url}`);
    expect(plain.run.output).toContain("once the stack config is fixed, run pulumi refresh --run-program (or pulumi up first)");
    expect(plain.requests).toEqual([]);
    expect(second.requests).toEqual([]);

    const refresh = await h.step((s) => s.refresh("--run-program"));
    expect(refresh.run.code).toBe(0);
    expect(refresh.requests.map((r) => `${r.method} ${r.status}`)).toContain("GET 200");
    const after = dynamicResources(await h.stack.exportState());
    expect(after.map((r) => r.outputs?.["__workspace"])).toEqual([h.emulator.url, h.emulator.url]);
    // The up that follows writes nothing, and records the first's address as the provider configuration again.
    const up = await h.step((s) => s.up("--expect-no-changes"));
    expect(writesOf(up.requests)).toEqual([]);
    expect((await h.step((s) => s.refresh("--expect-no-changes"))).run.code).toBe(0);
    expect(second.requests).toEqual([]);
  });

  it("a state written before the workspace was recorded: a refresh shows no change and records it", async () => {
    // The state as the package wrote it before: every resource's outputs without `__workspace`.
    const state = await h.stack.exportState();
    for (const resource of dynamicResources(state)) delete resource.outputs?.["__workspace"];
    const file = path.join(h.project.dir, "older.json");
    fs.writeFileSync(file, JSON.stringify(state));
    await h.stack.run(["stack", "import", "--file", file]);
    expect(dynamicResources(await h.stack.exportState()).map((r) => r.outputs?.["__workspace"])).toEqual([undefined, undefined]);

    await h.stack.preview("--expect-no-changes");
    const refresh = await h.step((s) => s.refresh("--expect-no-changes"));
    expect(writesOf(refresh.requests)).toEqual([]);
    expect(dynamicResources(await h.stack.exportState()).map((r) => r.outputs?.["__workspace"])).toEqual([h.emulator.url, h.emulator.url]);
    expect(second.requests).toEqual([]);
  });
});
