/**
 * A usage mistake that quotes an argument (an unexpected positional, a `--format` or `--shape` refused) must not print the
 * API key when the argument is the key: typed after the command by mistake, or a CI step's `$WORKSPACE_ACCESS_API_KEY`
 * expanded where a flag's value belongs. The built commands, run as a CI step runs them, with the key in the environment.
 */
import { execFile } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { NO_FALLBACKS } from "../cli/scenario.ts";
import { repoRoot } from "../support/paths.ts";

const KEY = "wa_usage_Qz7xK3vN9pL2mR8tY4wB";

function run(command: "export" | "fleet", args: string[]): Promise<{ code: number; stderr: string }> {
  const cli = path.join(repoRoot, "dist", command, "cli.js");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args],
      { env: { ...process.env, ...NO_FALLBACKS, WORKSPACE_ACCESS_API_KEY: KEY }, encoding: "utf8" },
      (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stderr }),
    );
  });
}

/** Runs of 8 characters of the key in `text`. */
const runsOf = (text: string) => {
  const found: string[] = [];
  for (let i = 0; i + 8 <= KEY.length; i++) if (text.includes(KEY.slice(i, i + 8))) found.push(KEY.slice(i, i + 8));
  return found;
};

describe("a usage mistake quoting the key prints none of it", () => {
  it.each([
    ["export", ["--check", "--out", ".", KEY], "unexpected argument"],
    ["export", ["--check", "--out", ".", "--format", KEY], "--format must be"],
    ["export", ["--out", "x", `--shape=${KEY.slice(0, 20)}`], "--shape must be"],
    ["fleet", [KEY], "the command must be"],
    ["fleet", ["preview", KEY], "unexpected argument"],
  ] as const)("workspace-access-%s %j", async (command, args, said) => {
    const result = await run(command, [...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(said);
    expect(result.stderr).toContain("[redacted]");
    expect(runsOf(result.stderr)).toEqual([]);
  });
});
