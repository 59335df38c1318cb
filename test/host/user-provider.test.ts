import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../src/client";
import { POPULATED_IDS } from "../../src/emulator/index";
import { provider } from "../../src/host/user/user-provider";
import { digestOf } from "../../src/shared/digest";
import { UNKNOWN } from "../../src/shared/unknown";
import { emulator, expectNoKey, issuedKeys, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const check = (news: Record<string, unknown>) => provider.check!({}, news);

describe("check", () => {
  it("leaves role and isGuest out when the program does (the service's value is kept), and keeps the inputs otherwise", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const result = wire(await check(alice));
    expect(result).toEqual({ inputs: { ...alice, adoptExisting: false }, failures: [] });
    expect(emu.requests).toHaveLength(0);
  });

  it.each([
    ["email", { email: "alice.example.com" }],
    ["email", { email: "alice@" }],
    ["email", { email: "al ice@example.com" }],
    ["email", { email: "alice@example.com." }],
    ["email", { email: " alice@example.com" }],
    ["email", { email: "alice@exa mple.com" }],
    ["email", { email: "alice@@example.com" }],
    ["email", { email: "аlice@example.com" }], // Cyrillic а
    ["email", { email: "alice@exämple.com" }],
    ["email", { email: `${"a".repeat(250)}@example.com` }],
    ["email", { email: 42 }],
    ["firstName", { firstName: "" }],
    ["firstName", { firstName: "   " }],
    ["lastName", { lastName: "x".repeat(101) }],
    ["isGuest", { isGuest: "no" }],
    ["adoptExisting", { adoptExisting: 1 }],
    ["emial", { emial: "typo@example.com" }],
  ])("rejects a bad %s, naming it, with no request sent", async (property, override) => {
    const emu = await emulator();
    await configureFor(emu);
    const { failures } = wire(await check({ ...alice, ...override }));
    expect(failures?.map((f) => f.property)).toContain(property);
    expect(emu.requests).toHaveLength(0);
  });

  it("returns every failure at once", async () => {
    const { failures } = await check({ email: "nope", firstName: "", lastName: 3 });
    expect(failures?.map((f) => f.property).sort()).toEqual(["email", "firstName", "lastName"]);
  });

  it("lets values not known yet through (preview)", async () => {
    const result = wire(await check({ email: UNKNOWN, firstName: UNKNOWN, lastName: "Doe" }));
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ email: UNKNOWN, firstName: UNKNOWN });
  });

  it("accepts an unknown role (the program warns about it)", async () => {
    expect((await check({ ...alice, role: "workspace_astronaut" })).failures).toEqual([]);
  });
});

describe("diff", () => {
  const olds = {
    ...alice,
    role: "workspace_login_only",
    isGuest: false,
    adoptExisting: false,
    status: "pending",
    createdAt: null,
    updatedAt: null,
    managedAttributes: [],
  };
  it.each([
    ["email case", { email: "ALICE@Example.com" }, false],
    ["defaults left out", { role: undefined, isGuest: undefined }, false],
    ["adoptExisting", { adoptExisting: true }, false],
    ["first name", { firstName: "Alicia" }, true],
    ["role", { role: "workspace_super_admin" }, true],
    ["isGuest", { isGuest: true }, true],
    ["another email", { email: "alice2@example.com" }, true],
    ["an unknown value", { lastName: UNKNOWN }, true],
    ["deleteOnDestroy (the state must learn it)", { deleteOnDestroy: true }, true],
  ])("%s → changes: %s, never a replacement (a forced one deletes first)", async (_what, change, changes) => {
    const news = Object.fromEntries(Object.entries({ ...olds, ...change }).filter(([, v]) => v !== undefined));
    expect(wire(await provider.diff!("id", olds, news))).toEqual({ changes, replaces: [], deleteBeforeReplace: true });
  });
});

