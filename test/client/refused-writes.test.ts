/**
 * What a refused write says, over real HTTP to the emulator: every scope the write needs (its own, and those of the job it
 * answers with: Write automated jobs to start it, Read automated jobs to wait for it), whichever the service lacks.
 */
import { describe, expect, it } from "vitest";
import { ForbiddenError } from "../../src/client";
import { ALL_SCOPES, DEFAULT_IDS, defaultSeed, type Scope } from "../../src/emulator";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";

const { youtube } = DEFAULT_IDS.integrations;
const { alan, grace } = DEFAULT_IDS.users;
const JOB_SCOPES = "Write automated jobs (write:automations) and Read automated jobs (read:automations)";

/** A key holding every scope but `lacking`, issued by the fixtures' leak checks. */
function keyWithout(lacking: Scope, name: string): [string, string[]] {
  const key = `wa_${name}_${"7".repeat(16)}`;
  issuedKeys.add(key);
  return [key, ALL_SCOPES.filter((s) => s !== lacking)];
}

describe("a write refused 403 names every scope it needs", () => {
  it("a user replace whose service answers user writes with jobs names Write automated jobs and Read automated jobs, as assumed", async () => {
    const [key, scopes] = keyWithout("write:automations", "no_job_writes");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, userWritesAsJobs: true });
    const { client } = clientFor(emu, { apiKey: key });
    const attributes = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", role: "workspace_login_only", isGuest: false };
    const error = await rejection(client.users.replace(alan, { ...attributes, lastName: "Mathison" }));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      `this operation needs the scope Write users (write:users), and, should the service answer it with a job (assumed), ${JOB_SCOPES} too`,
    );
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`PUT /users/${alan}`]);
    expect(emu.users.get(alan)?.lastName).toBe("Turing");
  });

  it("an invitation under the contract's scope table names Write automated jobs, which that table asks for", async () => {
    const [key, scopes] = keyWithout("write:automations", "contract_invite");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes }, scopeTable: "contract" });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] }));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "this operation needs the scopes Write integrations (write:integrations), Read automated jobs (read:automations) and " +
        "Write automated jobs (write:automations)",
    );
    expect(emu.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST /integrations/${youtube}/users`]);
  });

  it("a member's entitlement change names Read automated jobs too: waiting for its job needs it", async () => {
    const [key, scopes] = keyWithout("write:integrations", "no_member_writes");
    const emu = await emulator({ seed: defaultSeed(), keys: { [key]: scopes } });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(client.integrations.setEntitlements(youtube, grace, ["VIEWER"]));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain(
      "this operation needs the scopes Write integrations (write:integrations), Write automated jobs (write:automations) and " +
        "Read automated jobs (read:automations)",
    );
  });
});
