/**
 * Lookups and the entitlement check through the real `pulumi` CLI (programs of the packed package),
 * against the emulator:
 * found (case-insensitive email, past the first page), not found, ambiguous and bad arguments (zero
 * requests) fail the program with the message; an output form waits for the resource its argument comes
 * from (unknown in the preview, found after the create); a misspelt entitlement fails the preview (of an
 * `IntegrationEntitlement` or an `IntegrationMembers`); a preview
 * with no entitlement change sends nothing; 50 changed entitlements in two integrations cost at most
 * two catalogue requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed, type Emulator, type EmulatorSeed } from "../../src/emulator/index";
import { UNKNOWN } from "../../src/shared/unknown";
import { packedProject } from "../support/packed.ts";
import type { Project } from "../support/project.ts";
import { type Deployment, type DeploymentError, openDeployment, stepsOf } from "./deployment.ts";
import { accessConfig, NO_FALLBACKS, requestLines, SETUP_TIMEOUT_MS, startTestEmulator, withRequests } from "./scenario.ts";
import { cliAvailable, skipNote } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;
const YOUTUBE_2 = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a03";
const EXTRA_USERS = 250;
const header = `import * as wa from "pulumi-workspace-access";\n`;

/** The default world, a second YouTube integration, and 250 more users (three pages of users). */
function world(): EmulatorSeed {
  const seed = defaultSeed();
  seed.integrations!.push({ id: YOUTUBE_2, application: "YouTube", label: "YouTube partners", entitlements: [{ id: "VIEWER" }] });
  for (let i = 0; i < EXTRA_USERS; i++)
    seed.users!.push({ email: `user${String(i).padStart(3, "0")}@Example.com`, firstName: "U", lastName: `${i}` });
  return seed;
}

