/**
 * What one stack's engine events say, gathered as they arrive: the changes the engine counted (its
 * summary event, the one count left when the command fails), the resources it planned, made or
 * found changed, and its error diagnostics (where the package's own messages are).
 */
import type { EngineEvent, OpMap } from "@pulumi/pulumi/automation";
import { type ChangeCounts, type ChangedResource, noChanges } from "./types";

/** The operations a report lists as changes; `same`, `read` and the replacement's halves are not. */
const CHANGE_OPS: ReadonlySet<string> = new Set(["create", "update", "delete", "replace"]);
/** The order a report lists them in. */
const OP_ORDER = ["create", "update", "replace", "delete"];

/** An error the engine reported, with the resource it is about (if any). */
export interface EngineDiagnostic {
  urn: string | undefined;
  message: string;
}

/** The engine's counts in the report's shape (a replacement counts once, as `replace`). */
export function countsOf(map: OpMap | undefined): ChangeCounts {
  const counts = noChanges();
  for (const key of Object.keys(counts) as Array<keyof ChangeCounts>) counts[key] = map?.[key] ?? 0;
  return counts;
}

/** The stack itself and the providers: counted by the engine, but no resource of the user's. */
function listed(type: string): boolean {
  return type !== "pulumi:pulumi:Stack" && !type.startsWith("pulumi:providers:");
}

/** A resource of a URN (`urn:pulumi:stack::project::type::name`): its type's last part and its name. */
function resourceOf(op: string, urn: string, type: string): ChangedResource {
  const name = urn.split("::").slice(3).join("::") || urn;
  return { op, type: type.split(/[:/]/).at(-1) ?? type, name };
}

/** Collects one stack's events; hand {@link EventCollector.onEvent} to the Automation API. */
export class EventCollector {
  /** The summary event's counts, once the engine sent it. */
  summary: ChangeCounts | undefined;
  readonly diagnostics: EngineDiagnostic[] = [];
  readonly #resources = new Map<string, ChangedResource>();

  readonly onEvent = (event: EngineEvent): void => {
    const diagnostic = event.diagnosticEvent;
    if (diagnostic?.severity === "error") this.diagnostics.push({ urn: diagnostic.urn, message: diagnostic.message });
    if (event.summaryEvent) this.summary = countsOf(event.summaryEvent.resourceChanges);
    const step = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
    if (!step || !listed(step.type)) return;
    if (CHANGE_OPS.has(step.op)) this.#resources.set(step.urn, resourceOf(step.op, step.urn, step.type));
    // A refresh's steps are `refresh`: its outputs event says whether the resource drifted or is gone
    // (the CLI's JSON display names such a step `update` or `delete`, taken above if the log does too).
    if (step.op === "refresh" && event.resOutputsEvent) {
      const gone = step.new === undefined && step.old !== undefined;
      const drifted = (step.diffs?.length ?? 0) > 0 || Object.keys(step.detailedDiff ?? {}).length > 0;
      if (gone || drifted) this.#resources.set(step.urn, resourceOf(gone ? "delete" : "update", step.urn, step.type));
    }
  };

  /**
   * The changed resources by operation, type and name: the engine reaches them in no fixed order,
   * and a pull request's comment should change only when the changes do.
   */
  resources(): ChangedResource[] {
    const rank = (op: string) => OP_ORDER.indexOf(op);
    return [...this.#resources.values()].sort(
      (a, b) => rank(a.op) - rank(b.op) || a.type.localeCompare(b.type) || a.name.localeCompare(b.name),
    );
  }
}
