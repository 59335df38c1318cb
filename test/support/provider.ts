import { afterEach } from "vitest";
import type { Emulator } from "../../src/emulator";
import { resetClaims } from "../../src/resources/claims";
import { configure, resetRuntime, useClock } from "../../src/resources/provider-runtime";
import { clockOf } from "./fixtures";
import type { VirtualClock } from "./virtual-clock";

afterEach(() => {
  resetRuntime();
  resetClaims();
});

/**
 * Configures the provider runtime as the host would (fully-qualified stack config keys), on the
 * emulator's virtual clock: job polls, back-offs and timeouts take no real time. Returns the clock.
 */
export async function configureFor(emu: Emulator, extra: Record<string, string> = {}): Promise<VirtualClock> {
  const clock = clockOf(emu);
  useClock(clock);
  const config: Record<string, string> = {
    "workspace-access:baseUrl": emu.url,
    "workspace-access:apiKey": emu.apiKey,
    ...extra,
  };
  await configure({ config: { get: (key: string) => config[key], require: (key: string) => config[key] ?? "" } });
  return clock;
}

/** The JSON a provider result becomes on the wire: fails on `undefined` anywhere, as the host does. */
export function wire<T>(value: T): T {
  const walk = (v: unknown, path: string): void => {
    if (v === undefined) throw new Error(`undefined at ${path}: the host crashes on it`);
    if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
  };
  walk(value, "result");
  return value;
}