describe.skipIf(!cliAvailable)(`lookups and the entitlement check, through the real pulumi CLI${skipNote}`, { timeout: 180_000 }, () => {
  let emulator: Emulator;
  const projects: Project[] = [];
  const stacks: Deployment[] = [];

  /** A project of `source` and a stack of it, pointed at the emulator by stack config only. */
  async function stackOf(name: string, source: string): Promise<Deployment> {
    const project = await packedProject({ name, files: { "index.ts": source } });
    projects.push(project);
    const stack = await openDeployment({ projectDir: project.dir, config: accessConfig(emulator), env: NO_FALLBACKS });
    stacks.push(stack);
    return stack;
  }

  /** The error of a failed preview. */
  const failedPreview = (stack: Deployment): Promise<DeploymentError> => stack.fails("preview");

  beforeAll(async () => {
    emulator = await startTestEmulator({ seed: world() });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const stack of stacks) await stack.close();
    for (const project of projects) await project.remove();
    await emulator?.close();
  });

  it("finds users and integrations by name, shares the listings, and entitles the users found", async () => {
    const stack = await stackOf(
      "found",
      `${header}
const late = wa.getUser({ email: "USER249@example.COM" });
const ada = wa.getUser({ email: "ada@example.com" });
const grace = wa.getUser({ id: ${JSON.stringify(users.grace)} });
const slack = wa.getIntegration({ application: "Slack" });
const partners = wa.getIntegration({ label: "YouTube partners" });
export const lateId = late.then((u) => u.id);
export const adaRole = ada.then((u) => u.role);
export const graceEmail = grace.then((u) => u.email);
export const slackId = slack.then((i) => i.id);
export const youtubeIds = wa.getIntegrations({ application: "YouTube" }).then((r) => r.ids);
export const catalogue = slack.then((i) => wa.getIntegrationEntitlements({ integrationId: i.id })).then((c) => c.ids);
export const slackMembers = wa.getIntegrationMembersOutput({ integrationId: slack.then((i) => i.id) }).members.apply((m) => m.map((x) => x.email));
export const guests = wa.getUsers({ isGuest: true }).then((r) => r.ids);
new wa.IntegrationEntitlement("late-partners", { integrationId: partners.then((i) => i.id), userId: late.then((u) => u.id), entitlements: ["VIEWER"] });
`,
    );
    const { result: preview, requests } = await withRequests(emulator, () => stack.preview());
    const late = emulator.users.findByEmail("user249@example.com")!;
    expect(preview.outputs).toEqual({
      lateId: late.id,
      adaRole: "workspace_owner",
      graceEmail: "grace@example.com",
      slackId: integrations.slack,
      youtubeIds: [integrations.youtube, YOUTUBE_2],
      catalogue: ["MEMBER", "ADMIN", "BILLING"],
      slackMembers: ["ada@example.com", "alan@example.com"],
      guests: [users.katherine],
    });
    expect(stepsOf(preview)).toEqual(["create late-partners"]);
    // One paged listing of the users (254: three pages) and one of the integrations served every
    // lookup, each with its proof (a second listing at page size 99) where a lookup answers from the
    // whole list (getUsers, getIntegrations, a label, the members); grace by id arrived with the
    // listing and was served from it. The host's check read the partners integration's catalogue.
    expect(requestLines(requests).sort()).toEqual(
      [
        ...Array<string>(6).fill("GET /users"),
        "GET /integrations",
        "GET /integrations",
        `GET /integrations/${integrations.slack}/entitlements`,
        `GET /integrations/${integrations.slack}/users`,
        `GET /integrations/${integrations.slack}/users`,
        `GET /integrations/${YOUTUBE_2}/entitlements`,
      ].sort(),
    );
  });

  it("waits for the resources its arguments come from: unknown in a preview with no request, found after the create in an up", async () => {
    const stack = await stackOf(
      "after-arguments",
      `${header}
const carol = new wa.User("carol", { email: "carol.after@example.com", firstName: "Carol", lastName: "After" });
export const carolId = carol.id;
export const foundId = wa.getUserOutput({ email: carol.email }).id;
export const listed = wa.getUsersOutput({ search: carol.email }).ids;
`,
    );
    const { result: preview, requests } = await withRequests(emulator, () => stack.preview());
    expect(stepsOf(preview)).toEqual(["create carol"]);
    // Before carol exists, a lookup of her email would find nothing: it waits, unknown, as carol's id is.
    expect(preview.outputs).toEqual({ carolId: UNKNOWN, foundId: UNKNOWN, listed: UNKNOWN });
    expect(requestLines(requests)).toEqual([]);
    const up = await stack.up();
    const carol = emulator.users.findByEmail("carol.after@example.com")!;
    expect(up.outputs).toMatchObject({ carolId: carol.id, foundId: carol.id, listed: [carol.id] });
    // Later tests assert that the file's requests hold no write: forget this test's create.
    emulator.clearRequests();
  });

  it("fails the program naming what was looked for and the workspace when nothing matches", async () => {
    const stack = await stackOf(
      "not-found",
      `${header}export const jira = wa.getIntegration({ application: "Jira" }).then((i) => i.id);\n`,
    );
    const error = await failedPreview(stack);
    expect(error.result.failed).toEqual([]);
    expect(error.message).toContain(`getIntegration: no integration with application "Jira"`);
    expect(error.message).toContain(`in the workspace at ${new URL(emulator.url).host}`);
  });

  it("fails the program listing each candidate's id and label when two integrations match", async () => {
    const stack = await stackOf(
      "ambiguous",
      `${header}export const youtube = wa.getIntegration({ application: "YouTube" }).then((i) => i.id);\n`,
    );
    const error = await failedPreview(stack);
    expect(error.message).toContain(`2 integrations in the workspace at ${new URL(emulator.url).host} have application "YouTube"`);
    expect(error.message).toContain(`${integrations.youtube} (label "YouTube acme"), ${YOUTUBE_2} (label "YouTube partners")`);
  });

  it("fails the program on bad arguments before any request", async () => {
    const stack = await stackOf(
      "bad-args",
      `${header}export const who = wa.getUser({ id: "x", email: "ada@example.com" }).then((u) => u.id);\n`,
    );
    const { result: error, requests } = await withRequests(emulator, () => failedPreview(stack));
    expect(error.message).toContain("getUser: give exactly one of id, email; got id and email.");
    expect(requests).toEqual([]);
  });

  it("fails a preview with a misspelt entitlement, naming it and the offered ones closest first", async () => {
    const stack = await stackOf(
      "misspelt",
      `${header}new wa.IntegrationEntitlement("grace-youtube", { integrationId: ${JSON.stringify(integrations.youtube)}, userId: ${JSON.stringify(users.alan)}, entitlements: ["VIEWER", "MANAGR"] });\n`,
    );
    const error = await failedPreview(stack);
    expect(error.result.failed).toEqual(["grace-youtube"]);
    // The CLI's form of a Check failure: "property <name> value <...> has a problem: <reason>".
    expect(error.message).toMatch(/property entitlements value .* has a problem: /);
    expect(error.message).toContain(
      `integration ${integrations.youtube} offers no entitlement "MANAGR"; it offers (closest first): MANAGER, VIEWER, EDITOR.`,
    );
    expect(emulator.requests.filter((r) => r.method !== "GET")).toEqual([]);
  });

  it("fails a preview of an IntegrationMembers with a misspelt entitlement, naming the member's place in the list", async () => {
    const stack = await stackOf(
      "misspelt-members",
      `${header}new wa.IntegrationMembers("youtube-members", { integrationId: ${JSON.stringify(integrations.youtube)}, members: [
  { userId: ${JSON.stringify(users.alan)}, entitlements: ["VIEWER"] },
  { userId: ${JSON.stringify(users.grace)}, entitlements: ["EDITR"] },
] });\n`,
    );
    const { result: error, requests } = await withRequests(emulator, () => failedPreview(stack));
    expect(error.result.failed).toEqual(["youtube-members"]);
    expect(error.message).toContain("members[1].entitlements");
    expect(error.message).toContain(
      `integration ${integrations.youtube} offers no entitlement "EDITR"; it offers (closest first): EDITOR,`,
    );
    // The catalogue, then grace's membership (does she hold EDITR already, retired since it was granted? no: the failure stands).
    expect(requestLines(requests)).toEqual([
      `GET /integrations/${integrations.youtube}/entitlements`,
      `GET /integrations/${integrations.youtube}/users/${users.grace}`,
    ]);
  });

  it("sends nothing in a preview without entitlement changes, and at most one catalogue request per integration for 50 changed ones", async () => {
    const members = emulator.users.list().filter((u) => u.email.startsWith("user1"));
    expect(members.length).toBeGreaterThanOrEqual(50);
    const program = (generation: number) =>
      `${header}${members
        .slice(0, 50)
        .map((u, i) => {
          const [integrationId, sets] =
            i % 2 ? [integrations.slack, [["MEMBER"], ["MEMBER", "ADMIN"]]] : [integrations.youtube, [["VIEWER"], ["EDITOR"]]];
          return `new wa.IntegrationEntitlement("e${i}", { integrationId: ${JSON.stringify(integrationId)}, userId: ${JSON.stringify(u.id)}, entitlements: ${JSON.stringify(sets![generation])} });`;
        })
        .join("\n")}\n`;
    const stack = await stackOf("fifty", program(0));
    await stack.up();

    const unchanged = await withRequests(emulator, () => stack.preview());
    expect(changes(unchanged.result)).toEqual([]);
    expect(requestLines(unchanged.requests)).toEqual([]);

    stack.setProgram("index.ts", program(1));
    const changed = await withRequests(emulator, () => stack.preview());
    expect(changes(changed.result)).toHaveLength(50);
    expect(requestLines(changed.requests).sort()).toEqual(
      [`GET /integrations/${integrations.slack}/entitlements`, `GET /integrations/${integrations.youtube}/entitlements`].sort(),
    );
  });
});

const changes = (result: Parameters<typeof stepsOf>[0]) => stepsOf(result).filter((step) => !step.startsWith("same "));
