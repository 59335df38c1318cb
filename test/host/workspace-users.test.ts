/**
 * `WorkspaceUsers`' handlers in process, over real HTTP to the emulator (virtual clock): what the server received for
 * a create (one listing, misses proven absent before any POST), an update (only the changed users written), a removal
 * and a destroy (only the users it created, never an owner), a refresh (drift per user, no diff after it), and one
 * failing user among others.
 */
import { describe, expect, it } from "vitest";
import type { Emulator, RecordedRequest } from "../../src/emulator";
import { digestOf } from "../../src/shared/digest";
import { provider as userProvider } from "../../src/host/user/user-provider";
import { changedPaths, provider } from "../../src/host/users/workspace-users-provider";
import type { Props } from "../../src/shared/inputs";
import { UNKNOWN } from "../../src/shared/unknown";
import { manyUsers } from "../emulator/helpers";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { ANN, ann, BOB, bob, cara, type Outputs, setOf } from "./workspace-users-support";

const OWNER = "00000000-0000-4000-8000-00000000a003";
const owner = { email: "olga@example.com", firstName: "Olga", lastName: "Kay" };

/** A new deployment: a new context (what the last one took over is not this one's). */
const nextDeployment = (emu: Emulator, warnings: string[]) => configureFor(emu, {}, { warn: (m) => void warnings.push(m), info: () => {} });

async function world(): Promise<{ emu: Emulator; warnings: string[] }> {
  const emu = await emulator({
    seed: {
      users: [
        { id: ANN, ...ann, role: "workspace_super_admin" },
        { id: BOB, ...bob },
        { id: OWNER, ...owner, role: "workspace_owner" },
      ],
    },
  });
  const warnings: string[] = [];
  await nextDeployment(emu, warnings);
  return { emu, warnings };
}

const writes = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
const listings = (requests: readonly RecordedRequest[]) => requests.filter((r) => r.method === "GET" && r.path === "/users");

describe("check and diff", () => {
  it("names a bad user by its key and refuses import, with no request", async () => {
    const { emu } = await world();
    const { failures } = wire(await provider.check!({}, { ...setOf({ ...ann, firstName: "" }), __importId: "x" }));
    expect(failures?.map((f) => f.property)).toEqual(['users["ann@example.com"].firstName', "import"]);
    expect(failures?.[1]?.reason).toContain("no id of its own to import");
    expect(emu.requests).toEqual([]);
  });

  it("reports each change as a path of its user; order, email case and attributes left out cause none", async () => {
    const { emu } = await world();
    const created = await provider.create(setOf(ann, bob));
    const olds = created.outs as Outputs;
    const reordered = { users: { "bob@example.com": bob, "ann@example.com": { ...ann, email: "ANN@example.com" } } };
    expect(changedPaths(olds, reordered)).toEqual([]);
    expect((await provider.diff!(created.id, olds, reordered)).changes).toBe(false);
    expect(changedPaths(olds, setOf({ ...ann, role: "workspace_login_only", lastName: "Li" }, cara))).toEqual([
      "users[ann@example.com].lastName",
      "users[ann@example.com].role",
      "users[cara@example.com]",
      "users[bob@example.com]",
    ]);
    expect(changedPaths(olds, { users: UNKNOWN })).toEqual(["users"]);
    expect(writes(emu.requests)).toEqual([]);
  });
});

