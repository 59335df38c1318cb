/**
 * The invitation batcher against the emulator on loopback, on a virtual clock: how many
 * `POST /integrations/{id}/users` go out, with which `userIds`, and what each user's outcome is
 * when a batch's request or job fails. "Invited once" is counted on the server: the invitation
 * jobs that applied a user (finished ones naming it, and failed ones of a partial service that
 * applied the others).
 */
import diagnostics from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import { ConfigurationError, ConflictError, ConnectionError, JobFailedError, JobTimeoutError, NotFoundError } from "../../src/client";
import { ALL_SCOPES, type BatchInviteFailure, type Emulator } from "../../src/emulator";
import {
  type Invitation,
  type InvitationResult,
  InviteBatcher,
  MAX_BATCH,
  MAX_BATCH_OPEN_MS,
  MAX_PACED_OPEN_MS,
  PAUSE_GAP_MS,
  paced,
  WINDOW_MS,
} from "../../src/host/membership/invite-batcher";
import { PartialWriteError } from "../../src/host/membership/partial-write";
import { clientFor, emulator, issuedKeys } from "../support/fixtures";
import { appliedPerUser, invitePosts as postsInto } from "../support/invitations";

const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";

async function world(n: number, options: { batchInviteFailure?: BatchInviteFailure; finishAfterMs?: number } = {}) {
  const emu = await emulator({
    seed: { integrations: [{ id: INTEGRATION, application: "app", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }] }] },
    job: options.finishAfterMs === undefined ? { finishAfterPolls: 1 } : { finishAfterMs: options.finishAfterMs },
    ...(options.batchInviteFailure ? { batchInviteFailure: options.batchInviteFailure } : {}),
  });
  const users = Array.from({ length: n }, (_, i) => emu.users.add({ email: `u${i}@example.com`, firstName: "U", lastName: `${i}` }).id);
  const { client, clock } = clientFor(emu, { maxRetries: 0, jobTimeoutSeconds: 1 });
  return { emu, users, clock, client, batcher: new InviteBatcher(client, clock) };
}

const invitation = (userId: string, entitlements: string[] = ["VIEWER"]): Invitation => ({
  integrationId: INTEGRATION,
  userId,
  role: "account_collaborator",
  entitlements,
});

const invitePosts = (emu: Emulator) => postsInto(emu, INTEGRATION);

const settle = (promises: Promise<unknown>[]) => Promise.allSettled(promises);
/** The `pending` result (the invitation may still land) of a settled submit, or a failure naming what it was. */
function pendingOf(result: PromiseSettledResult<InvitationResult>): { jobId: string | null; error: Error } {
  if (result.status === "fulfilled" && result.value.kind === "pending") return result.value;
  throw new Error(`expected a pending result, got ${JSON.stringify(result)}`);
}

describe("batching", () => {
  it("250 invitations of one kind sent together: 3 POSTs of at most 100 users, one job each, every user a member", async () => {
    const { emu, users, batcher } = await world(250);
    const outcomes = await Promise.all(users.map((u) => batcher.submit(invitation(u))));
    const posts = invitePosts(emu);
    expect(posts.map((p) => p.userIds.length)).toEqual([MAX_BATCH, MAX_BATCH, 50]);
    expect(new Set(posts.flatMap((p) => p.userIds))).toEqual(new Set(users));
    expect(emu.jobs.list()).toHaveLength(3);
    expect(outcomes.every((o) => o.kind === "invited" && o.jobId !== null)).toBe(true);
    expect(
      emu.integrations
        .members(INTEGRATION)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([...users].sort());
  });

  it("invitations of different entitlement sets go out separately, one POST per set", async () => {
    const { emu, users, batcher } = await world(6);
    await Promise.all(users.map((u, i) => batcher.submit(invitation(u, i % 2 === 0 ? ["VIEWER"] : ["EDITOR", "VIEWER"]))));
    const posts = invitePosts(emu);
    expect(posts).toHaveLength(2);
    expect(posts.map((p) => p.userIds.length)).toEqual([3, 3]);
  });

  it("submitAll (a member set's invitations): by kind, 100 a POST, at once; each result in order, a refused user failing alone", async () => {
    const { emu, users, clock, batcher } = await world(230);
    const bad = users[7]!;
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, userId: bad, status: 404, times: 100 });
    const asked = clock.now();
    const results = await batcher.submitAll(users.map((u, i) => invitation(u, i < 210 ? ["VIEWER"] : ["EDITOR"])));
    expect(results.map((r) => r.kind)).toEqual(users.map((u) => (u === bad ? "failed" : "invited")));
    const refused = results[7] as { kind: "failed"; error: unknown };
    expect(NotFoundError.isInstance(refused.error)).toBe(true);
    // 100, 100 and 10 of VIEWER, 20 of EDITOR, in order, the first sent when asked (no window on the clock); then the halves of the first.
    const posts = invitePosts(emu);
    const batch = (from: number, to: number) => users.slice(from, to);
    expect(posts[0]).toMatchObject({ at: asked, userIds: batch(0, 100) });
    for (const userIds of [batch(100, 200), batch(200, 210), batch(210, 230)]) expect(posts.map((p) => p.userIds)).toContainEqual(userIds);
    const applied = appliedPerUser(emu);
    for (const u of users) expect(applied.get(u) ?? 0).toBe(u === bad ? 0 : 1);
  });

  it("a lone invitation is sent at once: no window, the POST arrives at the time it was asked for", async () => {
    const { emu, users, clock, batcher } = await world(1);
    const asked = clock.now();
    await batcher.submit(invitation(users[0]!));
    // Any wait before the POST would have moved the virtual clock on.
    expect(invitePosts(emu).map((p) => p.at)).toEqual([asked]);
  });

  it("while a batch of its kind is in flight, the next one waits for it to end, and the creates it releases join", async () => {
    const { emu, users, batcher } = await world(6);
    const first = batcher.submit(invitation(users[0]!));
    // Until the emulator has the first POST (real I/O: turns of the event loop, not time).
    for (let turn = 0; turn < 10_000 && invitePosts(emu).length === 0; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(invitePosts(emu)).toHaveLength(1);
    // Two come while the first is in flight: held, not sent as a batch of their own.
    const held = users.slice(1, 3).map((u) => batcher.submit(invitation(u)));
    await first;
    // The first's create returned, and the engine starts the next ones: they join the held batch.
    const released = users.slice(3).map((u) => batcher.submit(invitation(u)));
    await Promise.all([...held, ...released]);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 5]);
  });

  it("while invitations are under way, a later one waits the short window for others to join", async () => {
    const { emu, users, clock, batcher } = await world(4);
    const first = batcher.submit(invitation(users[0]!));
    await first;
    const asked = clock.now();
    await Promise.all(users.slice(1).map((u) => batcher.submit(invitation(u))));
    const posts = invitePosts(emu);
    expect(posts.map((p) => p.userIds.length)).toEqual([1, 3]);
    expect(posts[1]!.at - asked).toBe(WINDOW_MS);
  });
});

