/**
 * docs/export.md as the code has it: the command's synopsis is the one its `--help` prints, and every kind of
 * difference the page names is one the review reports. The page is how people read the review's output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { DIFFERENCE_KINDS } from "../../src/export/review/differences";
import { repoRoot } from "../support/paths.ts";

const page = fs.readFileSync(path.join(repoRoot, "docs", "export.md"), "utf8");
const cli = fs.readFileSync(path.join(repoRoot, "src", "export", "cli.ts"), "utf8");

describe("docs/export.md", () => {
  it("gives the synopsis --help prints, every option in it", () => {
    const usage = /const USAGE = `Usage: ([^\n]*)\n\s*([^\n]*)\n/.exec(cli);
    const synopsis = (line: string | undefined) => (line ?? "").replaceAll(`$\{NAME}`, "workspace-access-export").trim();
    const documented = page.split("\n").filter((line) => line.startsWith("workspace-access-export --"));
    expect([synopsis(usage?.[1]), synopsis(usage?.[2])]).toEqual(documented);
    expect(documented[0]).toContain("[--package-spec SPEC] [--verbose]");
  });

  it("names only kinds of difference the review reports", () => {
    const named = [...page.matchAll(/reports[^.]*?\(`([a-z-]+)`\)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const kind of named) expect(DIFFERENCE_KINDS).toContain(kind);
    // The table of kinds: its first column, each row's kinds.
    const table = page.slice(page.indexOf("| `kind` | what differs |")).split("\n\n")[0]!.split("\n").slice(2);
    const kinds = table.flatMap((row) => [...(row.split(" | ")[0] ?? "").matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));
    expect(kinds).toEqual([...DIFFERENCE_KINDS]);
  });
});
