/**
 * `IntegrationMembers`, the whole member set of one integration (issue 17), through the real `pulumi`
 * CLI against the emulator: create (adopting declared members, inviting the
 * others in one batch), refresh, unmanaged members reported and removed only with
 * `removeUnmanaged`, delete removing exactly the managed members, the last owner never removed,
 * and the refusal to share an integration with `IntegrationEntitlement`. Assertions are on what
 * the emulator received and holds.
 */
import { describe, expect, it } from "vitest";
import type { EmulatorOptions, SeedMember } from "../../src/emulator/index.ts";
import { adversarialQuirks } from "../../src/emulator/quirks.ts";
import { header, type Scenario, scenarios, stepOf, writes as allWrites } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();
const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
/** The users of every scenario: an owner, a second owner, two existing collaborators, three new users. */
const U = { owner: id(1), owner2: id(2), existing: id(3), stranger: id(4), a: id(5), b: id(6), c: id(7) };

/**
 * The two worlds. Well-behaved: the scenario's members only. Adversarial:
 * every quirk the contract allows on (pages that shift once per walk after a write, records listed
 * twice, invitations of members merged, ids answered in upper case, 204 answers, null fields), and
 * unmanaged "filler" members after the scenario's, up to {@link PAGE}: the first member a scenario
 * invites is the first record of the list's second page, the one a shifted page skips (the shift
 * comes once per walk after each write), and the scenario's seeded members stay on page one.
 */
const PAGE = 100;
const filler = (n: number) => `00000000-0000-4000-8000-0000000f${String(n).padStart(4, "0")}`;
const isFiller = (userId: string) => /^00000000-0000-4000-8000-0000000f\d{4}$/i.test(userId);

function worldOf(adversarial: boolean, members: SeedMember[]): EmulatorOptions {
  const fillers = adversarial ? Array.from({ length: Math.max(0, PAGE - members.length) }, (_, i) => filler(i)) : [];
  const users = [
    ...Object.entries(U).map(([name, userId]) => ({ id: userId, email: `${name}@example.com`, firstName: name, lastName: "User" })),
    ...fillers.map((id, i) => ({ id, email: `filler${i}@example.com`, firstName: "Filler", lastName: `${i}` })),
  ];
  const all = [...members, ...fillers.map((userId) => ({ userId, entitlements: ["VIEWER"] }))];
  return {
    seed: {
      users,
      integrations: [{ id: INTEGRATION, application: "app", entitlements: [{ id: "VIEWER" }, { id: "EDITOR" }], users: all }],
    },
    job: { finishAfterPolls: 1 },
    ...(adversarial ? { quirks: adversarialQuirks() } : {}),
  };
}

function program(members: Array<{ userId: string; entitlements: string[]; role?: string }>, removeUnmanaged?: boolean): string {
  const args = { integrationId: INTEGRATION, members, ...(removeUnmanaged === undefined ? {} : { removeUnmanaged }) };
  return `${header}const team = new wa.IntegrationMembers("team", ${JSON.stringify(args)});
export const unmanaged = team.unmanagedMembers.apply((m) => m.map((x) => x.userId));
export const managed = team.members.apply((m) => m.map((x) => x.userId + ":" + x.entitlements.join(",")));
`;
}

/** `IntegrationEntitlement` resources, one per membership (named `e-<user>`). */
function entitlementsProgram(list: Array<{ userId: string; entitlements: string[] }>, adoptExisting = false): string {
  return `${header}${list
    .map(
      (m) =>
        `new wa.IntegrationEntitlement(${JSON.stringify(`e-${m.userId.slice(-2)}`)}, ${JSON.stringify({ integrationId: INTEGRATION, ...m, ...(adoptExisting ? { adoptExisting } : {}) })});`,
    )
    .join("\n")}\n`;
}

/**
 * The emulator's own answer to the member list, each record passed to `edit`, served as the
 * answer to the next `times` list reads (a fault with that body).
 */
