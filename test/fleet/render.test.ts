/**
 * The report's three formats, compared exactly: the JSON document (what the text says, and nothing
 * else in it), the markdown table for a pull-request comment with each stack's changed resources,
 * and the text table; and the exit status each report gives.
 */
import { describe, expect, it } from "vitest";
import { MARKDOWN_LIMIT, renderFleetReport, selectionWarningOnStderr, stackDoneLine } from "../../src/fleet/render";
import { type ChangeCounts, exitStatus, type FleetReport, noChanges } from "../../src/fleet/types";

/** The engine's URN of a resource of the package's, but for its type's last part and its name. */
const URN = "urn:pulumi:acme::access::pulumi-nodejs:dynamic/workspace-access:";

const report: FleetReport = {
  command: "up",
  expectNoChanges: false,
  interrupted: false,
  stacks: [
    {
      stack: "acme",
      result: "succeeded",
      changes: { create: 2, update: 1, delete: 0, replace: 0, same: 1 },
      resources: [
        { op: "create", type: "User", name: "alice@acme.example", urn: `${URN}User::alice@acme.example` },
        {
          op: "create",
          type: "IntegrationEntitlement",
          name: "alice@acme.example/Slack",
          urn: `${URN}IntegrationEntitlement::alice@acme.example/Slack`,
        },
        { op: "update", type: "User", name: "bob|acme", urn: `${URN}User::bob|acme` },
      ],
    },
    {
      stack: "globex",
      result: "failed",
      changes: noChanges(),
      resources: [],
      error: "GET /integrations answered 401. The API key was not accepted.",
    },
    { stack: "initech", result: "skipped", changes: noChanges(), resources: [], skippedBecause: "the canary globex failed" },
  ],
};

