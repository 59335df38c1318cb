/**
 * The lookups in a program under `pulumi.runtime.setMocks`, against the emulator: found, not
 * found, ambiguous, bad arguments (zero requests), paging past the first page, case-insensitive
 * email, shared list calls, the output forms, 401/403 naming the scope, and the stack config
 * checked as getJob checks it (an unknown key fails before any request).
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it, vi } from "vitest";
import {
  getIntegration,
  getIntegrationEntitlements,
  getIntegrationEntitlementsOutput,
  getIntegrationMembers,
  getIntegrationOutput,
  getIntegrations,
  getIntegrationsOutput,
  getUser,
  getUserOutput,
  getUsers,
  getUsersOutput,
  ConfigurationError,
  type GetIntegrationArgs,
  type GetUserArgs,
  InvalidResponseError,
  type LookupInputs,
  LookupError,
  NotFoundError,
} from "../../src";
import { DEFAULT_IDS, defaultSeed, type Emulator, type EmulatorSeed } from "../../src/emulator";
import { IDS_FOR_A_LISTING } from "../../src/program/lookups/session";
import { emulator, rejection } from "../support/fixtures";

const { users, integrations } = DEFAULT_IDS;
const YOUTUBE_2 = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a03";

/** The default world plus a second YouTube integration (for ambiguity) and `extraUsers` more users. */
function world(extraUsers = 0): EmulatorSeed {
  const seed = defaultSeed();
  seed.integrations!.push({ id: YOUTUBE_2, application: "YouTube", label: "YouTube partners", entitlements: [{ id: "VIEWER" }] });
  for (let i = 0; i < extraUsers; i++)
    seed.users!.push({ email: `user${String(i).padStart(3, "0")}@example.com`, firstName: "U", lastName: `${i}` });
  return seed;
}

/** A program pointed at `emu` by stack config, as `pulumi up` (or `preview`) would run it; `created` runs as each resource is. */
async function program(
  emu: Emulator,
  options: { preview?: boolean; apiKey?: string; created?: (name: string) => Promise<void> | void } = {},
): Promise<void> {
  pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": options.apiKey ?? emu.apiKey }, [
    "workspace-access:apiKey",
  ]);
  await pulumi.runtime.setMocks(
    {
      newResource: async (a) => {
        await options.created?.(a.name);
        return { id: options.preview ? (undefined as unknown as string) : `${a.name}-id`, state: a.inputs };
      },
      call: (a) => a.inputs,
    },
    "p",
    "s",
    options.preview ?? false,
  );
  emu.clearRequests();
}

/** Each request: its page number after the first, and its page size when not the largest (a proof's listing). */
const sent = (emu: Emulator) =>
  emu.requests.map(
    (r) =>
      `${r.method} ${r.path}${r.query["page[number]"] ? ` p${r.query["page[number]"]}` : ""}` +
      `${r.query["page[size]"] && r.query["page[size]"] !== "100" ? ` (${r.query["page[size]"]})` : ""}`,
  );
/** A listing of `path` in `pages` pages, then the proof's at page size 99 (`proofPages`). */
const provenListing = (path: string, pages: number, proofPages = pages) => [
  ...Array.from({ length: pages }, (_, i) => `GET ${path}${i > 0 ? ` p${i + 1}` : ""}`),
  ...Array.from({ length: proofPages }, (_, i) => `GET ${path}${i > 0 ? ` p${i + 1}` : ""} (99)`),
];
/** A resource of the mock monitor. */
class Thing extends pulumi.CustomResource {
  constructor(name: string, opts?: pulumi.CustomResourceOptions) {
    super("test:index:Thing", name, {}, opts);
  }
}
/** A resource whose `email` output echoes its input: known in a preview, as a new `User`'s is. */
class Person extends pulumi.CustomResource {
  declare readonly email: pulumi.Output<string>;
  constructor(name: string, email: string, opts?: pulumi.CustomResourceOptions) {
    super("test:index:Person", name, { email }, opts);
  }
}
const known = (output: pulumi.Output<unknown>) => (output as unknown as { isKnown: Promise<boolean> }).isKnown;
const resolved = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply(resolve));
/** An output's value, or its error's message (an output that fails never calls `apply`). */
/** The error an output fails with, its other promises (known, secret, resources), which reject with it, handled. */
const failureOf = async (output: pulumi.Output<unknown>): Promise<Error> => {
  const o = output as unknown as {
    isKnown: Promise<boolean>;
    isSecret: Promise<boolean>;
    allResources(): Promise<unknown>;
    promise(): Promise<unknown>;
  };
  for (const settled of [o.isKnown, o.isSecret, o.allResources()]) settled.catch(() => {});
  return o.promise().then(
    () => new Error("no error"),
    (error: Error) => error,
  );
};
const outcome = <T>(output: pulumi.Output<T>): Promise<T | string> =>
  (output as unknown as { promise(): Promise<T> }).promise().catch((error: Error) => `error: ${error.message}`);

async function lookupError(promise: Promise<unknown>, kind: string): Promise<LookupError> {
  const error = await rejection(promise);
  expect(LookupError.isInstance(error), String(error)).toBe(true);
  expect((error as LookupError).kind).toBe(kind);
  return error as LookupError;
}

