/**
 * The key in another case: the client lower-cases ids where they enter (client/ids.ts), and a gateway may fold what it echoes,
 * so a text made of the key, whole or in part, may spell it in any case. The redactor removes it so, and nothing else.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { makeEchoTest, makeRedactor, makeValueRedactor, redactError } from "../../src/client/redact";
import { ServerError } from "../../src/client";
import { RUNS_KEY, runsOf } from "../support/key-runs";

const KEY = RUNS_KEY;

describe("the key in another case", () => {
  const redact = makeRedactor(KEY);

  it.each([
    ["a run in lower case, as an id that entered", `usr_${KEY.slice(0, 20).toLowerCase()} has the email`, "usr_[redacted] has the email"],
    ["a run past the prefix in lower case", `job ${KEY.slice(12, 30).toLowerCase()} failed`, "job [redacted] failed"],
    ["a run in upper case", `ID-${KEY.slice(8, 16).toUpperCase()}.`, "ID-[redacted]."],
    ["the whole key in upper case", `x-api-key: ${KEY.toUpperCase()}; host: x`, "x-api-key: [redacted]; host: x"],
    ["the whole key in lower case", `key=${KEY.toLowerCase()}&a=1`, "key=[redacted]&a=1"],
    ["a run whose case is mixed otherwise", `id ${"hQ7zT2kX9vB4"}`, "id [redacted]"],
  ])("removes %s", (_name, text, redacted) => {
    expect(redact(text)).toBe(redacted);
    expect(runsOf(redact(text))).toEqual([]);
  });

  it("keeps what follows a run as it was, in its own case", () => {
    expect(redact(`usr-${KEY.slice(8, 20).toLowerCase()}-Team-ABC`)).toBe("usr-[redacted]-Team-ABC");
  });

  it("leaves fewer than 8 characters of it in a row alone, in any case", () => {
    const text = `ids ${KEY.slice(8, 15).toLowerCase()} and ${KEY.slice(20, 27).toUpperCase()}`;
    expect(redact(text)).toBe(text);
  });

  it("leaves ordinary ids and UUIDs in a message alone, in any case", () => {
    const uuids = Array.from({ length: 200 }, () => randomUUID());
    const text = [
      ...uuids,
      ...uuids.map((u) => u.toUpperCase()),
      "usr_8f3a2c1d9e7b",
      "job_01HQ7ZT2KQ9X",
      "i-1 (label Slack acme), GET /api/v1/users answered 200.",
      "Hq7Zt2K and wa_live",
    ].join("\n");
    expect(redact(text)).toBe(text);
  });

  it("keeps base64 to its own case: a base64 text folded is another text", () => {
    const b64 = Buffer.from(KEY, "utf8").toString("base64");
    expect(redact(`Basic ${b64}`)).toBe("Basic [redacted]");
    const folded = `Basic ${b64.toLowerCase()}`;
    expect(redact(folded)).toBe(folded);
  });
});

describe("a record's value holding the key in another case", () => {
  it.each([
    ["upper", KEY.toUpperCase()],
    ["lower", KEY.toLowerCase()],
  ])("is found in the body and redacted once parsed (%s case)", (_case, echoed) => {
    const body = JSON.stringify({ data: { attributes: { lastName: `x${echoed}` } } });
    expect(makeEchoTest(KEY)(body)).toBe(true);
    expect(makeValueRedactor(KEY)(`x${echoed}`)).toBe("x[redacted]");
  });

  it("leaves a run of it, in any case, as the data it is", () => {
    const value = KEY.slice(0, 12).toLowerCase();
    expect(makeEchoTest(KEY)(JSON.stringify({ firstName: value }))).toBe(false);
    expect(makeValueRedactor(KEY)(value)).toBe(value);
  });
});

describe("redactError", () => {
  it("an error whose fields cannot be replaced (frozen) is returned as a copy of its class without the key, its cause too", () => {
    const redact = makeRedactor(KEY);
    const cause = Object.freeze(new Error(`echoed ${KEY}`));
    const error = Object.freeze(new ServerError(`failed: ${KEY}`, { method: "GET", path: "/users", status: 502 }));
    const outer = new Error("outer", { cause });
    const shown = redactError(error, redact);
    expect(ServerError.isInstance(shown)).toBe(true);
    expect(shown.message).toBe("failed: [redacted]");
    expect(`${shown.stack} ${shown.message}`).not.toContain(KEY);
    // An extensible error is redacted in place; its frozen cause is replaced by a copy.
    expect(redactError(outer, redact)).toBe(outer);
    expect((outer.cause as Error).message).toBe("echoed [redacted]");
    // One with nothing to redact stays itself, frozen or not.
    const clean = Object.freeze(new Error("nothing here"));
    expect(redactError(clean, redact)).toBe(clean);
  });
});
