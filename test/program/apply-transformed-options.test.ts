/**
 * `applyTransformedOptions`, through Pulumi's mocks (which record a stack transform, not run it): that it registers the
 * package's transform before the package's resources, that it refuses to come after one of them (which would register without
 * it), and that an engine or language host that refuses the stack transform fails the package's resources with an error naming
 * it, not an unhandled rejection. Through the real CLI: test/cli/habits-transforms.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { MockMonitor } from "@pulumi/pulumi/runtime/mocks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { applyTransformedOptions, User } from "../../src";
import { thisRun } from "../../src/program/program-run";
import { followTransformedOptions } from "../../src/program/resource-options";

const GRACE = { email: "grace@example.com", firstName: "Grace", lastName: "Hopper" };

/** What happened, in order: `transform` for each stack transform registered, a resource's name for its registration. */
let events: string[];
let stackTransforms: unknown[];

beforeEach(async () => {
  events = [];
  stackTransforms = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        events.push(args.name);
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
      registerTransform: (transform) => {
        events.push("transform");
        stackTransforms.push(transform);
      },
    } as pulumi.runtime.Mocks,
    "p",
    "s",
    false,
  );
});

afterEach(() => {
  vi.restoreAllMocks();
});

const output = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

describe("applyTransformedOptions", () => {
  it("registers the package's transform as a stack transform, once a run, before the package's resources register", async () => {
    applyTransformedOptions();
    applyTransformedOptions();
    const grace = new User("grace", GRACE);
    expect(await output(grace.id)).toBe("grace-id");
    expect(stackTransforms).toEqual([followTransformedOptions]);
    expect(events).toEqual(["transform", "grace"]);
  });

  it("refuses to be called after one of the package's resources was declared, naming it: that one would register without it", () => {
    new User("ada", GRACE);
    expect(() => applyTransformedOptions()).toThrow(
      /applyTransformedOptions\(\) was called after User "ada" was declared: .*Call it before declaring any of the package's resources/s,
    );
    expect(thisRun().transformedOptions).toBeUndefined();
  });

  it("fails with an error naming it, which each of the package's resources fails with, when the engine refuses the stack transform, not an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      vi.spyOn(MockMonitor.prototype, "registerStackTransform").mockImplementation(
        (_req: unknown, callback: (error: Error | null, response: unknown) => void) =>
          callback(Object.assign(new Error("12 UNIMPLEMENTED: unknown method RegisterStackTransform"), { code: 12 }), undefined),
      );
      applyTransformedOptions();
      await expect(thisRun().transformedOptions).rejects.toThrow(
        /applyTransformedOptions: the Pulumi engine did not register the package's stack transform \(12 UNIMPLEMENTED: unknown method RegisterStackTransform\)\. .*language host/s,
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

describe("a program that does not call it", () => {
  it("registers as before: __provider a plain string (no wait), no transforms option, no stack transform", async () => {
    const lin = new User("lin", GRACE);
    expect(await output(lin.id)).toBe("lin-id");
    expect(events).not.toContain("transform");
    expect(events).toContain("lin");
    expect(thisRun().transformedOptions).toBeUndefined();
  });
});
