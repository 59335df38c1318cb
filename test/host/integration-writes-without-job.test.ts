/**
 * The integration writes (invite, set the entitlements, remove a member) answered without a job, as the
 * contract's "every 2xx is success" allows and the emulator's `integrationWriteAnswer` quirk plays: 204 with
 * no body, 200 with an empty body, 200 with no `data`. Each resource is run through the same steps as with a
 * job (`"job"`, the public document's answer): the writes sent are the same, the state as truthful, and no
 * job is polled.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator, type EmulatorQuirks } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { type IntegrationMembersOutputs, provider as members } from "../../src/host/members/integration-members-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const FORMS = ["job", "no-content", "empty-ok", "no-data"] as const satisfies ReadonlyArray<EmulatorQuirks["integrationWriteAnswer"]>;
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
/** Each request's method, path (ids as `:id`) and status. */
const lines = (emu: Emulator) => emu.requests.map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ":id")} ${r.status}`);
const writes = (emu: Emulator) => emu.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path}`);
const polls = (emu: Emulator) => emu.requests.filter((r) => r.path.startsWith("/jobs/")).length;
/** What each write answers under `form`. */
const status = (form: (typeof FORMS)[number]) => (form === "no-content" ? 204 : 200);

describe("IntegrationEntitlement, its writes answered without a job", () => {
  const { youtube } = DEFAULT_IDS.integrations;
  const { alan } = DEFAULT_IDS.users;
  const base = { integrationId: youtube, userId: alan, entitlements: ["VIEWER", "EDITOR"] };
  const check = async (news: Record<string, unknown>) => (await entitlement.check!({}, news)).inputs!;
  const member = (emu: Emulator) => {
    const found = emu.integrations.members(youtube).find((m) => m.userId === alan);
    return found && { ...found, entitlements: [...found.entitlements].sort() };
  };

  it.each(FORMS)(
    "%s: create, update and delete make the membership and record it as read back, polling only a job answered",
    async (form) => {
      const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 }, quirks: { integrationWriteAnswer: form } });
      await configureFor(emu, fast);
      const s = status(form);

      const { id, outs } = wire(await entitlement.create(await check(base)));
      expect(member(emu)).toEqual({ userId: alan, role: "collaborator", entitlements: ["EDITOR", "VIEWER"] });
      const job = form === "job" ? emu.jobs.list()[0]!.id : null;
      expect(outs).toMatchObject({ entitlements: ["EDITOR", "VIEWER"], email: "alan@example.com", lastJobId: job, pendingInvitations: [] });
      // The member is read back after the invitation, as after a finished job: only the job's poll goes.
      expect(lines(emu)).toEqual([
        "GET /integrations/:id/entitlements 200",
        "GET /integrations/:id/users/:id 404",
        // The client's one proof that this key is shown integrations and users (the member list, one record): a 404 is
        // "not a member", not "not disclosed".
        "GET /integrations/:id/users 200",
        `POST /integrations/:id/users ${s}`,
        ...(form === "job" ? ["GET /jobs/:id 200"] : []),
        "GET /integrations/:id/users/:id 200",
      ]);

      emu.clearRequests();
      const { outs: updated } = wire(await entitlement.update!(id, outs!, await check({ ...base, entitlements: ["MANAGER"] })));
      expect(member(emu)?.entitlements).toEqual(["MANAGER"]);
      expect(updated).toMatchObject({ entitlements: ["MANAGER"], pendingInvitations: [] });
      // The catalogue was read once, by the create's check.
      expect(lines(emu)).toEqual([`PATCH /integrations/:id/users/:id ${s}`, ...(form === "job" ? ["GET /jobs/:id 200"] : [])]);

      // Another deployment's destroy (the create's claimed the membership).
      await configureFor(emu, fast);
      emu.clearRequests();
      await entitlement.delete!(id, updated!);
      expect(member(emu)).toBeUndefined();
      expect(lines(emu)).toEqual([
        "GET /integrations/:id/users/:id 200",
        `DELETE /integrations/:id/users/:id ${s}`,
        ...(form === "job" ? ["GET /jobs/:id 200"] : []),
      ]);
      expect(emu.jobs.list()).toHaveLength(form === "job" ? 3 : 0);
    },
  );
});

