/**
 * What `pulumi preview --diff` and `pulumi preview --json` show for the package's resources,
 * through the real `pulumi` CLI, against golden files (test/cli/golden/habits-*): an attribute
 * change (a User's name), a set change (an IntegrationEntitlement's entitlements), a member added
 * and one removed (an IntegrationMembers), and a replacement (an IntegrationEntitlement's role).
 * A dynamic provider's diff cannot name properties (its DiffResult has no `diffs` or
 * `detailedDiff`), so the CLI shows the inputs' diff; the JSON's `replaceReasons` come from ours.
 * `UPDATE_GOLDEN=1` rewrites the files.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS } from "../../src/emulator/index";
import { repoRoot } from "../support/paths.ts";
import { SETUP_TIMEOUT_MS } from "./scenario.ts";
import { type HabitsStack, habitsStack, programHeader } from "./habits-support.ts";
import { writesOf } from "./support.ts";
import { cliAvailable, skipNote } from "./support.ts";

const { users, integrations } = DEFAULT_IDS;

const program = `${programHeader({ ALAN: users.alan, GRACE: users.grace, KATHERINE: users.katherine, YOUTUBE: integrations.youtube, SLACK: integrations.slack })}
const edited = flag("edited");
new wa.User("attribute-change", { email: "alice@example.com", firstName: "Alice", lastName: edited ? "Smith" : "Doe" });
new wa.IntegrationEntitlement("set-change", { integrationId: YOUTUBE, userId: ALAN, entitlements: edited ? ["EDITOR", "VIEWER"] : ["VIEWER"] });
new wa.IntegrationEntitlement("replacement", {
  integrationId: YOUTUBE,
  userId: KATHERINE,
  entitlements: ["VIEWER"],
  role: edited ? "account_owner" : "account_collaborator",
});
new wa.IntegrationMembers("members-change", {
  integrationId: SLACK,
  members: edited ? [{ userId: GRACE, entitlements: ["MEMBER"] }] : [{ userId: ALAN, entitlements: ["MEMBER"] }],
});
`;

const GOLDEN = path.join(repoRoot, "test", "cli", "golden");

function expectGolden(name: string, text: string): void {
  const file = path.join(GOLDEN, name);
  if (process.env["UPDATE_GOLDEN"] === "1") fs.writeFileSync(file, text);
  expect(text).toBe(fs.readFileSync(file, "utf8"));
}

/** The block of `pulumi preview --diff` of the resource named `name`: from its header line to the next resource's. */
function blockOf(output: string, name: string): string {
  const lines = output.split("\n").map((line) => line.trimEnd());
  const header = /^\s+[~+-]+\s*pulumi-nodejs:dynamic/;
  // The header line, then `[id=...]` (not for a create) and `[urn=...]`, which names the resource.
  const start = lines.findIndex((line, i) => header.test(line) && lines.slice(i + 1, i + 3).some((l) => l.includes(`::${name}]`)));
  if (start < 0) throw new Error(`no block for ${name} in:\n${output}`);
  const rest = lines.slice(start + 1).findIndex((line) => header.test(line) || /^Resources:|^\s*$/.test(line));
  const block = lines.slice(start, rest < 0 ? undefined : start + 1 + rest);
  return `${block.filter((line) => !/^\s+\[(id|urn)=/.test(line)).join("\n")}\n`;
}

/** Each step of `pulumi preview --json` for the program's resources: what the engine plans and why, ids made alike. */
function jsonSteps(json: string): unknown {
  const preview = JSON.parse(json) as {
    steps?: Array<{
      op: string;
      urn: string;
      replaceReasons?: string[];
      diffReasons?: string[];
      detailedDiff?: unknown;
      oldState?: { inputs?: Record<string, unknown> };
      newState?: { inputs?: Record<string, unknown> };
    }>;
  };
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
  const names = new Map<string, string>(Object.entries({ ...users, ...integrations }).map(([k, v]) => [v, `<${k}>`]));
  return (preview.steps ?? [])
    .filter((s) => s.urn.includes("workspace-access:"))
    .map((s) => {
      const olds = s.oldState?.inputs ?? {};
      const news = s.newState?.inputs ?? {};
      const changed = [...new Set([...Object.keys(olds), ...Object.keys(news)])]
        .filter((key) => key !== "__provider" && JSON.stringify(olds[key]) !== JSON.stringify(news[key]))
        .sort();
      const step = {
        name: s.urn.split("::").at(-1),
        op: s.op,
        replaceReasons: s.replaceReasons ?? [],
        // What the provider's diff named: a dynamic provider's answer cannot carry names.
        diffReasons: s.diffReasons ?? [],
        changedInputs: changed,
      };
      return JSON.parse(JSON.stringify(step).replace(uuid, (id) => names.get(id.toLowerCase()) ?? "<id>"));
    })
    .sort((a, b) => `${a.name} ${a.op}`.localeCompare(`${b.name} ${b.op}`));
}

describe.skipIf(!cliAvailable)(`pulumi preview --diff and --json, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let h: HabitsStack;

  beforeAll(async () => {
    h = await habitsStack("habits-diff", program);
    await h.stack.up();
    await h.stack.setConfig("habits-diff:edited", "true");
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await h?.dispose();
  });

  it("preview --diff names each changed property (golden files), and writes nothing", async () => {
    const { run, requests } = await h.step((s) => s.preview("--diff"));
    expect(writesOf(requests)).toEqual([]);
    for (const name of ["attribute-change", "set-change", "members-change", "replacement"]) {
      expectGolden(`habits-preview-diff-${name}.txt`, blockOf(run.stdout, name));
    }
  });

  it("preview --json: each step, its replace reasons and the inputs it changes (golden file)", async () => {
    const { run, requests } = await h.step((s) => s.preview("--json"));
    expect(writesOf(requests)).toEqual([]);
    expectGolden("habits-preview.json", `${JSON.stringify(jsonSteps(run.stdout), null, 2)}\n`);
  });
});
