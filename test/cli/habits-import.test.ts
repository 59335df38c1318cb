/**
 * Pulumi's `import` resource option on the package's three resources, through the real `pulumi`
 * CLI. The engine's own import cannot reach a dynamic provider (pulumi/pulumi#3550): the classes
 * take the option and their create adopts the record with that id, writing only what differs.
 * Removing `import` afterwards plans nothing; destroy gives back what was adopted unless the
 * program opts in (`deleteOnDestroy`); an id that names another record, or none, fails clearly. An id in another case,
 * or with whitespace around it (pasted, or read from a file), names the same record. The classes' static `get` reads a
 * record by the same ids without managing it: a `read` step, an external resource that refresh reads again and destroy leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { UNKNOWN } from "../../src/shared/unknown";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, dynamicResources, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;
const MISSING = "0b0b0b0b-0000-4000-8000-000000000000";

const program = `${programHeader({ ADA: users.ada, GRACE: users.grace, ALAN: users.alan, KATHERINE: users.katherine, YOUTUBE: integrations.youtube, SLACK: integrations.slack, MISSING })}
const mode = config.get("mode") ?? "import";
// As ids get pasted, or read from a file: in upper case, with whitespace around them.
const imported = (id: string): pulumi.CustomResourceOptions => (mode === "import" ? { import: " " + id.toUpperCase() + "\\n" } : {});
let got: Record<string, pulumi.Output<unknown>> = {};
if (mode === "wrong") {
  new wa.User("wrong-email", { email: "grace@example.com", firstName: "Grace", lastName: "Hopper" }, { import: ADA });
  new wa.User("missing", { email: "nobody@example.com", firstName: "No", lastName: "Body" }, { import: MISSING });
  new wa.IntegrationEntitlement("wrong-member", { integrationId: YOUTUBE, userId: GRACE, entitlements: ["EDITOR"] }, { import: YOUTUBE + "/" + ADA });
  new wa.IntegrationEntitlement("not-member", { integrationId: YOUTUBE, userId: KATHERINE, entitlements: ["VIEWER"] }, { import: YOUTUBE + "/" + KATHERINE });
  new wa.IntegrationMembers("wrong-integration", { integrationId: SLACK, members: [{ userId: ALAN, entitlements: ["MEMBER"] }] }, { import: YOUTUBE });
} else if (mode === "get") {
  const grace = wa.User.get("grace-read", " " + GRACE.toUpperCase() + "\\n");
  const membership = wa.IntegrationEntitlement.get("ada-youtube-read", YOUTUBE + "/" + ADA);
  const slack = wa.IntegrationMembers.get("slack-read", SLACK);
  if (flag("missing")) wa.User.get("nobody", MISSING);
  got = { firstName: grace.firstName, email: grace.email, entitlements: membership.entitlements, slack: slack.members };
} else if (mode === "managed" || mode === "switched") {
  // One resource the stack creates, then read by get under the same name and the id as the program wrote it.
  if (mode === "managed") {
    const managed = new wa.IntegrationEntitlement("katherine-youtube", { integrationId: YOUTUBE.toUpperCase(), userId: KATHERINE, entitlements: ["VIEWER"] });
    // Beside it, gets of the record it creates, by its id: read in the same up after the create; the user's id is built on
    // the get's own id (in a preview, unknown: nothing read).
    const again = wa.IntegrationEntitlement.get("katherine-youtube-again", managed.id);
    const user = wa.User.get("katherine-again", again.id.apply((id) => id.split("/")[1]));
    got = { againEntitlements: again.entitlements, againAdopted: again.adopted, againEmail: user.email };
  } else wa.IntegrationEntitlement.get("katherine-youtube", YOUTUBE.toUpperCase() + "/" + KATHERINE);
} else {
  const grace = new wa.User("grace", { email: "grace@example.com", firstName: config.get("graceFirst") ?? "Grace", lastName: "Hopper" }, imported(GRACE));
  new wa.IntegrationEntitlement(
    "grace-youtube",
    { integrationId: YOUTUBE, userId: grace.id, entitlements: ["EDITOR"], deleteOnDestroy: flag("optIn") || undefined },
    imported(YOUTUBE + "/" + GRACE),
  );
  new wa.IntegrationMembers("slack", { integrationId: SLACK, members: [{ userId: ALAN, entitlements: ["MEMBER", "BILLING"] }] }, imported(SLACK));
}
export const read = got;
`;

describe.skipIf(!cliAvailable)(`the import resource option, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;

  beforeAll(async () => {
    h = await habitsStack("habits-import", program, { "habits-import:graceFirst": "Grace M." });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("preview shows three creates and writes nothing; up adopts each record, writing only what differs", async () => {
    const preview = await h.step((s) => s.preview("--diff"));
    // The stack and the three resources; the hidden input is not shown (the CLI hides "__" names).
    expect(preview.run.output).toMatch(/\+ 4 to create/);
    expect(preview.run.output).toContain("+ pulumi-nodejs:dynamic/workspace-access:User: (create)");
    expect(writesOf(preview.requests)).toEqual([]);

    const up = await h.step((s) => s.up());
    // The first name differs (one PUT); the membership holds EDITOR already (nothing); alan's Slack
    // set lacks BILLING (one PATCH). Nothing is created: no POST.
    expect(writesOf(up.requests).sort()).toEqual([
      `PATCH /integrations/${integrations.slack}/users/${users.alan}`,
      `PUT /users/${users.grace}`,
    ]);
    expect(h.emulator.users.get(users.grace)?.firstName).toBe("Grace M.");
    const state = dynamicResources(await h.stack.exportState());
    const outputs = (name: string) => state.find((r) => r.urn.endsWith(`::${name}`))?.outputs ?? {};
    expect(state.find((r) => r.urn.endsWith("::grace"))?.id).toBe(users.grace);
    expect(outputs("grace")).toMatchObject({ adopted: true, email: "grace@example.com" });
    expect(outputs("grace-youtube")).toMatchObject({ adopted: true, entitlements: ["EDITOR"] });
    expect(outputs("slack")).toMatchObject({ adoptedMembers: [users.alan] });
  });

  it("removing import from the program afterwards plans nothing", async () => {
    await h.stack.setConfig("habits-import:mode", "plain");
    const preview = await h.step((s) => s.preview("--expect-no-changes"));
    expect(preview.run.code).toBe(0);
    expect(writesOf(preview.requests)).toEqual([]);
  });

  it("destroy gives back what was adopted, with a warning naming it, unless the program opted in", async () => {
    // The opt-in on the membership: the state learns it, nothing is sent.
    await h.stack.setConfig("habits-import:optIn", "true");
    const optIn = await h.step((s) => s.up());
    expect(writesOf(optIn.requests)).toEqual([]);

    const destroy = await h.step((s) => s.destroy());
    // Only the opted-in membership is removed; grace and alan's Slack membership stay as they are.
    expect(writesOf(destroy.requests)).toEqual([`DELETE /integrations/${integrations.youtube}/users/${users.grace}`]);
    expect(h.emulator.users.get(users.grace)?.firstName).toBe("Grace M.");
    expect(h.emulator.integrations.members(integrations.slack).map((m) => m.userId)).toContain(users.alan);
    expect(destroy.run.output).toContain(`User ${users.grace} (grace@example.com) is left in the workspace as it is: the stack adopted it`);
    expect(destroy.run.output).toContain(`Integration ${integrations.slack}: 1 adopted member(s) left as they are`);
    expect(destroy.run.output).toContain(users.alan);
  });

  it("an id that names another record, or none, fails naming both, and nothing is written", async () => {
    await h.stack.setConfig("habits-import:mode", "wrong");
    // Every create is tried: the engine would otherwise start no more after the first failure.
    const up = await h.step((s) => s.run(["up", "--yes", "--skip-preview", "--continue-on-error"], { allowFailure: true }));
    expect(up.run.code).not.toBe(0);
    expect(writesOf(up.requests)).toEqual([]);
    const out = up.run.output;
    expect(out).toContain(`import: user ${users.ada} has the email ada@example.com, but the resource declares grace@example.com`);
    expect(out).toContain(`import: no user has the id ${MISSING}`);
    expect(out).toContain(
      `is the membership of user ${users.ada} in integration ${integrations.youtube}, but the resource declares user ${users.grace}`,
    );
    expect(out).toContain(`import: user ${users.katherine} is not a member of integration ${integrations.youtube}`);
    expect(out).toContain(`import: "${integrations.youtube}" is not the integration this resource declares (${integrations.slack})`);
    expect(out.includes(h.emulator.apiKey)).toBe(false);
  });

  it("get reads a record by its id without managing it: a read in preview, refreshed by refresh, left by destroy", async () => {
    await h.stack.setConfig("habits-import:mode", "get");
    const preview = await h.step((s) => s.preview("--json"));
    const steps = (JSON.parse(preview.run.stdout) as { steps: Array<{ op: string; urn: string }> }).steps;
    expect(
      steps
        .filter((step) => step.op === "read")
        .map((step) => step.urn.split("::").pop())
        .sort(),
    ).toEqual(["ada-youtube-read", "grace-read", "slack-read"]);
    expect(new Set(preview.requests.map((r) => r.method))).toEqual(new Set(["GET"]));

    const up = await h.step((s) => s.up());
    expect(new Set(up.requests.map((r) => r.method))).toEqual(new Set(["GET"]));
    const state = dynamicResources(await h.stack.exportState());
    expect(state.map((r) => [r.urn.split("::").pop(), r.id, (r as { external?: boolean }).external]).sort()).toEqual([
      ["ada-youtube-read", `${integrations.youtube}/${users.ada}`, true],
      ["grace-read", users.grace.toUpperCase(), true],
      ["slack-read", integrations.slack, true],
    ]);
    const slackMembers = h.emulator.integrations
      .members(integrations.slack)
      .map((m) => ({ userId: m.userId, entitlements: m.entitlements }));
    expect((await h.stack.outputs())["read"]).toMatchObject({
      firstName: h.emulator.users.get(users.grace)?.firstName,
      email: "grace@example.com",
      entitlements: ["MANAGER"],
      slack: slackMembers.map((m) => expect.objectContaining({ ...m, entitlements: [...m.entitlements].sort() })),
    });

    // Changed by hand: a refresh reads each record again, writing nothing; a member added since is no unmanaged one.
    h.emulator.users.update(users.grace, { firstName: "Amazing Grace" });
    h.emulator.integrations.setMember(integrations.slack, users.grace, { role: "collaborator", entitlements: ["MEMBER"] });
    const refresh = await h.step((s) => s.refresh());
    expect(writesOf(refresh.requests)).toEqual([]);
    expect(refresh.requests.map((r) => `${r.method} ${r.path}`)).toContain(`GET /users/${users.grace}`);
    const refreshed = dynamicResources(await h.stack.exportState());
    expect(refreshed.find((r) => r.urn.endsWith("::grace-read"))?.outputs).toMatchObject({ firstName: "Amazing Grace" });
    const slack = refreshed.find((r) => r.urn.endsWith("::slack-read"))?.outputs;
    expect(slack).toMatchObject({
      members: expect.arrayContaining([expect.objectContaining({ userId: users.grace })]),
      unmanagedMembers: [],
    });

    // The records stay: nothing is sent for a resource read by get.
    const destroy = await h.step((s) => s.destroy());
    expect(writesOf(destroy.requests)).toEqual([]);
    expect(dynamicResources(await h.stack.exportState())).toEqual([]);
    expect(h.emulator.users.get(users.grace)?.firstName).toBe("Amazing Grace");
    expect(h.emulator.integrations.members(integrations.youtube).map((m) => m.userId)).toContain(users.ada);

    // An id no user has fails the preview, naming the type and the id; nothing is written.
    await h.stack.setConfig("habits-import:missing", "true");
    const missing = await h.step((s) => s.run(["preview"], { allowFailure: true }));
    expect(missing.run.code).not.toBe(0);
    expect(missing.run.output).toContain(`User.get: no user has the id ${MISSING} in this workspace`);
    expect(writesOf(missing.requests)).toEqual([]);
    expect(missing.run.output.includes(h.emulator.apiKey)).toBe(false);

    // A resource the stack created, switched to a get of its own id under the same name (in another case): the engine
    // releases it, a read and no delete, when the get's id is the one its state records (ids are in one form, lower case,
    // in both), so nothing is removed. Another id would make the engine delete the managed record (docs/pulumi-habits.md).
    await h.stack.setConfig("habits-import:missing", "false");
    await h.stack.setConfig("habits-import:mode", "managed");
    // With its preview (an up's first phase), where the membership's id is unknown: the gets built on it read nothing.
    const managed = await h.step((s) => s.run(["up", "--yes"]));
    expect(h.emulator.integrations.members(integrations.youtube).map((m) => m.userId)).toContain(users.katherine);
    const membershipId = `${integrations.youtube}/${users.katherine}`;
    // The gets beside it read the membership its create made, and the user by an id built on theirs; the one write is the create's.
    expect(writesOf(managed.requests)).toEqual([`POST /integrations/${integrations.youtube}/users`]);
    expect(managed.requests.filter((r) => r.path.includes(UNKNOWN))).toEqual([]);
    expect(
      dynamicResources(await h.stack.exportState())
        .map((r) => [r.urn.split("::").pop(), r.id, (r as { external?: boolean }).external ?? false])
        .sort(),
    ).toEqual([
      ["katherine-again", users.katherine, true],
      ["katherine-youtube", membershipId, false],
      ["katherine-youtube-again", membershipId, true],
    ]);
    expect((await h.stack.outputs())["read"]).toMatchObject({
      againEntitlements: ["VIEWER"],
      againAdopted: false,
      againEmail: h.emulator.users.get(users.katherine)?.email,
    });
    await h.stack.setConfig("habits-import:mode", "switched");
    const switched = await h.step((s) => s.up());
    expect(writesOf(switched.requests)).toEqual([]);
    expect(h.emulator.integrations.members(integrations.youtube).map((m) => m.userId)).toContain(users.katherine);
    const released = dynamicResources(await h.stack.exportState());
    expect(released.map((r) => [r.id, (r as { external?: boolean }).external])).toEqual([[membershipId, true]]);
  });
});
