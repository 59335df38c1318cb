import { afterEach } from "vitest";
import type { Emulator } from "../../src/emulator";
import { type ContextOptions, ProviderContext, useContext } from "../../src/host/provider-runtime";
import { clockOf } from "./fixtures";
import type { VirtualClock } from "./virtual-clock";

/**
 * Each test builds its own context (its takeovers, catalogues and client go with it): forgotten after each test, here and,
 * per file, in the unit tier's shared workers.
 */
export function forgetContext(): void {
  useContext(undefined);
}
afterEach(forgetContext);

/**
 * Builds the provider's context as the host's `configure` would (fully-qualified stack config
 * keys), on the emulator's virtual clock: job polls, back-offs and timeouts take no real time.
 * Installs it as the process's context and returns the clock. `options` adds to the context (a warning sink).
 */
export async function configureFor(
  emu: Emulator,
  extra: Record<string, string> = {},
  options: Omit<ContextOptions, "clock"> = {},
): Promise<VirtualClock> {
  const clock = clockOf(emu);
  const config: Record<string, string> = {
    "workspace-access:baseUrl": emu.url,
    "workspace-access:apiKey": emu.apiKey,
    ...extra,
  };
  useContext(
    new ProviderContext({ get: (key: string) => config[key], require: (key: string) => config[key] ?? "" }, { ...options, clock }),
  );
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