async function serveList(s: Scenario, edit: (record: { id: string; attributes: Record<string, unknown> }) => void, times = 1) {
  const answer = await fetch(new URL(`integrations/${INTEGRATION}/users?page[size]=100`, s.emu.url), { headers: { "X-API-Key": s.key } });
  const page = (await answer.json()) as { data: Array<{ id: string; attributes: Record<string, unknown> }> };
  // The record as the scenario names it (a service may answer ids in upper case).
  for (const record of page.data) edit({ ...record, id: record.id.toLowerCase(), attributes: record.attributes });
  s.emu.clearRequests();
  s.emu.fault({ method: "GET", path: `/integrations/${INTEGRATION}/users`, times, body: JSON.stringify(page) });
}

/** The writes the emulator received, the adversarial world's fillers left out. */
const writes = (emu: Scenario["emu"]) => allWrites(emu).filter((r) => !isFiller(r.path.split("/").at(-1) ?? ""));
/** User (or job) ids as the scenario names them: lower case, fillers left out. */
/** The jobs of the writes that may still land, as the state records them. */
const jobsOf = (pending: unknown) => ((pending ?? []) as { jobId: string | null }[]).flatMap((p) => (p.jobId ? [p.jobId] : []));
const ids = (list: unknown) => (list as string[]).map((id) => id.toLowerCase()).filter((id) => !isFiller(id));
const members = (s: Scenario) =>
  Object.fromEntries(
    s.emu.integrations
      .members(INTEGRATION)
      .filter((m) => !isFiller(m.userId))
      .map((m) => [m.userId, `${m.role}:${[...m.entitlements].sort().join(",")}`] as const)
      .sort(),
  );
const writeLines = (s: Scenario) =>
  writes(s.emu)
    .map((r) => `${r.method} ${r.path.toLowerCase()}`)
    .sort();
