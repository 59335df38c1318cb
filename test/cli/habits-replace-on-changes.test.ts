/**
 * The `replaceOnChanges` resource option, through the real `pulumi` CLI. The engine applies it to the properties a provider's
 * diff names as changed, and a dynamic provider's diff names none: the option alone was ignored, a change it names updating in
 * place (a `PUT`, a `PATCH`). The classes hand the paths to the provider (a hidden input), whose diff asks for the replacement
 * itself; a change the paths do not name still updates in place.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { cliAvailable, skipNote, writesOf } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, YOUTUBE: integrations.youtube })}
new wa.User("kim", {
  email: config.get("kimEmail") ?? "kim@example.com", firstName: config.get("kimFirst") ?? "Kim", lastName: "Lee",
}, { replaceOnChanges: ["email"] });
new wa.IntegrationEntitlement("alan-youtube", {
  integrationId: YOUTUBE, userId: ALAN, entitlements: [config.get("alanSet") ?? "VIEWER"],
}, { replaceOnChanges: ["entitlements"] });
new wa.WorkspaceUsers("team", { users: [
  { email: "lee@example.com", firstName: "Lee", lastName: config.get("leeLast") ?? "Park" },
  { email: "max@example.com", firstName: "Max", lastName: config.get("maxLast") ?? "Roe" },
] }, { replaceOnChanges: ['users["lee@example.com"].lastName'] });
`;

/** Each resource's step in `pulumi preview --json`, by name (`same` ones left out). */
function planned(json: string): Record<string, string> {
  const preview = JSON.parse(json) as { steps?: Array<{ op: string; urn: string }> };
  return Object.fromEntries(
    (preview.steps ?? [])
      .filter((s) => s.urn.includes("workspace-access:") && s.op !== "same")
      .map((s) => [s.urn.split("::").at(-1) ?? "", s.op]),
  );
}

describe.skipIf(!cliAvailable)(`replaceOnChanges, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;
  const idOf = (email: string) => h.emulator.users.findByEmail(email)?.id ?? "";

  beforeAll(async () => {
    h = await habitsStack("habits-roc", program);
    await h.stack.up();
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("a change of a property the option names replaces the resource: deleted first, then created", async () => {
    const kim = idOf("kim@example.com");
    await h.stack.setConfig("habits-roc:kimEmail", "kim.lee@example.com");
    await h.stack.setConfig("habits-roc:alanSet", "EDITOR");
    const preview = await h.step((s) => s.preview("--json"));
    expect(planned(preview.run.stdout)).toEqual({ kim: "replace", "alan-youtube": "replace" });
    expect(writesOf(preview.requests)).toEqual([]);
    const { requests } = await h.step((s) => s.up());
    const writes = writesOf(requests);
    expect(writes.filter((w) => w.includes("/users/") || w === "POST /users").filter((w) => !w.includes("integrations"))).toEqual([
      `DELETE /users/${kim}`,
      "POST /users",
    ]);
    expect(writes.filter((w) => w.includes("integrations"))).toEqual([
      `DELETE /integrations/${integrations.youtube}/users/${users.alan}`,
      `POST /integrations/${integrations.youtube}/users`,
    ]);
    expect(h.emulator.users.get(kim)).toBeUndefined();
    expect(idOf("kim.lee@example.com")).not.toBe("");
    await h.stack.preview("--expect-no-changes");
  });

  it("a change the option does not name updates in place, as without it", async () => {
    const kim = idOf("kim.lee@example.com");
    await h.stack.setConfig("habits-roc:kimFirst", "Kimberly");
    await h.stack.setConfig("habits-roc:maxLast", "Stone");
    const preview = await h.step((s) => s.preview("--json"));
    expect(planned(preview.run.stdout)).toEqual({ kim: "update", team: "update" });
    const { requests } = await h.step((s) => s.up());
    expect(writesOf(requests).sort()).toEqual([`PUT /users/${idOf("max@example.com")}`, `PUT /users/${kim}`].sort());
  });

  it("a path naming one user of a WorkspaceUsers replaces the set for that user's change alone", async () => {
    await h.stack.setConfig("habits-roc:leeLast", "Moss");
    const preview = await h.step((s) => s.preview("--json"));
    expect(planned(preview.run.stdout)).toEqual({ team: "replace" });
    // The set's replacement takes its users back (its delete leaves those it declares) and writes what differs.
    const { requests } = await h.step((s) => s.up());
    expect(writesOf(requests)).toEqual([`PUT /users/${idOf("lee@example.com")}`]);
    await h.stack.preview("--expect-no-changes");
  });
});
