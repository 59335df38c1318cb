/**
 * `applyTransformedOptions`: the package's stack transform, for a program whose stack transforms, or whose components'
 * `transforms`, set the options the package's resources carry in hidden inputs (`import`, `ignoreChanges`, `customTimeouts`,
 * `replaceOnChanges`, `retainOnDelete`). The engine runs a resource's own transforms, then its parents', then the stack's in the order they were
 * registered, and hands a dynamic provider none of the options they give; the class copies its options before any runs.
 * Opt-in, not registered by the package itself: a stack transform costs every resource of the stack, the package's or not, a
 * call from the engine to the program, and a language host older than the engine's stack transforms fails the program at it.
 */
import * as pulumi from "@pulumi/pulumi";
import { thisRun } from "./program-run";
import { followTransformedOptions } from "./resource-options";

/**
 * Makes `import`, `customTimeouts`, `replaceOnChanges`, `retainOnDelete` and `ignoreChanges` set by a component's `transforms` or by a stack
 * transform (`pulumi.runtime.registerResourceTransform`) reach the package's resources, by registering the package's own stack
 * transform, once a run (a resource's own `transforms` need nothing). Call it after the program's own stack transforms, which
 * it waits for so that the engine runs it after them, and before declaring any of the package's resources, which wait for it:
 * after one, it throws, naming it. What a stack transform registered after it sets may be missed. Opt-in: a stack transform
 * costs every resource of the stack a call from the engine; where the Pulumi CLI or its Node.js language host refuses stack
 * transforms, each of the package's resources fails with an error naming `applyTransformedOptions` and what to do instead.
 * See docs/pulumi-habits.md.
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
  run.transformedOptions = registerStackTransform();
  // Its failure fails the registration of each of the package's resources, which waits for it; with none, nothing is lost.
  run.transformedOptions.catch(() => undefined);
}

/**
 * `pulumi.runtime.registerResourceTransform(followTransformedOptions)`, done as the SDK does it (its callback server, then the
 * monitor's `RegisterStackTransform`) after the stack transforms registered before it, but with the engine's answer: the SDK's
 * own call leaves a refusal an unhandled rejection of `undefined`, which a language host that does not pass the call on
 * (`pulumi-language-nodejs` 3.68) gives; the program then fails with an error that names neither the call nor the cause.
 */
async function registerStackTransform(): Promise<void> {
  await pulumi.runtime.awaitStackRegistrations();
  const callbacks = pulumi.runtime.getCallbacks();
  const monitor = pulumi.runtime.getMonitor();
  if (callbacks === undefined || monitor === undefined) {
    throw new Error(
      "applyTransformedOptions: no Pulumi engine to register the package's stack transform with: call it in a Pulumi program.",
    );
  }
  try {
    const callback = await callbacks.registerTransform(followTransformedOptions);
    await new Promise<void>((resolve, reject) => monitor.registerStackTransform(callback, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `applyTransformedOptions: the Pulumi engine did not register the package's stack transform (${why}). ` +
        "A Pulumi CLI, or a Node.js language host (pulumi-language-nodejs), older than stack transforms does not pass one on: " +
        "update it, or set these options in each resource's own options or its own transforms, which need no stack transform.",
    );
  }
}
