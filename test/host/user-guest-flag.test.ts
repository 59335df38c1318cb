/**
 * A `User` whose service record leaves `isGuest` out beside a guest role, or one the public document does not list: the record
 * says nothing of the flag (`guestOf`), so a declared `isGuest` is not taken as holding; it is written, and once written, neither the write's answer nor a refresh of a
 * record that still leaves it out makes it differ again.
 */
import { describe, expect, it } from "vitest";
import { provider } from "../../src/host/user/user-provider";
import type { WorkspaceRole } from "../../src/emulator";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const kay = { email: "kay@partner.example", firstName: "Kay", lastName: "Doe" };
const check = (news: Record<string, unknown>) => provider.check!({}, news);
const writes = (emu: { requests: Array<{ method: string; path: string; body?: unknown }> }) =>
  emu.requests.filter((r) => r.method !== "GET");

describe("User: a guest role whose record leaves isGuest out", () => {
  it("a state that records the flag left out (an adoption that left it to the service), then isGuest: false declared: a diff, and the update sends it", async () => {
    const emu = await emulator();
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add({ ...kay, isGuest: true });
    expect(existing.role).toBe("workspace_guest_user");
    // The service's record leaves the flag out: whether Kay is a guest is not said.
    emu.users.update(existing.id, { isGuest: null as unknown as boolean });
    const { id, outs } = wire(await provider.create((await check({ ...kay, adoptExisting: true })).inputs!));
    expect(outs).toMatchObject({ role: "workspace_guest_user", isGuest: null });
    expect(writes(emu)).toEqual([]);
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ role: "workspace_guest_user", isGuest: null });
    // The program now declares Kay a member: nothing says it holds.
    const member = (await check({ ...kay, adoptExisting: true, isGuest: false })).inputs!;
    expect(wire(await provider.diff!(id, read.props!, member))).toEqual({ changes: true, replaces: [], deleteBeforeReplace: true });
    emu.clearRequests();
    const { outs: updated } = wire(await provider.update!(id, read.props!, member));
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { isGuest: false } } } }]);
    expect(emu.users.get(id)).toMatchObject({ isGuest: false });
    expect(wire(await provider.diff!(id, updated!, member)).changes).toBe(false);
  });

  it("an adoption of such a record, isGuest: false declared, writes it", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const existing = emu.users.add({ ...kay, isGuest: true });
    emu.users.update(existing.id, { isGuest: null as unknown as boolean });
    const { outs } = wire(await provider.create((await check({ ...kay, adoptExisting: true, isGuest: false })).inputs!));
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { isGuest: false } } } }]);
    expect(outs).toMatchObject({ isGuest: false, adopted: true });
  });

  it("a service that leaves false out (a guest admin who is not a guest): written once, then no diff, after a refresh too", async () => {
    const emu = await emulator({ quirks: { nullFields: true } });
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add({ ...kay, role: "workspace_guest_admin", isGuest: false });
    const declared = (await check({ ...kay, adoptExisting: true, isGuest: false })).inputs!;
    const { id, outs } = wire(await provider.create(declared));
    // The record says nothing of the flag beside a guest role: the adoption writes the declared one, which the service took.
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { isGuest: false } } } }]);
    expect(outs).toMatchObject({ role: "workspace_guest_admin", isGuest: false });
    expect(wire(await provider.diff!(id, outs!, declared)).changes).toBe(false);
    // A refresh of the record, which still leaves the flag out beside the same role: nothing says it changed.
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ role: "workspace_guest_admin", isGuest: false });
    expect(wire(await provider.diff!(id, read.props!, declared)).changes).toBe(false);
    expect(wire(await provider.diff!(id, read.props!, read.inputs as unknown as Record<string, unknown>)).changes).toBe(false);
    expect(emu.users.get(existing.id)).toMatchObject({ role: "workspace_guest_admin", isGuest: false });
    // Made a guest in the service meanwhile (the service reports true): the refresh shows it, the next up writes the program's.
    emu.users.update(id, { role: "workspace_guest_user", isGuest: true });
    const drifted = wire(await provider.read!(id, read.props));
    expect(drifted.props).toMatchObject({ role: "workspace_guest_user", isGuest: true });
    expect(wire(await provider.diff!(id, drifted.props!, declared)).changes).toBe(true);
  });

  it("a role changed in the service beside a flag left out: the state's flag is not kept (the record changed)", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = wire(await provider.create((await check({ ...kay, isGuest: false })).inputs!));
    expect(outs).toMatchObject({ role: "workspace_login_only", isGuest: false });
    emu.users.update(id, { role: "workspace_guest_user", isGuest: null as unknown as boolean });
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ role: "workspace_guest_user", isGuest: null });
    expect(wire(await provider.diff!(id, read.props!, (await check({ ...kay, isGuest: false })).inputs!)).changes).toBe(true);
  });

  it("a guest whose record now leaves the flag out beside the same role: not kept a guest (the flag may have changed), written back", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const declared = (await check({ ...kay, role: "workspace_guest_user", isGuest: true })).inputs!;
    const { id, outs } = wire(await provider.create(declared));
    expect(outs).toMatchObject({ role: "workspace_guest_user", isGuest: true });
    // A service that leaves false out: someone made Kay a member.
    emu.users.update(id, { isGuest: null as unknown as boolean });
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ role: "workspace_guest_user", isGuest: null });
    expect(wire(await provider.diff!(id, read.props!, declared)).changes).toBe(true);
    emu.clearRequests();
    await provider.update!(id, read.props!, declared);
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { isGuest: true } } } }]);
  });
});