describe("create, read, update, delete", () => {
  it("creates with POST and returns every input plus status and timestamps", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { inputs } = await check({ ...alice, email: "Alice@Example.com" });
    const { id, outs } = wire(await provider.create(inputs!));
    expect(emu.users.get(id)?.email).toBe("Alice@Example.com");
    expect(outs).toMatchObject({ email: "Alice@Example.com", role: "workspace_login_only", isGuest: false, status: "pending" });
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users"]);
  });

  it("fails on 409 with a message suggesting adoptExisting, or an alias when the resource was renamed", async () => {
    const emu = await emulator();
    const taken = emu.users.add({ ...alice, email: "ALICE@example.com" });
    await configureFor(emu);
    const error = await rejection(provider.create((await check(alice)).inputs!));
    expect(error.message).toContain("set adoptExisting: true");
    // The service's own words name the email taken (the emulator's 409): said once, then who has it.
    expect(error.message).toContain("POST /api/v1/users answered 409: A user with the email alice@example.com already exists.");
    expect(error.message.split("already exists")).toHaveLength(2);
    expect(error.message).toContain(`That user's id is ${taken.id}. To manage that user with this resource, set adoptExisting: true.`);
    // A rename without an alias is the usual cause in a stack that created the user: the alias keeps it, writing nothing.
    expect(error.message).toContain(`If this resource was renamed, give it the option aliases: [{ name: "<its old name>" }] instead`);
    expect(emu.users.list()).toHaveLength(1);
  });

  it("with adoptExisting, a 409 whose lookup finds nobody fails naming the email, not suggesting what is set already", async () => {
    const emu = await emulator();
    await configureFor(emu);
    emu.fault({ method: "POST", path: "/users", status: 409 });
    const error = await rejection(provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    expect(error.message).toContain("A user with the email alice@example.com already exists.");
    expect(error.message).not.toContain("set adoptExisting");
    expect(emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`)).toEqual(["POST /users"]);
  });

  it("with adoptExisting, a user someone made between the lookup and the POST (409) is adopted: its destroy leaves it", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice });
    const warnings: string[] = [];
    await configureFor(emu, {}, { warn: (message) => void warnings.push(message) });
    // The lookup's two searches (the second proving the first) do not see alice yet; the POST then meets her.
    const nobody = JSON.stringify({ data: [], links: { next: null }, meta: { page: { total: 0 } } });
    emu.fault({ method: "GET", path: "/users", body: nobody, times: 2 });
    const { id, outs } = wire(await provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    // Then the 409's lookup finds her (the adoption's reads and writes follow).
    expect(emu.requests.slice(0, 4).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /users 200",
      "GET /users 200",
      "POST /users 409",
      "GET /users 200",
    ]);
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ adopted: true });
    // Someone else's user: the destroy gives it back.
    await configureFor(emu, {}, { warn: (message) => void warnings.push(message) });
    emu.clearRequests();
    await provider.delete!(id, outs!);
    expect(emu.requests.filter((r) => r.method === "DELETE")).toEqual([]);
    expect(emu.users.get(existing.id)).toBeDefined();
    expect(warnings.join("\n")).toContain("the stack adopted it");
  });

  it("adopts an existing user with adoptExisting: looks the email up first, sets only the declared attributes", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, lastName: "Old", role: "workspace_super_admin", isGuest: true });
    const said: string[] = [];
    await configureFor(emu, {}, { info: (message) => void said.push(message) });
    const { id, outs } = wire(await provider.create((await check({ ...alice, email: "ALICE@example.com", adoptExisting: true })).inputs!));
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({
      lastName: "Doe",
      role: "workspace_super_admin",
      isGuest: true,
      adoptExisting: true,
      managedAttributes: [],
    });
    expect(emu.users.get(id)).toMatchObject({ lastName: "Doe", role: "workspace_super_admin", isGuest: true });
    // The user is read again before the PUT: the search that found them may be old.
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /users", `GET /users/${id}`, `PUT /users/${id}`]);
    expect(emu.requests[2]?.body).toMatchObject({ data: { attributes: { role: "workspace_super_admin", isGuest: true } } });
    expect(said).toEqual([]);
  });

  it("an adoption's PUT keeps the role the service has now, not the one its search read: an owner made meanwhile stays an owner", async () => {
    const emu = await emulator();
    // 150 others whose emails contain Alice's: the search for hers has a second page, read after hers.
    const others = Array.from({ length: 150 }, (_, i) => ({ ...alice, email: `n${String(i).padStart(3, "0")}.alice@example.com` }));
    const existing = emu.users.add({ ...alice, lastName: "Old", role: "workspace_super_admin" });
    for (const other of others) emu.users.add(other);
    await configureFor(emu);
    // While the search reads its second page, someone makes Alice an owner.
    emu.onPage(() => void emu.users.update(existing.id, { role: "workspace_owner" }));
    const { outs } = wire(await provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    const put = emu.requests.find((r) => r.method === "PUT");
    expect(put?.body).toMatchObject({ data: { attributes: { lastName: "Doe", role: "workspace_owner", isGuest: false } } });
    expect(emu.users.get(existing.id)).toMatchObject({ lastName: "Doe", role: "workspace_owner" });
    expect(outs).toMatchObject({ role: "workspace_owner", managedAttributes: [], adopted: true });
  });

  it("an adoption whose user has another email by the time it is read (the search is old) writes nothing, and fails saying so", async () => {
    const emu = await emulator();
    const others = Array.from({ length: 150 }, (_, i) => ({ ...alice, email: `n${String(i).padStart(3, "0")}.alice@example.com` }));
    const existing = emu.users.add({ ...alice, lastName: "Old" });
    for (const other of others) emu.users.add(other);
    await configureFor(emu);
    // While the search reads its second page, someone changes Alice's email: the search's record of her is old.
    emu.onPage(() => void emu.users.update(existing.id, { email: "alice.new@example.com" }));
    const error = await rejection(provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    expect(error.message).toContain(`User ${existing.id}, found with the email alice@example.com, has another email now`);
    // Her email is not written back on the strength of the old search, nor anything else.
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    expect(emu.users.get(existing.id)).toMatchObject({ email: "alice.new@example.com", lastName: "Old" });
  });

  it("an adoption whose user's record cannot be read when read again writes nothing, even with role and isGuest declared", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, lastName: "Old" });
    await configureFor(emu);
    const body = { data: { id: existing.id, type: "user", attributes: { email: 42 } }, links: {}, meta: {} };
    emu.fault({ method: "GET", path: `/users/${existing.id}`, body: JSON.stringify(body) });
    const declared = { ...alice, role: "workspace_login_only", isGuest: false, adoptExisting: true };
    const error = await rejection(provider.create((await check(declared)).inputs!));
    expect(error.message).toContain('field "data.attributes.email"');
    expect(error.message).toContain("was not taken over and nothing was written: whether it has that email still cannot be read");
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("an adoption whose user is gone by the time it is read (404) writes nothing, and fails saying so", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, lastName: "Old" });
    await configureFor(emu);
    emu.fault({ method: "GET", path: `/users/${existing.id}`, status: 404 });
    const error = await rejection(provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    expect(error.message).toContain(`answered 404`);
    expect(error.message).toContain(
      "The user found with the email alice@example.com is not there now (deleted since the user list was read, or not disclosed to this key): " +
        "it was not taken over, and nothing was written.",
    );
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("an adoption whose user has no email in the record read again writes nothing, and fails saying so", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, lastName: "Old" });
    await configureFor(emu);
    const body = {
      data: { id: existing.id, type: "user", attributes: { email: null, firstName: "Alice", lastName: "Old" } },
      links: {},
      meta: {},
    };
    emu.fault({ method: "GET", path: `/users/${existing.id}`, body: JSON.stringify(body) });
    const error = await rejection(provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    expect(error.message).toContain(`User ${existing.id}, found with the email alice@example.com, has no email in its record now`);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("an adoption whose declared attributes already hold sends no write", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, role: "workspace_owner" });
    const said: string[] = [];
    await configureFor(emu, {}, { info: (message) => void said.push(message) });
    const { id, outs } = wire(await provider.create((await check({ ...alice, adoptExisting: true })).inputs!));
    expect(id).toBe(existing.id);
    expect(outs).toMatchObject({ role: "workspace_owner", isGuest: false });
    // The search alone: no read of the user either (an export's first up adopts every user so).
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /users"]);
    // The engine reports it as created: the up's output says it wrote nothing.
    expect(said).toEqual([
      `Adopted user alice@example.com (${existing.id}): it holds every declared attribute already; nothing was written.`,
    ]);
  });

  it("an update that leaves role out reads the user first and keeps the service's role", async () => {
    const emu = await emulator();
    const existing = emu.users.add({ ...alice, role: "workspace_guest_admin" });
    await configureFor(emu);
    const { outs } = await provider.create((await check({ ...alice, adoptExisting: true })).inputs!);
    emu.users.update(existing.id, { role: "workspace_owner" });
    const { outs: updated } = wire(await provider.update!(existing.id, outs!, (await check({ ...alice, lastName: "Smith" })).inputs!));
    expect(updated).toMatchObject({ lastName: "Smith", role: "workspace_owner" });
    expect(emu.users.get(existing.id)).toMatchObject({ lastName: "Smith", role: "workspace_owner" });
  });

  it("an update sends only what the program changed: a declared role changed by hand since (or ignored) is not written back", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const declared = { ...alice, role: "workspace_super_admin" };
    const { id, outs } = await provider.create((await check(declared)).inputs!);
    // Demoted by hand; the program (or ignoreChanges, which hands back the old input) still says super admin, and renames.
    emu.users.update(id, { role: "workspace_login_only", firstName: "Ali" });
    emu.clearRequests();
    const news = (await check({ ...declared, lastName: "Smith" })).inputs!;
    const { outs: updated } = wire(await provider.update!(id, outs!, news));
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /users/${id}`, `PUT /users/${id}`]);
    expect(emu.requests.at(-1)?.body).toMatchObject({
      data: { attributes: { email: alice.email, firstName: "Ali", lastName: "Smith", role: "workspace_login_only" } },
    });
    expect(emu.users.get(id)).toMatchObject({ role: "workspace_login_only", firstName: "Ali", lastName: "Smith" });
    // The state says what the service holds, and what was left unsent: no diff of its own, even after the next up.
    expect(updated).toMatchObject({
      role: "workspace_login_only",
      firstName: "Ali",
      // As digests: an input may be a secret, and the state's own fields are not encrypted.
      unapplied: { role: digestOf("role", "workspace_super_admin"), firstName: digestOf("firstName", "Alice") },
    });
    expect((await provider.diff!(id, updated!, news)).changes).toBe(false);
    // A refresh reads the change into the state and the inputs: the program's role is then a diff, applied by the next up.
    const read = wire(await provider.read!(id, updated!));
    expect(read.props).not.toHaveProperty("unapplied");
    expect(read.inputs).toMatchObject({ role: "workspace_login_only", firstName: "Ali" });
    expect((await provider.diff!(id, read.props!, news)).changes).toBe(true);
    const { outs: applied } = wire(await provider.update!(id, read.props!, news));
    expect(emu.users.get(id)).toMatchObject({ role: "workspace_super_admin", firstName: "Alice" });
    expect(applied).not.toHaveProperty("unapplied");
  });

  it("an update replaces a service value the program could not declare (an empty name): the PUT would refuse it", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    emu.users.update(id, { firstName: "" });
    await provider.update!(id, outs!, (await check({ ...alice, lastName: "Smith" })).inputs!);
    expect(emu.users.get(id)).toMatchObject({ firstName: "Alice", lastName: "Smith" });
  });

  it("a declared role changed by hand to one the service does not take back: the refusal says to refresh, then up", async () => {
    const emu = await emulator({ quirks: { openUserRoles: false } });
    await configureFor(emu);
    const declared = { ...alice, role: "workspace_super_admin" };
    const { id, outs } = await provider.create((await check(declared)).inputs!);
    emu.users.update(id, { role: "workspace_billing_admin" });
    const error = await rejection(provider.update!(id, outs!, (await check({ ...declared, lastName: "Smith" })).inputs!));
    expect(error.message).toContain('kept the user\'s role "workspace_billing_admin", set in the service since the last refresh');
    expect(error.message).toContain('the program declares "workspace_super_admin"');
    expect(error.message).not.toContain("which the program does not declare");
  });

  it("a record that cannot be read is replaced by the declared values where the program declares the role", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const declared = { ...alice, role: "workspace_login_only", isGuest: false };
    const { id, outs } = await provider.create((await check(declared)).inputs!);
    emu.users.update(id, { isGuest: "yes" as unknown as boolean });
    await provider.update!(id, outs!, (await check({ ...declared, lastName: "Smith" })).inputs!);
    expect(emu.users.get(id)).toMatchObject({ lastName: "Smith", isGuest: false });
  });

  it("a user record with no role fails only an update that would have to keep it, naming the record and the field", async () => {
    const emu = await emulator();
    const existing = emu.users.add(alice);
    await configureFor(emu);
    emu.fault({
      method: "GET",
      path: `/users/${existing.id}`,
      body: JSON.stringify({
        data: { id: existing.id, type: "user", attributes: { email: alice.email, role: null } },
        links: {},
        meta: {},
      }),
    });
    const olds = {
      ...alice,
      role: null,
      isGuest: null,
      adoptExisting: false,
      status: null,
      createdAt: null,
      updatedAt: null,
      managedAttributes: [],
    };
    const error = await rejection(provider.update!(existing.id, olds, (await check(alice)).inputs!));
    expect(error.message).toContain(`User ${existing.id}`);
    expect(error.message).toContain("data.attributes.role");
    expect(emu.requests.filter((r) => r.method === "PUT")).toEqual([]);
  });

  it("a record that does not say whether a user of a guest role is a guest fails an update that would keep it: no guess is sent", async () => {
    // A PUT sends every attribute: `isGuest: false` for a guest whose record leaves it out would make them a member.
    const emu = await emulator();
    await configureFor(emu);
    const guest = { email: "kay@partner.example", firstName: "Kay", lastName: "Doe" };
    const existing = emu.users.add({ ...guest, isGuest: true });
    expect(existing.role).toBe("workspace_guest_user");
    const { outs } = await provider.create((await check({ ...guest, adoptExisting: true })).inputs!);
    const unreported = (role: string) =>
      emu.fault({
        method: "GET",
        path: `/users/${existing.id}`,
        body: JSON.stringify({
          data: { id: existing.id, type: "user", attributes: { ...guest, role, isGuest: null } },
          links: {},
          meta: {},
        }),
      });
    unreported(existing.role);
    const renamed = (extra: object = {}) => check({ ...guest, adoptExisting: true, lastName: "Roe", ...extra });
    const error = await rejection(provider.update!(existing.id, outs!, (await renamed()).inputs!));
    expect(error.message).toContain(`User ${existing.id} (kay@partner.example)`);
    expect(error.message).toContain("data.attributes.isGuest");
    expect(error.message).toContain("has the guest role workspace_guest_user");
    expect(error.message).toContain("Declare isGuest on this resource.");
    expect(emu.requests.filter((r) => r.method === "PUT")).toEqual([]);
    expect(emu.users.get(existing.id)).toMatchObject({ isGuest: true, lastName: "Doe" });
    // Declared, the flag is the program's: the PUT sends it.
    await provider.update!(existing.id, outs!, (await renamed({ isGuest: true })).inputs!);
    expect(emu.users.get(existing.id)).toMatchObject({ isGuest: true, lastName: "Roe" });
    // Beside a role that is not a guest's, an unreported flag is `false` (a service may leave `false` out).
    emu.users.update(existing.id, { role: "workspace_login_only", isGuest: false });
    unreported("workspace_login_only");
    await provider.update!(existing.id, outs!, (await renamed({ lastName: "Poe" })).inputs!);
    expect(emu.users.get(existing.id)).toMatchObject({ isGuest: false, lastName: "Poe" });
  });

  it("a record that cannot be read, the program declaring a guest role but not isGuest: not replaced (its flag is not guessed)", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const declared = { ...alice, role: "workspace_guest_user" };
    const { id, outs } = await provider.create((await check({ ...declared, isGuest: true })).inputs!);
    emu.users.update(id, { isGuest: "yes" as unknown as boolean });
    const error = await rejection(provider.update!(id, outs!, (await check({ ...declared, lastName: "Smith" })).inputs!));
    expect(error.message).toContain("declare role and isGuest");
    expect(emu.requests.filter((r) => r.method === "PUT")).toEqual([]);
  });

  it("reads drift back as outputs and inputs, so refresh shows it", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    emu.users.update(id, { lastName: "Changed", role: "workspace_guest_user" });
    const read = wire(await provider.read!(id, outs));
    expect(read.id).toBe(id);
    expect(read.props).toMatchObject({ lastName: "Changed", role: "workspace_guest_user" });
    // role was left to the service: a refresh does not make it look declared.
    expect(read.inputs).toEqual({ ...alice, lastName: "Changed", adoptExisting: false });
    // The next preview compares against what refresh read: the program's value is a change.
    expect((await provider.diff!(id, read.props!, (await check(alice)).inputs!)).changes).toBe(true);
  });

  it("reads with no spurious diff when nothing changed (email case kept as declared)", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const declared = (await check({ ...alice, email: "Alice@Example.COM" })).inputs!;
    const { id, outs } = await provider.create(declared);
    emu.users.update(id, { email: "alice@example.com" });
    const read = await provider.read!(id, outs);
    expect(read.props?.email).toBe("Alice@Example.COM");
    expect((await provider.diff!(id, read.props!, declared)).changes).toBe(false);
  });

  it("creates with the id in its one form, and keeps the state's id when it is in another case (a changed id would replace every resource using it)", async () => {
    const emu = await emulator({ quirks: { upperCaseIds: true } });
    await configureFor(emu);
    const created = await provider.create((await check(alice)).inputs!);
    // The service answered in upper case; the id enters in its one form.
    expect(created.id).toBe(created.id.toLowerCase());
    // A state written by an earlier version holds the service's case.
    const stateId = created.id.toUpperCase();
    const read = wire(await provider.read!(stateId, created.outs));
    expect(read.id).toBe(stateId);
  });

  it("reads an empty id when the user is gone", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    emu.users.remove(id);
    expect(wire(await provider.read!(id, outs)).id).toBe("");
  });

  it("updates with PUT of every writable attribute", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    const news = (await check({ ...alice, firstName: "Alicia", isGuest: true })).inputs!;
    const { outs: updated } = wire(await provider.update!(id, outs!, news));
    expect(updated).toMatchObject({ firstName: "Alicia", isGuest: true });
    expect(emu.requests.at(-1)).toMatchObject({
      method: "PUT",
      body: {
        data: {
          id,
          type: "user",
          attributes: { email: alice.email, firstName: "Alicia", lastName: "Doe", role: "workspace_login_only", isGuest: true },
        },
      },
    });
  });

  it("an update of a user deleted outside the program fails, writing nothing, saying to refresh; refresh and up then create it", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    emu.users.remove(id);
    emu.clearRequests();
    const news = (await check({ ...alice, lastName: "Roe" })).inputs!;
    const error = await rejection(provider.update!(id, outs!, news));
    expect(error.message).toContain(`GET /api/v1/users/${id} answered 404`);
    expect(error.message).toContain("The user no longer exists in the workspace (deleted outside this program");
    expect(error.message).toContain("Run pulumi refresh (the state then forgets the user), then pulumi up to create the user again.");
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    // What it says to do works: the refresh forgets the user, the up's create makes them again.
    expect(wire(await provider.read!(id, outs)).id).toBe("");
    const again = await provider.create(news);
    expect(emu.users.get(again.id)).toMatchObject({ email: alice.email, lastName: "Roe" });
  });

  it("an email change to an email another user has (409) says so, writing nothing; other conflicts are left as they are", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    emu.users.add({ email: "bob@example.com", firstName: "Bob", lastName: "Roe" });
    const error = await rejection(provider.update!(id, outs!, (await check({ ...alice, email: "bob@example.com" })).inputs!));
    expect(error.message).toContain(`PUT /api/v1/users/${id} answered 409`);
    expect(error.message).toContain("most likely another user has the email bob@example.com");
    expect(error.message).toContain("Free that email in the service, or declare another");
    expect(emu.users.get(id)).toMatchObject({ email: alice.email });
    // A 409 to a change that keeps the email is not about an email.
    emu.fault({ method: "PUT", path: `/users/${id}`, status: 409 });
    const other = await rejection(provider.update!(id, outs!, (await check({ ...alice, lastName: "Roe" })).inputs!));
    expect(other.message).toContain("answered 409");
    expect(other.message).not.toContain("another user has the email");
  });

  it("deletes, and treats 404 as already done", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    const other = emu.users.add({ email: "bob@example.com", firstName: "Bob", lastName: "Roe" });
    await provider.delete!(other.id, outs!);
    expect(emu.users.get(other.id)).toBeUndefined();
    emu.users.remove(id);
    await provider.delete!(id, outs!);
    expect(emu.requests.at(-1)?.status).toBe(404);
  });

  it("a delete whose read of the user finds no role leaves the user and fails, naming the field and the fix; deleteOnDestroy deletes it", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(alice)).inputs!);
    // The service's record now leaves the role out (only the id is certain): whether someone made Alice an owner is unknown.
    emu.users.update(id, { role: null as unknown as string });
    emu.clearRequests();
    const error = await rejection(provider.delete!(id, outs!));
    expect(error.message).toContain(`User ${id} (alice@example.com): the service's record has no role (field "data.attributes.role").`);
    expect(error.message).toContain("The user was not deleted: whether it is a workspace owner now cannot be read.");
    expect(error.message).toContain("set deleteOnDestroy: true");
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /users/${id}`]);
    expect(emu.users.get(id)).toBeDefined();
    // The opt-in deletes whatever the role, without reading it (as for an owner).
    emu.clearRequests();
    await provider.delete!(id, { ...outs!, deleteOnDestroy: true });
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE /users/${id}`]);
    expect(emu.users.get(id)).toBeUndefined();
  });

  it("does not delete a user that a replacement took over in this deployment", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id: oldId, outs } = await provider.create((await check(alice)).inputs!);
    const { id: newId } = await provider.create((await check({ ...alice, adoptExisting: true })).inputs!);
    expect(newId).toBe(oldId);
    await provider.delete!(oldId, outs!);
    expect(emu.users.get(oldId)).toBeDefined();
  });
});