describe("renderFleetReport", () => {
  it("json: the command, whether interrupted, and per stack its result, the engine's counts, its changed resources, a failed one's error, why one was skipped", () => {
    expect(JSON.parse(renderFleetReport(report, "json"))).toEqual({
      command: "up",
      expectNoChanges: false,
      interrupted: false,
      stacks: [
        {
          stack: "acme",
          result: "succeeded",
          changes: { create: 2, update: 1, delete: 0, replace: 0, same: 1 },
          // Each one, as the engine named it (no markdown escaping): a tool can target it by its URN.
          resources: [
            { op: "create", type: "User", name: "alice@acme.example", urn: `${URN}User::alice@acme.example` },
            {
              op: "create",
              type: "IntegrationEntitlement",
              name: "alice@acme.example/Slack",
              urn: `${URN}IntegrationEntitlement::alice@acme.example/Slack`,
            },
            { op: "update", type: "User", name: "bob|acme", urn: `${URN}User::bob|acme` },
          ],
        },
        {
          stack: "globex",
          result: "failed",
          changes: { create: 0, update: 0, delete: 0, replace: 0, same: 0 },
          error: "GET /integrations answered 401. The API key was not accepted.",
        },
        {
          stack: "initech",
          result: "skipped",
          changes: { create: 0, update: 0, delete: 0, replace: 0, same: 0 },
          skippedBecause: "the canary globex failed",
        },
      ],
    });
  });

  it("json: an interrupted run says so, and why each stack was skipped, as the text report does", () => {
    const interrupted: FleetReport = {
      command: "drift",
      expectNoChanges: true,
      interrupted: true,
      stacks: [
        { stack: "acme", result: "succeeded", changes: noChanges(), resources: [] },
        { stack: "globex", result: "skipped", changes: noChanges(), resources: [], skippedBecause: "interrupted before it started" },
      ],
    };
    const json = JSON.parse(renderFleetReport(interrupted, "json"));
    expect(json).toMatchObject({ command: "drift", expectNoChanges: true, interrupted: true });
    expect(json.stacks[1]).toEqual({
      stack: "globex",
      result: "skipped",
      changes: noChanges(),
      skippedBecause: "interrupted before it started",
    });
    expect(renderFleetReport(interrupted, "text")).toContain("    skipped: interrupted before it started\n");
    expect(renderFleetReport(interrupted, "text")).toMatch(/; interrupted\n$/);
  });

  it("markdown: one row per stack with its changed resources, pipes escaped", () => {
    expect(renderFleetReport(report, "markdown")).toBe(
      [
        "### workspace-access-fleet up: 3 stacks, 1 succeeded, 1 failed, 1 skipped",
        "",
        "| stack | result | create | update | delete | replace | same | changed resources |",
        "|---|---|--:|--:|--:|--:|--:|---|",
        "| acme | ✅ succeeded | 2 | 1 | 0 | 0 | 1 | `+ User alice@acme.example`<br>`+ IntegrationEntitlement alice@acme.example/Slack`<br>`~ User bob\\|acme` |",
        "| globex | ❌ failed | 0 | 0 | 0 | 0 | 0 | `error: GET /integrations answered 401. The API key was not accepted.` |",
        "| initech | ⏭️ skipped | 0 | 0 | 0 | 0 | 0 | `skipped: the canary globex failed` |",
        "",
      ].join("\n"),
    );
  });

  it("text: the table with each stack's details under it, and the summary", () => {
    expect(renderFleetReport(report, "text")).toBe(
      [
        "STACK    RESULT     CREATE  UPDATE  DELETE  REPLACE  SAME",
        "acme     succeeded       2       1       0        0     1",
        "    + User alice@acme.example",
        "    + IntegrationEntitlement alice@acme.example/Slack",
        "    ~ User bob|acme",
        "globex   failed          0       0       0        0     0",
        "    error: GET /integrations answered 401. The API key was not accepted.",
        "initech  skipped         0       0       0        0     0",
        "    skipped: the canary globex failed",
        "",
        "workspace-access-fleet up: 3 stacks, 1 succeeded, 1 failed, 1 skipped",
        "",
      ].join("\n"),
    );
  });

  it("counts the stacks with changes when they were not expected", () => {
    const drift: FleetReport = {
      command: "refresh",
      expectNoChanges: true,
      interrupted: false,
      stacks: [
        {
          stack: "acme",
          result: "succeeded",
          changes: { ...noChanges(), update: 1, same: 3 },
          resources: [{ op: "update", type: "User", name: "a" }],
        },
        { stack: "initech", result: "succeeded", changes: { ...noChanges(), same: 2 }, resources: [] },
      ],
    };
    expect(renderFleetReport(drift, "text")).toContain(
      "workspace-access-fleet refresh: 2 stacks, 2 succeeded, 0 failed, 0 skipped, 1 with changes (--expect-no-changes)",
    );
  });

  it("lists under a failed stack's error what it changed before it stopped, in every format", () => {
    const failed: FleetReport = {
      command: "up",
      expectNoChanges: false,
      interrupted: false,
      stacks: [
        {
          stack: "acme",
          result: "failed",
          changes: { ...noChanges(), create: 2 },
          resources: [{ op: "create", type: "User", name: "bob@acme.example" }],
          error: "User alice@acme.example: POST /api/v1/users answered 400: Bad.",
        },
      ],
    };
    expect(renderFleetReport(failed, "text")).toContain(
      "    error: User alice@acme.example: POST /api/v1/users answered 400: Bad.\n    changed before it failed:\n    + User bob@acme.example\n",
    );
    expect(renderFleetReport(failed, "markdown")).toContain(
      "`error: User alice@acme.example: POST /api/v1/users answered 400: Bad.`<br>`changed before it failed:`<br>`+ User bob@acme.example` |",
    );
    expect(JSON.parse(renderFleetReport(failed, "json")).stacks[0]).toEqual({
      stack: "acme",
      result: "failed",
      changes: { ...noChanges(), create: 2 },
      error: "User alice@acme.example: POST /api/v1/users answered 400: Bad.",
      resources: [{ op: "create", type: "User", name: "bob@acme.example" }],
    });
  });

  it("counts the drifted stacks of a drift check, a failed one as failed only", () => {
    const stacks: FleetReport["stacks"] = [
      {
        stack: "acme",
        result: "succeeded",
        changes: { ...noChanges(), update: 1 },
        resources: [{ op: "update", type: "User", name: "a" }],
      },
      { stack: "initech", result: "succeeded", changes: { ...noChanges(), same: 2 }, resources: [] },
      { stack: "globex", result: "failed", changes: { ...noChanges(), create: 1 }, resources: [], error: "401" },
    ];
    const markdown = renderFleetReport({ command: "drift", expectNoChanges: true, interrupted: false, stacks }, "markdown");
    expect(markdown).toContain("### workspace-access-fleet drift: 3 stacks, 2 succeeded, 1 failed, 0 skipped, 1 drifted\n");
    expect(markdown).toContain("| acme | ✅ succeeded | 0 | 1 | 0 | 0 | 0 | `~ User a` |");
  });
});

