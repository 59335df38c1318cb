/**
 * `replaceOnChanges: ["email"]` on an adopted `User` with `deleteOnDestroy`: a new email replaces the resource, the old user
 * deleted (the opt-in) before the new one is made. The diff took the old user for one the resource keeps (an adopted user
 * whose email the program declares), so the delete left it in the workspace without a word. Over real HTTP to the emulator.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider as user } from "../../src/host/user/user-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { alan } = DEFAULT_IDS.users;
const REPLACE = "__replaceOnChanges";

describe("replaceOnChanges of an adopted User's email", () => {
  it("deletes the old user (deleteOnDestroy) and makes the new one", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: () => {}, info: () => {} });
    const declared = { firstName: "Alan", lastName: "Turing", adoptExisting: true, deleteOnDestroy: true, [REPLACE]: ["email"] };
    const first = (await user.check!({}, { ...declared, email: "alan@example.com" })).inputs!;
    const { id, outs } = wire(await user.create(first));
    expect(id).toBe(alan);
    // The next deployment: the program declares another email.
    await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: () => {}, info: () => {} });
    const next = (await user.check!(first, { ...declared, email: "alan.turing@example.com" })).inputs!;
    const diff = wire(await user.diff!(id, outs!, next));
    expect(diff).toMatchObject({ changes: true, replaces: ["email"], deleteBeforeReplace: true });
    emu.clearRequests();
    await user.delete!(id, outs!);
    const made = wire(await user.create(next));
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)).toEqual([
      `DELETE /users/${alan}`,
      "POST /users",
    ]);
    expect(made.id).not.toBe(alan);
    expect(emu.users.list().map((u) => u.email)).not.toContain("alan@example.com");
  });
});

describe("check of a resource whose replaceOnChanges is given as undefined (a direct caller of the provider object)", () => {
  it("hands back no undefined, which the host cannot encode, and sends nothing", async () => {
    const emu = await emulator({ seed: defaultSeed() });
    await configureFor(emu, {}, { warn: () => {}, info: () => {} });
    const result = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young", [REPLACE]: undefined });
    expect(result.failures).toEqual([]);
    expect(() => wire(result)).not.toThrow();
    expect(REPLACE in result.inputs!).toBe(false);
    expect(emu.requests).toEqual([]);
  });
});
