/**
 * The read cache and the membership views against the emulator: which lists it sends while one is still paging, and which
 * cached lists a write makes it forget. The cache, the client and the emulator share a virtual
 * clock: tests move time on instead of waiting.
 */
import { describe, expect, it, vi } from "vitest";
import type { Emulator } from "../../src/emulator";
import { MembershipViews } from "../../src/host/membership/membership-view";
import { ReadCache } from "../../src/host/read-cache";
import { manyUsers, TEAM, teamSeed } from "../emulator/helpers";
import { provider as entitlements } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as users } from "../../src/host/user/user-provider";
import { clientFor, emulator } from "../support/fixtures";
import { configureFor } from "../support/provider";

/** The list requests (first pages and the rest) the emulator received for `path`. */
const lists = (emu: Emulator, path: string) => emu.requests.filter((r) => r.method === "GET" && r.path === path);

describe("a list still paging", () => {
  it("is joined by reads arriving after maxAge, instead of starting another list", async () => {
    // 150 users: two pages of 100. The first page is slow, so the list outlives maxAge.
    const emu = await emulator({ seed: { users: manyUsers(150) } });
    const [a, b, c, d] = emu.users.list().map((u) => u.id);
    emu.fault({ method: "GET", path: "/users", delayMs: 300 });
    const { client, clock } = clientFor(emu);
    const cache = new ReadCache(client, 1000, clock);

    const first = Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    await vi.waitFor(() => expect(lists(emu, "/users").some((r) => r.status === 0)).toBe(true));
    clock.advance(5000 - 300); // the list began longer than maxAge ago, and is still on its first page
    const second = Promise.all([cache.user(c ?? ""), cache.user(d ?? "")]);
    clock.advance(300); // the slow first page answers

    const users = [...(await first), ...(await second)];
    expect(users.map((u) => (u instanceof Error ? u.message : u?.id))).toEqual([a, b, c, d]);
    // One list of two pages, and no direct GET.
    expect(lists(emu, "/users").map((r) => r.query["page[number]"] ?? "1")).toEqual(["1", "2"]);
    expect(emu.requests).toHaveLength(2);

    // Once settled, its age counts from when it began: reads now start a new list.
    clock.advance(1);
    await Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    expect(lists(emu, "/users")).toHaveLength(4);
  });
});

describe("a list that failed", () => {
  it("is not kept: its reads go direct, and the next reads take a list again", async () => {
    const emu = await emulator({ seed: { users: manyUsers(20) } });
    const [a, b, c, d] = emu.users.list().map((u) => u.id);
    const { client, clock } = clientFor(emu, { maxRetries: 0 });
    const cache = new ReadCache(client, 60_000, clock);
    emu.fault({ method: "GET", path: "/users", status: 400, times: 1 });
    const first = await Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    expect(first.map((u) => (u instanceof Error ? u.message : u?.id))).toEqual([a, b]);
    expect(emu.requests.map((r) => `${r.path} ${r.status}`).sort()).toEqual(["/users 400", `/users/${a} 200`, `/users/${b} 200`].sort());
    emu.clearRequests();
    const second = await Promise.all([cache.user(c ?? ""), cache.user(d ?? "")]);
    expect(second.map((u) => (u instanceof Error ? u.message : u?.id))).toEqual([c, d]);
    expect(emu.requests.map((r) => `${r.path} ${r.status}`)).toEqual(["/users 200"]);
  });
});

describe("a record of the shared list that cannot be used", () => {
  it("is read directly: the user as the service answers it, not the list's error", async () => {
    const emu = await emulator({ seed: { users: manyUsers(20) } });
    const [a, b] = emu.users.list().map((u) => u.id);
    const answer = await fetch(new URL("users?page[size]=100", emu.url), { headers: { "X-API-Key": emu.apiKey } });
    const page = (await answer.json()) as { data: Array<{ id: string; attributes: Record<string, unknown> }> };
    // A number where the contract has a string: that record fails parsing, the others are read.
    for (const record of page.data) if (record.id === a) record.attributes["email"] = 42;
    emu.clearRequests();
    emu.fault({ method: "GET", path: "/users", body: JSON.stringify(page), times: 1 });
    const { client, clock } = clientFor(emu);
    const cache = new ReadCache(client, 60_000, clock);
    const [first, second] = await Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    expect(first).toMatchObject({ id: a, email: emu.users.get(a ?? "")?.email });
    expect(second).toMatchObject({ id: b });
    expect(emu.requests.map((r) => r.path)).toEqual(["/users", `/users/${a}`]);
  });
});