describe("getUser", () => {
  it("finds a user by id with one GET", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect(await getUser({ id: users.grace })).toEqual({
      id: users.grace,
      email: "grace@example.com",
      firstName: "Grace",
      lastName: "Hopper",
      role: "workspace_super_admin",
      isGuest: false,
      status: "live",
      createdAt: expect.stringMatching(/^\d{4}-/),
      updatedAt: expect.stringMatching(/^\d{4}-/),
    });
    expect(sent(emu)).toEqual([`GET /users/${users.grace}`]);
  });

  it("finds a user by email case-insensitively on the third page", async () => {
    const emu = await emulator({ seed: world(250) });
    const late = emu.users.add({ email: "Zoe.Late@Example.com", firstName: "Zoe", lastName: "Late" });
    await program(emu);
    expect(await getUser({ email: "zoe.late@EXAMPLE.com" })).toMatchObject({ id: late.id, email: "Zoe.Late@Example.com" });
    // Found: the listing proves presence, no second listing.
    expect(sent(emu)).toEqual(["GET /users", "GET /users p2", "GET /users p3"]);
  });

  it("finds a user a page shift skipped in the first listing: a miss is decided on a proven listing only", async () => {
    const emu = await emulator({ seed: world(150) });
    const late = emu.users.list().find((u) => u.email === "user120@example.com")!;
    const first = emu.users.list()[0]!;
    await program(emu);
    // Someone removes a user of page 1 while page 2 is read: the first listing skips the user who moved onto page 1.
    const off = emu.onPage((list) => {
      if (list.path === "/users" && list.page === 2 && list.size === 100) {
        emu.users.remove(first.id);
        off();
      }
    });
    const skipped = emu.users.list()[100]!;
    expect((await getUser({ email: skipped.email })).id).toBe(skipped.id);
    expect((await getUser({ email: late.email })).id).toBe(late.id);
    expect(sent(emu).filter((r) => r.endsWith("(99)")).length).toBeGreaterThan(0);
  });

  it("fails naming the email and the workspace when no user has it, the miss decided on a proven listing", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getUser({ email: "nobody@example.com" }), "lookup_not_found");
    expect(sent(emu)).toEqual(provenListing("/users", 1));
    expect(error.message).toContain('no user with email "nobody@example.com"');
    expect(error.message).toContain("Check the email, or declare the user with a User resource");
    expect(error.message).toContain(`in the workspace at ${new URL(emu.url).host}`);
    expect(NotFoundError.isInstance(error)).toBe(false);
  });

  it("fails naming the id when no user has it (the 404 is not a guess)", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getUser({ id: "6f1d2c3b-0000-4f60-8a71-0b2c3d4e5f99" }), "lookup_not_found");
    expect(error.message).toContain('no user with id "6f1d2c3b-0000-4f60-8a71-0b2c3d4e5f99"');
    expect(error.message).toContain("look the user up by email (getUserOutput({ email }))");
  });

  it("a read that failed is not kept for the run: the same lookup asked again reads again, and answers", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    // A 400 is not retried: the first lookup fails with it.
    emu.fault({ method: "GET", path: `/users/${users.grace}`, status: 400, times: 1 });
    await rejection(getUser({ id: users.grace }));
    expect((await getUser({ id: users.grace })).id).toBe(users.grace);
    expect(emu.requests.filter((r) => r.path === `/users/${users.grace}`).map((r) => r.status)).toEqual([400, 200]);
  });

  it("fails listing each candidate when two users' emails differ only in case", async () => {
    const emu = await emulator({ seed: world() });
    const record = (id: string, email: string) => ({
      id,
      type: "user",
      attributes: { email, firstName: "A", lastName: "B", role: "workspace_login_only" },
    });
    emu.fault({
      method: "GET",
      path: "/users",
      body: JSON.stringify({ data: [record("u-1", "Sam@example.com"), record("u-2", "sam@example.com")], links: { next: null }, meta: {} }),
      times: 2,
    });
    await program(emu);
    const error = await lookupError(getUser({ email: "SAM@example.com" }), "lookup_ambiguous");
    expect(error.message).toContain("u-1 (Sam@example.com), u-2 (sam@example.com)");
    expect(error.candidates).toEqual([
      { id: "u-1", label: "Sam@example.com" },
      { id: "u-2", label: "sam@example.com" },
    ]);
  });

  it.each([
    [{}, "give exactly one of id, email; got none"],
    [{ id: users.ada, email: "ada@example.com" }, "give exactly one of id, email; got id and email"],
    [{ email: "  " }, 'email must be a non-empty string, got "  "'],
    [{ email: 42 }, "email must be a non-empty string, got number 42"],
    [{ mail: "ada@example.com" }, 'unknown argument "mail": the arguments are id, email'],
    [null, "expected an object of arguments (id, email), got null"],
  ])("rejects %j before any request", async (args, message) => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getUser(args as never), "lookup_arguments");
    expect(error.message).toBe(`getUser: ${message}.`);
    expect(emu.requests).toEqual([]);
  });

  it("rejects bad arguments before reading the stack config", async () => {
    pulumi.runtime.setAllConfig({});
    await lookupError(getUser({} as never), "lookup_arguments");
  });

  it("takes exactly one of id and email in its type too, as getIntegration one of id, label and application (tsc checks)", () => {
    // Never run: `tsc` fails on an `@ts-expect-error` the line below it does not need.
    const compileOnly = (email: string | undefined, label: pulumi.Output<string>) => [
      // @ts-expect-error none: the lookup refuses it
      getUser({}),
      // @ts-expect-error both: the lookup refuses it
      getUser({ id: users.ada, email: "ada@example.com" }),
      // @ts-expect-error an email that may be missing: the lookup would refuse it then
      getUser({ email }),
      // @ts-expect-error two of them
      getIntegration({ label: "Slack acme", application: "Slack" }),
      // @ts-expect-error none, in the output form
      getIntegrationOutput({}),
      getUser({ email: "ada@example.com", id: undefined }),
      getUserOutput({ email: label }),
      getIntegrationOutput({ label }),
      getIntegrationOutput({ label: "x" } satisfies LookupInputs<GetIntegrationArgs>),
      // @ts-expect-error two of them, as inputs
      { label, application: "Slack" } satisfies LookupInputs<GetIntegrationArgs>,
      { email: "ada@example.com" } satisfies GetUserArgs,
    ];
    expect(typeof compileOnly).toBe("function");
  });

  it("serves 100 lookups by email and 3 by id from one paged listing", async () => {
    const emu = await emulator({ seed: world(250) });
    await program(emu);
    const all = emu.users.list();
    const found = await Promise.all([
      ...all.slice(0, 100).map((u) => getUser({ email: u.email.toUpperCase() })),
      ...all.slice(200, 203).map((u) => getUser({ id: u.id })),
    ]);
    expect(found.map((u) => u.id)).toEqual([...all.slice(0, 100), ...all.slice(200, 203)].map((u) => u.id));
    expect(sent(emu)).toEqual(["GET /users", "GET /users p2", "GET /users p3"]);
    // Later lookups of the run reuse it too.
    expect((await getUser({ email: all[250]!.email })).id).toBe(all[250]!.id);
    expect(emu.requests).toHaveLength(3);
  });

  it("reads afresh in the next program run of the same process (Automation API inline programs)", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    await getUser({ email: "ada@example.com" });
    emu.users.update(users.ada, { lastName: "King" });
    expect((await getUser({ email: "ada@example.com" })).lastName).toBe("Lovelace");
    await program(emu);
    expect((await getUser({ email: "ada@example.com" })).lastName).toBe("King");
    expect(sent(emu)).toEqual(["GET /users"]);
  });

  it("raises errors Pulumi's language host prints as their message alone (RunError), keeping their class", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const missing = await lookupError(getUser({ email: "nobody@example.com" }), "lookup_not_found");
    expect(pulumi.RunError.isInstance(missing)).toBe(true);
    await program(emu, { apiKey: "wa_emu_revoked_0000000000000000" });
    const refused = await rejection(getUser({ email: "ada@example.com" }));
    expect(pulumi.RunError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ kind: "unauthorized", status: 401 });
    expect(pulumi.RunError.isInstance(await rejection(getUser({ email: 7 } as never)))).toBe(true);
  });

  it("names the scope a key lacks, and where the key comes from", async () => {
    const emu = await emulator({ seed: world(), keys: { wa_lookup_integrations_only_0000: ["read:integrations"] } });
    await program(emu, { apiKey: "wa_lookup_integrations_only_0000" });
    const error = await rejection(getUser({ email: "ada@example.com" }));
    expect(error.message).toContain("Read users (read:users)");
    expect(error.message).toContain("workspace-access:apiKey");
  });
});