describe("renderFleetReport: warnings", () => {
  const warned: FleetReport = {
    command: "preview",
    expectNoChanges: false,
    interrupted: false,
    stacks: [
      {
        stack: "acme",
        result: "succeeded",
        changes: { ...noChanges(), create: 1 },
        resources: [{ op: "create", type: "User", name: "a" }],
        warnings: ["workspace-access:apiKey is stored in plaintext | in the stack config"],
      },
      { stack: "globex", result: "failed", changes: noChanges(), resources: [], error: "401", warnings: ["not checked"] },
      { stack: "initech", result: "succeeded", changes: noChanges(), resources: [], warnings: [] },
    ],
  };

  it("gives each stack's warnings in every format, and counts the stacks that warned; a warning fails no stack", () => {
    expect(JSON.parse(renderFleetReport(warned, "json")).stacks).toEqual([
      {
        stack: "acme",
        result: "succeeded",
        changes: { ...noChanges(), create: 1 },
        resources: [{ op: "create", type: "User", name: "a" }],
        warnings: ["workspace-access:apiKey is stored in plaintext | in the stack config"],
      },
      { stack: "globex", result: "failed", changes: noChanges(), error: "401", warnings: ["not checked"] },
      { stack: "initech", result: "succeeded", changes: noChanges() },
    ]);
    expect(renderFleetReport(warned, "text")).toBe(
      [
        "STACK    RESULT     CREATE  UPDATE  DELETE  REPLACE  SAME",
        "acme     succeeded       1       0       0        0     0",
        "    + User a",
        "    warning: workspace-access:apiKey is stored in plaintext | in the stack config",
        "globex   failed          0       0       0        0     0",
        "    error: 401",
        "    warning: not checked",
        "initech  succeeded       0       0       0        0     0",
        "",
        "workspace-access-fleet preview: 3 stacks, 2 succeeded, 1 failed, 0 skipped, 2 with warnings",
        "",
      ].join("\n"),
    );
    const markdown = renderFleetReport(warned, "markdown");
    expect(markdown).toContain("### workspace-access-fleet preview: 3 stacks, 2 succeeded, 1 failed, 0 skipped, 2 with warnings\n");
    expect(markdown).toContain(
      "| acme | ✅ succeeded | 1 | 0 | 0 | 0 | 0 | `+ User a`<br>`warning: workspace-access:apiKey is stored in plaintext \\| in the stack config` |",
    );
    expect(markdown).toContain("| globex | ❌ failed | 0 | 0 | 0 | 0 | 0 | `error: 401`<br>`warning: not checked` |");
    expect(exitStatus(warned)).toBe(1);
    expect(exitStatus({ ...warned, stacks: [warned.stacks[0]!] })).toBe(0);
  });
});

