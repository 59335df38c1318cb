/**
 * The command line of `workspace-access-fleet`: every flag the issue names, its default, and each
 * mistake as a usage error (exit 2) that names the flag and what it takes.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_PARALLEL, parseFleetArgs } from "../../src/fleet/args";
import { UsageError as FleetUsageError } from "../../src/command-line";

describe("parseFleetArgs", () => {
  it("takes the defaults: every stack, 4 at once, text, the current folder", () => {
    expect(parseFleetArgs(["preview"], "/proj")).toEqual({
      command: "preview",
      stacks: undefined,
      parallel: DEFAULT_PARALLEL,
      refresh: false,
      continueOnError: false,
      expectNoChanges: false,
      format: "text",
      cwd: "/proj",
    });
    expect(DEFAULT_PARALLEL).toBe(4);
  });

  it("reads every flag", () => {
    const args = ["up", "--stacks", "b,a", "--stacks=c", "--parallel", "2", "--refresh", "--continue-on-error", "--expect-no-changes"];
    expect(parseFleetArgs([...args, "--format", "json", "--cwd", "infra"], "/proj")).toEqual({
      command: "up",
      stacks: ["b", "a", "c"],
      parallel: 2,
      refresh: true,
      continueOnError: true,
      expectNoChanges: true,
      format: "json",
      cwd: "infra",
    });
  });

  it("takes drift, the read-only drift check, and the fully-qualified name of a stack", () => {
    expect(parseFleetArgs(["drift", "--stacks", "organization/proj/acme,globex"], "/proj")).toMatchObject({
      command: "drift",
      stacks: ["organization/proj/acme", "globex"],
    });
  });

  it("answers help", () => {
    expect(parseFleetArgs(["--help"])).toBe("help");
    expect(parseFleetArgs(["up", "-h"])).toBe("help");
  });

  it.each([
    [[], /a command is required: preview, up, refresh, drift/],
    [["destroy"], /the command must be preview, up, refresh, drift, not "destroy"/],
    [["up", "acme"], /unexpected argument "acme"/],
    [["up", "--parallel", "0"], /--parallel takes a whole number .* not "0"/],
    [["up", "--parallel", "two"], /--parallel takes a whole number .* not "two"/],
    [["up", "--parallel", "1.5"], /--parallel takes a whole number/],
    [["up", "--stacks", "a,,b"], /--stacks takes stack names separated by commas/],
    [["up", "--stacks", "a,b,a"], /--stacks names a twice/],
    [["up", "--format", "yaml"], /--format must be text, markdown, json, not "yaml"/],
    [["refresh", "--refresh"], /--refresh applies to preview and up .* not to refresh/],
    [["drift", "--refresh"], /--refresh applies to preview and up .*drift always refreshes.* not to drift/],
    // Each of them runs every stack whatever fails: the flag would change nothing.
    [
      ["preview", "--continue-on-error"],
      /^--continue-on-error applies to up only \(preview, refresh and drift run every stack .*\), not to preview: leave it out$/,
    ],
    [["refresh", "--continue-on-error"], /^--continue-on-error applies to up only .* not to refresh/],
    [["drift", "--continue-on-error"], /^--continue-on-error applies to up only .* not to drift/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseFleetArgs(argv)).toThrow(FleetUsageError);
    expect(() => parseFleetArgs(argv)).toThrow(message);
  });

  it("leaves an unknown flag to node:util's error, which names it (the command prints it with the usage, exit 2)", () => {
    expect(() => parseFleetArgs(["up", "--canary"])).toThrow(/--canary/);
  });
});
