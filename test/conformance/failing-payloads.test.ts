/**
 * The suite can fail: deliberately wrong payloads, served by the emulator's raw-body fault, are
 * rejected by the document validator (naming the field) AND make the client raise
 * InvalidResponseError naming the same field. Then the places where the client is deliberately
 * more lenient than the document, because the contract says so: the validator rejects, the client
 * accepts. Those are the contract-vs-document contradictions of docs/openapi-conformance.md.
 */
import { describe, expect, it } from "vitest";
import { collect, InvalidResponseError, NotFoundError, type WorkspaceAccessClient } from "../../src/client";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator";
import { clientFor, emulator, rejection } from "../support/fixtures";
import { conformanceSeed, exchange, validateAnswer } from "./harness";
import { describeWithDocument, itWithDocument } from "./openapi";

const { ada } = DEFAULT_IDS.users;
const { youtube } = DEFAULT_IDS.integrations;
const yt = `integrations/${youtube}`;

type Json = Record<string, unknown>;

/** Sets (or, with `remove`, deletes) the value at a JSON pointer of a copy of `value`. */
function changed(value: unknown, pointer: string, replacement?: unknown, remove = false): unknown {
  const copy = structuredClone(value);
  const segments = pointer.split("/").slice(1);
  const last = segments.pop()!;
  let node = copy as Json;
  for (const s of segments) node = node[s] as Json;
  if (remove) delete node[last];
  else node[last] = replacement;
  return copy;
}
const without = (value: unknown, pointer: string) => changed(value, pointer, undefined, true);

interface Broken {
  label: string;
  /** Emulator path of the request (relative to the base URL) and its recorded path (for the fault). */
  path: (emu: Emulator) => Promise<{ method: string; relative: string; recorded: string; body?: unknown }>;
  /** Turns the emulator's real answer into a wrong one. */
  breakIt: (good: unknown) => unknown;
  /** The validator's error for it. */
  validatorError: string;
  /** The client call that reads it. */
  call: (client: WorkspaceAccessClient, emu: Emulator) => Promise<unknown>;
  /** InvalidResponseError.field. */
  field: string;
}

/** Starts a job through an invite and returns its id. */
async function startJob(emu: Emulator): Promise<string> {
  const x = await exchange(emu, "POST", `${yt}/users`, {
    body: {
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [{ id: "VIEWER" }], userIds: [DEFAULT_IDS.users.katherine] },
      },
    },
  });
  return (x.body as { data: { id: string } }).data.id;
}
let jobId = "";

const broken: Broken[] = [
  {
    label: "a user whose isGuest is a string",
    path: async () => ({ method: "GET", relative: `users/${ada}`, recorded: `/users/${ada}` }),
    breakIt: (good) => changed(good, "/data/attributes/isGuest", "no"),
    validatorError: "/data/attributes/isGuest: must be boolean",
    call: (c) => c.users.get(ada),
    field: "data.attributes.isGuest",
  },
  {
    label: "a job without status, when it is waited for",
    path: async (emu) => {
      jobId = await startJob(emu);
      return { method: "GET", relative: `jobs/${jobId}`, recorded: `/jobs/${jobId}` };
    },
    breakIt: (good) => without(good, "/data/attributes/status"),
    validatorError: "/data/attributes/status: required property is missing [contract overlay]",
    call: (c) => c.jobs.wait(jobId),
    field: "data.attributes.status",
  },
  {
    label: "a set-entitlements job answer without id",
    path: async () => ({
      method: "PATCH",
      relative: `${yt}/users/${DEFAULT_IDS.users.grace}`,
      recorded: `/integrations/${youtube}/users/${DEFAULT_IDS.users.grace}`,
      body: { data: { type: "update_user_entitlement", attributes: { entitlements: [{ id: "VIEWER" }] } } },
    }),
    breakIt: (good) => without(good, "/data/id"),
    validatorError: "/data/id: required property is missing [contract overlay]",
    call: (c) => c.integrations.setEntitlements(youtube, DEFAULT_IDS.users.grace, ["VIEWER"]),
    field: "data.id",
  },
  {
    label: "an integration user whose entitlements hold a number",
    path: async () => ({ method: "GET", relative: `${yt}/users/${ada}`, recorded: `/integrations/${youtube}/users/${ada}` }),
    breakIt: (good) => changed(good, "/data/attributes/entitlements", [42]),
    validatorError: "/data/attributes/entitlements/0: must be object",
    call: (c) => c.integrations.getUser(youtube, ada),
    field: "data.attributes.entitlements.0",
  },
  {
    label: "an entitlements list whose data is not an array",
    path: async () => ({ method: "GET", relative: `${yt}/entitlements`, recorded: `/integrations/${youtube}/entitlements` }),
    breakIt: (good) => changed(good, "/data", { id: "VIEWER" }),
    validatorError: "/data: must be array",
    call: (c) => c.integrations.listEntitlements(youtube),
    field: "data",
  },
];