describe("the window follows the pace invitations arrive at", () => {
  it.each([
    ["together (a burst)", 0, WINDOW_MS, MAX_BATCH_OPEN_MS],
    ["3 ms apart", 3, WINDOW_MS, MAX_BATCH_OPEN_MS],
    ["30 ms apart (a checkpoint each, under the CLI)", 30, 60, 240],
    ["200 ms apart", 200, 400, 1600],
    ["slower still", 400, PAUSE_GAP_MS, MAX_PACED_OPEN_MS],
  ])("%s: closes after %#", (_what, pace, idleMs, openMs) => {
    expect(paced(pace)).toEqual({ idleMs, openMs });
  });

  it("creates paced as the real CLI paces them go out in batches of --parallel, the engine kept within 1.25× of its own time", async () => {
    const { emu, users } = await world(80);
    const { client } = clientFor(emu, { maxRetries: 0, jobTimeoutSeconds: 1 });
    const clock = new ManualClock();
    const batcher = new InviteBatcher(client, clock);
    const parallel = 8;
    const checkpointMs = 15;
    // The engine: 8 steps at once; one checkpoint at a time, when a step starts and when it ends.
    let checkpoints: Promise<void> = Promise.resolve();
    const checkpoint = () => {
      checkpoints = checkpoints.then(() => clock.sleep(checkpointMs));
      return checkpoints;
    };
    const queue = [...users];
    const results: InvitationResult[] = [];
    const worker = async () => {
      for (let user = queue.shift(); user !== undefined; user = queue.shift()) {
        await checkpoint();
        results.push(await batcher.submit(invitation(user)));
        await checkpoint();
      }
    };
    const engine = Promise.all(Array.from({ length: parallel }, worker));
    // Time moves only when nothing else can: no request in flight, then to the next timer due.
    for (let done = false; !done; ) {
      await quiet();
      void engine.then(() => {
        done = true;
      });
      await quiet();
      if (!done) clock.advanceToNext();
    }
    expect(results.every((r) => r.kind === "invited")).toBe(true);
    const posts = invitePosts(emu);
    expect(posts.flatMap((p) => p.userIds).sort()).toEqual([...users].sort());
    const sizes = posts.map((p) => p.userIds.length);
    // The first alone (a lone create is not held), the first window by the pace, then --parallel each, the rest last.
    expect(sizes.slice(2, -1), JSON.stringify(sizes)).toEqual(sizes.slice(2, -1).map(() => parallel));
    expect(posts.length, JSON.stringify(sizes)).toBeLessThanOrEqual(Math.ceil(users.length / parallel) + 2);
    // A no-op provider: the engine's checkpoints alone, two per create.
    expect(clock.time, `${clock.time} ms`).toBeLessThanOrEqual(1.25 * users.length * 2 * checkpointMs);
  });
});

/**
 * The batcher's own time, moved only by the test: a sleep ends when the test moves the clock past
 * it (the client keeps the emulator's virtual clock, so its job polls do not move this one).
 */
