/**
 * The read cache against the emulator: which lists it sends while one is still paging, and which
 * cached lists a write makes it forget. The cache counts age on `Date.now()`; tests move that
 * forward instead of waiting.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../src/emulator";
import { ReadCache } from "../../src/resources/read-cache";
import { manyUsers, TEAM, teamSeed } from "../emulator/helpers";
import { clientFor, emulator } from "../support/fixtures";

/** Moves `Date.now()` forward by `ms` from now on (the cache's sense of age), without waiting. */
let skipped = 0;
function skipAhead(ms: number): void {
  if (skipped === 0) {
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + skipped);
  }
  skipped += ms;
}

afterEach(() => {
  vi.restoreAllMocks();
  skipped = 0;
});

/** The list requests (first pages and the rest) the emulator received for `path`. */
const lists = (emu: Emulator, path: string) => emu.requests.filter((r) => r.method === "GET" && r.path === path);

describe("a list still paging", () => {
  it("is joined by reads arriving after maxAge, instead of starting another list", async () => {
    // 150 users: two pages of 100. The first page is slow, so the list outlives maxAge.
    const emu = await emulator({ seed: { users: manyUsers(150) } });
    const [a, b, c, d] = emu.users.list().map((u) => u.id);
    emu.fault({ method: "GET", path: "/users", delayMs: 300 });
    const { client } = clientFor(emu);
    const cache = new ReadCache(client, 1000);

    const first = Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    await vi.waitFor(() => expect(lists(emu, "/users").some((r) => r.status === 0)).toBe(true));
    skipAhead(5000); // the list began longer than maxAge ago, and is still on its first page
    const second = Promise.all([cache.user(c ?? ""), cache.user(d ?? "")]);

    const users = [...(await first), ...(await second)];
    expect(users.map((u) => u?.id)).toEqual([a, b, c, d]);
    // One list of two pages, and no direct GET.
    expect(lists(emu, "/users").map((r) => r.query["page[number]"] ?? "1")).toEqual(["1", "2"]);
    expect(emu.requests).toHaveLength(2);

    // Once settled, its age counts from when it began: reads now start a new list.
    skipAhead(1);
    await Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    expect(lists(emu, "/users")).toHaveLength(4);
  });
});

describe("invalidate()", () => {
  it("without an integration id forgets member lists too: a deleted user is no longer a member", async () => {
    const emu = await emulator({ seed: teamSeed() });
    const { client } = clientFor(emu);
    const cache = new ReadCache(client, 60_000);
    const members = `/integrations/${TEAM.tube}/users`;

    const [ada, bob] = await Promise.all([cache.member(TEAM.tube, TEAM.ada), cache.member(TEAM.tube, TEAM.bob)]);
    expect([ada?.id, bob?.id]).toEqual([TEAM.ada, TEAM.bob]);
    expect(lists(emu, members)).toHaveLength(1);

    // What the user provider's delete does: the service also removes bob's memberships.
    await client.users.delete(TEAM.bob);
    cache.invalidate();

    const [adaAgain, bobAgain] = await Promise.all([cache.member(TEAM.tube, TEAM.ada), cache.member(TEAM.tube, TEAM.bob)]);
    expect(adaAgain?.id).toBe(TEAM.ada);
    expect(bobAgain).toBeUndefined();
    expect(lists(emu, members)).toHaveLength(2);
  });

  it("with an integration id forgets that integration's members and the users, and keeps other integrations' lists", async () => {
    const seed = teamSeed();
    const other = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
    seed.integrations.push({ id: other, application: "Slack", entitlements: [{ id: "MEMBER" }], users: [{ userId: TEAM.ada, entitlements: ["MEMBER"] }] });
    const emu = await emulator({ seed });
    const { client } = clientFor(emu);
    const cache = new ReadCache(client, 60_000);
    const readAll = () =>
      Promise.all([
        cache.user(TEAM.ada),
        cache.user(TEAM.bob),
        cache.member(TEAM.tube, TEAM.ada),
        cache.member(TEAM.tube, TEAM.bob),
        cache.member(other, TEAM.ada),
        cache.member(other, TEAM.bob),
      ]);

    await readAll();
    cache.invalidate(TEAM.tube);
    await readAll();
    expect(lists(emu, "/users")).toHaveLength(2);
    expect(lists(emu, `/integrations/${TEAM.tube}/users`)).toHaveLength(2);
    expect(lists(emu, `/integrations/${other}/users`)).toHaveLength(1);
  });
});