describe("a listing that is old by the time a user is taken over", () => {
  it("a user with another email by then is neither adopted nor written, failing alone; the others are adopted", async () => {
    const emu = await emulator({
      seed: { users: [{ id: ANN, ...ann, lastName: "Old" }, { id: BOB, ...bob, lastName: "Old" }, ...manyUsers(150)] },
    });
    const warnings: string[] = [];
    await nextDeployment(emu, warnings);
    // While the set's listing reads its second page, someone changes Ann's email: the listing's record of her is old.
    emu.onPage(() => void emu.users.update(ANN, { email: "ann.new@example.com" }));
    const error = (await rejection(provider.create(setOf(ann, bob)))) as Error & { properties?: Outputs };
    expect(error.message).toContain(`ann@example.com: User ${ANN}, found with the email ann@example.com, has another email now`);
    expect(writes(emu.requests)).toEqual([`PUT /users/${BOB}`]);
    expect(emu.users.get(ANN)).toMatchObject({ email: "ann.new@example.com", lastName: "Old" });
    expect(error.properties?.userIds).toEqual({ "bob@example.com": BOB });
  });

  it("a user gone by the time it is read (404) is neither adopted nor created, failing alone; the others are adopted", async () => {
    const emu = await emulator({
      seed: {
        users: [
          { id: ANN, ...ann, lastName: "Old" },
          { id: BOB, ...bob, lastName: "Old" },
        ],
      },
    });
    const warnings: string[] = [];
    await nextDeployment(emu, warnings);
    emu.fault({ method: "GET", path: `/users/${ANN}`, status: 404 });
    const error = (await rejection(provider.create(setOf(ann, bob)))) as Error & { properties?: Outputs };
    expect(error.message).toContain("ann@example.com: ");
    expect(error.message).toContain("The user found with the email ann@example.com is not there now");
    expect(writes(emu.requests)).toEqual([`PUT /users/${BOB}`]);
    expect(error.properties?.userIds).toEqual({ "bob@example.com": BOB });
  });
});