describe("User: a role the public document does not list whose record leaves isGuest out (it may be a guest's)", () => {
  const collaborator = { ...kay, role: "workspace_external_collaborator" as WorkspaceRole, isGuest: true };

  it("an update that leaves isGuest to the service fails naming the user and the fix: no PUT writes false for a possible guest", async () => {
    const emu = await emulator({ quirks: { openUserRoles: true } });
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add(collaborator);
    emu.users.update(existing.id, { isGuest: null as unknown as boolean });
    const { id, outs } = wire(await provider.create((await check({ ...kay, adoptExisting: true })).inputs!));
    expect(outs).toMatchObject({ role: "workspace_external_collaborator", isGuest: null });
    emu.clearRequests();
    const renamed = (extra: object = {}) => check({ ...kay, adoptExisting: true, lastName: "Roe", ...extra });
    const error = await rejection(provider.update!(id, outs!, (await renamed()).inputs!));
    expect(error.message).toContain(`User ${id} (kay@partner.example)`);
    expect(error.message).toContain('field "data.attributes.isGuest"');
    expect(error.message).toContain("has the role workspace_external_collaborator, which the public document does not list");
    expect(error.message).toContain("Declare isGuest on this resource.");
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(id)).toMatchObject({ isGuest: null, lastName: "Doe" });
    // Declared, the flag is the program's: the PUT sends it, whatever it is.
    await provider.update!(id, outs!, (await renamed({ isGuest: true })).inputs!);
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { lastName: "Roe", isGuest: true } } } }]);
  });

  it("a role change to such a role, the flag left out of a member's record, names the record's role and the one sent", async () => {
    const emu = await emulator({ quirks: { openUserRoles: true } });
    await configureFor(emu, {}, { info: () => {} });
    const member = emu.users.add({ ...kay, role: "workspace_login_only", isGuest: false });
    emu.users.update(member.id, { isGuest: null as unknown as boolean });
    const { id, outs } = wire(await provider.create((await check({ ...kay, adoptExisting: true })).inputs!));
    emu.clearRequests();
    const moved = (await check({ ...kay, adoptExisting: true, role: "workspace_external_collaborator" })).inputs!;
    const error = await rejection(provider.update!(id, outs!, moved));
    expect(error.message).toContain(
      "has the role workspace_login_only, and the update sends the role workspace_external_collaborator, which the public document does not list",
    );
    expect(writes(emu)).toEqual([]);
  });

  it("an adoption declaring isGuest: false beside such a record writes it: a declared flag is not taken as holding", async () => {
    const emu = await emulator({ quirks: { openUserRoles: true } });
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add(collaborator);
    emu.users.update(existing.id, { isGuest: null as unknown as boolean });
    const { outs } = wire(await provider.create((await check({ ...kay, adoptExisting: true, isGuest: false })).inputs!));
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { isGuest: false } } } }]);
    expect(outs).toMatchObject({ role: "workspace_external_collaborator", isGuest: false, adopted: true });
  });
});

describe("User: a service that leaves false out beside a role that is not a guest's (the record says false)", () => {
  it("an update of another attribute keeps the flag the service changed, as it keeps any attribute the program did not change", async () => {
    const emu = await emulator({ quirks: { nullFields: true } });
    await configureFor(emu, {}, { info: () => {} });
    const declared = (await check({ ...kay, role: "workspace_login_only", isGuest: true })).inputs!;
    const { id, outs } = wire(await provider.create(declared));
    expect(outs).toMatchObject({ role: "workspace_login_only", isGuest: true });
    // Made a member in the service (the record now leaves the flag out: false); the program then renames the user.
    emu.users.update(id, { isGuest: false });
    emu.clearRequests();
    const renamed = (await check({ ...kay, lastName: "Roe", role: "workspace_login_only", isGuest: true })).inputs!;
    const { outs: updated } = wire(await provider.update!(id, outs!, renamed));
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { lastName: "Roe", isGuest: false } } } }]);
    expect(emu.users.get(id)).toMatchObject({ lastName: "Roe", isGuest: false });
    // The declared value left unsent causes no diff of its own, as any unapplied one.
    expect(updated).toHaveProperty("unapplied.isGuest");
    expect(wire(await provider.diff!(id, updated!, renamed)).changes).toBe(false);
  });

  it("an import whose ignoreChanges names isGuest writes no flag: a member is not made a guest", async () => {
    const emu = await emulator({ quirks: { nullFields: true } });
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add({ ...kay, role: "workspace_login_only", isGuest: false });
    const declared = { ...kay, role: "workspace_login_only", isGuest: true, __importId: existing.id, __ignoreChanges: ["isGuest"] };
    const { outs } = wire(await provider.create((await check(declared)).inputs!));
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(existing.id)).toMatchObject({ isGuest: false });
    expect(outs).toHaveProperty("unapplied.isGuest");
  });

  it("an adoption (adoptExisting) whose ignoreChanges names isGuest and that writes a name keeps the flag", async () => {
    const emu = await emulator({ quirks: { nullFields: true } });
    await configureFor(emu, {}, { info: () => {} });
    const existing = emu.users.add({ ...kay, lastName: "Old", role: "workspace_login_only", isGuest: false });
    const declared = { ...kay, role: "workspace_login_only", isGuest: true, adoptExisting: true, __ignoreChanges: ["isGuest"] };
    await provider.create((await check(declared)).inputs!);
    expect(writes(emu)).toMatchObject([{ method: "PUT", body: { data: { attributes: { lastName: "Doe", isGuest: false } } } }]);
    expect(emu.users.get(existing.id)).toMatchObject({ lastName: "Doe", isGuest: false });
  });
});
