/**
 * The quirks the contract allows (pages that shift, records listed twice, invitations of members
 * merged or failed, ids in upper case, 204 answers, integration writes done with no job, null
 * fields), each proved over HTTP, and the adversarial world that turns them on. Without quirks
 * nothing changes (the other emulator tests run with none).
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  ADVERSARIAL_IDS,
  ALREADY_MEMBER,
  ENTITLEMENT_NOT_FOUND,
  type Emulator,
  type EmulatorOptions,
  POPULATED_BIG_MEMBERS,
  POPULATED_IDS,
  populatedUserId,
  type SeedUser,
  startEmulator,
} from "../../src/emulator/index";
import { parseQuirk } from "../../src/emulator/quirks";
import { formatTimestamp } from "../../src/emulator/time";
import { VirtualClock } from "../support/virtual-clock";
import { type Answer, at, call, manyUsers, TEAM, teamSeed } from "./helpers";

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function start(options: EmulatorOptions): Promise<Emulator> {
  emulator = await startEmulator({ job: { finishAfterPolls: 1 }, ...options });
  return emulator;
}

const LIST = "aaaaaaaa-0000-4000-8000-000000000001";

/** 151 users, all members of one integration, in order. */
function bigList(): EmulatorOptions["seed"] {
  const users: SeedUser[] = manyUsers(151).map((u, i) => ({ ...u, id: `bbbbbbbb-0000-4000-8000-${String(i).padStart(12, "0")}` }));
  return {
    users,
    integrations: [
      {
        id: LIST,
        application: "Big",
        entitlements: [{ id: "VIEWER" }],
        users: users.map((u) => ({ userId: u.id!, entitlements: ["VIEWER"] })),
      },
    ],
  };
}

/** Follows `links.next` from `path`, returning every id listed, in order, and the pages read. */
async function walk(e: Emulator, path: string): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let next: string | null = path;
  let pages = 0;
  // Bounded: a list that never ends fails its test rather than hang it.
  while (next !== null && pages < 200) {
    const answer: Answer = await call(e, "GET", next);
    expect(answer.status).toBe(200);
    pages += 1;
    for (const record of at(answer.json, "data") as Array<{ id: string }>) ids.push(record.id);
    next = at(answer.json, "links", "next") as string | null;
  }
  return { ids, pages };
}

const membersPath = (id: string) => `integrations/${id}/users?page%5Bsize%5D=100`;

async function finish(e: Emulator, answer: Answer): Promise<Answer> {
  expect(answer.status).toBe(200);
  const id = at(answer.json, "data", "id") as string;
  for (let i = 0; i < 5; i++) {
    const job = await call(e, "GET", `jobs/${id}`);
    const status = at(job.json, "data", "attributes", "status");
    if (status === "finished" || status === "error") return job;
  }
  throw new Error(`job ${id} never ended`);
}

const inviteBody = (userIds: string[], entitlements: string[], role = "account_collaborator") => ({
  data: { type: "invite_tenant_users", attributes: { role, entitlements: entitlements.map((id) => ({ id })), userIds } },
});

