/**
 * The lookups and `getJob` under the other plausible answers of what the public document does not show, each played by an
 * emulator switch (`EmulatorQuirks`): each lookup of the default world answers the same as under the defaults, but for what
 * the switch itself changes in the service's records, which a lookup passes on as the service told it: emails in the case
 * answered (`lowerCaseEmails`: emails compare case-insensitively), and fields the service leaves untold (`nullFields`,
 * `absentFields`: `null`, and a user whose status is untold matches no `status`). Ids answered in upper case change nothing
 * (ids have one form). Lookups by email in another case than the workspace's, and `getUsers` with `search`, answer the same
 * whatever the service's `filter` matches (`userFilter`); a job read before it ends shows its state as the service answers it
 * (`jobProgress`), and waiting for it ends as under the defaults.
 */
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import {
  getIntegration,
  getIntegrationEntitlements,
  getIntegrationMembers,
  getIntegrations,
  getUser,
  getUsers,
  type GetJobArgs,
  LookupError,
} from "../../src";
import { DEFAULT_IDS, defaultSeed, type Emulator, type EmulatorQuirks, type EmulatorSeed } from "../../src/emulator";
import { readJob } from "../../src/program/get-job";
import { clockOf, emulator } from "../support/fixtures";

const { users, integrations } = DEFAULT_IDS;
const NOBODY = "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5fff";
const NOWHERE = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5fff";

/** The default world, plus a user whose email has capitals (what `lowerCaseEmails` changes). */
function world(): EmulatorSeed {
  const seed = defaultSeed();
  seed.users!.push({
    id: "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f09",
    email: "Mary.Jackson@Example.com",
    firstName: "Mary",
    lastName: "Jackson",
  });
  return seed;
}

/** A program run pointed at `emu` by stack config (a fresh run: nothing shared with the one before). */
async function program(emu: Emulator): Promise<void> {
  pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": emu.apiKey }, ["workspace-access:apiKey"]);
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

/** A lookup's answer, or its error's kind and message. */
const answer = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    (value) => value,
    (error: unknown) => (LookupError.isInstance(error) ? { error: error.kind } : { error: String(error) }),
  );

/** Every lookup of the world, as a program would call them: by id, by email in another case, lists, members, misses. */
async function lookups(quirks: EmulatorQuirks): Promise<Record<string, unknown>> {
  const emu = await emulator({ seed: world(), quirks });
  await program(emu);
  const seen: Record<string, unknown> = {};
  for (const id of Object.values(users)) seen[`getUser id ${id}`] = await answer(getUser({ id }));
  seen["getUser id (upper case)"] = await answer(getUser({ id: users.grace.toUpperCase() }));
  for (const email of ["grace@example.com", "GRACE@Example.COM", "mary.jackson@example.com", "Mary.Jackson@Example.com"])
    seen[`getUser email ${email}`] = await answer(getUser({ email }));
  seen["getUser id missing"] = await answer(getUser({ id: NOBODY }));
  seen["getUser email missing"] = await answer(getUser({ email: "nobody@example.com" }));
  seen["getUsers"] = await answer(getUsers());
  for (const isGuest of [true, false]) seen[`getUsers isGuest ${isGuest}`] = await answer(getUsers({ isGuest }));
  seen["getUsers role"] = await answer(getUsers({ role: "workspace_super_admin" }));
  for (const status of ["live", "pending"]) seen[`getUsers status ${status}`] = await answer(getUsers({ status }));
  for (const search of ["hopper", "Grace Hopper", "grace@example.com", "GRACE@EXAMPLE.COM", "partner.example"])
    seen[`getUsers search ${search}`] = await answer(getUsers({ search }));
  for (const id of Object.values(integrations)) {
    seen[`getIntegration id ${id}`] = await answer(getIntegration({ id }));
    seen[`getIntegrationEntitlements ${id}`] = await answer(getIntegrationEntitlements({ integrationId: id }));
    seen[`getIntegrationMembers ${id}`] = await answer(getIntegrationMembers({ integrationId: id }));
  }
  seen["getIntegration label"] = await answer(getIntegration({ label: "Slack acme" }));
  seen["getIntegration application"] = await answer(getIntegration({ application: "YouTube" }));
  seen["getIntegration application missing"] = await answer(getIntegration({ application: "Zoom" }));
  seen["getIntegrations"] = await answer(getIntegrations());
  seen["getIntegrationMembers missing"] = await answer(getIntegrationMembers({ integrationId: NOWHERE }));
  seen["getIntegrationEntitlements missing"] = await answer(getIntegrationEntitlements({ integrationId: NOWHERE }));
  return seen;
}

/** A copy of `value` with `change` applied to every object in it (deepest first). */
function each(value: unknown, change: (record: Record<string, unknown>) => Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => each(v, change));
  if (typeof value !== "object" || value === null) return value;
  return change(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, each(v, change)])));
}
/**
 * What `nullFields` and `absentFields` leave untold, as a lookup then answers it: `null` (never guessed). A user whose status
 * is untold matches no `status` (docs/lookups.md), so Alan, pending, leaves `getUsers({ status: "pending" })`; one whose
 * `isGuest` is untold beside a role that is not a guest's is no guest (`guestOf`), so `getUsers({ isGuest })` is unchanged.
 */