describe("invalidate()", () => {
  it("without an integration id forgets member lists too: a deleted user is no longer a member", async () => {
    const emu = await emulator({ seed: teamSeed() });
    const { client, clock } = clientFor(emu);
    const cache = new ReadCache(client, 60_000, clock);
    const views = new MembershipViews(client, 60_000, clock);
    const members = `/integrations/${TEAM.tube}/users`;

    const [ada, bob] = await Promise.all([views.of(TEAM.tube).member(TEAM.ada), views.of(TEAM.tube).member(TEAM.bob)]);
    expect([ada, bob]).toMatchObject([{ id: TEAM.ada }, { id: TEAM.bob }]);
    expect(lists(emu, members)).toHaveLength(1);

    // What the user provider's delete does: the service also removes bob's memberships.
    await client.users.delete(TEAM.bob);
    cache.invalidate();
    views.written();

    const [adaAgain, bobAgain] = await Promise.all([views.of(TEAM.tube).member(TEAM.ada), views.of(TEAM.tube).member(TEAM.bob)]);
    expect(adaAgain).toMatchObject({ id: TEAM.ada });
    expect(bobAgain).toBeUndefined();
    expect(lists(emu, members)).toHaveLength(2);
  });

  it("with an integration id forgets that integration's members and the users, and keeps other integrations' lists", async () => {
    const seed = teamSeed();
    const other = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
    seed.integrations.push({
      id: other,
      application: "Slack",
      entitlements: [{ id: "MEMBER" }],
      users: [{ userId: TEAM.ada, entitlements: ["MEMBER"] }],
    });
    const emu = await emulator({ seed });
    const { client, clock } = clientFor(emu);
    const cache = new ReadCache(client, 60_000, clock);
    const views = new MembershipViews(client, 60_000, clock);
    const readAll = () =>
      Promise.all([
        cache.user(TEAM.ada),
        cache.user(TEAM.bob),
        views.of(TEAM.tube).member(TEAM.ada),
        views.of(TEAM.tube).member(TEAM.bob),
        views.of(other).member(TEAM.ada),
        views.of(other).member(TEAM.bob),
      ]);

    await readAll();
    cache.invalidate();
    views.written(TEAM.tube);
    await readAll();
    expect(lists(emu, "/users")).toHaveLength(2);
    expect(lists(emu, `/integrations/${TEAM.tube}/users`)).toHaveLength(2);
    expect(lists(emu, `/integrations/${other}/users`)).toHaveLength(1);
  });
});

describe("ids in another case", () => {
  it("a service answering ids in upper case: reads that arrive together are served from the list, no direct GET", async () => {
    const emu = await emulator({ seed: { users: manyUsers(20) }, quirks: { upperCaseIds: true } });
    const [a, b] = emu.users.list().map((u) => u.id);
    const { client, clock } = clientFor(emu);
    const cache = new ReadCache(client, 1000, clock);
    const users = await Promise.all([cache.user(a ?? ""), cache.user(b ?? "")]);
    expect(users.map((u) => (u instanceof Error ? u.message : u?.id.toLowerCase()))).toEqual([a, b]);
    expect(emu.requests.map((r) => r.path)).toEqual(["/users"]);
  });

  it("a member list keyed in another case than the integration id asked: one list serves both spellings", async () => {
    const emu = await emulator({ seed: teamSeed(), quirks: { upperCaseIds: true } });
    const { client, clock } = clientFor(emu);
    const views = new MembershipViews(client, 60_000, clock);
    const found = await Promise.all([
      views.of(TEAM.tube).member(TEAM.ada),
      views.of(TEAM.tube.toUpperCase()).member(TEAM.bob.toUpperCase()),
    ]);
    expect(found).toMatchObject([{ id: TEAM.ada }, { id: TEAM.bob }]);
    expect(emu.requests.filter((r) => r.method === "GET")).toHaveLength(1);
  });
});

