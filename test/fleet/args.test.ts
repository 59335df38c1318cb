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

  it.each([
    // pulumi's own flags, which a pulumi user types first.
    [["up", "--stack", "acme"], /^unknown flag --stack: did you mean --stacks\? \(the fleet takes a list: --stacks a,b,c\)$/],
    [["up", "-s", "acme"], /^unknown flag -s: did you mean --stacks\?/],
    [["up", "--yes"], /^unknown flag --yes: the fleet's up and refresh never ask for a confirmation: leave it out$/],
    [["refresh", "-y"], /^unknown flag -y: the fleet's up and refresh never ask/],
    [["preview", "--json"], /^unknown flag --json: did you mean --format json\?$/],
    [["preview", "-C", "infra"], /^unknown flag -C: did you mean --cwd\?$/],
    // A misspelt flag of the fleet's own.
    [["up", "--paralel", "2"], /^unknown flag --paralel: did you mean --parallel\?$/],
    [["up", "--continue-on-errors"], /^unknown flag --continue-on-errors: did you mean --continue-on-error\?$/],
    [["up", "--expect-no-change=true"], /^unknown flag --expect-no-change: did you mean --expect-no-changes\?$/],
    // Nothing near: the flags listed.
    [
      ["up", "--canary"],
      /^unknown flag --canary: the flags are --stacks, --parallel, --refresh, --continue-on-error, --expect-no-changes, --format, --cwd, --help$/,
    ],
  ])("refuses the unknown flag of %j, naming the flag it likely meant", (argv, message) => {
    expect(() => parseFleetArgs(argv)).toThrow(FleetUsageError);
    expect(() => parseFleetArgs(argv)).toThrow(message);
  });
});
