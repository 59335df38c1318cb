/**
 * The classes' static `get`: what it registers (a read of the record its id names, through the engine's `ReadResource`:
 * Pulumi's mocks hand `newResource` the read's id), what it declares to the program's own checks (nothing), and the
 * options it refuses. The provider's read of it is tested in test/host/get.test.ts, and the whole through the real CLI in
 * test/cli/habits-import.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeEach, describe, expect, it } from "vitest";
import { IntegrationEntitlement, IntegrationMembers, User, WorkspaceUsers } from "../../src";

const USER = "6f1d2c3b-4a5e-4f60-8a71-0b2c3d4e5f02";
const INTEGRATION = "3c9e7a10-58b2-4d4e-9f0a-1b2c3d4e5a01";
const PROVIDER = (module: string) => `exports.handler = () => require("pulumi-workspace-access/provider/${module}").provider;\n`;

/** What each resource registered, by name; `id` is not empty for a read. */
let registered: Map<string, pulumi.runtime.MockResourceArgs>;

beforeEach(async () => {
  registered = new Map();
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registered.set(args.name, args);
        // A read (its id given) answers as the provider would: the record's fields; a registration, its inputs.
        const state = args.id ? { email: "grace@example.com", entitlements: ["EDITOR"], members: [] } : args.inputs;
        return { id: args.id || `${args.name}-id`, state };
      },
      call: (args) => args.inputs,
    },
    "p",
    "s",
    false,
  );
});

const output = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("static get", () => {
  it("reads a User by its id, trimmed and in the case given (a User's state keeps the service's), registering only the hidden read marker and __provider", async () => {
    const grace = User.get("grace", ` ${USER.toUpperCase()}\n`);
    expect(grace).toBeInstanceOf(User);
    expect(await output(grace.id)).toBe(USER.toUpperCase());
    expect(await output(grace.email)).toBe("grace@example.com");
    const read = registered.get("grace")!;
    expect(read.type).toBe("pulumi-nodejs:dynamic/workspace-access:User");
    expect(read.id).toBe(USER.toUpperCase());
    // Nothing the provider would take for a state: the record is named by the id alone.
    expect(read.inputs).toEqual({ __get: USER.toUpperCase(), __provider: PROVIDER("user") });
  });

  it("reads an IntegrationEntitlement by <integrationId>/<userId> and an IntegrationMembers by its integration id", async () => {
    const membership = IntegrationEntitlement.get("grace-youtube", `${INTEGRATION}/${USER}`.toUpperCase());
    const members = IntegrationMembers.get("youtube", pulumi.output(` ${INTEGRATION} `));
    expect(await output(membership.entitlements)).toEqual(["EDITOR"]);
    expect(await output(members.members)).toEqual([]);
    // The id in the one form, as the state of the resource managing it records it; the id as given for the provider's messages.
    expect(registered.get("grace-youtube")).toMatchObject({
      type: "pulumi-nodejs:dynamic/workspace-access:IntegrationEntitlement",
      id: `${INTEGRATION}/${USER}`,
      inputs: { __get: `${INTEGRATION}/${USER}`.toUpperCase(), __provider: PROVIDER("integration-entitlement") },
    });
    expect(registered.get("youtube")).toMatchObject({
      type: "pulumi-nodejs:dynamic/workspace-access:IntegrationMembers",
      id: INTEGRATION,
      inputs: { __get: INTEGRATION, __provider: PROVIDER("integration-members") },
    });
  });

  it("declares nothing to the program's checks: a get beside the resource managing the same record registers both", async () => {
    // Two resources managing one integration's members fail the program (owners.ts); a get manages nothing.
    const managed = new IntegrationMembers("youtube", {
      integrationId: INTEGRATION,
      members: [{ userId: USER, entitlements: ["EDITOR"] }],
    });
    const whole = IntegrationMembers.get("youtube-read", INTEGRATION);
    const one = IntegrationEntitlement.get("grace-youtube-read", `${INTEGRATION}/${USER}`);
    const grace = new User("grace", { email: "grace@example.com", firstName: "Grace", lastName: "Hopper" });
    const graceRead = User.get("grace-read", USER);
    await Promise.all([managed, whole, one, grace, graceRead].map((r) => output(r.id)));
    expect(registered.get("youtube")?.inputs).toMatchObject({ integrationId: INTEGRATION });
    expect(registered.get("grace")?.inputs).toMatchObject({ email: "grace@example.com" });
    expect([...registered.keys()].sort()).toEqual(["grace", "grace-read", "grace-youtube-read", "youtube", "youtube-read"]);
  });

  it("keeps the options Pulumi's read takes (dependsOn, additionalSecretOutputs) and refuses import and provider, naming the resource", async () => {
    const before = User.get("before", USER);
    const kept = User.get("kept", USER, { dependsOn: [before], additionalSecretOutputs: ["email"] });
    await output(kept.id);
    class Explicit extends pulumi.ProviderResource {}
    const provider = new Explicit("pulumi-nodejs", "explicit", {});
    expect(() => User.get("imported", USER, { import: USER })).toThrow(
      'User "imported": User.get reads the record its id names; the import option adopts one into a resource the program manages',
    );
    expect(() => IntegrationMembers.get("explicit", INTEGRATION, { provider })).toThrow(
      'IntegrationMembers "explicit": the provider option does not apply',
    );
    expect([...registered.keys()]).toEqual(["before", "kept"]);
  });

  it("an id of another type (a JavaScript program's) fails naming the class, the resource and the type, with nothing registered", () => {
    expect(() => User.get("numbered", 42 as unknown as string)).toThrow(
      'User "numbered": User.get was given an id of type number: give the record\'s id, a string.',
    );
    expect(() => IntegrationMembers.get("nothing", undefined as unknown as string)).toThrow("IntegrationMembers.get");
    expect(registered.has("numbered")).toBe(false);
  });

  it("an empty id fails naming the class and the resource, with nothing registered", () => {
    expect(() => User.get("empty", " \n")).toThrow('User "empty": User.get was given an empty id');
    expect(registered.has("empty")).toBe(false);
  });

  it("a membership's id not of the form <integrationId>/<userId> fails where it is declared, naming it as given", async () => {
    const given = ` ${USER.toUpperCase()} `;
    expect(() => IntegrationEntitlement.get("bare", given)).toThrow(
      `IntegrationEntitlement "bare": IntegrationEntitlement.get was given "${given.trim()}", which is not a membership's id: ` +
        "expected <integrationId>/<userId>",
    );
    expect(() => IntegrationEntitlement.get("three", `${INTEGRATION}/${USER}/x`)).toThrow("is not a membership's id");
    expect(registered.has("bare")).toBe(false);
  });

  it("refuses the id option on the constructor, which would read the record while the program's checks count it as managed", () => {
    expect(() => new User("by-id", { email: "grace@example.com", firstName: "Grace", lastName: "Hopper" }, { id: USER })).toThrow(
      'User "by-id": the id option reads an existing record: use User.get("by-id", id)',
    );
    expect(() => new WorkspaceUsers("people", { users: [] }, { id: "workspace-users" })).toThrow(
      "WorkspaceUsers has no get: its id names no record",
    );
    expect(registered.size).toBe(0);
  });

  it("is not offered by WorkspaceUsers, whose id names no record", () => {
    expect("get" in WorkspaceUsers).toBe(false);
  });
});

