/**
 * `applyTransformedOptions`: the package's stack transform, for a program whose stack transforms, or whose components'
 * `transforms`, set the options the package's resources carry in hidden inputs (`import`, `ignoreChanges`, `customTimeouts`,
 * `replaceOnChanges`). The engine runs a resource's own transforms, then its parents', then the stack's in the order they were
 * registered, and hands a dynamic provider none of the options they give; the class copies its options before any runs.
 * Opt-in, not registered by the package itself: a stack transform costs every resource of the stack, the package's or not, a
 * call from the engine to the program, and a language host older than the engine's stack transforms fails the program at it.
 */
import * as pulumi from "@pulumi/pulumi";
import { thisRun } from "./program-run";
import { followTransformedOptions } from "./resource-options";

/**
 * Registers, once a run, the stack transform that copies the options the transforms before it give a resource of this package
 * into the hidden inputs the provider reads: call it after the program registers its own stack transforms
 * (`pulumi.runtime.registerResourceTransform`) and before it declares any of the package's resources (it throws after one: that
 * one may reach the engine before the transform does); the parents' transforms always run before it. It waits for the stack transforms
 * registered before it, so the engine runs it after them, and the package's resources are registered once it is. A stack
 * transform registered after it runs after it, and what that one sets is not copied. Fails where the CLI runs no stack
 * transforms, as `registerResourceTransform` does: each of the package's resources then fails, with its error.
 */
export function applyTransformedOptions(): void {
  const run = thisRun();
  if (run.transformedOptions !== undefined) return;
  if (run.firstDeclared !== undefined) {
    // That resource may already be on its way to the engine, which would then run the stack transform for none of it.
    throw new Error(
      `applyTransformedOptions() was called after ${run.firstDeclared} was declared: the options transforms set would not reach ` +
        "the resources declared before it. Call it before declaring any of the package's resources, after the program's own " +
        "registerResourceTransform calls.",
    );
  }
  run.transformedOptions = (async () => {
    await pulumi.runtime.awaitStackRegistrations();
    pulumi.runtime.registerResourceTransform(followTransformedOptions);
    await pulumi.runtime.awaitStackRegistrations();
  })();
  // Its failure fails the registration of each of the package's resources, which waits for it; with none, nothing is lost.
  run.transformedOptions.catch(() => undefined);
}
