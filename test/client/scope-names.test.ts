/**
 * Every operation's refusal, over real HTTP to the emulator, names each scope the contract's table (api-contract.md, "Scopes")
 * gives it: a key holding none is refused (403) under that table, and the message is held to the table row by row.
 */
import { describe, expect, it } from "vitest";
import { ForbiddenError, type WorkspaceAccessClient } from "../../src/client";
import { SCOPES, type Scope } from "../../src/client/scopes";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { clientFor, emulator, rejection } from "../support/fixtures";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const { readUsers, writeUsers, readIntegrations, writeIntegrations, readJobs, writeJobs } = SCOPES;
const attributes = { email: "cy@example.com", firstName: "Cy", lastName: "Young", role: "workspace_login_only", isGuest: false };
/** "Every write that starts a job" needs Write automated jobs, and waiting for it (`GET /jobs/{id}`) Read automated jobs. */
const jobs = [writeJobs, readJobs];

const operations: Array<[string, (client: WorkspaceAccessClient) => Promise<unknown>, readonly Scope[]]> = [
  ["users.list", (c) => c.users.list().next(), [readUsers]],
  ["users.get", (c) => c.users.get(alan), [readUsers]],
  ["users.create", (c) => c.users.create(attributes), [writeUsers, ...jobs]],
  ["users.replace", (c) => c.users.replace(alan, attributes), [writeUsers, ...jobs]],
  ["users.delete", (c) => c.users.delete(alan), [writeUsers, ...jobs]],
  ["integrations.list", (c) => c.integrations.list().next(), [readIntegrations]],
  ["integrations.get", (c) => c.integrations.get(youtube), [readIntegrations]],
  ["integrations.listEntitlements", (c) => c.integrations.listEntitlements(youtube), [readIntegrations]],
  ["integrations.listUsers", (c) => c.integrations.listUsers(youtube).next(), [readIntegrations, readUsers]],
  ["integrations.getUser", (c) => c.integrations.getUser(youtube, alan), [readIntegrations, readUsers]],
  [
    "integrations.invite",
    (c) => c.integrations.invite(youtube, { userIds: [alan], entitlements: ["VIEWER"] }),
    [writeIntegrations, ...jobs],
  ],
  ["integrations.setEntitlements", (c) => c.integrations.setEntitlements(youtube, alan, ["VIEWER"]), [writeIntegrations, ...jobs]],
  [
    "integrations.changeEntitlements",
    (c) => c.integrations.changeEntitlements(youtube, alan, { add: ["VIEWER"] }),
    [writeIntegrations, ...jobs],
  ],
  ["integrations.removeUser", (c) => c.integrations.removeUser(youtube, alan), [writeIntegrations, ...jobs]],
  ["jobs.get", (c) => c.jobs.get("00000000-0000-4000-8000-000000000000"), [readJobs]],
];

describe("a refusal names the scopes the contract's table gives the operation", () => {
  it.each(operations)("%s", async (_name, call, needs) => {
    const key = "wa_no_scopes_at_all_key_0000000000";
    const emu = await emulator({ seed: defaultSeed(), scopeTable: "contract", keys: { [key]: [] } });
    const { client } = clientFor(emu, { apiKey: key });
    const error = await rejection(call(client));
    expect(ForbiddenError.isInstance(error)).toBe(true);
    for (const scope of needs) expect(error.message).toContain(`${scope.name} (${scope.id})`);
    expect(emu.requests.map((r) => r.status)).toEqual([403]);
  });
});