describe("static get's resource options", () => {
  /** Options Pulumi's ReadResource does not carry: the engine would drop each, silently, and the program would count on it. */
  const dropped: Array<[string, pulumi.CustomResourceOptions, string]> = [
    ["protect", { protect: true }, "never deletes a record it reads"],
    ["retainOnDelete", { retainOnDelete: true }, "never deletes a record it reads"],
    ["deletedWith", { deletedWith: new pulumi.ComponentResource("my:Group", "group-for-deleted-with") }, "never deletes a record it reads"],
    ["aliases", { aliases: [{ name: "grace" }] }, "the engine would delete the record"],
    ["ignoreChanges", { ignoreChanges: ["email"] }, "has no inputs"],
    ["replaceOnChanges", { replaceOnChanges: ["email"] }, "has no inputs"],
    ["deleteBeforeReplace", { deleteBeforeReplace: true }, "has no inputs"],
    ["customTimeouts", { customTimeouts: { read: "5m" } }, "waits for no job"],
    ["replaceWith", { replaceWith: [new pulumi.ComponentResource("my:Group", "group-for-replace-with")] }, "has no inputs"],
    ["replacementTrigger", { replacementTrigger: "rotate-1" }, "has no inputs"],
    ["hideDiffs", { hideDiffs: ["email"] }, "has no inputs"],
    ["hooks", { hooks: { afterCreate: [() => undefined] } }, "runs no hook for a read"],
  ];

  it.each(dropped)(
    "refuses %s, which Pulumi's read of an existing record does not take, naming the resource and why",
    (option, opts, why) => {
      const message = (() => {
        try {
          IntegrationEntitlement.get("read", `${INTEGRATION}/${USER}`, opts);
        } catch (error) {
          return (error as Error).message;
        }
        return "nothing thrown";
      })();
      expect(message).toContain(`IntegrationEntitlement "read": IntegrationEntitlement.get does not take the ${option} option`);
      expect(message).toContain(why);
      expect(message).toContain("Remove the option");
      expect(registered.has("read")).toBe(false);
    },
  );

  it("takes those options left empty or false, as a shared set of options writes them", async () => {
    const read = User.get("lenient", USER, {
      protect: false,
      retainOnDelete: false,
      aliases: [],
      ignoreChanges: [],
      replaceOnChanges: [],
      customTimeouts: {},
      replaceWith: [],
      hideDiffs: [],
      hooks: { beforeCreate: [] },
    });
    expect(await output(read.id)).toBe(USER);
  });

  it("under a parent, has the URN a generated provider's get has there: the parent's type chain before its own", async () => {
    class Group extends pulumi.ComponentResource {
      constructor(name: string, opts?: pulumi.ComponentResourceOptions) {
        super("my:access:Group", name, {}, opts);
      }
    }
    const outer = new Group("outer");
    const inner = new Group("inner", { parent: outer });
    const read = IntegrationMembers.get("youtube", INTEGRATION, { parent: inner });
    // What a generated SDK's get registers: a CustomResource read with opts.id under the same parent.
    class Generated extends pulumi.CustomResource {
      constructor(name: string, id: string, opts: pulumi.CustomResourceOptions) {
        super("other:index:Thing", name, {}, { ...opts, id });
      }
    }
    const generated = new Generated("thing", "x", { parent: inner });
    // The mocks' URN names the parent's own type (the engine's, its whole chain); the same for both either way.
    const urn = await output(read.urn);
    expect(urn).toMatch(/\$pulumi-nodejs:dynamic\/workspace-access:IntegrationMembers::youtube$/);
    expect(urn.replace("pulumi-nodejs:dynamic/workspace-access:IntegrationMembers::youtube", "")).toBe(
      (await output(generated.urn)).replace("other:index:Thing::thing", ""),
    );
    expect(registered.get("youtube")?.id).toBe(INTEGRATION);
  });
});
