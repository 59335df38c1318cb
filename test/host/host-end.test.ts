/**
 * `settle` (src/host/host-end.ts), which every provider method awaits before it returns: it waits for the learnt rate
 * limit's write, but a cache folder that stalls costs a method SETTLE_WAIT_MS at most. The write itself, under a host the
 * engine ends with SIGINT, is test/package/host-end.test.ts's.
 */
import { afterEach, expect, it, vi } from "vitest";
import { SETTLE_WAIT_MS, settle } from "../../src/host/host-end";
import type { ProviderContext } from "../../src/host/provider-context";

afterEach(() => {
  vi.useRealTimers();
});

it("waits for the context's write, and at most SETTLE_WAIT_MS for one that stalls", async () => {
  vi.useFakeTimers();
  let written = () => {};
  const writing = { settle: () => new Promise<void>((resolve) => (written = resolve)) } as unknown as ProviderContext;
  let done = false;
  void settle(writing).then(() => (done = true));
  await vi.advanceTimersByTimeAsync(10);
  expect(done).toBe(false);
  written();
  await vi.advanceTimersByTimeAsync(0);
  expect(done).toBe(true);

  const stalled = { settle: () => new Promise<void>(() => {}) } as unknown as ProviderContext;
  done = false;
  void settle(stalled).then(() => (done = true));
  await vi.advanceTimersByTimeAsync(SETTLE_WAIT_MS - 1);
  expect(done).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(done).toBe(true);
});

it("never throws: a write that fails is the memory's to ignore, as it ignores its own failures", async () => {
  const failing = { settle: () => Promise.reject(new Error("EIO")) } as unknown as ProviderContext;
  await expect(settle(failing)).resolves.toBeUndefined();
  await expect(settle(undefined)).resolves.toBeUndefined();
});