describe("shiftPages", () => {
  it("remove: a walk of 151 members misses exactly one (none of them removed); a second walk is complete", async () => {
    const e = await start({ seed: bigList(), quirks: { shiftPages: "remove" } });
    const all = e.integrations.members(LIST).map((m) => m.userId);
    const first = await walk(e, membersPath(LIST));
    expect(first.pages).toBe(2);
    expect(new Set(first.ids).size).toBe(first.ids.length);
    expect(all.filter((id) => !first.ids.includes(id))).toEqual([all[100]]);
    // Nobody a test made was removed: the shift was simulated.
    expect(e.integrations.members(LIST)).toHaveLength(151);
    const second = await walk(e, membersPath(LIST));
    expect(second.ids).toEqual(all);
  });

  it("a write the emulator accepts arms the shift again", async () => {
    const e = await start({ seed: bigList(), quirks: { shiftPages: "remove" } });
    await walk(e, membersPath(LIST));
    expect((await walk(e, membersPath(LIST))).ids).toHaveLength(151);
    const user = e.users.list()[0]!;
    const put = await call(e, "PUT", `users/${user.id}`, {
      body: {
        data: {
          type: "user",
          id: user.id,
          attributes: { email: user.email, firstName: "A", lastName: "B", role: "workspace_login_only", isGuest: false },
        },
      },
    });
    expect(put.status).toBe(200);
    expect((await walk(e, membersPath(LIST))).ids).toHaveLength(150);
    expect((await walk(e, membersPath(LIST))).ids).toHaveLength(151);
  });

  it("insert: a walk lists one record twice", async () => {
    const e = await start({ seed: bigList(), quirks: { shiftPages: "insert" } });
    const all = e.integrations.members(LIST).map((m) => m.userId);
    const { ids } = await walk(e, membersPath(LIST));
    expect(ids).toHaveLength(152);
    expect(new Set(ids)).toEqual(new Set(all));
    expect(ids.filter((id) => id === all[99])).toHaveLength(2);
  });

  it("shifts the users list too, per filter: the users list and a filtered one are separate walks", async () => {
    const e = await start({ seed: { users: manyUsers(5) }, quirks: { shiftPages: "remove" } });
    const all = e.users.list().map((u) => u.id);
    expect((await walk(e, "users?page%5Bsize%5D=2")).ids).toEqual([all[0], all[1], all[3], all[4]]);
    expect((await walk(e, "users?page%5Bsize%5D=2")).ids).toEqual(all);
    expect((await walk(e, "users?page%5Bsize%5D=1&filter=example.com")).ids).toEqual([all[0], all[2], all[3], all[4]]);
  });

  it("in the adversarial world, really removes another admin's membership sorting before the page, and nothing else", async () => {
    const e = await start({ world: "adversarial" });
    const big = POPULATED_IDS.integrations.big;
    const before = e.integrations.members(big).map((m) => m.userId);
    expect(before).toHaveLength(POPULATED_BIG_MEMBERS + ADVERSARIAL_IDS.otherAdminUsers.length);
    const { ids } = await walk(e, membersPath(big));
    const after = e.integrations.members(big).map((m) => m.userId);
    const removed = before.filter((id) => !after.includes(id));
    expect(removed).toHaveLength(1);
    expect(ADVERSARIAL_IDS.otherAdminUsers).toContain(removed[0]!);
    // Every populated member is still a member, and the walk missed exactly one record that is.
    for (let i = 0; i < POPULATED_BIG_MEMBERS; i++) expect(after).toContain(populatedUserId(i));
    const listed = new Set(ids.map((id) => id.toLowerCase()));
    expect(after.filter((id) => !listed.has(id))).toHaveLength(1);
  });

  it("never removes an integration a write named: its job ends; one a test deleted meanwhile ends in error, not a stuck job", async () => {
    const e = await start({ world: "adversarial", quirks: { repeatRecords: false, upperCaseIds: false } });
    const other = ADVERSARIAL_IDS.otherAdminIntegration;
    const invite = (userId: string) =>
      call(e, "POST", `integrations/${other}/users`, {
        body: { data: { type: "invite_tenant_users", attributes: { role: "account_collaborator", entitlements: [], userIds: [userId] } } },
      });
    const job = at((await invite(POPULATED_IDS.users.plain)).json, "data", "id");
    for (const page of [1, 2]) await call(e, "GET", `integrations?page%5Bsize%5D=1&page%5Bnumber%5D=${page}`);
    expect((await call(e, "GET", `integrations/${other}`)).status).toBe(200);
    expect(at((await call(e, "GET", `jobs/${job}`)).json, "data", "attributes", "status")).toBe("finished");
    const second = at((await invite(POPULATED_IDS.users.guest)).json, "data", "id");
    e.integrations.remove(other);
    const polled = await call(e, "GET", `jobs/${second}`);
    expect(polled.status).toBe(200);
    expect(at(polled.json, "data", "attributes", "status")).toBe("error");
    expect(at(polled.json, "data", "attributes", "errorDetails", "errorType")).toBe("integration_not_found");
  });

  it("insert, in the adversarial world: another admin really adds a member before the page, and the walk lists one twice", async () => {
    const e = await start({ world: "adversarial", quirks: { shiftPages: "insert", repeatRecords: false, upperCaseIds: false } });
    const big = POPULATED_IDS.integrations.big;
    const before = e.integrations.members(big).map((m) => m.userId);
    const { ids } = await walk(e, membersPath(big));
    const after = e.integrations.members(big).map((m) => m.userId);
    const added = after.filter((id) => !before.includes(id));
    expect(added).toHaveLength(1);
    expect(after.indexOf(added[0]!)).toBe(99);
    expect(e.users.get(added[0]!)?.email).toMatch(/^other-admin-added-/);
    // The walk saw the page-1 record pushed onto page 2 again, and not the one added behind it.
    expect(ids).toHaveLength(before.length + 1);
    expect(ids.filter((id) => id === before[99])).toHaveLength(2);
    expect(ids).not.toContain(added[0]);
    // The added member is the other admin's: a later shift may remove it again.
    e.quirks.shiftPages = "remove";
    await call(e, "PATCH", `integrations/${big}/users/${populatedUserId(3)}`, {
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "VIEWER" }] } } },
    });
    await walk(e, membersPath(big));
    expect(e.integrations.members(big)).toHaveLength(after.length - 1);
  });

  it("insert in the users list of the adversarial world adds a user before the page", async () => {
    const e = await start({ world: "adversarial", quirks: { shiftPages: "insert", repeatRecords: false, upperCaseIds: false } });
    const before = e.users.list().length;
    const { ids } = await walk(e, "users?page%5Bsize%5D=100");
    expect(e.users.list()).toHaveLength(before + 1);
    expect(ids).toHaveLength(before + 1);
    expect(new Set(ids).size).toBe(before);
  });

  it("never removes a membership a test or program wrote", async () => {
    const e = await start({ world: "adversarial", quirks: { upperCaseIds: false, repeatRecords: false } });
    const big = POPULATED_IDS.integrations.big;
    for (const id of ADVERSARIAL_IDS.otherAdminUsers) e.integrations.setMember(big, id, { entitlements: ["EDITOR"] });
    const before = e.integrations.members(big);
    const { ids } = await walk(e, membersPath(big));
    expect(e.integrations.members(big)).toEqual(before);
    expect(ids).toHaveLength(before.length - 1);
  });
});

describe("onPage", () => {
  it("runs before every page after the first, so a test can change the list between two reads; its remover stops it", async () => {
    const e = await start({ seed: bigList() });
    const all = e.integrations.members(LIST).map((m) => m.userId);
    const seen: unknown[] = [];
    const off = e.onPage((list) => {
      seen.push(list);
      e.integrations.removeMember(LIST, all[3]!);
    });
    const { ids } = await walk(e, membersPath(LIST));
    expect(seen).toEqual([{ path: `/integrations/${LIST}/users`, page: 2, size: 100 }]);
    // Page 1 listed the member removed since; the one that moved from page 2 to page 1 is skipped.
    expect(ids).toHaveLength(150);
    expect(ids).toContain(all[3]);
    expect(ids).not.toContain(all[100]);
    off();
    expect((await walk(e, membersPath(LIST))).ids).toHaveLength(150);
    expect(seen).toHaveLength(1);
  });
});

describe("repeatRecords", () => {
  it("starts each page after the first with the last record of the page before, listing every record", async () => {
    const e = await start({ seed: { users: manyUsers(5) }, quirks: { repeatRecords: true } });
    const all = e.users.list().map((u) => u.id);
    const { ids, pages } = await walk(e, "users?page%5Bsize%5D=2");
    expect(pages).toBe(4);
    expect(ids).toEqual([all[0], all[1], all[1], all[2], all[2], all[3], all[3], all[4]]);
  });

  it("repeats nothing on pages of one record, which would else never move on", async () => {
    const e = await start({ seed: { users: manyUsers(3) }, quirks: { repeatRecords: true } });
    const { ids, pages } = await walk(e, "users?page%5Bsize%5D=1");
    expect(pages).toBe(3);
    expect(ids).toEqual(e.users.list().map((u) => u.id));
  });
});

describe("inviteExisting", () => {
  it.each([
    ["conflict", 409],
    [undefined, 409],
  ] as const)("%s: inviting a member answers 409 at once", async (mode, status) => {
    const e = await start({ seed: teamSeed(), quirks: mode === undefined ? {} : { inviteExisting: mode } });
    const answer = await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.ada], ["EDITOR"]) });
    expect(answer.status).toBe(status);
    expect(e.jobs.list()).toHaveLength(0);
  });

  it("merge: the job finishes and the invitation's role and set replace the membership's", async () => {
    const e = await start({ seed: teamSeed(), quirks: { inviteExisting: "merge" } });
    const post = await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.ada, TEAM.cy], ["EDITOR"]) });
    const job = await finish(e, post);
    expect(at(job.json, "data", "attributes", "status")).toBe("finished");
    const members = e.integrations.members(TEAM.tube);
    expect(members.find((m) => m.userId === TEAM.ada)).toEqual({ userId: TEAM.ada, role: "collaborator", entitlements: ["EDITOR"] });
    expect(members.find((m) => m.userId === TEAM.cy)).toEqual({ userId: TEAM.cy, role: "collaborator", entitlements: ["EDITOR"] });
  });

  it("fail: the job ends in error naming the member, changing nothing; a test may switch it mid-test", async () => {
    const e = await start({ seed: teamSeed(), quirks: { inviteExisting: "merge" } });
    e.quirks.inviteExisting = "fail";
    const before = e.integrations.members(TEAM.tube);
    const post = await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.ada, TEAM.cy], ["EDITOR"]) });
    const job = await finish(e, post);
    expect(at(job.json, "data", "attributes", "status")).toBe("error");
    expect(at(job.json, "data", "attributes", "errorDetails", "errorType")).toBe(ALREADY_MEMBER);
    expect(at(job.json, "data", "attributes", "response", "userIds")).toEqual([TEAM.ada]);
    expect(e.integrations.members(TEAM.tube)).toEqual(before);
  });
});