class ManualClock {
  time = 0;
  readonly #timers: Array<{ due: number; done: () => void }> = [];
  now = () => this.time;
  sleep = (ms: number) => new Promise<void>((done) => this.#timers.push({ due: this.time + ms, done }));
  /** Moves to the next sleep's end (the test's engine moves time only when nothing else can happen). */
  advanceToNext(): void {
    const due = Math.min(...this.#timers.map((t) => t.due));
    if (!Number.isFinite(due)) throw new Error("nothing left to wait for: the engine is stuck");
    this.advance(due - this.time);
  }
  advance(ms: number): void {
    this.time += ms;
    for (const t of this.#timers.filter((x) => x.due <= this.time)) {
      this.#timers.splice(this.#timers.indexOf(t), 1);
      t.done();
    }
  }
}

/** Requests to the emulator not answered yet (undici's diagnostics channels). */
let requestsInFlight = 0;
diagnostics.subscribe("undici:request:create", () => requestsInFlight++);
diagnostics.subscribe("undici:request:trailers", () => requestsInFlight--);
diagnostics.subscribe("undici:request:error", () => requestsInFlight--);

/** Until no request has been in flight for 20 turns of the event loop: what can happen without time moving has. */
async function quiet(): Promise<void> {
  for (let calm = 0; calm < 20; calm = requestsInFlight > 0 ? 0 : calm + 1) await new Promise((resolve) => setImmediate(resolve));
}

/** `n` turns of the event loop: the batcher's own steps between two arrivals. */
async function turns(n: number): Promise<void> {
  for (let turn = 0; turn < n; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** Turns of the event loop (real I/O to the emulator included) until `done()` or 10,000 turns. */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe("the batch goes out as soon as the engine can start no more creates", () => {
  it("once a batch's creates were all the engine ran (8), the next 8 go out at the 8th arrival, with no window waited", async () => {
    const { emu, users } = await world(24);
    const { client } = clientFor(emu, { maxRetries: 0, jobTimeoutSeconds: 1 });
    const clock = new ManualClock();
    const batcher = new InviteBatcher(client, clock);
    const gap = 30; // one checkpoint between two creates' starts
    // A lone create first (sent at once), then 8 creates one checkpoint apart: the window closes
    // after two gaps with no arrival (the pace is learnt), so the 8 go out together.
    await batcher.submit(invitation(users[0]!));
    const arrive = async (group: string[]) => {
      const results: Promise<InvitationResult>[] = [];
      for (const u of group) {
        clock.advance(gap);
        results.push(batcher.submit(invitation(u)));
        await turns(10);
      }
      return results;
    };
    const first = await arrive(users.slice(1, 9));
    await turnsUntil(() => invitePosts(emu).length === 2);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1]);
    clock.advance(paced(gap).idleMs);
    await Promise.all(first);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 8]);
    // The engine starts the next 8 as those return: the 8th fills the batch, which goes at once.
    const second = await arrive(users.slice(9, 17));
    const at = clock.now();
    await Promise.all(second);
    expect(clock.now()).toBe(at);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 8, 8]);
    // Fewer than the engine ran (the last creates of a deployment): the window closes after twice the gap's idle.
    const last = await arrive(users.slice(17, 20));
    clock.advance(paced(gap).idleMs);
    await turnsUntil(() => invitePosts(emu).length === 4);
    expect(invitePosts(emu)).toHaveLength(3);
    clock.advance(paced(gap).idleMs);
    await Promise.all(last);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 8, 8, 3]);
    // After a pause (a checkpoint stalled on a busy machine), a create of this deployment of many still waits for others.
    clock.advance(5000);
    const late = batcher.submit(invitation(users[20]!));
    const later = (await arrive(users.slice(21, 22)))[0]!;
    await turnsUntil(() => invitePosts(emu).length === 5);
    expect(invitePosts(emu)).toHaveLength(4);
    clock.advance(4 * paced(gap).idleMs);
    await Promise.all([late, later]);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 8, 8, 3, 2]);
  });

  it("creates released by a batch join those held while it was in flight, up to what the engine runs: batches stay whole", async () => {
    const { emu, users } = await world(24);
    const { client } = clientFor(emu, { maxRetries: 0, jobTimeoutSeconds: 1 });
    const clock = new ManualClock();
    const batcher = new InviteBatcher(client, clock);
    await batcher.submit(invitation(users[0]!));
    // 5 come together and go (the window closes after the gap); 3 more come while they are in flight.
    const five = users.slice(1, 6).map((u) => batcher.submit(invitation(u)));
    await turns(10);
    clock.advance(paced(0).idleMs);
    await turnsUntil(() => invitePosts(emu).length === 2);
    const three = users.slice(6, 9).map((u) => batcher.submit(invitation(u)));
    await Promise.all(five);
    // Held until the 5 settled; the 8 in flight then are what the engine runs: the 5 released join the 3.
    const released = users.slice(9, 14).map((u) => batcher.submit(invitation(u)));
    const at = clock.now();
    await Promise.all([...three, ...released]);
    expect(clock.now()).toBe(at);
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([1, 5, 8]);
  });
});

describe.each(["whole", "partial"] as const)("a job that fails for one user of a 100-user batch (service fails %s)", (mode) => {
  it("exactly that user fails; the other 99 are members, each applied by exactly one job", async () => {
    const { emu, users, batcher } = await world(100, { batchInviteFailure: mode });
    const bad = users[37]!;
    emu.jobs.failInvitesOf([bad]);
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    const failed = results.flatMap((r, i) => (r.status === "rejected" ? [{ user: users[i]!, reason: r.reason as Error }] : []));
    expect(failed.map((f) => f.user)).toEqual([bad]);
    expect(JobFailedError.isInstance(failed[0]!.reason)).toBe(true);
    const members = emu.integrations.members(INTEGRATION).map((m) => m.userId);
    expect(members.sort()).toEqual(users.filter((u) => u !== bad).sort());
    const applied = appliedPerUser(emu, mode);
    for (const u of users) expect(applied.get(u) ?? 0, u).toBe(u === bad ? 0 : 1);
    // Halving: the first batch, then log2(100) levels down to the user at fault.
    expect(invitePosts(emu).length).toBeLessThanOrEqual(1 + 2 * 7);
    if (mode === "partial") {
      // The 99 applied by the failed job were found in the member list, not sent again.
      expect(invitePosts(emu).filter((p) => p.userIds.includes(users[0]!))).toHaveLength(1);
    }
  });
});