const changed = <T extends { op: string; type: string }>(result: { steps: T[] }) =>
  result.steps.filter((st) => st.type !== "pulumi:pulumi:Stack" && st.op !== "same");

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  /**
   * Each promise runs through the CLI in one world, the one it is most about: a deployment costs
   * the CLI's start and a checkpoint per step, and running every scenario in both worlds never
   * finished within the tier's time. The handlers meet both worlds in-process
   * (test/host/integration-members-provider.test.ts: "a list is not proof of absence", records
   * listed twice, ids in upper case).
   */
  describe("IntegrationMembers through the real CLI", () => {
    const world = (members: SeedMember[]) => worldOf(false, members);
    const adversarialWorld = (members: SeedMember[]) => worldOf(true, members);

    it("hand changes: an up for something else writes none back; a member made an owner, role left out, is left by a removal and the destroy", async () => {
      const a = { userId: U.a, entitlements: ["VIEWER"] };
      const b = { userId: U.b, entitlements: ["VIEWER"] };
      const s = await start({ program: program([a, b]), emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]) });
      await s.up();
      // By hand: A gets EDITOR, B is removed. The program then adds C alone: C alone is invited.
      s.emu.integrations.setMember(INTEGRATION, U.a, { role: "collaborator", entitlements: ["VIEWER", "EDITOR"] });
      s.emu.integrations.removeMember(INTEGRATION, U.b);
      s.emu.clearRequests();
      s.setProgram(program([a, b, { userId: U.c, entitlements: ["VIEWER"] }]));
      await s.up();
      expect(writeLines(s)).toEqual([`POST /integrations/${INTEGRATION}/users`]);
      expect(members(s)[U.a]).toBe("collaborator:EDITOR,VIEWER");
      expect(members(s)[U.b]).toBeUndefined();
      // Someone makes A an owner; the program then leaves A out, and the stack is destroyed: A stays, with warnings.
      s.emu.integrations.setMember(INTEGRATION, U.a, { role: "owner", entitlements: ["VIEWER", "EDITOR"] });
      await s.refresh();
      s.emu.clearRequests();
      s.setProgram(program([b, { userId: U.c, entitlements: ["VIEWER"] }]));
      const dropped = await s.up();
      expect(writeLines(s)).toEqual([`POST /integrations/${INTEGRATION}/users`]);
      expect(dropped.diagnostics.join("\n")).toContain("owners of the integration now, a role the program does not declare");
      s.emu.clearRequests();
      await s.destroy();
      expect(writeLines(s)).toEqual(
        [`DELETE /integrations/${INTEGRATION}/users/${U.b}`, `DELETE /integrations/${INTEGRATION}/users/${U.c}`].sort(),
      );
      expect(members(s)[U.a]).toBe("owner:EDITOR,VIEWER");
    });

    it("in the adversarial world, create adopts declared members and invites the others in one batch; refresh reports unmanaged members with no diff; removeUnmanaged removes them on up", async () => {
      const s = await start({
        program: program([
          { userId: U.owner, entitlements: ["EDITOR", "VIEWER"], role: "account_owner" },
          { userId: U.existing, entitlements: ["VIEWER"] },
          { userId: U.a, entitlements: ["VIEWER"] },
          { userId: U.b, entitlements: ["VIEWER"] },
          { userId: U.c, entitlements: ["VIEWER"] },
        ]),
        emulator: adversarialWorld([
          { userId: U.owner, role: "owner", entitlements: ["EDITOR", "VIEWER"] },
          { userId: U.owner2, role: "owner", entitlements: ["VIEWER"] },
          { userId: U.existing, entitlements: ["EDITOR"] },
          { userId: U.stranger, entitlements: ["VIEWER"] },
        ]),
      });
      const up = await s.up();
      // One member list, one invitation for the three new users, one PATCH for the adopted member whose set differs.
      expect(writeLines(s)).toEqual([`PATCH /integrations/${INTEGRATION}/users/${U.existing}`, `POST /integrations/${INTEGRATION}/users`]);
      const post = writes(s.emu).find((r) => r.method === "POST")!;
      expect(ids((post.body as { data: { attributes: { userIds: string[] } } }).data.attributes.userIds).sort()).toEqual(
        [U.a, U.b, U.c].sort(),
      );
      expect(ids(up.outputs["unmanaged"])).toEqual([U.owner2, U.stranger]);
      expect(members(s)).toEqual({
        [U.owner]: "owner:EDITOR,VIEWER",
        [U.owner2]: "owner:VIEWER",
        [U.existing]: "collaborator:VIEWER",
        [U.stranger]: "collaborator:VIEWER",
        [U.a]: "collaborator:VIEWER",
        [U.b]: "collaborator:VIEWER",
        [U.c]: "collaborator:VIEWER",
      });

      // Refresh: every member the service has, no spurious diff; a member added out of band shows as unmanaged.
      s.emu.integrations.setMember(INTEGRATION, U.stranger, { role: "collaborator", entitlements: ["EDITOR", "VIEWER"] });
      s.emu.clearRequests();
      const refresh = await s.refresh();
      expect(refresh.steps.every((st) => st.op === "same" || st.op === "update")).toBe(true);
      const state = s.stack.state().resources.find((r) => r.name === "team")!;
      expect(ids((state.outputs["unmanagedMembers"] as Array<{ userId: string; entitlements: string[] }>).map((m) => m.userId))).toEqual([
        U.owner2,
        U.stranger,
      ]);
      expect(changed(await s.preview())).toEqual([]);
      expect(writes(s.emu)).toEqual([]);

      // Drift of a managed member is a diff, and the next up puts it back with one PATCH.
      s.emu.integrations.setMember(INTEGRATION, U.a, { role: "collaborator", entitlements: ["EDITOR"] });
      await s.refresh();
      expect(stepOf(await s.preview(), "team").op).toBe("update");
      s.emu.clearRequests();
      await s.up();
      expect(writeLines(s)).toEqual([`PATCH /integrations/${INTEGRATION}/users/${U.a}`]);

      // removeUnmanaged: the plan shows an update; up removes exactly the unmanaged members (the declared owner stays).
      s.setProgram(
        program(
          [
            { userId: U.owner, entitlements: ["EDITOR", "VIEWER"], role: "account_owner" },
            { userId: U.existing, entitlements: ["VIEWER"] },
            { userId: U.a, entitlements: ["VIEWER"] },
            { userId: U.b, entitlements: ["VIEWER"] },
            { userId: U.c, entitlements: ["VIEWER"] },
          ],
          true,
        ),
      );
      s.emu.clearRequests();
      expect(stepOf(await s.preview(), "team").op).toBe("update");
      expect(writes(s.emu)).toEqual([]);
      const removal = await s.up();
      expect(writeLines(s)).toEqual([
        `DELETE /integrations/${INTEGRATION}/users/${U.owner2}`,
        `DELETE /integrations/${INTEGRATION}/users/${U.stranger}`,
      ]);
      expect(ids(removal.outputs["unmanaged"])).toEqual([]);
      expect(Object.keys(members(s)).sort()).toEqual([U.owner, U.existing, U.a, U.b, U.c].sort());
      expect(changed(await s.preview())).toEqual([]);

      // Destroy gives back the members it adopted (the owner among them) and removes those it invited.
      s.emu.clearRequests();
      await s.destroy();
      expect(writeLines(s)).toEqual([U.a, U.b, U.c].map((id) => `DELETE /integrations/${INTEGRATION}/users/${id}`).sort());
      expect(Object.keys(members(s)).sort()).toEqual([U.owner, U.existing].sort());
    }, 480_000);

    it("without removeUnmanaged, unmanaged members stay; delete removes exactly the managed members", async () => {
      const s = await start({
        program: program([
          { userId: U.a, entitlements: ["VIEWER"] },
          { userId: U.b, entitlements: ["EDITOR"] },
        ]),
        emulator: world([
          { userId: U.owner, role: "owner", entitlements: ["VIEWER"] },
          { userId: U.stranger, entitlements: ["VIEWER"] },
        ]),
      });
      await s.up();
      // Two sets: two invitations.
      expect(writeLines(s)).toEqual([`POST /integrations/${INTEGRATION}/users`, `POST /integrations/${INTEGRATION}/users`]);
      expect(changed(await s.preview())).toEqual([]);
      s.emu.clearRequests();
      await s.destroy();
      expect(writeLines(s)).toEqual([
        `DELETE /integrations/${INTEGRATION}/users/${U.a}`,
        `DELETE /integrations/${INTEGRATION}/users/${U.b}`,
      ]);
      expect(Object.keys(members(s)).sort()).toEqual([U.owner, U.stranger].sort());
    }, 300_000);

    it("dropping the last owner from members fails the preview, naming the owner; nothing is sent", async () => {
      const s = await start({
        program: program([
          { userId: U.owner, entitlements: ["VIEWER"], role: "account_owner" },
          { userId: U.a, entitlements: ["VIEWER"] },
        ]),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
      });
      await s.up();
      s.setProgram(program([{ userId: U.a, entitlements: ["VIEWER"] }]));
      s.emu.clearRequests();
      const error = await s.fails("preview");
      expect(error.message).toContain(
        `Refusing to remove user ${U.owner}, the last member with the owner role of integration ${INTEGRATION}`,
      );
      const upError = await s.fails("up");
      expect(upError.message).toContain("the last member with the owner role");
      expect(writes(s.emu)).toEqual([]);
      expect(members(s)[U.owner]).toBe("owner:VIEWER");
    }, 300_000);

    it("moving memberships between IntegrationEntitlement resources and an IntegrationMembers, and renaming it, removes nobody", async () => {
      const declared = [
        { userId: U.a, entitlements: ["VIEWER"] },
        { userId: U.b, entitlements: ["EDITOR"] },
      ];
      const s = await start({
        program: entitlementsProgram(declared),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
      });
      await s.up();
      const before = members(s);
      expect(Object.keys(before).sort()).toEqual([U.owner, U.a, U.b].sort());
      const deletes = () => writes(s.emu).filter((r) => r.method === "DELETE");

      // IntegrationEntitlement -> IntegrationMembers in one up (owners.ts's advice): the new resource's
      // create adopts both members before the old resources' deletes run; those must not remove them.
      s.setProgram(program(declared));
      s.emu.clearRequests();
      const moved = await s.up();
      expect(
        changed(moved)
          .map((st) => `${st.op} ${st.name}`)
          .sort(),
      ).toEqual(["create team", "delete e-05", "delete e-06"]);
      expect(deletes()).toEqual([]);
      expect(members(s)).toEqual(before);

      // A rename without an alias: create "crew" (adopting everyone), then delete "team".
      s.setProgram(program(declared).replace('IntegrationMembers("team"', 'IntegrationMembers("crew"'));
      s.emu.clearRequests();
      const renamed = await s.up();
      expect(
        changed(renamed)
          .map((st) => `${st.op} ${st.name}`)
          .sort(),
      ).toEqual(["create crew", "delete team"]);
      expect(deletes()).toEqual([]);
      expect(members(s)).toEqual(before);

      // And back: IntegrationEntitlement resources adopting the members claim them; the
      // IntegrationMembers' delete leaves them.
      s.setProgram(entitlementsProgram(declared, true));
      s.emu.clearRequests();
      await s.up();
      expect(deletes()).toEqual([]);
      expect(members(s)).toEqual(before);
      expect(changed(await s.preview())).toEqual([]);
    }, 300_000);

    it("the only owner, whose role the service names in a way the package does not know, is never removed: not by removeUnmanaged, not by destroy", async () => {
      const s = await start({
        program: program([{ userId: U.a, entitlements: ["VIEWER"] }]),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
      });
      await s.up();
      const unknownRole = (record: { id: string; attributes: Record<string, unknown> }) => {
        if (record.id === U.owner) record.attributes["role"] = "primary_owner";
      };
      await serveList(s, unknownRole);
      await s.refresh();
      const state = s.stack.state().resources.find((r) => r.name === "team")!;
      const unmanaged = (state.outputs["unmanagedMembers"] as Array<{ userId: string; role: string | null }>).filter(
        (m) => !isFiller(m.userId),
      );
      expect(unmanaged.map((m) => ({ userId: m.userId.toLowerCase(), role: m.role }))).toEqual([{ userId: U.owner, role: null }]);

      // removeUnmanaged would remove the one member who may be the owner: the plan fails, and so does up.
      s.setProgram(program([{ userId: U.a, entitlements: ["VIEWER"] }], true));
      const refused = `Refusing to remove user ${U.owner}, whose role is unknown, of integration ${INTEGRATION}`;
      expect((await s.fails("preview")).message).toContain(refused);
      await serveList(s, unknownRole);
      expect((await s.fails("up")).message).toContain(refused);
      expect(writes(s.emu)).toEqual([]);
      s.emu.clearFaults();

      // Managed (taken over with its role left out), the same member is not removed by a destroy either:
      // adopted, it is given back (docs/adoption.md); a, whom the stack invited, is removed.
      s.setProgram(
        program([
          { userId: U.owner, entitlements: ["VIEWER"] },
          { userId: U.a, entitlements: ["VIEWER"] },
        ]),
      );
      await serveList(s, unknownRole);
      await s.up();
      await serveList(s, unknownRole);
      s.emu.clearRequests();
      await s.destroy();
      expect(writeLines(s)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${U.a}`]);
      expect(members(s)).toEqual({ [U.owner]: "owner:VIEWER" });
    }, 300_000);

    it("removeUnmanaged removes only the unmanaged members a plan showed: a member added since is reported, and removed by the next up", async () => {
      const declared = [
        { userId: U.owner, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: U.a, entitlements: ["VIEWER"] },
      ];
      const s = await start({
        program: program(declared, true),
        emulator: world([
          { userId: U.owner, role: "owner", entitlements: ["VIEWER"] },
          { userId: U.stranger, entitlements: ["VIEWER"] },
        ]),
      });
      expect(ids((await s.up()).outputs["unmanaged"])).toEqual([U.stranger]);
      // Someone joins after that up, and no refresh runs: the plan shows the stranger's removal only.
      s.emu.integrations.setMember(INTEGRATION, U.c, { role: "collaborator", entitlements: ["EDITOR"] });
      s.setProgram(program([...declared, { userId: U.b, entitlements: ["VIEWER"] }], true));
      s.emu.clearRequests();
      const up = await s.up();
      expect(writeLines(s)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${U.stranger}`, `POST /integrations/${INTEGRATION}/users`]);
      expect(ids(up.outputs["unmanaged"])).toEqual([U.c]);
      expect(members(s)[U.c]).toBe("collaborator:EDITOR");
      // Now a plan shows them, and the next up removes them.
      expect(stepOf(await s.preview(), "team").op).toBe("update");
      s.emu.clearRequests();
      expect(ids((await s.up()).outputs["unmanaged"])).toEqual([]);
      expect(writeLines(s)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${U.c}`]);
    }, 300_000);

    it("an invitation whose job is still running after another wait is not sent again; its job is kept until the member is there", async () => {
      const declared = [
        { userId: U.owner, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: U.a, entitlements: ["VIEWER"] },
      ];
      const s = await start({
        program: program(declared),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
        config: { jobTimeoutSeconds: "0.25" },
      });
      const posts = () => writeLines(s).filter((line) => line.startsWith("POST"));
      s.emu.jobs.hangNext(1);
      expect((await s.fails("up")).message).toContain("did not finish within 0.25 s");
      const job = s.emu.jobs.list().find((j) => j.status === "running")!;
      const state = () => s.stack.state().resources.find((r) => r.name === "team")!.outputs;
      expect(ids(jobsOf(state()["pendingInvitations"]))).toEqual([job.id]);
      expect(posts()).toHaveLength(1);

      // The next up waits for the job once more; still running, the invitation is not sent again.
      const error = await s.fails("up");
      expect(error.message.toLowerCase()).toContain(`user ${U.a}: the invitation's job ${job.id} is still running`);
      expect(posts()).toHaveLength(1);
      expect(ids(jobsOf(state()["pendingInvitations"]))).toEqual([job.id]);
      expect(state()["members"]).toContainEqual({ userId: U.a, entitlements: [], role: "account_collaborator" });

      // The invitation lands: the next up finds the member, invites nobody, and forgets the job.
      s.emu.integrations.setMember(INTEGRATION, U.a, { role: "collaborator", entitlements: ["VIEWER"] });
      s.emu.clearRequests();
      await s.up();
      expect(writes(s.emu)).toEqual([]);
      expect(state()["pendingInvitations"]).toEqual([]);
      expect(changed(await s.preview())).toEqual([]);
    }, 300_000);

    it("destroy while an invitation's job is still running fails for that member and keeps the resource; once the job ends, destroy removes them", async () => {
      const s = await start({
        program: program([
          { userId: U.a, entitlements: ["VIEWER"] },
          { userId: U.b, entitlements: ["EDITOR"] },
        ]),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
        config: { jobTimeoutSeconds: "0.25" },
      });
      // Two sets, two invitations: the first one's job never ends within the waits.
      s.emu.jobs.hangNext(1);
      expect((await s.fails("up")).message).toContain("did not finish within 0.25 s");
      const job = s.emu.jobs.list().find((j) => j.status === "running")!;
      const [pending, landed, landedAs, pendingAs] = members(s)[U.a]
        ? [U.b, U.a, "collaborator:VIEWER", "collaborator:EDITOR"]
        : [U.a, U.b, "collaborator:EDITOR", "collaborator:VIEWER"];
      expect(members(s)).toEqual({ [U.owner]: "owner:VIEWER", [landed]: landedAs });

      s.emu.clearRequests();
      const error = await s.fails("destroy");
      expect(error.message).toContain(
        `1 of 2 members of integration ${INTEGRATION} could not be removed (the others were removed, 1, whom the state keeps until \`pulumi refresh\``,
      );
      expect(error.message.toLowerCase()).toContain(`user ${pending}: the invitation's job ${job.id} is still running after another wait`);
      // The member who landed was removed; the resource stays, with the job to wait for.
      expect(writeLines(s)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${landed}`]);
      const team = s.stack.state().resources.find((r) => r.name === "team");
      expect(ids(jobsOf(team?.outputs["pendingInvitations"]))).toEqual([job.id]);

      // The invitation lands late: the next destroy finds the member and removes them.
      s.emu.jobs.release(job.id);
      expect(members(s)[pending]).toBe(pendingAs);
      s.emu.clearRequests();
      await s.destroy();
      expect(writeLines(s)).toEqual([`DELETE /integrations/${INTEGRATION}/users/${pending}`]);
      expect(members(s)).toEqual({ [U.owner]: "owner:VIEWER" });
      expect(s.stack.state().resources.filter((r) => r.name === "team")).toEqual([]);
    }, 300_000);

    it("a managed member whose record the service sends malformed keeps its set: no diff after refresh, no PATCH on up", async () => {
      const declared = [
        { userId: U.owner, entitlements: ["VIEWER"], role: "account_owner" },
        { userId: U.a, entitlements: ["EDITOR", "VIEWER"] },
        { userId: U.b, entitlements: ["VIEWER"] },
      ];
      const s = await start({
        program: program(declared),
        emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]),
      });
      await s.up();
      // a's record has a number for its email: the record fails parsing, the others are read.
      const oddA = (record: { id: string; attributes: Record<string, unknown> }) => {
        if (record.id === U.a) record.attributes["email"] = 42;
      };
      await serveList(s, oddA);
      await s.refresh();
      const state = s.stack.state().resources.find((r) => r.name === "team")!;
      // Its set as recorded; its role unknown while its record cannot be read (it may have been made an owner).
      expect(state.outputs["members"]).toContainEqual({ userId: U.a, entitlements: ["EDITOR", "VIEWER"], role: null });
      expect(changed(await s.preview())).toEqual([]);

      // An update for another member: a is left as it is.
      s.setProgram(program([...declared.slice(0, 2), { userId: U.b, entitlements: ["EDITOR"] }]));
      await serveList(s, oddA);
      await s.up();
      expect(writeLines(s)).toEqual([`PATCH /integrations/${INTEGRATION}/users/${U.b}`]);
      expect(members(s)[U.a]).toBe("collaborator:EDITOR,VIEWER");
    }, 300_000);

    it("a member who is a User created by the same program: the preview passes with the id unknown, up creates then invites, and refresh changes nothing, nor does declaring the role it has", async () => {
      const source = (
        newcomerRole = "",
      ) => `${header}const newcomer = new wa.User("newcomer", { email: "newcomer@example.com", firstName: "New", lastName: "Comer" });
const team = new wa.IntegrationMembers("team", {
  integrationId: ${JSON.stringify(INTEGRATION)},
  members: [
    { userId: ${JSON.stringify(U.owner)}, entitlements: ["VIEWER"], role: "account_owner" },
    { userId: newcomer.id, entitlements: ["EDITOR"]${newcomerRole} },
  ],
});
export const newcomerId = newcomer.id;
`;
      const s = await start({ program: source(), emulator: world([{ userId: U.owner, role: "owner", entitlements: ["VIEWER"] }]) });
      const preview = await s.preview();
      expect(stepOf(preview, "team").op).toBe("create");
      expect(stepOf(preview, "newcomer").op).toBe("create");
      expect(writes(s.emu)).toEqual([]);

      const up = await s.up();
      const newcomer = (up.outputs["newcomerId"] as string).toLowerCase();
      expect(writeLines(s)).toEqual([`POST /integrations/${INTEGRATION}/users`, "POST /users"]);
      expect(members(s)).toEqual({ [U.owner]: "owner:VIEWER", [newcomer]: "collaborator:EDITOR" });
      expect(changed(await s.preview())).toEqual([]);
      // The newcomer's role is left out: refresh reports it in members, not as a declared input.
      s.emu.clearRequests();
      expect(changed(await s.refresh())).toEqual([]);
      expect(changed(await s.preview())).toEqual([]);
      expect(writes(s.emu)).toEqual([]);

      // Declaring the role the newcomer has: an update that writes nothing, then refresh changes nothing.
      s.setProgram(source(`, role: "account_collaborator"`));
      expect(stepOf(await s.preview(), "team").op).toBe("update");
      await s.up();
      expect(writes(s.emu)).toEqual([]);
      expect(changed(await s.refresh())).toEqual([]);
      expect(changed(await s.preview())).toEqual([]);
      expect(writes(s.emu)).toEqual([]);
    }, 300_000);

    it("a program with an IntegrationEntitlement for the same integration fails its preview, sending nothing", async () => {
      const source = `${program([{ userId: U.a, entitlements: ["VIEWER"] }])}new wa.IntegrationEntitlement("b", { integrationId: ${JSON.stringify(INTEGRATION)}, userId: ${JSON.stringify(U.b)}, entitlements: ["VIEWER"] });\n`;
      const s = await start({ program: source, emulator: world([]) });
      const error = await s.fails("preview");
      expect(error.message).toContain(
        `IntegrationMembers "team" manages every member of integration ${INTEGRATION}, and IntegrationEntitlement "b"`,
      );
      expect(s.emu.requests).toEqual([]);
      await s.fails("up");
      expect(writes(s.emu)).toEqual([]);
    }, 300_000);
  });
});
