/**
 * `WorkspaceUsers` with one user whose record fails the contract's schema (a number for a name), over real HTTP to the
 * emulator: such a record is a present user whose attributes are unknown. A refresh keeps what the state recorded for
 * them and warns, naming the record and why; the others refresh, update and are destroyed as ever; nothing is written
 * to or forgotten of that user on the strength of a record that could not be read.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, RecordedRequest } from "../../src/emulator";
import { changedPaths, provider } from "../../src/host/users/workspace-users-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { ANN, ann, BOB, bob, cara, type Outputs, setOf } from "./workspace-users-support";

const CARA = "00000000-0000-4000-8000-00000000a003";
const dan = { email: "dan@example.com", firstName: "Dan", lastName: "Oz" };

/** Ann and Bob, managed by a created `WorkspaceUsers`; then Bob's record, as the service stores it, gets a number for a name. */
async function world(): Promise<{ emu: Emulator; warnings: string[]; outs: Outputs }> {
  const emu = await emulator({
    seed: {
      users: [
        { id: ANN, ...ann },
        { id: BOB, ...bob },
      ],
    },
  });
  const warnings: string[] = [];
  await configureFor(emu, {}, { warn: (m) => void warnings.push(m), info: () => {} });
  const outs = (await provider.create(setOf(ann, bob))).outs as Outputs;
  spoil(emu, BOB);
  emu.clearRequests();
  return { emu, warnings, outs };
}

/** The user's record fails the schema in every answer: lists, reads and write answers. */
const spoil = (emu: Emulator, id: string) => emu.users.update(id, { firstName: 42 as unknown as string });

const sent = (requests: readonly RecordedRequest[]) => requests.map((r) => `${r.method} ${r.path}`);
const writes = (requests: readonly RecordedRequest[]) => sent(requests.filter((r) => r.method !== "GET"));

describe("a refresh with one user whose record fails the schema", () => {
  it("refreshes the others, keeps that user as the state recorded them, and warns naming the record and why", async () => {
    const { emu, warnings, outs } = await world();
    emu.users.update(ANN, { lastName: "Li" });
    const read = wire(await provider.read!("workspace-users", outs));
    const props = read.props as Outputs;
    expect(props.users["ann@example.com"]?.lastName).toBe("Li");
    expect(props.users["bob@example.com"]).toEqual(outs.users["bob@example.com"]);
    expect(props.userIds).toEqual({ "ann@example.com": ANN, "bob@example.com": BOB });
    // The one listing says the record is there: no direct read, no write.
    expect(sent(emu.requests)).toEqual(["GET /users"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`bob@example.com (${BOB})`);
    expect(warnings[0]).toContain('field "attributes.firstName"');
    expect(warnings[0]).not.toContain("ann@example.com");
    // What the state recorded is what the program declared: Bob shows no diff.
    expect(changedPaths(props, setOf({ ...ann, lastName: "Li" }, bob))).toEqual([]);
    expect(read.inputs).toEqual(setOf({ ...ann, lastName: "Li" }, bob));

    // Once the record is fixed, the next refresh reads it as ever, and warns no more.
    emu.users.update(BOB, { firstName: "Robert" });
    const again = wire(await provider.read!("workspace-users", props)).props as Outputs;
    expect(again.users["bob@example.com"]?.firstName).toBe("Robert");
    expect(warnings).toHaveLength(1);
  });

  it("keeps a user the listing misses whose direct read fails the schema, and still forgets one the service answers 404 for", async () => {
    const { emu, warnings, outs } = await world();
    // A listing that misses Bob (pages shift): he is read directly, and that read's record fails the schema.
    const answer = await fetch(`${emu.url}users?page%5Bsize%5D=100`, { headers: { "x-api-key": emu.apiKey } });
    const page = (await answer.json()) as { data: Array<{ id: string }> };
    emu.clearRequests();
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify({ ...page, data: page.data.filter((r) => r.id !== BOB) }) });
    const props = wire(await provider.read!("workspace-users", outs)).props as Outputs;
    expect(sent(emu.requests)).toEqual(["GET /users", `GET /users/${BOB}`]);
    expect(props.users).toEqual(outs.users);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`bob@example.com (${BOB})`);
    expect(warnings[0]).toContain('field "data.attributes.firstName"');

    emu.users.remove(BOB);
    const gone = wire(await provider.read!("workspace-users", props)).props as Outputs;
    expect(gone.userIds).toEqual({ "ann@example.com": ANN });
  });
});

