import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { IntegrationEntitlement, IntegrationMembers, User } from "../../src";
import { registration } from "../../src/program/resource-options";

const API_KEY = "wa_wiring_secret_key_5d2c1f0e9a8b7c6d";
const registered: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(async () => {
  pulumi.runtime.setAllConfig({ "workspace-access:apiKey": API_KEY, "workspace-access:baseUrl": "https://acme.example.com/api/v1/" }, [
    "workspace-access:apiKey",
  ]);
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.push(args);
        return { id: `${args.name}-id`, state: { ...args.inputs, status: "pending" } };
      },
      call: (args) => args.inputs,
    },
    "wiring",
    "dev",
    false,
  );
});

const output = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("resource wiring", () => {
  it("registers a User with its inputs as declared and a tiny __provider free of the key", async () => {
    const alice = new User("alice", { email: "alice@example.com", firstName: "Alice", lastName: "Doe", isGuest: true });
    expect(await output(alice.id)).toBe("alice-id");
    expect(await output(alice.status)).toBe("pending");
    const args = registered.find((r) => r.name === "alice")!;
    expect(args.type).toBe("pulumi-nodejs:dynamic/workspace-access:User");
    expect(args.inputs).toMatchObject({ email: "alice@example.com", firstName: "Alice", lastName: "Doe", isGuest: true });
    const serialized = args.inputs.__provider as string;
    expect(serialized).toBe('exports.handler = () => require("pulumi-workspace-access/provider/user").provider;\n');
    expect(Buffer.byteLength(serialized)).toBeLessThan(4096);
    expect(JSON.stringify(args)).not.toContain(API_KEY);
  });

  it("registers an IntegrationEntitlement with userId flowing from the user", async () => {
    const bob = new User("bob", { email: "bob@example.com", firstName: "Bob", lastName: "Roe" });
    const access = new IntegrationEntitlement("bob-youtube", {
      integrationId: "d538422e-b135-4ee0-8393-54eecbcb4a07",
      userId: bob.id,
      entitlements: ["VIEWER", "EDITOR"],
    });
    expect(await output(access.id)).toBe("bob-youtube-id");
    const args = registered.find((r) => r.name === "bob-youtube")!;
    expect(args.type).toBe("pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement");
    expect(args.inputs).toMatchObject({ userId: "bob-id", entitlements: ["VIEWER", "EDITOR"] });
    expect(args.inputs.__provider).toContain('require("pulumi-workspace-access/provider/integration-entitlement")');
    expect(JSON.stringify(registered)).not.toContain(API_KEY);
  });

  it("hands ignoreChanges to both membership resources' providers as the hidden input __ignoreChanges (none without it)", async () => {
    const integrationId = "1538422e-b135-4ee0-8393-54eecbcb4a07";
    const one = new IntegrationEntitlement(
      "ignoring-one",
      { integrationId, userId: "ivy-id", entitlements: ["VIEWER"] },
      { ignoreChanges: ["entitlements", "role"] },
    );
    const set = new IntegrationMembers(
      "ignoring-set",
      { integrationId: "2538422e-b135-4ee0-8393-54eecbcb4a07", members: [] },
      { ignoreChanges: ["members"] },
    );
    const plain = new IntegrationEntitlement("plain-one", {
      integrationId: "3538422e-b135-4ee0-8393-54eecbcb4a07",
      userId: "ivy-id",
      entitlements: ["VIEWER"],
    });
    await Promise.all([output(one.id), output(set.id), output(plain.id)]);
    const inputsOf = (name: string) => registered.find((r) => r.name === name)!.inputs;
    expect(inputsOf("ignoring-one").__ignoreChanges).toEqual(["entitlements", "role"]);
    expect(inputsOf("ignoring-set").__ignoreChanges).toEqual(["members"]);
    expect(inputsOf("plain-one")).not.toHaveProperty("__ignoreChanges");
  });

  it("warns about an unknown role instead of failing", async () => {
    const warn = vi.spyOn(pulumi.log, "warn").mockResolvedValue();
    const user = new User("carol", { email: "carol@example.com", firstName: "Carol", lastName: "Poe", role: "workspace_astronaut" });
    await output(user.id);
    await output(pulumi.output("flush"));
    expect(warn.mock.calls.some(([message]) => String(message).includes('role "workspace_astronaut" is not one of the known'))).toBe(true);
    // A role given as a secret is not printed: the warning says it is a secret.
    warn.mockClear();
    const hidden = new User("zed", {
      email: "zed@example.com",
      firstName: "Zed",
      lastName: "Poe",
      role: pulumi.secret("workspace_cosmonaut"),
    });
    await output(hidden.id);
    await output(pulumi.output("flush"));
    const said = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes("is not one of the known"));
    expect(said).toEqual([expect.stringContaining("the role (a secret) is not one of the known")]);
    expect(said.join()).not.toContain("cosmonaut");
    warn.mockRestore();
  });

  it("registers a User's unapplied as a secret output, keeping the program's own additionalSecretOutputs", () => {
    const [, plain] = registration("u", "user", {}, [], undefined, ["unapplied"]);
    expect(plain.additionalSecretOutputs).toEqual(["unapplied"]);
    const [, own] = registration("u", "user", {}, [], { additionalSecretOutputs: ["email", "unapplied"] }, ["unapplied"]);
    expect(own.additionalSecretOutputs).toEqual(["email", "unapplied"]);
    const [, none] = registration("m", "integration-members", {}, [], { additionalSecretOutputs: ["members"] });
    expect(none.additionalSecretOutputs).toEqual(["members"]);
  });

  it("refuses an explicit provider, saying why (its configuration is not the stack's), before anything is registered", () => {
    class Explicit extends pulumi.ProviderResource {}
    const provider = new Explicit("pulumi-nodejs", "explicit", {});
    expect(() => new User("dora", { email: "dora@example.com", firstName: "Dora", lastName: "Ng" }, { provider })).toThrow(
      'User "dora": the provider option does not apply to this package\'s resources: they read their settings',
    );
    expect(registered.filter((r) => r.name === "dora")).toEqual([]);
  });
});

