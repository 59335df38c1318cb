import { describe, expect, it } from "vitest";
import { type Clock, systemClock, timerOf } from "../../src/client/clock";
import { undiciParts } from "../../src/client/transport";
import { emulator } from "../support/fixtures";

/** A request with `parts` to the emulator's `GET /users`: the status it answered and what the emulator received. */
async function listUsers(parts: ReturnType<typeof undiciParts>) {
  const emu = await emulator();
  const pool = new parts.Pool(new URL(emu.url).origin, { connections: 1 });
  try {
    const path = `${new URL(emu.url).pathname.replace(/\/$/, "")}/users`;
    const res = await parts.request.call(pool, { method: "GET", path, headers: { "x-api-key": emu.apiKey, accept: "application/json" } });
    await res.body.text();
    return { status: res.statusCode, received: emu.requests.map((r) => `${r.method} ${r.path} ${r.hasApiKey}`) };
  } finally {
    await pool.close();
  }
}

describe("undici's parts", () => {
  it("come from the modules that hold them, not undici's index (a provider host loads them in a quarter of the time)", async () => {
    const loaded: string[] = [];
    const parts = undiciParts((id) => {
      loaded.push(id);
      return require(id);
    });
    expect(loaded).not.toContain("undici");
    // The same classes the index exports: an error from either is recognised.
    expect(parts.errors.HeadersTimeoutError).toBe(require("undici").errors.HeadersTimeoutError);
    expect(await listUsers(parts)).toEqual({ status: 200, received: ["GET /users true"] });
  });

  it("come from undici's index when a release moved those modules", async () => {
    const parts = undiciParts((id) => {
      if (id !== "undici") throw Object.assign(new Error(`Cannot find module '${id}'`), { code: "MODULE_NOT_FOUND" });
      return require(id);
    });
    expect(parts.Pool).toBe(require("undici").Pool);
    expect(await listUsers(parts)).toEqual({ status: 200, received: ["GET /users true"] });
  });
});

describe("the timer bounding each exchange (requestTimeoutSeconds)", () => {
  it("is setTimeout's on the system clock, as on a clock without one: it fires after its time, and not once cancelled", async () => {
    const bare: Clock = { now: () => Date.now(), sleep: async () => {} };
    for (const timer of [timerOf(systemClock), timerOf(bare)]) {
      const fired: string[] = [];
      timer(1, () => fired.push("cancelled"))();
      await new Promise<void>((resolve) =>
        timer(5, () => {
          fired.push("fired");
          resolve();
        }),
      );
      expect(fired).toEqual(["fired"]);
    }
  });
});