describeWithDocument("wrong payloads: the validator rejects them and the client raises InvalidResponseError naming the field", () => {
  it.each(broken.map((b) => [b.label, b] as const))("%s", async (_label, b) => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu, { maxRetries: 0 });
    const request = await b.path(emu);
    // The real answer conforms; the broken one does not.
    const good = await exchange(emu, request.method, request.relative, { body: request.body });
    expect(validateAnswer(good.method, good.path, good.status, good.body).errors).toEqual([]);
    const bad = b.breakIt(good.body);
    emu.fault({ method: request.method, path: request.recorded, status: 200, body: JSON.stringify(bad), times: 2 });

    const served = await exchange(emu, request.method, request.relative, { body: request.body });
    expect(served.body).toEqual(bad);
    const outcome = validateAnswer(served.method, served.path, served.status, served.body);
    expect(outcome.valid).toBe(false);
    expect(
      outcome.errors.some((e) => e.startsWith(b.validatorError)),
      outcome.errors.join("\n"),
    ).toBe(true);

    const error = await rejection(b.call(client, emu));
    expect(InvalidResponseError.isInstance(error), String(error)).toBe(true);
    expect((error as InvalidResponseError).field).toBe(b.field);
    expect(error.message).toContain(`"${b.field}"`);
  });
});

describe("where the contract makes the client more lenient than the document (validator rejects, client accepts)", () => {
  itWithDocument("a users list whose second user has no email (a real workspace: only a record's id is certain)", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const good = await exchange(emu, "GET", "users?page%5Bsize%5D=100");
    const odd = without(good.body, "/data/1/attributes/email");
    expect(
      validateAnswer("GET", "/users", 200, odd).errors.some((e) => e.startsWith("/data/1/attributes/email: required property is missing")),
    ).toBe(true);
    emu.fault({ path: "/users", status: 200, body: JSON.stringify(odd) });
    const users = await collect(client.users.list());
    expect(users).toHaveLength((good.body as { data: unknown[] }).data.length);
    expect(users[1]?.email).toBeNull();
    expect(users[0]?.email).not.toBeNull();
  });

  it("a job read without status (only waiting for it needs one)", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const id = await startJob(emu);
    const good = await exchange(emu, "GET", `jobs/${id}`);
    emu.fault({ path: `/jobs/${id}`, status: 200, body: JSON.stringify(without(good.body, "/data/attributes/status")) });
    expect((await client.jobs.get(id)).status).toBeNull();
  });

  itWithDocument("a write answered with a record that is not a job (type `jobs`): every 2xx is success, nothing to wait for", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const body = {
      data: {
        type: "invite_tenant_users",
        attributes: { role: "account_collaborator", entitlements: [], userIds: [DEFAULT_IDS.users.katherine] },
      },
    };
    const good = await exchange(emu, "POST", `${yt}/users`, { body });
    const odd = changed(good.body, "/data/type", "jobs");
    expect(
      validateAnswer("POST", `/integrations/${youtube}/users`, 200, odd).errors.some((e) =>
        e.startsWith('/data/type: must be one of "job"'),
      ),
    ).toBe(true);
    emu.fault({ method: "POST", path: `/integrations/${youtube}/users`, status: 200, body: JSON.stringify(odd) });
    const handle = await client.integrations.invite(youtube, { userIds: [DEFAULT_IDS.users.katherine], entitlements: [] });
    expect(handle.id).toBeNull();
    expect(await handle.wait()).toBeNull();
  });

  itWithDocument("an unknown workspace role (contract: open string that warns; document: enum, 3539-3544)", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const good = await exchange(emu, "GET", `users/${ada}`);
    const odd = changed(good.body, "/data/attributes/role", "workspace_auditor");
    expect(validateAnswer("GET", `/users/${ada}`, 200, odd).errors).toEqual([
      '/data/attributes/role: must be one of "workspace_owner", "workspace_super_admin", "workspace_guest_admin", "workspace_login_only", "workspace_guest_user"',
    ]);
    emu.fault({ path: `/users/${ada}`, status: 200, body: JSON.stringify(odd) });
    expect((await client.users.get(ada)).role).toBe("workspace_auditor");
  });

  itWithDocument("an unknown job trigger (contract: open string; document: enum, 3723-3727)", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const id = await startJob(emu);
    const good = await exchange(emu, "GET", `jobs/${id}`);
    const odd = changed(good.body, "/data/attributes/trigger", "scheduled");
    expect(validateAnswer("GET", `/jobs/${id}`, 200, odd).errors).toEqual([
      '/data/attributes/trigger: must be one of "manual", "workspace_policy", "system", "user_deprovisioned"',
    ]);
    emu.fault({ path: `/jobs/${id}`, status: 200, body: JSON.stringify(odd) });
    expect((await client.jobs.get(id)).trigger).toBe("scheduled");
  });

  itWithDocument("an error whose status is a string (contract: number or string; document: number, 3280-3281)", async () => {
    const emu = await emulator({ seed: conformanceSeed() });
    const { client } = clientFor(emu);
    const odd = { errors: [{ code: "Not found", title: "Not found", detail: "Resource not found.", status: "404", meta: null }] };
    expect(validateAnswer("GET", `/users/${ada}`, 404, odd).errors).toEqual(["/errors/0/status: must be number"]);
    emu.fault({ path: `/users/${ada}`, status: 404, body: JSON.stringify(odd) });
    const error = await rejection(client.users.get(ada));
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ detail: "Resource not found.", code: "Not found" });
  });
});