describe("registering without stack traces", () => {
  it("takes only the source position's while the SDK registers a resource (it asks for one per property), and puts the limit back", async () => {
    const frames: number[] = [];
    const before = Error.prepareStackTrace;
    Error.stackTraceLimit = 17;
    Error.prepareStackTrace = (_error, callSites) => {
      frames.push(callSites.length);
      return "";
    };
    try {
      const dave = new User("dave", { email: "dave@example.com", firstName: "Dave", lastName: "Moe" });
      new IntegrationEntitlement("dave-youtube", {
        integrationId: "d538422e-b135-4ee0-8393-54eecbcb4a07",
        userId: dave.id,
        entitlements: ["VIEWER"],
      });
    } finally {
      Error.prepareStackTrace = before;
    }
    expect(Error.stackTraceLimit).toBe(17);
    Error.stackTraceLimit = 10;
    // The SDK's own call for the resource's source position (one per resource, its own limit) still sees every frame.
    expect(frames.filter((n) => n > 0)).toHaveLength(2);
    expect(frames.filter((n) => n === 0).length).toBeGreaterThan(10);
  });

  it("gives an error the registration throws its stack, and the limit back", () => {
    const error = (() => {
      try {
        new User("", { email: "erin@example.com", firstName: "Erin", lastName: "Loe" });
      } catch (thrown) {
        return thrown as Error;
      }
      throw new Error("expected the registration to throw");
    })();
    expect(error.message).toContain("name");
    expect(error.stack).toContain("wiring.test.ts");
    expect(error.stack).not.toContain("afterRegistration");
    expect(Error.stackTraceLimit).toBe(10);
  });
});