it("a failed batch job whose member list cannot be read: every user fails, marked as possibly invited (a partly applied job may have added them)", async () => {
  const { emu, users, batcher } = await world(6, { batchInviteFailure: "partial" });
  emu.jobs.failInvitesOf([users[2]!], "partial");
  // The list read after the failed job answers 500 (and the client does not retry here).
  emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, status: 500, times: 10 });
  const results = await Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
  for (const r of results) {
    // A value, not an error: pending with no job to wait for (the next up reads each member first).
    const pending = pendingOf(r);
    expect(pending.jobId).toBeNull();
    expect(JobFailedError.isInstance(pending.error)).toBe(true);
  }
  // The five the job applied are members; none was invited again.
  expect(emu.integrations.members(INTEGRATION)).toHaveLength(5);
  expect(invitePosts(emu)).toHaveLength(1);
});

it("a failed batch job whose misses cannot be confirmed (the proving listing and the direct read fail): they are pending, none invited again", async () => {
  const { emu, users, batcher } = await world(4, { batchInviteFailure: "partial" });
  const bad = users[1]!;
  emu.jobs.failInvitesOf([bad], "partial");
  // The list read after the failed job answers (the three the job applied); the listing that would prove bad's absence fails.
  const listPath = `/integrations/${INTEGRATION}/users`;
  const empty = { data: [], links: { next: null }, meta: { page: { total: 0 } } };
  for (const u of users.filter((u) => u !== bad))
    emu.integrations.setMember(INTEGRATION, u, { role: "collaborator", entitlements: ["VIEWER"] });
  const answer = await fetch(new URL(`integrations/${INTEGRATION}/users?page[size]=100`, emu.url), {
    headers: { "X-API-Key": emu.apiKey },
  });
  const page = await answer.json();
  for (const u of users) emu.integrations.removeMember(INTEGRATION, u);
  expect(page).not.toEqual(empty);
  emu.clearRequests();
  emu.fault({ method: "GET", path: listPath, body: JSON.stringify(page), times: 1 });
  emu.fault({ method: "GET", path: listPath, status: 500, times: 10 });
  emu.fault({ method: "GET", path: `${listPath}/${bad}`, status: 500, times: 10 });
  const results = await Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
  expect(results.map((r) => (r.status === "fulfilled" ? (r.value as InvitationResult).kind : "rejected"))).toEqual(
    users.map((u) => (u === bad ? "pending" : "member")),
  );
  expect(pendingOf(results[1]!).jobId).toBeNull();
  // The list, the listing at another page size and the direct read of bad, both refused: bad's absence unproven.
  expect(emu.requests.filter((r) => r.method === "GET" && r.path.startsWith(listPath)).map((r) => r.status)).toEqual([200, 500, 500]);
  expect(invitePosts(emu)).toHaveLength(1);
});

