import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Emulator, ENTITLEMENT_NOT_FOUND, startEmulator } from "../../src/emulator/index";
import { type Answer, at, call, errorField, TEAM, teamSeed } from "./helpers";

let emulator: Emulator;
beforeEach(async () => {
  emulator = await startEmulator({ seed: teamSeed(), job: { finishAfterPolls: 2 } });
});
afterEach(() => emulator.close());

const tube = `integrations/${TEAM.tube}`;

/** Polls a job until it is done, returning every status seen. */
async function pollToEnd(jobId: string): Promise<{ statuses: string[]; last: Answer }> {
  const statuses: string[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await call(emulator, "GET", `jobs/${jobId}`);
    const status = at(answer.json, "data", "attributes", "status") as string;
    statuses.push(status);
    if (status === "finished" || status === "error") return { statuses, last: answer };
  }
  throw new Error(`job ${jobId} never ended: ${statuses.join(", ")}`);
}

function jobId(answer: Answer): string {
  return at(answer.json, "data", "id") as string;
}

const inviteBody = (userIds: string[], entitlements: string[], role = "account_collaborator") => ({
  data: { type: "invite_tenant_users", attributes: { role, entitlements: entitlements.map((id) => ({ id })), userIds } },
});
const setBody = (entitlements: string[]) => ({
  data: { type: "update_user_entitlement", attributes: { entitlements: entitlements.map((id) => ({ id })) } },
});
const addRemoveBody = (add: string[] | undefined, remove: string[] | undefined) => ({
  data: {
    ...(add === undefined ? {} : { add: { entitlements: add.map((id) => ({ id })) } }),
    ...(remove === undefined ? {} : { remove: { entitlements: remove.map((id) => ({ id })) } }),
  },
});

describe("integration reads", () => {
  it("GET /integrations/{id} answers an account record", async () => {
    const answer = await call(emulator, "GET", tube);
    expect(answer.status).toBe(200);
    expect(at(answer.json, "data")).toEqual({
      id: TEAM.tube,
      type: "account",
      attributes: {
        application: "YouTube",
        label: "YouTube acme",
        workspace: expect.any(String),
        createdBy: expect.any(String),
        createdAt: expect.stringMatching(/\.\d{6}\+00:00$/),
        updatedAt: expect.stringMatching(/\.\d{6}\+00:00$/),
      },
    });
  });

  it("GET /integrations lists integrations, paged", async () => {
    const answer = await call(emulator, "GET", "integrations");
    expect(at(answer.json, "meta", "page")).toEqual({ maxSize: 100, total: 1 });
    expect(at(answer.json, "data", 0, "id")).toBe(TEAM.tube);
  });

  it("GET /integrations/{id}/entitlements answers the whole catalogue, not paged", async () => {
    const answer = await call(emulator, "GET", `${tube}/entitlements`);
    expect(at(answer.json, "data")).toEqual([
      { id: "VIEWER", type: "entitlement", attributes: { group: "primary", key: "VIEWER", label: "YOUTUBE_VIEWER_DESC", value: "VIEWER" } },
      { id: "EDITOR", type: "entitlement", attributes: { group: "primary", key: "EDITOR", label: "YOUTUBE_EDITOR_DESC", value: "EDITOR" } },
      { id: "MANAGER", type: "entitlement", attributes: { group: "secondary", key: "MANAGER", label: "Manager", value: "MANAGER" } },
    ]);
    expect(at(answer.json, "meta", "page")).toBeUndefined();
  });

  it.each(["users", "user"])("GET /integrations/{id}/%s lists members with their workspace attributes", async (segment) => {
    const answer = await call(emulator, "GET", `${tube}/${segment}?page[size]=1`);
    expect(answer.status).toBe(200);
    expect(at(answer.json, "data")).toEqual([
      {
        id: TEAM.ada,
        type: "user",
        attributes: {
          email: "ada@example.com",
          firstName: "Ada",
          lastName: "Lovelace",
          isGuest: false,
          status: "live",
          role: "owner",
          entitlements: [
            {
              id: "VIEWER",
              type: "entitlement",
              attributes: { group: "primary", key: "VIEWER", label: "YOUTUBE_VIEWER_DESC", value: "VIEWER" },
            },
          ],
        },
        meta: { dynamicFields: {} },
      },
    ]);
    expect(at(answer.json, "links")).toEqual({
      self: `/api/v1/integrations/${TEAM.tube}/users?page%5Bnumber%5D=1&page%5Bsize%5D=1`,
      next: `/api/v1/integrations/${TEAM.tube}/users?page%5Bnumber%5D=2&page%5Bsize%5D=1`,
      previous: null,
    });
    expect(at(answer.json, "meta", "page", "total")).toBe(2);
  });

  it("GET /integrations/{id}/users/{userId} answers one member, with dynamic fields", async () => {
    const answer = await call(emulator, "GET", `${tube}/users/${TEAM.bob}`);
    expect(at(answer.json, "data", "attributes", "role")).toBe("collaborator");
    expect(at(answer.json, "data", "meta")).toEqual({ dynamicFields: { seats: 2 } });
  });

  it.each([
    ["an unknown integration", `integrations/00000000-0000-4000-8000-000000000000`],
    ["an unknown integration's users", `integrations/00000000-0000-4000-8000-000000000000/users`],
    ["an unknown integration's entitlements", `integrations/00000000-0000-4000-8000-000000000000/entitlements`],
    ["a workspace user who is not a member", `${tube}/users/${TEAM.cy}`],
    ["an unknown user", `${tube}/users/00000000-0000-4000-8000-000000000000`],
  ])("answers 404 for %s", async (_label, path) => {
    const answer = await call(emulator, "GET", path);
    expect(answer.status).toBe(404);
    expect(errorField(answer, "code")).toBe("Not found");
  });
});