describe("lookups by id arriving together", () => {
  /** `IDS_FOR_A_LISTING` users of `emu` by id, looked up together. */
  const manyIds = (emu: Emulator) =>
    emu.users
      .list()
      .map((u) => u.id)
      .slice(0, IDS_FOR_A_LISTING);

  it("a few each read their own record: no listing of a large workspace for two ids", async () => {
    const emu = await emulator({ seed: world(300) });
    await program(emu);
    const found = await Promise.all([getUser({ id: users.alan }), getUser({ id: users.grace })]);
    expect(found.map((user) => user.email)).toEqual(["alan@example.com", "grace@example.com"]);
    expect(sent(emu).sort()).toEqual([`GET /users/${users.alan}`, `GET /users/${users.grace}`].sort());
  });

  it(`${IDS_FOR_A_LISTING} or more share one listing of the users when it costs fewer requests than their reads`, async () => {
    const emu = await emulator({ seed: world(150) });
    await program(emu);
    const ids = manyIds(emu);
    const found = await Promise.all(ids.map((id) => getUser({ id })));
    expect(found.map((user) => user.id)).toEqual(ids);
    // How many users there are (a page of one), then the listing: 2 pages, not 25 reads.
    expect(sent(emu)).toEqual(["GET /users (1)", "GET /users", "GET /users p2"]);
  });

  it(`${IDS_FOR_A_LISTING} in a workspace whose listing costs more read their own records`, async () => {
    const emu = await emulator({ seed: world(2600) });
    await program(emu);
    const ids = manyIds(emu);
    const found = await Promise.all(ids.map((id) => getUser({ id })));
    expect(found.map((user) => user.id)).toEqual(ids);
    // 27 pages of users against 25 reads (and the page of one that told).
    expect(sent(emu).sort()).toEqual(["GET /users (1)", ...ids.map((id) => `GET /users/${id}`)].sort());
  });

  it("a workspace whose page does not say how many users it has, or cannot be asked, is read by id: a cost the lookups bound", async () => {
    const emu = await emulator({ seed: world(IDS_FOR_A_LISTING) });
    const noTotal = JSON.stringify({ data: [], links: { next: null }, meta: {} });
    emu.fault({ method: "GET", path: "/users", body: noTotal, times: 1 });
    await program(emu);
    const ids = manyIds(emu);
    expect((await Promise.all(ids.map((id) => getUser({ id })))).map((user) => user.id)).toEqual(ids);
    expect(sent(emu).sort()).toEqual(["GET /users (1)", ...ids.map((id) => `GET /users/${id}`)].sort());
    emu.fault({ method: "GET", path: "/users", status: 503, times: 1 });
    await program(emu);
    pulumi.runtime.setAllConfig(
      { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey, "workspace-access:maxRetries": "0" },
      ["workspace-access:apiKey"],
    );
    emu.clearRequests();
    expect((await Promise.all(ids.map((id) => getUser({ id })))).map((user) => user.id)).toEqual(ids);
    expect(sent(emu).sort()).toEqual(["GET /users (1)", ...ids.map((id) => `GET /users/${id}`)].sort());
  });

  // The listing only saves them requests: when it cannot be read, each reads its own record; when the key is refused, none
  // asks again (its own read would be refused the same way).
  it.each([
    ["an unreadable page", { body: "<html>gateway</html>" }],
    ["a 5xx", { status: 503 }],
  ])("each read by its own GET when the page telling how many users there are fails with %s", async (_, fault) => {
    const emu = await emulator({ seed: world(IDS_FOR_A_LISTING) });
    emu.fault({ method: "GET", path: "/users", times: 10, ...fault });
    await program(emu);
    pulumi.runtime.setAllConfig(
      { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey, "workspace-access:maxRetries": "0" },
      ["workspace-access:apiKey"],
    );
    const ids = manyIds(emu);
    const found = await Promise.all(ids.map((id) => getUser({ id })));
    expect(found.map((user) => user.id)).toEqual(ids);
    expect(sent(emu).sort()).toEqual(["GET /users (1)", ...ids.map((id) => `GET /users/${id}`)].sort());
  });

  it("an integration by id, when the listing it joined fails, read by its own GET", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/integrations", times: 10, body: "<html>gateway</html>" });
    await program(emu);
    const [all, one] = await Promise.all([rejection(getIntegrations()), getIntegration({ id: integrations.slack })]);
    expect(InvalidResponseError.isInstance(all)).toBe(true);
    expect(one.label).toBe("Slack acme");
    expect(sent(emu)).toEqual(["GET /integrations", `GET /integrations/${integrations.slack}`]);
  });

  it("each read by its own GET when the listing they join fails (a 5xx): a listing only saves them requests", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/users", status: 503, times: 10 });
    await program(emu);
    pulumi.runtime.setAllConfig(
      { "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey, "workspace-access:maxRetries": "0" },
      ["workspace-access:apiKey"],
    );
    // The lookup by email takes the listing; the lookups by id arriving with it join it.
    const [byEmail, ...byId] = await Promise.all([
      rejection(getUser({ email: "ada@example.com" })),
      getUser({ id: users.alan }),
      getUser({ id: users.grace }),
    ]);
    expect(String(byEmail)).toContain("503");
    expect(byId.map((user) => user.email)).toEqual(["alan@example.com", "grace@example.com"]);
    expect(sent(emu).sort()).toEqual(["GET /users", `GET /users/${users.alan}`, `GET /users/${users.grace}`].sort());
  });

  it("fail with a refused key's 401 (the page telling how many users there are), without asking again by id", async () => {
    const emu = await emulator({ seed: world(IDS_FOR_A_LISTING) });
    emu.fault({ method: "GET", path: "/users", status: 401, times: 10 });
    await program(emu);
    const ids = manyIds(emu);
    const errors = await Promise.all(ids.map((id) => rejection(getUser({ id }))));
    expect(errors.every((error) => error.message.includes("answered 401"))).toBe(true);
    // One answer, one error shared: each lookup's names its own call.
    expect(errors[0]!.message).toMatch(new RegExp(`^getUser\\(\\{ id: "${ids[0]}" \\}\\): GET \\S+/users `));
    expect(errors[1]!.message).toMatch(new RegExp(`^getUser\\(\\{ id: "${ids[1]}" \\}\\): GET \\S+/users `));
    expect(sent(emu)).toEqual(["GET /users (1)"]);
  });
});

describe("getUsers", () => {
  it("filters by role, status and guest, sorted by email, with ids", async () => {
    // Beside grace, a super admin each filter leaves out: one pending, one a guest.
    const seed = world(120);
    seed.users!.push(
      { email: "pat@example.com", firstName: "P", lastName: "A", role: "workspace_super_admin", status: "pending" },
      { email: "gus@example.com", firstName: "G", lastName: "U", role: "workspace_super_admin", isGuest: true },
    );
    const emu = await emulator({ seed });
    await program(emu);
    const admins = await getUsers({ role: "workspace_super_admin" });
    expect(admins.users.map((u) => u.email)).toEqual(expect.arrayContaining(["grace@example.com", "gus@example.com", "pat@example.com"]));
    expect((await getUsers({ role: "workspace_super_admin", status: "pending" })).users.map((u) => u.email)).toEqual(["pat@example.com"]);
    expect((await getUsers({ role: "workspace_super_admin", isGuest: true })).users.map((u) => u.email)).toEqual(["gus@example.com"]);
    const live = await getUsers({ status: "live", isGuest: false, role: "workspace_super_admin" });
    expect(live.users.map((u) => u.email)).toEqual(["grace@example.com"]);
    expect(live.ids).toEqual([users.grace]);
    const everyone = await getUsers();
    expect(everyone.users).toHaveLength(126);
    expect(everyone.users.map((u) => u.email)).toEqual(everyone.users.map((u) => u.email).sort());
    expect(sent(emu)).toEqual(provenListing("/users", 2));
  });

  it("reads a left-out isGuest as the resources do: false beside a role that is not a guest's; beside a guest role, it decides nothing", async () => {
    const emu = await emulator({ seed: world() });
    const record = (id: string, email: string, isGuest: boolean | null, role = "workspace_login_only") => ({
      id,
      type: "user",
      attributes: { email, role, isGuest, status: "live" },
    });
    const page = (...data: unknown[]) => JSON.stringify({ data, links: { next: null }, meta: {} });
    const members = [
      record("u-1", "emp@example.com", false),
      record("u-2", "scim@example.com", null),
      record("u-3", "guest@example.com", true),
    ];
    emu.fault({ method: "GET", path: "/users", body: page(...members), times: 3 });
    await program(emu);
    // A service may leave false out: the SCIM user beside a member's role is not a guest.
    expect((await getUsers({ isGuest: false })).ids).toEqual(["u-1", "u-2"]);
    expect((await getUsers({ isGuest: true })).ids).toEqual(["u-3"]);
    expect((await getUsers()).ids).toEqual(["u-1", "u-3", "u-2"]);
    // Beside a guest role the record does not tell: a filter on isGuest fails naming the user, one on the role still answers.
    emu.clearFaults();
    emu.fault({
      method: "GET",
      path: "/users",
      body: page(...members, record("u-4", "kay@partner.example", null, "workspace_guest_user")),
      times: 10,
    });
    await program(emu);
    const error = await lookupError(getUsers({ isGuest: false }), "lookup_ambiguous");
    expect(error.message).toContain("kay@partner.example (u-4)");
    expect(error.message).toContain("Filter without isGuest");
    expect((await getUsers({ isGuest: true, role: "workspace_login_only" })).ids).toEqual(["u-3"]);
    expect((await getUsers({ role: "workspace_guest_user" })).ids).toEqual(["u-4"]);
  });

  it("a record leaving isGuest out beside a role the document does not list (it may be a guest's) fails an isGuest filter: no member is guessed", async () => {
    const emu = await emulator({ seed: world() });
    const user = (id: string, email: string, role: string, isGuest: boolean | null) => ({
      id,
      type: "user",
      attributes: { email, role, isGuest, status: "live" },
    });
    const body = JSON.stringify({
      data: [
        user("u-1", "emp@example.com", "workspace_login_only", null),
        user("u-6", "ext@partner.example", "workspace_external_collaborator", null),
        user("u-7", "billing@example.com", "workspace_billing_admin", false),
      ],
      links: { next: null },
      meta: {},
    });
    emu.fault({ method: "GET", path: "/users", body, times: 10 });
    await program(emu);
    // A program granting access to every non-guest would grant it to a collaborator who may be a guest: nothing is decided.
    for (const isGuest of [false, true]) {
      const error = await lookupError(getUsers({ isGuest }), "lookup_ambiguous");
      expect(error.message).toContain("ext@partner.example (u-6)");
      expect(error.message).toContain("a role the public document does not list");
      expect(error.message).toContain("Filter without isGuest");
      expect(error.candidates).toEqual([{ id: "u-6", label: "ext@partner.example" }]);
    }
    // An unlisted role whose record tells the flag, and a listed member's role beside a flag left out, still answer.
    expect((await getUsers({ isGuest: false, role: "workspace_billing_admin" })).ids).toEqual(["u-7"]);
    expect((await getUsers({ isGuest: false, role: "workspace_login_only" })).ids).toEqual(["u-1"]);
    expect((await getUsers({ role: "workspace_external_collaborator" })).ids).toEqual(["u-6"]);
  });

  it("a record leaving out both isGuest and role fails an isGuest filter saying so, not that it has a guest role", async () => {
    const emu = await emulator({ seed: world() });
    const lee = { id: "u-5", type: "user", attributes: { email: "lee@example.com", role: null, isGuest: null, status: "pending" } };
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify({ data: [lee], links: { next: null }, meta: {} }), times: 10 });
    await program(emu);
    const error = await lookupError(getUsers({ isGuest: false }), "lookup_ambiguous");
    expect(error.message).toContain("lee@example.com (u-5)");
    expect(error.message).not.toContain("have a guest role");
    expect(error.message).toContain("no role, a guest role or a role the public document does not list");
    expect(sent(emu)).toEqual(provenListing("/users", 1));
  });

  it("under the emulator's nullFields quirk (false answered as null), isGuest: false still finds the members", async () => {
    const emu = await emulator({ seed: world(), quirks: { nullFields: true } });
    await program(emu);
    const members = emu.users
      .list()
      .filter((u) => !u.isGuest)
      .map((u) => u.id)
      .sort();
    expect(members.length).toBeGreaterThan(0);
    expect((await getUsers({ isGuest: false })).ids.slice().sort()).toEqual(members);
  });

  it("matches search on the run's listing of the users (a part of the email or full name, any case); no match is an empty answer", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect((await getUsers({ search: "hopper" })).ids).toEqual([users.grace]);
    expect((await getUsers({ search: "ACE HOP" })).ids).toEqual([users.grace]);
    expect((await getUsers({ search: "@partner.EXAMPLE" })).ids).toEqual([users.katherine]);
    expect(await getUsers({ search: "nobody" })).toEqual({ users: [], ids: [] });
    // What the API's filter matches is not documented: none is sent, and every search shares the one proven listing.
    expect(emu.requests.some((r) => r.query.filter !== undefined)).toBe(false);
    expect(sent(emu)).toEqual(provenListing("/users", 1));
  });

  it("rejects a wrong argument before any request", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getUsers({ isGuest: "yes" } as never), "lookup_arguments");
    expect(error.message).toBe('getUsers: isGuest must be true or false, got "yes".');
    expect(emu.requests).toEqual([]);
  });
});