describe("a member whose record in the list read cannot be used", () => {
  /** From now on, the member list answers once with what it holds now plus `extra` as members, `odd`'s record malformed. */
  async function serveListOnce(emu: Emulator, extra: string[], odd: string) {
    for (const u of extra) emu.integrations.setMember(INTEGRATION, u, { role: "collaborator", entitlements: ["VIEWER"] });
    const answer = await fetch(new URL(`integrations/${INTEGRATION}/users?page[size]=100`, emu.url), {
      headers: { "X-API-Key": emu.apiKey },
    });
    const page = (await answer.json()) as { data: Array<{ id: string; attributes: Record<string, unknown> }> };
    for (const u of extra) emu.integrations.removeMember(INTEGRATION, u);
    // A number where the contract has a string: the record fails parsing, the others are read.
    for (const record of page.data) if (record.id === odd) record.attributes["email"] = 42;
    emu.clearRequests();
    emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: JSON.stringify(page) });
  }

  it("after a 409: that user fails naming the record, not marked as invited by this run; the others go as one batch", async () => {
    const { emu, users, batcher } = await world(10);
    emu.integrations.setMember(INTEGRATION, users[3]!, { role: "collaborator", entitlements: ["EDITOR"] });
    await serveListOnce(emu, [], users[3]!);
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(users.map((_, i) => (i === 3 ? "rejected" : "fulfilled")));
    const reason = (results[3] as PromiseRejectedResult).reason as Error;
    expect(reason.message).toContain(users[3]!);
    expect(reason.message).toContain("email");
    // A member before this run: its create fails as a plain error, not as a possibly landed invitation.
    expect(PartialWriteError.isInstance(reason)).toBe(false);
    expect(invitePosts(emu).map((p) => [p.status, p.userIds.length])).toEqual([
      [409, 10],
      [200, 9],
    ]);
    const applied = appliedPerUser(emu);
    for (const [i, u] of users.entries()) expect(applied.get(u) ?? 0).toBe(i === 3 ? 0 : 1);
  });

  it("after a 409 the member list skipped the member: its absence is not taken from it, the member is found and handed back, the others invited once", async () => {
    const { emu, users, batcher } = await world(4);
    emu.integrations.setMember(INTEGRATION, users[2]!, { role: "collaborator", entitlements: ["EDITOR"] });
    // The list read after the 409 skips everyone (records moving between its pages), once.
    const empty = { data: [], links: { next: null }, meta: { page: { total: 0 } } };
    emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: JSON.stringify(empty), times: 1 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    // The member is found by the confirmation of the list's misses: someone else's (existed), not invited by this run.
    expect(results.map((r) => (r.status === "fulfilled" ? (r.value as InvitationResult).kind : "rejected"))).toEqual(
      users.map((_, i) => (i === 2 ? "member" : "invited")),
    );
    expect(results[2]).toMatchObject({ value: { existed: true } });
    expect(invitePosts(emu).map((p) => [p.status, p.userIds])).toEqual([
      [409, users],
      [200, users.filter((_, i) => i !== 2)],
    ]);
    const applied = appliedPerUser(emu);
    for (const [i, u] of users.entries()) expect(applied.get(u) ?? 0, u).toBe(i === 2 ? 0 : 1);
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === users[2])).toMatchObject({ entitlements: ["EDITOR"] });
  });

  it("after a 409, a member the list skipped is never invited again on the hope of another 409: a service merging it would change their access", async () => {
    const { emu, users, batcher } = await world(10);
    // A service that merges an invitation of a member into what they hold, whose first answer is a 409 (about someone else).
    emu.quirks.inviteExisting = "merge";
    emu.integrations.setMember(INTEGRATION, users[6]!, { role: "collaborator", entitlements: ["EDITOR"] });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 409, times: 1 });
    const empty = { data: [], links: { next: null }, meta: { page: { total: 0 } } };
    emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: JSON.stringify(empty), times: 1 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results[6]).toMatchObject({ status: "fulfilled", value: { kind: "member", existed: true } });
    expect(invitePosts(emu).map((p) => p.userIds)).toEqual([users, users.filter((_, i) => i !== 6)]);
    // Their membership as it was: not merged, not this run's.
    expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === users[6])).toMatchObject({ entitlements: ["EDITOR"] });
    expect(appliedPerUser(emu).get(users[6]!) ?? 0).toBe(0);
  });

  it("after a 409 whose members cannot be confirmed (every member read fails): every user fails with the 409 and why, none invited again", async () => {
    const { emu, users, batcher } = await world(4);
    emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, status: 500, times: 100 });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 409, times: 1 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(users.map(() => "rejected"));
    const reason = (results[1] as PromiseRejectedResult).reason as Error;
    expect(ConflictError.isInstance(reason)).toBe(true);
    expect(reason.message).toContain(users[1]!);
    expect(reason.message).toMatch(/could not be confirmed .*none was invited again/);
    expect(invitePosts(emu)).toHaveLength(1);
  });

  it("after a failed job that applied the others: that user fails marked as possibly invited; the user at fault fails; nobody is invited twice", async () => {
    const { emu, users, batcher } = await world(6, { batchInviteFailure: "partial" });
    const [bad, odd] = [users[2]!, users[4]!];
    emu.jobs.failInvitesOf([bad], "partial");
    // The list read after the failed job: the five it applied, odd's record malformed.
    await serveListOnce(
      emu,
      users.filter((u) => u !== bad),
      odd,
    );
    const results = await Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(users.map((u) => (u === bad ? "rejected" : "fulfilled")));
    const odds = pendingOf(results[4]!);
    expect(odds.error.message).toContain(odd);
    // Pending with no job to wait for: the next up reads the member before inviting.
    expect(odds.jobId).toBeNull();
    expect(JobFailedError.isInstance((results[2] as PromiseRejectedResult).reason)).toBe(true);
    const applied = appliedPerUser(emu, "partial");
    for (const u of users) expect(applied.get(u) ?? 0, u).toBe(u === bad ? 0 : 1);
    // The batch, then the user at fault alone (the odd one is not sent again).
    expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([6, 1]);
  });
});