describe("create", () => {
  it("adopts the users the one listing finds without a write, and sends nothing else", async () => {
    const { emu } = await world();
    const { id, outs } = wire(await provider.create(setOf(ann, { ...bob, email: "BOB@example.com" })));
    expect(id).toBe("workspace-users");
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /users"]);
    expect(outs?.userIds).toEqual({ "ann@example.com": ANN, "bob@example.com": BOB });
    expect(outs?.users["ann@example.com"]).toMatchObject({ role: "workspace_super_admin", managedAttributes: [] });
    expect(outs?.users["bob@example.com"]?.email).toBe("BOB@example.com");
    expect(Object.values(outs?.users ?? {}).some((u) => u.created)).toBe(false);
  });

  it("puts only a differing declared attribute, and posts a miss only after listings at two other page sizes agree", async () => {
    const { emu } = await world();
    const { outs } = await provider.create(setOf({ ...ann, role: "workspace_login_only" }, bob, cara));
    const sent = emu.requests;
    const firstPost = sent.findIndex((r) => r.method === "POST");
    expect(listings(sent.slice(0, firstPost)).map((r) => r.query["page[size]"])).toEqual(["100", "99"]);
    expect(writes(sent).sort()).toEqual(["POST /users", `PUT /users/${ANN}`]);
    expect((sent.find((r) => r.method === "PUT")!.body as { data: { attributes: unknown } }).data.attributes).toMatchObject({
      role: "workspace_login_only",
      firstName: "Ann",
    });
    const caraId = emu.users.findByEmail(cara.email)!.id;
    expect(outs?.userIds["cara@example.com"]).toBe(caraId);
    expect(outs?.users["cara@example.com"]).toMatchObject({ created: true, role: "workspace_login_only", isGuest: false });
  });

  it("an adoption's PUT keeps the role the service has now, not the listing's: an owner made during the proof stays an owner", async () => {
    // 150 others: every listing has a second page, where the test acts.
    const emu = await emulator({ seed: { users: [{ id: ANN, ...ann, role: "workspace_super_admin" }, ...manyUsers(150)] } });
    await nextDeployment(emu, []);
    let pages = 0;
    emu.onPage(() => {
      // The first listing's page 2 has gone by; during the proof's listing someone makes Ann an owner.
      if (++pages === 2) emu.users.update(ANN, { role: "workspace_owner" });
    });
    // The program renames Ann (role left to the service) and adds Cara (a miss: the proof lists again).
    const { outs } = await provider.create(setOf({ ...ann, lastName: "Li" }, cara));
    const sent = emu.requests.map((r) => `${r.method} ${r.path}`);
    expect(sent.indexOf(`GET /users/${ANN}`)).toBeGreaterThan(-1);
    expect(sent.indexOf(`GET /users/${ANN}`)).toBeLessThan(sent.indexOf(`PUT /users/${ANN}`));
    const put = emu.requests.find((r) => r.method === "PUT")!;
    expect(put.body).toMatchObject({ data: { attributes: { lastName: "Li", role: "workspace_owner", isGuest: false } } });
    expect(emu.users.get(ANN)).toMatchObject({ lastName: "Li", role: "workspace_owner" });
    expect(outs?.users["ann@example.com"]).toMatchObject({ role: "workspace_owner", managedAttributes: [] });
  });

  it("its proof of absence ignores the users the deployment's own User resources create or delete meanwhile (run in parallel)", async () => {
    const emu = await emulator({ seed: { users: manyUsers(250) } });
    await nextDeployment(emu, []);
    // User resources of the program: between two pages of any listing one is created, or one made before is deleted (a
    // resource the program dropped): every listing then differs.
    const person = (i: number) => ({ email: `p${i}@example.com`, firstName: "P", lastName: `N${i}` });
    const made = await Promise.all(
      [20, 21, 22, 23, 24, 25].map(async (i) => userProvider.create((await userProvider.check!({}, person(i))).inputs!)),
    );
    await nextDeployment(emu, []);
    emu.clearRequests();
    const creates: Promise<unknown>[] = [];
    emu.onPage(() => {
      const n = creates.length;
      const gone = made[n >> 1];
      if (n >= 12 || !gone) return;
      if (n % 2 === 0) creates.push(userProvider.check!({}, person(n)).then((c) => userProvider.create(c.inputs!)));
      else creates.push(userProvider.delete!(gone.id, gone.outs!));
    });
    // Every create is awaited before any assertion (none is left running past the test).
    const result = await provider.create(setOf(cara)).then(
      (created) => created,
      (error: Error) => error,
    );
    await Promise.all(creates);
    expect(result instanceof Error ? result.message : "created").toBe("created");
    const { outs } = result as Exclude<typeof result, Error>;
    // The proof listed again (its listings met the program's own creates) and proved Cara absent.
    expect(listings(emu.requests).length).toBeGreaterThan(3);
    expect(creates.length).toBeGreaterThan(3);
    expect(writes(emu.requests).filter((w) => w.startsWith("DELETE")).length).toBeGreaterThan(1);
    const caraId = emu.users.findByEmail(cara.email)?.id;
    expect(caraId).toBeDefined();
    expect(outs?.users["cara@example.com"]).toMatchObject({ id: caraId, created: true });
  });

  it("one failing user does not stop the others: the error names it and carries the state of the others", async () => {
    const { emu } = await world();
    const infos: string[] = [];
    await configureFor(emu, {}, { warn: () => {}, info: (m) => void infos.push(m) });
    emu.fault({ method: "POST", path: "/users", status: 400, times: 5 });
    const error = (await rejection(provider.create(setOf(ann, cara)))) as Error & { properties?: Outputs; id?: string };
    expect(error.message).toContain("cara@example.com:");
    expect(error.id).toBe("workspace-users");
    expect(error.properties?.userIds).toEqual({ "ann@example.com": ANN });
    // What was done, as done: Cara is neither adopted nor created.
    expect(infos).toEqual(["WorkspaceUsers adopted 1 existing user(s) of those added, and created 0; 1 failed (named in the error)."]);
  });

  it("a user someone made between the listings and the POST (409) is adopted, not the set's: removing it deletes nothing", async () => {
    const { emu, warnings } = await world();
    const made = emu.users.add({ ...cara });
    // The listings (the second proving the first) do not see cara yet; the POST then meets her.
    const nobody = JSON.stringify({ data: [], links: { next: null }, meta: { page: { total: 0 } } });
    emu.fault({ method: "GET", path: "/users", body: nobody, times: 2 });
    const { outs } = await provider.create(setOf(cara));
    expect(emu.requests.slice(0, 3).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /users 200",
      "GET /users 200",
      "POST /users 409",
    ]);
    expect(outs?.users["cara@example.com"]?.id).toBe(made.id);
    expect(outs?.users["cara@example.com"]?.created).not.toBe(true);
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.update!("workspace-users", outs as Outputs, setOf(ann));
    expect(writes(emu.requests).filter((w) => w.startsWith("DELETE"))).toEqual([]);
    expect(emu.users.get(made.id)).toBeDefined();
  });

  it("a miss whose proving listing fails is not created, and the error names that listing's failure, not users coming or going", async () => {
    const { emu } = await world();
    // The first listing answers; the one at another page size, which would prove cara absent, is refused (400: not retried).
    const listed = JSON.stringify({
      data: [{ id: ANN, type: "user", attributes: ann }],
      links: { next: null },
      meta: { page: { total: 1 } },
    });
    emu.fault({ method: "GET", path: "/users", body: listed });
    emu.fault({ method: "GET", path: "/users", status: 400 });
    const error = (await rejection(provider.create(setOf(ann, cara)))) as Error & { properties?: Outputs };
    expect(listings(emu.requests).map((r) => `${r.query["page[size]"]} ${r.status}`)).toEqual(["100 200", "99 400"]);
    expect(error.message).toContain("cara@example.com: could not prove that no user has the email cara@example.com: listing the users");
    expect(error.message).toContain("answered 400");
    expect(error.message).not.toContain("came or went");
    expect(error.properties?.userIds).toEqual({ "ann@example.com": ANN });
    expect(writes(emu.requests)).toEqual([]);
  });

  it("a 409 whose lookup finds nobody with the email fails that user, naming the email, without the User's adoptExisting fix", async () => {
    const { emu } = await world();
    emu.fault({ method: "POST", path: "/users", status: 409 });
    const error = await rejection(provider.create(setOf(cara)));
    expect(error.message).toContain("cara@example.com:");
    expect(error.message).toContain("A user with the email cara@example.com already exists.");
    expect(error.message).not.toContain("adoptExisting");
  });
});