/** Ids with letters, so that upper case differs. */
const HEX = { ada: "ada0beef-0000-4000-8000-00000000000a", cy: "c0ffee00-0000-4000-8000-00000000000c" } as const;

function hexSeed(): EmulatorOptions["seed"] {
  return {
    users: [
      { id: HEX.ada, email: "ada@example.com", firstName: "Ada", lastName: "L" },
      { id: HEX.cy, email: "cy@example.com", firstName: "Cy", lastName: "Y" },
    ],
    integrations: [
      { id: TEAM.tube, application: "YouTube", entitlements: [{ id: "VIEWER" }], users: [{ userId: HEX.ada, entitlements: ["VIEWER"] }] },
    ],
  };
}

describe("upperCaseIds", () => {
  it("answers every UUID in upper case and matches ids in paths and bodies case-insensitively", async () => {
    const e = await start({ seed: hexSeed(), quirks: { upperCaseIds: true } });
    const read = await call(e, "GET", `users/${HEX.cy.toUpperCase()}`);
    expect(read.status).toBe(200);
    expect(at(read.json, "data", "id")).toBe(HEX.cy.toUpperCase());
    expect(at(read.json, "links", "self")).toBe(`/api/v1/users/${HEX.cy.toUpperCase()}`);
    const list = await call(e, "GET", `integrations/${TEAM.tube}/users`);
    expect((at(list.json, "data") as Array<{ id: string }>).map((r) => r.id)).toEqual([HEX.ada.toUpperCase()]);
    const post = await call(e, "POST", `integrations/${TEAM.tube.toUpperCase()}/users`, {
      body: inviteBody([HEX.cy.toUpperCase()], ["VIEWER"]),
    });
    const jobId = at(post.json, "data", "id") as string;
    expect(jobId).toBe(jobId.toUpperCase());
    const job = await finish(e, post);
    expect(at(job.json, "data", "attributes", "status")).toBe("finished");
    expect(e.integrations.members(TEAM.tube).map((m) => m.userId)).toContain(HEX.cy);
    // The request log keeps what was received.
    expect(e.requests.some((r) => r.path === `/users/${HEX.cy.toUpperCase()}`)).toBe(true);
  });

  it("matches queued faults against the ids in lower case, as the routes do", async () => {
    const e = await start({ seed: hexSeed(), quirks: { upperCaseIds: true } });
    e.fault({ method: "GET", path: `/users/${HEX.cy}`, status: 503 });
    expect((await call(e, "GET", `users/${HEX.cy.toUpperCase()}`)).status).toBe(503);
    e.fault({ method: "POST", path: `/integrations/${TEAM.tube}/users`, userId: HEX.cy, status: 500 });
    const post = await call(e, "POST", `integrations/${TEAM.tube.toUpperCase()}/users`, {
      body: inviteBody([HEX.cy.toUpperCase()], ["VIEWER"]),
    });
    expect(post.status).toBe(500);
  });

  it("is off by default: ids are answered in lower case, and matched in any case (the contract compares them so)", async () => {
    const e = await start({ seed: hexSeed() });
    expect(at((await call(e, "GET", `users/${HEX.cy.toUpperCase()}`)).json, "data", "id")).toBe(HEX.cy);
    expect(at((await call(e, "GET", `users/${HEX.cy}`)).json, "data", "id")).toBe(HEX.cy);
    // A PUT whose data.id is the path's in another case is the same user, not a conflict.
    const user = e.users.get(HEX.cy)!;
    const attributes = { email: user.email, firstName: "Cy", lastName: "Case", role: "workspace_login_only", isGuest: false };
    const put = await call(e, "PUT", `users/${HEX.cy}`, { body: { data: { type: "user", id: HEX.cy.toUpperCase(), attributes } } });
    expect(put.status).toBe(200);
  });
});

describe("ids given in upper case (a seed, users.add, setMember)", () => {
  /** The seed of `hexSeed` with every id in upper case, as a real workspace export might hold them. */
  function upperSeed(): EmulatorOptions["seed"] {
    return JSON.parse(JSON.stringify(hexSeed()).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, (id) => id.toUpperCase()));
  }

  it("stores them in lower case: every direct read answers, in either case, and lists name them in lower case", async () => {
    const e = await start({ seed: upperSeed() });
    for (const id of [HEX.ada, HEX.ada.toUpperCase()]) {
      const read = await call(e, "GET", `users/${id}`);
      expect(read.status).toBe(200);
      expect(at(read.json, "data", "id")).toBe(HEX.ada);
    }
    for (const id of [TEAM.tube, TEAM.tube.toUpperCase()]) expect((await call(e, "GET", `integrations/${id}`)).status).toBe(200);
    const member = await call(e, "GET", `integrations/${TEAM.tube.toUpperCase()}/users/${HEX.ada.toUpperCase()}`);
    expect(member.status).toBe(200);
    expect(at(member.json, "data", "id")).toBe(HEX.ada);
    const users = await call(e, "GET", "users");
    expect((at(users.json, "data") as Array<{ id: string }>).map((u) => u.id)).toEqual([HEX.ada, HEX.cy]);
  });

  it("lets the handle add and look up in any case, and writes over HTTP reach what it added", async () => {
    const e = await start({ seed: {} });
    const added = e.users.add({ id: HEX.cy.toUpperCase(), email: "cy@example.com", firstName: "Cy", lastName: "Y" });
    expect(added.id).toBe(HEX.cy);
    expect(e.users.get(HEX.cy.toUpperCase())?.id).toBe(HEX.cy);
    expect(e.users.get(HEX.cy)?.id).toBe(HEX.cy);
    // One user, whatever the case it is named in.
    expect(() => e.users.add({ id: HEX.cy, email: "other@example.com", firstName: "O", lastName: "T" })).toThrow(/already exists/);
    e.integrations.add({ id: TEAM.tube.toUpperCase(), application: "YouTube", entitlements: [{ id: "VIEWER" }] });
    e.integrations.setMember(TEAM.tube.toUpperCase(), HEX.cy.toUpperCase(), { entitlements: ["VIEWER"] });
    expect(e.integrations.members(TEAM.tube)).toEqual([{ userId: HEX.cy, role: "collaborator", entitlements: ["VIEWER"] }]);
    expect(e.integrations.get(TEAM.tube.toUpperCase())?.id).toBe(TEAM.tube);
    const patch = await call(e, "PATCH", `integrations/${TEAM.tube}/users/${HEX.cy}`, {
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: [] } } },
    });
    expect(at((await finish(e, patch)).json, "data", "attributes", "status")).toBe("finished");
    expect(e.integrations.members(TEAM.tube.toUpperCase())[0]?.entitlements).toEqual([]);
    expect((await call(e, "DELETE", `users/${HEX.cy.toUpperCase()}`)).status).toBe(204);
    expect(e.users.get(HEX.cy)).toBeUndefined();
    // An id that is not a UUID (a seed may hold one) matches in any case too.
    e.users.add({ id: "Legacy-User-7", email: "legacy@example.com", firstName: "L", lastName: "U" });
    expect(at((await call(e, "GET", "users/LEGACY-USER-7")).json, "data", "id")).toBe("legacy-user-7");
  });
});