describe("a failed batch job whose misses are read one by one", () => {
  it("a user whose direct read is unusable is pending alone; a user read absent is sent again, whichever the other", async () => {
    // 307 members already: the three misses are fewer than the list's four pages, so each is read directly.
    const { emu, users, batcher } = await world(310, { batchInviteFailure: "whole" });
    for (const u of users.slice(3)) emu.integrations.setMember(INTEGRATION, u, { role: "collaborator", entitlements: ["VIEWER"] });
    const [odd, bad, good] = users as [string, string, string];
    emu.jobs.failInvitesOf([bad], "whole");
    // A number where the contract has a string: odd's record fails parsing.
    const malformed = { data: { id: odd, type: "integration_user", attributes: { email: 42, role: "account_collaborator" } } };
    emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users/${odd}`, body: JSON.stringify(malformed) });
    const results = await Promise.allSettled([odd, bad, good].map((u) => batcher.submit(invitation(u))));
    expect(pendingOf(results[0]!).error.message).toContain(odd);
    expect(pendingOf(results[0]!).jobId).toBeNull();
    expect(JobFailedError.isInstance((results[1] as PromiseRejectedResult).reason)).toBe(true);
    expect(results[2]).toMatchObject({ status: "fulfilled", value: { kind: "invited" } });
    const applied = appliedPerUser(emu);
    expect([odd, bad, good].map((u) => applied.get(u) ?? 0)).toEqual([0, 0, 1]);
  });
});

describe("a batch's request fails", () => {
  it("refused for one user (404 on any request naming it): split down to that user, the others invited once", async () => {
    const { emu, users, batcher } = await world(16);
    const bad = users[5]!;
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, userId: bad, status: 404, times: 100 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(users.map((u) => (u === bad ? "rejected" : "fulfilled")));
    const reason = (results[5] as PromiseRejectedResult).reason as Error;
    expect(NotFoundError.isInstance(reason)).toBe(true);
    const applied = appliedPerUser(emu);
    for (const u of users) expect(applied.get(u) ?? 0).toBe(u === bad ? 0 : 1);
  });

  it("a 409 about one user that is no member (each confirmed absent): halves find that user, the members read once, not at each halving", async () => {
    const { emu, users, batcher } = await world(8);
    const bad = users[5]!;
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, userId: bad, status: 409, times: 100 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(users.map((u) => (u === bad ? "rejected" : "fulfilled")));
    expect(ConflictError.isInstance((results[5] as PromiseRejectedResult).reason)).toBe(true);
    // The list after the first 409 and the listing proving its misses; then only the user at fault read alone.
    const reads = emu.requests.filter((r) => r.method === "GET" && r.path.startsWith("/integrations/")).map((r) => r.path);
    expect(reads).toEqual([
      `/integrations/${INTEGRATION}/users`,
      `/integrations/${INTEGRATION}/users`,
      `/integrations/${INTEGRATION}/users/${bad}`,
    ]);
    const applied = appliedPerUser(emu);
    for (const u of users) expect(applied.get(u) ?? 0, u).toBe(u === bad ? 0 : 1);
  });

  it("a 409 (one is a member already): that user comes back as existing, the rest, proven absent by a second listing, go as one batch", async () => {
    const { emu, users, batcher } = await world(10);
    emu.integrations.setMember(INTEGRATION, users[3]!, { role: "collaborator", entitlements: ["EDITOR"] });
    const outcomes = await Promise.all(users.map((u) => batcher.submit(invitation(u))));
    expect(outcomes[3]).toMatchObject({ existed: true, member: { id: users[3], entitlements: ["EDITOR"] } });
    const posts = invitePosts(emu);
    expect(posts.map((p) => [p.status, p.userIds.length])).toEqual([
      [409, 10],
      [200, 9],
    ]);
    // The list, then one at another page size agreeing with it: the others' absence proven (a list alone proves presence only).
    const lists = emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}/users`);
    expect(lists.map((r) => r.query["page[size]"])).toEqual(["100", "99"]);
    expect(lists).toHaveLength(2);
  });

  it("an ambiguous failure (the connection drops after the service acted) is never re-sent: the users found members are done, the others fail", async () => {
    const { emu, users, batcher } = await world(8);
    // The job is applied at once, before the answer is lost: every user is a member at the list read.
    emu.jobs.setTiming({ finishAfterMs: 0 });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, reset: true, afterHandling: true });
    const outcomes = await Promise.all(users.map((u) => batcher.submit(invitation(u))));
    expect(outcomes.every((o) => o.kind === "member" && !o.existed)).toBe(true);
    expect(invitePosts(emu)).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}/users`)).toHaveLength(1);
  });

  it("a success whose answer cannot be read (the job unknown) is never re-sent: members found are done as made, the others pending", async () => {
    const { emu, users, batcher } = await world(6);
    // The first batch lands and its members are there at once; the answer is a gateway's page, not the job.
    emu.jobs.setTiming({ finishAfterMs: 0 });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 200, body: "<html>OK</html>", afterHandling: true });
    const outcomes = await Promise.all(users.slice(0, 3).map((u) => batcher.submit(invitation(u))));
    expect(outcomes.every((o) => o.kind === "member" && !o.existed)).toBe(true);
    expect(invitePosts(emu)).toHaveLength(1);
    // The second lands as a job not run yet: nobody is a member at the list read, so each is pending, no job known.
    emu.jobs.setTiming({ finishAfterPolls: 1 });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 200, body: "<html>OK</html>", afterHandling: true });
    const results = await Promise.allSettled(users.slice(3).map((u) => batcher.submit(invitation(u))));
    for (const r of results) expect(pendingOf(r).jobId).toBeNull();
    expect(invitePosts(emu)).toHaveLength(2);
  });

  it("a single invitation answered success unreadably: its member is read, and found is made by it, not someone else's", async () => {
    const { emu, users, batcher } = await world(1);
    emu.jobs.setTiming({ finishAfterMs: 0 });
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 202, body: "Accepted", afterHandling: true });
    expect(await batcher.submit(invitation(users[0]!))).toMatchObject({ kind: "member", existed: false });
    expect(invitePosts(emu)).toHaveLength(1);
    expect(emu.requests.at(-1)).toMatchObject({ method: "GET", path: `/integrations/${INTEGRATION}/users/${users[0]}` });
  });

  it("an ambiguous failure whose job has not run yet: every user fails naming itself, nothing is sent again", async () => {
    const { emu, users, batcher } = await world(8);
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, reset: true, afterHandling: true });
    const results = await Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
    results.forEach((r, i) => {
      const { jobId, error } = pendingOf(r);
      expect(jobId).toBeNull();
      expect(ConnectionError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`Inviting user ${users[i]} (one of 8 invited together)`);
      for (const other of users) if (other !== users[i]) expect(error.message).not.toContain(other);
    });
    expect(invitePosts(emu)).toHaveLength(1);
  });
});

it("a batch's job that is not seen to finish: every user is pending with the job, so the next up waits instead of inviting again", async () => {
  const { emu, users, batcher } = await world(5);
  emu.jobs.hangNext(1);
  const results = await Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
  const job = emu.jobs.list()[0]!.id;
  for (const r of results) {
    const { jobId, error } = pendingOf(r);
    expect(jobId).toBe(job);
    expect(JobTimeoutError.isInstance(error)).toBe(true);
  }
  expect(invitePosts(emu)).toHaveLength(1);
});

it("a failed batch job whose member list skipped a member the job applied (a page shift): that member is found, not invited again", async () => {
  const { emu, users, batcher } = await world(6, { batchInviteFailure: "partial" });
  const bad = users[2]!;
  const skipped = users[4]!;
  emu.jobs.failInvitesOf([bad], "partial");
  // The list read after the failed job: every member the job applied but one, as a shifted page would.
  const answer = () => {
    const data = emu.integrations
      .members(INTEGRATION)
      .filter((m) => m.userId !== skipped)
      .map((m) => ({ id: m.userId, type: "user", attributes: { role: m.role, entitlements: m.entitlements.map((id) => ({ id })) } }));
    return JSON.stringify({ data, links: { self: "/", next: null, previous: null }, meta: { page: { maxSize: 100, total: data.length } } });
  };
  const results = Promise.allSettled(users.map((u) => batcher.submit(invitation(u))));
  // Until the failed job has settled (the list read comes after it), then serve the shifted list once.
  for (let turn = 0; turn < 10_000 && !emu.jobs.list().some((j) => j.status === "error"); turn++)
    await new Promise((resolve) => setImmediate(resolve));
  emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, body: answer() });
  const settled = await results;
  expect(settled.map((r) => r.status)).toEqual(users.map((u) => (u === bad ? "rejected" : "fulfilled")));
  // Found after a failed job holding what it asked: the job's (one added by someone meanwhile with another set would be theirs).
  expect((settled[4] as PromiseFulfilledResult<InvitationResult>).value).toMatchObject({ kind: "member", existed: false });
  // Found by the listings that prove the first one's misses (two that agree); nobody but the user at fault was sent again.
  expect(emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}/users`)).toHaveLength(3);
  const applied = appliedPerUser(emu, "partial");
  for (const u of users) expect(applied.get(u) ?? 0, u).toBe(u === bad ? 0 : 1);
  expect(invitePosts(emu).map((p) => p.userIds.length)).toEqual([6, 1]);
});

