/**
 * docs/fleet.md's workflow as GitHub reads it: its concurrency group, worked out for each event the workflow runs on. A
 * rollout and a drift check share one group (one at a time); each pull request has its own, whichever branch it comes
 * from: a pull request in a group with the rollout would wait for it and, queued, replace a rollout waiting its turn.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { repoRoot } from "../support/paths.ts";

const page = fs.readFileSync(path.join(repoRoot, "docs", "fleet.md"), "utf8");
const workflow = parseYaml(/```yaml\n(name: fleet\n[\s\S]*?)```/.exec(page)?.[1] ?? "") as { concurrency: { group: string } };

/**
 * The group for `context`, its `${{ ... }}` worked out as GitHub does for the one form the page may use: operands joined
 * by `||`, each a property path of the context or a quoted string, the first one set giving the value.
 */
function groupOf(context: Record<string, unknown>): string {
  return workflow.concurrency.group.replace(/\$\{\{(.*?)\}\}/g, (_, expression: string) => {
    for (const operand of expression.split("||").map((o) => o.trim())) {
      const literal = /^'([^']*)'$/.exec(operand);
      if (literal) return literal[1] ?? "";
      if (!/^[\w.]+$/.test(operand)) throw new Error(`the group's expression is more than this test reads: ${operand}`);
      const value = operand.split(".").reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], context);
      if (value !== undefined && value !== null && value !== "") return String(value);
    }
    return "";
  });
}

const push = { github: { event_name: "push", ref_name: "main", head_ref: "", event: {} } };
const schedule = { github: { event_name: "schedule", ref_name: "main", head_ref: "", event: {} } };
/** A pull request from a fork's `main` (the branch a fork's first pull request most often comes from). */
const fromFork = (number: number) => ({
  github: { event_name: "pull_request", ref_name: `${number}/merge`, head_ref: "main", event: { pull_request: { number } } },
});

describe("docs/fleet.md's workflow: its concurrency group", () => {
  it("is one for the rollout and the drift check, and one per pull request, whichever branch it comes from", () => {
    expect(groupOf(push)).toBe(groupOf(schedule));
    expect(groupOf(fromFork(7))).not.toBe(groupOf(push));
    expect(groupOf(fromFork(7))).not.toBe(groupOf(fromFork(8)));
  });
});
