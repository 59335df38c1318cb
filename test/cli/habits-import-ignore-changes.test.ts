/**
 * `ignoreChanges` on a `User`, an `IntegrationEntitlement` and an `IntegrationMembers` that adopt a record, through the real
 * `pulumi` CLI. Pulumi's own import leaves a property the
 * program ignores as the record has it (the habit: import with `ignoreChanges` on what differs), so the adoption (by the `import`
 * option, or `adoptExisting`) writes nothing for an ignored attribute: a workspace super admin imported by a program declaring
 * another role is not demoted. The state records the declared value left unsent (`unapplied`), which causes no diff.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ GRACE: users.grace, ALAN: users.alan, YOUTUBE: integrations.youtube, SLACK: integrations.slack })}
new wa.User("grace", {
  email: "grace@example.com", firstName: "Gracie", lastName: config.get("graceLast") ?? "Hopper", role: "workspace_login_only",
}, { import: GRACE, ignoreChanges: ["firstName", "role"] });
new wa.User("katherine", {
  email: "katherine@partner.example", firstName: "Kathy", lastName: "J.", adoptExisting: true,
}, { ignoreChanges: ['["lastName"]'] });
new wa.IntegrationEntitlement("grace-youtube", {
  integrationId: YOUTUBE, userId: GRACE, entitlements: ["VIEWER"], role: "account_owner",
}, { import: \`\${YOUTUBE}/\${GRACE}\`, ignoreChanges: ["entitlements", "role"] });
new wa.IntegrationMembers("slack", {
  integrationId: SLACK, members: [{ userId: ALAN, entitlements: ["ADMIN"], role: "account_owner" }],
}, { import: SLACK, ignoreChanges: ["members"] });
`;

describe.skipIf(!cliAvailable)(`ignoreChanges on adopting resources, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;
  const user = (id: string) => h.emulator.users.get(id);

  beforeAll(async () => {
    h = await habitsStack("habits-import-ignore", program);
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("the adoption leaves what ignoreChanges names as the record has it, writing only the rest; nothing to change after", async () => {
    const { requests } = await h.step((s) => s.up());
    // grace: only ignored attributes differ, so nothing is sent; katherine: her first name is written, her last name kept. The
    // memberships: only what ignoreChanges names differs (a set, a role), so nothing is sent for them either.
    expect(writesOf(requests)).toEqual([`PUT /users/${users.katherine}`]);
    const member = (integrationId: string, userId: string) =>
      h.emulator.integrations.members(integrationId).find((m) => m.userId === userId);
    expect(member(integrations.youtube, users.grace)).toMatchObject({ role: "collaborator", entitlements: ["EDITOR"] });
    expect(member(integrations.slack, users.alan)).toMatchObject({ role: "collaborator", entitlements: ["MEMBER"] });
    expect(user(users.grace)).toMatchObject({ firstName: "Grace", lastName: "Hopper", role: "workspace_super_admin" });
    expect(user(users.katherine)).toMatchObject({ firstName: "Kathy", lastName: "Johnson", role: "workspace_guest_user" });
    const preview = await h.step((s) => s.preview("--expect-no-changes"));
    expect(writesOf(preview.requests)).toEqual([]);
  });

  it("an update of another attribute keeps the ignored ones; after a refresh (which reads them), nothing to change", async () => {
    await h.stack.setConfig("habits-import-ignore:graceLast", "Hopper-Murray");
    const { requests } = await h.step((s) => s.up());
    expect(writesOf(requests)).toEqual([`PUT /users/${users.grace}`]);
    expect(user(users.grace)).toMatchObject({ firstName: "Grace", lastName: "Hopper-Murray", role: "workspace_super_admin" });
    // The refresh reads the service's values of the ignored attributes into the state's inputs, as for any ignored edit.
    const refresh = await h.step((s) => s.refresh());
    expect(refresh.run.output).toMatch(/User grace updated .*\[diff: ~firstName,role\]/);
    expect(writesOf(refresh.requests)).toEqual([]);
    await h.stack.refresh("--expect-no-changes");
    expect(writesOf((await h.step((s) => s.up("--expect-no-changes"))).requests)).toEqual([]);
    expect(user(users.grace)).toMatchObject({ firstName: "Grace", role: "workspace_super_admin" });
  });
});