describe("noContent", () => {
  it("PUT /users/{id} answers 204 without a body and applies the change", async () => {
    const e = await start({ seed: teamSeed(), quirks: { noContent: true } });
    const answer = await call(e, "PUT", `users/${TEAM.bob}`, {
      body: {
        data: {
          type: "user",
          id: TEAM.bob,
          attributes: { email: "bob@example.com", firstName: "Robert", lastName: "Builder", role: "workspace_login_only", isGuest: false },
        },
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe("");
    expect(e.users.get(TEAM.bob)?.firstName).toBe("Robert");
    expect((await call(e, "DELETE", `users/${TEAM.cy}`)).status).toBe(204);
  });
});

describe("integrationWriteAnswer", () => {
  const forms = [
    ["no-content", 204, ""],
    ["empty-ok", 200, ""],
    ["no-data", 200, JSON.stringify({ meta: {} })],
  ] as const;

  it.each(forms)("%s: each integration write is applied before it answers %i, with no job", async (form, status, text) => {
    const e = await start({ seed: teamSeed(), quirks: { integrationWriteAnswer: form } });
    const tube = `integrations/${TEAM.tube}/users`;
    const writes = [
      await call(e, "POST", tube, { body: inviteBody([TEAM.cy], ["VIEWER", "EDITOR"]) }),
      await call(e, "PATCH", `${tube}/${TEAM.bob}`, {
        body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "MANAGER" }] } } },
      }),
      await call(e, "PATCH", `${tube}/${TEAM.cy}/entitlements`, {
        body: { data: { add: { entitlements: [{ id: "MANAGER" }] }, remove: { entitlements: [{ id: "VIEWER" }] } } },
      }),
      await call(e, "DELETE", `${tube}/${TEAM.ada}`),
    ];
    expect(writes.map((w) => [w.status, w.text])).toEqual(Array(4).fill([status, text]));
    expect(e.integrations.members(TEAM.tube)).toEqual([
      { userId: TEAM.bob, role: "collaborator", entitlements: ["MANAGER"] },
      { userId: TEAM.cy, role: "collaborator", entitlements: ["EDITOR", "MANAGER"] },
    ]);
    expect(e.jobs.list()).toEqual([]);
  });

  it("a write that cannot be applied answers the error its job would have ended in, applying nothing", async () => {
    const e = await start({ seed: teamSeed(), quirks: { integrationWriteAnswer: "no-content", inviteExisting: "fail" } });
    const before = e.integrations.members(TEAM.tube);
    const unknown = await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.cy], ["NOPE"]) });
    expect(unknown.status).toBe(404);
    expect(at(unknown.json, "errors", 0, "meta")).toMatchObject({ errorType: ENTITLEMENT_NOT_FOUND, entitlements: ["NOPE"] });
    const member = await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.ada], ["EDITOR"]) });
    expect(member.status).toBe(409);
    expect(at(member.json, "errors", 0, "meta")).toMatchObject({ errorType: ALREADY_MEMBER, userIds: [TEAM.ada] });
    expect(e.integrations.members(TEAM.tube)).toEqual(before);
    expect(e.jobs.list()).toEqual([]);
  });

  it("job (the default): the writes answer 200 with a job, as the public document shows", async () => {
    const e = await start({ seed: teamSeed(), quirks: { integrationWriteAnswer: "job" } });
    const answer = await call(e, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.bob}`);
    expect(at(answer.json, "data", "type")).toBe("job");
    expect(e.integrations.members(TEAM.tube).map((m) => m.userId)).toContain(TEAM.bob);
    await finish(e, answer);
    expect(e.integrations.members(TEAM.tube).map((m) => m.userId)).not.toContain(TEAM.bob);
  });
});

describe("nullFields", () => {
  it("answers null for optional fields the contract allows to be null, deterministically", async () => {
    const e = await start({
      seed: {
        users: [
          { id: TEAM.ada, email: "ada@example.com", firstName: "Ada", lastName: "L", isGuest: false },
          { id: TEAM.cy, email: "cy@example.com", firstName: "Cy", lastName: "Y", isGuest: true, status: "pending" },
        ],
        integrations: [{ id: TEAM.tube, application: "YouTube", entitlements: [{ id: "VIEWER" }, { id: "MANAGER", label: "Manager" }] }],
      },
      quirks: { nullFields: true },
    });
    const ada = at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "attributes");
    expect(ada).toMatchObject({ firstName: "Ada", isGuest: null, status: "live" });
    const cy = at((await call(e, "GET", `users/${TEAM.cy}`)).json, "data", "attributes");
    expect(cy).toMatchObject({ isGuest: true, status: null });
    expect(at((await call(e, "GET", `integrations/${TEAM.tube}`)).json, "data", "attributes", "label")).toBeNull();
    const catalogue = at((await call(e, "GET", `integrations/${TEAM.tube}/entitlements`)).json, "data") as Array<{
      attributes: { label: unknown };
    }>;
    expect(catalogue.map((c) => c.attributes.label)).toEqual([null, "Manager"]);
  });
});

describe("jobProgress", () => {
  it("varied: the reads of a job not yet done show created, started, running, retrying in turn; the end shows as it is", async () => {
    const e = await start({ seed: teamSeed(), job: { finishAfterPolls: 6 }, quirks: { jobProgress: "varied" } });
    const answer = await call(e, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.bob}`);
    expect(at(answer.json, "data", "attributes", "status")).toBe("created");
    const id = at(answer.json, "data", "id") as string;
    const seen: unknown[] = [];
    for (let read = 0; read < 7; read++) seen.push(at((await call(e, "GET", `jobs/${id}`)).json, "data", "attributes", "status"));
    expect(seen).toEqual(["created", "started", "running", "retrying", "created", "finished", "finished"]);
    expect(e.integrations.members(TEAM.tube).map((m) => m.userId)).not.toContain(TEAM.bob);
  });

  it("running (the default): every read before the end shows running", async () => {
    const e = await start({ seed: teamSeed(), job: { finishAfterPolls: 3 } });
    const answer = await call(e, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.bob}`);
    const id = at(answer.json, "data", "id") as string;
    const seen: unknown[] = [];
    for (let read = 0; read < 3; read++) seen.push(at((await call(e, "GET", `jobs/${id}`)).json, "data", "attributes", "status"));
    expect(seen).toEqual(["running", "running", "finished"]);
  });
});

describe("memberEntitlements", () => {
  it("ids: an integration user's entitlements are answered as plain ids, in the list and the direct read", async () => {
    const e = await start({ seed: teamSeed(), quirks: { memberEntitlements: "ids" } });
    const list = at((await call(e, "GET", `integrations/${TEAM.tube}/users`)).json, "data") as Array<{ attributes: unknown }>;
    expect(list.map((m) => at(m, "attributes", "entitlements"))).toEqual([["VIEWER"], ["EDITOR"]]);
    const one = await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`);
    expect(at(one.json, "data", "attributes", "entitlements")).toEqual(["VIEWER"]);
    // The catalogue is not a user's: its records stay whole.
    const catalogue = await call(e, "GET", `integrations/${TEAM.tube}/entitlements`);
    expect(at(catalogue.json, "data", 0)).toMatchObject({ id: "VIEWER", type: "entitlement" });
  });

  it("left-out: an integration user's record has no entitlements field, in the list and the direct read; the store keeps them", async () => {
    const e = await start({ seed: teamSeed(), quirks: { memberEntitlements: "left-out" } });
    const list = at((await call(e, "GET", `integrations/${TEAM.tube}/users`)).json, "data") as Array<{ attributes: object }>;
    expect(list.map((m) => "entitlements" in m.attributes)).toEqual([false, false]);
    const one = await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`);
    expect(at(one.json, "data", "attributes")).not.toHaveProperty("entitlements");
    expect(e.integrations.members(TEAM.tube).find((m) => m.userId === TEAM.ada)?.entitlements).toEqual(["VIEWER"]);
  });

  it("records (the default): entitlement records, as the document's examples show", async () => {
    const e = await start({ seed: teamSeed() });
    const one = await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`);
    expect(at(one.json, "data", "attributes", "entitlements", 0)).toMatchObject({ id: "VIEWER", type: "entitlement" });
  });
});

