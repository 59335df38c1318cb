/**
 * The review's three formats against golden files (`golden/review.*`), compared exactly: the
 * differences of one `access.yaml` and one workspace (every kind of difference, a record left out
 * on each side, a note), rendered as text, text with `--verbose`, markdown and json.
 *
 * After a deliberate change of the wording or a format, rewrite the golden files and review their
 * diff before committing:
 *
 *     UPDATE_GOLDEN=1 npx vitest run --project unit test/export/render.test.ts
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { AccessFile } from "../../src/export/access-file";
import type { LeftOut } from "../../src/export/build-left-out";
import { compareAccess, DIFFERENCE_KINDS } from "../../src/export/review/differences";
import { notesText, type RenderOptions, type Review, renderReview } from "../../src/export/review/render";

const GOLDEN = path.join(__dirname, "golden");
const UPDATE = process.env["UPDATE_GOLDEN"] === "1";

const GH = "5b1f0000-0000-4000-8000-000000000002";
const SLACK = "5b1f0000-0000-4000-8000-000000000003";
const ZOOM = "5b1f0000-0000-4000-8000-000000000004";

const recorded: AccessFile = {
  version: 1,
  workspace: "https://acme.example.com/api/v1/",
  scope: { membersOnly: false },
  users: [
    {
      name: "ann-at-acme.example",
      email: "ann@acme.example",
      firstName: "Ann",
      lastName: "Lee",
      role: "workspace_login_only",
      isGuest: false,
    },
    {
      name: "bob-at-acme.example",
      email: "bob@acme.example",
      firstName: "Bob",
      lastName: "Ray",
      role: "workspace_login_only",
      isGuest: false,
    },
    {
      name: "dee-at-acme.example",
      email: "dee@acme.example",
      firstName: "Dee",
      lastName: "Kim",
      role: "workspace_login_only",
      isGuest: false,
    },
    // Deleted and made again since the export: the same email, another id.
    {
      name: "cy-at-acme.example",
      email: "cy@acme.example",
      firstName: "Cy",
      lastName: "Ode",
      role: "workspace_login_only",
      isGuest: false,
      id: "7a5e0000-0000-4000-8000-000000000c01",
    },
    // Given another email since the export: the same id.
    {
      name: "fay-at-acme.example",
      email: "fay@acme.example",
      firstName: "Fay",
      lastName: "Moss",
      role: "workspace_login_only",
      isGuest: false,
      id: "7a5e0000-0000-4000-8000-000000000f01",
    },
  ],
  integrations: [
    {
      name: "github-acme-labs",
      id: GH,
      label: "GitHub acme-labs",
      members: [
        { user: "ann@acme.example", role: "account_collaborator", entitlements: ["READ"] },
        { user: "dee@acme.example", role: "account_collaborator", entitlements: ["READ", "WRITE"] },
      ],
    },
    {
      name: "slack-acme",
      id: SLACK,
      label: "Slack | acme",
      members: [{ user: "bob@acme.example", role: "account_collaborator", entitlements: ["MEMBER"] }],
    },
    // Deleted from the workspace since, with no member.
    { name: "zoom-acme", id: ZOOM, label: "Zoom acme", members: [] },
  ],
  leftOut: [{ kind: "user", id: "u-old", email: "old@acme.example", role: "workspace_login_only", reason: "no first name" }],
};

const live: AccessFile = {
  ...recorded,
  users: [
    { ...recorded.users[0]!, isGuest: true },
    { ...recorded.users[1]!, role: "workspace_super_admin" },
    { ...recorded.users[2]!, lastName: "Kim-Lee" },
    { ...recorded.users[3]!, id: "7a5e0000-0000-4000-8000-000000000c02" },
    { ...recorded.users[4]!, email: "fay.moss@acme.example" },
    {
      name: "eve-at-acme.example",
      email: "eve@acme.example",
      firstName: "Eve",
      lastName: "Moss",
      role: "workspace_login_only",
      isGuest: true,
    },
  ],
  integrations: [
    { ...recorded.integrations[0]!, members: [{ user: "dee@acme.example", role: "account_owner", entitlements: ["READ"] }] },
    {
      ...recorded.integrations[1]!,
      members: [{ user: "bob@acme.example", role: "account_collaborator", entitlements: ["ADMIN", "MEMBER"] }],
    },
  ],
  leftOut: [
    { kind: "user", id: "u-scim", email: "scim@acme.example", role: "workspace_owner", isGuest: false, reason: "no last name" },
    {
      kind: "membership",
      integration: SLACK,
      id: "u-scim",
      email: "scim@acme.example",
      role: "owner",
      entitlements: ["ADMIN"],
      reason: "its user is left out (no last name)",
    },
  ],
};

const leftOut: LeftOut[] = [
  {
    kind: "user",
    id: "u-scim",
    email: "scim@acme.example",
    role: "workspace_owner",
    isGuest: false,
    reason: "no last name",
    text: "user u-scim <scim@acme.example>: no last name",
  },
  {
    kind: "membership",
    id: "u-scim",
    email: "scim@acme.example",
    integration: SLACK,
    label: "Slack | acme",
    role: "owner",
    entitlements: ["ADMIN"],
    reason: "its user is left out (no last name)",
    text: 'membership of u-scim <scim@acme.example> in "Slack | acme": its user is left out (no last name)',
  },
];

const review: Review = {
  workspace: "https://acme.example.com/api/v1/",
  changes: compareAccess(recorded, live),
  leftOut,
  notes: ["access.yaml was exported from https://old.example.com/api/v1/; this check reads https://acme.example.com/api/v1/."],
  accepted: false,
};

/** Compares `actual` with the golden file `name`, or writes it with UPDATE_GOLDEN=1. */
function golden(name: string, actual: string): void {
  const file = path.join(GOLDEN, name);
  if (UPDATE) fs.writeFileSync(file, actual);
  expect(actual).toBe(fs.readFileSync(file, "utf8"));
}

