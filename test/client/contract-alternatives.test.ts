/**
 * The client under the other plausible answers of what the public document does not show, each played by
 * an emulator switch (docs/contract.md lists the assumptions): a job not yet done that reads `created`,
 * `started` or `retrying` rather than `running` (`jobProgress: "varied"`), an integration user's
 * entitlements answered as plain ids (`memberEntitlements: "ids"`), emails answered in lower case
 * (`lowerCaseEmails`), `GET /users?filter=` matching otherwise (`userFilter`), a query parameter an operation does not
 * take refused rather than ignored (`unknownQuery: "refuse"`), and a job store that lags its writes (`job.readableAfterMs`).
 */
import { describe, expect, it } from "vitest";
import { collect } from "../../src/client";
import { JOB_READABLE_GRACE_MS } from "../../src/client/jobs";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace, ada } = DEFAULT_IDS.users;

describe("a job that reads created, started, running and retrying before it ends (jobProgress: varied)", () => {
  it("is waited for through every state not done, and its change seen only once it is finished", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 6 }, quirks: { jobProgress: "varied" } });
    const { client } = clientFor(emu);
    const job = await client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] });
    const done = await job.wait();
    expect(done?.status).toBe("finished");
    expect(emu.requests.filter((r) => r.path.startsWith("/jobs/")).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === alan)?.entitlements).toEqual(["VIEWER"]);
  });
});

describe("a job store that lags its writes: a job answers 404 until 300 ms after its write (job.readableAfterMs)", () => {
  const lagging = { finishAfterPolls: 2, readableAfterMs: 300 };
  /** The statuses of the job reads the emulator received. */
  const jobReads = (emu: Awaited<ReturnType<typeof emulator>>) =>
    emu.requests.filter((r) => r.path.startsWith("/jobs/")).map((r) => r.status);

  it("a write's job is read again through its 404s on the usual schedule, then waited for as usual", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: lagging });
    const { client, clock } = clientFor(emu, { jobPollIntervalMs: 250 });
    const job = await client.integrations.setEntitlements(youtube, grace, ["VIEWER"]);
    const start = clock.now();
    expect((await job.wait())?.status).toBe("finished");
    // Reads at 5 and 10 ms (404), 450 (running) and 1,050 (finished): the schedule of any wait, no read more.
    expect(clock.sleeps).toEqual([5, 5, 440, 600]);
    expect(clock.now() - start).toBe(1_050);
    expect(jobReads(emu)).toEqual([404, 404, 200, 200]);
    expect(emu.integrations.members(youtube).find((m) => m.userId === grace)?.entitlements).toEqual(["VIEWER"]);
  });

  it("a user write answered with a job (userWritesAsJobs) too, and the next write's job after a job read answered this key", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: lagging, userWritesAsJobs: true });
    const { client } = clientFor(emu, { jobPollIntervalMs: 250 });
    const attributes = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", isGuest: false };
    expect(await client.users.replace(alan, { ...attributes, lastName: "Mathison" })).toMatchObject({ lastName: "Mathison" });
    expect(jobReads(emu)).toEqual([404, 404, 200, 200]);
    emu.clearRequests();
    // A job read answered this key: the next job's 404 is still read again, not taken for the job gone.
    expect(await client.users.replace(alan, attributes)).toMatchObject({ lastName: "Turing" });
    expect(jobReads(emu)).toEqual([404, 200, 200]);
  });

  it("a key lacking Read automated jobs, answered 404 (missingScopeStatus: 404), still fails naming the scope, at the grace's end", async () => {
    const noJobReads = `wa_no_job_reads_${"7".repeat(16)}`;
    issuedKeys.add(noJobReads);
    const keys = { [noJobReads]: ALL_SCOPES.filter((scope) => scope !== "read:automations") };
    const emu = await emulator({ seed: defaultSeed(), job: lagging, keys, missingScopeStatus: 404 });
    const { client, clock } = clientFor(emu, { apiKey: noJobReads, jobPollIntervalMs: 250 });
    const job = await client.integrations.setEntitlements(youtube, grace, ["VIEWER"]);
    const start = clock.now();
    const error = await rejection(job.wait());
    expect(clock.now() - start).toBe(JOB_READABLE_GRACE_MS);
    expect(error).toMatchObject({ kind: "configuration", setting: "apiKey" });
    expect(error.message).toContain(`GET /api/v1/jobs/${job.id} kept answering 404 for 5 s (7 reads) after PATCH`);
    expect(error.message).toContain("the scope Read automated jobs (read:automations)");
    expect(error.message).toContain("The write was accepted: its job may still finish.");
    expect(jobReads(emu)).toEqual([404, 404, 404, 404, 404, 404, 404]);
  });
});

describe("an integration user's entitlements answered as plain ids (memberEntitlements: ids)", () => {
  it("reads them as with records, in the list and the direct read", async () => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { memberEntitlements: "ids" } });
    const { client } = clientFor(emu);
    expect(await client.integrations.getUser(youtube, grace)).toMatchObject({ entitlements: ["EDITOR"], role: "collaborator" });
    const members = await collect(client.integrations.listUsers(youtube, { pageSize: 1 }));
    const byId = Object.fromEntries(members.map((m) => [m.id, m.entitlements]));
    expect(byId).toEqual(
      Object.fromEntries(emu.integrations.members(youtube).map((m) => [m.userId, m.entitlements])) as Record<string, string[]>,
    );
  });
});

describe("emails answered in lower case (lowerCaseEmails)", () => {
  it("finds a user by an email written in another case", async () => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { lowerCaseEmails: true } });
    emu.users.update(ada, { email: "Ada.Lovelace@Example.COM" });
    const { client } = clientFor(emu);
    expect((await client.users.findByEmail("ADA.lovelace@example.com"))?.id).toBe(ada);
    expect((await client.users.get(ada))?.email).toBe("ada.lovelace@example.com");
  });
});