describe("a batch into an integration deleted since its members were read", () => {
  it("its 404 reads the integration once: gone, every user fails with it, and the batch is not halved down to each user", async () => {
    const { emu, users, batcher } = await world(8);
    emu.integrations.remove(INTEGRATION);
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    results.forEach((r, i) => {
      expect(r.status).toBe("rejected");
      const error = (r as PromiseRejectedResult).reason as Error;
      expect(NotFoundError.isInstance(error)).toBe(true);
      expect(error.message).toContain(`Inviting user ${users[i]} (one of 8 invited together)`);
    });
    // One invitation, then the integration's own read: not 15 POSTs (8 halved down to 1), each answering 404 alike.
    expect(invitePosts(emu)).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}`)).toHaveLength(1);
  });

  it("a 404 while the integration answers is one user's: halved down to that user, as before", async () => {
    const { emu, users, batcher } = await world(4);
    emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, userId: users[1]!, status: 404, times: 10 });
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
  });
});

describe("a batch answered 404 whose integration's own read fails (a 503, a 429, no answer)", () => {
  // The read as the client gives up on it: a 503 not retried (maxRetries 0), a 429 once its two waits are spent
  // (maxRateLimitRetries 2: three reads), a connection reset.
  it.each([
    ["503", { status: 503 }, "answered 503", 1],
    ["429", { status: 429, headers: { "Retry-After": "1" } }, "answered 429", 3],
    ["a reset connection", { reset: true }, `GET /api/v1/integrations/${INTEGRATION}`, 1],
  ] as const)(
    "its read %s: every user fails at once naming the 404 and that read, not halved, nothing sent again",
    async (_, fault, how, reads) => {
      const { emu, users } = await world(8);
      const { client, clock } = clientFor(emu, { maxRetries: 0, maxRateLimitRetries: 2, jobTimeoutSeconds: 1 });
      const batcher = new InviteBatcher(client, clock);
      emu.fault({ method: "POST", path: `/integrations/${INTEGRATION}/users`, status: 404, times: 100 });
      emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}`, ...fault, times: 100 });
      emu.clearRequests();
      const results = await settle(users.map((u) => batcher.submit(invitation(u))));
      results.forEach((r, i) => {
        expect(r.status).toBe("rejected");
        const error = (r as PromiseRejectedResult).reason as Error;
        // Not a 404: nobody reads it as the integration gone, nor a user's.
        expect(NotFoundError.isInstance(error)).toBe(false);
        expect(error.message).toContain(`Inviting user ${users[i]} (one of 8 invited together)`);
        expect(error.message).toContain(
          `POST /api/v1/integrations/${INTEGRATION}/users answered 404, and GET /integrations/${INTEGRATION}`,
        );
        expect(error.message).toContain("did not answer it, so nothing was read as gone");
        expect(error.message).toContain(how);
        expect(error.message).toContain("Nothing was invited, and no invitation was sent again: run pulumi up again");
        expect(error.message).toContain("check the key's scopes");
        expect(error.message).toContain("the integrationId");
      });
      // One invitation (its 404 the client's first answer: the address's proof, GET /users), then the integration's read: not 15
      // invitations (8 halved down to each user), each 404 followed by a read.
      const integrationReads = emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}`);
      expect(emu.requests.filter((r) => !integrationReads.includes(r)).map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        `POST /integrations/${INTEGRATION}/users 404`,
        "GET /users 200",
      ]);
      expect(integrationReads).toHaveLength(reads);
      expect(emu.requests.at(-1)).toBe(integrationReads.at(-1));
      expect(emu.integrations.members(INTEGRATION)).toEqual([]);
    },
  );
});

describe("a batch into an integration the key is not shown (a service answering 404 for a missing scope)", () => {
  /** Neither reads nor writes integrations: its invitation answers 404, and so does the integration's own read. */
  const BLIND = `wa_blind_${"3".repeat(16)}`;
  issuedKeys.add(BLIND);

  it("its 404 cannot be told apart for any user: every user fails naming read:integrations and the key's setting, nothing sent again", async () => {
    const emu = await emulator({
      seed: { integrations: [{ id: INTEGRATION, application: "app", entitlements: [{ id: "VIEWER" }] }] },
      job: { finishAfterPolls: 1 },
      keys: { [BLIND]: ALL_SCOPES.filter((scope) => !scope.endsWith(":integrations")) },
      missingScopeStatus: 404,
    });
    const users = Array.from({ length: 8 }, (_, i) => emu.users.add({ email: `u${i}@example.com`, firstName: "U", lastName: `${i}` }).id);
    const { client, clock } = clientFor(emu, { apiKey: BLIND, maxRetries: 0, jobTimeoutSeconds: 1 });
    const batcher = new InviteBatcher(client, clock);
    const results = await settle(users.map((u) => batcher.submit(invitation(u))));
    results.forEach((r, i) => {
      expect(r.status).toBe("rejected");
      const error = (r as PromiseRejectedResult).reason as ConfigurationError;
      expect(ConfigurationError.isInstance(error)).toBe(true);
      expect(error.setting).toBe("apiKey");
      expect(error.message).toContain(`Inviting user ${users[i]} (one of 8 invited together)`);
      expect(error.message).toContain(`/integrations/${INTEGRATION}/users answered 404`);
      expect(error.message).toContain("Read integrations (read:integrations)");
    });
    // One invitation and the integration's read (with its listing, which tells it withheld): not 15 POSTs, halved down to each user.
    expect(invitePosts(emu)).toHaveLength(1);
    expect(emu.requests.filter((r) => r.method === "GET" && r.path === `/integrations/${INTEGRATION}`)).toHaveLength(1);
    expect(emu.integrations.members(INTEGRATION)).toEqual([]);
  });
});

describe("invitations bound by a customTimeouts, batched together", () => {
  it("each waits for the batch's job till its own end: one begun later is invited when the job finishes after the earlier one's end", async () => {
    const { emu, users, clock, client } = await world(2, { finishAfterMs: 20_000 });
    // Two creates bound by the same customTimeouts.create ("30s"), the first begun 20 s before the second: their ends are
    // 10 s and 30 s from now, the job's end 20 s from now.
    const within = "this resource's customTimeouts.create, 30s from the start of its create";
    const ends = [clock.now() + 10_000, clock.now() + 30_000];
    let next = 0;
    const batcher = new InviteBatcher(client, clock, () => ({ at: ends[next++]!, within, raise: "customTimeouts.create" }));
    const began = clock.now();
    const [first, second] = await Promise.all(users.map((u) => batcher.submit(invitation(u))));
    // One invitation for both, as before.
    expect(invitePosts(emu).map((p) => p.userIds)).toEqual([users]);
    const job = emu.jobs.list()[0]!;
    // The first's end came before the job finished: it may still land, recorded with the job.
    expect(first).toMatchObject({ kind: "pending", jobId: job.id });
    expect((first as { error: Error }).error.message).toContain(`did not finish within ${within}`);
    // The second's did not: it waited on, and the job finished within it.
    expect(second).toEqual({ kind: "invited", jobId: job.id });
    expect(clock.now() - began).toBeLessThan(30_000);
  });
});

it("a failed batch job whose member found holds the role asked but a record leaving the set out: someone else's, not the job's (no claim on a guess)", async () => {
  const { emu, users, batcher } = await world(2);
  emu.quirks.inviteExisting = "fail";
  emu.quirks.memberEntitlements = "left-out";
  // A member before the invitation, holding another set than it asks: the job fails naming them, and applies nothing.
  emu.integrations.setMember(INTEGRATION, users[1]!, { role: "collaborator", entitlements: ["EDITOR"] });
  const settled = await settle(users.map((u) => batcher.submit(invitation(u))));
  // Their record says nothing of the set: not shown to be what the job asked, so existing before (given back by a destroy).
  expect((settled[1] as PromiseFulfilledResult<InvitationResult>).value).toMatchObject({ kind: "member", existed: true });
  expect((settled[0] as PromiseFulfilledResult<InvitationResult>).value).toMatchObject({ kind: "invited" });
  expect(emu.integrations.members(INTEGRATION).find((m) => m.userId === users[1])?.entitlements).toEqual(["EDITOR"]);
});
