/**
 * A `User` whose record fails the contract's schema (a number for a name), over real HTTP to the emulator: such a record is a
 * present user whose attributes are unknown. A refresh keeps what the state recorded and warns, naming the user's id and the
 * field, as a `WorkspaceUsers` does for one of its users (test/host/workspace-users-odd-record.test.ts); a create, an update
 * and a delete neither take the user for absent nor write what they would have to guess.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, RecordedRequest } from "../../src/emulator";
import { provider, type UserOutputs } from "../../src/host/user/user-provider";
import { SECRET_EMAIL } from "../../src/shared/input-constants";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const bob = { email: "bob@example.com", firstName: "Bob", lastName: "Roe" };
const check = async (news: Record<string, unknown>) => (await provider.check!({}, news)).inputs!;

/** The user's record fails the schema in every answer: lists, reads and write answers. */
const spoil = (emu: Emulator, id: string) => emu.users.update(id, { firstName: 42 as unknown as string });
const sent = (requests: readonly RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path}`);
const writes = (requests: readonly RecordedRequest[]) => sent(requests.filter((r) => r.method !== "GET"));

/** Alice, created by a `User` (`declared` adds to her inputs); then her record, as the service stores it, gets a number for a name. */
async function world(declared: Record<string, unknown> = {}) {
  const emu = await emulator();
  const warnings: string[] = [];
  await configureFor(emu, {}, { warn: (m) => void warnings.push(m), info: () => {} });
  const { id, outs } = await provider.create(await check({ ...alice, ...declared }));
  spoil(emu, id);
  emu.clearRequests();
  return { emu, warnings, id, outs: outs as UserOutputs };
}

describe("a refresh of a User whose record fails the schema", () => {
  it("keeps what the state recorded, with the inputs as before, and warns naming the user's id and the field", async () => {
    const { emu, warnings, id, outs } = await world({ role: "workspace_super_admin" });
    const read = wire(await provider.read!(id, outs));
    expect(read.id).toBe(id);
    expect(read.props).toEqual(outs);
    expect(read.inputs).toEqual({ ...alice, role: "workspace_super_admin", adoptExisting: false });
    // Read directly, nothing written.
    expect(sent(emu.requests)).toEqual([`GET /users/${id}`]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`alice@example.com (${id})`);
    expect(warnings[0]).toContain('field "data.attributes.firstName"');
    expect(warnings[0]).toContain("keeps what the state recorded");
    // What the state recorded is what the program declared: no diff follows.
    expect((await provider.diff!(id, read.props!, await check({ ...alice, role: "workspace_super_admin" }))).changes).toBe(false);

    // Once the record is fixed, the next refresh reads it as ever, and warns no more; one gone is still dropped.
    emu.users.update(id, { firstName: "Alicia" });
    expect(wire(await provider.read!(id, read.props!)).props?.firstName).toBe("Alicia");
    expect(warnings).toHaveLength(1);
    emu.users.remove(id);
    expect(wire(await provider.read!(id, read.props!)).id).toBe("");
  });

  it("within a refresh's shared listing: that user alone keeps its state, read directly once; the others refresh", async () => {
    const { emu, warnings, id, outs } = await world();
    const other = await provider.create(await check(bob));
    emu.users.update(other.id, { lastName: "Ray" });
    emu.clearRequests();
    const [mine, theirs] = await Promise.all([provider.read!(id, outs), provider.read!(other.id, other.outs)]);
    expect(mine.props).toEqual(outs);
    expect(theirs.props?.lastName).toBe("Ray");
    expect(sent(emu.requests)).toEqual(["GET /users", `GET /users/${id}`]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(id);
    expect(warnings[0]).not.toContain("bob@example.com");
  });

  it("of a user whose email the program gives as a secret: the warning names the id, not the email", async () => {
    const { warnings, id, outs } = await world({ [SECRET_EMAIL]: true });
    await provider.read!(id, outs);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(id);
    expect(warnings[0]).not.toContain("alice@example.com");
  });
});

describe("create, update and delete with a record that fails the schema", () => {
  it("an import of it fails and an adoption fails, naming the record; neither writes nor creates anyone", async () => {
    const emu = await emulator();
    await configureFor(emu, {}, { warn: () => {}, info: () => {} });
    const existing = emu.users.add(alice);
    spoil(emu, existing.id);
    const imported = await rejection(provider.create({ ...(await check(alice)), __importId: existing.id }));
    expect(imported.message).toContain('field "data.attributes.firstName"');
    const adopted = await rejection(provider.create(await check({ ...alice, adoptExisting: true })));
    expect(adopted.message).toContain(`Could not prove that no user has the email alice@example.com`);
    expect(adopted.message).toContain(existing.id);
    expect(writes(emu.requests)).toEqual([]);
    expect(emu.users.list()).toHaveLength(1);
  });

  it("an update that would keep the service's role fails, unwritten; a delete fails, deleting nothing", async () => {
    const { emu, id, outs } = await world();
    const updated = await rejection(provider.update!(id, outs, await check({ ...alice, lastName: "Smith" })));
    expect(updated.message).toContain('field "data.attributes.firstName"');
    expect(updated.message).toContain("The user was not updated");
    const deleted = await rejection(provider.delete!(id, outs));
    expect(deleted.message).toContain("The user was not deleted: whether it is a workspace owner now cannot be read.");
    expect(writes(emu.requests)).toEqual([]);
    expect(emu.users.get(id)?.firstName).toBe(42);
  });
});
