/**
 * The `customTimeouts` option in the host, over real HTTP to the emulator (virtual clock: a wait takes no real time). The
 * classes pass it as the hidden `__customTimeouts` (test/program/custom-timeouts.test.ts); here each provider checks it, never
 * diffs it, bounds its create, update, delete and refresh's job waits by it instead of `jobTimeoutSeconds`, and records a write that may
 * still land as pending when it expires, as at a `jobTimeoutSeconds` expiry. A refresh is bounded by the `read` the state recorded.
 */
import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { PartialWriteError } from "../../src/host/membership/partial-write";
import { provider as user } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import type { Props } from "../../src/shared/inputs";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";
import { ann, type Outputs, setOf } from "./workspace-users-support";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, katherine } = DEFAULT_IDS.users;
const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const membership = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"] };
const memberSet = { integrationId: youtube, members: [{ userId: alan, entitlements: ["VIEWER"] }] };
type Recorded = Error & { id?: string; properties?: Props };
/** A provider as these tests call it: inputs and outputs as plain properties. */
type Provider = pulumi.dynamic.ResourceProvider<Props, Props>;

/** A seeded emulator whose jobs finish at the first poll and whose user writes answer with a job; jobs waited for 900 s. */
async function setup(options: Parameters<typeof emulator>[0] = {}, config: Record<string, string> = {}) {
  const emu = await emulator({ seed: defaultSeed(), userWritesAsJobs: true, job: { finishAfterPolls: 1 }, ...options });
  const clock = await configureFor(emu, config);
  return { emu, clock };
}

/** What `check` hands on for `news` with the hidden input (`timeouts`), as the host then passes it to a create or update. */
async function checked(provider: Pick<Provider, "check">, news: Props, timeouts?: Record<string, string>): Promise<Props> {
  const result = await provider.check!({}, { ...news, ...(timeouts ? { __customTimeouts: timeouts } : {}) });
  expect(result.failures).toEqual([]);
  return { ...result.inputs, __provider: "serialized" };
}

const running = (emu: Emulator) => emu.jobs.list().filter((j) => j.status === "running");
/** What a timeout of `operation` after `given` says, and what it tells to raise. */
const expired = (operation: string, given: string) =>
  `within this resource's customTimeouts.${operation}, ${given} from the start of its ${operation} (last status: running). ` +
  `It may still finish: check it with getJob, or raise customTimeouts.${operation}.`;

const PROVIDERS: Array<[string, Provider, () => Props]> = [
  ["User", user as unknown as Provider, () => alice],
  ["IntegrationEntitlement", entitlement as unknown as Provider, () => membership],
  ["IntegrationMembers", members as unknown as Provider, () => memberSet],
  ["WorkspaceUsers", set as unknown as Provider, () => setOf(ann)],
];

describe("check and diff", () => {
  it.each(PROVIDERS)("%s: check refuses a timeout that is not a duration, naming it and the format", async (_, provider, inputs) => {
    await setup();
    const result = await provider.check!({}, { ...inputs(), __customTimeouts: { create: "5m", delete: "2 hours" } });
    expect(result.failures).toEqual([
      {
        property: "customTimeouts.delete",
        reason:
          'customTimeouts.delete "2 hours" is not a duration: write a number and a unit, as Pulumi reads a duration, such as "30s", ' +
          '"5m" or "1h30m" (units h, m, s, ms, us, ns)',
      },
    ]);
  });

  it.each(PROVIDERS)(
    "%s: check hands the hidden input on, create records it, and a diff of it alone is no change",
    async (_, provider, inputs) => {
      await setup();
      const news = await checked(provider, inputs(), { create: "5m" });
      expect(news.__customTimeouts).toEqual({ create: "5m" });
      const { id, outs } = await provider.create(news);
      // Kept in the state for a destroy, which gets no inputs.
      expect(wire(outs)?.__customTimeouts).toEqual({ create: "5m" });
      for (const edited of [{ create: "1h", delete: "30s" }, undefined]) {
        const diff = await provider.diff!(id, outs!, await checked(provider, inputs(), edited));
        expect(diff.changes).toBe(false);
      }
    },
  );
});

