/**
 * The lookups' and getJob's own messages quote what the service said: a record's label or id, the labels a workspace has. A
 * gateway may make them of the key, in part (test/host/key-in-service-texts.test.ts holds the provider to it): no error or
 * warning a lookup or getJob gives the program holds a run of 8 of the key's characters. Over real HTTP to the emulator.
 */
import { inspect } from "node:util";
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";
import { getIntegration, getJob, getUser, LookupError } from "../../src";
import type { Emulator } from "../../src/emulator";
import { emulator, rejection } from "../support/fixtures";
import { RUNS_KEY, runsOf } from "../support/key-runs";

const KEY = RUNS_KEY;

/** What a program's output may show of an error: its message, stack, fields and cause. */
const textsOf = (error: Error) =>
  [error.message, error.stack, inspect(error, { depth: 8, showHidden: true }), inspect(error.cause, { depth: 8 })].join("\n");

/** The warnings and information the program logs while the test runs. */
function logged(): string[] {
  const lines: string[] = [];
  for (const level of ["warn", "info", "error", "debug"] as const) {
    vi.spyOn(pulumi.log, level).mockImplementation(async (message: string) => void lines.push(message));
  }
  return lines;
}
afterEach(() => void vi.restoreAllMocks());

/** A program pointed at `emu` by stack config, as `pulumi up` would run it. */
async function program(emu: Emulator): Promise<void> {
  pulumi.runtime.setAllConfig({ "workspace-access:baseUrl": emu.url, "workspace-access:apiKey": KEY }, ["workspace-access:apiKey"]);
  await pulumi.runtime.setMocks({ newResource: (a) => ({ id: `${a.name}-id`, state: a.inputs }), call: (a) => a.inputs }, "p", "s", false);
}

/** A page of `records`, the whole list. */
const page = (records: object[]) => JSON.stringify({ data: records, links: {}, meta: { total: records.length } });

/** The service's integrations: two of one application, each labelled with 20 characters of the key (a gateway's names). */
const integrations = page([
  { id: "i-1", type: "integration", attributes: { application: "Slack", label: `Slack ${KEY.slice(0, 20)}` } },
  { id: "i-2", type: "integration", attributes: { application: "Slack", label: `Slack ${KEY.slice(10, 30)}` } },
]);

describe("a service text made of the key, in part, stays out of what the lookups say", () => {
  it("getIntegration by a label no integration has: the labels there are named, without the key", async () => {
    const emu = await emulator({ apiKey: KEY });
    emu.fault({ method: "GET", path: "/integrations", body: integrations, times: 10 });
    await program(emu);
    const warnings = logged();
    const error = await rejection(getIntegration({ label: "Slack acme" }));
    expect(error.message).toContain(
      'getIntegration: no integration with label "Slack acme" (matched exactly; the labels there: "Slack [redacted]',
    );
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });

  it("getIntegration by an application two have: the candidates are named, without the key", async () => {
    const emu = await emulator({ apiKey: KEY });
    emu.fault({ method: "GET", path: "/integrations", body: integrations, times: 10 });
    await program(emu);
    const warnings = logged();
    const error = await rejection(getIntegration({ application: "Slack" }));
    expect(LookupError.isInstance(error) && error.kind).toBe("lookup_ambiguous");
    expect(error.message).toContain('have application "Slack": i-1 (label "Slack [redacted]');
    expect((error as LookupError).candidates.map((c) => c.id)).toEqual(["i-1", "i-2"]);
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });

  it("getUser by an email two users have: their ids are named, without the key", async () => {
    const emu = await emulator({ apiKey: KEY });
    const user = (id: string) => ({ id, type: "user", attributes: { email: "cy@example.com", role: "collaborator", status: "live" } });
    const body = page([user(`usr_${KEY.slice(0, 20)}`), user(`usr_${KEY.slice(12)}`)]);
    emu.fault({ method: "GET", path: "/users", body, times: 10 });
    await program(emu);
    const warnings = logged();
    const error = await rejection(getUser({ email: "cy@example.com" }));
    // Ids are lower-cased where they enter (client/ids.ts): each id is a run of the key in lower case, and goes whole.
    expect(error.message).toMatch(
      /getUser: 2 users in the workspace at .* have the email "cy@example.com": usr_\[redacted\] \(cy@example.com\), usr_\[redacted\] \(/,
    );
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });
});

describe("a service text made of the key, in part, stays out of what getJob says", () => {
  // The client's errors are redacted already; getJob's failures pass the same last step as the lookups' all the same.
  it("a job's read refused with an error body quoting the job's id", async () => {
    const emu = await emulator({ apiKey: KEY });
    const job = `job_${KEY.slice(0, 20)}`;
    const body = JSON.stringify({ errors: [{ status: "404", title: "Not found", detail: `No job ${job} in this workspace` }] });
    emu.fault({ method: "GET", path: `/jobs/${job}`, status: 404, body });
    await program(emu);
    const warnings = logged();
    const error = await rejection(getJob({ id: job }));
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });
});