describe("update and destroy with one user whose record fails the schema", () => {
  it("an update writes the others; a change of that user that needs its record fails that user alone, unwritten", async () => {
    const { emu, outs } = await world();
    const error = (await rejection(
      provider.update!("workspace-users", outs, setOf({ ...ann, lastName: "Li" }, { ...bob, lastName: "Roy" })),
    )) as Error & { properties?: Outputs };
    expect(error.message).toContain("bob@example.com:");
    expect(error.message).toContain("attributes.firstName");
    expect(writes(emu.requests)).toEqual([`PUT /users/${ANN}`]);
    expect(emu.users.get(ANN)?.lastName).toBe("Li");
    expect(error.properties?.users["ann@example.com"]?.lastName).toBe("Li");
    expect(error.properties?.users["bob@example.com"]).toEqual(outs.users["bob@example.com"]);
  });

  it("an added user is created once proven absent, and one whose own record fails the schema is neither adopted nor written", async () => {
    const { emu, outs } = await world();
    emu.users.add({ id: CARA, ...cara });
    spoil(emu, CARA);
    const error = (await rejection(provider.update!("workspace-users", outs, setOf(ann, bob, cara, dan)))) as Error & {
      properties?: Outputs;
    };
    expect(error.message).toContain("cara@example.com:");
    // The 409 says why the user who has the email was not adopted: the list could not read their record.
    // The 409's lookup of her email finds her unreadable record: it says so, naming it, instead of guessing.
    expect(error.message).toContain("Could not prove that no user has the email cara@example.com");
    expect(error.message).toContain(`(ids ${CARA};`);
    expect(error.message).not.toContain("dan@example.com:");
    // Dan is created; Cara's record is never written (the POST that proves her there creates nothing), nor Bob's.
    expect(writes(emu.requests).sort()).toEqual(["POST /users", "POST /users"]);
    expect(emu.users.findByEmail(dan.email)).toBeDefined();
    expect(emu.users.get(CARA)?.firstName).toBe(42);
    expect(Object.keys(error.properties?.users ?? {})).toEqual(["ann@example.com", "bob@example.com", "dan@example.com"]);
    expect(error.properties?.users["bob@example.com"]).toEqual(outs.users["bob@example.com"]);
  });

  it("a destroy leaves a user it created whose record fails the schema (its role cannot be read), failing that user alone", async () => {
    const dan = { email: "dan@example.com", firstName: "Dan", lastName: "Oz" };
    const emu = await emulator({ seed: { users: [{ id: ANN, ...ann }] } });
    await configureFor(emu, {}, { warn: () => {}, info: () => {} });
    const { outs } = await provider.create(setOf(ann, cara, dan));
    const caraId = (outs as Outputs).userIds["cara@example.com"]!;
    const danId = (outs as Outputs).userIds["dan@example.com"]!;
    spoil(emu, caraId);
    emu.clearRequests();
    const error = await rejection(provider.delete!("workspace-users", outs as Outputs));
    expect(error.message).toContain("cara@example.com:");
    expect(error.message).toContain('field "data.attributes.firstName"');
    expect(error.message).toContain("The user was not deleted: whether it is a workspace owner now cannot be read.");
    // Whether someone made cara an owner since is unknown: she is not deleted; dan is.
    expect(sent(emu.requests).filter((r) => r.startsWith("DELETE"))).toEqual([`DELETE /users/${danId}`]);
    expect(emu.users.get(caraId)).toBeDefined();
  });

  it("a removal or destroy leaves a user it created whose record has no role (an owner now?), failing that user alone", async () => {
    const emu = await emulator({ seed: { users: [{ id: ANN, ...ann }] } });
    await configureFor(emu, {}, { warn: () => {}, info: () => {} });
    const { outs } = await provider.create(setOf(ann, cara, dan));
    const caraId = (outs as Outputs).userIds["cara@example.com"]!;
    const danId = (outs as Outputs).userIds["dan@example.com"]!;
    // The service's record of Cara now leaves the role out: only the id is certain.
    emu.users.update(caraId, { role: null as unknown as string });
    emu.clearRequests();
    // A removal: the update fails Cara alone, keeps her in the state, and removes Dan.
    const error = (await rejection(provider.update!("workspace-users", outs as Outputs, setOf(ann)))) as Error & { properties?: Outputs };
    expect(error.message).toContain(`cara@example.com: User ${caraId} (cara@example.com): the service's record has no role`);
    expect(error.message).toContain("The user was not deleted: whether it is a workspace owner now cannot be read.");
    // A set never deletes an owner, deleteOnDestroy or not: its message does not offer it.
    expect(error.message).not.toContain("deleteOnDestroy");
    expect(writes(emu.requests)).toEqual([`DELETE /users/${danId}`]);
    expect(emu.users.get(caraId)).toBeDefined();
    expect(Object.keys(error.properties?.users ?? {})).toEqual(["ann@example.com", "cara@example.com"]);
    // A destroy with deleteOnDestroy (a later deployment) leaves her too.
    await configureFor(emu, {}, { warn: () => {}, info: () => {} });
    emu.clearRequests();
    const destroyed = await rejection(provider.delete!("workspace-users", { ...error.properties!, deleteOnDestroy: true }));
    expect(destroyed.message).toContain("cara@example.com:");
    expect(writes(emu.requests)).toEqual([`DELETE /users/${ANN}`]);
    expect(emu.users.get(caraId)).toBeDefined();
  });
});
