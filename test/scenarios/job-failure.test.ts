/**
 * A write whose job ends in `error`: the provider's error crosses the gRPC boundary to the engine
 * with the job's id and `errorType`, the failed membership is not recorded, and the next `up`
 * finishes the work.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_IDS, type Emulator } from "../../src/emulator/index";
import { EngineError } from "../engine/index.ts";
import {
  accessConfig,
  changesOf,
  ENTITLEMENT_TYPE,
  type ExampleStack,
  exampleStack,
  rejectionOf,
  SETUP_TIMEOUT_MS,
  startTestEmulator,
} from "./support.ts";

const integrationOf: Record<string, string> = {
  "alice-youtube": DEFAULT_IDS.integrations.youtube,
  "bob-slack": DEFAULT_IDS.integrations.slack,
};

describe("a job that fails", { timeout: 60_000 }, () => {
  let emulator: Emulator;
  let basic: ExampleStack;

  beforeAll(async () => {
    emulator = await startTestEmulator();
    basic = await exampleStack({ example: "basic", config: accessConfig(emulator) });
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    await basic?.dispose();
    await emulator?.close();
  });

  it("fails the create with the job's errorType, as gRPC UNKNOWN to the engine", async () => {
    emulator.jobs.failNext(1, { errorType: "mfa_required", userRequired: true });
    const error = await rejectionOf(basic.stack.up());

    expect(error).toBeInstanceOf(EngineError);
    const failure = error as EngineError;
    // Both memberships are invited side by side; whichever job the service created first fails.
    const failedJob = emulator.jobs.list().find((job) => job.status === "error");
    expect(failedJob?.errorDetails).toMatchObject({ errorType: "mfa_required", userRequired: true });
    const name = Object.keys(integrationOf).find((n) => integrationOf[n] === failedJob?.integrationId);
    expect(failure).toMatchObject({ operation: "create", resourceType: ENTITLEMENT_TYPE, resourceName: name, grpcCode: 2 });
    expect(failure.grpcMessage).toContain("mfa_required");
    expect(failure.grpcMessage).toContain(failedJob?.id);
    expect(failure.grpcMessage).toContain("userRequired: true");
    expect(failure.message).toContain(`create of ${ENTITLEMENT_TYPE} "${name}" failed`);

    // What the host answered the engine's Create call.
    const create = failure.result?.grpc.find((call) => call.method === "Create" && call.urn === failure.urn);
    expect(create?.error?.code).toBe(2);
    expect(create?.error?.message).toContain("mfa_required");
    expect(create?.response).toBeUndefined();

    // The job applied nothing and the failed membership is not in state; the users are.
    const userId = String(basic.stack.state().resources.find((r) => r.name === (name === "alice-youtube" ? "alice" : "bob"))?.id);
    expect(emulator.integrations.members(failedJob?.integrationId ?? "").map((m) => m.userId)).not.toContain(userId);
    expect(basic.stack.state().resources.map((r) => r.name)).not.toContain(name);
    expect(basic.stack.state().resources.map((r) => r.name)).toEqual(expect.arrayContaining(["alice", "bob"]));
  });

  it("the next up creates what is missing", async () => {
    const up = await basic.stack.up();
    expect(changesOf(up).every((step) => step.startsWith("create "))).toBe(true);
    expect(changesOf(up).length).toBeGreaterThanOrEqual(1);
    const state = basic.stack.state();
    expect(state.resources.map((r) => r.name).sort()).toEqual(["alice", "alice-youtube", "bob", "bob-slack", "workspace-access-basic-dev"]);
    expect(emulator.jobs.list().filter((job) => job.status === "error")).toHaveLength(1);
    await basic.stack.destroy();
    expect(emulator.users.findByEmail("alice@example.com")).toBeUndefined();
  });
});
