/**
 * Two integrations under one label (the service does not make labels unique: two GitHub organisations both labelled
 * "GitHub acme"): the access review names each by its label and id, so a line about one cannot be read as about the other,
 * in the text, the markdown table and the records left out; the JSON keeps the label in `integration`, the id beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index";
import { runExport } from "../../src/export/run";
import { runCheck } from "../../src/export/run-check";
import { renderReview } from "../../src/export/review/render";
import { env, gets, options } from "./support";

const A = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
const B = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a02";
const SLACK = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a03";

describe("--check with two integrations under one label", () => {
  let emulator: Emulator;
  let dir: string;
  beforeAll(async () => {
    emulator = await startEmulator({
      seed: {
        users: [
          { id: "u-ann", email: "ann@x.example", firstName: "Ann", lastName: "Lee" },
          { id: "u-bob", email: "bob@x.example", firstName: "Bob", lastName: "Ray" },
        ],
        integrations: [
          {
            id: A,
            application: "GitHub",
            label: "GitHub acme",
            entitlements: [{ id: "READ" }, { id: "WRITE" }],
            users: [{ userId: "u-ann", entitlements: ["READ"] }],
          },
          {
            id: B,
            application: "GitHub",
            label: "GitHub acme",
            entitlements: [{ id: "READ" }, { id: "WRITE" }],
            users: [{ userId: "u-bob", entitlements: ["READ"] }],
          },
          { id: SLACK, application: "Slack", label: "Slack acme", entitlements: [{ id: "MEMBER" }], users: [] },
        ],
      },
    });
    dir = (await runExport(options(emulator))).dir;
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it("names each by label and id, in the text, the markdown and the records left out; a label no other holds, as before", async () => {
    emulator.integrations.setMember(A, "u-ann", { entitlements: ["READ", "WRITE"] });
    emulator.integrations.setMember(B, "u-ann", { entitlements: ["WRITE"] });
    emulator.integrations.setMember(SLACK, "u-ann", { entitlements: ["MEMBER"] });
    emulator.users.update("u-bob", { lastName: null });
    emulator.clearRequests();
    const review = await runCheck({ out: dir, baseUrl: emulator.url, env: env(emulator) });
    expect(gets(emulator).every((l) => l.startsWith("GET "))).toBe(true);
    expect(review.changes.map((c) => c.text)).toEqual([
      `the workspace grants ann@x.example WRITE in "GitHub acme" (${A}); access.yaml does not`,
      `the workspace grants ann@x.example WRITE in "GitHub acme" (${B}) as account_collaborator; access.yaml does not`,
      'the workspace grants ann@x.example MEMBER in "Slack acme" as account_collaborator; access.yaml does not',
      "access.yaml declares user u-bob <bob@x.example> (Bob Ray, workspace_login_only); the workspace has it in a form a project cannot declare: no last name",
      `access.yaml declares the membership of u-bob <bob@x.example> in "GitHub acme" (${B}) (READ as account_collaborator); the workspace has it in a form a project cannot declare: its user is left out (no last name)`,
    ]);
    const markdown = renderReview(review, { format: "markdown", verbose: false, out: "." }).split("\n");
    expect(markdown.filter((l) => l.startsWith("| ann@x.example"))).toEqual([
      `| ann@x.example | GitHub acme (${A}) | entitlements | — | WRITE |`,
      `| ann@x.example | GitHub acme (${B}) | membership | — | WRITE as account_collaborator |`,
      "| ann@x.example | Slack acme | membership | — | MEMBER as account_collaborator |",
    ]);
    const json = JSON.parse(renderReview(review, { format: "json", verbose: false, out: "." })) as {
      differences: Array<{ integration: string | null; integrationId: string | null }>;
    };
    expect(json.differences.slice(0, 3).map((d) => [d.integration, d.integrationId])).toEqual([
      [`GitHub acme (${A})`, A],
      [`GitHub acme (${B})`, B],
      ["Slack acme", SLACK],
    ]);
  });

  it("names the integration's id in the export's list of records left out, where its label is shared", async () => {
    const exported = await runExport(options(emulator));
    expect(exported.leftOut.map((l) => l.text)).toEqual([
      "user u-bob <bob@x.example>: no last name",
      `membership of u-bob <bob@x.example> in "GitHub acme" (${B}): its user is left out (no last name)`,
    ]);
  });
});