describe("lowerCaseEmails", () => {
  it("answers every email in lower case, however it was written; the store and the filter still match", async () => {
    const seed = teamSeed();
    seed.users[0] = { ...seed.users[0]!, email: "Ada.Lovelace@Example.COM" };
    const e = await start({ seed, quirks: { lowerCaseEmails: true } });
    expect(at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "attributes", "email")).toBe("ada.lovelace@example.com");
    const member = await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`);
    expect(at(member.json, "data", "attributes", "email")).toBe("ada.lovelace@example.com");
    const attributes = { email: "New.Person@Example.COM", firstName: "New", lastName: "Person", role: "workspace_login_only" };
    const created = await call(e, "POST", "users", { body: { data: { type: "user", attributes } } });
    expect(at(created.json, "data", "attributes", "email")).toBe("new.person@example.com");
    const found = await call(e, "GET", "users?filter=NEW.PERSON%40example.com");
    expect((at(found.json, "data") as unknown[]).map((u) => at(u, "attributes", "email"))).toEqual(["new.person@example.com"]);
  });

  it("is off by default: an email is answered as written", async () => {
    const seed = teamSeed();
    seed.users[0] = { ...seed.users[0]!, email: "Ada.Lovelace@Example.COM" };
    const e = await start({ seed });
    expect(at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "attributes", "email")).toBe("Ada.Lovelace@Example.COM");
  });
});

describe("userFilter", () => {
  const emails = async (e: Emulator, filter: string) =>
    (at((await call(e, "GET", `users?filter=${encodeURIComponent(filter)}`)).json, "data") as unknown[]).map((u) =>
      at(u, "attributes", "email"),
    );

  it("contains (the default): a part of the email or the full name, in any case", async () => {
    const e = await start({ seed: teamSeed() });
    expect(await emails(e, "BOB@")).toEqual(["bob@example.com"]);
    expect(await emails(e, "ada lov")).toEqual(["ada@example.com"]);
  });

  it("exact: the whole email or full name, in any case", async () => {
    const e = await start({ seed: teamSeed(), quirks: { userFilter: "exact" } });
    expect(await emails(e, "BOB@")).toEqual([]);
    expect(await emails(e, "Bob@Example.com")).toEqual(["bob@example.com"]);
    expect(await emails(e, "ada lovelace")).toEqual(["ada@example.com"]);
  });

  it("case-sensitive: a part, in the case written (the folded email with lowerCaseEmails)", async () => {
    const e = await start({ seed: teamSeed(), quirks: { userFilter: "case-sensitive" } });
    expect(await emails(e, "Bob@")).toEqual([]);
    expect(await emails(e, "bob@")).toEqual(["bob@example.com"]);
    expect(await emails(e, "Ada Love")).toEqual(["ada@example.com"]);
    e.users.update(TEAM.bob, { email: "Bob@Example.com" });
    expect(await emails(e, "bob@")).toEqual([]);
    e.quirks.lowerCaseEmails = true;
    expect(await emails(e, "bob@")).toEqual(["bob@example.com"]);
  });
});

describe("unknownEntitlement", () => {
  const writes = (e: Emulator) => [
    call(e, "POST", `integrations/${TEAM.tube}/users`, { body: inviteBody([TEAM.cy], ["VIEWER", "NOPE"]) }),
    call(e, "PATCH", `integrations/${TEAM.tube}/users/${TEAM.bob}`, {
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "NOPE" }] } } },
    }),
    call(e, "PATCH", `integrations/${TEAM.tube}/users/${TEAM.bob}/entitlements`, {
      body: { data: { remove: { entitlements: [{ id: "NOPE" }] } } },
    }),
  ];

  it("bad-request: each write naming an entitlement outside the catalogue answers 400 naming the field; nothing starts", async () => {
    const e = await start({ seed: teamSeed(), quirks: { unknownEntitlement: "bad-request" } });
    const before = e.integrations.members(TEAM.tube);
    const answers = await Promise.all(writes(e));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400]);
    expect(answers.map((a) => at(a.json, "errors", 0, "meta", "loc"))).toEqual([
      ["body", "data", "attributes", "entitlements"],
      ["body", "data", "attributes", "entitlements"],
      ["body", "data", "remove", "entitlements"],
    ]);
    expect(String(at(answers[0]!.json, "errors", 0, "detail"))).toContain("NOPE");
    expect(e.integrations.members(TEAM.tube)).toEqual(before);
    expect(e.jobs.list()).toEqual([]);
  });

  it("not-found: 404, naming the entitlement; nothing starts", async () => {
    const e = await start({ seed: teamSeed(), quirks: { unknownEntitlement: "not-found" } });
    const answers = await Promise.all(writes(e));
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404]);
    expect(at(answers[1]!.json, "errors", 0, "meta")).toMatchObject({ errorType: ENTITLEMENT_NOT_FOUND, entitlements: ["NOPE"] });
    expect(e.jobs.list()).toEqual([]);
  });

  it("job-error (the default): accepted, the job ends in error, nothing applied", async () => {
    const e = await start({ seed: teamSeed() });
    const before = e.integrations.members(TEAM.tube);
    const job = await finish(e, (await Promise.all(writes(e)))[1]!);
    expect(at(job.json, "data", "attributes", "errorDetails", "errorType")).toBe(ENTITLEMENT_NOT_FOUND);
    expect(e.integrations.members(TEAM.tube)).toEqual(before);
  });
});

describe("nonMemberWrite", () => {
  const VIEWER = [{ id: "VIEWER" }];
  /** A PATCH of the set, one of its additions and removals, and a DELETE, each naming cy, who is not a member. */
  const writes = (e: Emulator) => [
    call(e, "PATCH", `integrations/${TEAM.tube}/users/${TEAM.cy}`, {
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: VIEWER } } },
    }),
    call(e, "PATCH", `integrations/${TEAM.tube}/users/${TEAM.cy}/entitlements`, { body: { data: { add: { entitlements: VIEWER } } } }),
    call(e, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.cy}`),
  ];

  it("not-found (the default): each write of a user who is not a member answers 404 at once; nothing starts", async () => {
    const e = await start({ seed: teamSeed() });
    expect((await Promise.all(writes(e))).map((a) => a.status)).toEqual([404, 404, 404]);
    expect(e.jobs.list()).toEqual([]);
  });

  it("job-error: each is accepted and its job ends in error (user_not_member), nothing applied; a member's writes as before", async () => {
    const e = await start({ seed: teamSeed(), quirks: { nonMemberWrite: "job-error" } });
    const before = e.integrations.members(TEAM.tube);
    for (const answer of await Promise.all(writes(e))) {
      const job = await finish(e, answer);
      expect(at(job.json, "data", "attributes", "status")).toBe("error");
      expect(at(job.json, "data", "attributes", "errorDetails", "errorType")).toBe("user_not_member");
    }
    expect(e.integrations.members(TEAM.tube)).toEqual(before);
    const removed = await finish(e, await call(e, "DELETE", `integrations/${TEAM.tube}/users/${TEAM.bob}`));
    expect(at(removed.json, "data", "attributes", "status")).toBe("finished");
    expect(e.integrations.members(TEAM.tube).some((m) => m.userId === TEAM.bob)).toBe(false);
  });

  it("parses from --quirk", () => {
    expect(parseQuirk("nonMemberWrite=job-error")).toEqual({ nonMemberWrite: "job-error" });
    expect(() => parseQuirk("nonMemberWrite=ok")).toThrow(/not-found, job-error/);
  });
});