describe("update, read and delete", () => {
  it("a user it created, then changed and refreshed, stays its own: removing it later deletes it", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(cara))).outs as Outputs;
    const caraId = first.userIds["cara@example.com"]!;
    expect(first.users["cara@example.com"]?.created).toBe(true);
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    const renamed = (await provider.update!("workspace-users", first, setOf({ ...cara, lastName: "Roe" }))).outs as Outputs;
    expect(writes(emu.requests)).toEqual([`PUT /users/${caraId}`]);
    expect(renamed.users["cara@example.com"]?.created).toBe(true);
    // A refresh in between keeps it the set's too.
    await nextDeployment(emu, warnings);
    const refreshed = wire(await provider.read!("workspace-users", renamed)).props as Outputs;
    expect(refreshed.users["cara@example.com"]?.created).toBe(true);
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.update!("workspace-users", refreshed, setOf(ann));
    expect(writes(emu.requests)).toEqual([`DELETE /users/${caraId}`]);
    expect(emu.users.get(caraId)).toBeUndefined();
  });

  it("puts only the changed user, and deletes only a removed user it created (an adopted one is left, with a warning)", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(ann, bob, cara))).outs as Outputs;
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    const renamed = await provider.update!("workspace-users", first, setOf({ ...ann, lastName: "Li" }, bob, cara));
    expect(writes(emu.requests)).toEqual([`PUT /users/${ANN}`]);
    expect(emu.users.get(ANN)).toMatchObject({ lastName: "Li", role: "workspace_super_admin" });
    emu.clearRequests();
    const caraId = first.userIds["cara@example.com"]!;
    const after = await provider.update!("workspace-users", renamed.outs as Outputs, setOf({ ...ann, lastName: "Li" }));
    expect(writes(emu.requests)).toEqual([`DELETE /users/${caraId}`]);
    expect(emu.users.get(BOB)).toBeDefined();
    expect(Object.keys((after.outs as Outputs).users)).toEqual(["ann@example.com"]);
    expect(warnings.join("\n")).toContain("left 1 user(s) in the workspace");
    expect(warnings.join("\n")).toContain("bob@example.com");
    // An added user is created (after the proof), the others untouched; one added back is adopted with no write.
    emu.clearRequests();
    const dan = { email: "dan@example.com", firstName: "Dan", lastName: "Oz" };
    const added = await provider.update!("workspace-users", after.outs as Outputs, setOf({ ...ann, lastName: "Li" }, bob, dan));
    expect(writes(emu.requests)).toEqual(["POST /users"]);
    expect((added.outs as Outputs).users["dan@example.com"]?.created).toBe(true);
    expect((added.outs as Outputs).users["bob@example.com"]?.created).toBeUndefined();
  });

  it("an update writes only what the program changed: a declared role changed by hand since (or ignored) is not written back", async () => {
    const { emu } = await world();
    const declared = { ...ann, role: "workspace_super_admin" };
    const first = (await provider.create(setOf(declared, bob))).outs as Outputs;
    emu.users.update(ANN, { role: "workspace_login_only" });
    emu.clearRequests();
    const news = setOf({ ...declared, lastName: "Li" }, bob);
    const renamed = (await provider.update!("workspace-users", first, news)).outs as Outputs;
    expect(writes(emu.requests)).toEqual([`PUT /users/${ANN}`]);
    expect(emu.requests.at(-1)?.body).toMatchObject({ data: { attributes: { lastName: "Li", role: "workspace_login_only" } } });
    expect(renamed.users["ann@example.com"]).toMatchObject({
      role: "workspace_login_only",
      unapplied: { role: digestOf("role", "workspace_super_admin") },
    });
    expect(changedPaths(renamed, news)).toEqual([]);
    // After a refresh the program's role is a change again, and the next up applies it.
    const read = (await provider.read!("workspace-users", renamed)).props as Outputs;
    expect(changedPaths(read, news)).toEqual(["users[ann@example.com].role"]);
  });

  it("destroy deletes what it created, adopted users only with deleteOnDestroy, and never an owner", async () => {
    const { emu, warnings } = await world();
    const { outs } = await provider.create({ ...setOf(ann, owner, cara), deleteOnDestroy: true });
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.delete!("workspace-users", outs as Outputs);
    const caraId = (outs as Outputs).userIds["cara@example.com"];
    expect(writes(emu.requests).sort()).toEqual([`DELETE /users/${ANN}`, `DELETE /users/${caraId}`].sort());
    expect(emu.users.get(OWNER)).toBeDefined();
    expect(warnings.join("\n")).toContain("olga@example.com");
  });

  it("a forced --replace (check, delete, then create) takes its users back as it held them: one it created stays its own", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(ann, cara))).outs as Outputs;
    const caraId = first.userIds["cara@example.com"]!;
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    // The engine checks the new inputs, deletes the old resource, then creates the new one (delete first).
    await provider.check!({}, setOf(ann, cara));
    await provider.delete!("workspace-users", first);
    const replaced = (await provider.create(setOf(ann, cara))).outs as Outputs;
    expect(writes(emu.requests)).toEqual([]);
    expect(replaced.users["cara@example.com"]).toMatchObject({ id: caraId, created: true });
    expect(replaced.users["ann@example.com"]?.created).toBeUndefined();
    // A later destroy deletes the user it created, and leaves the one it adopted.
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.delete!("workspace-users", replaced);
    expect(writes(emu.requests)).toEqual([`DELETE /users/${caraId}`]);
    expect(emu.users.get(ANN)).toBeDefined();
  });

  it("a removal reads the role first: a user it created whom someone made an owner since is left, with a warning", async () => {
    const { emu, warnings } = await world();
    const { outs } = await provider.create(setOf(ann, cara));
    const caraId = (outs as Outputs).userIds["cara@example.com"]!;
    emu.users.update(caraId, { role: "workspace_owner" });
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.delete!("workspace-users", outs as Outputs);
    expect(writes(emu.requests)).toEqual([]);
    expect(emu.users.get(caraId)).toMatchObject({ role: "workspace_owner" });
    expect(warnings.join("\n")).toContain("cara@example.com");
  });

  it("two users whose emails differ only in case: the user declaring that email fails alone, naming both, and neither is written", async () => {
    const { emu } = await world();
    const twin = { id: "00000000-0000-4000-8000-00000000a0b2" };
    const record = (id: string, user: typeof ann) => ({ id, type: "user", attributes: user });
    // A service that lets two emails differ only in case (the emulator does not).
    const users = [record(ANN, ann), record(BOB, bob), record(twin.id, { ...bob, email: "Bob@Example.com" })];
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify({ data: users, links: {}, meta: { page: { total: 3 } } }) });
    const error = (await rejection(provider.create(setOf(ann, bob)))) as Error & { properties?: Outputs };
    expect(error.message).toContain("bob@example.com:");
    expect(error.message).toContain(`2 users have the email bob@example.com, differing only in case`);
    expect(error.message).toContain(BOB);
    expect(error.message).toContain(twin.id);
    expect(error.properties?.userIds).toEqual({ "ann@example.com": ANN });
    expect(writes(emu.requests)).toEqual([]);
  });

  it("a destroy that deletes some users and fails on another says the state keeps those it deleted until a refresh", async () => {
    const { emu, warnings } = await world();
    const dan = { email: "dan@example.com", firstName: "Dan", lastName: "Fox" };
    const first = (await provider.create(setOf(cara, dan))).outs as Outputs;
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    emu.fault({ method: "DELETE", path: `/users/${first.userIds["cara@example.com"]}`, status: 400, times: 1 });
    const error = await rejection(provider.delete!("workspace-users", first));
    expect(writes(emu.requests).sort()).toEqual(
      [`DELETE /users/${first.userIds["cara@example.com"]}`, `DELETE /users/${first.userIds["dan@example.com"]}`].sort(),
    );
    expect(error.message).toContain(
      "1 workspace user change(s) failed (1 other user(s) were deleted, which the state keeps until `pulumi refresh` " +
        "(a failed destroy keeps the state): refresh before an `up`, or destroy again): cara@example.com: ",
    );
  });

  it("a changed user deleted outside the program fails alone, saying to refresh; the state keeps it until the refresh forgets it", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(ann, bob))).outs as Outputs;
    emu.users.remove(ANN);
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    const news = setOf({ ...ann, lastName: "Li" }, { ...bob, lastName: "Roy" });
    const error = (await rejection(provider.update!("workspace-users", first, news))) as Error & { properties?: Outputs };
    expect(error.message).toContain("1 workspace user change(s) failed (the others were made): ann@example.com: ");
    expect(error.message).toContain("Run pulumi refresh (the state then forgets the user), then pulumi up to create the user again.");
    expect(writes(emu.requests)).toEqual([`PUT /users/${BOB}`]);
    expect(error.properties?.users["ann@example.com"]).toEqual(first.users["ann@example.com"]);
    // The refresh forgets Ann; the next up creates her.
    await nextDeployment(emu, warnings);
    const read = (await provider.read!("workspace-users", error.properties!)).props as Outputs;
    expect(Object.keys(read.users)).toEqual(["bob@example.com"]);
    const { outs } = await provider.update!("workspace-users", read, news);
    expect((outs as Outputs).users["ann@example.com"]).toMatchObject({ lastName: "Li", created: true });
  });

  it("a refresh reports drift per user, forgets a deleted one, and hands back inputs that show no diff", async () => {
    const { emu } = await world();
    const declared = setOf(ann, { ...bob, isGuest: false });
    const { outs } = await provider.create(declared);
    emu.users.update(ANN, { role: "workspace_super_admin" });
    emu.users.update(BOB, { firstName: "Robert" });
    emu.clearRequests();
    const read = wire(await provider.read!("workspace-users", outs as Outputs));
    const props = read.props as Outputs;
    expect(props.users["ann@example.com"]?.role).toBe("workspace_super_admin");
    expect(props.users["bob@example.com"]?.firstName).toBe("Robert");
    expect(listings(emu.requests)).toHaveLength(1);
    expect(writes(emu.requests)).toEqual([]);
    // The role is the service's (not declared): no input, no diff; the drifted name is the one change.
    expect(read.inputs).toEqual({ users: { "ann@example.com": ann, "bob@example.com": { ...bob, firstName: "Robert", isGuest: false } } });
    expect(changedPaths(props, read.inputs as unknown as Props)).toEqual([]);
    expect(changedPaths(props, declared)).toEqual(["users[bob@example.com].firstName"]);
    emu.users.remove(BOB);
    const again = (await provider.read!("workspace-users", props)).props as Outputs;
    expect(Object.keys(again.userIds)).toEqual(["ann@example.com"]);
  });
});