describe("readCacheSeconds: 0", () => {
  it("turns sharing off: a refresh of three users and of two memberships reads each with its own GET, no list", async () => {
    const emu = await emulator({ seed: teamSeed() });
    const read = async (extra: Record<string, string>) => {
      await configureFor(emu, extra);
      emu.clearRequests();
      await Promise.all([
        ...[TEAM.ada, TEAM.bob, TEAM.cy].map((id) => users.read!(id, undefined as never)),
        ...[TEAM.ada, TEAM.bob].map((id) => entitlements.read!(`${TEAM.tube}/${id}`, undefined as never)),
      ]);
      return emu.requests.map((r) => `${r.method} ${r.path}`).sort();
    };
    // The default shares one list of the users and one of the members.
    expect(await read({})).toEqual(["GET /users", `GET /integrations/${TEAM.tube}/users`].sort());
    expect(await read({ "workspace-access:readCacheSeconds": "0" })).toEqual(
      [
        ...[TEAM.ada, TEAM.bob, TEAM.cy].map((id) => `GET /users/${id}`),
        ...[TEAM.ada, TEAM.bob].map((id) => `GET /integrations/${TEAM.tube}/users/${id}`),
      ].sort(),
    );
  });

  it("turns sharing off for creates too: each create reads its member with its own GET, no list", async () => {
    const emu = await emulator({ seed: teamSeed() });
    const listPath = `/integrations/${TEAM.tube}/users`;
    const create = async (extra: Record<string, string>) => {
      await configureFor(emu, extra);
      emu.clearRequests();
      // ada and bob are members already (adopted as they are); cy is not.
      await Promise.all(
        [TEAM.ada, TEAM.bob, TEAM.cy].map(async (userId) => {
          const entitlementsOf = emu.integrations.members(TEAM.tube).find((m) => m.userId === userId)?.entitlements ?? ["VIEWER"];
          const news = { integrationId: TEAM.tube, userId, entitlements: entitlementsOf, adoptExisting: true };
          return entitlements.create((await entitlements.check!({}, news)).inputs!);
        }),
      );
      return emu.requests.filter((r) => r.method === "GET" && r.path.startsWith(listPath));
    };
    expect((await create({})).filter((r) => r.path === listPath).length).toBeGreaterThan(0);
    emu.integrations.removeMember(TEAM.tube, TEAM.cy);
    const reads = await create({ "workspace-access:readCacheSeconds": "0" });
    expect(reads.filter((r) => r.path === listPath)).toEqual([]);
    expect(reads.map((r) => r.path.split("/").pop()).sort()).toEqual(expect.arrayContaining([TEAM.ada, TEAM.bob, TEAM.cy]));
  });
});

describe("a write through a handler", () => {
  it("makes the reads after it take a new list: a refresh right after an update sees what it wrote", async () => {
    const emu = await emulator({ seed: teamSeed() });
    await configureFor(emu);
    const readBoth = () => Promise.all([TEAM.ada, TEAM.bob].map((id) => users.read!(id, undefined as never)));
    const [ada] = await readBoth();
    expect(emu.requests.map((r) => r.path)).toEqual(["/users"]);
    const olds = ada!.props!;
    await users.update!(TEAM.ada, olds, { ...(ada!.inputs as object), lastName: "Renamed" });
    expect(emu.users.get(TEAM.ada)?.lastName).toBe("Renamed");
    emu.clearRequests();
    const [again] = await readBoth();
    expect(again!.props?.lastName).toBe("Renamed");
    expect(emu.requests.map((r) => r.path)).toEqual(["/users"]);
  });
});