describe("userCreateTaken", () => {
  /** A create of Bob's email, written in another case. */
  const createBob = (e: Emulator) =>
    call(e, "POST", "users", {
      body: {
        data: { type: "user", attributes: { email: "BOB@example.com", firstName: "B", lastName: "B", role: "workspace_login_only" } },
      },
    });

  it("conflict (the default): 409", async () => {
    const e = await start({ seed: teamSeed() });
    expect((await createBob(e)).status).toBe(409);
  });

  it("bad-request: 400 naming data.attributes.email; nothing made", async () => {
    const e = await start({ seed: teamSeed() });
    e.quirks.userCreateTaken = "bad-request";
    const answer = await createBob(e);
    expect([answer.status, at(answer.json, "errors", 0, "meta", "loc")]).toEqual([400, ["body", "data", "attributes", "email"]]);
    expect(e.users.list()).toHaveLength(teamSeed().users.length);
  });

  it("existing: 201 with the user who has the email, unchanged", async () => {
    const e = await start({ seed: teamSeed(), quirks: { userCreateTaken: "existing" } });
    const before = e.users.get(TEAM.bob);
    const answer = await createBob(e);
    expect([answer.status, at(answer.json, "data", "id"), at(answer.json, "data", "attributes", "email")]).toEqual([
      201,
      TEAM.bob,
      "bob@example.com",
    ]);
    expect(e.users.get(TEAM.bob)).toEqual(before);
    expect(e.users.list()).toHaveLength(teamSeed().users.length);
  });

  it("existing, with user writes answered by jobs: a job that finishes, nothing made", async () => {
    const jobs = await start({ seed: teamSeed(), quirks: { userCreateTaken: "existing" }, userWritesAsJobs: true });
    const job = await finish(jobs, await createBob(jobs));
    expect(at(job.json, "data", "attributes", "status")).toBe("finished");
    expect(jobs.users.list()).toHaveLength(teamSeed().users.length);
  });
});

describe("userReplaceId", () => {
  /** A replace of Bob, `id` given in `data` or not. */
  const replaceBob = (e: Emulator, id?: string) => {
    const attributes = { email: "bob@example.com", firstName: "Robert", lastName: "B", role: "workspace_login_only", isGuest: false };
    return call(e, "PUT", `users/${TEAM.bob}`, { body: { data: { type: "user", ...(id === undefined ? {} : { id }), attributes } } });
  };

  it("accept (the default): data.id read, 409 when it is not the path's, taken when it is or is left out", async () => {
    const e = await start({ seed: teamSeed() });
    expect((await replaceBob(e, TEAM.tube)).status).toBe(409);
    expect((await replaceBob(e, TEAM.bob)).status).toBe(200);
    expect((await replaceBob(e)).status).toBe(200);
  });

  it("refuse: a data.id, even the path's, answers 400 naming it, nothing changed; a body without one is taken", async () => {
    const e = await start({ seed: teamSeed(), quirks: { userReplaceId: "refuse" } });
    const before = e.users.get(TEAM.bob);
    const refused = await replaceBob(e, TEAM.bob);
    expect([refused.status, at(refused.json, "errors", 0, "meta", "loc")]).toEqual([400, ["body", "data", "id"]]);
    expect(e.users.get(TEAM.bob)).toEqual(before);
    expect((await replaceBob(e)).status).toBe(200);
    expect(e.users.get(TEAM.bob)?.firstName).toBe("Robert");
  });
});

