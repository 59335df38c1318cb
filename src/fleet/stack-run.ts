/**
 * One stack's preview, up or refresh through the Automation API, with that stack's own configuration: its key
 * reaches its own workspace only. Never rejects: whatever goes wrong becomes its `failed` report, redacted.
 */
import { type ConfigMap, type LocalWorkspace, Stack } from "@pulumi/pulumi/automation";
import { makeRedactor } from "../client/redact";
import { countsOf, EventCollector, failureMessage } from "./engine-events";
import { type ChangeCounts, type FleetCommand, noChanges, type StackReport } from "./types";

/** Options of {@link runStack}: `serially` runs a `select` alone (`pulumi stack select` writes the project's one file). */
interface StackRunOptions {
  workspace: LocalWorkspace;
  command: FleetCommand;
  /** Once aborted, the CLI gets SIGINT: it cancels cleanly, as after one Ctrl-C. */
  cancel: AbortSignal;
  serially<T>(select: () => Promise<T>): Promise<T>;
}

/** The stack config's key, whether stored as a secret or (with a warning) in plain text. */
const API_KEY_CONFIG = "workspace-access:apiKey";

/**
 * A redactor of every secret of `config`, of its `workspace-access:apiKey` however stored, and of `WORKSPACE_ACCESS_API_KEY`,
 * whole or in any run of 8 characters: the package's messages never hold the key, but the CLI may echo config or a program's error.
 */
export function secretsRedactor(config: ConfigMap, env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const secrets = Object.entries(config).flatMap(([key, entry]) => (entry.secret || key === API_KEY_CONFIG ? [entry.value] : []));
  const envKey = env["WORKSPACE_ACCESS_API_KEY"]?.trim();
  if (envKey) secrets.push(envKey);
  const redactors = [...new Set(secrets.filter((s) => s.trim() !== ""))].map(makeRedactor);
  return (text) => redactors.reduce((out, redact) => redact(out), text);
}

/** Runs `options.command` on one stack; see the top of this file. */
export async function runStack(name: string, options: StackRunOptions): Promise<StackReport> {
  const events = new EventCollector();
  let redact = secretsRedactor({});
  const resources = () => events.resources().map((r) => ({ ...r, name: redact(r.name) }));
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
    return { stack: name, result: "succeeded", changes, resources: resources() };
  } catch (error) {
    const message = failureMessage(events.diagnostics, error instanceof Error ? error.message : String(error));
    return {
      stack: name,
      result: "failed",
      changes: events.summary ?? noChanges(),
      resources: resources(),
      error: redact(options.cancel.aborted ? `cancelled (Ctrl-C): ${message}` : message),
    };
  }
}
