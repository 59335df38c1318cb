/**
 * A user create whose `POST /users` is accepted with a job that outlives `jobTimeoutSeconds`, over real HTTP to the emulator
 * (virtual clock: the wait takes no real time). A `WorkspaceUsers` records the create as pending with its job, and the next
 * `up`, refresh or destroy waits for the job: the user it made is the set's (created, so removing it deletes it), never
 * adopted and never posted twice. A `User` cannot record it (its id is the user's, unknown till the job ends): its error
 * says what happened and what to run.
 */
import { describe, expect, it } from "vitest";
import type { Emulator } from "../../src/emulator";
import { provider as users } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import { clockOf, emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";
import { ann, cara, type Outputs, setOf } from "./workspace-users-support";

/** A deployment: a new context, jobs waited for 5 s (virtual). */
const deployment = (emu: Emulator, warnings: string[] = []) =>
  configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: (m) => void warnings.push(m), info: () => {} });

/** An emulator whose user writes answer with a job, and whose next job hangs (`release` lets it do its work). */
async function hanging(): Promise<Emulator> {
  const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 } });
  await deployment(emu);
  emu.jobs.hangNext(1);
  return emu;
}

const hung = (emu: Emulator) => emu.jobs.list().find((j) => j.status !== "finished" && j.status !== "error")!;
const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
type Partial = Error & { id?: string; properties?: Outputs };

describe("WorkspaceUsers: a user create whose job outlives jobTimeoutSeconds", () => {
  it("is recorded pending with its job; the next up waits for it and records the user as created, and destroy deletes it", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    const job = hung(emu);
    expect(error.id).toBe("workspace-users");
    expect(error.message).toContain(`the state records it (pendingCreates, job ${job.id})`);
    expect(error.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    expect(Object.keys(error.properties?.users ?? {})).toEqual(["cara@example.com"]);
    // The diff of the next up goes to an update whatever the program changed.
    expect((await set.diff!("workspace-users", error.properties!, setOf(ann, cara))).changes).toBe(true);
    emu.jobs.release(job.id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    await deployment(emu);
    emu.clearRequests();
    const { outs } = await set.update!("workspace-users", error.properties!, setOf(ann, cara));
    expect(writes(emu)).toEqual([]); // not posted again
    expect(outs?.users["ann@example.com"]).toMatchObject({ id: annId, created: true });
    expect(outs?.pendingCreates).toBeUndefined();
    // Created by the set: its destroy deletes it.
    await deployment(emu);
    emu.clearRequests();
    await set.delete!("workspace-users", outs!);
    expect(writes(emu).sort()).toEqual([`DELETE /users/${annId}`, `DELETE /users/${outs!.userIds["cara@example.com"]}`].sort());
  });

  it("a job still running at the next up stays recorded, unposted; a refresh once it finished records the user as created", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann)))) as Partial;
    const job = hung(emu);
    await deployment(emu);
    emu.clearRequests();
    const again = (await rejection(set.update!("workspace-users", error.properties!, setOf(ann)))) as Partial;
    expect(again.message).toContain(`the create of ann@example.com is still running (job ${job.id}`);
    expect(writes(emu)).toEqual([]);
    expect(again.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    // A destroy meanwhile fails, keeping the resource: the user may still be made.
    expect((await rejection(set.delete!("workspace-users", again.properties!))).message).toContain("not deleted");
    emu.jobs.release(job.id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    await deployment(emu);
    const read = await set.read!("workspace-users", again.properties!);
    expect(read.props?.users["ann@example.com"]).toMatchObject({ id: annId, created: true });
    expect(read.props?.pendingCreates).toBeUndefined();
    expect(read.inputs).toMatchObject({ users: { "ann@example.com": { email: ann.email } } });
  });

  // A failed delete keeps the state as it was: the users the failing destroy deleted stay recorded, and an up before a refresh
  // would take them for there. One user's running create does not stop the others' deletes; the error says so (found by a review).
  it("a destroy while a create still runs deletes the others and says the state keeps them until a refresh", async () => {
    const emu = await hanging();
    const state = ((await rejection(set.create(setOf(ann, cara)))) as Partial).properties!;
    const caraId = state.userIds["cara@example.com"]!;
    await deployment(emu);
    emu.clearRequests();
    const error = await rejection(set.delete!("workspace-users", state));
    expect(error.message).toContain("not deleted");
    expect(error.message).toContain(
      "(1 other user(s) were deleted, which the state keeps until `pulumi refresh` (a failed destroy keeps the state): " +
        "refresh before an `up`, or destroy again)",
    );
    expect(writes(emu)).toEqual([`DELETE /users/${caraId}`]);
    // Once the job finished, destroying again deletes Ann; Cara, deleted already, counts as done.
    emu.jobs.release(hung(emu).id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    await deployment(emu);
    emu.clearRequests();
    await set.delete!("workspace-users", state);
    expect(writes(emu)).toEqual([`DELETE /users/${annId}`]);
  });

  it("a user the program dropped while its create ran is deleted once the job has made it (the set created it)", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    emu.jobs.release(hung(emu).id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    await deployment(emu);
    emu.clearRequests();
    const { outs } = await set.update!("workspace-users", error.properties!, setOf(cara));
    expect(writes(emu)).toEqual([`DELETE /users/${annId}`]);
    expect(Object.keys(outs?.users ?? {})).toEqual(["cara@example.com"]);
    expect(outs?.pendingCreates).toBeUndefined();
  });
});