describe("the review's formats", () => {
  it("finds a difference of every kind in the golden case", () => {
    expect(new Set(review.changes.map((d) => d.kind))).toEqual(new Set(DIFFERENCE_KINDS));
    expect(new Set(review.changes.map((d) => d.side))).toEqual(new Set(["access.yaml", "workspace", "both"]));
  });

  it.each<[string, Partial<RenderOptions>]>([
    ["review.txt", { format: "text" }],
    ["review.verbose.txt", { format: "text", verbose: true }],
    ["review.md", { format: "markdown" }],
    ["review.json", { format: "json" }],
  ])("%s", (name, options) => {
    golden(name, renderReview(review, { format: "text", verbose: false, out: ".", ...options }));
  });

  it("json: parses, every difference with every key, in a fixed order", () => {
    const parsed = JSON.parse(renderReview(review, { format: "json", verbose: false, out: "." })) as {
      differences: Array<Record<string, unknown>>;
      leftOut: { count: number };
    };
    for (const d of parsed.differences) {
      expect(Object.keys(d)).toEqual([
        "kind",
        "side",
        "user",
        "userId",
        "integration",
        "integrationId",
        "accessYaml",
        "workspace",
        "entitlements",
        "leftOut",
        "text",
      ]);
    }
    expect(parsed.leftOut.count).toBe(2);
  });

  it.each([
    ["text", "access.yaml and the workspace hold the same access.\n"],
    [
      "markdown",
      "### Access review: no difference between `access.yaml` and the workspace\n\nWorkspace: `https://acme.example.com/api/v1/`\n",
    ],
  ] as const)("%s with no difference", (format, expected) => {
    expect(renderReview({ ...review, changes: [], leftOut: [], notes: [] }, { format, verbose: false, out: "." })).toBe(expected);
  });

  it("says when access.yaml now holds the workspace's side", () => {
    const text = renderReview({ ...review, accepted: true, leftOut: [] }, { format: "text", verbose: false, out: "." });
    expect(text.split("\n").at(-2)).toBe(
      `${review.changes.length} differences between access.yaml and the workspace: access.yaml now holds the workspace's side.`,
    );
    expect(text).not.toContain("--accept");
  });
});

describe("the notes", () => {
  const listing = "The comments of access.yaml on what --accept took out went with it:\n  - the user bob\n  - the user cy";

  it("text, on stderr: every line of a note carries the prefix, as markdown quotes every line", () => {
    expect(notesText([listing, "one line."], "tool")).toBe(
      "tool: note: The comments of access.yaml on what --accept took out went with it:\n" +
        "tool: note:   - the user bob\n" +
        "tool: note:   - the user cy\n" +
        "tool: note: one line.\n",
    );
    const md = renderReview({ ...review, notes: [listing] }, { format: "markdown", verbose: false, out: "." });
    expect(
      md.endsWith("> Note: The comments of access.yaml on what --accept took out went with it:\n>   - the user bob\n>   - the user cy\n"),
    ).toBe(true);
  });

  it("text: a note of one line as before", () => {
    expect(notesText(review.notes, "tool")).toBe(`tool: note: ${review.notes[0]}\n`);
    expect(notesText([], "tool")).toBe("");
  });
});

describe("values read from the workspace, printed", () => {
  // A user the workspace names with a line break and a terminal escape in the last name, and markup in the first.
  const workspace: AccessFile = {
    ...recorded,
    users: [
      ...recorded.users,
      {
        name: "eve-at-acme.example",
        email: "eve@acme.example",
        firstName: "Eve <ext>",
        lastName: "Moss\n::error::no difference\u001b[2K",
        role: "workspace_login_only",
        isGuest: false,
      },
    ],
  };
  const odd: Review = { ...review, changes: compareAccess(recorded, workspace), leftOut: [], notes: [] };

  it("text: each difference on one line, its control characters escaped", () => {
    const text = renderReview(odd, { format: "text", verbose: false, out: "." });
    expect(text.split("\n")[0]).toBe(
      "the workspace has user eve@acme.example (Eve <ext> Moss\\u000a::error::no difference\\u001b[2K, workspace_login_only); access.yaml does not",
    );
    expect(text.includes("\u001b")).toBe(false);
    expect(text).not.toMatch(/^::/m);
  });

  it("markdown: a cell shows the value as it is, never as markup", () => {
    const row = renderReview(odd, { format: "markdown", verbose: false, out: "." })
      .split("\n")
      .find((line) => line.startsWith("| eve@acme.example"));
    expect(row).toBe(
      "| eve@acme.example | workspace | user | — | Eve &lt;ext&gt; Moss ::error::no difference\\u001b[2K, workspace_login_only |",
    );
  });

  it("markdown: a note of several lines (a list) stays inside its quote", () => {
    const note = "The comments of access.yaml on what --accept took out went with it:\n  - user a@x.example\n  - user b@x.example";
    const text = renderReview({ ...odd, notes: [note] }, { format: "markdown", verbose: false, out: "." });
    expect(text).toContain(
      "> Note: The comments of access.yaml on what --accept took out went with it:\n>   - user a@x.example\n>   - user b@x.example\n",
    );
  });
});
