/**
 * examples/stack-per-workspace: one program, one stack per workspace. Two emulators stand for the
 * acme and globex workspaces, each with its own key; each stack's config (from the example's
 * Pulumi.<stack>.yaml) points at one of them.
 */
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import type { ConfigValue, Json, Project } from "../engine/index.ts";
import { packedProject } from "../engine/packed.ts";
import {
  accessConfig,
  type ExampleStack,
  exampleFile,
  exampleStack,
  requestLines,
  SETUP_TIMEOUT_MS,
  startTestEmulator,
  stepsOf,
  withRequests,
} from "./support.ts";

const { youtube, slack } = DEFAULT_IDS.integrations;
const seededUsers: string[] = Object.values(DEFAULT_IDS.users).sort();

/** A stack's config as its Pulumi.<stack>.yaml declares it, pointed at an emulator with its own key. */
function stackConfig(stackName: "acme" | "globex", emulator: Emulator): Record<string, ConfigValue> {
  const file = parseYaml(exampleFile("stack-per-workspace", `Pulumi.${stackName}.yaml`)) as { config: Record<string, Json> };
  const config: Record<string, ConfigValue> = {};
  for (const [key, value] of Object.entries(file.config)) config[key] = typeof value === "string" ? value : { value };
  // The emulator is not at https://<workspace>.<host>/: baseUrl, which takes precedence, points at it.
  return { ...config, ...accessConfig(emulator) };
}

const emails = (emulator: Emulator): string[] =>
  emulator.users
    .list()
    .filter((u) => !seededUsers.includes(u.id))
    .map((u) => u.email)
    .sort();

