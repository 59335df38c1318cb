import * as http from "node:http";
import * as https from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { type ClientOptions, WorkspaceAccessClient } from "../../src/client";
import { issuedKeys } from "./fixtures";
import { VirtualClock } from "./virtual-clock";

/** A server of answers the emulator does not give (a trickled body, a redirect, a self-signed certificate); closed after the test. */
export interface OddServer {
  /** The API root on it, e.g. `http://127.0.0.1:PORT/api/v1/`. */
  url: string;
  /** What it received: `METHOD /path?query`, in order. */
  received: string[];
  /** Connections opened to it (with `tls`: handshakes begun, whether they succeeded or not). */
  connections: number;
}

const open: Array<() => unknown> = [];
/** Closes the servers and clients the test opened: after each test, here and, per file, in the unit tier's shared workers. */
export async function closeOddServers(): Promise<void> {
  await Promise.all(open.splice(0).map((close) => close()));
}
afterEach(closeOddServers);

/** Starts a `node:http` server on loopback, or `node:https` with `tls` (a key and certificate in PEM). */
export async function oddServer(handler: http.RequestListener, tls?: { key: string; cert: string }): Promise<OddServer> {
  const received: string[] = [];
  const listener: http.RequestListener = (req, res) => {
    received.push(`${req.method} ${req.url}`);
    handler(req, res);
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  const odd = { url: "", received, connections: 0 };
  server.on("connection", () => odd.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  odd.url = `${tls ? "https" : "http"}://127.0.0.1:${port}/api/v1/`;
  return odd;
}

/** A client of `server` on a virtual clock of its own with fixed jitter, closed after the test. */
export function clientOf(
  server: OddServer,
  options: Partial<ClientOptions> & Pick<ConstructorParameters<typeof WorkspaceAccessClient>[0], "settingName" | "addressBuiltFrom"> = {},
): { client: WorkspaceAccessClient; clock: VirtualClock } {
  const clock = new VirtualClock();
  const apiKey = `wa_odd_${Math.random().toString(16).slice(2)}${"k".repeat(16)}`;
  issuedKeys.add(apiKey);
  const client = new WorkspaceAccessClient({ baseUrl: server.url, apiKey, cacheDir: false, clock, random: () => 0.5, ...options });
  open.push(() => client.close());
  return { client, clock };
}