describe("GET /users?filter= matching otherwise (userFilter)", () => {
  it.each(["contains", "exact", "case-sensitive"] as const)("%s: finds a user by the email as the service has it", async (userFilter) => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { userFilter } });
    const { client } = clientFor(emu);
    expect((await client.users.findByEmail("ada@example.com"))?.id).toBe(ada);
    expect(await client.users.findByEmail("ada@example")).toBeUndefined();
  });

  it.each(["contains", "exact"] as const)("%s: finds a user by the email written in another case", async (userFilter) => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { userFilter } });
    const { client } = clientFor(emu);
    expect((await client.users.findByEmail("ADA@Example.com"))?.id).toBe(ada);
  });

  // The search alone cannot find them: it filters with the email as declared. A `User`'s create then meets a 409 and reads
  // the workspace's listing (test/host/contract-alternatives.test.ts "User, a search that matches only in the case written").
  it("case-sensitive: a search by the email written in another case finds nobody", async () => {
    const emu = await emulator({ seed: defaultSeed(), quirks: { userFilter: "case-sensitive" } });
    const { client } = clientFor(emu);
    expect(await client.users.findByEmail("ADA@Example.com")).toBeUndefined();
  });
});

describe("a create read back by email where the search matches only in the case written and emails are folded", () => {
  // The service keeps the email in lower case and its search compares the text as written: the search misses the new user.
  const quirks = { userFilter: "case-sensitive", lowerCaseEmails: true } as const;
  const attributes = { email: "Alice.Doe@example.com", firstName: "Alice", lastName: "Doe", role: "workspace_login_only", isGuest: false };

  it.each([
    ["answered with a job", { userWritesAsJobs: true }],
    ["answered without a body", { userWriteAnswer: "no-content" }],
  ] as const)("%s: the user the create made is found in the listing, not said to be missing", async (_, answer) => {
    const emu = await emulator({ ...answer, quirks });
    const { client } = clientFor(emu);
    const user = await client.users.create(attributes);
    expect(user.id).toBe(emu.users.list()[0]!.id);
    expect(emu.users.list()).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method === "POST").length).toBe(1);
  });
});

describe("a query parameter an operation does not take refused, 400, rather than ignored (unknownQuery: refuse)", () => {
  it("every operation of the client sends only those the contract names, and each is answered", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { unknownQuery: "refuse" } });
    const { client } = clientFor(emu);
    await collect(client.users.list({ filter: "example", mfaStatus: true, pageSize: 2 }));
    await client.users.get(ada, { mfaStatus: true });
    await client.users.findByEmail("ada@example.com");
    await client.users.findExisting("nobody@example.com");
    const attributes = { email: "joan@example.com", firstName: "Joan", lastName: "Clarke", role: "workspace_login_only", isGuest: false };
    const joan = await client.users.create(attributes);
    await client.users.replace(joan.id, { ...attributes, lastName: "Murray" });
    await collect(client.integrations.list({ pageSize: 1 }));
    await client.integrations.get(youtube);
    await client.integrations.presence(youtube);
    await client.integrations.listEntitlements(youtube);
    await collect(client.integrations.listUsers(youtube, { pageSize: 1 }));
    await (await client.integrations.invite(youtube, { userIds: [joan.id], entitlements: ["VIEWER"] })).wait();
    await client.integrations.getUser(youtube, joan.id);
    await (await client.integrations.setEntitlements(youtube, joan.id, ["EDITOR"])).wait();
    await (await client.integrations.changeEntitlements(youtube, joan.id, { add: ["VIEWER"], remove: ["EDITOR"] })).wait();
    await (await client.integrations.removeUser(youtube, joan.id)).wait();
    await client.users.delete(joan.id);
    expect(emu.requests.filter((r) => r.status >= 400).map((r) => `${r.method} ${r.rawPath} ${r.status}`)).toEqual([]);
    const sent = new Set(emu.requests.flatMap((r) => Object.keys(r.query).map((name) => `${r.method} ${r.path.split("/")[1]} ${name}`)));
    // The lists were read past their first page (page[number] from the links), and every parameter was one the contract names.
    expect([...sent].sort()).toEqual(
      expect.arrayContaining(["GET users page[number]", "GET users page[size]", "GET users filter", "GET users mfaStatus"]),
    );
    expect(emu.requests.filter((r) => r.path.startsWith("/integrations/") && "page[number]" in r.query).length).toBeGreaterThan(0);
  });
});

describe("a create read back by email whose listing is skipped by a page shift (the search misses the email as written)", () => {
  it("findExisting does not answer nobody on one listing that skipped the user: the miss is decided on a proven listing", async () => {
    const emu = await emulator({ quirks: { userFilter: "case-sensitive", lowerCaseEmails: true } });
    for (let i = 0; i < 101; i++) emu.users.add({ email: `user${i}@example.com`, firstName: "User", lastName: String(i) });
    const first = emu.users.list()[0]!;
    const skipped = emu.users.list()[100]!;
    const { client } = clientFor(emu);
    // Someone removes a user of page 1 while page 2 of the whole listing is read: the user moved onto page 1 is skipped.
    const off = emu.onPage((list) => {
      if (list.path === "/users" && list.page === 2) {
        emu.users.remove(first.id);
        off();
      }
    });
    expect((await client.users.findExisting(skipped.email!.toUpperCase()))?.id).toBe(skipped.id);
    // The whole list was read again at another page size, which found the user.
    const sizes = emu.requests.filter((r) => r.path === "/users" && !("filter" in r.query)).map((r) => r.query["page[size]"]);
    expect(sizes).toContain("99");
  });
});