describe("an email change", () => {
  const INTEGRATION = "00000000-0000-4000-8000-0000000000b1";

  it("the diff warns before the update deletes the user the set created (and their memberships) and creates another", async () => {
    const emu = await emulator({
      seed: { integrations: [{ id: INTEGRATION, application: "Slack", label: "Slack", entitlements: [{ id: "VIEWER" }] }] },
    });
    const warnings: string[] = [];
    await nextDeployment(emu, warnings);
    const first = (await provider.create(setOf(cara, bob))).outs as Outputs;
    const caraId = first.userIds["cara@example.com"]!;
    emu.integrations.setMember(INTEGRATION, caraId, { entitlements: ["VIEWER"] });
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    // Cara's email changes; Bob leaves and Dan, of another name, joins: only Cara's pair is named.
    const news = setOf({ ...cara, email: "cara.moe@example.com" }, { email: "dan@example.com", firstName: "Dan", lastName: "Oz" });
    expect((await provider.diff!("workspace-users", first, news)).changes).toBe(true);
    expect(emu.requests).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("cara@example.com leaves the set and cara.moe@example.com joins it, both named Cara Moe.");
    expect(warnings[0]).toContain(
      `this update deletes the user cara@example.com (${caraId}, created by this set), with every integration membership`,
    );
    expect(warnings[0]).toContain("a User changes an email in place");
    // What it warned of: the update deletes Cara, and her membership with her.
    await provider.update!("workspace-users", first, news);
    expect(emu.users.get(caraId)).toBeUndefined();
    expect(emu.integrations.members(INTEGRATION)).toHaveLength(0);
  });

  it("an email changed in the workspace, then declared: the same user, re-keyed, still the set's own; no warning, no write", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(cara, ann))).outs as Outputs;
    const caraId = first.userIds["cara@example.com"]!;
    emu.users.update(caraId, { email: "Cara.Moe@example.com" });
    emu.users.update(ANN, { email: "ann.lee@example.com" });
    await nextDeployment(emu, warnings);
    const refreshed = wire(await provider.read!("workspace-users", first)).props as Outputs;
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    // Declared by the service's emails now (as `--check --accept` writes them): one person each, as the workspace has them.
    const news = setOf({ ...cara, email: "cara.moe@example.com" }, { ...ann, email: "ann.lee@example.com" });
    expect((await provider.diff!("workspace-users", refreshed, news)).changes).toBe(true);
    const after = (await provider.update!("workspace-users", refreshed, news)).outs as Outputs;
    expect(warnings).toEqual([]);
    expect(writes(emu.requests)).toEqual([]);
    expect(after.userIds).toEqual({ "cara.moe@example.com": caraId, "ann.lee@example.com": ANN });
    expect(after.users["cara.moe@example.com"]?.created).toBe(true);
    expect(after.users["ann.lee@example.com"]?.created).toBeUndefined();
    // Still the set's own: removing her deletes her, as before her email changed.
    await nextDeployment(emu, warnings);
    emu.clearRequests();
    await provider.update!("workspace-users", after, setOf({ ...ann, email: "ann.lee@example.com" }));
    expect(writes(emu.requests)).toEqual([`DELETE /users/${caraId}`]);
  });

  it("no warning for a user the set adopted (it is left), nor for a name that does not match", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(setOf(ann))).outs as Outputs;
    await nextDeployment(emu, warnings);
    await provider.diff!("workspace-users", first, setOf({ ...ann, email: "ann.lee@example.com" }));
    const created = (await provider.create(setOf(cara))).outs as Outputs;
    await provider.diff!("workspace-users", created, setOf({ ...cara, email: "cara.moe@example.com", lastName: "Moe-Lee" }));
    expect(warnings).toEqual([]);
  });
});

