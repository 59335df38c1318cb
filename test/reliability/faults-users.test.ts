/**
 * Faults on user writes, each driven through the real `pulumi` CLI against the emulator
 * (issue 6, "Faults"). Every scenario also greps everything the CLI showed and stored for the API key.
 */
import { describe, expect, it } from "vitest";
import { type Scenario, scenarios, stepOf, userProgram } from "./support";
import { cliAvailable, skipNote } from "../cli/support.ts";

const start = scenarios();

const alice = { email: "alice@example.com", firstName: "Alice", lastName: "Doe" };
const usersWith = (s: Scenario, email: string) => s.emu.users.list().filter((u) => u.email.toLowerCase() === email);

describe.skipIf(!cliAvailable)(`through the real pulumi CLI${skipNote}`, () => {
  describe("429 on a user create, through the host", () => {
    it("Retry-After: 2 → waits about 2 s, succeeds, exactly one user", async () => {
      const s = await start({ program: userProgram({ alice }) });
      s.emu.fault({ method: "POST", path: "/users", status: 429, headers: { "Retry-After": "2" } });
      const up = await s.up();
      expect(stepOf(up, "alice").op).toBe("create");
      const posts = s.emu.requests.filter((r) => r.method === "POST" && r.path === "/users");
      expect(posts.map((r) => r.status)).toEqual([429, 201]);
      const waited = posts[1]!.at - posts[0]!.at;
      expect(waited).toBeGreaterThanOrEqual(1_950);
      expect(waited).toBeLessThan(6_000);
      expect(usersWith(s, "alice@example.com")).toHaveLength(1);
    });

    it("no Retry-After and a low cap → fails fast naming the cap setting and the five-minute rule", async () => {
      const s = await start({ program: userProgram({ alice }), config: { maxRateLimitWaitSeconds: "10" } });
      s.emu.fault({ method: "POST", path: "/users", status: 429, times: 5 });
      const error = await s.fails("up");
      // Without waiting out the 10 s cap: counted from the 429 (the CLI's own start is not the provider's).
      const posted = s.emu.requests.find((r) => r.method === "POST")!.at;
      expect(Date.now() - posted).toBeLessThan(10_000);
      expect(error.message).toContain("workspace-access:maxRateLimitWaitSeconds");
      expect(error.message).toContain("five minutes");
      expect(error.message).toContain("300 s");
      expect(s.emu.requests.filter((r) => r.method === "POST")).toHaveLength(1);
      expect(usersWith(s, "alice@example.com")).toHaveLength(0);
      expect(s.stack.state().resources.filter((r) => r.custom)).toHaveLength(0);
    });
  });

  describe("an ambiguous POST /users never duplicates a user", () => {
    it("reset after the write, reset before it, and a timeout: each user exists exactly once", async () => {
      const users = {
        reset_after: { email: "after@example.com" },
        reset_before: { email: "before@example.com" },
        timed_out: { email: "slow@example.com" },
      };
      const s = await start({ program: userProgram(users), config: { requestTimeoutSeconds: "1" } });
      // Queued in order: the first POST is carried out but its answer is lost, the second is lost
      // before it is carried out, the third gets no answer within the request timeout.
      s.emu.fault({ method: "POST", path: "/users", reset: true, afterHandling: true });
      s.emu.fault({ method: "POST", path: "/users", reset: true });
      s.emu.fault({ method: "POST", path: "/users", delayMs: 2_500 });
      const up = await s.up();
      for (const name of Object.keys(users)) expect(stepOf(up, name).op).toBe("create");
      for (const { email } of Object.values(users)) expect(usersWith(s, email)).toHaveLength(1);
      expect(s.emu.users.list()).toHaveLength(3);
      // Every ambiguous failure was followed by a lookup by email before anything was sent again.
      const lookups = s.emu.requests.filter((r) => r.method === "GET" && r.path === "/users" && r.query.filter);
      expect(lookups.length).toBeGreaterThanOrEqual(3);
      const ids = s.stack
        .state()
        .resources.filter((r) => r.custom)
        .map((r) => r.id)
        .sort();
      expect(ids).toEqual(
        s.emu.users
          .list()
          .map((u) => u.id)
          .sort(),
      );
    });

    it("resets on every attempt → a clear error saying the POST may or may not have happened, no user", async () => {
      const s = await start({ program: userProgram({ alice }), config: { maxRetries: "1" } });
      s.emu.fault({ method: "POST", path: "/users", reset: true, times: 10 });
      const error = await s.fails("up");
      expect(error.message).toMatch(/POST \/api\/v1\/users failed before an answer arrived/);
      expect(error.message).toContain("may or may not have been carried out");
      expect(s.emu.requests.filter((r) => r.method === "POST")).toHaveLength(2);
      expect(s.emu.users.list()).toHaveLength(0);
    });
  });

  describe("409 on create", () => {
    it("email taken and adoptExisting false → a clear error suggesting adoptExisting, nothing changed", async () => {
      const s = await start({
        program: userProgram({ alice }),
        emulator: { seed: { users: [{ email: "Alice@Example.com", firstName: "Old", lastName: "Name" }] } },
      });
      const error = await s.fails("up");
      expect(error.message).toContain("409");
      expect(error.message).toContain("adoptExisting: true");
      const [only, ...more] = s.emu.users.list();
      expect(more).toHaveLength(0);
      expect(only).toMatchObject({ firstName: "Old", lastName: "Name" });
      expect(s.emu.requests.filter((r) => r.method === "PUT")).toHaveLength(0);
    });
  });

  describe("malformed or schema-breaking bodies", () => {
    it("a create answered with a non-JSON body fails naming the endpoint", async () => {
      const s = await start({ program: userProgram({ alice }) });
      s.emu.fault({ method: "POST", path: "/users", status: 201, body: "<html>gateway says hi</html>" });
      const error = await s.fails("up");
      expect(error.message).toContain("POST /api/v1/users answered 201 with a body that is not JSON");
    });

    it("a read answered with a schema-breaking body keeps the state, warning naming endpoint and field; the host keeps serving", async () => {
      // One step at a time (`pulumi refresh --parallel 1`): reads that arrive together share one
      // user list (the read cache), and the fault here is on the direct read of one user.
      const s = await start({ program: userProgram({ alice, bob: { email: "bob@example.com" } }), parallel: 1 });
      await s.up();
      const aliceId = s.emu.users.findByEmail("alice@example.com")!.id;
      s.emu.fault({
        method: "GET",
        path: `/users/${aliceId}`,
        body: JSON.stringify({ data: { id: aliceId, type: "user", attributes: { email: 42 } }, links: { self: "x" }, meta: {} }),
      });
      // A user still, whose attributes are unknown: kept as the state recorded them, neither dropped nor changed.
      const refresh = await s.refresh();
      const warning = refresh.diagnostics.find((l) => l.includes("warning: ") && l.includes(aliceId));
      expect(warning).toContain(`GET /api/v1/users/${aliceId} answered 200`);
      expect(warning).toMatch(/field "data\.attributes\.[a-zA-Z]+"/);
      expect(warning).toContain("keeps what the state recorded");
      // The same host process answered the next read.
      expect(refresh.steps.filter((st) => st.op !== "same")).toHaveLength(0);
      expect(refresh.output).not.toMatch(/unhandled|uncaught/i);
      // Nothing was lost: the next refresh is clean.
      const again = await s.refresh();
      expect(again.steps.filter((st) => st.op !== "same")).toHaveLength(0);
    });
  });

  describe("out-of-band deletion and 404 on delete", () => {
    it("refresh drops a user deleted out of band; up recreates it; a user gone at destroy counts as done", async () => {
      const s = await start({ program: userProgram({ alice }) });
      await s.up();
      const first = s.emu.users.findByEmail("alice@example.com")!;
      s.emu.users.remove(first.id);
      const refresh = await s.refresh();
      expect(stepOf(refresh, "alice").op).toBe("delete");
      expect(s.stack.state().resources.filter((r) => r.custom)).toHaveLength(0);
      const up = await s.up();
      expect(stepOf(up, "alice").op).toBe("create");
      const second = s.emu.users.findByEmail("alice@example.com")!;
      expect(second.id).not.toBe(first.id);
      expect(s.stack.state().resources.find((r) => r.name === "alice")?.id).toBe(second.id);

      // Gone again behind the stack's back: the delete's read of the user (its role now) gets a 404, which is done.
      s.emu.users.remove(second.id);
      s.emu.clearRequests();
      const destroy = await s.destroy();
      expect(stepOf(destroy, "alice").op).toBe("delete");
      expect(s.emu.requests.filter((r) => r.path === `/users/${second.id}`).map((r) => `${r.method} ${r.status}`)).toEqual(["GET 404"]);
      expect(s.stack.state().resources).toHaveLength(0);
    });
  });
});