describe("an expired customTimeouts.create (jobTimeoutSeconds left at 900)", () => {
  it("IntegrationEntitlement: fails naming it, and records the invitation pending with its job, as at jobTimeoutSeconds", async () => {
    const { emu, clock } = await setup();
    emu.jobs.hangNext(1);
    const started = clock.now();
    const error = (await rejection(entitlement.create(await checked(entitlement, membership, { create: "30s" })))) as Recorded;
    const [job] = running(emu);
    expect(error.message).toContain(`The job ${job!.id} did not finish ${expired("create", "30s")}`);
    expect(clock.now() - started).toBeGreaterThanOrEqual(30_000);
    expect(clock.now() - started).toBeLessThan(60_000);
    expect(PartialWriteError.isInstance(error)).toBe(true);
    expect(error.id).toBe(`${youtube}/${alan}`);
    expect(error.properties).toMatchObject({
      pendingInvitations: [{ userId: alan, jobId: job!.id }],
      __customTimeouts: { create: "30s" },
      // The partial state records the workspace it was written in, as a whole one does (recorded-workspace.test.ts).
      __workspace: emu.url,
      __provider: "serialized",
    });
  });

  it("IntegrationMembers: fails naming it, and records the invitation pending with its job", async () => {
    const { emu } = await setup();
    emu.jobs.hangNext(1);
    const error = (await rejection(members.create(await checked(members, memberSet, { create: "45s" })))) as Recorded;
    const [job] = running(emu);
    expect(error.message).toContain(`user ${alan}: The job ${job!.id} did not finish ${expired("create", "45s")}`);
    expect(error.properties).toMatchObject({ pendingInvitations: [{ userId: alan, jobId: job!.id }], __customTimeouts: { create: "45s" } });
  });

  it("WorkspaceUsers: fails naming it, and records the user create pending with its job", async () => {
    const { emu } = await setup();
    emu.jobs.hangNext(1);
    const error = (await rejection(set.create(await checked(set, setOf(ann), { create: "1m" })))) as Recorded & {
      properties?: Outputs;
    };
    const [job] = running(emu);
    expect(error.message).toContain(`The job ${job!.id} did not finish ${expired("create", "1m")}`);
    expect(error.message).toContain(`the state records it (pendingCreates, job ${job!.id})`);
    expect(error.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job!.id }]);
  });

  it("User: fails naming it, and says the create was accepted and what to run once the job has finished", async () => {
    const { emu } = await setup();
    emu.jobs.hangNext(1);
    const error = await rejection(user.create(await checked(user, alice, { create: "1m30s" })));
    const [job] = running(emu);
    expect(error.message).toContain(`The job ${job!.id} did not finish ${expired("create", "1m30s")}`);
    expect(error.message).toContain(`The service accepted the create of alice@example.com (job ${job!.id})`);
  });

  it("bounds only the resources that give it: invitations sent together wait each by its own bound", async () => {
    const { emu } = await setup();
    emu.jobs.hangNext(3);
    const timed = { create: "30s" };
    const results = await Promise.allSettled([
      entitlement.create(await checked(entitlement, membership, timed)),
      entitlement.create(await checked(entitlement, { ...membership, userId: katherine }, timed)),
      entitlement.create(
        await checked(entitlement, { integrationId: DEFAULT_IDS.integrations.slack, userId: katherine, entitlements: ["MEMBER"] }),
      ),
    ]);
    const said = results.map((r) => (r.status === "rejected" ? String((r.reason as Error).message) : "created"));
    expect(said[0]).toContain(expired("create", "30s"));
    expect(said[1]).toContain(expired("create", "30s"));
    expect(said[2]).toMatch(/did not finish within 900 s \(last status: running\)/);
  });
});