describe("integration writes answer with a job and apply only when it finishes", () => {
  it("POST /integrations/{id}/users invites, mapping account_owner to owner", async () => {
    const answer = await call(emulator, "POST", `${tube}/users`, { body: inviteBody([TEAM.cy], ["MANAGER", "VIEWER"], "account_owner") });
    expect(answer.status).toBe(200);
    const id = jobId(answer);
    expect(answer.json).toEqual({
      data: { id, type: "job", attributes: { status: "created" } },
      links: { self: `/api/v1/jobs/${id}` },
      meta: {},
    });
    expect(emulator.integrations.members(TEAM.tube).map((m) => m.userId)).not.toContain(TEAM.cy);

    const { statuses } = await pollToEnd(id);
    expect(statuses).toEqual(["running", "finished"]);
    expect(emulator.integrations.members(TEAM.tube).find((m) => m.userId === TEAM.cy)).toEqual({
      userId: TEAM.cy,
      role: "owner",
      entitlements: ["MANAGER", "VIEWER"],
    });
  });

  it("the singular /user alias invites too", async () => {
    const answer = await call(emulator, "POST", `${tube}/user`, { body: inviteBody([TEAM.cy], ["VIEWER"]) });
    await pollToEnd(jobId(answer));
    expect(emulator.integrations.members(TEAM.tube).find((m) => m.userId === TEAM.cy)?.role).toBe("collaborator");
  });

  it.each([
    ["an unknown user", 404, ["00000000-0000-4000-8000-000000000000"]],
    ["a user who is already a member", 409, [TEAM.ada]],
  ])("an invite of %s answers %i and starts no job", async (_label, status, userIds) => {
    const answer = await call(emulator, "POST", `${tube}/users`, { body: inviteBody(userIds, ["VIEWER"]) });
    expect(answer.status).toBe(status);
    expect(emulator.jobs.list()).toEqual([]);
  });

  it.each([
    [
      "a wrong type",
      { data: { type: "invite", attributes: { role: "account_owner", entitlements: [], userIds: [TEAM.cy] } } },
      ["body", "data", "type"],
    ],
    ["a wrong role", inviteBody([TEAM.cy], [], "owner"), ["body", "data", "attributes", "role"]],
    ["no user ids", inviteBody([], []), ["body", "data", "attributes", "userIds"]],
    ["a user id that is not a uuid", inviteBody(["bob"], []), ["body", "data", "attributes", "userIds", 0]],
    [
      "an entitlement without id",
      { data: { type: "invite_tenant_users", attributes: { role: "account_owner", entitlements: [{}], userIds: [TEAM.cy] } } },
      ["body", "data", "attributes", "entitlements", 0, "id"],
    ],
  ])("an invite with %s answers 400", async (_label, body, loc) => {
    const answer = await call(emulator, "POST", `${tube}/users`, { body });
    expect(answer.status).toBe(400);
    expect(errorField(answer, "meta")).toMatchObject({ loc });
  });

  it("an invite with several problems lists each, in the service's words (loc, msg, type)", async () => {
    const body = { data: { type: "invite_tenant_users", attributes: { role: "owner", entitlements: "VIEWER", userIds: [7, TEAM.cy] } } };
    const answer = await call(emulator, "POST", `${tube}/users`, { body });
    expect(answer.status).toBe(400);
    const metas = (at(answer.json, "errors") as Array<{ meta: unknown }>).map((error) => error.meta);
    expect(metas).toEqual([
      {
        loc: ["body", "data", "attributes", "role"],
        msg: "value is not a valid enumeration member; permitted: 'account_owner', 'account_collaborator'",
        type: "type_error.enum",
      },
      { loc: ["body", "data", "attributes", "entitlements"], msg: "value is not a valid list", type: "type_error.list" },
      { loc: ["body", "data", "attributes", "userIds", 0], msg: "value is not a valid uuid", type: "type_error.uuid" },
    ]);
    expect(emulator.jobs.list()).toEqual([]);
  });

  it("PATCH /integrations/{id}/users/{userId} replaces the whole set", async () => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}`, { body: setBody(["EDITOR", "MANAGER"]) });
    expect(at(answer.json, "data", "attributes", "status")).toBe("created");
    expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["VIEWER"]);
    await pollToEnd(jobId(answer));
    expect(emulator.integrations.members(TEAM.tube)[0]).toEqual({ userId: TEAM.ada, role: "owner", entitlements: ["EDITOR", "MANAGER"] });
  });

  it("PATCH .../entitlements adds and removes", async () => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}/entitlements`, {
      body: addRemoveBody(["MANAGER", "EDITOR"], ["VIEWER"]),
    });
    await pollToEnd(jobId(answer));
    expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(["MANAGER", "EDITOR"]);
  });

  it.each([
    ["only add", ["EDITOR"], undefined, ["VIEWER", "EDITOR"]],
    ["only remove", undefined, ["VIEWER"], []],
    ["adding one already held", ["VIEWER"], undefined, ["VIEWER"]],
    ["removing one not held", undefined, ["MANAGER"], ["VIEWER"]],
  ])("PATCH .../entitlements with %s", async (_label, add, remove, expected) => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}/entitlements`, { body: addRemoveBody(add, remove) });
    await pollToEnd(jobId(answer));
    expect(emulator.integrations.members(TEAM.tube)[0]?.entitlements).toEqual(expected);
  });

  it("PATCH .../entitlements with neither add nor remove answers 400", async () => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.ada}/entitlements`, { body: { data: {} } });
    expect(answer.status).toBe(400);
    expect(errorField(answer, "meta")).toMatchObject({ loc: ["body", "data"] });
  });

  it("DELETE /integrations/{id}/users/{userId} removes the member when the job finishes", async () => {
    const answer = await call(emulator, "DELETE", `${tube}/users/${TEAM.bob}`);
    expect(answer.status).toBe(200);
    expect((await call(emulator, "GET", `${tube}/users/${TEAM.bob}`)).status).toBe(200);
    const { last } = await pollToEnd(jobId(answer));
    expect(at(last.json, "data", "attributes", "workflowType")).toBe("revoke_access");
    expect((await call(emulator, "GET", `${tube}/users/${TEAM.bob}`)).status).toBe(404);
  });

  it.each([
    ["PATCH", `users/${TEAM.cy}`, setBody(["VIEWER"])],
    ["PATCH", `users/${TEAM.cy}/entitlements`, addRemoveBody(["VIEWER"], undefined)],
    ["DELETE", `users/${TEAM.cy}`, undefined],
  ])("%s %s of a non-member answers 404", async (method, path, body) => {
    const answer = await call(emulator, method, `${tube}/${path}`, { body });
    expect(answer.status).toBe(404);
    expect(emulator.jobs.list()).toEqual([]);
  });

  it.each([
    ["an invite", "POST", "users", inviteBody([TEAM.cy], ["VIEWER", "OWNER_OF_EVERYTHING"])],
    ["a replacement", "PATCH", `users/${TEAM.ada}`, setBody(["OWNER_OF_EVERYTHING"])],
    ["an addition", "PATCH", `users/${TEAM.ada}/entitlements`, addRemoveBody(["OWNER_OF_EVERYTHING"], undefined)],
    ["a removal", "PATCH", `users/${TEAM.ada}/entitlements`, addRemoveBody(undefined, ["OWNER_OF_EVERYTHING"])],
  ])("%s naming an unknown entitlement ends in error and applies nothing", async (_label, method, path, body) => {
    const before = emulator.integrations.members(TEAM.tube);
    const answer = await call(emulator, method, `${tube}/${path}`, { body });
    expect(answer.status).toBe(200);
    const { statuses, last } = await pollToEnd(jobId(answer));
    expect(statuses.at(-1)).toBe("error");
    expect(at(last.json, "data", "attributes", "errorDetails")).toEqual({ errorType: ENTITLEMENT_NOT_FOUND, userRequired: false });
    expect(emulator.integrations.members(TEAM.tube)).toEqual(before);
  });
});