describe("getIntegration", () => {
  it("finds an integration by id, label or application", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const slack = { id: integrations.slack, application: "Slack", label: "Slack acme" };
    expect(await getIntegration({ application: "Slack" })).toMatchObject(slack);
    expect(await getIntegration({ label: "YouTube partners" })).toMatchObject({ id: YOUTUBE_2 });
    expect(await getIntegration({ id: integrations.slack })).toEqual({
      ...slack,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // One listing (and its proof) served all three.
    expect(sent(emu)).toEqual(provenListing("/integrations", 1));
  });

  it("fails listing each candidate's id and label when two integrations share the application", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getIntegration({ application: "YouTube" }), "lookup_ambiguous");
    expect(error.message).toContain("2 integrations in the workspace at");
    expect(error.message).toContain(`${integrations.youtube} (label "YouTube acme"), ${YOUTUBE_2} (label "YouTube partners")`);
    expect(error.candidates).toEqual([
      { id: integrations.youtube, label: "YouTube acme" },
      { id: YOUTUBE_2, label: "YouTube partners" },
    ]);
  });

  it("fails naming what was looked for, the workspace and what is there", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getIntegration({ application: "youtube" }), "lookup_not_found");
    expect(error.message).toBe(
      `getIntegration: no integration with application "youtube" (matched exactly; the applications there: "Slack", "YouTube") in the workspace at ${new URL(emu.url).host}.`,
    );
    const byId = await lookupError(getIntegration({ id: "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" }), "lookup_not_found");
    expect(byId.message).toContain('getIntegration: no integration with id "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" in the workspace at');
    // The fix: deleted since, or another workspace's id; the lookups that find it.
    expect(byId.message).toContain("look the integration up by its application or label (getIntegrationOutput({ application }))");
  });

  it("names at most 20 labels there, and how many more, in a workspace of many integrations; likewise the candidates", async () => {
    const emu = await emulator({ seed: world() });
    for (let i = 0; i < 120; i++)
      emu.integrations.add({ application: "Many", label: `acme ${String(i).padStart(3, "0")}`, entitlements: [] });
    await program(emu);
    const error = await lookupError(getIntegration({ label: "acme" }), "lookup_not_found");
    const first = [
      "Slack acme",
      "YouTube acme",
      "YouTube partners",
      ...Array.from({ length: 17 }, (_, i) => `acme ${String(i).padStart(3, "0")}`),
    ];
    const labels = first.map((label) => JSON.stringify(label)).join(", ");
    expect(error.message).toBe(
      `getIntegration: no integration with label "acme" (matched exactly; the labels there: ${labels} and 103 more) in the workspace at ${new URL(emu.url).host}.`,
    );
    const ambiguous = await lookupError(getIntegration({ application: "Many" }), "lookup_ambiguous");
    expect(ambiguous.message).toContain("120 integrations in the workspace at");
    expect(ambiguous.message).toMatch(/ and 100 more\. Look it up by label or id instead\.$/);
    expect(ambiguous.candidates).toHaveLength(120);
  });

  it("finds an integration past the first page", async () => {
    const emu = await emulator({ seed: world() });
    for (let i = 0; i < 120; i++) emu.integrations.add({ application: `App ${i}`, label: `acme ${i}`, entitlements: [] });
    await program(emu);
    expect(await getIntegration({ label: "acme 119" })).toMatchObject({ application: "App 119" });
    expect(sent(emu)).toEqual(provenListing("/integrations", 2));
  });

  it.each([
    [{}, "give exactly one of id, label, application; got none"],
    [{ label: "Slack acme", application: "Slack" }, "give exactly one of id, label, application; got label and application"],
    [{ application: "" }, 'application must be a non-empty string, got ""'],
  ])("rejects %j before any request", async (args, message) => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect((await lookupError(getIntegration(args as never), "lookup_arguments")).message).toBe(`getIntegration: ${message}.`);
    expect(emu.requests).toEqual([]);
  });

  it("names the scope a key lacks", async () => {
    const emu = await emulator({ seed: world(), keys: { wa_lookup_users_only_000000000000: ["read:users"] } });
    await program(emu, { apiKey: "wa_lookup_users_only_000000000000" });
    const error = await rejection(getIntegration({ application: "Slack" }));
    expect(error.message).toContain("Read integrations (read:integrations)");
  });
});

describe("getIntegrations", () => {
  it("lists integrations sorted by label, optionally of one application", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect((await getIntegrations()).integrations.map((i) => i.label)).toEqual(["Slack acme", "YouTube acme", "YouTube partners"]);
    expect(await getIntegrations({ application: "YouTube" })).toMatchObject({ ids: [integrations.youtube, YOUTUBE_2] });
    expect(await getIntegrations({ application: "Jira" })).toEqual({ integrations: [], ids: [] });
    expect(sent(emu)).toEqual(provenListing("/integrations", 1));
  });
});