describe("WorkspaceUsers: a user re-keyed to the email of a create still running", () => {
  it("stays recorded under the old key, neither moved nor deleted, till that create settles", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    const caraId = error.properties!.userIds["cara@example.com"]!;
    // The service now has, for the user the set created as cara, the email ann's create (still running) was asked for.
    emu.users.update(caraId, { email: ann.email });
    await deployment(emu);
    const refreshed = (await set.read!("workspace-users", error.properties!)).props as Outputs;
    expect(refreshed.users["cara@example.com"]).toMatchObject({ id: caraId, email: ann.email, created: true });
    await deployment(emu);
    emu.clearRequests();
    const again = (await rejection(set.update!("workspace-users", refreshed, setOf(ann)))) as Partial;
    expect(again.message).toContain("still running");
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(caraId)).toBeDefined();
    expect(again.properties?.users["cara@example.com"]).toMatchObject({ id: caraId, created: true });
  });
});

describe("WorkspaceUsers: a pending create whose job the service no longer knows", () => {
  it("is dropped: a user found with the email is adopted (not the set's: destroy leaves it); none found is created again", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    expect(error.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: hung(emu).id }]);
    // The state names a job the service does not know (its record expired): what it did, if anything, is not known to be
    // the set's. Someone else made a user with ann's email meanwhile.
    const unknownJob = "00000000-0000-4000-8000-00000000dead";
    const prior = { ...error.properties!, pendingCreates: [{ email: ann.email, jobId: unknownJob }] };
    const someone = emu.users.add({ ...ann, firstName: "Other" });
    await deployment(emu);
    emu.clearRequests();
    const { outs } = await set.update!("workspace-users", prior, setOf(ann, cara));
    expect(emu.requests.some((r) => r.method === "GET" && r.path === `/jobs/${unknownJob}`)).toBe(true);
    expect(outs?.users["ann@example.com"]?.id).toBe(someone.id);
    expect(outs?.users["ann@example.com"]?.created).not.toBe(true);
    expect(outs?.pendingCreates).toBeUndefined();
    await deployment(emu);
    emu.clearRequests();
    await set.delete!("workspace-users", outs!);
    expect(writes(emu)).toEqual([`DELETE /users/${outs!.userIds["cara@example.com"]}`]);
    expect(emu.users.get(someone.id)).toBeDefined();
    // Nobody with the email: the next up creates the user (one POST), the set's.
    const alone = await hanging();
    const again = (await rejection(set.create(setOf(ann)))) as Partial;
    await deployment(alone);
    alone.clearRequests();
    const made = await set.update!(
      "workspace-users",
      { ...again.properties!, pendingCreates: [{ email: ann.email, jobId: unknownJob }] },
      setOf(ann),
    );
    expect(writes(alone)).toEqual(["POST /users"]);
    expect(made.outs?.users["ann@example.com"]).toMatchObject({ created: true });
  });
});