function untold(defaults: unknown): unknown {
  const nulled = each(defaults, (r) => {
    const out = { ...r };
    if (out["isGuest"] === false) out["isGuest"] = null;
    if (out["status"] === "pending") out["status"] = null;
    if (out["firstName"] === "") out["firstName"] = null;
    if (out["lastName"] === "") out["lastName"] = null;
    if (typeof out["label"] === "string" && out["label"].endsWith("_DESC")) out["label"] = null;
    return out;
  }) as Record<string, unknown>;
  return { ...nulled, "getUsers status pending": { users: [], ids: [] } };
}
const lowerEmails = (value: unknown) =>
  each(value, (r) => (typeof r["email"] === "string" ? { ...r, email: r["email"].toLowerCase() } : r));

describe("the lookups under each contract alternative answer as under the defaults", () => {
  // What each switch changes in what the service tells, and so in what a lookup passes on; nothing else may change.
  const ALTERNATIVES: ReadonlyArray<[string, EmulatorQuirks, (defaults: unknown) => unknown, (seen: unknown) => unknown]> = [
    ["memberEntitlements: ids", { memberEntitlements: "ids" }, (d) => d, (s) => s],
    ["errorStatus: string", { errorStatus: "string" }, (d) => d, (s) => s],
    ["jobProgress: varied", { jobProgress: "varied" }, (d) => d, (s) => s],
    ["userFilter: exact", { userFilter: "exact" }, (d) => d, (s) => s],
    ["userFilter: case-sensitive", { userFilter: "case-sensitive" }, (d) => d, (s) => s],
    // Ids in their one form (lower case, `client/ids.ts`), whatever case the service answers them in: exactly the same.
    ["upperCaseIds", { upperCaseIds: true }, (d) => d, (s) => s],
    // The service's spelling of an email is the user's email; the lookups compare and sort emails case-insensitively.
    ["lowerCaseEmails", { lowerCaseEmails: true }, lowerEmails, (s) => s],
    ["nullFields", { nullFields: true }, untold, (s) => s],
    ["absentFields", { nullFields: true, absentFields: true }, untold, (s) => s],
    ["repeatRecords and shiftPages", { repeatRecords: true, shiftPages: "remove" }, (d) => d, (s) => s],
  ];

  it.each(ALTERNATIVES)("%s", async (_name, quirks, expected, seen) => {
    const defaults = await lookups({});
    // The answers compared are answers: users found in another case, by search, and misses that are misses.
    expect(defaults).toMatchObject({
      "getUser email GRACE@Example.COM": { id: users.grace },
      "getUser email mary.jackson@example.com": { email: "Mary.Jackson@Example.com" },
      "getUsers search GRACE@EXAMPLE.COM": { ids: [users.grace] },
      "getUsers search hopper": { ids: [users.grace] },
      "getUsers status pending": { ids: [users.alan] },
      "getUser id missing": { error: "lookup_not_found" },
      "getIntegrationMembers missing": { error: "lookup_not_found" },
    });
    expect(seen(await lookups(quirks))).toEqual(expected(defaults));
  });
});

describe("getJob under jobProgress: varied", () => {
  /** A job of the default world, the states `getJob` reads of it before it ends, and how waiting for it ends. */
  async function job(quirks: EmulatorQuirks, hang: boolean) {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 6 }, quirks });
    await program(emu);
    const clock = clockOf(emu);
    const getJob = (args: GetJobArgs) => readJob(args, clock);
    if (hang) emu.jobs.hangNext(1);
    const res = await fetch(`${emu.url}integrations/${integrations.youtube}/users`, {
      method: "POST",
      headers: { "x-api-key": emu.apiKey, "content-type": "application/json" },
      body: JSON.stringify({
        data: {
          type: "invite_tenant_users",
          attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds: [users.alan] },
        },
      }),
    });
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const read: unknown[] = [];
    for (let i = 0; i < 4; i++) read.push((await getJob({ id })).status);
    const waited = await getJob({ id, waitForCompletion: true, timeoutSeconds: 30 });
    return { read, waited, member: emu.integrations.members(integrations.youtube).some((m) => m.userId === users.alan) };
  }

  it("reads a job not yet done in the state the service answers, not_waited, and waits through every such state to the same end", async () => {
    const running = await job({}, false);
    const varied = await job({ jobProgress: "varied" }, false);
    expect(running.read).toEqual(["running", "running", "running", "running"]);
    // The state is the service's: created, started, running and retrying are each a job not done (getJob passes it on).
    expect(varied.read).toEqual(["created", "started", "running", "retrying"]);
    expect(varied.waited).toMatchObject({ status: "finished", waitOutcome: "finished" });
    // All but what differs from one job (and one emulator's key) to the next.
    const { id: _a, createdAt: _b, updatedAt: _c, createdBy: _d, ...same } = running.waited as unknown as Record<string, unknown>;
    expect(varied.waited).toMatchObject(same);
    expect(varied.member).toBe(true);
  });

  it("says timeout for a job still not done at timeoutSeconds, with the last state polled", async () => {
    const varied = await job({ jobProgress: "varied" }, true);
    expect(varied.waited).toMatchObject({ waitOutcome: "timeout" });
    expect(["created", "started", "running", "retrying"]).toContain(varied.waited.status);
    expect(varied.member).toBe(false);
  });
});