describe("update and delete", () => {
  it("an update's job waits end at customTimeouts.update: the write is recorded pending, naming it", async () => {
    const { emu } = await setup();
    const { id, outs } = await entitlement.create(await checked(entitlement, membership));
    emu.jobs.hangNext(1);
    const news = await checked(entitlement, { ...membership, entitlements: ["EDITOR"] }, { create: "1s", update: "20s" });
    const error = (await rejection(entitlement.update!(id, outs!, news))) as Recorded;
    const [job] = running(emu);
    expect(error.message).toContain(`The job ${job!.id} did not finish ${expired("update", "20s")}`);
    expect(error.properties).toMatchObject({
      pendingInvitations: [{ userId: alan, jobId: job!.id }],
      __customTimeouts: news.__customTimeouts,
    });
  });

  it("a delete's job waits end at the customTimeouts.delete the state recorded", async () => {
    const { emu, clock } = await setup();
    const { id, outs } = await user.create(await checked(user, alice, { delete: "10s" }));
    emu.jobs.hangNext(1);
    const started = clock.now();
    const error = await rejection(user.delete!(id, outs!));
    expect(error.message).toContain(`did not finish ${expired("delete", "10s")}`);
    expect(clock.now() - started).toBeLessThan(20_000);
  });
});

describe("jobTimeoutSeconds stays the bound where customTimeouts gives none", () => {
  it("a create with only a delete timeout waits jobTimeoutSeconds, as one without the option", async () => {
    const { emu } = await setup({}, { "workspace-access:jobTimeoutSeconds": "5" });
    emu.jobs.hangNext(1);
    const error = await rejection(entitlement.create(await checked(entitlement, membership, { delete: "1h" })));
    expect(error.message).toMatch(/did not finish within 5 s \(last status: running\)\. .*raise workspace-access:jobTimeoutSeconds/);
  });

  it("a customTimeouts.create longer than jobTimeoutSeconds is the bound: a 20 s job is waited for", async () => {
    await setup({ job: { finishAfterMs: 20_000 } }, { "workspace-access:jobTimeoutSeconds": "5" });
    const plain = await rejection(user.create(await checked(user, alice)));
    expect(plain.message).toContain("did not finish within 5 s");
    const { outs } = await user.create(await checked(user, { ...alice, email: "alicia@example.com" }, { create: "1m" }));
    expect(outs?.email).toBe("alicia@example.com");
  });

  it("a refresh without customTimeouts.read: a pending create's job is waited for jobTimeoutSeconds, and the state keeps the timeouts", async () => {
    const { emu, clock } = await setup({}, { "workspace-access:jobTimeoutSeconds": "5" });
    emu.jobs.hangNext(1);
    const timeouts = { create: "1s", update: "1s", delete: "1s" };
    const error = (await rejection(set.create(await checked(set, setOf(ann), timeouts)))) as Recorded & { properties?: Outputs };
    const started = clock.now();
    const read = await set.read!("workspace-users", error.properties);
    expect(clock.now() - started).toBeGreaterThanOrEqual(5000);
    expect(read.props?.pendingCreates).toHaveLength(1);
    expect((read.props as unknown as Props).__customTimeouts).toEqual(timeouts);
    expect(read.inputs).not.toHaveProperty("__customTimeouts");
  });
});

describe("a refresh: its job waits (a WorkspaceUsers' pending creates') end at the customTimeouts.read the state recorded", () => {
  it("WorkspaceUsers: a pending create's job is waited for 20 s, not jobTimeoutSeconds (900), and stays pending", async () => {
    const { emu, clock } = await setup();
    emu.jobs.hangNext(1);
    const timeouts = { create: "1s", read: "20s" };
    const error = (await rejection(set.create(await checked(set, setOf(ann), timeouts)))) as Recorded & { properties?: Outputs };
    expect(error.properties?.__customTimeouts).toEqual(timeouts);
    const started = clock.now();
    const read = await set.read!("workspace-users", error.properties);
    expect(clock.now() - started).toBeGreaterThanOrEqual(20_000);
    expect(clock.now() - started).toBeLessThan(60_000);
    expect(read.props?.pendingCreates).toHaveLength(1);
    expect((read.props as unknown as Props).__customTimeouts).toEqual(timeouts);
    // Still running: each read of the job was a request the service received.
    expect(emu.requests.filter((r) => r.path.startsWith("/jobs/")).length).toBeGreaterThan(1);
  });

  it("check refuses a read timeout that is not a duration, naming it", async () => {
    await setup();
    const result = await user.check!({}, { ...alice, __customTimeouts: { read: "soon" } });
    expect(result.failures).toEqual([
      { property: "customTimeouts.read", reason: expect.stringContaining('customTimeouts.read "soon" is not a duration') },
    ]);
  });
});
