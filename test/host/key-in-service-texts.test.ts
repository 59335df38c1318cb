/**
 * The host's own messages quote what the service said: a job's id, a record's id. A gateway may make a job id of the key, in
 * part (test/client/errors.test.ts holds the client's wait to it): no message the engine gets from a handler, as an error or
 * a warning, holds a run of 8 of the key's characters. Over real HTTP to the emulator, on its virtual clock.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { provider as user } from "../../src/host/user/user-provider";
import { provider as set } from "../../src/host/users/workspace-users-provider";
import { emulator, rejection } from "../support/fixtures";
import { configureFor } from "../support/provider";
import { ann, setOf } from "./workspace-users-support";
import { RUNS_KEY, runsOf } from "../support/key-runs";

const KEY = RUNS_KEY;
/** The gateway's job id: 20 characters of the key in it. */
const JOB = `job_${KEY.slice(0, 20)}`;

/**
 * What the engine and a log may show of an error: its message, stack, fields and cause; not `properties`, the state a partial
 * write records, which keeps the job's id as the service said it (the next `up` waits for that job).
 */
function textsOf(error: Error): string {
  const { properties: _, ...fields } = error as Error & { properties?: unknown };
  return [error.message, error.stack, inspect(fields, { depth: 8 }), inspect(error.cause, { depth: 8, showHidden: true })].join("\n");
}

/** A `POST /users` answered 202 with the gateway's job (`id`), in `status`; its reads answer the same. */
async function gateway(status: string, id = JOB) {
  const emu = await emulator({ apiKey: KEY });
  const job = JSON.stringify({ data: { id, type: "job", attributes: { status } } });
  emu.fault({ method: "POST", path: "/users", status: 202, body: job });
  emu.fault({ method: "GET", path: /^\/jobs\//, body: job, times: 100 });
  const warnings: string[] = [];
  await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" }, { warn: (m) => void warnings.push(m), info: () => {} });
  return { emu, warnings };
}

describe("a job id made of the key, in part, stays out of what the host says", () => {
  it("User: a create whose job finished without the user found", async () => {
    const { warnings } = await gateway("finished");
    const { inputs } = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const error = await rejection(user.create(inputs!));
    expect(error.message).toContain("finished, but no user with the email cy@example.com was found");
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });

  it("User: a create whose job outlived jobTimeoutSeconds", async () => {
    const { warnings } = await gateway("running");
    const { inputs } = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const error = await rejection(user.create(inputs!));
    expect(error.message).toContain("The service accepted the create of cy@example.com (job ");
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });

  it("User: a create whose job outlived jobTimeoutSeconds, the job id in lower case (a gateway's, or as ids enter)", async () => {
    const { warnings } = await gateway("running", JOB.toLowerCase());
    const { inputs } = await user.check!({}, { email: "cy@example.com", firstName: "Cy", lastName: "Young" });
    const error = await rejection(user.create(inputs!));
    expect(error.message).toContain("The service accepted the create of cy@example.com (job job_[redacted])");
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });

  it("WorkspaceUsers: a create recorded pending with its job", async () => {
    const { warnings } = await gateway("running");
    const error = (await rejection(set.create(setOf(ann)))) as Error & { properties?: { pendingCreates?: unknown } };
    expect(error.message).toContain("(pendingCreates, job ");
    expect(error.properties?.pendingCreates).toEqual([{ email: ann.email, jobId: JOB }]);
    expect(runsOf(textsOf(error))).toEqual([]);
    expect(runsOf(warnings.join("\n"))).toEqual([]);
  });
});