describe("settings", () => {
  it("a missing API key fails the request with the exact command to fix it; configure never throws", async () => {
    const emu = await emulator();
    await configureFor(emu, { "workspace-access:apiKey": "" });
    const error = await rejection(provider.create((await check(alice)).inputs!));
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect(error.message).toContain("pulumi config set --secret workspace-access:apiKey <key>");
    expect(emu.requests).toHaveLength(0);
  });

  it("a missing workspace, the stack holding the key, names the address keys to set in the stack", async () => {
    const emu = await emulator();
    await configureFor(emu, { "workspace-access:baseUrl": "" });
    const error = await rejection(provider.read!("x", undefined));
    expect(error.message).toContain("No workspace address in the stack config, which holds the API key");
    expect(error.message).toContain("or set workspace-access:workspace and workspace-access:host");
  });

  it("refuses plain http:// to a non-loopback host", async () => {
    const emu = await emulator();
    await configureFor(emu, { "workspace-access:baseUrl": "http://acme.example.com/api/v1/" });
    const error = await rejection(provider.read!("x", undefined));
    expect(error.message).toContain("use https://");
  });

  it("a wrong key gives a 401 naming the config key to fix", async () => {
    const emu = await emulator();
    issuedKeys.add("wa_wrong_key_000000000000"); // the key sent: the leak check must look for it
    await configureFor(emu, { "workspace-access:apiKey": "wa_wrong_key_000000000000" });
    const error = await rejection(provider.create((await check(alice)).inputs!));
    expect(error.message).toContain("answered 401");
    expect(error.message).toContain("pulumi config set --secret workspace-access:apiKey");
    // A create runs with the stack config: the hint about a refresh's recorded key is not for it.
    expect(error.message).not.toContain("pulumi refresh uses the provider configuration recorded in the state");
    expectNoKey(error);
    // A refresh runs with the configuration the state recorded: after a key rotation it sends the old key, and says so.
    const read = await rejection(provider.read!("00000000-0000-4000-8000-000000000001", undefined));
    expect(read.message).toContain("answered 401");
    expect(read.message).toContain("pulumi refresh uses the provider configuration recorded in the state at the last pulumi up");
    expect(emu.requests.map((r) => r.status)).toEqual([401, 401]);
  });

  it("falls back to the environment when the stack config has no key", async () => {
    const emu = await emulator();
    process.env.WORKSPACE_ACCESS_API_KEY = emu.apiKey;
    process.env.WORKSPACE_ACCESS_BASE_URL = emu.url;
    try {
      await configureFor(emu, { "workspace-access:apiKey": "", "workspace-access:baseUrl": "" });
      const { id } = await provider.create((await check(alice)).inputs!);
      expect(emu.users.get(id)).toBeDefined();
    } finally {
      delete process.env.WORKSPACE_ACCESS_API_KEY;
      delete process.env.WORKSPACE_ACCESS_BASE_URL;
    }
  });
});

