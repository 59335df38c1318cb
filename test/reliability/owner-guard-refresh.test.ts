/**
 * An `IntegrationEntitlement` whose member someone made an owner by hand, a role the program declares otherwise, through the
 * real `pulumi` CLI: a destroy leaves them, with a warning, whether or not the run refreshes first. A refresh's diff (the
 * engine diffs each read against the old inputs) plans no role change: only the program's diff does.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator/index";
import { header, scenarios, stepOf, writes } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();
const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const program = `${header}new wa.IntegrationEntitlement("alan-youtube", ${JSON.stringify({ integrationId: youtube, userId: alan, role: "account_collaborator", entitlements: ["VIEWER"] })});\n`;

describe.skipIf(!cliAvailable)(`a member made an owner by hand, through the real pulumi CLI${skipNote}`, () => {
  it.each([
    ["destroy --refresh", ["destroy", "--yes", "--skip-preview", "--refresh"], ""],
    ["up --refresh of a program that no longer declares the membership", ["up", "--yes", "--skip-preview", "--refresh"], header],
  ])("%s leaves them, with a warning", async (_, args, then) => {
    const s = await start({ program, emulator: { seed: defaultSeed(), job: { finishAfterPolls: 1 } } });
    await s.up();
    s.emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    s.emu.clearRequests();
    if (then) s.setProgram(then);
    const run = await s.stack.cli.run(args);
    expect(writes(s.emu)).toEqual([]);
    expect(s.emu.integrations.members(youtube).find((m) => m.userId === alan)?.role).toBe("owner");
    expect(run.output).toContain(`The membership of user ${alan}`);
  });
});

describe.skipIf(!cliAvailable)(`a declared role changed by hand, then refreshed twice, through the real pulumi CLI${skipNote}`, () => {
  it("the first refresh shows the role changed, the second no change; nothing is written", async () => {
    const s = await start({ program, emulator: { seed: defaultSeed(), job: { finishAfterPolls: 1 } } });
    await s.up();
    s.emu.integrations.setMember(youtube, alan, { role: "owner", entitlements: ["VIEWER"] });
    s.emu.clearRequests();
    const first = await s.refresh();
    expect(stepOf(first, "alan-youtube")).toMatchObject({ op: "update", diffs: ["role"] });
    // The second diffs the read against the inputs the first recorded (the role it read): no change.
    const second = await s.refresh();
    expect(stepOf(second, "alan-youtube")).toMatchObject({ op: "same", diffs: [] });
    expect(writes(s.emu)).toEqual([]);
  });
});
