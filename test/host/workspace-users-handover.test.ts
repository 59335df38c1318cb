/**
 * A user a `WorkspaceUsers` created, moved by the program to another resource (a `User`, another set), over real HTTP to the
 * emulator: the set's update hands them over instead of deleting them, whichever of the two the engine runs first: told by the
 * set's hidden input (the emails the program's other resources declare, as digests), or by the other resource's check run
 * first (test/reliability/workspace-users-moves.test.ts runs it through the CLI). A user whose email a refresh recorded as
 * changed in the service is known to the set by two emails, the one the program declared (its key) and the service's.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, RecordedRequest } from "../../src/emulator";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { provider } from "../../src/host/users/workspace-users-provider";
import { digestOf } from "../../src/shared/digest";
import { DECLARED_ELSEWHERE } from "../../src/shared/input-constants";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { ann, bob, type Outputs, setOf } from "./workspace-users-support";

const renamed = "ann.lee@example.com";
const deletes = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method === "DELETE").map((r) => r.path);

/** Ann and Bob, created by a set; Ann's email then changed in the service, which a refresh records. */
async function world(): Promise<{ emu: Emulator; infos: string[]; warnings: string[]; refreshed: Outputs; annId: string }> {
  const emu = await emulator();
  await configureFor(emu, {}, { warn: () => {}, info: () => {} });
  const created = (await provider.create(setOf(ann, bob))).outs as Outputs;
  const annId = created.userIds["ann@example.com"]!;
  emu.users.update(annId, { email: renamed });
  const refreshed = wire(await provider.read!("workspace-users", created)).props as Outputs;
  expect(refreshed.users["ann@example.com"]?.email).toBe(renamed);
  // The next deployment: a context of its own.
  const infos: string[] = [];
  const warnings: string[] = [];
  await configureFor(emu, {}, { warn: (m) => void warnings.push(m), info: (m) => void infos.push(m) });
  emu.clearRequests();
  return { emu, infos, warnings, refreshed, annId };
}

describe("a user whose email a refresh recorded as changed, moved to another resource", () => {
  it.each([
    ["the email the program declared", ann.email],
    ["the service's email", renamed],
  ])("declared there with %s, the set running first (its hidden input): handed over, not deleted", async (_, email) => {
    const { emu, infos, warnings, refreshed, annId } = await world();
    const outs = (await provider.update!("workspace-users", refreshed, { ...setOf(bob), [DECLARED_ELSEWHERE]: [digestOf("email", email)] }))
      .outs as Outputs;
    expect(deletes(emu.requests)).toEqual([]);
    expect(emu.users.get(annId)).toBeDefined();
    expect(outs.userIds).toEqual({ "bob@example.com": refreshed.userIds["bob@example.com"] });
    expect(infos.join("\n")).toContain("WorkspaceUsers handed 1 user(s) to another resource of the program");
    // Declared there by the old email, that resource does not find her: said, naming both emails.
    if (email === ann.email) {
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`ann@example.com (${annId}, ${renamed} in the service)`);
      expect(warnings[0]).toContain("declare the service's email there");
    } else expect(warnings).toEqual([]);
  });

  it("a set holding secrets says so with a count, naming no email", async () => {
    const { warnings, refreshed } = await world();
    const news = { ...setOf(bob), [DECLARED_ELSEWHERE]: [digestOf("email", ann.email)], __secretUsers: true };
    await provider.update!("workspace-users", refreshed, news);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("handed 1 user(s)");
    expect(warnings[0]).not.toMatch(/ann/);
  });

  it.each([
    ["the email the program declared", ann.email],
    ["the service's email", renamed],
  ])("declared there with %s, the other resource's check run first: handed over, not deleted", async (_, email) => {
    const { emu, refreshed, annId } = await world();
    await userProvider.check!({}, { ...ann, email, adoptExisting: true });
    await provider.update!("workspace-users", refreshed, setOf(bob));
    expect(deletes(emu.requests)).toEqual([]);
    expect(emu.users.get(annId)).toBeDefined();
  });

  it("a preview's diff does not say the user is deleted when another resource's check saw either email", async () => {
    const { warnings, refreshed } = await world();
    // Someone of the same name joins the set: without the other resource, most likely an email change, which deletes her.
    const joins = { ...ann, email: "ann.l@example.com" };
    await provider.diff!("workspace-users", refreshed, setOf(bob, joins));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("this update deletes the user");
    await userProvider.check!({}, { ...ann, adoptExisting: true });
    await provider.diff!("workspace-users", refreshed, setOf(bob, joins));
    expect(warnings).toHaveLength(1);
  });

  it("declared nowhere else: deleted, as a user the set created", async () => {
    const { emu, refreshed, annId } = await world();
    await provider.update!("workspace-users", refreshed, setOf(bob));
    expect(deletes(emu.requests)).toEqual([`/users/${annId}`]);
  });
});