describe("unknownQuery", () => {
  it("refuse: a query parameter the operation does not take answers 400 naming each; those the contract names are taken", async () => {
    const e = await start({ seed: teamSeed(), quirks: { unknownQuery: "refuse" } });
    const refused = await call(e, "GET", `users?page%5Bsize%5D=2&sort=email&include=x&include=y`);
    expect(refused.status).toBe(400);
    expect((at(refused.json, "errors") as unknown[]).map((entry) => at(entry, "meta", "loc"))).toEqual([
      ["query", "sort"],
      ["query", "include"],
    ]);
    expect((await call(e, "GET", `integrations/${TEAM.tube}/entitlements?page%5Bsize%5D=10`)).status).toBe(400);
    expect((await call(e, "GET", `jobs/00000000-0000-4000-8000-000000000000?x=1`)).status).toBe(400);
    for (const path of [
      "users?page%5Bnumber%5D=1&page%5Bsize%5D=2&filter=bob&mfaStatus=true",
      `users/${TEAM.bob}?mfaStatus=true`,
      "integrations?page%5Bsize%5D=1&page%5Bnumber%5D=1",
      `integrations/${TEAM.tube}/users?page%5Bsize%5D=1&page%5Bnumber%5D=2`,
      `integrations/${TEAM.tube}/user?page%5Bsize%5D=1`,
      `integrations/${TEAM.tube}/entitlements`,
    ]) {
      expect((await call(e, "GET", path)).status, path).toBe(200);
    }
  });

  it("ignore (the default): any query parameter is ignored", async () => {
    const e = await start({ seed: teamSeed() });
    expect((await call(e, "GET", `users?sort=email`)).status).toBe(200);
    expect((await call(e, "GET", `integrations/${TEAM.tube}/entitlements?page%5Bsize%5D=10`)).status).toBe(200);
  });
});

describe("errorStatus", () => {
  it("string: every error entry's status is a string, whatever answered it (a route, the router, the key check)", async () => {
    const e = await start({ seed: teamSeed(), quirks: { errorStatus: "string" } });
    const missing = await call(e, "GET", "users/00000000-0000-4000-8000-000000000000");
    expect([missing.status, at(missing.json, "errors", 0, "status")]).toEqual([404, "404"]);
    const noKey = await call(e, "GET", "users", { key: null });
    expect([noKey.status, at(noKey.json, "errors", 0, "status")]).toEqual([401, "401"]);
    const bad = await call(e, "GET", "users?page%5Bsize%5D=0&page%5Bnumber%5D=0");
    expect((at(bad.json, "errors") as unknown[]).map((entry) => at(entry, "status"))).toEqual(["400", "400"]);
    expect(at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "id")).toBe(TEAM.ada);
  });

  it("number (the default): as the document's error schema types it", async () => {
    const e = await start({ seed: teamSeed() });
    expect(at((await call(e, "GET", "users/00000000-0000-4000-8000-000000000000")).json, "errors", 0, "status")).toBe(404);
  });
});

describe("absentFields", () => {
  it("leaves out the optional fields nullFields would answer as null; other fields, and nulls of the record, stay", async () => {
    const e = await start({
      seed: {
        users: [
          { id: TEAM.ada, email: "ada@example.com", firstName: "Ada", lastName: "L", isGuest: false },
          { id: TEAM.cy, email: "cy@example.com", firstName: null, lastName: "Y", isGuest: true, status: "pending" },
        ],
        integrations: [{ id: TEAM.tube, application: "YouTube", entitlements: [{ id: "VIEWER" }, { id: "MANAGER", label: "Manager" }] }],
      },
      quirks: { absentFields: true },
    });
    const ada = at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "attributes") as Record<string, unknown>;
    expect(ada).toMatchObject({ firstName: "Ada", status: "live" });
    expect(ada).not.toHaveProperty("isGuest");
    const cy = at((await call(e, "GET", `users/${TEAM.cy}`)).json, "data", "attributes") as Record<string, unknown>;
    expect(cy).toMatchObject({ isGuest: true, firstName: null });
    expect(cy).not.toHaveProperty("status");
    expect(at((await call(e, "GET", `integrations/${TEAM.tube}`)).json, "data", "attributes")).not.toHaveProperty("label");
    const catalogue = at((await call(e, "GET", `integrations/${TEAM.tube}/entitlements`)).json, "data") as Array<{ attributes: object }>;
    expect(catalogue.map((c) => "label" in c.attributes)).toEqual([false, true]);
  });
});

describe("the adversarial world", () => {
  it("turns every quirk on but openUserRoles (an unlisted role stays refused); options override it; the live object is the emulator's", async () => {
    const e = await start({ world: "adversarial", quirks: { inviteExisting: "fail" } });
    expect(e.quirks).toEqual({
      shiftPages: "remove",
      repeatRecords: true,
      inviteExisting: "fail",
      upperCaseIds: true,
      noContent: true,
      nullFields: true,
    });
    expect(e.users.get(ADVERSARIAL_IDS.otherAdminUsers[0]!)).toBeDefined();
    expect(e.integrations.list()[0]?.id).toBe(ADVERSARIAL_IDS.otherAdminIntegration);
    const billing = e.users.get(POPULATED_IDS.users.unknownRole)!;
    const attributes = { email: billing.email, firstName: "B", lastName: "A", role: billing.role, isGuest: false };
    const put = await call(e, "PUT", `users/${billing.id}`, { body: { data: { type: "user", attributes } } });
    expect(put.status).toBe(400);
    expect(at(put.json, "errors", 0, "meta", "loc")).toEqual(["body", "data", "attributes", "role"]);
    e.quirks.upperCaseIds = false;
    expect(at((await call(e, "GET", `users/${populatedUserId(0)}`)).json, "data", "id")).toBe(populatedUserId(0));
  });

  it("has no quirk without it", async () => {
    const e = await start({ world: "populated" });
    expect(e.quirks).toEqual({});
  });
});