describe("a user whose role the public document does not list (the populated world's workspace_billing_admin)", () => {
  // Adopted with another lastName and no role declared: the PUT keeps the user's role, which a service may not take back.
  async function adoptRenamed(quirks: { openUserRoles?: boolean }) {
    const emu = await emulator({ world: "populated", quirks });
    await configureFor(emu);
    const user = emu.users.get(POPULATED_IDS.users.unknownRole)!;
    const declared = { email: user.email, firstName: user.firstName, lastName: "Renamed", adoptExisting: true };
    return { emu, user, write: provider.create((await check(declared)).inputs!) };
  }

  it("a service that takes back only the listed roles: the refusal says the role was kept, and to declare one", async () => {
    const { emu, user, write } = await adoptRenamed({});
    const error = await rejection(write);
    expect(error.message).toContain("answered 400");
    expect(error.message).toContain(`kept the user's role "workspace_billing_admin"`);
    expect(error.message).toContain("Declare a listed role on this resource");
    expect(emu.users.get(user.id)?.lastName).toBe(user.lastName);
  });

  it("declared as the service has it (an exported user), an edit's refusal says so, and to declare a listed role", async () => {
    const emu = await emulator({ world: "populated" });
    await configureFor(emu);
    const user = emu.users.get(POPULATED_IDS.users.unknownRole)!;
    const declared = {
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      role: "workspace_billing_admin",
      adoptExisting: true,
    };
    const { id, outs } = await provider.create((await check(declared)).inputs!);
    const error = await rejection(provider.update!(id, outs!, (await check({ ...declared, lastName: "Renamed" })).inputs!));
    expect(error.message).toContain("which the program declares as the service has it, and the public document does not list it");
    expect(error.message).toContain("Declare a listed role on this resource");
  });

  it("a service that takes any role it serves (openUserRoles): adopted, the role kept", async () => {
    const { emu, user, write } = await adoptRenamed({ openUserRoles: true });
    const { outs } = await write;
    expect(outs).toMatchObject({ role: "workspace_billing_admin", lastName: "Renamed", adopted: true });
    expect(emu.users.get(user.id)).toMatchObject({ role: "workspace_billing_admin", lastName: "Renamed" });
  });
});

