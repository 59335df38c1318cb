/**
 * Setup of the unit tier's shared workers (`isolate: false`, vitest.config.mts): a worker runs file after file in one
 * process, so what a file changed in it is undone when the file ends: its spies, stubbed environment variables and
 * globals, and fake timers. Module mocks are not undone: a file that needs them runs in a process of its own.
 */
import { afterAll, vi } from "vitest";

afterAll(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});
