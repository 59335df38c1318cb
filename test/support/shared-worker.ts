/**
 * Setup of the unit tier's shared workers (`isolate: false`, vitest.config.mts): a worker runs file after file in one
 * process, so what a file changed in it is undone when the file ends: its spies, stubbed environment variables and
 * globals, and fake timers. Module mocks are not undone: a file that needs them runs in a process of its own.
 *
 * A module a file imports is evaluated once per worker, by the first file that imports it, so a hook it registers at its top
 * level runs in that file alone; this file, set up again before each file, registers the helpers' hooks for every file:
 * after each test, the emulators, servers and clients it opened are closed and the provider's context is forgotten
 * (test/shared/shared-worker.test.ts); after each file, the export tests' fresh directories are removed.
 */
import { afterAll, afterEach, vi } from "vitest";
import { removeFreshDirs } from "../export/support";
import { closeOpened } from "./fixtures";
import { closeOddServers } from "./odd-server";
import { forgetContext } from "./provider";

afterEach(async () => {
  forgetContext();
  await Promise.all([closeOpened(), closeOddServers()]);
});

afterAll(() => {
  removeFreshDirs();
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});
