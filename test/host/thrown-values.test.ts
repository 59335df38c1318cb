/**
 * Whatever a handler throws reaches the engine without the key (any run of 8 of its characters): an `Error` of the package's,
 * and too a string or a plain object a library may throw, which the SDK's host prints (`${error}`) or sends (`error.message`);
 * and as itself: an error whose fields cannot be redefined (zod's) is not turned into a `TypeError` of the redaction.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configure, providerOf } from "../../src/host/provider-runtime";
import "../support/provider";

const KEY = "wa_key_ABCDEFGHIJKLMNOP";
const stack = (values: Record<string, string>) => ({ rawConfig: values, get: (key: string) => values[key], require: () => "" });
const RUN = KEY.slice(5, 13).toLowerCase();

/** What a handler's throw becomes at each method the host calls: what the provider object rejects with. */
async function thrownAt(thrown: () => unknown): Promise<Array<[string, unknown]>> {
  await configure({ config: stack({ "workspace-access:baseUrl": "https://acme.example.com/api/v1/", "workspace-access:apiKey": KEY }) });
  const fail = async (): Promise<never> => {
    throw thrown();
  };
  const provider = providerOf<{ n: number }, { n: number }>({
    type: "Test",
    check: fail,
    diff: fail,
    create: fail,
    read: fail,
    update: fail,
    delete: fail,
  });
  const calls: Array<[string, () => Promise<unknown>]> = [
    ["check", () => provider.check!({ n: 1 }, { n: 1 })],
    ["diff", () => provider.diff!("x", { n: 1 }, { n: 1 })],
    ["create", () => provider.create({ n: 1 })],
    ["read", () => provider.read!("x", { n: 1 })],
    ["update", () => provider.update!("x", { n: 1 }, { n: 1 })],
    ["delete", () => provider.delete!("x", { n: 1 })],
  ];
  const results: Array<[string, unknown]> = [];
  for (const [name, call] of calls)
    results.push([
      name,
      await call().then(
        () => "resolved",
        (error: unknown) => error,
      ),
    ]);
  return results;
}

/** What the host may show of a rejection: `${error}`, its message, and everything inspect finds. */
const shownOf = (error: unknown) =>
  `${String(error)} ${(error as { message?: unknown } | null)?.message} ${inspect(error, { depth: 8, showHidden: true })}`.toLowerCase();

describe("what a handler throws, whatever it is, reaches the engine without the key", () => {
  it.each([
    ["a string", () => `the gateway said: ${KEY}`],
    ["a plain object with a message", () => ({ message: `the gateway said: ${KEY}`, detail: { echoed: KEY.toLowerCase() } })],
    ["a frozen object with a message", () => Object.freeze({ message: `the gateway said: ${KEY}`, detail: { echoed: KEY.toLowerCase() } })],
    ["a frozen error", () => Object.freeze(new Error(`the gateway said: ${KEY}`))],
  ])("%s", async (_, thrown) => {
    for (const [method, error] of await thrownAt(thrown)) {
      expect([method, shownOf(error).includes(RUN)]).toEqual([method, false]);
      expect([method, shownOf(error)]).toEqual([method, expect.stringContaining("the gateway said: [redacted]")]);
    }
  });

  it.each([
    ["a frozen error", () => Object.freeze(new Error(`the gateway said: ${KEY}`))],
    ["a frozen plain object", () => Object.freeze({ message: `the gateway said: ${KEY}` })],
    [
      "an error whose message cannot be redefined nor written",
      () => Object.defineProperty(new Error("x"), "message", { value: `the gateway said: ${KEY}`, writable: false, configurable: false }),
    ],
  ])("%s, whose key cannot be redacted in place: its message without the key", async (_, thrown) => {
    for (const [method, error] of await thrownAt(thrown)) {
      expect([method, shownOf(error).includes(RUN)]).toEqual([method, false]);
      expect([method, (error as Error).message]).toEqual([method, "the gateway said: [redacted]"]);
    }
  });

  it("an error whose fields cannot be redefined (a ZodError) reaches the engine as itself, not as the redaction's TypeError", async () => {
    for (const [method, error] of await thrownAt(() => z.object({ n: z.string() }).parse({ n: 1 }))) {
      expect([method, error]).toEqual([method, expect.any(z.ZodError)]);
      expect([method, (error as Error).message]).toEqual([method, expect.stringContaining("expected string")]);
    }
  });
});