describe("an email change of an adopted user under deleteOnDestroy", () => {
  it("the diff warns, saying the user was adopted, before the update deletes them and creates another", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create({ ...setOf(ann), deleteOnDestroy: true })).outs as Outputs;
    expect(first.users["ann@example.com"]?.created).toBeUndefined();
    await nextDeployment(emu, warnings);
    const news = { ...setOf({ ...ann, email: "ann.lee@example.com" }), deleteOnDestroy: true };
    expect((await provider.diff!("workspace-users", first, news)).changes).toBe(true);
    // Unknown in a preview: taken as set.
    await provider.diff!("workspace-users", first, { ...news, deleteOnDestroy: UNKNOWN });
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) {
      expect(warning).toContain("ann@example.com leaves the set and ann.lee@example.com joins it, both named Ann Lee.");
      expect(warning).toContain(
        `this update deletes the user ann@example.com (${ANN}, adopted by this set, and deleted because the set sets deleteOnDestroy: true)`,
      );
    }
    // What it warned of: the update deletes Ann.
    await provider.update!("workspace-users", first, news);
    expect(emu.users.get(ANN)).toBeUndefined();
    // Secret: counted, no email.
    warnings.length = 0;
    await provider.diff!("workspace-users", first, { ...news, __secretUsers: true });
    expect(warnings).toEqual([expect.stringContaining("1 user(s) this set deletes (created by it, or adopted under deleteOnDestroy)")]);
    expect(warnings[0]).not.toContain("ann");
  });
});