describe("counts unknown (no summary from the engine): never shown as none", () => {
  const drift: FleetReport = {
    command: "drift",
    expectNoChanges: true,
    interrupted: false,
    stacks: [
      { stack: "acme", result: "succeeded", changes: null, resources: [{ op: "update", type: "User", name: "bob@acme.example" }] },
      { stack: "globex", result: "succeeded", changes: { ...noChanges(), same: 2 }, resources: [] },
      { stack: "initech", result: "failed", changes: null, resources: [], error: "pulumi exited with code 137 and no error message" },
    ],
  };

  it("text: ? for each count, a line saying why, and the summary counts the stack as neither drifted nor clean", () => {
    expect(renderFleetReport(drift, "text")).toBe(
      [
        "STACK    RESULT     CREATE  UPDATE  DELETE  REPLACE  SAME",
        "acme     succeeded       ?       ?       ?        ?     ?",
        "    changes unknown: no summary from the engine (pulumi ended mid-stream, or its event log was cut)",
        "    ~ User bob@acme.example",
        "globex   succeeded       0       0       0        0     2",
        "initech  failed          ?       ?       ?        ?     ?",
        "    error: pulumi exited with code 137 and no error message",
        "",
        "workspace-access-fleet drift: 3 stacks, 2 succeeded, 1 failed, 0 skipped, 0 drifted, 1 with drift unknown (no summary from the engine)",
        "",
      ].join("\n"),
    );
    expect(renderFleetReport({ ...drift, command: "preview", expectNoChanges: false }, "text")).toContain(
      "2 succeeded, 1 failed, 0 skipped, 1 with changes unknown (no summary from the engine)\n",
    );
  });

  it("json: changes null; markdown: ? in each count; the progress line: unknown; the exit status: not clean", () => {
    expect(JSON.parse(renderFleetReport(drift, "json")).stacks.map((s: { changes: unknown }) => s.changes)).toEqual([
      null,
      { ...noChanges(), same: 2 },
      null,
    ]);
    expect(renderFleetReport(drift, "markdown")).toContain(
      "| acme | ✅ succeeded | ? | ? | ? | ? | ? | `changes unknown: no summary from the engine (pulumi ended mid-stream, or its event log was cut)`<br>`~ User bob@acme.example` |",
    );
    expect(stackDoneLine(drift.stacks[0]!)).toBe("acme: succeeded, changes unknown (no summary from the engine)");
    expect(exitStatus({ ...drift, stacks: drift.stacks.slice(0, 2) })).toBe(1);
    expect(exitStatus({ ...drift, stacks: drift.stacks.slice(1, 2) })).toBe(0);
  });
});

describe("exitStatus", () => {
  const ok = (changes: ChangeCounts | null = noChanges()) => ({ stack: "a", result: "succeeded" as const, changes, resources: [] });
  it.each([
    ["every stack succeeded", 0, { stacks: [ok(), ok({ ...noChanges(), create: 1 })] }],
    ["a stack failed", 1, { stacks: [ok(), { ...ok(), result: "failed" as const, error: "x" }] }],
    ["a stack was skipped", 1, { stacks: [ok(), { ...ok(), result: "skipped" as const }] }],
    ["a change with --expect-no-changes", 1, { expectNoChanges: true, stacks: [ok(), ok({ ...noChanges(), update: 1 })] }],
    ["only unchanged resources with --expect-no-changes", 0, { expectNoChanges: true, stacks: [ok({ ...noChanges(), same: 4 })] }],
    ["counts unknown with --expect-no-changes (always with drift)", 1, { expectNoChanges: true, stacks: [ok(), ok(null)] }],
    ["counts unknown, no change expected either way", 0, { stacks: [ok(null)] }],
    ["an interrupted run", 1, { interrupted: true, stacks: [ok()] }],
  ])("%s: exits %i", (_, code, partial) => {
    expect(exitStatus({ command: "preview", expectNoChanges: false, interrupted: false, ...partial })).toBe(code);
  });
});

describe("stackDoneLine (the progress line on stderr)", () => {
  const [acme, globex, initech] = report.stacks as [FleetReport["stacks"][0], FleetReport["stacks"][0], FleetReport["stacks"][0]];
  it("says how a stack ended and its changes", () => {
    expect(stackDoneLine(acme)).toBe("acme: succeeded: 2 create, 1 update");
    expect(stackDoneLine({ ...acme, changes: noChanges() })).toBe("acme: succeeded, no changes");
    expect(stackDoneLine(globex)).toBe("globex: failed: GET /integrations answered 401. The API key was not accepted.");
    expect(stackDoneLine(initech)).toBe("initech: skipped (the canary globex failed)");
  });

  it("counts a stack's warnings, so they are seen while the others run", () => {
    const warnings = ["the API key is stored in plain text", "entitlements not checked"];
    expect(stackDoneLine({ ...acme, warnings })).toBe("acme: succeeded: 2 create, 1 update; 2 warnings (listed in the report)");
    expect(stackDoneLine({ ...acme, changes: noChanges(), warnings: warnings.slice(1) })).toBe(
      "acme: succeeded, no changes; 1 warning (listed in the report)",
    );
    expect(stackDoneLine({ ...globex, warnings })).toBe(
      "globex: failed; 2 warnings (listed in the report): GET /integrations answered 401. The API key was not accepted.",
    );
  });
});