describe("an address that is not the API's root (404 to everything)", () => {
  it("fails a refresh and a destroy, naming baseUrl, rather than take the user for gone", async () => {
    const emu = await emulator();
    const user = emu.users.add(alice);
    await configureFor(emu, { "workspace-access:baseUrl": emu.url.replace("/api/v1/", "/api/v2/") });
    const props = { ...alice, role: "workspace_login_only", isGuest: false, deleteOnDestroy: true, adopted: false };
    for (const step of [() => provider.read!(user.id, props as never), () => provider.delete!(user.id, props as never)]) {
      const error = await rejection(step());
      expect(error.message).toContain("so nothing was read as gone. Either");
      expect(error.message).toContain("is not the workspace's API root: check workspace-access:baseUrl");
      expect(error.message).toContain("give the key in workspace-access:apiKey the scope Read users (read:users)");
    }
    expect(emu.users.get(user.id)).toBeDefined();
  });
});

describe("a user whose email the program gives as a secret (its hidden __secretEmail: the provider cannot see a secret)", () => {
  // Declared in mixed case, held by the service in lower case: a message must name it in neither.
  const ann = { email: "Ann.Lee@Example.com", firstName: "Ann", lastName: "Lee" };
  const held = { ...ann, email: "ann.lee@example.com" };
  const flagged = (secret: boolean, props: Record<string, unknown>) => (secret ? { ...props, __secretEmail: true } : props);

  /** A deployment's context on `emu`, its infos and warnings said into `said`. */
  const deployment = (emu: Awaited<ReturnType<typeof emulator>>, said: string[], extra: Record<string, string> = {}) =>
    configureFor(emu, extra, { info: (m) => void said.push(m), warn: (m) => void said.push(m) });
  /** What an error prints: its message, and its stack (the host prints a destroy's error with it). */
  const printed = (error: Error) => [error.message, error.stack ?? ""];

  /** Each case runs with the flag set or not: what it said (infos, warnings, the error), and the emails a plain one names (Ann's, unless told). */
  type Case = (secret: boolean) => Promise<{ said: string[]; emails?: string[] }>;
  const cases: Array<[string, Case]> = [
    [
      "an adoption that writes nothing (info)",
      async (secret) => {
        const emu = await emulator();
        emu.users.add(held);
        const said: string[] = [];
        await deployment(emu, said);
        await provider.create((await check(flagged(secret, { ...ann, adoptExisting: true }))).inputs!);
        return { said };
      },
    ],
    [
      "a create refused with 409: the email is taken (error)",
      async (secret) => {
        const emu = await emulator();
        emu.users.add(held);
        const said: string[] = [];
        await deployment(emu, said);
        said.push(...printed(await rejection(provider.create((await check(flagged(secret, ann))).inputs!))));
        return { said };
      },
    ],
    [
      "an adopting create refused with 409 whose lookup finds nobody (error)",
      async (secret) => {
        const emu = await emulator();
        const said: string[] = [];
        await deployment(emu, said);
        emu.fault({ method: "POST", path: "/users", status: 409 });
        const inputs = (await check(flagged(secret, { ...ann, adoptExisting: true }))).inputs!;
        said.push(...printed(await rejection(provider.create(inputs))));
        return { said };
      },
    ],
    [
      "a create whose job outlives jobTimeoutSeconds: it may still be created (error)",
      async (secret) => {
        const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 } });
        const said: string[] = [];
        await deployment(emu, said, { "workspace-access:jobTimeoutSeconds": "5" });
        emu.jobs.hangNext(1);
        said.push(...printed(await rejection(provider.create((await check(flagged(secret, ann))).inputs!))));
        return { said };
      },
    ],
    [
      "a destroy that leaves an adopted user in the workspace (warning)",
      async (secret) => {
        const emu = await emulator();
        emu.users.add(held);
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, { ...ann, adoptExisting: true }))).inputs!);
        said.length = 0;
        await deployment(emu, said);
        await provider.delete!(id, outs!);
        return { said };
      },
    ],
    [
      "a destroy that leaves a user made a workspace owner since (warning, naming the service's email)",
      async (secret) => {
        const emu = await emulator();
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, ann))).inputs!);
        emu.users.update(id, { role: "workspace_owner" });
        await deployment(emu, said);
        await provider.delete!(id, outs!);
        return { said };
      },
    ],
    [
      "a destroy whose read of the user finds no role (error)",
      async (secret) => {
        const emu = await emulator();
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, ann))).inputs!);
        emu.users.update(id, { role: null as unknown as string });
        said.push(...printed(await rejection(provider.delete!(id, outs!))));
        return { said };
      },
    ],
    [
      "an update that must keep a role the service's record leaves out (error)",
      async (secret) => {
        const emu = await emulator();
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, ann))).inputs!);
        emu.users.update(id, { role: null as unknown as string });
        const news = (await check(flagged(secret, { ...ann, lastName: "Roe" }))).inputs!;
        said.push(...printed(await rejection(provider.update!(id, outs!, news))));
        return { said };
      },
    ],
    [
      "an email change refused with 409: another user has the new email (error)",
      async (secret) => {
        const emu = await emulator();
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, ann))).inputs!);
        emu.users.add({ email: "bo.roe@example.com", firstName: "Bo", lastName: "Roe" });
        const news = (await check(flagged(secret, { ...ann, email: "Bo.Roe@example.com" }))).inputs!;
        said.push(...printed(await rejection(provider.update!(id, outs!, news))));
        return { said, emails: ["bo.roe@example.com"] };
      },
    ],
    [
      "a forced replacement's create takes back the user its delete left (info)",
      async (secret) => {
        const emu = await emulator();
        emu.users.add(held);
        const said: string[] = [];
        await deployment(emu, said);
        const { id, outs } = await provider.create((await check(flagged(secret, { ...ann, adoptExisting: true }))).inputs!);
        await deployment(emu, said);
        await provider.delete!(id, outs!);
        await provider.create((await check(flagged(secret, ann))).inputs!);
        return { said };
      },
    ],
    [
      "an import of a user whose email is another (error, naming only the service's other email)",
      async (secret) => {
        const emu = await emulator();
        const other = emu.users.add({ email: "bo.roe@example.com", firstName: "Bo", lastName: "Roe" });
        const said: string[] = [];
        await deployment(emu, said);
        const inputs = (await check(flagged(secret, { ...ann, __importId: other.id }))).inputs!;
        said.push(...printed(await rejection(provider.create(inputs))));
        return { said };
      },
    ],
  ];

  it.each(cases)("%s: names no email with the flag set, in any case, and the email as before without it", async (_, run) => {
    const hidden = await run(true);
    const text = hidden.said.join("\n");
    for (const email of [ann.email, ...(hidden.emails ?? [])]) expect(text.toLowerCase()).not.toContain(email.toLowerCase());
    expect(text).toContain("[secret]");
    const plain = await run(false);
    for (const email of plain.emails ?? [ann.email]) expect(plain.said.join("\n").toLowerCase()).toContain(email.toLowerCase());
    expect(plain.said.join("\n")).not.toContain("[secret]");
  });

  it("the state keeps the flag (a destroy gets no inputs), a refresh keeps it, and an update takes the program's", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = wire(await provider.create((await check({ ...ann, __secretEmail: true })).inputs!));
    expect(outs).toMatchObject({ __secretEmail: true });
    const read = wire(await provider.read!(id, outs));
    expect(read.props).toMatchObject({ __secretEmail: true });
    // Never handed back as an input: the program sets it, and a refresh must not make it look declared.
    expect(read.inputs).not.toHaveProperty("__secretEmail");
    const plain = await provider.update!(id, outs!, (await check({ ...ann, lastName: "Roe" })).inputs!);
    expect(plain.outs).not.toHaveProperty("__secretEmail");
    const again = await provider.update!(id, plain.outs!, (await check({ ...ann, lastName: "Lee", __secretEmail: true })).inputs!);
    expect(again.outs).toMatchObject({ __secretEmail: true });
    // A plain email's state has no flag at all.
    const { outs: bob } = await provider.create((await check({ email: "bob@example.com", firstName: "Bob", lastName: "Roe" })).inputs!);
    expect(bob).not.toHaveProperty("__secretEmail");
  });

  it("an old state without the flag (written before it existed) diffs with no change when the program now sets it, and back", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const { id, outs } = await provider.create((await check(ann)).inputs!);
    const checked = await check({ ...ann, __secretEmail: true });
    expect(checked.failures).toEqual([]);
    expect(await provider.diff!(id, outs!, checked.inputs!)).toMatchObject({ changes: false, replaces: [] });
    // And a state with the flag, the program's email now plain: no change either (nothing the service has differs).
    expect(await provider.diff!(id, { ...outs!, __secretEmail: true }, (await check(ann)).inputs!)).toMatchObject({ changes: false });
    // A refresh of the old state adds nothing.
    const read = wire(await provider.read!(id, outs));
    expect(read.props).not.toHaveProperty("__secretEmail");
    expect(await provider.diff!(id, read.props!, checked.inputs!)).toMatchObject({ changes: false, replaces: [] });
  });
});