describe("clockSkew", () => {
  const createCarol = (e: Emulator) =>
    call(e, "POST", "users", {
      body: {
        data: { type: "user", attributes: { email: "carol@example.com", firstName: "C", lastName: "R", role: "workspace_login_only" } },
      },
    });

  it("absent: Date reads the emulator's clock (a virtual one in tests), not the machine's", async () => {
    const clock = new VirtualClock();
    const e = await start({ seed: teamSeed(), clock });
    const answer = await createCarol(e);
    expect(answer.headers.get("date")).toBe(new Date(clock.now()).toUTCString());
    expect(at(answer.json, "data", "attributes", "createdAt")).toBe(formatTimestamp(clock.now()));
  });

  it.each([-600, 600])(
    "%i: Date, a user's and a job's times and a dated Retry-After read the service's clock, that many seconds off the emulator's",
    async (clockSkew) => {
      const clock = new VirtualClock();
      const e = await start({ seed: teamSeed(), clock, quirks: { clockSkew } });
      const service = () => clock.now() + clockSkew * 1000;
      const made = await createCarol(e);
      expect(made.headers.get("date")).toBe(new Date(service()).toUTCString());
      expect(at(made.json, "data", "attributes", "createdAt")).toBe(formatTimestamp(service()));
      expect(e.users.add({ email: "dan@example.com", firstName: "D", lastName: "N" }).createdAt).toBe(formatTimestamp(service()));

      const jobs = await startEmulator({ seed: teamSeed(), clock, quirks: { clockSkew }, userWritesAsJobs: true });
      const rateLimit = { requests: 1, windowMs: 60_000, retryAfter: "date" } as const;
      const limited = await startEmulator({ seed: {}, clock, quirks: { clockSkew }, rateLimit });
      try {
        const job = await call(jobs, "GET", `jobs/${at((await createCarol(jobs)).json, "data", "id")}`);
        expect(at(job.json, "data", "attributes", "createdAt")).toBe(formatTimestamp(service()));
        await call(limited, "GET", "users");
        const refused = await call(limited, "GET", "users");
        expect([refused.status, refused.headers.get("retry-after")]).toEqual([429, new Date(service() + 60_000).toUTCString()]);
      } finally {
        await Promise.all([jobs.close(), limited.close()]);
      }
    },
  );

  it("changed while running: the next answer's Date reads it", async () => {
    const clock = new VirtualClock();
    const e = await start({ seed: teamSeed(), clock });
    e.quirks.clockSkew = -30;
    expect((await call(e, "GET", "users")).headers.get("date")).toBe(new Date(clock.now() - 30_000).toUTCString());
  });
});

describe("memberRole", () => {
  it.each([
    ["short", ["owner", "collaborator"]],
    ["account", ["account_owner", "account_collaborator"]],
    ["left-out", [undefined, undefined]],
  ] as const)("%s: an integration user's role in the list and the direct read; a workspace user's as ever", async (memberRole, roles) => {
    const e = await start({ seed: teamSeed(), quirks: { memberRole } });
    const list = at((await call(e, "GET", `integrations/${TEAM.tube}/users`)).json, "data") as Array<{
      attributes: Record<string, unknown>;
    }>;
    expect(list.map((m) => m.attributes["role"])).toEqual(roles);
    const one = await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`);
    expect((at(one.json, "data", "attributes") as Record<string, unknown>)["role"]).toBe(roles[0]);
    expect(at((await call(e, "GET", `users/${TEAM.ada}`)).json, "data", "attributes", "role")).toBe("workspace_owner");
    expect(e.integrations.members(TEAM.tube).map((m) => m.role)).toEqual(["owner", "collaborator"]);
  });
});

describe("memberListPath", () => {
  it("singular: the list and the invitation answer at /user alone, its pages linked there; a member's own routes at /users", async () => {
    const e = await start({ seed: teamSeed(), quirks: { memberListPath: "singular" } });
    expect((await call(e, "GET", `integrations/${TEAM.tube}/users`)).status).toBe(404);
    const invite = {
      data: { type: "invite_tenant_users", attributes: { role: "account_collaborator", entitlements: [], userIds: [TEAM.cy] } },
    };
    expect((await call(e, "POST", `integrations/${TEAM.tube}/users`, { body: invite })).status).toBe(404);
    const page = await call(e, "GET", `integrations/${TEAM.tube}/user?page%5Bsize%5D=1`);
    expect(page.status).toBe(200);
    expect(String(at(page.json, "links", "next"))).toContain(`/integrations/${TEAM.tube}/user?`);
    expect((await call(e, "POST", `integrations/${TEAM.tube}/user`, { body: invite })).status).toBe(200);
    expect((await call(e, "GET", `integrations/${TEAM.tube}/users/${TEAM.ada}`)).status).toBe(200);
  });

  it("both (the default): either spelling answers", async () => {
    const e = await start({ seed: teamSeed() });
    expect((await call(e, "GET", `integrations/${TEAM.tube}/users`)).status).toBe(200);
    expect((await call(e, "GET", `integrations/${TEAM.tube}/user`)).status).toBe(200);
  });
});

describe("parseQuirk (the command's --quirk)", () => {
  it.each([
    ["shiftPages=remove", { shiftPages: "remove" }],
    ["shiftPages=false", { shiftPages: false }],
    ["repeatRecords=true", { repeatRecords: true }],
    ["nullFields", { nullFields: true }],
    ["inviteExisting=fail", { inviteExisting: "fail" }],
    ["integrationWriteAnswer=no-content", { integrationWriteAnswer: "no-content" }],
    ["integrationWriteAnswer=job", { integrationWriteAnswer: "job" }],
    ["jobProgress=varied", { jobProgress: "varied" }],
    ["memberEntitlements=ids", { memberEntitlements: "ids" }],
    ["memberEntitlements=left-out", { memberEntitlements: "left-out" }],
    ["lowerCaseEmails", { lowerCaseEmails: true }],
    ["userFilter=case-sensitive", { userFilter: "case-sensitive" }],
    ["unknownEntitlement=bad-request", { unknownEntitlement: "bad-request" }],
    ["errorStatus=string", { errorStatus: "string" }],
    ["absentFields", { absentFields: true }],
    ["clockSkew=-600", { clockSkew: -600 }],
    ["clockSkew=90.5", { clockSkew: 90.5 }],
    ["memberListPath=singular", { memberListPath: "singular" }],
    ["memberRole=left-out", { memberRole: "left-out" }],
  ])("%s", (text, expected) => {
    expect(parseQuirk(text)).toEqual(expected);
  });

  it.each([
    "nope=true",
    "shiftPages=sideways",
    "inviteExisting=true",
    "integrationWriteAnswer=true",
    "jobProgress=true",
    "memberEntitlements=strings",
    "clockSkew",
    "clockSkew=",
    "clockSkew=ten",
  ])("refuses %s", (text) => {
    expect(() => parseQuirk(text)).toThrow(/quirk/);
  });
});