describe("WorkspaceUsers: a pending create whose job finished, settled by a listing that misses its user", () => {
  it("a refresh whose one listing skipped the user finds them directly: recorded as created, and the next up keeps them so", async () => {
    // 100 users before ann: ann, created last, is the first record of page 2.
    const others = Array.from({ length: 100 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      email: `other${i}@example.com`,
      firstName: "O",
      lastName: `N${i}`,
    }));
    const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 }, seed: { users: others } });
    await deployment(emu);
    emu.jobs.hangNext(1);
    const error = (await rejection(set.create(setOf(ann)))) as Partial;
    expect(error.properties?.pendingCreates).toHaveLength(1);
    emu.jobs.release(hung(emu).id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    // While the refresh walks the user list, another admin deletes an early user: page 2 starts one record late.
    let shifted = false;
    const off = emu.onPage(({ path }) => {
      if (shifted || path !== "/users") return;
      shifted = true;
      emu.users.remove(others[0]!.id);
    });
    await deployment(emu);
    const read = await set.read!("workspace-users", error.properties!);
    off();
    expect(shifted).toBe(true);
    expect(read.props?.users["ann@example.com"]).toMatchObject({ id: annId, created: true });
    expect(read.props?.pendingCreates).toBeUndefined();
    // The next up records ann as created (a destroy deletes her), not adopted.
    await deployment(emu);
    const { outs } = await set.update!("workspace-users", read.props!, setOf(ann));
    expect(outs?.users["ann@example.com"]).toMatchObject({ id: annId, created: true });
  });
  it("a refresh that finds no user of the email keeps the create recorded: the next up settles it", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann)))) as Partial;
    const job = hung(emu);
    emu.jobs.release(job.id);
    emu.users.remove(emu.users.findByEmail(ann.email)!.id);
    await deployment(emu);
    const read = await set.read!("workspace-users", error.properties!);
    expect(read.props?.users).toEqual({});
    expect(read.props?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    await deployment(emu);
    const { outs } = await set.update!("workspace-users", read.props!, setOf(ann));
    expect(outs?.users["ann@example.com"]).toMatchObject({ created: true });
    expect(outs?.pendingCreates).toBeUndefined();
  });
});

describe("WorkspaceUsers: a refresh settling a finished pending create, whose search meets another user's odd record", () => {
  it("refreshes the set all the same: the create stays recorded (a search proves presence only), the others' drift is read", async () => {
    const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 } });
    await deployment(emu);
    const first = (await set.create(setOf(cara))).outs as Outputs;
    emu.jobs.hangNext(1);
    const error = (await rejection(set.update!("workspace-users", first, setOf(ann, cara)))) as Partial;
    const job = hung(emu);
    emu.jobs.release(job.id);
    // Ann's user, made by the job, is deleted by hand; another user, whose email holds ann's, has a record the search cannot read.
    emu.users.remove(emu.users.findByEmail(ann.email)!.id);
    const jo = emu.users.add({ email: "joann@example.com", firstName: "Jo", lastName: "Ann" });
    emu.users.update(jo.id, { firstName: 42 as unknown as string });
    emu.users.update(first.userIds["cara@example.com"]!, { lastName: "Roy" });
    await deployment(emu);
    emu.clearRequests();
    const read = await set.read!("workspace-users", error.properties!);
    expect(read.props?.users["cara@example.com"]?.lastName).toBe("Roy");
    expect(read.props?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    // One search, no proof of absence (nothing is forgotten on a miss), and no write.
    const searches = emu.requests.filter((r) => r.method === "GET" && r.path === "/users" && r.query.filter !== undefined);
    expect(searches).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });
});

