/**
 * Issue 28, through the provider's handlers in process against the emulator: one identity for an
 * id in any case (a member listed twice in two cases fails at check, naming `members[1].userId`,
 * with no request), an email a page shift hid from the user search confirmed before any
 * `POST /users`, and the API key planted in every part of every answer shape never reaching an
 * error, a warning or an output (not even 8 characters of it).
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { provider as members } from "../../src/host/members/integration-members-provider";
import { provider as users } from "../../src/host/user/user-provider";
import { emulator } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const INTEGRATION = "5b1c0d2e-0000-4000-8000-00000000be0c";
const A = "00000000-0000-4000-8000-00000000000a";

/** Every run of 8 characters of `key` found in `text`. */
function keyRuns(text: string, key: string): string[] {
  const runs: string[] = [];
  for (let i = 0; i + 8 <= key.length; i++) if (text.includes(key.slice(i, i + 8))) runs.push(key.slice(i, i + 8));
  return runs;
}

/** A page of one (other) user, whose links.next is `next`. */
const pageTo = (next: string) =>
  JSON.stringify({
    data: [{ id: A, type: "users", attributes: { email: "o@y.example", firstName: "O", lastName: "P", role: "workspace_login_only" } }],
    links: { next },
    meta: { page: { total: 5 } },
  });

/** Everything an error carries, as text: message, stack, cause and fields. */
const textOf = (value: unknown) =>
  `${inspect(value, { depth: 8, showHidden: true })} ${value instanceof Error ? `${value.message} ${value.stack}` : ""}`;

describe("one identity for an id, whatever its case", () => {
  it("an IntegrationMembers listing one user twice, in two cases with different sets, fails at check naming members[1].userId, nothing sent", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const news = {
      integrationId: INTEGRATION,
      members: [
        { userId: A, entitlements: ["VIEWER"] },
        { userId: A.toUpperCase(), entitlements: ["EDITOR"] },
      ],
    };
    const { failures } = wire(await members.check!({}, news));
    expect(failures).toContainEqual(expect.objectContaining({ property: "members[1].userId" }));
    expect(emu.requests).toEqual([]);
  });

  it("check hands the handlers each id in one form (lower case): requests carry it", async () => {
    const emu = await emulator({
      seed: {
        users: [{ id: A, email: "a@example.com", firstName: "A", lastName: "B" }],
        integrations: [{ id: INTEGRATION, application: "app", entitlements: [{ id: "VIEWER" }] }],
      },
    });
    await configureFor(emu);
    const upper = { integrationId: INTEGRATION.toUpperCase(), members: [{ userId: A.toUpperCase(), entitlements: ["VIEWER"] }] };
    const { inputs } = wire(await members.check!(upper, upper));
    expect(inputs).toMatchObject({ integrationId: INTEGRATION, members: [{ userId: A }] });
    // What the service received from the handler given those inputs: every path and user id in lower case.
    emu.clearRequests();
    await members.create!(inputs!);
    const invites = emu.requests.filter((r) => r.method === "POST");
    expect(invites.map((r) => r.path)).toEqual([`/integrations/${INTEGRATION}/users`]);
    expect(invites[0]?.body).toMatchObject({ data: { attributes: { userIds: [A] } } });
    expect(emu.requests.length).toBeGreaterThan(1);
    for (const r of emu.requests) expect(r.path, `${r.method} ${r.rawPath}`).toBe(r.path.toLowerCase());
  });
});

describe("a state written with ids in another case", () => {
  it("an IntegrationMembers whose state holds upper-case ids sees no change and no replacement in the same members, checked into lower case", async () => {
    const emu = await emulator();
    await configureFor(emu);
    const olds = {
      integrationId: INTEGRATION.toUpperCase(),
      members: [{ userId: A.toUpperCase(), entitlements: ["VIEWER"], role: "account_collaborator" as const }],
      removeUnmanaged: false,
      unmanagedMembers: [],
      pendingInvitations: [],
    };
    const { inputs } = await members.check!(olds, { integrationId: INTEGRATION, members: [{ userId: A, entitlements: ["VIEWER"] }] });
    const diff = await members.diff!(olds.integrationId, olds, inputs!);
    expect(diff).toMatchObject({ changes: false, replaces: [] });
    expect(emu.requests).toEqual([]);
  });
});