describe("getIntegrationEntitlements", () => {
  it("returns the catalogue with ids, one request per integration and run", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const catalogue = await getIntegrationEntitlements({ integrationId: integrations.slack });
    expect(catalogue.ids).toEqual(["MEMBER", "ADMIN", "BILLING"]);
    expect(catalogue.entitlements[2]).toEqual({ id: "BILLING", label: "SLACK_BILLING_DESC", group: "secondary" });
    await getIntegrationEntitlements({ integrationId: integrations.slack });
    expect(sent(emu)).toEqual([`GET /integrations/${integrations.slack}/entitlements`]);
  });

  it("reads a catalogue once however its integration's id is cased: ids are one form", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const lower = await getIntegrationEntitlements({ integrationId: integrations.slack });
    const upper = await getIntegrationEntitlements({ integrationId: integrations.slack.toUpperCase() });
    expect(upper).toEqual(lower);
    expect(sent(emu)).toEqual([`GET /integrations/${integrations.slack}/entitlements`]);
  });

  it("fails naming the integration when there is none", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(
      getIntegrationEntitlements({ integrationId: "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" }),
      "lookup_not_found",
    );
    expect(error.message).toContain(
      'getIntegrationEntitlements: no integration with id "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" in the workspace at',
    );
  });

  it("an integration that answers while its catalogue answers 404 is not said to be missing", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: `/integrations/${integrations.slack}/entitlements`, status: 404, times: 10 });
    await program(emu);
    const error = await rejection(getIntegrationEntitlements({ integrationId: integrations.slack }));
    expect(error.message).not.toContain("no integration with id");
    expect(error.message).toContain(
      `The integration ${integrations.slack} itself answers: its entitlements are not disclosed to this API key`,
    );
    expect(emu.requests.some((r) => r.method === "GET" && r.path === `/integrations/${integrations.slack}`)).toBe(true);
  });

  it("fails naming the id of a catalogue record it cannot read, not only its position", async () => {
    const emu = await emulator({ seed: world() });
    const entitlement = (id: string, label: unknown) => ({ id, type: "entitlement", attributes: { group: "primary", label } });
    const body = JSON.stringify({ data: [entitlement("MEMBER", "Member"), entitlement("ADMIN", 42)], links: {}, meta: {} });
    emu.fault({ method: "GET", path: `/integrations/${integrations.slack}/entitlements`, body });
    await program(emu);
    const error = await rejection(getIntegrationEntitlements({ integrationId: integrations.slack }));
    expect(InvalidResponseError.isInstance(error), String(error)).toBe(true);
    expect(error.message).toMatch(
      /answered 200 with a record \(id ADMIN\) that does not match the API contract: field "attributes\.label"/,
    );
    expect((error as InvalidResponseError).field).toBe("data.1.attributes.label");
  });

  it("requires integrationId, before any request", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect((await lookupError(getIntegrationEntitlements({} as never), "lookup_arguments")).message).toBe(
      "getIntegrationEntitlements: integrationId is required.",
    );
    expect(emu.requests).toEqual([]);
  });
});

describe("getIntegrationMembers", () => {
  it("lists members with their entitlements, past the first page, sorted by email", async () => {
    const emu = await emulator({ seed: world(120) });
    // Made members in reverse order: the service lists them in the order they joined, not by email.
    for (const u of emu.users
      .list()
      .filter((u) => u.email.startsWith("user"))
      .reverse()) {
      emu.integrations.setMember(integrations.youtube, u.id, { entitlements: ["VIEWER"] });
    }
    const served = emu.integrations.members(integrations.youtube).map((m) => emu.users.get(m.userId)!.email);
    expect(served).not.toEqual([...served].sort());
    await program(emu);
    const { members } = await getIntegrationMembers({ integrationId: integrations.youtube });
    expect(members).toHaveLength(122);
    expect(members.map((m) => m.email)).toEqual([...served].sort());
    expect(members[0]).toEqual({
      userId: users.ada,
      email: "ada@example.com",
      role: "account_owner",
      entitlements: ["MANAGER"],
      status: "live",
    });
    // Roles in the resources' words (the service's member records say owner and collaborator).
    expect(new Set(members.map((m) => m.role))).toEqual(new Set(["account_owner", "account_collaborator"]));
    expect(sent(emu)).toEqual(provenListing(`/integrations/${integrations.youtube}/users`, 2));
  });

  it("lists a member whose record leaves the entitlements out with entitlements null (not known), never none", async () => {
    const emu = await emulator({ seed: world() });
    emu.quirks.memberEntitlements = "left-out";
    await program(emu);
    const { members } = await getIntegrationMembers({ integrationId: integrations.youtube });
    expect(members.map((m) => [m.userId, m.entitlements])).toEqual([
      [users.ada, null],
      [users.grace, null],
    ]);
    expect(emu.requests.every((r) => r.method === "GET")).toBe(true);
  });

  it("fails naming the integration when there is none", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const error = await lookupError(getIntegrationMembers({ integrationId: "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" }), "lookup_not_found");
    expect(error.message).toContain(
      'getIntegrationMembers: no integration with id "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99" in the workspace at',
    );
  });

  it("an integration that answers while its member list answers 404 is not said to be missing", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: `/integrations/${integrations.youtube}/users`, status: 404, times: 10 });
    await program(emu);
    const error = await rejection(getIntegrationMembers({ integrationId: integrations.youtube }));
    expect(error.message).not.toContain("no integration with id");
    expect(error.message).toContain(
      `The integration ${integrations.youtube} itself answers: its members are not disclosed to this API key`,
    );
    expect(emu.requests.some((r) => r.method === "GET" && r.path === `/integrations/${integrations.youtube}`)).toBe(true);
  });
});

