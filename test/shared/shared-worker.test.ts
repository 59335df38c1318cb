/**
 * The unit tier's files share their worker's process (`isolate: false`): a helper module is evaluated once per worker, by
 * the first file that imports it, so a hook it registered at its top level would run in that file alone. What a test
 * opens through the helpers (an emulator, a server, the provider's context) must still be closed after
 * it in every file, whichever file imported the helper first: `test/support/shared-worker.ts` registers their hooks per file.
 */
import * as net from "node:net";
import { describe, expect, it } from "vitest";
import { currentContext, type ProviderContext } from "../../src/host/provider-runtime";
import { emulator } from "../support/fixtures";
import { oddServer } from "../support/odd-server";
import { configureFor } from "../support/provider";

/** Whether something listens on `port` of loopback. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("what a test opens through the shared helpers is closed after it, in every file of a shared worker", () => {
  const opened: { emulatorPort?: number; oddPort?: number; context?: ProviderContext } = {};

  it("opens an emulator, a server and a provider context", async () => {
    const emu = await emulator();
    await configureFor(emu);
    opened.emulatorPort = emu.port;
    opened.context = currentContext();
    opened.oddPort = Number(new URL((await oddServer((_, res) => res.end())).url).port);
    expect(await listening(emu.port)).toBe(true);
    expect(await listening(opened.oddPort)).toBe(true);
  });

  it("finds them closed after that test, and the context forgotten", async () => {
    expect(await listening(opened.emulatorPort!)).toBe(false);
    expect(await listening(opened.oddPort!)).toBe(false);
    expect(currentContext()).not.toBe(opened.context);
  });
});