describe("a set holding secrets (the program's hidden __secretUsers: the provider cannot see a secret)", () => {
  const secretly = (props: Props): Props => ({ ...props, __secretUsers: true });

  it("the email-edit warning names no email, name or id, also with the flag unknown (a preview); the flag dropped causes no diff", async () => {
    const emu = await emulator();
    const warnings: string[] = [];
    await nextDeployment(emu, warnings);
    const first = (await provider.create(secretly(setOf(cara)))).outs as Outputs;
    expect(first.__secretUsers).toBe(true);
    const caraId = first.userIds["cara@example.com"]!;
    await nextDeployment(emu, warnings);
    // The flag dropped, or unknown (a preview), is no change.
    expect((await provider.diff!("workspace-users", first, setOf(cara))).changes).toBe(false);
    expect(
      (await provider.diff!("workspace-users", { ...first, __secretUsers: undefined }, { ...setOf(cara), __secretUsers: UNKNOWN })).changes,
    ).toBe(false);
    const edited = setOf({ ...cara, email: "cara.moe@example.com" });
    for (const flag of [true, UNKNOWN])
      await provider.diff!("workspace-users", { ...first, __secretUsers: undefined }, { ...edited, __secretUsers: flag });
    expect(warnings).toHaveLength(2);
    for (const warning of warnings) {
      expect(warning).toContain("WorkspaceUsers: 1 user(s) this set created leave it while as many of the same names join it");
      expect(warning).toContain("The set keys its users by email, so this update deletes each user who leaves");
      for (const value of ["cara", "Moe", caraId]) expect(warning.toLowerCase()).not.toContain(value.toLowerCase());
    }
  });

  it("a set that becomes secret, nothing else changed, is an update that writes nothing and records the flag", async () => {
    const emu = await emulator();
    await nextDeployment(emu, []);
    const first = (await provider.create(setOf(cara))).outs as Outputs;
    expect(first.__secretUsers).toBeUndefined();
    await nextDeployment(emu, []);
    expect((await provider.diff!("workspace-users", first, secretly(setOf(cara)))).changes).toBe(true);
    emu.clearRequests();
    const { outs } = await provider.update!("workspace-users", first, secretly(setOf(cara)));
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(outs).toEqual({ ...first, __secretUsers: true });
    // A refresh then keeps it.
    expect(((await provider.read!("workspace-users", outs)).props as Outputs).__secretUsers).toBe(true);
  });

  it("a removal's warning and a failure name no email", async () => {
    const { emu, warnings } = await world();
    const first = (await provider.create(secretly(setOf(ann, bob, cara)))).outs as Outputs;
    await nextDeployment(emu, warnings);
    // Bob (adopted) is left, with a warning; Cara's PUT is refused.
    emu.fault({ method: "PUT", path: `/users/${first.userIds["cara@example.com"]}`, status: 400, times: 1 });
    const error = await rejection(provider.update!("workspace-users", first, secretly(setOf(ann, { ...cara, lastName: "Moe-Lee" }))));
    expect(error.message).toContain("1 workspace user change(s) failed (the others were made): [secret]: ");
    expect(warnings.join("\n")).toContain("WorkspaceUsers left 1 user(s) in the workspace, the stack no longer manages them: their emails");
    for (const text of [error.message, ...warnings]) expect(text.toLowerCase()).not.toMatch(/(ann|bob|cara)@example\.com/);
  });
});