describe("the output forms", () => {
  it("take outputs as arguments", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const slack = getIntegrationOutput({ application: pulumi.output("Slack") });
    const catalogue = getIntegrationEntitlementsOutput({ integrationId: slack.id });
    expect(await resolved(catalogue.ids)).toEqual(["MEMBER", "ADMIN", "BILLING"]);
    expect(await resolved(getUserOutput({ email: "ADA@example.com" }).id)).toBe(users.ada);
  });

  it("take no arguments where the lookup takes none: every user, every integration", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    expect(await resolved(getUsersOutput().ids)).toEqual((await getUsers()).ids);
    expect(await resolved(getIntegrationsOutput().ids)).toEqual((await getIntegrations()).ids);
    expect((await getIntegrations()).ids).toContain(YOUTUBE_2);
  });

  it("are unknown during a preview while an argument or a dependency is not known, and send nothing", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, { preview: true });
    const resource = new Thing("thing");
    expect(await known(getUserOutput({ id: resource.id }))).toBe(false);
    expect(await known(getUserOutput({ email: "ada@example.com" }, { dependsOn: [resource] }))).toBe(false);
    expect(emu.requests).toEqual([]);
    // A known argument and no dependency: a preview reads as usual.
    expect(await resolved(getUserOutput({ email: "ada@example.com" }).id)).toBe(users.ada);
  });

  it("are unknown during a preview while a resource an argument comes from is still to be created, and send nothing", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, { preview: true });
    // The new resource's email is known in a preview (its input), its id is not: Pulumi's invokeOutput waits for it.
    const carol = new Person("carol", "carol@example.com");
    const found = getUserOutput({ email: carol.email });
    expect(await known(found)).toBe(false);
    expect(await known(getUsersOutput({ search: carol.email }))).toBe(false);
    expect(emu.requests).toEqual([]);
  });

  it("given their arguments as one output, wait for its resources: unknown in a preview while one is to be created, then read afresh", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, { preview: true });
    const carol = new Person("carol", "carol@example.com");
    // The whole arguments object is an output of the new resource (known in a preview, as its input is).
    expect(await known(getUserOutput(carol.email.apply((email) => ({ email }))))).toBe(false);
    expect(await known(getUsersOutput(carol.email.apply((search) => ({ search }))))).toBe(false);
    expect(emu.requests).toEqual([]);

    // In an up, it reads afresh once the resource exists: the run's listing taken before does not answer.
    const up = await emulator({ seed: world() });
    await program(up, {
      created: (name) => void (name === "dave" && up.users.add({ email: "dave@example.com", firstName: "D", lastName: "D" })),
    });
    await getUsers();
    const dave = new Person("dave", "dave@example.com");
    expect(await outcome(getUserOutput(dave.email.apply((email) => ({ email }))).email)).toBe("dave@example.com");
  });

  it("wait, when an argument comes from a component, for every resource under it: unknown in a preview while one is to be created", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, { preview: true });
    class Team extends pulumi.ComponentResource {
      constructor(name: string) {
        super("acme:index:Team", name);
        new Person("carol", "carol@example.com", { parent: this });
        this.registerOutputs({});
      }
    }
    const team = new Team("team");
    // The argument's only resource is the component (its URN is known in a preview); its child's id is not.
    expect(await known(getUserOutput({ email: team.urn.apply(() => "carol@example.com") }))).toBe(false);
    expect(emu.requests).toEqual([]);
  });

  it("after a resource an argument comes from, read afresh: by email, a listing the run took before does not answer", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, {
      created: (name) => void (name === "dave" && emu.users.add({ email: "dave@example.com", firstName: "D", lastName: "D" })),
    });
    await getUsers();
    emu.clearRequests();
    const dave = new Person("dave", "dave@example.com");
    expect(await outcome(getUserOutput({ email: dave.email }).email)).toBe("dave@example.com");
    expect(sent(emu)).toEqual(["GET /users"]);
  });

  it("after a resource an argument comes from, read afresh: by id, not the record the run listed before it changed", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, {
      created: (name) => void (name === "promote" && emu.users.update(users.alan, { role: "workspace_admin" })),
    });
    // A lookup by email: the run's listing of the users (taken before the change) holds Alan.
    expect((await getUser({ email: "alan@example.com" })).role).not.toBe("workspace_admin");
    emu.clearRequests();
    const promote = new Person("promote", "x@example.com");
    expect(await outcome(getUserOutput({ id: promote.id.apply(() => users.alan) }).role)).toBe("workspace_admin");
    expect(sent(emu)).toEqual([`GET /users/${users.alan}`]);
  });

  it("after dependsOn, read afresh: a listing the run took before does not answer", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, {
      created: (name) => void (name === "carol" && emu.users.add({ email: "carol@example.com", firstName: "C", lastName: "C" })),
    });
    expect((await getUser({ email: "ada@example.com" })).id).toBe(users.ada);
    const carol = new Thing("carol");
    expect(await resolved(getUserOutput({ email: "carol@example.com" }, { dependsOn: [carol] }).email)).toBe("carol@example.com");
  });

  it("wait, after dependsOn a component, for every resource under it", async () => {
    const emu = await emulator({ seed: world() });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The component's child is created only once the gate opens: after the component itself is registered.
    await program(emu, {
      created: async (name) => {
        if (name !== "carol") return;
        await gate;
        emu.users.add({ email: "carol@example.com", firstName: "C", lastName: "C" });
      },
    });
    class Team extends pulumi.ComponentResource {
      constructor(name: string) {
        super("acme:index:Team", name);
        new Thing("carol", { parent: this });
        this.registerOutputs({});
      }
    }
    const team = new Team("team");
    const found = resolved(getUserOutput({ email: "carol@example.com" }, { dependsOn: [team] }).email);
    await resolved(team.urn);
    // A lookup that waited for the component alone lists now: given the loop's turns to be answered, it misses carol.
    for (let turn = 0; turn < 1000 && !emu.requests.some((r) => r.path === "/users"); turn++) await new Promise(setImmediate);
    expect(emu.requests).toEqual([]);
    release();
    expect(await found).toBe("carol@example.com");
  });

  it("after the same resources, share one listing: 20 lookups in 1,000 users cost one paged listing", async () => {
    const emu = await emulator({ seed: world(996) });
    await program(emu);
    await getUser({ email: "ada@example.com" });
    emu.clearRequests();
    const team = new Thing("team");
    const emails = Array.from({ length: 20 }, (_, i) => `user${String(i * 40).padStart(3, "0")}@example.com`);
    // Ten wait by dependsOn, ten by an argument that comes from the same resource: the same set, one fresh listing.
    const found = emails.map((email, i) =>
      i % 2 ? getUserOutput({ email }, { dependsOn: [team] }).email : getUserOutput({ email: team.urn.apply(() => email) }).email,
    );
    expect(await Promise.all(found.map(outcome))).toEqual(emails);
    expect(emu.users.list()).toHaveLength(1000);
    expect(sent(emu)).toEqual(Array.from({ length: 10 }, (_, i) => `GET /users${i > 0 ? ` p${i + 1}` : ""}`));
  });

  it("after other resources, read afresh again: each set of resources waited for has its listing", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, {
      created: (name) => void (name === "dave" && emu.users.add({ email: "dave@example.com", firstName: "D", lastName: "D" })),
    });
    const team = new Thing("team");
    expect(await outcome(getUserOutput({ email: "ada@example.com" }, { dependsOn: [team] }).id)).toBe(users.ada);
    const dave = new Thing("dave");
    expect(await outcome(getUserOutput({ email: "dave@example.com" }, { dependsOn: [team, dave] }).email)).toBe("dave@example.com");
    expect(sent(emu)).toEqual(["GET /users", "GET /users"]);
  });

  it("keep a secret argument out of their failures: its value, in any case, is [secret], the others stay named", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const found = getUserOutput({ email: pulumi.secret("ada@example.com") });
    expect(await pulumi.isSecret(found)).toBe(true);
    expect(await resolved(found.id)).toBe(users.ada);

    const miss = await failureOf(getUserOutput({ email: pulumi.secret("Hidden.Person@example.com") }));
    expect(miss.message).toMatch(/^getUser: no user with email "\[secret\]" \(\d+ users/);
    expect(`${miss.message} ${miss.stack}`.toLowerCase()).not.toContain("hidden.person");

    // Ambiguous: the candidates' emails are the secret in other cases, in the message and in `candidates`.
    const twin = (id: string, email: string) => ({ id, type: "user", attributes: { email, firstName: "T", lastName: "W" } });
    const body = { data: [twin("u-1", "Twin@Example.com"), twin("u-2", "twin@example.com")], links: { next: null }, meta: {} };
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify(body), times: 2 });
    const twins = await failureOf(getUserOutput({ email: pulumi.secret("TWIN@example.com") }, { dependsOn: [new Thing("t")] }));
    expect(LookupError.isInstance(twins) && twins.kind).toBe("lookup_ambiguous");
    const { message, stack, candidates } = twins as LookupError;
    expect(`${message} ${stack} ${JSON.stringify(candidates)}`.toLowerCase()).not.toContain("twin@");
    expect(message).toContain("u-1 ([secret]), u-2 ([secret])");
    expect(candidates.map((c) => c.label)).toEqual(["[secret]", "[secret]"]);

    // A whole arguments object that is a secret hides each of its values; a label not looked for is still named.
    const label = await failureOf(getIntegrationOutput(pulumi.secret({ label: "Hidden Partners" })));
    expect(label.message).toMatch(/^getIntegration: no integration with label "\[secret\]" .*"YouTube partners"/);
    expect(label.message).not.toContain("Hidden Partners");
    // A plain argument is named as before.
    expect((await failureOf(getUserOutput({ email: "nobody@example.com" }))).message).toContain('"nobody@example.com"');
  });

  it("wait for dependsOn and then run", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    const resource = new Thing("thing");
    expect(await resolved(getUserOutput({ email: "ada@example.com" }, { dependsOn: resource }).email)).toBe("ada@example.com");
  });
});

