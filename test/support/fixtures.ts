import { inspect } from "node:util";
import { afterEach, expect } from "vitest";
import { type ClientOptions, WorkspaceAccessClient } from "../../src/client";
import { type Emulator, type EmulatorOptions, startEmulator } from "../../src/emulator";
import { VirtualClock } from "./virtual-clock";

/** Every API key handed out by the fixtures, for the leak checks. */
export const issuedKeys = new Set<string>();

const open: Array<() => Promise<void>> = [];
/** Closes the emulators and clients the test opened: after each test, here and, per file, in the unit tier's shared workers. */
export async function closeOpened(): Promise<void> {
  await Promise.all(open.splice(0).map((close) => close()));
}
afterEach(closeOpened);

const clocks = new WeakMap<Emulator, VirtualClock>();

/**
 * An emulator for this test, closed after it, on a virtual clock (its own unless `options.clock`
 * gives one) that the clients and the provider of the test share: see {@link clockOf}.
 */
export async function emulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clock = options.clock ?? new VirtualClock();
  // Empty unless the test seeds it (or names a world): the tests name every record they rely on.
  const empty = options.world === undefined ? { seed: {} } : {};
  const emu = await startEmulator({
    apiKey: `wa_test_${Math.random().toString(16).slice(2)}${"k".repeat(16)}`,
    ...empty,
    ...options,
    clock,
  });
  if (clock instanceof VirtualClock) clocks.set(emu, clock);
  issuedKeys.add(emu.apiKey);
  open.push(() => emu.close());
  return emu;
}

/** The virtual clock of an emulator of {@link emulator} (a fresh one for any other). */
export function clockOf(emu: Emulator): VirtualClock {
  return clocks.get(emu) ?? new VirtualClock();
}

/** A client of `emu` on the emulator's virtual clock with fixed jitter, closed after the test. */
export function clientFor(
  emu: Emulator,
  options: Partial<ClientOptions> & Pick<ConstructorParameters<typeof WorkspaceAccessClient>[0], "settingName" | "addressBuiltFrom"> = {},
): { client: WorkspaceAccessClient; clock: VirtualClock } {
  const clock = clockOf(emu);
  const client = new WorkspaceAccessClient({
    baseUrl: emu.url,
    apiKey: emu.apiKey,
    clock,
    random: () => 0.5,
    jobPollIntervalMs: 10,
    ...options,
  });
  open.push(() => client.close());
  return { client, clock };
}

/** Awaits a rejection and checks the key appears nowhere in the error: message, cause, inspect. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  expectNoKey(error);
  return error as Error;
}

/** Fails when any issued API key appears in `value`, however deep. */
export function expectNoKey(value: unknown): void {
  const text = `${inspect(value, { depth: 8, showHidden: true })} ${value instanceof Error ? `${value.message} ${value.stack}` : ""}`;
  for (const key of issuedKeys) expect(text).not.toContain(key);
}