describe("deleting a workspace user", () => {
  it("removes their integration memberships", async () => {
    expect((await call(emulator, "DELETE", `users/${TEAM.bob}`)).status).toBe(204);
    expect(emulator.integrations.members(TEAM.tube).map((m) => m.userId)).toEqual([TEAM.ada]);
    expect((await call(emulator, "GET", `${tube}/users/${TEAM.bob}`)).status).toBe(404);
    expect(at((await call(emulator, "GET", `${tube}/users`)).json, "meta", "page", "total")).toBe(1);
  });

  it("while a job on them is pending makes the job end in error", async () => {
    const answer = await call(emulator, "PATCH", `${tube}/users/${TEAM.bob}`, { body: setBody(["VIEWER"]) });
    await call(emulator, "DELETE", `users/${TEAM.bob}`);
    const { last } = await pollToEnd(jobId(answer));
    expect(at(last.json, "data", "attributes", "status")).toBe("error");
    expect(at(last.json, "data", "attributes", "errorDetails", "errorType")).toBe("user_not_member");
    expect(emulator.integrations.members(TEAM.tube).map((m) => m.userId)).toEqual([TEAM.ada]);
  });
});

describe("a changed member keeps their place in the list", () => {
  it("stays in creation order after an update", async () => {
    emulator.integrations.setMember(TEAM.tube, TEAM.ada, { entitlements: ["MANAGER"] });
    const answer = await call(emulator, "GET", `${tube}/users`);
    expect((at(answer.json, "data") as Array<{ id: string }>).map((u) => u.id)).toEqual([TEAM.ada, TEAM.bob]);
    expect(emulator.integrations.members(TEAM.tube)[0]).toEqual({ userId: TEAM.ada, role: "owner", entitlements: ["MANAGER"] });
  });
});
