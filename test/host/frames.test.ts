/**
 * How deep an `IntegrationEntitlement` create is when its invitation leaves the package (issue 29:
 * at most 9 of the package's own frames, from the provider's `create` to the socket; 6 of them from the
 * batcher's `submit` down). The stack is
 * captured where undici creates the request (its `undici:request:create` diagnostics channel, on
 * the same synchronous stack as the package's call), over real HTTP to the emulator, and its async
 * part is V8's: the functions awaiting one another. The trace must reach `create`: a batcher that
 * sent from a detached callback would hide the frames above it, and fail here instead of passing.
 */
import diagnostics from "node:diagnostics_channel";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider } from "../../src/host/entitlement/integration-entitlement-provider";
import { emulator } from "../support/fixtures";
import { configureFor } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
/** Where the package's sources are: a frame of the package is one in this folder. */
const SRC = `${join(__dirname, "..", "..", "src")}/`;

let limit: number;
beforeEach(() => {
  limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Number.POSITIVE_INFINITY;
});
afterEach(() => {
  Error.stackTraceLimit = limit;
});

/** The package's frames of `stack`, innermost first, as `function (file)`. */
function ownFrames(stack: string): string[] {
  return stack
    .split("\n")
    .filter((line) => line.includes(SRC))
    .map((line) =>
      line
        .trim()
        .replace(/^at (async )?/, "")
        .replace(SRC, "")
        .replace(/:\d+:\d+\)?$/, ")"),
    );
}

it("an IntegrationEntitlement create reaches the socket in at most 9 of the package's frames, from create to the transport", async () => {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  await configureFor(emu, { "workspace-access:jobTimeoutSeconds": "5" });
  const stacks: string[] = [];
  const capture = (message: unknown) => {
    const { request } = message as { request: { method: string; path: string } };
    if (request.method === "POST" && /\/integrations\/[^/]+\/users$/.test(request.path)) stacks.push(new Error().stack ?? "");
  };
  diagnostics.subscribe("undici:request:create", capture);
  try {
    await provider.create!({ integrationId: youtube, userId: alan, entitlements: ["EDITOR", "VIEWER"], role: "account_collaborator" });
  } finally {
    diagnostics.unsubscribe("undici:request:create", capture);
  }
  // One invitation sent, as the server saw it.
  expect(emu.requests.filter((r) => r.method === "POST" && r.path === `/integrations/${youtube}/users`)).toHaveLength(1);
  expect(stacks).toHaveLength(1);
  const frames = ownFrames(stacks[0]!);
  // The whole way: from the provider's create handler (and what wraps it) to the transport's send.
  const trace = frames.join("\n");
  expect(trace).toMatch(/host\/entitlement\/integration-entitlement-provider\.ts\)/);
  expect(trace).toMatch(/submit \(host\/membership\/invite-batcher\.ts\)/);
  expect(frames[0], trace).toMatch(/send \(client\/transport\.ts\)/);
  expect(frames.length, trace).toBeLessThanOrEqual(9);
  // The batcher's part: submit, the batch, the client's invite, the transport, the exchange.
  const fromSubmit = frames.findIndex((f) => f.startsWith("InviteBatcher.submit"));
  expect(fromSubmit + 1, trace).toBeLessThanOrEqual(6);
});
