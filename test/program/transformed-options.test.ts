/**
 * The package's transform, which copies the options the transforms before it give a resource into the hidden inputs the provider
 * reads (`followTransformedOptions`): what it returns for each kind of change, and that a program whose transforms change none of
 * these options gets nothing back (the engine keeps its properties and options as they are). Through the engine: test/cli's
 * habits-transforms.
 */
import type * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { IntegrationEntitlement } from "../../src/program/integration-entitlement";
import { IntegrationMembers } from "../../src/program/integration-members";
import { followTransformedOptions, registration } from "../../src/program/resource-options";
import { User } from "../../src/program/user";
import { WorkspaceUsers } from "../../src/program/workspace-users";

const args = (type: string, props: pulumi.Inputs, opts: pulumi.CustomResourceOptions, name = "r"): pulumi.ResourceTransformArgs => ({
  custom: true,
  type,
  name,
  props,
  opts,
});

describe("followTransformedOptions", () => {
  it("returns nothing for another provider's resource, whatever its options", () => {
    expect(
      followTransformedOptions(args("aws:s3/bucket:Bucket", { a: 1 }, { customTimeouts: { create: "1m" }, import: "b" })),
    ).toBeUndefined();
  });

  it("returns nothing when the hidden inputs hold what the options give: a program whose transforms set none of them", () => {
    const props = { email: "a@example.com", __customTimeouts: { create: "2m" }, __importId: "u-1", __ignoreChanges: ["role"] };
    expect(followTransformedOptions(args(User.type, props, { customTimeouts: { create: "2m" }, ignoreChanges: ["role"] }))).toBeUndefined();
    expect(
      followTransformedOptions(args(User.type, { email: "a@example.com" }, { customTimeouts: {}, ignoreChanges: [] })),
    ).toBeUndefined();
  });

  it("copies a customTimeouts, replaceOnChanges or ignoreChanges a transform set, keeping the engine's options", () => {
    const result = followTransformedOptions(
      args(
        User.type,
        { email: "a@example.com", __importId: "u-1" },
        { customTimeouts: { create: "5m", update: "" }, ignoreChanges: ["role"] },
      ),
    );
    expect(result?.props).toEqual({
      email: "a@example.com",
      __importId: "u-1",
      __customTimeouts: { create: "5m" },
      __ignoreChanges: ["role"],
    });
    expect(result?.opts).toBeUndefined();
    // The membership resources' adoptions read ignoreChanges too; a WorkspaceUsers' does not.
    const membership = followTransformedOptions(args(IntegrationEntitlement.type, { userId: "u-1" }, { ignoreChanges: ["entitlements"] }));
    expect(membership?.props).toEqual({ userId: "u-1", __ignoreChanges: ["entitlements"] });
    const members = followTransformedOptions(args(IntegrationMembers.type, { members: [] }, { ignoreChanges: ["members"] }));
    expect(members?.props).toEqual({ members: [], __ignoreChanges: ["members"] });
    const set = followTransformedOptions(
      args(WorkspaceUsers.type, { users: [] }, { ignoreChanges: ["users"], replaceOnChanges: ["users"] }),
    );
    expect(set?.props).toEqual({ users: [], __replaceOnChanges: ["users"] });
  });

  it("copies a retainOnDelete a transform set (true alone: false is the default) and drops one it cleared", () => {
    const set = followTransformedOptions(args(IntegrationEntitlement.type, { userId: "u-1" }, { retainOnDelete: true }));
    expect(set?.props).toEqual({ userId: "u-1", __retainOnDelete: true });
    expect(followTransformedOptions(args(User.type, { email: "a@example.com" }, { retainOnDelete: false }))).toBeUndefined();
    const cleared = followTransformedOptions(
      args(User.type, { email: "a@example.com", __retainOnDelete: true }, { retainOnDelete: false }),
    );
    expect(cleared?.props).toEqual({ email: "a@example.com", __retainOnDelete: undefined });
    // The class registers the hidden input from its own options.
    const [props] = registration("r", "integration-entitlement", { userId: "u-1" }, [], { retainOnDelete: true });
    expect(props).toMatchObject({ __retainOnDelete: true });
    expect(registration("r", "user", { email: "a@example.com" }, [], {})[0].__retainOnDelete).toBeUndefined();
  });

  it("drops a hidden input whose option a transform removed", () => {
    const result = followTransformedOptions(args(User.type, { email: "a@example.com", __customTimeouts: { create: "2m" } }, {}));
    expect(result?.props).toEqual({ email: "a@example.com", __customTimeouts: undefined });
  });

  it("moves an import a transform added to the hidden input (trimmed) and clears it from the options", () => {
    const result = followTransformedOptions(args(User.type, { email: "a@example.com" }, { import: " u-2\n", protect: true }));
    expect(result?.props).toMatchObject({ __importId: "u-2" });
    expect(result?.opts).toEqual({ import: "", protect: true });
  });

  it("refuses a timeout that is not a duration, and a path naming a set's element by place, naming the resource", () => {
    expect(() => followTransformedOptions(args(User.type, {}, { customTimeouts: { create: "5 minutes" } }, "ann"))).toThrow(
      /User "ann": customTimeouts.create "5 minutes" is not a duration/,
    );
    expect(() => followTransformedOptions(args(IntegrationMembers.type, {}, { ignoreChanges: ["members[0]"] }, "team"))).toThrow(
      /IntegrationMembers "team": ignoreChanges path "members\[0\]" names a member by place/,
    );
  });
});

describe("registration", () => {
  it("adds the transform last to a resource's own transforms, and none to a resource without", () => {
    const own: pulumi.ResourceTransform = () => undefined;
    const [, opts] = registration("r", "user", {}, [], { transforms: [own] });
    expect(opts.transforms).toEqual([own, followTransformedOptions]);
    expect(registration("r", "user", {}, [], {})[1]).not.toHaveProperty("transforms");
  });

  it("registers a resource without transforms as before: __provider a plain string, the options the class always gave", () => {
    const [props, opts] = registration("r", "user", { email: "a@example.com" }, ["status"], {});
    expect(typeof props.__provider).toBe("string");
    expect(opts).toEqual({ deleteBeforeReplace: true });
    expect(registration("r", "user", {}, [], { transforms: [] })[1]).toEqual({ transforms: [], deleteBeforeReplace: true });
  });
});
