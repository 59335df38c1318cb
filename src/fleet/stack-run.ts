/**
 * One stack's preview, up or refresh through the Automation API (the `pulumi` CLI on PATH), with
 * that stack's own configuration: its key reaches its own workspace only. Never rejects: whatever
 * goes wrong becomes the stack's `failed` report, its message redacted.
 */
import { type LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { EventCollector, countsOf } from "./engine-events";
import { failureMessage } from "./failure-message";
import { secretsRedactor } from "./redaction";
import type { ChangeCounts, FleetCommand, StackReport } from "./types";

/** Options of {@link runStack}. */
export interface StackRunOptions {
  workspace: LocalWorkspace;
  command: FleetCommand;
  /** Once aborted, the CLI gets SIGINT: it cancels cleanly, as after one Ctrl-C. */
  cancel: AbortSignal;
  /**
   * Runs `select` alone: `pulumi stack select` writes the project's one current-stack file,
   * which two selects at once could both write.
   */
  serially<T>(select: () => Promise<T>): Promise<T>;
}

/** Runs `options.command` on one stack; see the module's comment. */
export async function runStack(name: string, options: StackRunOptions): Promise<StackReport> {
  const events = new EventCollector();
  let redact = secretsRedactor({});
  try {
    redact = secretsRedactor(await options.workspace.getAllConfig(name));
    const stack = await options.serially(() => Stack.select(name, options.workspace));
    // No `expectNoChanges` for pulumi: it checks only after the operation (an up or a refresh has
    // applied its changes by then) and fails the stack, losing its counts; the report checks the counts.
    const common = { onEvent: events.onEvent, color: "never" as const, signal: options.cancel };
    let changes: ChangeCounts;
    if (options.command === "preview") changes = countsOf((await stack.preview(common)).changeSummary);
    else if (options.command === "up") changes = countsOf((await stack.up({ ...common, suppressOutputs: true })).summary.resourceChanges);
    else changes = countsOf((await stack.refresh({ ...common, suppressOutputs: true })).summary.resourceChanges);
    return { stack: name, result: "succeeded", changes, resources: redactNames(events, redact) };
  } catch (error) {
    const output = error instanceof Error ? error.message : String(error);
    const message = options.cancel.aborted
      ? `cancelled (Ctrl-C): ${failureMessage(events.diagnostics, output)}`
      : failureMessage(events.diagnostics, output);
    return {
      stack: name,
      result: "failed",
      changes: events.summary ?? countsOf(undefined),
      resources: redactNames(events, redact),
      error: redact(message),
    };
  }
}

function redactNames(events: EventCollector, redact: (text: string) => string) {
  return events.resources().map((r) => ({ ...r, name: redact(r.name) }));
}
