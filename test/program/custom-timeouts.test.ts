/**
 * The `customTimeouts` option as the classes register it: the engine hands a dynamic provider no operation timeout, so each class
 * passes `create`, `update`, `delete` and `read` to its provider in the hidden input `__customTimeouts` (the host bounds the operation's
 * job waits by it), and refuses a value that is not a duration where the resource is declared.
 */
import { randomUUID } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { IntegrationEntitlement } from "../../src/program/integration-entitlement";
import { IntegrationMembers } from "../../src/program/integration-members";
import { User } from "../../src/program/user";
import { WorkspaceUsers } from "../../src/program/workspace-users";
import { durationMs } from "../../src/shared/custom-timeouts";
import { recordedInputs } from "../support/recorded-inputs";

/** An integration of its own for each membership resource: two on one integration fail the program (owners.ts). */
const integrationId = () => randomUUID();
const ann = { email: "ann@example.com", firstName: "Ann", lastName: "Lee" };

/** One resource of each class, declared with `opts`, named `<prefix>-<class>`. */
function declareAll(prefix: string, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource[] {
  return [
    new User(`${prefix}-user`, { ...ann, email: `${prefix}@example.com` }, opts),
    new IntegrationEntitlement(
      `${prefix}-entitlement`,
      { integrationId: integrationId(), userId: `${prefix}-id`, entitlements: ["VIEWER"] },
      opts,
    ),
    new IntegrationMembers(
      `${prefix}-members`,
      { integrationId: integrationId(), members: [{ userId: `${prefix}-m`, entitlements: ["VIEWER"] }] },
      opts,
    ),
    new WorkspaceUsers(`${prefix}-set`, { users: [{ ...ann, email: `${prefix}.set@example.com` }] }, opts),
  ];
}

const CLASSES = ["user", "entitlement", "members", "set"];
const registered = (resources: pulumi.CustomResource[]) => Promise.all(resources.map((r) => new Promise((resolve) => r.id.apply(resolve))));

describe("customTimeouts on each class", () => {
  it("registers create, update, delete and read as the hidden __customTimeouts (empty ones left out), none without the option", async () => {
    const inputs = await recordedInputs();
    await registered([
      ...declareAll("timed", { customTimeouts: { create: "90s", update: "1h30m", delete: "5m", read: "1m" } }),
      ...declareAll("partly", { customTimeouts: { create: "2m", update: "" } }),
      ...declareAll("plain"),
      ...declareAll("empty", { customTimeouts: {} }),
    ]);
    for (const kind of CLASSES) {
      expect(inputs.get(`timed-${kind}`)?.__customTimeouts, kind).toEqual({ create: "90s", update: "1h30m", delete: "5m", read: "1m" });
      expect(inputs.get(`partly-${kind}`)?.__customTimeouts, kind).toEqual({ create: "2m" });
      expect(inputs.get(`plain-${kind}`), kind).not.toHaveProperty("__customTimeouts");
      expect(inputs.get(`empty-${kind}`), kind).not.toHaveProperty("__customTimeouts");
    }
  });

  it.each([
    ["create", { create: "5 minutes" }, 'customTimeouts.create "5 minutes" is not a duration'],
    ["update", { update: "10" }, 'customTimeouts.update "10" is not a duration'],
    ["delete", { delete: "-5m" }, 'customTimeouts.delete "-5m" is negative'],
  ])("refuses a %s timeout that is not a duration, naming the resource, the option and the format", async (operation, timeouts, said) => {
    await recordedInputs();
    for (const [i, make] of [
      () => new User("bad", { ...ann, email: `${operation}@example.com` }, { customTimeouts: timeouts }),
      () =>
        new IntegrationEntitlement(
          "bad",
          { integrationId: integrationId(), userId: "u", entitlements: ["VIEWER"] },
          { customTimeouts: timeouts },
        ),
      () => new IntegrationMembers("bad", { integrationId: integrationId(), members: [] }, { customTimeouts: timeouts }),
      () => new WorkspaceUsers("bad", { users: [{ ...ann, email: `${operation}.set@example.com` }] }, { customTimeouts: timeouts }),
    ].entries()) {
      const label = ["User", "IntegrationEntitlement", "IntegrationMembers", "WorkspaceUsers"][i];
      expect(make).toThrow(
        `${label} "bad": ${said}: write a number and a unit, as Pulumi reads a duration, such as "30s", "5m" or "1h30m"`,
      );
    }
  });
});

describe("durations as Pulumi reads them (Go's time.ParseDuration)", () => {
  it.each([
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5h", 5_400_000],
    ["300ms", 300],
    ["2h45m30.5s", 9_930_500],
    ["0", 0],
    ["+1m", 60_000],
    ["1m30s500ms", 90_500],
  ])("%s is %d ms", (text, ms) => {
    expect(durationMs(text)).toBeCloseTo(ms, 6);
  });

  it.each(["", "5", "5 m", "m", "1d", "5M", "1h 30m", ".s", "1e3s"])("%j is not a duration", (text) => {
    expect(durationMs(text)).toBeUndefined();
  });
});