describe("one program, a stack per workspace", { timeout: 60_000 }, () => {
  let acmeService: Emulator;
  let globexService: Emulator;
  let project: Project;
  let acme: ExampleStack;
  let globex: ExampleStack;

  beforeAll(async () => {
    [acmeService, globexService] = await Promise.all([startTestEmulator(), startTestEmulator()]);
    expect(acmeService.apiKey).not.toBe(globexService.apiKey);
    project = await packedProject({
      name: "workspace-access-per-workspace",
      files: {
        "index.ts": exampleFile("stack-per-workspace", "index.ts"),
        "Pulumi.yaml": exampleFile("stack-per-workspace", "Pulumi.yaml"),
      },
    });
    acme = await exampleStack({ example: "stack-per-workspace", project, stackName: "acme", config: stackConfig("acme", acmeService) });
    globex = await exampleStack({
      example: "stack-per-workspace",
      project,
      stackName: "globex",
      config: stackConfig("globex", globexService),
    });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await acme?.dispose();
    await globex?.dispose();
    await project?.remove();
    await Promise.all([acmeService?.close(), globexService?.close()]);
  });

  it("up of each stack creates its people in its own workspace only", async () => {
    const [acmeUp, globexUp] = await Promise.all([
      withRequests(acmeService, () => acme.stack.up()),
      withRequests(globexService, () => globex.stack.up()),
    ]);

    // Names unique by construction: the email, and the email with the application (a key of the
    // person's integrations in the stack's config).
    expect(stepsOf(acmeUp.result).sort()).toEqual([
      "create alice@acme.example",
      "create alice@acme.example/Slack",
      "create alice@acme.example/YouTube",
      "create bob@acme.example",
    ]);
    expect(stepsOf(globexUp.result).sort()).toEqual(["create carol@globex.example", "create carol@globex.example/Slack"]);
    // The applications were looked up in each stack's own workspace: acme's YouTube and Slack
    // share one listing of the integrations, globex's Slack is one listing too.
    expect(requestLines(acmeUp.requests).filter((line) => line === "GET /integrations")).toEqual(["GET /integrations"]);
    expect(requestLines(globexUp.requests).filter((line) => line === "GET /integrations")).toEqual(["GET /integrations"]);
    // The address each stack manages: its baseUrl (the emulator), not the workspace its file names.
    expect(acmeUp.result.outputs).toEqual({ workspace: acmeService.url });
    expect(globexUp.result.outputs).toEqual({ workspace: globexService.url });

    expect(emails(acmeService)).toEqual(["alice@acme.example", "bob@acme.example"]);
    expect(emails(globexService)).toEqual(["carol@globex.example"]);
    const alice = acmeService.users.findByEmail("alice@acme.example");
    const carol = globexService.users.findByEmail("carol@globex.example");
    expect(
      acmeService.integrations
        .members(youtube)
        .find((m) => m.userId === alice?.id)
        ?.entitlements.sort(),
    ).toEqual(["EDITOR", "VIEWER"]);
    expect(acmeService.integrations.members(slack).find((m) => m.userId === alice?.id)?.entitlements).toEqual(["MEMBER"]);
    expect(globexService.integrations.members(slack).find((m) => m.userId === carol?.id)?.entitlements).toEqual(["MEMBER"]);
    // Nothing of one workspace reached the other: not a write, not a read of the other's ids.
    expect(
      acmeService.integrations
        .members(slack)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([DEFAULT_IDS.users.ada, DEFAULT_IDS.users.alan, alice?.id].sort());
    expect(
      globexService.integrations
        .members(youtube)
        .map((m) => m.userId)
        .sort(),
    ).toEqual([DEFAULT_IDS.users.ada, DEFAULT_IDS.users.grace].sort());
    expect(JSON.stringify(acmeUp.requests)).not.toContain("globex");
    expect(JSON.stringify(acmeUp.requests)).not.toContain(carol?.id ?? "-");
    expect(JSON.stringify(globexUp.requests)).not.toContain("acme.example");
    expect(JSON.stringify(globexUp.requests)).not.toContain(alice?.id ?? "-");
    expect(requestLines(globexUp.requests).filter((line) => line.includes(youtube))).toEqual([]);
    // Each workspace accepted every request's key: each stack sent its own workspace's.
    expect([...acmeUp.requests, ...globexUp.requests].filter((r) => !r.hasApiKey || r.status === 401 || r.status === 403)).toEqual([]);

    // Two state files, each holding its own workspace's ids.
    const acmeIds = acme.stack
      .state()
      .resources.map((r) => r.id)
      .filter(Boolean);
    const globexIds = globex.stack
      .state()
      .resources.map((r) => r.id)
      .filter(Boolean);
    expect(acme.stack.statePath).not.toBe(globex.stack.statePath);
    expect(acmeIds).toContain(alice?.id);
    expect(acmeIds.some((id) => id.includes(carol?.id ?? "-"))).toBe(false);
    expect(globexIds).toContain(carol?.id);
    expect(globexIds.some((id) => id.includes(alice?.id ?? "-"))).toBe(false);
  });

  it("a change to one stack's config touches only that workspace", async () => {
    const acmeBefore = acmeService.requests.length;
    const people = (stackConfig("globex", globexService)["workspace-access-per-workspace:people"] as { value: Json[] }).value;
    globex.stack.setConfig("workspace-access-per-workspace:people", {
      value: people.map((person) => ({ ...(person as Record<string, Json>), lastName: "Doe-Poe" })),
    });

    const { result, requests } = await withRequests(globexService, () => globex.stack.up());
    expect(stepsOf(result).filter((s) => !s.startsWith("same "))).toEqual(["update carol@globex.example"]);
    expect(requestLines(requests.filter((r) => r.method !== "GET"))).toEqual([
      `PUT /users/${globexService.users.findByEmail("carol@globex.example")?.id}`,
    ]);
    expect(globexService.users.findByEmail("carol@globex.example")?.lastName).toBe("Doe-Poe");
    expect(acmeService.requests.length).toBe(acmeBefore);
  });

  it("destroying one stack leaves the other workspace alone", async () => {
    const acmeBefore = acmeService.requests.length;
    await globex.stack.destroy();
    expect(emails(globexService)).toEqual([]);
    expect(globexService.integrations.members(slack)).toHaveLength(2);
    expect(acmeService.requests.length).toBe(acmeBefore);
    expect(emails(acmeService)).toEqual(["alice@acme.example", "bob@acme.example"]);

    await acme.stack.destroy();
    expect(emails(acmeService)).toEqual([]);
    expect(acmeService.integrations.members(youtube)).toHaveLength(2);
  });
});