describe("WorkspaceUsers: the up that settles a finished pending create fails that user's write", () => {
  it("keeps the create recorded, so the next up records the user as created (not adopted)", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann)))) as Partial;
    const job = hung(emu);
    emu.jobs.release(job.id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    // The program renamed ann meanwhile; the PUT that applies it is refused once (400).
    const renamed = { ...ann, firstName: "Annie" };
    emu.fault({ method: "PUT", path: `/users/${annId}`, status: 400, times: 1 });
    await deployment(emu);
    const failed = (await rejection(set.update!("workspace-users", error.properties!, setOf(renamed)))) as Partial;
    expect(failed.message).toContain("the state keeps it recorded (pendingCreates)");
    expect(failed.properties?.users).toEqual({});
    expect(failed.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    // The next up: ann is the set's (created), so that removing her or a destroy deletes her.
    await deployment(emu);
    const { outs } = await set.update!("workspace-users", failed.properties!, setOf(renamed));
    expect(outs?.users["ann@example.com"]).toMatchObject({ id: annId, firstName: "Annie", created: true });
    expect(outs?.pendingCreates).toBeUndefined();
  });

  it("a user the program dropped, whose search fails in that up, stays recorded too, and is deleted by the next up", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    const job = hung(emu);
    emu.jobs.release(job.id);
    const annId = emu.users.findByEmail(ann.email)!.id;
    // The search for ann fails (a 400 is not retried); the program no longer declares her.
    emu.fault({ method: "GET", path: "/users", status: 400, times: 1 });
    await deployment(emu);
    const failed = (await rejection(set.update!("workspace-users", error.properties!, setOf(cara)))) as Partial;
    expect(failed.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    await deployment(emu);
    emu.clearRequests();
    await set.update!("workspace-users", failed.properties!, setOf(cara));
    expect(writes(emu)).toEqual([`DELETE /users/${annId}`]);
  });
});

describe("WorkspaceUsers holding secrets: a pending create's messages name no email", () => {
  it("the create recorded, still running at the next up and at a destroy: each error names the job, not the email", async () => {
    const emu = await hanging();
    const secretly = (props: Record<string, unknown>) => ({ ...props, __secretUsers: true });
    const error = (await rejection(set.create(secretly(setOf(ann))))) as Partial;
    const job = hung(emu);
    expect(error.message).toContain(`[secret]: `);
    expect(error.message).toContain(`the state records it (pendingCreates, job ${job.id})`);
    await deployment(emu);
    const again = (await rejection(set.update!("workspace-users", error.properties!, secretly(setOf(ann))))) as Partial;
    expect(again.message).toContain(`the create of [secret] is still running (job ${job.id}`);
    // A destroy has no inputs: the state kept the flag.
    expect(again.properties?.__secretUsers).toBe(true);
    await deployment(emu);
    const destroy = await rejection(set.delete!("workspace-users", again.properties!));
    expect(destroy.message).toContain(`the create of [secret] is still running (job ${job.id}`);
    for (const e of [error, again, destroy]) expect(e.message.toLowerCase()).not.toContain(ann.email);
  });
});

describe("User: a create whose job outlives jobTimeoutSeconds", () => {
  it("fails saying the create was accepted, that the state records nothing, and what to run once the job has finished", async () => {
    const emu = await hanging();
    const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
    const error = (await rejection(users.create((await users.check!({}, alice)).inputs!))) as Error & { id?: string };
    const job = hung(emu);
    expect(error.id).toBeUndefined();
    expect(error.message).toContain(`The job ${job.id} did not finish within 5 s`);
    expect(error.message).toContain(`The service accepted the create of alice@example.com (job ${job.id})`);
    expect(error.message).toContain("the state records nothing of it");
    expect(error.message).toContain("set adoptExisting: true and deleteOnDestroy: true on this resource, then run pulumi up");
  });
});