describe("markdown within a pull-request comment's limit (GitHub refuses one over 65,536 characters)", () => {
  /** A stack whose first preview creates `n` users. */
  const creating = (stack: string, n: number) => ({
    stack,
    result: "succeeded" as const,
    changes: { ...noChanges(), create: n },
    resources: Array.from({ length: n }, (_, i) => ({ op: "create", type: "User", name: `someone-${i}@${stack}.example` })),
  });
  const preview = (stacks: FleetReport["stacks"]): FleetReport => ({
    command: "preview",
    expectNoChanges: false,
    interrupted: false,
    stacks,
  });

  it("a row lists 50 changed resources, then how many more", () => {
    const markdown = renderFleetReport(preview([creating("acme", 51)]), "markdown");
    expect(markdown).toContain("`+ User someone-49@acme.example`<br>`and 1 more changed resource (--format text lists every one)` |");
    expect(markdown).not.toContain("someone-50@");
    // The text format lists every one, and so does the JSON document, for tools.
    expect(renderFleetReport(preview([creating("acme", 51)]), "text")).toContain("    + User someone-50@acme.example\n");
    expect(JSON.parse(renderFleetReport(preview([creating("acme", 51)]), "json")).stacks[0].resources).toHaveLength(51);
  });

  it("a first preview of many large workspaces: counts only; and with hundreds of stacks, the rows that fit and how many more", () => {
    const many = preview(Array.from({ length: 40 }, (_, i) => creating(`workspace-${i}`, 2000)));
    const counts = renderFleetReport(many, "markdown");
    expect(counts.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(counts).toContain(
      "| workspace-39 | ✅ succeeded | 2000 | 0 | 0 | 0 | 0 | `and 2000 more changed resources (--format text lists every one)` |",
    );

    const failing = Array.from({ length: 400 }, (_, i) => ({
      stack: `w${i}`,
      result: "failed" as const,
      changes: noChanges(),
      resources: [],
      error: `pulumi failed: ${"x".repeat(400)}`,
    }));
    const cut = renderFleetReport(preview(failing), "markdown");
    expect(cut.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(cut).toMatch(/\n_and \d+ more stacks, left out to fit a comment: --format text lists every one\._\n$/);
    expect(cut).toContain("| w0 | ❌ failed |");
    expect(cut.startsWith("### workspace-access-fleet preview: 400 stacks, 0 succeeded, 400 failed, 0 skipped\n")).toBe(true);
  });
});

describe("selectionWarningOnStderr: the selection not put back, said once", () => {
  const left = { ...report, selectionNotRestored: "could not select acme again after the run (denied): globex stays selected" };

  it.each(["text", "markdown", "json"] as const)(
    "stdout a terminal: the %s report there says it, stderr (the same terminal) adds nothing",
    (format) => {
      expect(renderFleetReport(left, format)).toContain(left.selectionNotRestored);
      expect(selectionWarningOnStderr(left, "workspace-access-fleet", true)).toBe("");
    },
  );

  it("stdout redirected (> comment.md): stderr says it, for the one who reads the terminal or the log", () => {
    expect(selectionWarningOnStderr(left, "workspace-access-fleet", false)).toBe(
      "workspace-access-fleet: could not select acme again after the run (denied): globex stays selected\n",
    );
  });

  it("says nothing when the selection was put back", () => {
    expect(selectionWarningOnStderr(report, "workspace-access-fleet", false)).toBe("");
  });
});