describe("records a listing cannot read", () => {
  /** A page of user records; `extra` puts a wrong-typed field in one. */
  const userRecord = (id: string, email: string | null, extra: object = {}) => ({
    id,
    type: "user",
    attributes: { email, firstName: "A", lastName: "B", role: "workspace_login_only", isGuest: true, status: "live", ...extra },
  });
  const page = (data: object[]) => JSON.stringify({ data, links: { next: null }, meta: {} });
  /** Ann and Cy readable; Bob's `lastName` a number where the contract has text. */
  const usersWithBob = page([
    userRecord("u-1", "ann@example.com"),
    userRecord("u-2", "bob@example.com", { lastName: 42 }),
    userRecord("u-3", "cy@example.com"),
  ]);

  async function invalid(promise: Promise<unknown>): Promise<InvalidResponseError> {
    const error = await rejection(promise);
    expect(InvalidResponseError.isInstance(error), String(error)).toBe(true);
    return error as InvalidResponseError;
  }

  it("fail getUsers, naming the record and the field: the list is not complete without it", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/users", body: usersWithBob, times: 10 });
    await program(emu);
    const error = await invalid(getUsers({ isGuest: true }));
    expect(error.kind).toBe("invalid_response");
    expect(error.field).toBe("attributes.lastName");
    expect(error.message).toMatch(/^getUsers\(\{ isGuest: true \}\): 1 of the users of the workspace at /);
    expect(error.message).toContain("(ids u-2;");
    expect(error.message).toContain('Fix the field "attributes.lastName" of that record in the service.');
    // Decided on the proven listing: both listings were read.
    expect(sent(emu)).toEqual(provenListing("/users", 1));
  });

  it("fail getUsers naming each unreadable record's own field, not the first one's for all", async () => {
    const emu = await emulator({ seed: world() });
    const body = page([
      userRecord("u-1", "ann@example.com"),
      userRecord("u-2", "bob@example.com", { lastName: 42 }),
      userRecord("u-4", "dee@example.com", { isGuest: "no" }),
    ]);
    emu.fault({ method: "GET", path: "/users", body, times: 10 });
    await program(emu);
    const error = await invalid(getUsers());
    expect(error.message).toMatch(/^getUsers\(\): 2 of the users of the workspace at /);
    expect(error.message).toContain("(ids u-2 (attributes.lastName), u-4 (attributes.isGuest);");
    expect(error.message).toContain('Fix the fields "attributes.isGuest", "attributes.lastName" of those records in the service.');
    expect(sent(emu)).toEqual(provenListing("/users", 1));
  });

  it("fail a getUser by email that no readable record matches, and answer one that a readable record does", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/users", body: usersWithBob, times: 10 });
    await program(emu);
    expect((await getUser({ email: "cy@example.com" })).id).toBe("u-3");
    const error = await invalid(getUser({ email: "bob@example.com" }));
    // Led by the call and its argument: a program making many lookups tells which failed.
    expect(error.message).toMatch(/^getUser\(\{ email: "bob@example\.com" \}\): 1 of the users of the workspace at /);
    expect(error.message).toContain("(ids u-2;");
    expect(error.message).toContain('Fix the field "attributes.lastName" of that record in the service.');
    expect(LookupError.isInstance(error)).toBe(false);
  });

  // A field the record holds none of (null, left out, blank) reads as a record that keeps the contract reads it: no email, no
  // label. The record cannot be the one a lookup by that field looks for, so it does not stop the lookup (found by a review).
  it("answer a lookup by email or label past an unreadable record that holds none of that field", async () => {
    const emu = await emulator({ seed: world() });
    const noEmail = page([
      userRecord("u-1", "ann@example.com"),
      userRecord("u-2", null, { createdAt: 42 }),
      { id: "u-3", type: "user", attributes: { firstName: "C", lastName: "D", createdAt: 42 } },
      { id: 9, type: "user", attributes: null },
    ]);
    emu.fault({ method: "GET", path: "/users", body: noEmail, times: 10 });
    const integration = (id: string, application: string, label: unknown, extra: object = {}) => ({
      id,
      type: "integration",
      attributes: { application, label, ...extra },
    });
    const noLabel = page([integration("i-1", "Slack", "Slack acme"), integration("i-2", "Jira", null, { createdAt: 42 })]);
    emu.fault({ method: "GET", path: "/integrations", body: noLabel, times: 10 });
    await program(emu);
    expect((await getIntegration({ label: "Slack acme" })).id).toBe("i-1");
    // A plain miss, not "it may be the one": neither unreadable record has an email.
    await lookupError(getUser({ email: "dan@example.com" }), "lookup_not_found");
  });

  it("still wait on an unreadable record whose email is not text: it may be the one looked for", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({
      method: "GET",
      path: "/users",
      body: page([userRecord("u-1", "ann@example.com"), userRecord("u-2", 42 as never), { id: "u-3", type: "user", attributes: "?" }]),
      times: 10,
    });
    await program(emu);
    const error = await invalid(getUser({ email: "dan@example.com" }));
    // And one whose attributes are not an object: nothing of it can be told.
    expect(error.message).toContain("(ids u-2 (attributes.email), u-3 (attributes);");
  });

  it("offer no lookup by id instead: it reads the same record and fails on the same field, naming the lookup and its argument", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/users", body: usersWithBob, times: 10 });
    const bob = JSON.stringify({ data: userRecord("u-2", "bob@example.com", { lastName: 42 }), links: {}, meta: {} });
    emu.fault({ method: "GET", path: "/users/u-2", body: bob, times: 10 });
    await program(emu);
    const byEmail = await invalid(getUser({ email: "bob@example.com" }));
    expect(byEmail.message).not.toContain("by id");
    const byId = await invalid(getUser({ id: "u-2" }));
    expect(byId.field).toBe(`data.${byEmail.field}`);
    expect(byId.message).toMatch(/^getUser\(\{ id: "u-2" \}\): GET \S+\/users\/u-2 answered 200 with a body that does not match/);
  });

  it("listings that never agree fail the lookup naming it and its arguments", async () => {
    const emu = await emulator({ seed: world(120) });
    await program(emu);
    // A user added before every second page: each listing holds one more than the one before, so no two agree.
    let added = 0;
    emu.onPage(() => void emu.users.add({ email: `late${++added}@example.com`, firstName: "L", lastName: "Ate" }));
    const error = await rejection(getUsers({ isGuest: true }));
    expect(error.message).toMatch(
      /^getUsers\(\{ isGuest: true \}\): could not read the users of the workspace at \S+ completely: 3 listings/,
    );
    expect(sent(emu)).toHaveLength(6);
  });

  it("do not fail a getUser by another email: a record whose email is readable is not the user looked for unless it is that email", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: "/users", body: usersWithBob, times: 10 });
    await program(emu);
    // Bob's record is unreadable, but its email says it is Bob's: Dan is proven absent, a miss like any other.
    const miss = await lookupError(getUser({ email: "dan@example.com" }), "lookup_not_found");
    expect(miss.message).toContain('no user with email "dan@example.com"');
    expect(sent(emu)).toEqual(provenListing("/users", 1));
    // A record whose email cannot be read may be anyone's: the miss is still not decided.
    const other = await emulator({ seed: world() });
    const noEmail = page([userRecord("u-1", "ann@example.com"), { id: "u-5", type: "user", attributes: { email: 5 } }]);
    other.fault({ method: "GET", path: "/users", body: noEmail, times: 10 });
    await program(other);
    const error = await invalid(getUser({ email: "dan@example.com" }));
    expect(error.message).toContain("(ids u-5;");
  });

  it("fail getIntegrationMembers, naming the member and the field", async () => {
    const emu = await emulator({ seed: world() });
    const member = (id: string, email: string, extra: object = {}) => ({
      id,
      type: "user",
      attributes: { email, role: "collaborator", status: "live", entitlements: [{ id: "VIEWER" }], ...extra },
    });
    const path = `/integrations/${integrations.youtube}/users`;
    const body = page([member("m-1", "a@example.com"), member("m-2", "b@example.com", { isGuest: "no" }), member("m-3", "c@example.com")]);
    emu.fault({ method: "GET", path, body, times: 10 });
    await program(emu);
    const error = await invalid(getIntegrationMembers({ integrationId: integrations.youtube }));
    expect(error.field).toBe("attributes.isGuest");
    expect(error.message).toContain(
      `getIntegrationMembers({ integrationId: "${integrations.youtube}" }): 1 of the members of integration ${integrations.youtube} of the workspace at`,
    );
    expect(error.message).toContain("(ids m-2;");
  });

  it("fail getIntegrations and getIntegration by label, but not by id (read directly)", async () => {
    const emu = await emulator({ seed: world() });
    const integration = (id: string, label: unknown) => ({ id, type: "integration", attributes: { application: "Slack", label } });
    const body = page([integration("i-1", "Slack acme"), integration("i-2", 42)]);
    emu.fault({ method: "GET", path: "/integrations", body, times: 10 });
    await program(emu);
    const all = await invalid(getIntegrations());
    expect(all.message).toMatch(/^getIntegrations\(\): 1 of the integrations of the workspace at /);
    expect(all.message).toContain("(ids i-2;");
    expect(all.field).toBe("attributes.label");
    const byLabel = await invalid(getIntegration({ label: "Slack acme" }));
    expect(byLabel.message).toMatch(/^getIntegration\(\{ label: "Slack acme" \}\): 1 of the integrations /);
    expect(byLabel.message).toContain('Fix the field "attributes.label" of that record in the service.');
    expect(byLabel.message).not.toContain("by id");
    expect((await getIntegration({ id: integrations.slack })).id).toBe(integrations.slack);
    // By application: the record could be a second Slack.
    await invalid(getIntegration({ application: "Slack" }));
    // By id, a record the listing could not read is read directly (here the service has none: a 404).
    emu.clearRequests();
    await lookupError(getIntegration({ id: "i-2" }), "lookup_not_found");
    expect(sent(emu)).toEqual(["GET /integrations/i-2"]);
  });
});

describe("an integration record a listing cannot read, whose label and application it can", () => {
  it("does not fail getIntegration by another label or application, nor getIntegrations of another application: it is not one looked for", async () => {
    const emu = await emulator({ seed: world() });
    const integration = (id: string, attributes: object) => ({ id, type: "integration", attributes });
    // i-2's createdAt is a number: the record cannot be read, but its label and application can.
    const body = JSON.stringify({
      data: [
        integration("i-1", { application: "Slack", label: "Slack acme" }),
        integration("i-2", { application: "Jira", label: "Jira ops", createdAt: 42 }),
      ],
      links: { next: null },
      meta: {},
    });
    emu.fault({ method: "GET", path: "/integrations", body, times: 20 });
    await program(emu);
    expect((await getIntegration({ label: "Slack acme" })).id).toBe("i-1");
    expect((await getIntegration({ application: "Slack" })).id).toBe("i-1");
    await lookupError(getIntegration({ application: "YouTube" }), "lookup_not_found");
    // By its own label or application, it may be the one: nothing is decided.
    for (const args of [{ label: "Jira ops" }, { application: "Jira" }] as const) {
      const error = await rejection(getIntegration(args));
      expect(InvalidResponseError.isInstance(error) && error.message).toContain("(ids i-2;");
    }
    // The whole list is not complete without it; the list of another application is.
    expect(InvalidResponseError.isInstance(await rejection(getIntegrations()))).toBe(true);
    expect((await getIntegrations({ application: "Slack" })).ids).toEqual(["i-1"]);
    const jira = await rejection(getIntegrations({ application: "Jira" }));
    expect(InvalidResponseError.isInstance(jira) && jira.message).toContain("(ids i-2;");
  });
});