describe("WorkspaceUsers: a finished pending create the program dropped, where the search misses its email", () => {
  it("is found in the listing and deleted as the set's (the service keeps emails in lower case, its search the case written)", async () => {
    const quirks = { userFilter: "case-sensitive", lowerCaseEmails: true } as const;
    const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 }, quirks });
    await deployment(emu);
    emu.jobs.hangNext(1);
    const mixed = { ...ann, email: "Ann@Example.com" };
    const error = (await rejection(set.create(setOf(mixed, cara)))) as Partial;
    const job = hung(emu);
    expect(error.properties?.pendingCreates).toEqual([{ email: mixed.email, jobId: job.id }]);
    emu.jobs.release(job.id);
    const annId = emu.users.findByEmail(mixed.email)!.id;
    // The program no longer declares her: the user the set's own create made is deleted, not left unmanaged and forgotten.
    await deployment(emu);
    emu.clearRequests();
    const { outs } = await set.update!("workspace-users", error.properties!, setOf(cara));
    expect(writes(emu)).toEqual([`DELETE /users/${annId}`]);
    expect(outs?.pendingCreates).toBeUndefined();
  });
});

describe("WorkspaceUsers: a pending create whose job's record cannot be read", () => {
  it("fails that user alone: the others' changes are written, the create stays recorded, unposted; a refresh keeps it, warning", async () => {
    const emu = await hanging();
    const error = (await rejection(set.create(setOf(ann, cara)))) as Partial;
    const job = hung(emu);
    const renamed = { ...cara, lastName: "Renamed" };
    // The job's record has no status: it cannot be waited for (every read of it answers so).
    const odd = JSON.stringify({ data: { type: "job", id: job.id, attributes: { status: null } } });
    emu.fault({ method: "GET", path: `/jobs/${job.id}`, body: odd, status: 200, times: 10 });
    await deployment(emu);
    emu.clearRequests();
    const again = (await rejection(set.update!("workspace-users", error.properties!, setOf(ann, renamed)))) as Partial;
    expect(again.message).toContain(`the create of ann@example.com may have made the user, but its job ${job.id} cannot be read`);
    expect(again.message).toContain("so that user is not written");
    expect(again.message).toContain('"data.attributes.status"');
    expect(writes(emu)).toEqual([`PUT /users/${error.properties!.userIds["cara@example.com"]}`]);
    expect(again.properties?.users["cara@example.com"]).toMatchObject({ lastName: "Renamed" });
    expect(again.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    const warnings: string[] = [];
    await deployment(emu, warnings);
    const read = await set.read!("workspace-users", again.properties!);
    expect(read.props?.pendingCreates).toEqual([{ email: ann.email, jobId: job.id }]);
    expect(warnings.join("\n")).toContain(`its job ${job.id} cannot be read`);
  });
});

describe("WorkspaceUsers: a create left running whose job finished for a user someone else had made before it", () => {
  /**
   * Dan exists a minute before the set's create; a listing and its proof skip him (pages shifting), so his email is posted; the
   * service merges the POST of a taken email into his record (`userCreateTaken: "existing"`) with a job that outlives the wait.
   * Released, the job finishes: a finished job says nothing of whose user has the email now.
   */
  async function merged() {
    const emu = await emulator({ userWritesAsJobs: true, job: { finishAfterPolls: 1 }, quirks: { userCreateTaken: "existing" } });
    const dan = emu.users.add({ email: "dan@example.com", firstName: "Dan", lastName: "Oz", role: "workspace_super_admin" });
    clockOf(emu).advance(60_000);
    await deployment(emu);
    emu.jobs.hangNext(1);
    const skipping = JSON.stringify({ data: [], links: { next: null }, meta: { page: { total: 0 } } });
    emu.fault({ method: "GET", path: "/users", body: skipping, times: 2 });
    const error = (await rejection(set.create(setOf({ email: dan.email, firstName: "Dan", lastName: "Oz" })))) as Partial;
    const job = hung(emu);
    expect(error.properties?.pendingCreates).toEqual([{ email: dan.email, jobId: job.id }]);
    emu.jobs.release(job.id);
    const warnings: string[] = [];
    await deployment(emu, warnings);
    emu.clearRequests();
    return { emu, dan, job, prior: error.properties!, warnings };
  }
  const danInputs = { email: "dan@example.com", firstName: "Dan", lastName: "Oz" };

  it("an up that still declares him adopts him as he is, not as made by the set: its destroy leaves him", async () => {
    const { emu, dan, job, prior, warnings } = await merged();
    const { outs } = await set.update!("workspace-users", prior, setOf(danInputs));
    expect(outs?.users["dan@example.com"]).toMatchObject({ id: dan.id });
    expect(outs?.users["dan@example.com"]?.created).not.toBe(true);
    expect(outs?.pendingCreates).toBeUndefined();
    expect(warnings.join("\n")).toContain(`finished (job ${job.id}), but the user with its email, ${dan.id}, was made before it`);
    await deployment(emu);
    await set.delete!("workspace-users", outs!);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(dan.id)).toBeDefined();
  });

  it("an up that no longer declares him leaves him in the workspace (no DELETE), and forgets the create", async () => {
    const { emu, dan, prior, warnings } = await merged();
    const { outs } = await set.update!("workspace-users", prior, setOf());
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(dan.id)).toBeDefined();
    expect(outs?.users).toEqual({});
    expect(outs?.pendingCreates).toBeUndefined();
    expect(warnings.join("\n")).toContain("left in the workspace as it is");
  });

  it("a destroy leaves him; a refresh does not record him as the set's, and forgets the create", async () => {
    const { emu, dan, prior, warnings } = await merged();
    await set.delete!("workspace-users", prior);
    expect(writes(emu)).toEqual([]);
    expect(emu.users.get(dan.id)).toBeDefined();
    const read = await set.read!("workspace-users", prior);
    expect((read.props as Outputs).users["dan@example.com"]).toBeUndefined();
    expect((read.props as Outputs).pendingCreates).toBeUndefined();
    expect(warnings.join("\n")).toContain("the create is forgotten");
  });
});

