import { describe, expect, it } from "vitest";
import {
  ApiError,
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitError,
  ServerError,
  UnauthorizedError,
  UnknownFailureError,
  WorkspaceAccessError,
} from "../../src/client";
import { clientFor, emulator, issuedKeys, rejection } from "../support/fixtures";

describe("error statuses", () => {
  it.each([
    [400, BadRequestError, "bad_request", /rejected the request/],
    [401, UnauthorizedError, "unauthorized", /expired or revoked, or lack the scope this operation needs: Read users \(read:users\)/],
    [402, UnknownFailureError, "unknown_failure", /unknown failure/],
    [403, ForbiddenError, "forbidden", /needs the scope Read users \(read:users\)/],
    [404, NotFoundError, "not_found", /Not found, or not disclosed/],
    [409, ConflictError, "conflict", /conflicts with the current state/],
    [429, RateLimitError, "rate_limited", /maxRateLimitWaitSeconds/],
    [500, ServerError, "server_error", /The service failed/],
    [503, ServerError, "server_error", /The service failed/],
  ] as const)("%i becomes %o with a message that says what to do", async (status, Class, kind, hint) => {
    const emu = await emulator();
    const added = emu.users.add({ email: "a@example.com", firstName: "A", lastName: "B" });
    emu.fault({ method: "GET", path: `/users/${added.id}`, status, times: 10 });
    const { client } = clientFor(emu, { maxRetries: 0, maxRateLimitWaitSeconds: 0 });
    const error = await rejection(client.users.get(added.id));
    expect(Class.isInstance(error)).toBe(true);
    expect(ApiError.isInstance(error)).toBe(true);
    expect(WorkspaceAccessError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind, status, method: "GET", path: `/api/v1/users/${added.id}` });
    expect(error.message).toMatch(hint);
    expect(error.message).toContain(`GET /api/v1/users/${added.id} answered ${status}`);
  });

  it("carries the API's own code, title, detail and request id", async () => {
    const emu = await emulator();
    const { client } = clientFor(emu);
    const error = await rejection(client.users.get("00000000-0000-4000-8000-000000000000"));
    expect(error).toMatchObject({ status: 404, code: expect.any(String), title: expect.any(String) });
    expect((error as NotFoundError).requestId).toBe(emu.requests[0]?.requestId);
  });

  it("names the missing scope when the emulator answers 403 for a key without it", async () => {
    const emu = await emulator({ keys: { wa_readonly_key_0123456789abcdef: ["read:users"] } });
    issuedKeys.add("wa_readonly_key_0123456789abcdef"); // the key sent: the leak check must look for it
    const { client } = clientFor(emu, { apiKey: "wa_readonly_key_0123456789abcdef" });
    const error = await rejection(
      client.users.create({ email: "x@example.com", firstName: "X", lastName: "Y", role: "workspace_login_only" }),
    );
    expect(ForbiddenError.isInstance(error)).toBe(true);
    expect(error.message).toContain("Write users (write:users)");
  });

  it("does not leak the key even when the service echoes it in an error detail", async () => {
    const emu = await emulator();
    emu.fault({
      path: "/users",
      status: 400,
      body: JSON.stringify({ errors: [{ code: "bad", title: "Bad", detail: `key ${emu.apiKey} is odd`, status: 400 }] }),
    });
    const { client } = clientFor(emu);
    const error = await rejection(
      client.users.create({ email: "x@example.com", firstName: "X", lastName: "Y", role: "workspace_login_only" }),
    );
    expect(error.message).toContain("[redacted]");
  });
});

describe("the API's error meta", () => {
  it("is redacted too when it echoes the key (validation details naming the header)", async () => {
    const emu = await emulator();
    emu.fault({
      path: "/users",
      status: 400,
      body: JSON.stringify({
        errors: [
          {
            code: "bad",
            title: "Bad",
            detail: "invalid",
            status: 400,
            meta: [{ loc: ["header", "x-api-key"], msg: "odd", input: emu.apiKey }],
          },
        ],
      }),
    });
    const { client } = clientFor(emu);
    const error = await rejection(client.users.list().next());
    expect(JSON.stringify((error as BadRequestError).meta)).toContain("[redacted]");
  });
});
