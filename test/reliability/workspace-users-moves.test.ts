/**
 * A user a `WorkspaceUsers` created, moved by the program to another resource in one `up`, through the real `pulumi` CLI: the
 * set's update (which the engine may run before the receiving resource's create or update) hands the user over instead of
 * deleting them. The receiving resource adopts them with their id and memberships.
 */
import { describe, expect, it } from "vitest";
import { header, scenarios, writes } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();
const xena = { email: "xena@example.com", firstName: "Xena", lastName: "New" };
const yuri = { email: "yuri@example.com", firstName: "Yuri", lastName: "New" };
const ann = { email: "ann@example.com", firstName: "Ann", lastName: "Lee" };
const set = (name: string, users: object[]) => `new wa.WorkspaceUsers(${JSON.stringify(name)}, { users: ${JSON.stringify(users)} });\n`;

describe.skipIf(!cliAvailable)(`a user moved out of the WorkspaceUsers that created them, through the real pulumi CLI${skipNote}`, () => {
  it.each([
    ["to another set declared after it", set("a", [yuri]) + set("b", [ann, xena])],
    ["to another set declared before it", set("b", [ann, xena]) + set("a", [yuri])],
    [
      "to a User with adoptExisting",
      `${set("a", [yuri]) + set("b", [ann])}new wa.User("xena", { ...${JSON.stringify(xena)}, adoptExisting: true });\n`,
    ],
    [
      // Known only once the other resource is made, the email is not known with the set's own: the set waits for the User
      // (dependsOn), whose create takes the user over first.
      "to a User whose email is another resource's output, the set depending on it",
      `const helper = new wa.User("helper", { email: "helper@example.com", firstName: "Hel", lastName: "Per" });\n` +
        `const xena = new wa.User("xena", { ...${JSON.stringify(xena)}, email: helper.id.apply(() => ${JSON.stringify(xena.email)}), ` +
        "adoptExisting: true });\n" +
        `new wa.WorkspaceUsers("a", { users: ${JSON.stringify([yuri])} }, { dependsOn: [xena] });\n${set("b", [ann])}`,
    ],
  ])("%s: is handed over, never deleted", async (_, moved) => {
    // Ann is there already (b adopts her): two sets creating users at once may each see the other's users come, and then
    // refuse to create ("run again"), as the proof of absence must; this test is about the move, not that.
    const s = await start({
      program: header + set("a", [xena, yuri]) + set("b", [ann]),
      emulator: { seed: { users: [{ id: "00000000-0000-4000-8000-00000000a001", ...ann }] } },
    });
    await s.up();
    const id = s.emu.users.findByEmail(xena.email)?.id;
    expect(id).toBeDefined();
    s.emu.clearRequests();
    s.setProgram(header + moved);
    await s.up();
    expect(writes(s.emu).filter((r) => r.method === "DELETE")).toEqual([]);
    expect(s.emu.users.findByEmail(xena.email)?.id).toBe(id);
    // The next up writes nothing: the receiving resource has the user, with that id.
    s.emu.clearRequests();
    await s.up();
    expect(writes(s.emu)).toEqual([]);
  });
});
