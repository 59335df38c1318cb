/**
 * One identity for an id, through the real `pulumi` CLI (issue 28, cases 1 to 3): a program that
 * names one membership or one integration twice, with the id in two cases, fails before anything
 * is registered or written, exactly as it does with one case; a member listed twice in two cases
 * fails at Check, naming `members[1].userId`, with no request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import type { Project } from "../support/project.ts";
import { packedProject } from "../support/packed.ts";
import { SETUP_TIMEOUT_MS, startTestEmulator } from "./scenario.ts";
import { cliAvailable, dynamicResources, openCliStack, skipNote } from "./support.ts";

const YT = DEFAULT_IDS.integrations.youtube;
const ADA = DEFAULT_IDS.users.ada;
const GRACE = DEFAULT_IDS.users.grace;
const ALAN = DEFAULT_IDS.users.alan;

// The program the stack's `identity:case` picks (no `process`: the project has no @types/node).
const program = `import * as pulumi from "@pulumi/pulumi";
import * as wa from "pulumi-workspace-access";
const which = new pulumi.Config().require("case");
if (which === "two-entitlements") {
  new wa.IntegrationEntitlement("alan-lower", { integrationId: "${YT}", userId: "${ALAN}", entitlements: ["VIEWER"] });
  new wa.IntegrationEntitlement("alan-upper", { integrationId: "${YT}", userId: "${ALAN.toUpperCase()}", entitlements: ["VIEWER"], adoptExisting: true });
}
if (which === "members-and-entitlement") {
  new wa.IntegrationMembers("youtube", {
    integrationId: "${YT}",
    removeUnmanaged: true,
    members: [
      { userId: "${ADA}", entitlements: ["MANAGER"] },
      { userId: "${GRACE}", entitlements: ["EDITOR"] },
    ],
  });
  new wa.IntegrationEntitlement("alan", { integrationId: "${YT.toUpperCase()}", userId: "${ALAN}", entitlements: ["VIEWER"] });
}
if (which === "member-twice") {
  new wa.IntegrationMembers("youtube", {
    integrationId: "${YT}",
    members: [
      { userId: "${ADA}", entitlements: ["MANAGER"] },
      { userId: "${ADA.toUpperCase()}", entitlements: ["EDITOR"] },
    ],
  });
}
`;

describe.skipIf(!cliAvailable)(`one identity for an id in any case, through the real pulumi CLI${skipNote}`, { timeout: 300_000 }, () => {
  let emulator: Emulator;
  let project: Project;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    project = await packedProject({ name: "identity", files: { "index.ts": program } });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all([project?.remove(), emulator?.close()]);
  });

  /** `pulumi <command>` of a fresh stack running `which`: its output, what it sent, and the resources it registered. */
  async function run(which: string, command: "up" | "preview") {
    const stack = await openCliStack({
      projectDir: project.dir,
      stackName: which,
      config: {
        "workspace-access:baseUrl": emulator.url,
        "workspace-access:apiKey": { secret: emulator.apiKey },
        "identity:case": which,
      },
    });
    try {
      const before = emulator.requests.length;
      const result = await stack.run(command === "up" ? ["up", "--yes", "--skip-preview"] : ["preview"], { allowFailure: true });
      const sent = emulator.requests.slice(before);
      const registered = dynamicResources(await stack.exportState()).map((r) => r.urn.split("::").pop());
      return { result, sent, writes: sent.filter((r) => r.method !== "GET"), registered };
    } finally {
      await stack.remove();
    }
  }

  it("two IntegrationEntitlements for one membership, the user id in two cases: up fails naming both, nothing registered or written", async () => {
    const { result, writes, registered } = await run("two-entitlements", "up");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('IntegrationEntitlement resources "alan-lower" and "alan-upper" both manage');
    expect(writes).toEqual([]);
    expect(registered).toEqual([]);
  });

  it("an IntegrationMembers on the integration id in lower case and an IntegrationEntitlement on it in upper case: up fails, nothing registered or written", async () => {
    const { result, writes, registered } = await run("members-and-entitlement", "up");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain(`IntegrationMembers "youtube" manages every member of integration`);
    expect(writes).toEqual([]);
    expect(registered).toEqual([]);
  });

  it("an IntegrationMembers listing one user twice, in two cases: preview fails at Check naming members[1].userId, no request", async () => {
    const { result, sent } = await run("member-twice", "preview");
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("members[1].userId");
    expect(result.output).toContain("is listed twice");
    expect(sent).toEqual([]);
  });
});