describe("User with adoptExisting: an email the search missed is confirmed before POST /users", () => {
  it("a page shift hides the user from the search: the user is adopted, no POST /users is sent", async () => {
    const email = "target@x.example";
    // 110 users whose name contains the email (the search matches names too), then the one with it: the search takes 2 pages.
    const others = Array.from({ length: 110 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, "0")}`,
      email: `o${i}@y.example`,
      firstName: "Friend of",
      lastName: email,
    }));
    const target = { id: "00000000-0000-4000-8000-0000000000ff", email, firstName: "Tara", lastName: "Get" };
    const seed = { users: [...others.slice(0, 100), target, ...others.slice(100)] };
    const emu = await emulator({ seed });
    await configureFor(emu);
    // Between page 1 and page 2 of the search, someone on page 1 leaves: the target moves onto page 1, unseen.
    const off = emu.onPage((list) => {
      if (list.path === "/users" && list.page === 2) {
        emu.users.remove(others[0]!.id);
        off();
      }
    });
    const result = await users.create!({ email, firstName: "Tara", lastName: "Get", adoptExisting: true });
    expect(result.id).toBe(target.id);
    expect(emu.requests.filter((r) => r.method === "POST")).toEqual([]);
  });
});

describe("the API key in every part of an answer reaches no error, warning or output", () => {
  const shapes: Array<[string, (key: string, url: string) => Array<Record<string, unknown>>]> = [
    [
      "a links.next carrying the key, repeated",
      (key) => {
        const page = JSON.stringify({
          data: [],
          links: { next: `/api/v1/users?page[number]=2&token=${key}` },
          meta: { page: { total: 5 } },
        });
        const full = JSON.stringify({
          data: [
            { id: A, type: "users", attributes: { email: "o@y.example", firstName: "O", lastName: "P", role: "workspace_login_only" } },
          ],
          links: { next: `/api/v1/users?page[number]=2&token=${key}` },
          meta: { page: { total: 5 } },
        });
        return [
          { method: "GET", path: "/users", body: full },
          { method: "GET", path: "/users", body: page.replace("[]", JSON.stringify(JSON.parse(full).data)) },
        ];
      },
    ],
    [
      "a links.next to another host carrying the key",
      (key) => [
        {
          method: "GET",
          path: "/users",
          body: pageTo(`https://evil.example/${key}?k=${key}`),
        },
      ],
    ],
    [
      "a links.next to a host named after the key",
      (key) => [{ method: "GET", path: "/users", body: pageTo(`https://${key}.evil.example/x`) }],
    ],
    [
      "a links.next on the workspace whose path carries the key, answered 404",
      (key) => [{ method: "GET", path: "/users", body: pageTo(`/api/v1/users/${key}/page2`) }],
    ],
    [
      "meta, links and errors of an error answer",
      (key) => [
        {
          method: "GET",
          path: "/users",
          status: 400,
          body: JSON.stringify({
            errors: [{ status: "400", title: `bad ${key}`, detail: `key ${key} rejected`, source: { parameter: key }, meta: { key } }],
            meta: { echoed: key },
            links: { about: `https://x.example/${key}` },
          }),
        },
      ],
    ],
    [
      "headers of an error answer",
      (key) => [{ method: "GET", path: "/users", status: 503, headers: { "x-request-id": key, "retry-after": key }, body: "" }],
    ],
    ["a non-JSON error body", (key) => [{ method: "GET", path: "/users", status: 502, body: `<html>gateway: ${key}</html>` }]],
    ["a non-JSON success body", (key) => [{ method: "GET", path: "/users", status: 200, body: `ok ${key}` }]],
    [
      "a record with the key in a field that breaks the contract",
      (key) => [
        {
          method: "GET",
          path: "/users",
          body: JSON.stringify({
            data: [{ id: key, type: "users", attributes: { email: 42, firstName: key, lastName: key } }],
            links: { next: null },
            meta: { page: { total: 1 } },
          }),
        },
      ],
    ],
  ];

  it.each(shapes)("%s", async (_, faults) => {
    const emu = await emulator();
    const warnings: string[] = [];
    await configureFor(emu, { "workspace-access:maxRetries": "0" }, { warn: (m) => warnings.push(m) });
    for (const fault of faults(emu.apiKey, emu.url)) emu.fault({ times: 1, ...fault } as Parameters<typeof emu.fault>[0]);
    const outcome = await users.create!({ email: "new@x.example", firstName: "N", lastName: "U", adoptExisting: true }).then(
      (value) => value,
      (error: unknown) => error,
    );
    const seen = `${textOf(outcome)} ${warnings.join("\n")}`;
    expect(keyRuns(seen, emu.apiKey)).toEqual([]);
    // The answer was read: a test that sends nothing proves nothing.
    expect(emu.requests.length).toBeGreaterThan(0);
  });
});