describe("IntegrationMembers, its writes answered without a job", () => {
  const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";
  const O = "00000000-0000-4000-8000-00000000000f";
  const [N1, N2, N3, N4] = [1, 2, 3, 4].map((n) => `00000000-0000-4000-8000-00000000000${n}`) as [string, string, string, string];
  const collaborator = (userId: string, entitlements: string[]) => ({ userId, entitlements, role: "account_collaborator" });

  async function world(form: (typeof FORMS)[number]) {
    const person = (id: string, i: number) => ({ id, email: `user${i}@example.com`, firstName: "U", lastName: `${i}` });
    const emu = await emulator({
      seed: {
        users: [O, N1, N2, N3, N4].map(person),
        integrations: [
          {
            id: INTEGRATION,
            application: "App",
            entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }],
            users: [{ userId: O, role: "owner", entitlements: ["VIEWER"] }],
          },
        ],
      },
      job: { finishAfterPolls: 1 },
      quirks: { integrationWriteAnswer: form },
    });
    await configureFor(emu, fast);
    return emu;
  }
  const served = (emu: Emulator) =>
    emu.integrations
      .members(INTEGRATION)
      .map((m) => `${m.userId} ${m.role} ${[...m.entitlements].sort().join(",")}`)
      .sort();

  it.each(FORMS)(
    "%s: a create of several members, an update and a destroy write the same as with jobs, polling only jobs answered",
    async (form) => {
      const emu = await world(form);
      const news = {
        integrationId: INTEGRATION,
        members: [
          { userId: N1, entitlements: ["VIEWER"] },
          { userId: N2, entitlements: ["VIEWER"] },
          { userId: N3, entitlements: ["VIEWER"] },
        ],
        removeUnmanaged: false,
      };
      const created = wire(await members.create!((await members.check!({}, news)).inputs!)).outs as IntegrationMembersOutputs;
      // The three invited together, in one invitation; read back, nothing left pending.
      expect(writes(emu)).toEqual([`POST /integrations/${INTEGRATION}/users`]);
      expect(emu.requests.find((r) => r.method === "POST")?.body).toMatchObject({ data: { attributes: { userIds: [N1, N2, N3] } } });
      expect(created.members).toEqual([N1, N2, N3].map((id) => collaborator(id, ["VIEWER"])));
      expect(created.pendingInvitations).toEqual([]);
      expect(served(emu)).toEqual([`${O} owner VIEWER`, ...[N1, N2, N3].map((id) => `${id} collaborator VIEWER`)].sort());

      // The next deployment (in the create's, the members it made are claimed): N1's set changes, N2 leaves, N4 comes.
      await configureFor(emu, fast);
      emu.clearRequests();
      const next = {
        ...news,
        members: [
          { userId: N1, entitlements: ["EDITOR", "VIEWER"] },
          { userId: N3, entitlements: ["VIEWER"] },
          { userId: N4, entitlements: ["EDITOR"] },
        ],
      };
      const updated = wire(await members.update!(INTEGRATION, created, (await members.check!(news, next)).inputs!))
        .outs as IntegrationMembersOutputs;
      expect(writes(emu).sort()).toEqual(
        [
          `DELETE /integrations/${INTEGRATION}/users/${N2}`,
          `PATCH /integrations/${INTEGRATION}/users/${N1}`,
          `POST /integrations/${INTEGRATION}/users`,
        ].sort(),
      );
      expect(updated.members).toEqual([collaborator(N1, ["EDITOR", "VIEWER"]), collaborator(N3, ["VIEWER"]), collaborator(N4, ["EDITOR"])]);
      expect(updated.pendingInvitations).toEqual([]);
      expect(served(emu)).toEqual(
        [`${O} owner VIEWER`, `${N1} collaborator EDITOR,VIEWER`, `${N3} collaborator VIEWER`, `${N4} collaborator EDITOR`].sort(),
      );
      // A refresh reads what the state says: no diff.
      const read = wire(await members.read!(INTEGRATION, updated)).props as IntegrationMembersOutputs;
      expect(read.members).toEqual(updated.members);
      expect((await members.diff!(INTEGRATION, read, (await members.check!(next, next)).inputs!)).changes).toBe(false);

      // Another deployment's destroy: the three it manages go, the owner stays.
      await configureFor(emu, fast);
      emu.clearRequests();
      await members.delete!(INTEGRATION, updated);
      expect(writes(emu).sort()).toEqual([N1, N3, N4].map((id) => `DELETE /integrations/${INTEGRATION}/users/${id}`).sort());
      expect(served(emu)).toEqual([`${O} owner VIEWER`]);

      const answered = emu.requests.filter((r) => r.method !== "GET").map((r) => r.status);
      expect(new Set(answered)).toEqual(new Set([status(form)]));
      if (form === "job") expect(polls(emu)).toBeGreaterThan(0);
      else {
        expect(polls(emu)).toBe(0);
        expect(emu.jobs.list()).toEqual([]);
      }
    },
  );
});