describe("a user create whose job finished but whose read-back fails (the search answers 503 past its retries)", () => {
  /** User writes answer with a job; once the POST is answered, the next two user listings (a search and its retry) answer 503. */
  async function readBackFails() {
    const holder: { emu?: Emulator } = {};
    let armed = true;
    const emu = await emulator({
      userWritesAsJobs: true,
      job: { finishAfterPolls: 1 },
      onAnswered: (a) => {
        if (armed && a.method === "POST" && a.rawPath.endsWith("/users")) {
          armed = false;
          holder.emu!.fault({ method: "GET", path: "/users", status: 503, times: 2 });
        }
      },
    });
    holder.emu = emu;
    await configureFor(emu, { "workspace-access:maxRetries": "1" });
    return emu;
  }

  it("a WorkspaceUsers records the create pending; the next up takes the user as made by the set, and destroy deletes it", async () => {
    const emu = await readBackFails();
    const error = (await rejection(set.create(setOf(ann)))) as Partial;
    const annId = emu.users.findByEmail(ann.email)!.id;
    const [job] = emu.jobs.list();
    expect(error.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: job!.id }]);
    await deployment(emu);
    emu.clearRequests();
    const { outs } = await set.update!("workspace-users", error.properties!, setOf(ann));
    expect(writes(emu)).toEqual([]);
    expect(outs?.users["ann@example.com"]).toMatchObject({ id: annId, created: true });
    await deployment(emu);
    await set.delete!("workspace-users", outs!);
    expect(writes(emu)).toEqual([`DELETE /users/${annId}`]);
  });

  it("a User's error says the service accepted the create and what to run, not that nothing was created", async () => {
    const emu = await readBackFails();
    const error = await rejection(users.create((await users.check!({}, ann)).inputs!));
    expect(emu.users.findByEmail(ann.email)).toBeDefined();
    expect(error.message).toContain("The service accepted the create of ann@example.com");
    expect(error.message).toContain("set adoptExisting: true and deleteOnDestroy: true");
  });
});
