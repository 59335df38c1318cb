/**
 * `retainOnDelete: true`, which the classes pass as the hidden input `__retainOnDelete`: the engine skips a retained resource's
 * delete on a replacement as on a destroy, so a replacement of a membership by itself (a role change) is refused by its diff,
 * and a create that finds its record there says the option left it and how to take it back. The hidden input alone causes no
 * diff, and no handler, nor the state, sees it. Over real HTTP to the emulator.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_IDS, defaultSeed } from "../../src/emulator";
import { provider as entitlement } from "../../src/host/entitlement/integration-entitlement-provider";
import { provider as user } from "../../src/host/user/user-provider";
import { UNKNOWN } from "../../src/shared/unknown";
import { emulator, rejection } from "../support/fixtures";
import { configureFor, wire } from "../support/provider";

const { youtube } = DEFAULT_IDS.integrations;
const { alan } = DEFAULT_IDS.users;
const RETAIN = "__retainOnDelete";
const REPLACE = "__replaceOnChanges";
const fast = { "workspace-access:jobTimeoutSeconds": "5" };
const declared = { integrationId: youtube, userId: alan, entitlements: ["VIEWER"], role: "account_collaborator" };

/** A membership the stack invited (retained), then a new deployment: the state's outputs and the check of the program's `news`. */
async function invited(news: Record<string, unknown>) {
  const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
  await configureFor(emu, fast);
  const first = wire(await entitlement.check!({}, { ...declared, [RETAIN]: true }));
  expect(first.inputs).toMatchObject({ [RETAIN]: true });
  const created = wire(await entitlement.create(first.inputs!));
  expect(RETAIN in created.outs!).toBe(false);
  await configureFor(emu, fast);
  const next = wire(await entitlement.check!(first.inputs!, news));
  emu.clearRequests();
  return { emu, id: created.id, outs: created.outs!, news: next.inputs! };
}

describe("IntegrationEntitlement declared with retainOnDelete", () => {
  it("refuses a declared role change (a replacement removing the member first) at the diff, naming the option and the way out", async () => {
    const { emu, id, outs, news } = await invited({ ...declared, role: "account_owner", [RETAIN]: true });
    const error = await rejection(entitlement.diff!(id, outs, news));
    expect(error.message).toContain(`cannot change from account_collaborator to account_owner in place`);
    expect(error.message).toContain("declared with retainOnDelete: true");
    expect(error.message).toContain("remove retainOnDelete from the resource and run pulumi up (nothing is sent)");
    expect(error.message).toContain(`keep role: "account_collaborator"`);
    expect(emu.requests).toEqual([]);
  });

  it("plans the replacement once the program no longer retains it", async () => {
    const { id, outs, news } = await invited({ ...declared, role: "account_owner" });
    expect(wire(await entitlement.diff!(id, outs, news))).toMatchObject({ changes: true, replaces: ["role"], deleteBeforeReplace: true });
  });

  it("refuses a replacement replaceOnChanges asks for a change of the set, naming that option", async () => {
    const { id, outs, news } = await invited({ ...declared, entitlements: ["EDITOR"], [RETAIN]: true, [REPLACE]: ["entitlements"] });
    const error = await rejection(entitlement.diff!(id, outs, news));
    expect(error.message).toContain("replaceOnChanges: the change of entitlements replaces the membership");
    expect(error.message).toContain("remove replaceOnChanges");
  });

  it("does not refuse a role not known yet (a preview), nor a change made in place (the set)", async () => {
    const unknown = await invited({ ...declared, role: UNKNOWN, [RETAIN]: true });
    expect(wire(await entitlement.diff!(unknown.id, unknown.outs, unknown.news))).toMatchObject({ replaces: ["role"] });
    const set = await invited({ ...declared, entitlements: ["EDITOR"], [RETAIN]: true });
    expect(wire(await entitlement.diff!(set.id, set.outs, set.news))).toMatchObject({ changes: true, replaces: [] });
  });

  it("a state written before the hidden input, or without it, shows no diff when the program adds or drops it", async () => {
    const added = await invited({ ...declared, [RETAIN]: true });
    expect(wire(await entitlement.diff!(added.id, added.outs, added.news))).toMatchObject({ changes: false, replaces: [] });
    const dropped = await invited({ ...declared });
    expect(wire(await entitlement.diff!(dropped.id, dropped.outs, dropped.news))).toMatchObject({ changes: false, replaces: [] });
    expect(RETAIN in dropped.news).toBe(false);
  });

  it("a create finding the member there says a replaced resource's skipped delete may have left them, and to set adoptExisting", async () => {
    const { emu, news } = await invited({ ...declared, [RETAIN]: true });
    // A forced replacement: the engine skipped the retained resource's delete, then creates.
    const error = await rejection(entitlement.create(news));
    expect(error.message).toContain("is already a member of integration");
    expect(error.message).toContain("This IntegrationEntitlement is declared with retainOnDelete: true");
    expect(error.message).toContain("set adoptExisting: true on this resource and run pulumi up");
    expect(emu.requests.filter((r) => r.method !== "GET")).toEqual([]);
    // Without the option the message is as before.
    const plain = await rejection(entitlement.create({ ...news, [RETAIN]: undefined }));
    expect(plain.message).not.toContain("retainOnDelete");
  });
});

describe("User declared with retainOnDelete", () => {
  it("a create whose email is taken (409) says a replaced resource's skipped delete may have left the user, and to set adoptExisting", async () => {
    const emu = await emulator({ seed: defaultSeed(), job: { finishAfterPolls: 1 } });
    await configureFor(emu, fast);
    const news = { email: "alan@example.com", firstName: "Alan", lastName: "Turing", [RETAIN]: true };
    const checked = wire(await user.check!({}, news));
    const error = await rejection(user.create(checked.inputs!));
    expect(error.message).toContain("This User is declared with retainOnDelete: true");
    expect(error.message).toContain("set adoptExisting: true on this resource and run pulumi up");
    const plain = await rejection(user.create(wire(await user.check!({}, { ...news, [RETAIN]: undefined })).inputs!));
    expect(plain.message).not.toContain("retainOnDelete");
  });
});