describe("the stack config", () => {
  // As getJob and the resources' check: a misspelt key fails with the key meant, before any request.
  it.each([
    ["instead of apiKey (which is then missing)", false],
    ["next to a correct apiKey (the requests would succeed)", true],
  ])("refuses workspace-access:apikey %s, naming workspace-access:apiKey, with zero requests", async (_, withApiKey) => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    pulumi.runtime.setAllConfig(
      {
        "workspace-access:baseUrl": emu.url,
        "workspace-access:apikey": emu.apiKey,
        ...(withApiKey ? { "workspace-access:apiKey": emu.apiKey } : {}),
      },
      ["workspace-access:apikey", "workspace-access:apiKey"],
    );
    for (const lookup of [
      () => getUser({ email: "ada@example.com" }),
      () => getIntegration({ application: "Slack" }),
      () => getIntegrations(),
    ]) {
      const error = await rejection(lookup());
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toContain("Unknown setting `workspace-access:apikey`");
      expect(error.message).toContain("did you mean `workspace-access:apiKey`?");
    }
    expect(emu.requests).toEqual([]);
  });
});

describe("the environment beside a stack config naming part of the address", () => {
  // The environment's address is not read then (no key crosses workspaces): the fix named must not be to set it.
  it("fails naming the stack key to set, not the environment variable it ignores, with zero requests", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    pulumi.runtime.setAllConfig({ "workspace-access:workspace": "acme", "workspace-access:apiKey": emu.apiKey }, [
      "workspace-access:apiKey",
    ]);
    vi.stubEnv("WORKSPACE_ACCESS_BASE_URL", emu.url);
    try {
      const error = await rejection(getUsers());
      expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
      expect(error.message).toContain(
        "No workspace configured (workspace-access:host missing). Run: pulumi config set workspace-access:workspace",
      );
      expect(error.message).not.toContain("or set WORKSPACE_ACCESS_BASE_URL");
      expect(error.message).toContain(
        "the environment's WORKSPACE_ACCESS_BASE_URL, WORKSPACE_ACCESS_WORKSPACE and WORKSPACE_ACCESS_HOST are not read",
      );
      expect(error.message).not.toContain(emu.apiKey);
    } finally {
      vi.unstubAllEnvs();
    }
    expect(emu.requests).toEqual([]);
  });
});

describe("a blank stack apiKey", () => {
  // Blank counts as unset, as empty does: the environment's key and address (its own pair) are read, not refused for it.
  it("is unset: the environment's key and address answer, not an error telling to set the variable already set", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    pulumi.runtime.setAllConfig({ "workspace-access:apiKey": "  " }, ["workspace-access:apiKey"]);
    vi.stubEnv("WORKSPACE_ACCESS_BASE_URL", emu.url);
    vi.stubEnv("WORKSPACE_ACCESS_API_KEY", emu.apiKey);
    try {
      expect((await getUser({ id: users.grace })).email).toBe("grace@example.com");
    } finally {
      vi.unstubAllEnvs();
    }
    expect(sent(emu)).toEqual([`GET /users/${users.grace}`]);
    expect(emu.requests.map((r) => [r.hasApiKey, r.status])).toEqual([[true, 200]]);
  });
});

describe("a refused key", () => {
  // The hint names where the key in force came from: a stack's key is not fixed by setting the variable, nor the reverse.
  it("names the stack config as the key's source when the key came from there, not the environment variable", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu, { apiKey: "wa_lookup_not_issued_000000000000" });
    vi.stubEnv("WORKSPACE_ACCESS_API_KEY", emu.apiKey);
    try {
      const error = await rejection(getUser({ id: users.grace }));
      expect(error.message).toContain(
        "in the workspace's API settings. The key comes from workspace-access:apiKey (pulumi config set --secret workspace-access:apiKey <key>).",
      );
      expect(error.message).not.toContain("WORKSPACE_ACCESS_API_KEY");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("names the environment variable as the key's source when the stack config sets none", async () => {
    const emu = await emulator({ seed: world() });
    await program(emu);
    pulumi.runtime.setAllConfig({}, []);
    vi.stubEnv("WORKSPACE_ACCESS_BASE_URL", emu.url);
    vi.stubEnv("WORKSPACE_ACCESS_API_KEY", "wa_lookup_not_issued_000000000000");
    try {
      const error = await rejection(getUser({ id: users.grace }));
      expect(error.message).toContain("The key comes from the environment variable WORKSPACE_ACCESS_API_KEY");
      expect(error.message).not.toContain("pulumi config set --secret workspace-access:apiKey");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  // Lookups that arrive together share one listing, so one refused answer (output forms after the same resources too):
  // each says where the key comes from, once.
  it("is hinted once in each error of lookups that shared its answer", async () => {
    const key = "wa_lookup_integrations_only_0000";
    const emu = await emulator({ seed: world(), keys: { [key]: ["read:integrations"] } });
    await program(emu, { apiKey: key });
    const hints = (message: string) => message.split("The key comes from").length - 1;
    const plain = await Promise.all([getUsers(), getUsers({ role: "workspace_owner" }), getUsers({ status: "live" })].map(rejection));
    expect(plain.map((e) => hints(e.message))).toEqual([1, 1, 1]);
    expect(plain.map((e) => e.message.slice(0, e.message.indexOf(": GET ")))).toEqual([
      "getUsers()",
      'getUsers({ role: "workspace_owner" })',
      'getUsers({ status: "live" })',
    ]);
  });
});

describe("getIntegrationMembers twice at once, its member list answering 404 while the integration answers", () => {
  it("each says once that the members are not disclosed", async () => {
    const emu = await emulator({ seed: world() });
    emu.fault({ method: "GET", path: `/integrations/${integrations.youtube}/users`, status: 404, times: 10 });
    await program(emu);
    const errors = await Promise.all([
      rejection(getIntegrationMembers({ integrationId: integrations.youtube })),
      rejection(getIntegrationMembers({ integrationId: integrations.youtube })),
    ]);
    for (const error of errors) expect(error.message.split("itself answers: its members are not disclosed").length).toBe(2);
  });
});

describe("a key without read:integrations, a service answering 404 (not disclosed) for a missing scope", () => {
  const key = `wa_sees_no_apps_${"3".repeat(16)}`;
  const hidden = () =>
    emulator({
      seed: world(),
      keys: { [key]: ["read:users", "write:users", "write:integrations", "read:automations", "write:automations"] },
      missingScopeStatus: 404,
    });

  it.each([
    ["getIntegration by id", () => getIntegration({ id: integrations.youtube })],
    ["getIntegrationMembers", () => getIntegrationMembers({ integrationId: integrations.youtube })],
  ])("%s fails naming the key's scope, never 'no integration with id'", async (_what, lookup) => {
    const emu = await hidden();
    await program(emu, { apiKey: key });
    const error = await rejection(lookup());
    expect(LookupError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).not.toContain("no integration with id");
    expect(error.message).toContain("the service does not disclose integrations to this key");
    expect(error.message).toContain("Give the key in workspace-access:apiKey the scope Read integrations (read:integrations)");
  });

  it("an integration that is not there, to a key shown integrations: 'no integration with id', proven by one listing of one record", async () => {
    const emu = await emulator({ seed: world(), missingScopeStatus: 404 });
    await program(emu);
    const gone = "3c9e7a10-0000-4d4e-9f0a-1b2c3d4e5a99";
    const error = await lookupError(getIntegration({ id: gone }), "lookup_not_found");
    expect(error.message).toContain(`getIntegration: no integration with id "${gone}"`);
    expect(sent(emu)).toEqual([`GET /integrations/${gone}`, "GET /integrations (1)"]);
  });
});
